"""The metric table of a data frame with bootstrap intervals, and the paired differences of several
models: the numbers of the HTML report and of the command line.

:func:`metric_table` gives the metrics of a data frame, optionally per group, as records with
a bootstrap confidence interval for every estimate. The estimates come from
:func:`ordmetrics.evaluate` (one evaluation of the :class:`~ordmetrics.MetricSet` core), the
intervals from :func:`ordmetrics.bootstrap` on the rows of each group, each metric given the
input its registry entry names (:attr:`ordmetrics.MetricSpec.input`). The definitions of the
metrics are in ``docs/definitions.md``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from ordmetrics._core.progress import progress
from ordmetrics._core.warnings import collect as collect_warnings
from ordmetrics.evaluation import (
    bootstrap,
)
from ordmetrics.evaluation.metric_set import as_metric_set, decide_rows
from ordmetrics.evaluation.resampling import check_resamples
from ordmetrics.io.frames import FrameData, evaluate, read_frame

#: Columns of :func:`metric_table` besides the group columns.
TABLE_COLUMNS: tuple[str, ...] = ("metric", "estimate", "direction", "low", "high")


# --------------------------------------------------------------------------------------------
# The rows of every group, as evaluate reads them
# --------------------------------------------------------------------------------------------


def _read(
    data: Any,
    truth: Any,
    proba: Any,
    by: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str = "propagate",
) -> Any:
    """Read ``data`` exactly as :func:`ordmetrics.evaluate` does (one reader, same groups).

    Returns a :class:`ordmetrics.io.frames.FrameData` whose ``groups`` is ``[None]`` (all rows)
    when there is no ``by``.
    """
    read = read_frame(
        data,
        truth=truth,
        proba=proba,
        by=by,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
    )
    if not read.by:
        read = dataclasses.replace(read, groups=cast(Any, [None]))
    return read


def _py(value: Any) -> Any:
    """A plain Python scalar (NumPy scalars unwrapped)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


# --------------------------------------------------------------------------------------------
# The metric table
# --------------------------------------------------------------------------------------------


def _truth_rows(inputs: Any, rows: np.ndarray | None) -> Any:
    """The truth of the rows as evaluate passes it; class names as a NumPy string array.

    Strings are the same labels in a NumPy ``str`` array as in an object array or a native
    series, and the metrics that bootstrap calls once per resample read them several times
    faster. Ordered categoricals / Enums and columns with missing values are left as they are.
    """
    import narwhals.stable.v2 as nw

    s = inputs.truth if rows is None else inputs.truth[rows]
    if not isinstance(s.dtype, nw.Enum | nw.Categorical) and s.null_count() == 0:
        values = s.to_numpy()
        if values.dtype == object and all(isinstance(v, str) for v in values):
            return values.astype(str)
    return inputs.truth_rows(rows)


def _coded(inputs: Any, rows: np.ndarray | None) -> tuple[Any, np.ndarray, Any, Any, bool]:
    """The truth, probabilities, labels and agreement labels of the rows, for a bootstrap.

    When the truth is class names without a missing value and the probabilities are
    complete, the names are replaced once by their positions 0..K-1 in the label order and
    the labels by ``range(K)``: every metric reads the same classes (a metric sees only
    positions), and the resamples need not encode the names again. The last entry says
    whether that was done; otherwise the truth is :func:`_truth_rows`'s and the labels the
    caller's.
    """
    y = _truth_rows(inputs, rows)
    P = inputs.P if rows is None else inputs.P[rows]
    labels, alabels = inputs.labels, inputs.agreement_labels
    if (
        not isinstance(y, np.ndarray)
        or y.dtype.kind != "U"
        or labels is None
        or alabels is None
        or not all(isinstance(v, str) for v in alabels)
        or list(labels) != list(alabels)
        or np.isnan(P).any()
    ):
        return y, P, labels, alabels, False
    names = np.asarray(list(alabels), dtype=str)
    order = np.argsort(names, kind="stable")
    at = np.minimum(np.searchsorted(names[order], y), names.size - 1)
    if not np.array_equal(names[order][at], y):  # a name not among the labels: let it raise
        return y, P, labels, alabels, False
    k = names.size
    return order[at].astype(np.int64), P, list(range(k)), list(range(k)), True


