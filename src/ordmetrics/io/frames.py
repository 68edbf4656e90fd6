"""Data-frame front: metrics of a pandas or polars frame, by group, as one tidy long table.

:func:`evaluate` takes a data frame with a truth column and one probability column per class,
computes a set of metrics (optionally per group of rows) and returns a long table of the same
library as its input, one row per (group, metric)::

    group columns... | metric | estimator | estimate | direction

the layout of yardstick's ``.metric`` / ``.estimator`` / ``.estimate`` tables (see
:func:`evaluate` for the column contract).

:func:`metric_set` bundles metrics with fixed options into a frozen, callable
:class:`MetricSet`, so that one evaluation can be repeated on many frames.

This module is a thin adapter: every number comes from calling a public metric function of
the core on the rows of one group. It reads frames through narwhals, so pandas, polars and the
other eager frames narwhals supports are handled alike.
"""

from __future__ import annotations

import difflib
import inspect
import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

import numpy as np

from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
)
from ordmetrics._core.validation import (
    NAN_POLICIES,
    check_option,
    fmt_rows,
    type_name,
)
from ordmetrics.io.readers import match_label_columns
from ordmetrics.metrics.decisions import (
    RULES,
    decide,
)

__all__ = ["DEFAULT_METRICS", "MetricEntry", "MetricSet", "evaluate", "metric_set"]

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

#: Metric kinds and what each is given: the probability matrix, or hard decisions from it.
_PROBA_KINDS = ("scoring_rule", "calibration", "ranking")
_DECISION_KINDS = ("agreement",)

#: Arguments that :func:`evaluate` sets for every metric; they cannot be fixed per entry.
_PER_CALL = ("labels", "sample_weight", "nan_policy")

#: Names of the output columns besides the group columns, in output order.
_OUTPUT_COLUMNS = ("metric", "estimator", "estimate", "direction")


# --------------------------------------------------------------------------------------------
# Metric entries and metric sets
# --------------------------------------------------------------------------------------------


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


def _option_names(spec: MetricSpec) -> list[str]:
    """The keyword-only arguments of a metric that an entry may fix."""
    params = inspect.signature(spec.func).parameters.values()
    names = [
        p.name
        for p in params
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in _PER_CALL
    ]
    if spec.kind in _DECISION_KINDS:
        names.append("decision")
    return names


def _check_options(spec: MetricSpec, options: Any) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"the options of metric {spec.name!r} must be a dict of keyword arguments, e.g. "
            f"({spec.name!r}, {{...}}); got {type_name(options)} {options!r}."
        )
    opts = dict(options)
    allowed = _option_names(spec)
    for key, value in opts.items():
        if not isinstance(key, str):
            raise TypeError(f"option names of metric {spec.name!r} must be strings; got {key!r}.")
        if key in _PER_CALL:
            raise ValueError(
                f"{key} cannot be fixed in a metric entry ({spec.name!r}): it applies to every "
                f"metric and is an argument of evaluate; pass evaluate(..., {key}=...) instead."
            )
        if key == "decision" and spec.kind not in _DECISION_KINDS:
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
        if key == "decision":
            check_option(value, "decision", RULES)
        if key == "reduction" and value == "none":
            raise ValueError(
                f"reduction='none' gives one score per row, but evaluate reports one number "
                f"per group; use reduction='mean' or 'sum' for {spec.name!r}, or call "
                f"ordmetrics.{spec.name}(..., reduction='none') directly."
            )
    return opts


