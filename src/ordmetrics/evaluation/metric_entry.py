"""Metric entries: one registered metric with fixed options, and how it is called.

A :class:`MetricEntry` is one metric of a :class:`~ordmetrics.MetricSet`: a registered metric,
options fixed for it, and the name shown in tables. :meth:`MetricEntry.arguments` says what
its function is given besides the truth, from the registry's ``input`` of the metric (see
:mod:`ordmetrics.evaluation.metric_set`): every front calls a metric through it.
"""

from __future__ import annotations

import copy
import difflib
import functools
import inspect
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from ordmetrics._core.registry import (
    INPUTS,
    MetricSpec,
    get_metric,
)
from ordmetrics._core.validation import (
    check_option,
    fmt_rows,
    type_name,
)
from ordmetrics.metrics.decisions import (
    RULES,
    decide,
)

__all__ = [
    "PER_CALL_OPTIONS",
    "MetricEntry",
    "as_float",
    "check_options",
    "decide_rows",
]

#: Arguments that an evaluation sets for every metric; they cannot be fixed per entry.
PER_CALL_OPTIONS = ("labels", "sample_weight", "nan_policy")


def _format_value(value: Any) -> str:
    """An option value for a display name: strings bare, numbers and bools as written."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool | np.bool_ | numbers.Number):
        return str(value)
    return "..."


def _display_name(metric: str, options: Mapping[str, Any]) -> str:
    """``metric`` alone, or ``metric(key=value, ...)`` with the options sorted by key."""
    if not options:
        return metric
    inner = ", ".join(f"{k}={_format_value(options[k])}" for k in sorted(options))
    return f"{metric}({inner})"


def _own_options(spec: MetricSpec) -> list[str]:
    """The keyword-only arguments of the metric's function, less the per-call ones."""
    params = inspect.signature(spec.func).parameters.values()
    return [
        p.name
        for p in params
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in PER_CALL_OPTIONS
    ]


def _option_names(spec: MetricSpec) -> list[str]:
    """The options an entry may fix: the metric's own, and ``decision`` for decision input."""
    names = _own_options(spec)
    if spec.input == "decisions" and "decision" not in names:
        names.append("decision")
    return names


