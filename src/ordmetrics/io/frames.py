"""Data-frame front: metrics of a pandas or polars frame, by group, as one tidy long table.

:func:`evaluate` takes a data frame with a truth column and one probability column per class,
computes a set of metrics (optionally per group of rows) and returns a long table of the same
library as its input, one row per (group, metric)::

    group columns... | metric | estimator | estimate | direction

the layout of yardstick's ``.metric`` / ``.estimator`` / ``.estimate`` tables (see
:func:`evaluate` for the column contract).

:func:`~ordmetrics.metric_set` (in :mod:`ordmetrics.evaluation.metric_set`) bundles metrics
with fixed options into a frozen, callable :class:`~ordmetrics.MetricSet`, so that one
evaluation can be repeated on many frames.

This module is a thin adapter: the frame's columns are read once
(:mod:`ordmetrics.io.frame_columns`), and every number comes from
:meth:`ordmetrics.MetricSet.compute` on the rows of one group, one call of a public metric
function per metric. Frames are read through narwhals, so pandas, polars and the other eager
frames narwhals supports are handled alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.validation import (
    NAN_POLICIES,
    check_option,
)
from ordmetrics.evaluation.metric_set import (
    DEFAULT_METRICS,
    MetricEntry,
    MetricSet,
    as_metric_set,
    metric_set,
    set_frame_front,
)
from ordmetrics.io.frame_columns import (
    as_frame,
    by_columns,
    check_column,
    check_roles,
    group_key_rows,
    group_rows,
    import_narwhals,
    label_proba_columns,
    numeric_column,
    proba_columns,
)
from ordmetrics.metrics.decisions import RULES

__all__ = [
    "DEFAULT_METRICS",
    "FrameData",
    "MetricEntry",
    "MetricSet",
    "evaluate",
    "group_key_rows",
    "label_proba_columns",
    "metric_set",
    "read_frame",
]


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


def _evaluate_group(
    ms: MetricSet,
    inputs: _Inputs,
    rows: np.ndarray | None,
    nan_policy: str,
    decision: str,
    describe: Callable[[], str],
) -> list[float]:
    """The values of the set on the rows of one group (all rows for None), in set order."""
    values = ms.compute(
        inputs.truth_rows(rows),
        inputs.P if rows is None else inputs.P[rows],
        inputs.weight if (inputs.weight is None or rows is None) else inputs.weight[rows],
        labels=inputs.labels,
        decision=decision,
        nan_policy=nan_policy,
        decision_labels=inputs.agreement_labels,
        rows=rows,
        note=lambda entry: f"(raised by metric {entry.name!r}{describe()})",
    )
    return list(values.values())


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds (``nan`` rather than ``np.float64(nan)``)."""
    return value.item() if isinstance(value, np.generic) else value


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
    nw = import_narwhals()
    frame = data if isinstance(data, nw.DataFrame) else as_frame(data)
    columns = list(frame.columns)
    truth_col = check_column(truth, "truth", columns)
    dtype = frame.schema[truth_col]  # the categories of an ordered truth name the classes too
    categories = list(dtype.categories) if isinstance(dtype, nw.Enum) else None
    by_cols = by_columns(by, columns)
    weight_col = (
        None if sample_weight is None else check_column(sample_weight, "sample_weight", columns)
    )
    # the roles first: a prefix that takes the truth column is that error, not a naming one
    check_roles(truth_col, proba_columns(proba, columns), by_cols, weight_col, proba)
    proba_cols = label_proba_columns(proba, columns, labels, categories)

    P = np.empty((len(frame), len(proba_cols)), dtype=np.float64)
    for j, c in enumerate(proba_cols):
        P[:, j] = numeric_column(frame, c, "proba", nw)
    weight = None if weight_col is None else numeric_column(frame, weight_col, "sample_weight", nw)
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
    groups = group_rows(frame, by_cols, nw, nan_policy) if by_cols else []
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
        (``"p_"`` takes ``p_0, p_1, ...``). The columns a prefix takes are paired with the
        classes by name, whatever their order in the frame: numbered ``p_0..p_{K-1}`` or
        ``p1..pK``, in the order of their numbers; else named after the classes and taken in
        the order of ``labels`` (or of an ordered categorical truth), names compared once
        normalised (NFKC, casefolded, every character other than a letter or a digit
        dropped: ``p_strong_dem``, ``p_Strong Dem`` and ``p_STRONG-DEM`` all name
        ``"Strong Dem"``; ``p_2`` names the class 2 of integer labels). Names that do not
        match the labels one-to-one, or a list naming the classes in another order, raise a
        ValueError naming the columns and labels left unmatched, rather than pair a column
        with the wrong class.
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
    nw = import_narwhals()
    frame = as_frame(data)
    ms = as_metric_set(metrics)
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


set_frame_front(evaluate)  # calling a MetricSet on a frame evaluates it here