@dataclass(frozen=True, eq=False)
class MetricEntry:
    """One metric of a :class:`MetricSet`: a registered metric, fixed options, a display name.

    Parameters
    ----------
    metric : str or MetricSpec
        A registered metric name (see :func:`~ordmetrics.list_metrics`) or its spec.
    options : dict, optional
        Keyword arguments fixed for this metric, e.g. ``{"costs": "squared"}`` for
        ``expected_cost``. ``labels``, ``sample_weight`` and ``nan_policy`` are not allowed
        here: they are arguments of :func:`evaluate` and apply to every metric. Agreement
        metrics also accept ``decision``, the rule of :func:`~ordmetrics.decide` that turns
        the probabilities into the predicted classes they compare with the truth
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
    >>> from ordmetrics.io.frames import MetricEntry
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
        if spec.kind not in _PROBA_KINDS + _DECISION_KINDS:
            raise ValueError(
                f"metric {spec.name!r} is of kind {spec.kind!r}, which evaluate cannot compute "
                f"from class probabilities; choose a metric of kind "
                f"{', '.join(_PROBA_KINDS + _DECISION_KINDS)}."
            )
        opts = _check_options(spec, self.options)
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
    def direction(self) -> str:
        """``"minimize"`` or ``"maximize"``, from the registry."""
        return self.spec.direction

    def __repr__(self) -> str:
        parts = [repr(self.metric)]
        if self.options:
            parts.append(f"options={dict(self.options)!r}")
        if self.name != self.metric:
            parts.append(f"name={self.name!r}")
        return f"MetricEntry({', '.join(parts)})"


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
    (everything but ``metrics``).

    Attributes
    ----------
    entries : tuple of MetricEntry
        The metrics, in output order.

    Examples
    --------
    >>> from ordmetrics.io.frames import metric_set
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
        >>> from ordmetrics.io.frames import metric_set
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
        """Evaluate the set on ``data``; see :func:`evaluate` for the arguments."""
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
        Frozen; call it like :func:`evaluate` without ``metrics``.

    Raises
    ------
    ValueError
        For an unknown metric name (the registry's message, with close matches), an option
        the metric does not take, or two entries with the same display name.
    TypeError
        For an item that is none of the forms above.

    See Also
    --------
    evaluate : Compute the metrics of a data frame.

    Examples
    --------
    >>> import pandas as pd
    >>> from ordmetrics.io.frames import metric_set
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


def _as_metric_set(metrics: Any) -> MetricSet:
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


# --------------------------------------------------------------------------------------------
# Reading the frame
# --------------------------------------------------------------------------------------------


def _narwhals() -> Any:
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # pragma: no cover - narwhals is a dependency
        raise ImportError(
            "ordmetrics.evaluate needs the narwhals package to read data frames; install it "
            "with `pip install narwhals`."
        ) from None
    return nw


_SUPPORTED = "a pandas or polars DataFrame (or another eager frame narwhals supports, e.g. pyarrow)"


def _as_frame(data: Any) -> Any:
    nw = _narwhals()
    try:
        return nw.from_native(data, eager_only=True)
    except TypeError:
        pass
    kind = "a lazy frame" if _is_lazy(data, nw) else f"{type_name(data)}"
    fix = (
        " Collect it first (e.g. lf.collect())."
        if kind == "a lazy frame"
        else " Build a frame first, e.g. pandas.DataFrame({...}), with the truth and the "
        "probability columns."
    )
    raise TypeError(f"data must be {_SUPPORTED}; got {kind}.{fix}")


def _is_lazy(data: Any, nw: Any) -> bool:
    try:
        nw.from_native(data)
    except TypeError:
        return False
    return True


def _fmt_columns(columns: list[Any], limit: int = 20) -> str:
    shown = ", ".join(repr(c) for c in columns[:limit])
    more = f", ... ({len(columns)} in all)" if len(columns) > limit else ""
    return shown + more


def _check_column(name: Any, arg: str, columns: list[Any]) -> Any:
    """``name`` must be one column of ``columns``; say which exist and which are close."""
    if not isinstance(name, str | numbers.Integral) or isinstance(name, bool):
        raise TypeError(
            f"{arg} must be the name of a column of data (a string); got {type_name(name)}. "
            "Add the values to the frame as a column and pass the column's name."
        )
    if name not in columns:
        str_cols = [c for c in columns if isinstance(c, str)]
        close = difflib.get_close_matches(str(name), str_cols, n=3) if str_cols else []
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(
            f"{arg} column {name!r} is not in data.{hint} Columns: {_fmt_columns(columns)}."
        )
    return name


def _proba_columns(proba: Any, columns: list[Any]) -> list[Any]:
    if isinstance(proba, str):
        chosen = [c for c in columns if isinstance(c, str) and c.startswith(proba)]
        if not chosen:
            raise ValueError(
                f"proba prefix {proba!r} matches no column of data; pass the prefix the "
                f"probability columns share (e.g. 'p_' for p_0, p_1, ...) or a list of their "
                f"names. Columns: {_fmt_columns(columns)}."
            )
        return chosen
    if isinstance(proba, set | frozenset | Mapping) or not hasattr(proba, "__iter__"):
        raise TypeError(
            "proba must be a list of column names in ordinal order, or a prefix string that "
            f"the probability columns share; got {type_name(proba)} {proba!r}."
        )
    chosen = list(proba)
    if not chosen:
        raise ValueError("proba is an empty list; list the probability columns in ordinal order.")
    for c in chosen:
        _check_column(c, "proba", columns)
    dups = [c for i, c in enumerate(chosen) if c in chosen[:i]]
    if dups:
        raise ValueError(
            f"proba lists column {dups[0]!r} more than once; each class needs its own column."
        )
    return chosen


def _by_columns(by: Any, columns: list[Any]) -> list[Any]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) or not isinstance(by, list | tuple) else list(by)
    if not names:
        raise ValueError("by is an empty list; pass None for no grouping, or column names.")
    for c in names:
        _check_column(c, "by", columns)
    dups = [c for i, c in enumerate(names) if c in names[:i]]
    if dups:
        raise ValueError(f"by lists column {dups[0]!r} more than once.")
    return names


def _check_roles(truth: Any, proba: list[Any], by: list[Any], weight: Any, proba_arg: Any) -> None:
    """The truth, probability, group and weight columns must not overlap."""
    if truth in proba:
        how = f"prefix {proba_arg!r} matches" if isinstance(proba_arg, str) else "lists"
        raise ValueError(
            f"proba {how} the truth column {truth!r}; the probability columns must not include "
            "the truth. Use a longer prefix or list the probability columns."
        )
    for c in by:
        if c == truth:
            raise ValueError(
                f"by contains the truth column {truth!r}; group by other columns (metrics "
                "within one true class are rarely meaningful), or copy the column under "
                "another name if this is intended."
            )
        if c in proba:
            raise ValueError(
                f"by contains {c!r}, which is also a probability column; group by other columns."
            )
        if c in _OUTPUT_COLUMNS:
            raise ValueError(
                f"by column {c!r} has the name of an output column ({', '.join(_OUTPUT_COLUMNS)});"
                " rename it first."
            )
    if weight is not None and (weight == truth or weight in proba):
        role = "the truth column" if weight == truth else "a probability column"
        raise ValueError(
            f"sample_weight column {weight!r} is {role}; pass the column of row weights."
        )


def _numeric(frame: Any, name: Any, arg: str, nw: Any) -> np.ndarray:
    dtype = frame.schema[name]
    if not dtype.is_numeric():
        raise TypeError(
            f"{arg} column {name!r} must be numeric; it has dtype {dtype}. Convert it first, "
            "e.g. with .astype(float) (pandas) or .cast(pl.Float64) (polars)."
        )
    # get_column: frame[name] would take an integer name as a row position
    return np.asarray(frame.get_column(name).cast(nw.Float64).to_numpy(), dtype=np.float64)


@dataclass
class _Inputs:
    """The frame's columns in the forms the core takes, for all rows."""

    truth: Any  # narwhals Series
    native_truth: bool  # pass the native series (pandas/polars) or a NumPy array
    P: np.ndarray
    weight: np.ndarray | None
    labels: Any
    agreement_labels: Any

    def truth_rows(self, rows: np.ndarray | None) -> Any:
        s = self.truth if rows is None else self.truth[rows]
        return s.to_native() if self.native_truth else s.to_numpy()


