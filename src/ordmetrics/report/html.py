"""Evaluation reports: a metric table with bootstrap intervals, and a self-contained HTML file.

:func:`metric_table` gives the metrics of a data frame, optionally per group, as records with
a bootstrap confidence interval for every estimate. :func:`build_report` returns one HTML
document, and :func:`write_report` writes it, with that table and the figures of the whole
data: retention curves of the scoring rules (QWK and expected cost), reliability diagrams
(top-label, classwise, cumulative), the confusion matrix of the decisions and the worst
predictions. The document needs no network: the figures are embedded PNG images (data URIs)
and the style sheet is inline. Every string that comes from the data (class names, column
names, group values, the file name, the title) is HTML-escaped. With several models
(``proba`` a mapping of model names to their columns) the report shows them side by side: one
table of every model, the paired differences of :func:`ordmetrics.compare`, the retention
curves overlaid and the other figures of every model. The figures sit in a CSS grid that
follows the width of the window; long class names are wrapped and legends sit under the plots.

This module is a front like :mod:`ordmetrics.io.frames`: the estimates come from
:func:`ordmetrics.evaluate`, the intervals from :func:`ordmetrics.bootstrap` on the rows of
each group (the groups of :func:`ordmetrics.evaluate`), the figures from :mod:`ordmetrics.plot`
and the worst predictions from :func:`ordmetrics.worst_predictions`. matplotlib is needed for
the figures only (``pip install ordmetrics[plot]``).
"""

from __future__ import annotations

import base64
import dataclasses
import html
import io
import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from ordmetrics._core.progress import progress
from ordmetrics._core.registry import list_metrics
from ordmetrics._core.warnings import collect as collect_warnings
from ordmetrics.evaluation import (
    bootstrap,
    worst_predictions,
)
from ordmetrics.io import frames as _frame
from ordmetrics.io.readers import MissingDependencyError
from ordmetrics.metrics.decisions import decide

__all__ = ["build_report", "metric_table", "require_matplotlib", "write_report"]

#: Columns of :func:`metric_table` besides the group columns.
TABLE_COLUMNS: tuple[str, ...] = ("metric", "estimate", "direction", "low", "high")

#: How many worst predictions the report lists.
WORST_K = 10