def _interval(
    entry: Any,
    inputs: Any,
    rows: np.ndarray | None,
    *,
    nan_policy: str,
    decision: str,
    n_resamples: int,
    confidence_level: float,
    random_state: Any,
) -> tuple[float, float]:
    """The bootstrap interval of one metric entry on the rows of one group."""
    y, P, labels, alabels, coded = _coded(inputs, rows)
    w = inputs.weight if (inputs.weight is None or rows is None) else inputs.weight[rows]
    options = dict(entry.options)
    if entry.input == "decisions":  # the decisions of its rule, else the probabilities
        rule = options.pop("decision", decision)
        x = decide_rows(P, rule, None if coded else alabels, nan_policy, rows)
        labels = alabels
    else:
        x = P
    res = bootstrap(
        entry.metric,
        y,
        x,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
        labels=labels,
        sample_weight=w,
        nan_policy=nan_policy,
        **options,
    )
    return float(res.low), float(res.high)


def metric_table(
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
    n_resamples: int = 0,
    confidence_level: float = 0.95,
    random_state: int = 0,
) -> list[dict[str, Any]]:
    """The metrics of a data frame, optionally per group, with bootstrap intervals.

    Parameters
    ----------
    data, truth, proba, metrics, by, labels, sample_weight, nan_policy, decision
        As for :func:`ordmetrics.evaluate`. ``data`` may also be a
        :class:`~ordmetrics.io.delimited.ColumnTable` (a CSV file read without a data-frame
        library), whose records :func:`ordmetrics.io.delimited.metric_table` computes.
    n_resamples : int, default 0
        Bootstrap resamples of every interval; 0 computes none (``low`` and ``high`` are
        None).
    confidence_level : float, default 0.95
        Coverage of the percentile intervals.
    random_state : int, default 0
        Seed of the resamples. Every (group, metric) is bootstrapped with this same seed, so
        the intervals of the metrics of one group are paired (same resamples) and the table is
        reproducible.

    Returns
    -------
    list of dict
        One record per (group, metric), in the order of :func:`ordmetrics.evaluate`: the
        ``by`` columns (plain Python values, None for a missing value), ``metric``,
        ``estimate`` (float), ``direction``, ``low`` and ``high`` (floats, or None without
        resamples).

    Raises
    ------
    ValueError, TypeError
        Everything :func:`ordmetrics.evaluate` and :func:`ordmetrics.bootstrap` raise, and a
        ``by`` column named ``low`` or ``high``.

    Notes
    -----
    The estimates are :func:`ordmetrics.evaluate`'s. The interval of a metric in a group is
    ``ordmetrics.bootstrap(metric, y, x, ...)`` on the rows of that group (the groups of
    :func:`ordmetrics.evaluate`), with ``x`` the probability matrix, or for the agreement
    metrics the decisions ``ordmetrics.decide(P, decision)``, and the same ``labels``,
    weights, ``nan_policy`` and metric options as the estimate.

    Examples
    --------
    >>> import pandas as pd
    >>> from ordmetrics.report.html import metric_table
    >>> df = pd.DataFrame({
    ...     "grade": [0, 1, 2, 1, 0, 2],
    ...     "p0": [0.7, 0.2, 0.1, 0.3, 0.6, 0.1],
    ...     "p1": [0.2, 0.6, 0.3, 0.5, 0.3, 0.3],
    ...     "p2": [0.1, 0.2, 0.6, 0.2, 0.1, 0.6],
    ... })
    >>> rec = metric_table(df, truth="grade", proba="p", metrics=["rps"], n_resamples=100)
    >>> rec[0]["metric"], round(rec[0]["estimate"], 4)
    ('rps', 0.0683)
    >>> bool(rec[0]["low"] <= rec[0]["estimate"] <= rec[0]["high"])
    True
    """
    from ordmetrics.io.delimited import ColumnTable

    if isinstance(data, ColumnTable):  # read without a data-frame library
        from ordmetrics.io.delimited import metric_table as column_metric_table

        return column_metric_table(
            data,
            truth=truth,
            proba=proba,
            metrics=metrics,
            by=by,
            labels=labels,
            sample_weight=sample_weight,
            nan_policy=nan_policy,
            decision=decision,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            random_state=random_state,
        )
    n_resamples = check_resamples(n_resamples)
    out = evaluate(
        data,
        truth=truth,
        proba=proba,
        metrics=metrics,
        by=by,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        decision=decision,
    )
    import narwhals.stable.v2 as nw

    table = nw.from_native(out, eager_only=True)
    records = [  # the columns of TABLE_COLUMNS (evaluate's estimator is not one of them)
        {str(k): _py(v) for k, v in row.items() if k != "estimator"}
        for row in table.rows(named=True)
    ]
    for rec in records:
        rec["estimate"] = float(rec["estimate"])
        rec["low"] = None
        rec["high"] = None
    by_cols = table.columns[: len(table.columns) - 4]  # evaluate's: by, metric, estimator, ...
    clash = [c for c in by_cols if c in ("low", "high")]
    if clash:
        raise ValueError(
            f"by column {clash[0]!r} has the name of an interval column (low, high); rename it."
        )
    if n_resamples == 0:
        return records

    ms = as_metric_set(metrics)
    d = _read(data, truth, proba, by, labels, sample_weight, nan_policy)
    i = 0
    total = len(d.groups) * len(ms) * n_resamples  # the bar counts resamples
    with progress(total, "bootstrap", unit="resamples") as step:
        for rows in d.groups:
            for entry in ms:
                with collect_warnings() as caught:  # this thread only (thread-safe)
                    low, high = _interval(
                        entry,
                        d.inputs,
                        rows,
                        nan_policy=nan_policy,
                        decision=decision,
                        n_resamples=n_resamples,
                        confidence_level=confidence_level,
                        random_state=random_state,
                    )
                _rewarn(caught, records[i], d.by)
                records[i]["low"], records[i]["high"] = low, high
                i += 1
                step(n_resamples)
    return records