def _agreement_labels(truth: Any, labels: Any, n_classes: int, nw: Any) -> Any:
    """The label set in which hard decisions are compared with the truth.

    ``labels`` when given; else the categories of an ordered categorical / Enum truth; else
    ``0..K-1`` for numeric truth (K probability columns), so that every group is scored on the
    same K classes; else None, and the core explains what is missing.
    """
    if labels is not None:
        return labels
    dtype = truth.dtype
    if isinstance(dtype, nw.Enum):
        return list(dtype.categories)
    if dtype.is_numeric():
        return list(range(n_classes))
    return None


# --------------------------------------------------------------------------------------------
# Groups and metric calls
# --------------------------------------------------------------------------------------------


def group_key_rows(
    by: list[Any],
    missing: list[np.ndarray],
    nan_policy: str,
    where: str = "",
    offset: int = 0,
) -> np.ndarray | None:
    """The rows to keep under ``nan_policy`` given where each ``by`` column is missing.

    Every front that groups rows (:func:`evaluate`, the report, the CSV reader of the base
    install, :func:`ordmetrics.evaluate_file`, :func:`ordmetrics.dask.evaluate`) treats a
    missing group key so:

    - ``"raise"``: a ValueError naming the column and the first row whose key is missing;
    - ``"omit"``: those rows are dropped (the boolean mask of the rows kept is returned);
    - ``"propagate"``: they are kept, the rows with a missing value in a column forming one
      group (with the other columns' values), as ``dplyr::group_by`` keeps ``NA`` groups.

    Parameters
    ----------
    by : list
        The group columns.
    missing : list of ndarray of bool
        For each column of ``by``, where its value is missing (None, NaN, NA).
    nan_policy : {"raise", "omit", "propagate"}
        The policy of the call.
    where : str, optional
        Words placing the rows, appended to the row numbers (e.g. ``" of partition 3"``).
    offset : int, optional
        The number of the first row of ``missing`` in the message (rows of a batch).

    Returns
    -------
    ndarray of bool or None
        None when every row is kept, else the rows kept (``"omit"``).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.io.frames import group_key_rows
    >>> miss = [np.array([False, True, False]), np.array([False, False, True])]
    >>> group_key_rows(["site", "fold"], miss, "omit")
    array([ True, False, False])
    >>> group_key_rows(["site", "fold"], miss, "propagate") is None
    True
    >>> group_key_rows(["site", "fold"], miss, "raise")
    Traceback (most recent call last):
    ...
    ValueError: by column 'site' is missing (NaN/None) in row 1 (the first of 2 rows with a
    missing group key); with nan_policy='raise' every row needs a group. Pass nan_policy='omit'
    to drop those rows, or nan_policy='propagate' to keep them as a group whose key is missing.
    """
    if nan_policy == "propagate" or not missing:
        return None
    any_missing = np.logical_or.reduce([np.asarray(m, dtype=bool) for m in missing])
    if not any_missing.any():
        return None
    if nan_policy == "raise":
        first = int(np.argmax(any_missing))
        column = next(c for c, m in zip(by, missing, strict=True) if m[first])
        n = int(any_missing.sum())
        count = "the only row" if n == 1 else f"the first of {n} rows"
        row = offset + first
        raise ValueError(
            f"by column {column!r} is missing (NaN/None) in row {row}{where} ({count} with "
            "a missing group key); with nan_policy='raise' every row needs a group. Pass "
            "nan_policy='omit' to drop those rows, or nan_policy='propagate' to keep them as a "
            "group whose key is missing."
        )
    return ~any_missing