_DPI = 96


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
    read = _frame.read_frame(
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


def _check_resamples(n_resamples: Any) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(
            f"n_resamples must be a non-negative integer (0: no intervals); got {n_resamples!r}."
        )
    if n_resamples < 0 or n_resamples == 1:
        raise ValueError(
            f"n_resamples must be 0 (no intervals) or at least 2; got {n_resamples}. Use e.g. "
            "200 for a quick interval, 1000 or more for a stable one."
        )
    return int(n_resamples)


def _truth_rows(inputs: Any, rows: np.ndarray | None) -> Any:
    """The truth of the rows as evaluate passes it; class names as a NumPy string array.

    Strings are the same labels in a NumPy ``str`` array as in an object array or a native
    series, and the metrics that bootstrap calls once per resample read them several times
    faster. Ordered categoricals / Enums and columns with missing values are left as they are.
    """
    nw = _frame._narwhals()
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
    if entry.kind in _frame._DECISION_KINDS:
        rule = options.pop("decision", decision)
        x = _frame._decisions(P, rule, None if coded else alabels, nan_policy, rows)
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
        As for :func:`ordmetrics.evaluate`.
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
    n_resamples = _check_resamples(n_resamples)
    out = _frame.evaluate(
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
    nw = _frame._narwhals()
    records = [  # the columns of TABLE_COLUMNS (evaluate's estimator is not one of them)
        {str(k): _py(v) for k, v in row.items() if k != "estimator"}
        for row in nw.from_native(out, eager_only=True).rows(named=True)
    ]
    for rec in records:
        rec["estimate"] = float(rec["estimate"])
        rec["low"] = None
        rec["high"] = None
    by_cols = _frame._by_columns(by, list(_frame._as_frame(data).columns))
    clash = [c for c in by_cols if c in ("low", "high")]
    if clash:
        raise ValueError(
            f"by column {clash[0]!r} has the name of an interval column (low, high); rename it."
        )
    if n_resamples == 0:
        return records

    ms = _frame._as_metric_set(metrics)
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
    ds: Sequence[tuple[str, _frame.FrameData]],
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

    ms = _frame._as_metric_set(metrics)
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
                if entry.kind in _frame._DECISION_KINDS:
                    rule = options.pop("decision", decision)
                    xs = [
                        _frame._decisions(
                            d.inputs.P, rule, None if coded else alabels, nan_policy, None
                        )
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


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_CSS = """
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  margin: 0; color: #1d232a; background: #fafbfc; line-height: 1.45; }
header, main, footer { max-width: 1600px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 1.6em; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; margin: 32px 0 8px; border-bottom: 1px solid #d8dde3;
  padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 18px 0 6px; }
p.note { color: #4a5561; margin: 4px 0 12px; max-width: 75em; }
dl.summary { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 16px;
  margin: 12px 0; }
dl.summary dt { font-weight: 600; color: #4a5561; }
dl.summary dd { margin: 0; overflow-wrap: anywhere; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.92em; background: #fff; }
th, td { border: 1px solid #d8dde3; padding: 3px 9px; vertical-align: top; }
th { background: #eef1f4; text-align: left; max-width: 12em; overflow-wrap: break-word; }
td { max-width: 22em; overflow-wrap: break-word; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.better { font-weight: 600; }
section#worst table { font-size: 0.85em; }
.grid { display: grid; gap: 16px; align-items: start;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 340px), 1fr)); }
.grid.wide { grid-template-columns: repeat(auto-fit, minmax(min(100%, 560px), 1fr)); }
.grid + .grid { margin-top: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #d8dde3; padding: 8px; min-width: 0; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { font-size: 0.88em; color: #4a5561; margin-top: 4px; }
footer { color: #6b7682; font-size: 0.85em; padding: 32px 24px; }
"""


def _e(value: Any) -> str:
    """HTML-escaped text of any value."""
    return html.escape(str(value), quote=True)


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return ""
    x = float(value)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}f}"


def _cell(value: Any) -> str:
    return "null" if value is None else str(value)


def _html_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: set[int],
    classes: Mapping[int, str] | None = None,
) -> str:
    """A table from already-escaped cells, in a box that scrolls rather than overflows."""
    head = "".join(f"<th>{h}</th>" for h in header)

    def td(j: int, c: str) -> str:
        names = ["num"] if j in numeric else []
        if classes and j in classes:
            names.append(classes[j])
        return f'<td class="{" ".join(names)}">{c}</td>' if names else f"<td>{c}</td>"

    body = "\n".join(
        "<tr>" + "".join(td(j, c) for j, c in enumerate(row)) + "</tr>" for row in rows
    )
    return (
        f'<div class="scroll"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n'
        "</tbody>\n</table></div>"
    )


def _better_text(direction: str) -> str:
    return "higher is better" if direction == "maximize" else "lower is better"


def _metrics_html(
    records: Sequence[Mapping[str, Any]], by: Sequence[Any], level: float, intervals: bool
) -> str:
    header = [_e(c) for c in by] + ["metric", "estimate"]
    if intervals:
        header += [f"{level:.0%} low", f"{level:.0%} high"]
    header.append("direction")
    rows = []
    for rec in records:
        row = [_e(_cell(rec.get(str(c)))) for c in by]
        row += [_e(rec["metric"]), _num(rec["estimate"])]
        if intervals:
            row += [_num(rec["low"]), _num(rec["high"])]
        row.append(_better_text(rec["direction"]))
        rows.append(row)
    start = len(by) + 1
    numeric = set(range(start, start + (3 if intervals else 1)))
    return _html_table(header, rows, numeric)


def _models_html(
    tables: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
    by: Sequence[Any],
    level: float,
    intervals: bool,
) -> str:
    """The metric tables of several models side by side: one row per (group, metric)."""
    header = [_e(c) for c in by] + ["metric"]
    for name, _ in tables:
        header.append(_e(name))
        if intervals:
            header.append(f"{_e(name)}: {level:.0%} interval")
    header.append("direction")
    rows = []
    for i, rec in enumerate(tables[0][1]):
        row = [_e(_cell(rec.get(str(c)))) for c in by] + [_e(rec["metric"])]
        for _, records in tables:
            r = records[i]
            row.append(_num(r["estimate"]))
            if intervals:
                row.append(f"[{_num(r['low'])}, {_num(r['high'])}]")
        row.append(_better_text(rec["direction"]))
        rows.append(row)
    start = len(by) + 1
    numeric = set(range(start, start + len(tables) * (2 if intervals else 1)))
    return _html_table(header, rows, numeric)