def _rewarn(caught: list[Any], record: Mapping[str, Any], by: Sequence[Any]) -> None:
    """Warn again the warnings of one bootstrap, naming its group."""
    where = ", ".join(f"{c}={record[str(c)]!r}" for c in by)
    for text, category in caught:
        message = f"{text} (group {where})" if where else text
        warnings.warn(message, category, stacklevel=3)


# --------------------------------------------------------------------------------------------
# Several models
# --------------------------------------------------------------------------------------------


def _as_models(proba: Any) -> list[tuple[str | None, Any]]:
    """``proba`` as (model name, probability columns) pairs; name None for a single model."""
    if not isinstance(proba, Mapping):
        return [(None, proba)]
    if not proba:
        raise ValueError(
            "proba is an empty mapping; give one entry per model, e.g. "
            '{"hgb": "hgb_", "logit": "logit_"} (model name: prefix or list of columns).'
        )
    bad = [k for k in proba if not isinstance(k, str) or not k]
    if bad:
        raise TypeError(
            f"the keys of proba are the model names and must be non-empty strings; got {bad[0]!r}."
        )
    return [(str(k), v) for k, v in proba.items()]


def _differences(
    ds: Sequence[tuple[str, FrameData]],
    metrics: Any,
    *,
    nan_policy: str,
    decision: str,
    n_resamples: int,
    confidence_level: float,
    random_state: Any,
) -> list[dict[str, Any]]:
    """Paired bootstrap differences (:func:`ordmetrics.compare`) of every model and the first.

    One record per (model, metric), on all rows: ``metric``, ``a`` (the model), ``b`` (the
    first model, the baseline),
    ``difference`` (a - b), ``low``, ``high``, ``p_value`` and ``better`` (a model name or
    None).
    """
    from ordmetrics.evaluation import compare

    ms = as_metric_set(metrics)
    pairs = [(other, ds[0]) for other in ds[1:]]  # every model against the first
    out: list[dict[str, Any]] = []
    total = len(pairs) * len(ms) * n_resamples  # the bar counts resamples
    with progress(total, "paired differences", unit="resamples") as step:
        for (name_a, da), (name_b, db) in pairs:
            y, _, plabels, alabels, coded = _coded(da.inputs, None)
            if coded and np.isnan(db.inputs.P).any():  # b incomplete: the names as they are
                y, coded = _truth_rows(da.inputs, None), False
                plabels, alabels = da.inputs.labels, da.inputs.agreement_labels
            for entry in ms:
                options = dict(entry.options)
                if entry.input == "decisions":
                    rule = options.pop("decision", decision)
                    xs = [
                        decide_rows(d.inputs.P, rule, None if coded else alabels, nan_policy, None)
                        for d in (da, db)
                    ]
                    labels = alabels
                else:
                    xs, labels = [da.inputs.P, db.inputs.P], plabels
                with collect_warnings() as caught:
                    res = compare(
                        entry.metric,
                        y,
                        xs[0],
                        xs[1],
                        n_resamples=n_resamples,
                        confidence_level=confidence_level,
                        random_state=random_state,
                        labels=labels,
                        sample_weight=da.inputs.weight,
                        nan_policy=nan_policy,
                        **options,
                    )
                for text, category in caught:
                    warnings.warn(f"{text} ({name_a} - {name_b})", category, stacklevel=3)
                better = {"a": name_a, "b": name_b}.get(str(res.better))
                out.append(
                    {
                        "metric": entry.name,
                        "a": name_a,
                        "b": name_b,
                        "difference": float(res.difference),
                        "low": float(res.low),
                        "high": float(res.high),
                        "p_value": float(res.p_value),
                        "better": better,
                    }
                )
                step(n_resamples)
    return out