def _missing(series: Any) -> np.ndarray:
    """Where a narwhals series is missing: null, or NaN in a float column."""
    m = series.is_null()
    if series.dtype.is_float():
        m = m | series.is_nan().fill_null(True)
    return np.asarray(m.to_numpy(), dtype=bool)


def _groups(frame: Any, by: list[Any], nw: Any, nan_policy: str = "propagate") -> list[np.ndarray]:
    """Row positions of every group, groups in order of first appearance (one pass).

    Rows with a missing key are handled as :func:`group_key_rows` says; all the missing values
    of a column (None and NaN alike) fall into one group.
    """
    missing = [_missing(frame.get_column(c)) for c in by]
    keep = group_key_rows(by, missing, nan_policy)
    index = nw.generate_temporary_column_name(8, columns=[str(c) for c in frame.columns])
    keys = [nw.col(c).fill_nan(None) if frame.schema[c].is_float() else nw.col(c) for c in by]
    keyed = frame.select(keys).with_row_index(index)
    if keep is not None:
        keyed = keyed.filter(nw.new_series(index, keep, nw.Boolean(), backend=frame.implementation))
    groups = [
        np.sort(np.asarray(sub[index].to_numpy(), dtype=np.int64))
        for _, sub in keyed.group_by(by, drop_null_keys=False)
    ]
    groups = [g for g in groups if g.size]
    groups.sort(key=lambda g: int(g[0]))
    return groups