def _differences_html(diffs: Sequence[Mapping[str, Any]], level: float) -> str:
    header = [
        "metric",
        "models (a &minus; b)",
        "difference",
        f"{level:.0%} low",
        f"{level:.0%} high",
        "p-value",
        "better",
    ]
    rows = []
    for r in diffs:
        rows.append(
            [
                _e(r["metric"]),
                f"{_e(r['a'])} &minus; {_e(r['b'])}",
                _num(r["difference"]),
                _num(r["low"]),
                _num(r["high"]),
                _num(r["p_value"], 3),
                _e(r["better"]) if r["better"] is not None else "no clear difference",
            ]
        )
    return _html_table(header, rows, {2, 3, 4, 5}, {6: "better"})


def require_matplotlib() -> None:
    """Raise :class:`~ordmetrics.io.readers.MissingDependencyError` unless matplotlib imports."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "the report's figures need matplotlib, which is not installed; install it with "
            "`pip install ordmetrics[plot]`."
        ) from None


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=_DPI,
        bbox_inches="tight",
        pad_inches=0.1,
        metadata={"Software": None},
        pil_kwargs={"compress_level": 1},  # a few % larger, a third faster to write
    )
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_html(fig: Any, alt: str, caption: str, cls: str = "") -> str:
    """A figure: the PNG (alt text, never wider than its box) and its (escaped) caption."""
    attr = f' class="{cls}"' if cls else ""
    return (
        f'<figure{attr}><img src="data:image/png;base64,{_png(fig)}" alt="{_e(alt)}" '
        'style="max-width:100%;height:auto">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


#: Longest tick label before it is wrapped onto several lines, in characters.
_TICK_WIDTH = 14


def _short(text: Any, width: int = _TICK_WIDTH, split_words: bool = True) -> str:
    """A label wrapped onto lines of about ``width`` characters (at most 3 lines).

    Lines break at spaces and hyphens; ``split_words=False`` keeps a longer word whole.
    """
    import textwrap

    lines = textwrap.wrap(str(text), width=width, break_long_words=split_words) or [str(text)]
    if len(lines) > 3:
        lines = [*lines[:2], lines[2][: width - 1] + "…"]
    return "\n".join(lines)


def _legend_below(ax: Any) -> None:
    """Move the legend of ``ax`` under the Axes, where it cannot cover the data.

    Long entries are wrapped, and the figure grows by the height of the legend so that the
    Axes keep their size.
    """
    legend = ax.get_legend()
    if legend is None:
        return
    handles = legend.legend_handles
    texts = [t.get_text() for t in legend.get_texts()]
    title = legend.get_title().get_text()
    legend.remove()
    wrapped = [_short(t, 34) for t in texts]
    ncol = 2 if max(len(t) for t in texts) <= 30 else 1
    ax.legend(
        handles,
        wrapped,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=ncol,
        fontsize="small",
        title=title or None,
        title_fontsize="small",
        frameon=True,
    )
    heights = [t.count("\n") + 1 for t in wrapped]
    lines = sum(max(heights[i : i + ncol]) for i in range(0, len(heights), ncol))
    fig = ax.figure
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + 0.18 * (lines + (1 if title else 0)) + 0.2)


def _class_ticks(ax: Any, classes: Sequence[Any]) -> None:
    """Tick labels of a confusion matrix that stay readable: wrapped, or cut and turned."""
    k = len(classes)
    if k <= 7:
        ticks = [_short(c, max(8, 70 // k), split_words=False) for c in classes]
        ax.set_xticks(range(k), ticks, rotation=0, ha="center", fontsize="small")
    else:
        ticks = [str(c) if len(str(c)) <= 14 else str(c)[:13] + "…" for c in classes]
        ax.set_xticks(range(k), ticks, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(k), [_short(c, 18) for c in classes], fontsize="small")


def _missing_truth(series: Any) -> np.ndarray:
    missing = np.asarray(series.is_null().to_numpy(), dtype=bool)
    if series.dtype.is_float():
        missing |= np.isnan(np.asarray(series.to_numpy(), dtype=np.float64))
    return missing


_RETENTION_METRICS = (
    ("qwk", "QWK", "higher is better"),
    ("expected_cost", "expected cost (absolute costs)", "lower is better"),
)
_VIEWS = (("top_label", "top-label"), ("classwise", "classwise"), ("cumulative", "cumulative"))


def _retention_html(
    models: Sequence[tuple[str | None, Any, Any, Any, Any]], decision: str, step: Any
) -> str:
    """The retention-curve section: one model, or the models overlaid per ranking rule."""
    from matplotlib.figure import Figure

    from ordmetrics.report import plot

    rules = list(list_metrics("scoring_rule"))
    parts = ['<section id="retention">\n<h2>Retention curves</h2>']
    if len(models) == 1:
        _, y, P, w, labels = models[0]
        parts.append(
            '<p class="note">The rows are ranked by each scoring rule and the worst-scored are '
            f"removed first; the metric of the {_e(decision)} decisions on the rows kept is "
            "drawn against the fraction kept. A rule that singles out the bad predictions "
            "makes the curve improve fast. The legend gives each curve's AURSC (area under "
            "the curve, normalised); dashed lines: the oracle and random removal.</p>"
        )
        parts.append('<div class="grid wide">')
        for metric, what, better in _RETENTION_METRICS:
            fig = Figure(figsize=(6.6, 4.6), layout="constrained")
            ax = plot.retention_curves(
                y,
                P,
                by=rules,
                metric=metric,
                labels=labels,
                sample_weight=w,
                decision=decision,
                ax=fig.subplots(),
            )
            ax.set_title(f"Retention curves: {what}")
            _legend_below(ax)
            parts.append(
                _figure_html(
                    fig,
                    f"Retention curves of the {len(rules)} scoring rules: {what}",
                    f"{_e(what[0].upper() + what[1:])} on the rows kept ({better}).",
                )
            )
            step()
        parts.append("</div>\n</section>")
        return "\n".join(parts)

    names = [str(m[0]) for m in models]
    parts.append(
        '<p class="note">The rows are ranked by a scoring rule and the worst-scored are removed '
        f"first; the metric of the {_e(decision)} decisions on the rows kept is drawn against "
        "the fraction kept, one panel per ranking rule, the models overlaid (each ranked by "
        "its own scores). A curve that improves fast means the rule singles out that "
        "model's bad predictions. The legend gives each curve's AURSC (area under the curve, "
        "normalised).</p>"
    )
    parts.append('<div class="grid wide">')
    for metric, what, better in _RETENTION_METRICS:
        data = [
            plot.retention_curves_data(
                y, P, by=rules, metric=metric, labels=labels, sample_weight=w, decision=decision
            )
            for _, y, P, w, labels in models
        ]
        ncols = 2
        nrows = math.ceil(len(rules) / ncols)
        # a fixed grid (no layout engine: much faster to draw with this many Axes)
        fig = Figure(figsize=(8.0, 2.7 * nrows + 0.5))
        axes = np.atleast_1d(fig.subplots(nrows, ncols, sharex=True, sharey=True)).ravel()
        fig.subplots_adjust(left=0.09, right=0.99, bottom=0.06, top=0.94, wspace=0.06, hspace=0.2)
        for j, rule in enumerate(rules):
            ax = axes[j]
            plot.plot_retention(
                [d.curves[j] for d in data], names=names, oracle=False, random=False, ax=ax
            )
            ax.set_title(f"ranked by {rule}", fontsize="medium")
            ax.set_ylabel(what if j % ncols == 0 else "")
            ax.set_xlabel("retained fraction" if j // ncols == nrows - 1 else "")
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
            ax.legend(fontsize="small", loc="best", frameon=True, framealpha=0.9)
        for ax in axes[len(rules) :]:
            ax.set_visible(False)
        fig.suptitle(f"Retention curves: {what} ({better})")
        parts.append(
            _figure_html(
                fig,
                f"Retention curves of the models {', '.join(names)}: {what}, one panel per "
                "ranking rule",
                f"{_e(what[0].upper() + what[1:])} on the rows kept ({better}); models: "
                + ", ".join(_e(n) for n in names)
                + ".",
            )
        )
        step()
    parts.append("</div>\n</section>")
    return "\n".join(parts)


def _figures(
    ds: Sequence[tuple[str | None, _frame.FrameData]], decision: str, step: Any
) -> tuple[str, str]:
    """The HTML of the figure sections and of the worst predictions; and a note on rows."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    from ordmetrics.report import plot

    n = ds[0][1].inputs.P.shape[0]
    keep = ~_missing_truth(ds[0][1].inputs.truth)
    if ds[0][1].inputs.weight is not None:
        keep &= ~np.isnan(ds[0][1].inputs.weight)
    for _, d in ds:
        keep &= ~np.isnan(d.inputs.P).any(axis=1)
    if not keep.any():
        raise ValueError(
            f"every one of the {n} rows has a missing value (truth, probability or weight); "
            "the report has nothing to draw."
        )
    rows = None if keep.all() else np.flatnonzero(keep)
    first = ds[0][1].inputs
    y = first.truth_rows(rows)
    w = first.weight if (first.weight is None or rows is None) else first.weight[rows]
    labels, alabels = first.labels, first.agreement_labels
    models = [
        (name, y, d.inputs.P if rows is None else d.inputs.P[rows], w, labels) for name, d in ds
    ]
    several = len(ds) > 1
    parts: list[str] = []

    def of(name: str | None) -> str:
        return f" of {name}" if name is not None else ""

    # text is drawn as given: no mathtext, so a "$" in a class name stays a "$"
    with rc_context({"text.parse_math": False, "text.usetex": False}):
        parts.append(_retention_html(models, decision, step))

        parts.append('<section id="reliability">\n<h2>Reliability diagrams</h2>')
        parts.append(
            '<p class="note">Observed frequency against mean forecast probability, in 15 '
            "equal-width bins; a calibrated model lies on the diagonal. Top-label: the "
            "event that the most probable class is the true one; classwise: y = k for every "
            "class; cumulative: y &le; k for every threshold."
            + (" Each row is one view, the models side by side." if several else "")
            + "</p>"
        )
        grids: list[list[str]] = [[] for _ in _VIEWS] if several else [[]]
        for name, _, P, _, _ in models:
            for v, (view, what) in enumerate(_VIEWS):
                fig = Figure(figsize=(5.0, 4.8), layout="constrained")
                ax = plot.reliability_diagram(
                    y, P, view=view, labels=labels, sample_weight=w, ax=fig.subplots()
                )
                if several:
                    ax.set_title(f"{name}: {ax.get_title()}", fontsize="medium")
                else:
                    ax.set_title(ax.get_title(), fontsize="medium")
                _legend_below(ax)
                caption = f"Reliability{_e(of(name))}: {what}."
                grids[v if several else 0].append(
                    _figure_html(fig, f"Reliability diagram{of(name)} ({what})", caption)
                )
                step()
        for grid in grids:
            parts.append('<div class="grid">\n' + "\n".join(grid) + "\n</div>")
        parts.append("</section>")

        parts.append('<section id="confusion">\n<h2>Confusion matrix</h2>')
        parts.append(
            f'<p class="note">Rows: true class; columns: the {_e(decision)} decision of every '
            "row. An ordinal model's errors stay close to the diagonal."
            + (" The models side by side." if several else "")
            + "</p>"
        )
        parts.append('<div class="grid wide">')
        classes = list(alabels) if alabels is not None else list(range(models[0][2].shape[1]))
        for name, _, P, _, _ in models:
            pred = decide(P, decision, labels=alabels)
            long = max(len(str(c)) for c in classes) > 8
            fig = Figure(figsize=(6.6 if long else 5.6, 5.4 if long else 5.0), layout="constrained")
            ax = plot.confusion_matrix_heatmap(
                y, pred, labels=alabels, sample_weight=w, ax=fig.subplots()
            )
            _class_ticks(ax, classes)
            if several:
                ax.set_title(f"{name}: {ax.get_title()}", fontsize="medium")
            parts.append(
                _figure_html(
                    fig,
                    f"Confusion matrix{of(name)} of the {decision} decisions",
                    f"Confusion matrix{_e(of(name))} ({_e(decision)} decision"
                    + (", weighted counts)." if w is not None else ", counts)."),
                )
            )
            step()
        parts.append("</div>\n</section>")

    parts.append('<section id="worst">\n<h2>Worst predictions</h2>')
    parts.append(
        f'<p class="note">The {min(WORST_K, int(keep.sum()))} rows with the highest (worst) RPS'
        + (" of each model" if several else "")
        + ", worst first. row: position in the data, counted from 0; class columns: the "
        "predicted probabilities, that of the true class in bold.</p>"
    )
    d0 = ds[0][1]
    for name, _, P, _, _ in models:
        worst = worst_predictions(y, P, by="rps", k=WORST_K, labels=labels)
        positions = worst.index if rows is None else rows[worst.index]
        names = [str(v) for v in (alabels if alabels is not None else range(P.shape[1]))]
        header = ["row", *(_e(c) for c in d0.by), "true class", "rps", *(_e(c) for c in names)]
        body = []
        for pos, true, score, probs in zip(
            positions, worst.y_true.tolist(), worst.score, worst.y_proba, strict=True
        ):
            cells = [str(int(pos))]
            cells += [_e(_cell(_py(d0.frame.get_column(c)[int(pos)]))) for c in d0.by]
            cells += [_e(true), _num(score)]
            cells += [
                f"<strong>{_num(p, 3)}</strong>" if c == str(true) else _num(p, 3)
                for c, p in zip(names, probs, strict=True)
            ]
            body.append(cells)
        numeric = {0, len(d0.by) + 2, *range(len(d0.by) + 3, len(header))}
        if several:
            parts.append(f"<h3>{_e(name)}</h3>")
        parts.append(_html_table(header, body, numeric))
        step()
    parts.append("</section>")

    dropped = n - int(keep.sum())
    note = (
        f"{dropped} of {n} rows have a missing value and are left out of the figures."
        if dropped
        else ""
    )
    return "\n".join(parts), note