def check_options(spec: MetricSpec, options: Any) -> dict[str, Any]:
    """The options of a metric entry as a new dict, checked against the metric's signature.

    Parameters
    ----------
    spec : MetricSpec
        The registered metric.
    options : mapping or None
        Keyword arguments to fix: keyword-only arguments of the metric's function, and, for a
        metric computed from decisions (``spec.input == "decisions"``), ``decision``, the
        :func:`~ordmetrics.decide` rule. ``labels``, ``sample_weight`` and ``nan_policy``
        are not allowed (see :data:`PER_CALL_OPTIONS`), nor ``reduction="none"``.

    Returns
    -------
    dict
        A copy of ``options`` (empty for None) that no later change of the caller's objects
        reaches: an array is copied and made read-only, a list or dict copied deeply.

    Raises
    ------
    TypeError
        If ``options`` is not a mapping or a key is not a string.
    ValueError
        For an unknown option (with the close match and the options that exist), a per-call
        argument, an unknown decision rule or ``reduction="none"``.

    Examples
    --------
    >>> import ordmetrics
    >>> from ordmetrics.evaluation.metric_entry import check_options
    >>> check_options(ordmetrics.get_metric("qwk"), {"decision": "median"})
    {'decision': 'median'}
    >>> check_options(ordmetrics.get_metric("rps"), {"decision": "median"})
    Traceback (most recent call last):
    ...
    ValueError: decision is an option of the agreement metrics only; 'rps' is a scoring_rule
    metric, computed from the probabilities themselves. Remove decision from its options.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"the options of metric {spec.name!r} must be a dict of keyword arguments, e.g. "
            f"({spec.name!r}, {{...}}); got {type_name(options)} {options!r}."
        )
    opts = {key: frozen_option(value) for key, value in options.items()}
    allowed = _option_names(spec)
    for key, value in opts.items():
        if not isinstance(key, str):
            raise TypeError(f"option names of metric {spec.name!r} must be strings; got {key!r}.")
        if key in PER_CALL_OPTIONS:
            raise ValueError(
                f"{key} cannot be fixed in a metric entry ({spec.name!r}): it applies to every "
                f"metric and is an argument of evaluate; pass evaluate(..., {key}=...) instead."
            )
        if key == "decision" and key not in allowed:
            raise ValueError(
                f"decision is an option of the agreement metrics only; {spec.name!r} is a "
                f"{spec.kind} metric, computed from the probabilities themselves. Remove "
                "decision from its options."
            )
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            choices = ", ".join(allowed) if allowed else "none"
            raise ValueError(
                f"{key!r} is not an option of metric {spec.name!r}.{hint} Its options are: "
                f"{choices}."
            )
        if key == "decision" and spec.input == "decisions":
            check_option(value, "decision", RULES)
        if key == "reduction" and value == "none":
            raise ValueError(
                f"reduction='none' gives one score per row, but evaluate reports one number "
                f"per group; use reduction='mean' or 'sum' for {spec.name!r}, or call "
                f"ordmetrics.{spec.name}(..., reduction='none') directly."
            )
    return opts


def frozen_option(value: Any) -> Any:
    """``value`` as an entry keeps it: an array copied and read-only, a container copied.

    A metric set is frozen: its results must not change when the caller later edits the
    cost matrix (or any other array or list) that it was built with.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> kept = frozen_option(C)
    >>> C[0, 1] = 9.0
    >>> kept.tolist(), kept.flags.writeable
    ([[0.0, 1.0], [1.0, 0.0]], False)
    """
    if isinstance(value, np.ndarray):
        out = np.array(value, copy=True, subok=True)
        out.setflags(write=False)
        return out
    if isinstance(value, list | dict | set | bytearray):
        return copy.deepcopy(value)
    return value


@dataclass(frozen=True, eq=False)
class MetricEntry:
    """One metric of a :class:`~ordmetrics.MetricSet`: a registered metric, fixed options, a
    display name.

    Parameters
    ----------
    metric : str or MetricSpec
        A registered metric name (see :func:`~ordmetrics.list_metrics`) or its spec.
    options : dict, optional
        Keyword arguments fixed for this metric, e.g. ``{"costs": "squared"}`` for
        ``expected_cost``. ``labels``, ``sample_weight`` and ``nan_policy`` are not allowed
        here: they are arguments of :func:`ordmetrics.evaluate` and apply to every metric.
        Metrics computed from decisions (``input == "decisions"``: the agreement metrics) also
        accept ``decision``, the rule of :func:`~ordmetrics.decide` that turns the
        probabilities into the predicted classes they compare with the truth
        (``"argmax"``, ``"median"``, ``"expected"`` or ``"min_cost"``, the last with decide's
        default absolute costs; the default is ``evaluate``'s ``decision``). Option values are
        checked by the metric when it runs.
    name : str, optional
        The name shown in the ``metric`` column. By default the metric name when there are no
        options, otherwise ``metric(key=value, ...)`` with the options sorted by key, strings
        shown bare, numbers, booleans and None as written, and any other value (a matrix,
        an array) as ``...``: ``expected_cost(costs=squared, normalize=True)``,
        ``expected_cost(costs=...)``.

    Attributes
    ----------
    metric : str
        The registry name.
    options : mapping
        The fixed options (read-only).
    name : str
        The display name.

    Examples
    --------
    >>> from ordmetrics.evaluation.metric_entry import MetricEntry
    >>> MetricEntry("expected_cost", {"normalize": True, "costs": "squared"}).name
    'expected_cost(costs=squared, normalize=True)'
    >>> MetricEntry("qwk", {"decision": "median"}, name="qwk_median").name
    'qwk_median'
    >>> MetricEntry("rps", {"cost": 1})
    Traceback (most recent call last):
    ...
    ValueError: 'cost' is not an option of metric 'rps'. Its options are: reduction, normalize,
    renormalize.
    """

    metric: str
    options: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None

    def __post_init__(self) -> None:
        spec = get_metric(self.metric)
        if spec.input not in INPUTS:  # pragma: no cover - register checks the input
            raise ValueError(
                f"metric {spec.name!r} has input {spec.input!r}, which a metric set cannot "
                f"give it; its input must be one of {', '.join(INPUTS)}."
            )
        opts = check_options(spec, self.options)
        if self.name is None:
            name = _display_name(spec.name, opts)
        elif isinstance(self.name, str) and self.name:
            name = self.name
        else:
            raise TypeError(
                f"the name of a metric entry must be a non-empty string; got "
                f"{type_name(self.name)} {self.name!r}."
            )
        object.__setattr__(self, "metric", spec.name)
        object.__setattr__(self, "options", MappingProxyType(opts))
        object.__setattr__(self, "name", name)

    @property
    def spec(self) -> MetricSpec:
        """The registered spec of the metric."""
        return get_metric(self.metric)

    @property
    def kind(self) -> str:
        """The metric kind: ``scoring_rule``, ``agreement``, ``ranking`` or ``calibration``."""
        return self.spec.kind

    @property
    def input(self) -> str:
        """What the metric is computed from: ``probabilities``, ``decisions`` or ``scores``."""
        return self.spec.input

    @property
    def direction(self) -> str:
        """``"minimize"`` or ``"maximize"``, from the registry."""
        return self.spec.direction

    def arguments(
        self,
        y_proba: Any,
        *,
        labels: Any = None,
        sample_weight: Any = None,
        decision: str = "argmax",
        nan_policy: str = "raise",
        decision_labels: Any = None,
        rows: np.ndarray | None = None,
        decided: dict[str, np.ndarray] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """What the metric's function is given besides the truth: ``(x, keywords)``.

        ``func(y_true, x, **keywords)`` is the metric on these rows. ``x`` is the input the
        registry names (:attr:`ordmetrics.MetricSpec.input`): ``y_proba`` itself for
        ``"probabilities"`` and ``"scores"`` (the ranking metrics reduce the probabilities to
        the expected grade themselves), the decisions ``decide(y_proba, rule)`` for
        ``"decisions"``, with the entry's ``decision`` option or else ``decision`` as the
        rule (see :func:`decide_rows` for rows with a missing probability).
        ``keywords`` are ``labels`` (``decision_labels`` for decisions), ``sample_weight``
        and ``nan_policy`` where the function takes them, and the entry's options.

        Parameters
        ----------
        y_proba : ndarray of shape (n_samples, n_classes)
            The probabilities, columns in ordinal order.
        labels, sample_weight, nan_policy
            The arguments of the call, passed to the metric.
        decision : str, default "argmax"
            The decision rule, unless the entry fixes its own.
        decision_labels : sequence, optional
            The label set of the decisions and of their comparison with the truth; by default
            ``labels``.
        rows : ndarray of int, optional
            The positions of the rows in the caller's data, for error messages.
        decided : dict, optional
            Decisions already made, by rule; a new rule's decisions are added to it, so that
            the metrics of one call share them.

        Returns
        -------
        x : ndarray
            The probabilities or the decisions.
        keywords : dict
            The keyword arguments of the call.

        Raises
        ------
        ValueError
            For a per-call argument the metric's function does not take, given a value that
            matters (labels, weights, ``nan_policy`` other than ``"raise"``), and for
            incomplete probability rows under ``nan_policy="raise"`` (decisions).

        Examples
        --------
        >>> import numpy as np
        >>> from ordmetrics.evaluation.metric_entry import MetricEntry
        >>> P = np.array([[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]])
        >>> entry = MetricEntry("qwk", {"decision": "median"})
        >>> x, kw = entry.arguments(P, decision_labels=[0, 1, 2])
        >>> x.tolist(), kw
        ([0, 2], {'labels': [0, 1, 2], 'sample_weight': None, 'nan_policy': 'raise'})
        >>> x, kw = MetricEntry("rps", {"normalize": False}).arguments(P)
        >>> x is P, kw["normalize"]
        (True, False)
        """
        options = dict(self.options)
        if self.spec.input == "decisions":
            rule = options.pop("decision", decision)
            lab = labels if decision_labels is None else decision_labels
            decided = {} if decided is None else decided
            if rule not in decided:
                decided[rule] = decide_rows(np.asarray(y_proba), rule, lab, nan_policy, rows)
            x = decided[rule]
        else:  # "probabilities", and "scores": the ranking functions read the probabilities
            x, lab = y_proba, labels
        per_call = {"labels": lab, "sample_weight": sample_weight, "nan_policy": nan_policy}
        return x, {**_taken(self, per_call), **options}

    def __repr__(self) -> str:
        parts = [repr(self.metric)]
        if self.options:
            parts.append(f"options={dict(self.options)!r}")
        if self.name != self.metric:
            parts.append(f"name={self.name!r}")
        return f"MetricEntry({', '.join(parts)})"


@functools.lru_cache(maxsize=256)
def _parameters(func: Callable[..., Any]) -> frozenset[str]:
    """The names of the parameters of ``func``."""
    return frozenset(inspect.signature(func).parameters)


#: The value of each per-call argument that a metric without that parameter may be given.
_NEUTRAL: dict[str, Any] = {"labels": None, "sample_weight": None, "nan_policy": "raise"}


def _taken(entry: MetricEntry, per_call: dict[str, Any]) -> dict[str, Any]:
    """The per-call arguments that the metric's function takes.

    Every metric gets ``labels``, ``sample_weight`` and ``nan_policy`` when its function takes
    them. One without such a parameter is computed without it when the call does not need it
    (no labels, no weights, ``nan_policy="raise"``), else it is an error naming the metric.
    """
    params = _parameters(entry.spec.func)
    taken = {}
    for key, value in per_call.items():
        if key in params:
            taken[key] = value
        elif key == "labels" and entry.input == "decisions":
            continue  # the label set of the decisions, not the caller's labels
        elif (value is not None) if _NEUTRAL[key] is None else (value != _NEUTRAL[key]):
            raise ValueError(
                f"metric {entry.name!r} does not take {key}, so it cannot be evaluated with "
                f"{key}={value!r}; evaluate it separately without {key} (with "
                f"{key}={_NEUTRAL[key]!r}), or leave it out of the metrics."
            )
    return taken


def decide_rows(
    P: np.ndarray, rule: str, labels: Any, nan_policy: str, rows: np.ndarray | None = None
) -> np.ndarray:
    """``decide(P, rule)`` on the complete rows; incomplete rows get a missing decision.

    The decisions of the metrics computed from decisions, in every front. A row with a
    missing (NaN) probability is an error under ``nan_policy="raise"`` (naming the row, its
    position in ``rows`` when given), else its decision is None, which the metrics treat as
    missing.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.metric_entry import decide_rows
    >>> P = np.array([[0.7, 0.3], [np.nan, np.nan], [0.2, 0.8]])
    >>> decide_rows(P, "argmax", None, "omit").tolist()
    [0, None, 1]
    """
    incomplete = np.isnan(P).any(axis=1)
    if not incomplete.any():
        return decide(P, rule, labels=labels)
    if nan_policy == "raise":
        where = np.flatnonzero(incomplete) if rows is None else rows[incomplete]
        raise ValueError(
            f"proba is missing (NaN/None) in {fmt_rows(where)}; the agreement metrics compare "
            "a decision from each complete probability row with the truth. Pass "
            "nan_policy='omit' to drop those rows or nan_policy='propagate' to get NaN."
        )
    pred = np.full(P.shape[0], None, dtype=object)
    if not incomplete.all():
        pred[~incomplete] = decide(P[~incomplete], rule, labels=labels)
    return pred


def as_float(value: Any, entry: MetricEntry) -> float:
    """The value a metric returned as a float; an array (e.g. ``reduction="none"``) is an error."""
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise TypeError(
            f"metric {entry.name!r} returned an array of shape {arr.shape}, not one number; "
            "check its options (e.g. reduction)."
        )
    return float(arr)