def _decisions(
    P: np.ndarray, rule: str, labels: Any, nan_policy: str, rows: np.ndarray | None
) -> np.ndarray:
    """``decide(P, rule)`` on the complete rows; incomplete rows get a missing prediction."""
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


def _evaluate_group(
    ms: MetricSet,
    inputs: _Inputs,
    rows: np.ndarray | None,
    nan_policy: str,
    decision: str,
    describe: Callable[[], str],
) -> list[float]:
    y = inputs.truth_rows(rows)
    P = inputs.P if rows is None else inputs.P[rows]
    w = inputs.weight if (inputs.weight is None or rows is None) else inputs.weight[rows]
    preds: dict[str, np.ndarray] = {}
    values: list[float] = []
    for entry in ms:
        spec = entry.spec
        options = dict(entry.options)
        try:
            if spec.kind in _DECISION_KINDS:
                rule = options.pop("decision", decision)
                if rule not in preds:
                    preds[rule] = _decisions(P, rule, inputs.agreement_labels, nan_policy, rows)
                value = spec.func(
                    y,
                    preds[rule],
                    labels=inputs.agreement_labels,
                    sample_weight=w,
                    nan_policy=nan_policy,
                    **options,
                )
            else:
                value = spec.func(
                    y, P, labels=inputs.labels, sample_weight=w, nan_policy=nan_policy, **options
                )
        except Exception as exc:
            note = getattr(exc, "add_note", None)
            if note is not None:
                note(f"(raised by metric {entry.name!r}{describe()})")
            raise
        values.append(_as_float(value, entry))
    return values


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds (``nan`` rather than ``np.float64(nan)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _as_float(value: Any, entry: MetricEntry) -> float:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise TypeError(
            f"metric {entry.name!r} returned an array of shape {arr.shape}, not one number; "
            "check its options (e.g. reduction)."
        )
    return float(arr)


# --------------------------------------------------------------------------------------------
# The front
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameData:
    """A frame's columns in the forms the core takes, and the row positions of its groups.

    What :func:`evaluate` and :mod:`ordmetrics.report.html` read from a frame, so that both read
    rows, labels and groups in exactly one way.
    """

    frame: Any  # narwhals DataFrame
    inputs: _Inputs
    proba: list[Any]
    by: list[Any]
    weight_col: Any
    groups: list[np.ndarray]  # row positions of each group, in order of first appearance


def label_proba_columns(
    proba: Any, columns: list[Any], labels: Any, categories: Any = None
) -> list[Any]:
    """The probability columns that ``proba`` selects, in the order of the classes.

    The one reader of ``proba`` for every front (data frames, Dask frames, the CSV reader of
    the base install): a list of names or a prefix (columns in table order), then, when the
    names end in the class labels (``p_mild``), the order of ``labels`` (or, without labels,
    of ``categories``, those of an ordered categorical truth); see
    :func:`ordmetrics.io.readers.match_label_columns`.

    Examples
    --------
    >>> from ordmetrics.io.frames import label_proba_columns
    >>> label_proba_columns("p_", ["y", "p_hi", "p_lo"], ["lo", "hi"])
    ['p_lo', 'p_hi']
    """
    chosen = _proba_columns(proba, columns)
    named = labels if labels is not None else categories
    return match_label_columns(chosen, named, prefix=proba if isinstance(proba, str) else None)


def read_frame(
    data: Any,
    *,
    truth: Any,
    proba: Any,
    by: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str = "propagate",
) -> FrameData:
    """Check the columns of ``data`` and read them as :func:`evaluate` does.

    ``nan_policy`` says what becomes of rows with a missing group key (see
    :func:`group_key_rows`); the default keeps them as a group of their own.
    """
    nw = _narwhals()
    frame = data if isinstance(data, nw.DataFrame) else _as_frame(data)
    columns = list(frame.columns)
    truth_col = _check_column(truth, "truth", columns)
    dtype = frame.schema[truth_col]  # the categories of an ordered truth name the classes too
    categories = list(dtype.categories) if isinstance(dtype, nw.Enum) else None
    proba_cols = label_proba_columns(proba, columns, labels, categories)
    by_cols = _by_columns(by, columns)
    weight_col = (
        None if sample_weight is None else _check_column(sample_weight, "sample_weight", columns)
    )
    _check_roles(truth_col, proba_cols, by_cols, weight_col, proba)

    P = np.empty((len(frame), len(proba_cols)), dtype=np.float64)
    for j, c in enumerate(proba_cols):
        P[:, j] = _numeric(frame, c, "proba", nw)
    weight = None if weight_col is None else _numeric(frame, weight_col, "sample_weight", nw)
    truth_series = frame.get_column(truth_col)
    impl = frame.implementation
    # pandas and polars columns go to the core as they are (it reads an ordered categorical /
    # Enum itself); other libraries' columns as NumPy arrays, with an Enum's order as labels
    native = bool(impl.is_pandas() or impl.is_polars())
    agreement_labels = _agreement_labels(truth_series, labels, len(proba_cols), nw)
    if labels is None and not native and isinstance(truth_series.dtype, nw.Enum):
        labels = agreement_labels
    inputs = _Inputs(
        truth=truth_series,
        native_truth=native,
        P=P,
        weight=weight,
        labels=labels,
        agreement_labels=agreement_labels,
    )
    groups = _groups(frame, by_cols, nw, nan_policy) if by_cols else []
    return FrameData(frame, inputs, proba_cols, by_cols, weight_col, groups)


def evaluate(
    data: Any,
    *,
    truth: str,
    proba: Any,
    metrics: Any = None,
    by: Any = None,
    labels: Any = None,
    sample_weight: str | None = None,
    nan_policy: str = "raise",
    decision: str = "argmax",
) -> Any:
    """Compute metrics of the predictions held in a data frame, optionally per group.

    Parameters
    ----------
    data : pandas.DataFrame or polars.DataFrame
        The rows to score: a pandas or polars DataFrame, or another eager frame that narwhals
        supports (e.g. a pyarrow Table). Lazy frames must be collected first.
    truth : str
        The column of true classes: integers ``0..K-1``, values listed in ``labels``, or an
        ordered pandas Categorical / polars Enum, which carries its own order.
    proba : str or list of str
        The probability columns, one per class in ordinal order: a list of column names, or a
        prefix string, which takes every column whose name starts with it, in frame order
        (``"p_"`` takes ``p_0, p_1, ...``). Columns named after the classes (``p_mild`` for
        the label ``mild``, ``p_Very_Good`` for ``"Very Good"``, ``p_2`` for the class 2 of
        integer truth) are taken in the order of ``labels`` (or of an ordered categorical
        truth); a list naming the classes in another order, or columns of which only some are
        named after classes, raise a ValueError.
    metrics : list or MetricSet, optional
        Registered metric names, ``(name, options)`` pairs, entries and sets of
        :func:`metric_set`, or one :class:`MetricSet`. The default, :data:`DEFAULT_METRICS`,
        is the six scoring rules (``rps``, ``sa_rps``, ``brier``, ``log_loss``, ``pbs``,
        ``pll``), then ``qwk``, ``expected_cost``, ``c_index`` and ``ece``.
    by : str or list of str, optional
        Column(s) to group by; the metrics are computed on the rows of each combination of
        their values that occurs. A row whose key is missing (None, NaN, NA in any ``by``
        column) is handled as ``nan_policy`` says: ``"raise"`` names the column and the first
        such row; ``"omit"`` drops those rows; ``"propagate"`` keeps them, the rows with a
        missing value in a column forming one group whose key is missing there (as
        ``dplyr::group_by`` keeps an ``NA`` group).
    labels : sequence, optional
        The class labels in ordinal order, i.e. the class of each probability column;
        needed for string truth, not for an ordered categorical / Enum.
    sample_weight : str, optional
        A column of non-negative frequency weights.
    nan_policy : {"raise", "omit", "propagate"}, default "raise"
        What every metric does with missing values in the truth, probability or weight
        columns: raise an error, drop those rows, or give NaN as the estimate; and what
        becomes of rows with a missing group key (see ``by``).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule that turns the probabilities into the predicted
        classes of the agreement metrics (``qwk``, ``expected_cost``, ``kappa``, ...), unless
        an entry of ``metrics`` fixes its own ``decision`` option.

    Returns
    -------
    DataFrame
        Of the same library as ``data`` (pandas in, pandas out; polars, polars; pyarrow,
        pyarrow), with these columns in this order:

        ========================  ========  ==================================================
        column                    dtype     content
        ========================  ========  ==================================================
        the ``by`` columns        as input  the group's key (missing under ``"propagate"``)
        ``metric``                string    the display name (see :func:`metric_set`)
        ``estimator``             string    how the metric is formed from the K classes
        ``estimate``              float64   the value
        ``direction``             string    ``"minimize"`` or ``"maximize"``
        ========================  ========  ==================================================

        One row per group and metric: groups in order of their first appearance in ``data``,
        and within each group the metrics in the order given. ``estimator`` names the
        averaging as yardstick's ``.estimator`` column does: ``"binary"`` when K = 2 for the
        metrics whose formula is the same for every K, else the metric's registry
        ``estimator``: ``"multiclass"`` (scoring rules, kappa, accuracy, expected cost),
        ``"macro"`` (macro F1 / precision / recall, AMAE, classwise ECE), ``"max"`` (MMAE),
        ``"top_label"`` (ECE), ``"cumulative"`` (cumulative ECE), ``"ordinal"`` (C-index)
        or ``"standard"`` (MAE, Spearman, Kendall tau); ``ordmetrics list`` shows them.

    Raises
    ------
    TypeError
        If ``data`` is not a supported data frame, a column argument is not a column name, or
        a probability or weight column is not numeric.
    ValueError
        For an unknown column (with the close matches and the columns that exist), a prefix
        that matches no column, overlapping roles (``by`` containing the truth, a probability
        column that is the truth), an unknown metric name or option, and every error of the
        metric functions themselves (re-raised unchanged, e.g. string truth without
        ``labels``), which carry a note naming the metric and group.

    See Also
    --------
    metric_set : Bundle metrics with fixed options.

    Notes
    -----
    Every estimate is one call of the metric's public function on the rows of one group, so
    ``evaluate`` gives exactly the numbers of the functional API:

    - scoring rules, calibration and ranking metrics get the truth and the probability matrix
      (ranking metrics then rank the rows by their expected grade);
    - agreement metrics get the truth and ``decide(P, decision)``, the predicted class of
      every row. They are compared in the label set ``labels`` when given, else in the
      categories of an ordered categorical / Enum truth, else (integer truth) in ``0..K-1``
      with K the number of probability columns, so every group is scored on the same K
      classes even when some are absent from it. Under ``nan_policy="omit"`` or
      ``"propagate"``, a row with a missing probability has a missing prediction.

    ``labels``, ``sample_weight`` and ``nan_policy`` are passed to every metric.

    Examples
    --------
    >>> import pandas as pd
    >>> import ordmetrics
    >>> from ordmetrics.io.frames import evaluate
    >>> df = pd.DataFrame({
    ...     "grade": [0, 1, 2, 1, 0, 2],
    ...     "site": ["a", "a", "a", "b", "b", "b"],
    ...     "p0": [0.7, 0.2, 0.1, 0.3, 0.6, 0.1],
    ...     "p1": [0.2, 0.6, 0.3, 0.5, 0.3, 0.3],
    ...     "p2": [0.1, 0.2, 0.6, 0.2, 0.1, 0.6],
    ... })
    >>> evaluate(df, truth="grade", proba="p", metrics=["rps", "qwk"]).round(4)
      metric   estimator  estimate direction
    0    rps  multiclass    0.0683  minimize
    1    qwk  multiclass    1.0000  maximize
    >>> out = evaluate(
    ...     df, truth="grade", proba=["p0", "p1", "p2"], metrics=["rps", "c_index"], by="site"
    ... )
    >>> out.round(4)
      site   metric   estimator  estimate direction
    0    a      rps  multiclass    0.0583  minimize
    1    a  c_index     ordinal    1.0000  maximize
    2    b      rps  multiclass    0.0783  minimize
    3    b  c_index     ordinal    1.0000  maximize
    >>> float(out["estimate"][0]) == ordmetrics.rps(df.grade[:3], df[["p0", "p1", "p2"]][:3])
    True
    """
    nw = _narwhals()
    frame = _as_frame(data)
    ms = _as_metric_set(metrics)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    check_option(decision, "decision", RULES)

    read = read_frame(
        frame,
        truth=truth,
        proba=proba,
        by=by,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
    )
    inputs, by_cols = read.inputs, read.by
    impl = frame.implementation

    values: list[float] = []
    if by_cols:
        groups = read.groups
        for rows in groups:

            def describe(first: int = int(rows[0])) -> str:
                keys = ", ".join(
                    f"{c}={_plain(nw.to_py_scalar(frame.get_column(c)[first]))!r}" for c in by_cols
                )
                return f" in the group {keys}"

            values.extend(_evaluate_group(ms, inputs, rows, nan_policy, decision, describe))
    else:
        groups = []
        values.extend(_evaluate_group(ms, inputs, None, nan_policy, decision, lambda: ""))

    n_groups = len(groups) if by_cols else 1
    out = nw.from_dict(
        {
            "metric": list(ms.names) * n_groups,
            "estimator": list(ms.estimators(len(read.proba))) * n_groups,
            "estimate": np.asarray(values, dtype=np.float64),
            "direction": list(ms.directions) * n_groups,
        },
        schema={
            "metric": nw.String(),
            "estimator": nw.String(),
            "estimate": nw.Float64(),
            "direction": nw.String(),
        },
        backend=impl,
    )
    if by_cols:
        first = np.array([int(g[0]) for g in groups], dtype=np.int64)
        keys = frame.select([nw.col(c) for c in by_cols])
        keys = nw.maybe_reset_index(keys[np.repeat(first, len(ms))])
        out = nw.concat([keys, out], how="horizontal")
    return out.to_native()
