"""Metric sets: registered metrics with fixed options, evaluated together in one pass.

:func:`metric_set` bundles metrics, each with fixed options and a display name, into a frozen
:class:`MetricSet`. :meth:`MetricSet.compute` evaluates the set on arrays - the truth, the
probability matrix, the weights - and is the one evaluation of a set that every front shares
(data frames, the Keras and Lightning callbacks, the reports): each metric is given the input
its registry entry names (:attr:`ordmetrics.MetricSpec.input`):

- ``"probabilities"``: the probability matrix as it is (scoring rules, calibration);
- ``"scores"``: the probability matrix too, which the ranking metrics reduce to the expected
  grade of every row;
- ``"decisions"``: the predicted class of every row, ``decide(P, rule)``, computed once per
  decision rule and shared by every metric of the set that uses that rule (agreement).

So a metric registered with an ``input`` is computed by every front without any front knowing
its kind. Calling a set, ``ms(data, truth=..., proba=...)``, evaluates it on a data frame (see
:func:`ordmetrics.evaluate`). The definitions of the metrics are in ``docs/definitions.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ordmetrics._core.registry import MetricSpec
from ordmetrics._core.validation import (
    NAN_POLICIES,
    check_option,
    type_name,
)
from ordmetrics.evaluation.metric_entry import (
    PER_CALL_OPTIONS,
    MetricEntry,
    as_float,
    check_options,
    decide_rows,
)
from ordmetrics.metrics.decisions import RULES

__all__ = [
    "DEFAULT_METRICS",
    "PER_CALL_OPTIONS",
    "MetricEntry",
    "MetricSet",
    "as_float",
    "as_metric_set",
    "check_options",
    "decide_rows",
    "metric_set",
    "set_frame_front",
]

#: The metrics of ``evaluate(metrics=None)``: the six scoring rules, then QWK and expected
#: cost (of the argmax decision), the ordinal C-index and the top-label ECE.
DEFAULT_METRICS: tuple[str, ...] = (
    "rps",
    "sa_rps",
    "brier",
    "log_loss",
    "pbs",
    "pll",
    "qwk",
    "expected_cost",
    "c_index",
    "ece",
)


#: The data-frame front that calling a set uses: ``ordmetrics.io.frames.evaluate``, which sets
#: it with :func:`set_frame_front` when it is imported (a higher layer, not imported here).
_FRAME_FRONT: dict[str, Callable[..., Any]] = {}


def set_frame_front(evaluate: Callable[..., Any]) -> None:
    """Make ``evaluate`` the function that ``MetricSet.__call__`` evaluates a data frame with.

    Called once by :mod:`ordmetrics.io.frames`, the data-frame front, so that this layer does
    not import the layers above it.
    """
    _FRAME_FRONT["evaluate"] = evaluate


def _as_entries(item: Any) -> list[MetricEntry]:
    """One argument of :func:`metric_set` (or one element of ``metrics=``) as entries."""
    if isinstance(item, MetricEntry):
        return [item]
    if isinstance(item, MetricSet):
        return list(item.entries)
    if isinstance(item, str | MetricSpec):
        return [MetricEntry(cast(str, item))]  # a spec is taken as its name
    if isinstance(item, tuple):
        if len(item) in (2, 3) and isinstance(item[0], str | MetricSpec):
            return [MetricEntry(*item)]
        raise TypeError(
            f"a metric given as a tuple must be (name, options) or (name, options, "
            f"display_name), e.g. ('expected_cost', {{'costs': 'squared'}}); got {item!r}."
        )
    if isinstance(item, list):
        raise TypeError(
            "metric_set takes the metrics as separate arguments, e.g. metric_set('rps', 'qwk'); "
            f"got a list {item!r}. Unpack it: metric_set(*metrics)."
        )
    hint = (
        " To give a metric options, put the pair in the list of metrics: "
        "metrics=[('expected_cost', {'costs': 'squared'})]."
        if isinstance(item, Mapping)
        else ""
    )
    raise TypeError(
        "each metric must be a registered name, a (name, options) pair, a (name, options, "
        f"display_name) triple, a MetricEntry or a MetricSet; got {type_name(item)} {item!r}."
        + hint
    )


@dataclass(frozen=True, eq=False)
class MetricSet:
    """A frozen bundle of metrics with fixed options, made by :func:`metric_set`.

    Calling it evaluates its metrics on a data frame: ``ms(data, truth=..., proba=...)`` is
    ``evaluate(data, truth=..., proba=..., metrics=ms)`` and takes the same keyword arguments
    (everything but ``metrics``). :meth:`compute` evaluates them on arrays.

    Attributes
    ----------
    entries : tuple of MetricEntry
        The metrics, in output order.

    Examples
    --------
    >>> from ordmetrics.evaluation.metric_set import metric_set
    >>> ms = metric_set("rps", ("expected_cost", {"costs": "squared"}))
    >>> ms
    MetricSet('rps', 'expected_cost(costs=squared)')
    >>> ms.names, ms.directions
    (('rps', 'expected_cost(costs=squared)'), ('minimize', 'minimize'))
    """

    entries: tuple[MetricEntry, ...]

    def __post_init__(self) -> None:
        entries = tuple(self.entries)
        if not entries:
            raise ValueError(
                "a metric set needs at least one metric, e.g. metric_set('rps', 'qwk'); got none."
            )
        for e in entries:
            if not isinstance(e, MetricEntry):
                raise TypeError(
                    f"MetricSet entries must be MetricEntry objects; got {type_name(e)}. "
                    "Build metric sets with ordmetrics.metric_set(...)."
                )
        seen: dict[str, MetricEntry] = {}
        for e in entries:
            if e.name in seen:
                raise ValueError(
                    f"two metrics of the set are named {e.name!r}; names must be unique because "
                    "they label the output rows. Drop the repeat, or give one an explicit "
                    f"name: ({e.metric!r}, {{...}}, 'my_name')."
                )
            seen[cast(str, e.name)] = e
        object.__setattr__(self, "entries", entries)

    @property
    def names(self) -> tuple[str, ...]:
        """The display names, in output order."""
        return tuple(cast(str, e.name) for e in self.entries)

    @property
    def directions(self) -> tuple[str, ...]:
        """The direction of every metric, in output order."""
        return tuple(e.direction for e in self.entries)

    def estimators(self, n_classes: int) -> tuple[str, ...]:
        """The ``estimator`` of every metric for ``n_classes`` classes, in output order.

        See :meth:`ordmetrics.MetricSpec.estimator_for`: ``binary`` for K = 2 where the
        formula is the same for every K, else the registry's ``estimator``.

        Examples
        --------
        >>> from ordmetrics.evaluation.metric_set import metric_set
        >>> metric_set("rps", "macro_f1", "ece").estimators(4)
        ('multiclass', 'macro', 'top_label')
        >>> metric_set("rps", "macro_f1", "ece").estimators(2)
        ('binary', 'macro', 'top_label')
        """
        return tuple(e.spec.estimator_for(n_classes) for e in self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[MetricEntry]:
        return iter(self.entries)

    def __repr__(self) -> str:
        return f"MetricSet({', '.join(repr(n) for n in self.names)})"

    def compute(
        self,
        y_true: Any,
        y_proba: Any,
        sample_weight: Any = None,
        *,
        labels: Any = None,
        decision: str = "argmax",
        nan_policy: str = "raise",
        decision_labels: Any = None,
        rows: np.ndarray | None = None,
        note: Callable[[MetricEntry], str] | None = None,
    ) -> dict[str, float]:
        """Every metric of the set on one truth vector and probability matrix.

        The one evaluation of a set that every front shares: each metric gets the input of
        its :attr:`~ordmetrics.MetricSpec.input` (the probabilities for ``probabilities`` and
        ``scores``, the decisions of its rule for ``decisions``), with ``sample_weight`` and
        ``nan_policy``, and each value is one call of the metric's public function.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            The true classes.
        y_proba : array-like of shape (n_samples, n_classes)
            One probability column per class, in ordinal order.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative frequency weights.
        labels : sequence, optional
            The class of each probability column, in ordinal order.
        decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
            The :func:`~ordmetrics.decide` rule of the metrics computed from decisions, unless
            an entry fixes its own ``decision``. The decisions of a rule are computed once and
            shared by every such metric.
        nan_policy : {"raise", "omit", "propagate"}, default "raise"
            Passed to every metric; with ``"omit"`` or ``"propagate"`` a row with a missing
            probability has a missing decision.
        decision_labels : sequence, optional
            The label set in which decisions are compared with the truth. By default
            ``labels``, else, for numeric truth, the class indices ``0..K-1`` (so that the
            classes absent from ``y_true`` still count), else None (the metric says what is
            missing).
        rows : ndarray of int, optional
            The positions of these rows in the caller's data, for error messages.
        note : callable, optional
            ``note(entry)`` gives the note added to an error raised by the metric of
            ``entry`` (Python 3.11+); by default ``(raised by metric 'name')``.

        Returns
        -------
        dict of str to float
            The value of every metric, keyed by display name, in the order of the set.

        Raises
        ------
        ValueError
            For a probability matrix that is not 2-D, and every error of the metric functions
            (re-raised unchanged, with the note).

        Examples
        --------
        >>> import numpy as np
        >>> import ordmetrics
        >>> from ordmetrics.evaluation.metric_set import metric_set
        >>> y = np.array([0, 1, 2, 2])
        >>> P = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6], [0.5, 0.3, 0.2]])
        >>> ms = metric_set("rps", "qwk", ("qwk", {"decision": "median"}), "c_index")
        >>> {k: round(v, 4) for k, v in ms.compute(y, P).items()}
        {'rps': 0.155, 'qwk': 0.3846, 'qwk(decision=median)': 0.3846, 'c_index': 0.8}
        >>> ms.compute(y, P)["qwk"] == ordmetrics.qwk(y, ordmetrics.decide(P))
        True
        """
        check_option(nan_policy, "nan_policy", NAN_POLICIES)
        check_option(decision, "decision", RULES)
        P = np.asarray(y_proba)
        if P.ndim != 2:
            raise ValueError(
                f"y_proba must have shape (n_samples, n_classes), one probability column per "
                f"class in ordinal order; got shape {P.shape}."
            )
        if decision_labels is None:
            decision_labels = labels
            if decision_labels is None and np.asarray(y_true).dtype.kind in "iufb":
                decision_labels = list(range(P.shape[1]))
        decided: dict[str, np.ndarray] = {}
        out: dict[str, float] = {}
        for entry in self.entries:
            try:
                x, keywords = entry.arguments(
                    P,
                    labels=labels,
                    sample_weight=sample_weight,
                    decision=decision,
                    nan_policy=nan_policy,
                    decision_labels=decision_labels,
                    rows=rows,
                    decided=decided,
                )
                value = entry.spec.func(y_true, x, **keywords)
            except Exception as exc:
                add_note = getattr(exc, "add_note", None)
                if add_note is not None:
                    add_note(f"(raised by metric {entry.name!r})" if note is None else note(entry))
                raise
            out[cast(str, entry.name)] = as_float(value, entry)
        return out

    def __call__(
        self,
        data: Any,
        *,
        truth: str,
        proba: Any,
        by: Any = None,
        labels: Any = None,
        sample_weight: str | None = None,
        nan_policy: str = "raise",
        decision: str = "argmax",
    ) -> Any:
        """Evaluate the set on the data frame ``data``; see :func:`ordmetrics.evaluate`."""
        evaluate = _FRAME_FRONT.get("evaluate")
        if evaluate is None:  # pragma: no cover - importing ordmetrics sets it
            raise RuntimeError(
                "the data-frame front is not loaded; import ordmetrics (or ordmetrics.io.frames) "
                "before calling a metric set on a data frame."
            )
        return evaluate(
            data,
            truth=truth,
            proba=proba,
            metrics=self,
            by=by,
            labels=labels,
            sample_weight=sample_weight,
            nan_policy=nan_policy,
            decision=decision,
        )


def metric_set(*metrics: Any) -> MetricSet:
    """Bundle metrics, each with fixed options, into one callable :class:`MetricSet`.

    Parameters
    ----------
    *metrics : str, tuple, MetricEntry or MetricSet
        Each one of: a registered metric name (``"rps"``); a pair ``(name, options)`` with a
        dict of keyword arguments to fix (``("kappa", {"weights": "linear"})``); a triple
        ``(name, options, display_name)`` to choose the name shown in the output; a
        :class:`MetricEntry`; or a :class:`MetricSet`, whose entries are included in place.
        Agreement metrics accept the option ``decision``, the :func:`~ordmetrics.decide`
        rule giving their predicted classes. See :class:`MetricEntry` for how display names
        are made; they must be unique within the set.

    Returns
    -------
    MetricSet
        Frozen; call it like :func:`ordmetrics.evaluate` without ``metrics``.

    Raises
    ------
    ValueError
        For an unknown metric name (the registry's message, with close matches), an option
        the metric does not take, or two entries with the same display name.
    TypeError
        For an item that is none of the forms above.

    See Also
    --------
    ordmetrics.evaluate : Compute the metrics of a data frame.

    Examples
    --------
    >>> import pandas as pd
    >>> from ordmetrics.evaluation.metric_set import metric_set
    >>> ms = metric_set(
    ...     "rps", ("expected_cost", {"costs": "squared"}), ("kappa", {"weights": "linear"})
    ... )
    >>> df = pd.DataFrame({
    ...     "grade": [0, 1, 2, 2],
    ...     "p0": [0.7, 0.2, 0.1, 0.5],
    ...     "p1": [0.2, 0.6, 0.3, 0.3],
    ...     "p2": [0.1, 0.2, 0.6, 0.2],
    ... })
    >>> ms(df, truth="grade", proba="p").round(4)
                             metric   estimator  estimate direction
    0                           rps  multiclass     0.155  minimize
    1  expected_cost(costs=squared)  multiclass     1.000  minimize
    2         kappa(weights=linear)  multiclass     0.500  maximize
    """
    entries: list[MetricEntry] = []
    for item in metrics:
        entries.extend(_as_entries(item))
    return MetricSet(tuple(entries))


def as_metric_set(metrics: Any) -> MetricSet:
    """``metrics`` as a :class:`MetricSet`, as every front reads its ``metrics`` argument.

    None gives the set of :data:`DEFAULT_METRICS`; a set is returned as it is; a name, spec,
    entry, or a list or tuple of the forms :func:`metric_set` takes, are bundled by it.

    Examples
    --------
    >>> from ordmetrics.evaluation.metric_set import as_metric_set
    >>> as_metric_set(["rps", ("qwk", {"decision": "median"})])
    MetricSet('rps', 'qwk(decision=median)')
    >>> len(as_metric_set(None))
    10
    """
    if metrics is None:
        return metric_set(*DEFAULT_METRICS)
    if isinstance(metrics, MetricSet):
        return metrics
    if isinstance(metrics, str | MetricSpec | MetricEntry):
        return metric_set(metrics)
    if isinstance(metrics, list | tuple):
        return metric_set(*metrics)
    raise TypeError(
        "metrics must be None (the default set), a list of metric names or entries, or a "
        f"MetricSet from ordmetrics.metric_set(...); got {type_name(metrics)} {metrics!r}."
    )