def build_report(
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
    n_resamples: int = 200,
    confidence_level: float = 0.95,
    random_state: int = 0,
    title: str | None = None,
    source: str | None = None,
    description: str | None = None,
    table: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """An evaluation report of the predictions in a data frame, as one self-contained HTML page.

    Parameters
    ----------
    data, truth, metrics, by, labels, sample_weight, nan_policy, decision
        As for :func:`ordmetrics.evaluate`. ``by`` groups the metric table only; the figures
        are of all rows.
    proba : str, sequence of str or mapping
        The probability columns of one model, as for :func:`ordmetrics.evaluate` (a prefix
        or a list of columns); or a mapping of model names to such columns, e.g.
        ``{"hgb": "hgb_", "logit": "logit_"}``, for a report of several models side by side.
    n_resamples : int, default 200
        Bootstrap resamples of the intervals of the metric table, and of the paired
        differences between models (0: none).
    confidence_level : float, default 0.95
        Coverage of the intervals.
    random_state : int, default 0
        Seed of the resamples.
    title : str, optional
        The page title; default ``"ordmetrics report"`` and the source.
    source : str, optional
        Where the data come from (e.g. the file name), shown in the summary.
    description : str, optional
        A paragraph shown under the title.
    table : sequence of dict, optional
        Records of :func:`metric_table` to show instead of computing them; their group
        columns are the keys other than ``metric``, ``estimate``, ``direction``, ``low`` and
        ``high``. ``n_resamples``, ``confidence_level`` and ``random_state`` then only
        describe its intervals (the paired differences of several models are still
        computed). With several models, records with a ``model`` column holding the model
        names of ``proba`` (e.g. ``metric_table(long_frame, by="model", ...)``) are shown
        side by side, one column per model.

    Returns
    -------
    str
        The HTML document: a summary, the metric table (with intervals; for several models
        one column per model and a table of the paired bootstrap differences of every model
        and the first, from :func:`ordmetrics.compare`), retention curves of the scoring
        rules for QWK and expected cost (for several models one panel per rule, the models
        overlaid), reliability diagrams (top-label, classwise, cumulative) and the confusion
        matrix of the ``decision`` rule of every model, and the ``WORST_K`` = 10 worst
        predictions by RPS of every model. The figures are PNG images embedded as data URIs
        and laid out in a grid that follows the page width; nothing is loaded from the
        network.

    Raises
    ------
    MissingDependencyError
        (an ImportError) When matplotlib is not installed (``pip install ordmetrics[plot]``).
    ValueError, TypeError
        Everything :func:`metric_table` and :func:`ordmetrics.compare` raise; an empty
        ``proba`` mapping or one whose keys are not strings; a ``by`` column named
        ``model`` in a report of several models.

    Notes
    -----
    Under ``nan_policy="omit"`` or ``"propagate"`` the figures are drawn from the rows
    without a missing value (in any model), and the summary says how many were left out.
    The paired differences are of all rows (not per group), a - b with b the first model
    (the baseline), each pair on the same
    resamples (seed ``random_state``); the p-value is the two-sided bootstrap p-value of
    :func:`ordmetrics.compare`, and ``better`` names a model only when the interval of the
    difference excludes 0.

    Examples
    --------
    >>> from ordmetrics.datasets import load_diamonds_cut_frame, CUT_LABELS
    >>> from ordmetrics.report.html import build_report
    >>> df = load_diamonds_cut_frame("pandas").head(300)
    >>> page = build_report(df, truth="cut", labels=list(CUT_LABELS), n_resamples=20,
    ...                     proba={"hgb": "hgb_", "logit": "logit_"})
    >>> page.count('<img src="data:image/png;base64,')  # 2 retention, 2 x (3 + 1)
    10
    >>> 'id="differences"' in page
    True
    """
    from ordmetrics import __version__

    require_matplotlib()
    models = _as_models(proba)
    several = len(models) > 1
    if several and by is not None:
        by_cols = _frame._by_columns(by, list(_frame._as_frame(data).columns))
        if "model" in [str(c) for c in by_cols]:
            raise ValueError(
                "by column 'model' has the name of the model column of a report of several "
                "models; rename it."
            )
    table_kw: dict[str, Any] = {
        "truth": truth,
        "metrics": metrics,
        "by": by,
        "labels": labels,
        "sample_weight": sample_weight,
        "nan_policy": nan_policy,
        "decision": decision,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "random_state": random_state,
    }
    tables: list[tuple[str, list[dict[str, Any]]]] = []
    side_by_side = several
    if table is None:
        for name, columns in models:
            tables.append((str(name), metric_table(data, proba=columns, **table_kw)))
        records = [r for _, t in tables for r in t]
    else:
        records = [dict(r) for r in table]
        side_by_side = several and bool(records) and "model" in records[0]
        if side_by_side:
            for name, _ in models:
                mine = [
                    {k: v for k, v in r.items() if k != "model"}
                    for r in records
                    if r["model"] == name
                ]
                if len(mine) * len(models) != len(records):
                    known = ", ".join(str(m) for m, _ in models)
                    raise ValueError(
                        f"table has {len(mine)} records of model {name!r} out of "
                        f"{len(records)}; give the same records (groups, metrics) for every "
                        f"model, with the model names of proba ({known}) in its 'model' "
                        "column."
                    )
                tables.append((str(name), mine))
    intervals = any(r.get("low") is not None for r in records)
    ds = [
        (name, _read(data, truth, columns, by, labels, sample_weight, nan_policy))
        for name, columns in models
    ]
    d = ds[0][1]
    if table is None:
        table_by: list[Any] = list(d.by)
    else:
        skip = (*TABLE_COLUMNS, "model") if side_by_side else TABLE_COLUMNS
        table_by = [k for k in (records[0] if records else {}) if k not in skip]

    diffs: list[dict[str, Any]] = []
    if several and n_resamples > 0:
        diffs = _differences(
            [(str(name), fd) for name, fd in ds],
            metrics,
            nan_policy=nan_policy,
            decision=decision,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            random_state=random_state,
        )

    with progress(2 + 5 * len(ds), "figures") as step:
        figures, dropped = _figures(ds, decision, step)

    inputs = d.inputs
    n, k = inputs.P.shape
    classes = inputs.agreement_labels if inputs.agreement_labels is not None else range(k)
    name = title if title is not None else "ordmetrics report" + (f": {source}" if source else "")
    summary: list[tuple[str, str]] = []
    if source is not None:
        summary.append(("Data", _e(source)))
    summary.append(("Rows", f"{n:,}" + (f" ({_e(dropped)})" if dropped else "")))
    summary.append(("Classes (ordinal order)", " &lt; ".join(_e(c) for c in classes)))
    summary.append(("Truth column", _e(truth)))
    if several:
        summary.append(("Models", ", ".join(_e(m) for m, _ in ds)))
        for m, fd in ds:
            summary.append((f"Probability columns of {_e(m)}", ", ".join(_e(c) for c in fd.proba)))
    else:
        summary.append(("Probability columns", ", ".join(_e(c) for c in d.proba)))
    if d.weight_col is not None:
        summary.append(("Weight column", _e(d.weight_col)))
    if d.by:
        summary.append(("Groups", ", ".join(_e(c) for c in d.by)))
    summary.append(("Decision rule", f"{_e(decision)} (agreement metrics and confusion matrix)"))
    if intervals:
        summary.append(
            (
                "Intervals",
                f"{confidence_level:.0%} bootstrap percentile intervals, {n_resamples} "
                f"resamples, seed {_e(random_state)}",
            )
        )
    dl = "\n".join(f"<dt>{t}</dt><dd>{v}</dd>" for t, v in summary)

    table_note = (
        "One row per group and metric; the figures below are of the whole data, all groups "
        "together."
        if table_by and (table is None or side_by_side)
        else ""
    )
    if intervals:
        table_note += (
            " low, high: bootstrap percentile interval of the estimate (resampling the rows "
            "of the group)."
            if table_by
            else " low, high: bootstrap percentile interval of the estimate."
        )
        if side_by_side:
            table_note = table_note.replace("low, high:", "interval:")
            table_note += " Every model is resampled with the same seed (the same rows)."
    level = confidence_level
    if side_by_side:
        metrics_table = _models_html(tables, table_by, level, intervals)
    else:
        metrics_table = _metrics_html(records, table_by, level, intervals)
    differences = ""
    if several:
        if diffs:
            differences = "\n".join(
                [
                    '<section id="differences">\n<h2>Paired differences</h2>',
                    '<p class="note">The difference a &minus; b of the metric of every model '
                    f"and the first ({_e(ds[0][0])}, the baseline) on all rows, with its "
                    f"{level:.0%} paired bootstrap interval ({n_resamples} resamples, both "
                    f"models on the same resampled rows, seed {_e(random_state)}) and the "
                    "two-sided "
                    "bootstrap p-value of no difference (never below 2 / (resamples + 1) = "
                    f"{2 / (n_resamples + 1):.3f}, the resolution of {n_resamples} resamples). "
                    "better: the model whose metric is better (by the metric's direction) when "
                    "the interval excludes 0.</p>",
                    _differences_html(diffs, level),
                    "</section>",
                ]
            )
        else:
            differences = (
                '<section id="differences">\n<h2>Paired differences</h2>\n<p class="note">'
                "No resamples (n_resamples = 0): no paired differences.</p>\n</section>"
            )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(name)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{_e(name)}</h1>",
        f'<p class="note">{_e(description)}</p>' if description else "",
        "</header>",
        "<main>",
        '<section id="summary">\n<h2>Summary</h2>',
        f'<dl class="summary">\n{dl}\n</dl>',
        "</section>",
        '<section id="metrics">\n<h2>Metrics</h2>',
        f'<p class="note">{table_note.strip()}</p>' if table_note.strip() else "",
        metrics_table,
        "</section>",
        differences,
        figures,
        "</main>",
        f"<footer>Made with ordmetrics {_e(__version__)}.</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(part for part in body if part) + "\n"


def write_report(path: str | Path, data: Any, **kwargs: Any) -> Path:
    """Write :func:`build_report` of ``data`` to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    path : str or Path
        The HTML file to write (replaced if it exists).
    data : data frame
        The predictions, as for :func:`build_report`.
    **kwargs
        The keyword arguments of :func:`build_report` (``truth`` and ``proba`` required;
        ``proba`` a mapping of model names to columns for several models).

    Returns
    -------
    Path
        ``path``.
    """
    text = build_report(data, **kwargs)
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out
