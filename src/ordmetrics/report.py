"""Evaluation reports: a metric table with bootstrap intervals, and a self-contained HTML file.

:func:`metric_table` gives the metrics of a data frame, optionally per group, as records with
a bootstrap confidence interval for every estimate. :func:`build_report` returns one HTML
document, and :func:`write_report` writes it, with that table and the figures of the whole
data: retention curves of the six scoring rules (QWK and expected cost), reliability diagrams
(top-label, classwise, cumulative), the confusion matrix of the decisions and the worst
predictions. The document needs no network: the figures are embedded PNG images (data URIs)
and the style sheet is inline. Every string that comes from the data (class names, column
names, group values, the file name, the title) is HTML-escaped.

This module is a front like :mod:`ordmetrics.frame`: the estimates come from
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
from typing import Any

import numpy as np

from . import frame as _frame
from ._io import MissingDependencyError
from ._progress import progress
from ._registry import list_metrics
from .decisions import decide
from .evaluation import bootstrap, worst_predictions

__all__ = ["build_report", "metric_table", "require_matplotlib", "write_report"]

#: Columns of :func:`metric_table` besides the group columns.
TABLE_COLUMNS: tuple[str, ...] = ("metric", "estimate", "direction", "low", "high")

#: How many worst predictions the report lists.
WORST_K = 10

_DPI = 96


# --------------------------------------------------------------------------------------------
# The rows of every group, as evaluate reads them
# --------------------------------------------------------------------------------------------


def _read(data: Any, truth: Any, proba: Any, by: Any, labels: Any, sample_weight: Any) -> Any:
    """Read ``data`` exactly as :func:`ordmetrics.evaluate` does (one reader, same groups).

    Returns a :class:`ordmetrics.frame.FrameData` whose ``groups`` is ``[None]`` (all rows)
    when there is no ``by``.
    """
    read = _frame.read_frame(
        data, truth=truth, proba=proba, by=by, labels=labels, sample_weight=sample_weight
    )
    if not read.by:
        read = dataclasses.replace(read, groups=[None])
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
    y = _truth_rows(inputs, rows)
    P = inputs.P if rows is None else inputs.P[rows]
    w = inputs.weight if (inputs.weight is None or rows is None) else inputs.weight[rows]
    options = dict(entry.options)
    if entry.kind in _frame._DECISION_KINDS:
        rule = options.pop("decision", decision)
        x = _frame._decisions(P, rule, inputs.agreement_labels, nan_policy, rows)
        labels = inputs.agreement_labels
    else:
        x, labels = P, inputs.labels
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
    >>> from ordmetrics.report import metric_table
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
    records = [
        {str(k): _py(v) for k, v in row.items()}
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
    d = _read(data, truth, proba, by, labels, sample_weight)
    i = 0
    with progress(len(d.groups) * len(ms), "bootstrap") as step:
        for rows in d.groups:
            for entry in ms:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
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
                step()
    return records


def _rewarn(caught: list[Any], record: Mapping[str, Any], by: Sequence[Any]) -> None:
    """Warn again the warnings of one bootstrap, naming its group."""
    where = ", ".join(f"{c}={record[str(c)]!r}" for c in by)
    for w in caught:
        message = f"{w.message} (group {where})" if where else str(w.message)
        warnings.warn(message, w.category, stacklevel=3)


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  margin: 0; color: #1d232a; background: #fafbfc; line-height: 1.45; }
header, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 32px 0 8px; border-bottom: 1px solid #d8dde3;
  padding-bottom: 4px; }
p.note { color: #4a5561; margin: 4px 0 12px; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 2px 16px;
  margin: 12px 0; }
dl.summary dt { font-weight: 600; color: #4a5561; }
dl.summary dd { margin: 0; }
table { border-collapse: collapse; font-size: 0.92em; background: #fff; }
th, td { border: 1px solid #d8dde3; padding: 3px 9px; }
th { background: #eef1f4; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.figures { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #d8dde3; padding: 8px; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 0.88em; color: #4a5561; margin-top: 4px; max-width: 560px; }
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


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    """A table from already-escaped cells."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "\n".join(
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if j in numeric else f"<td>{c}</td>"
            for j, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


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
        better = "higher is better" if rec["direction"] == "maximize" else "lower is better"
        row.append(better)
        rows.append(row)
    start = len(by) + 1
    numeric = set(range(start, start + (3 if intervals else 1)))
    return _html_table(header, rows, numeric)


def require_matplotlib() -> None:
    """Raise :class:`~ordmetrics._io.MissingDependencyError` unless matplotlib is importable."""
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
    )
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_html(fig: Any, alt: str, caption: str) -> str:
    return (
        f'<figure><img src="data:image/png;base64,{_png(fig)}" alt="{_e(alt)}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _missing_truth(series: Any) -> np.ndarray:
    missing = np.asarray(series.is_null().to_numpy(), dtype=bool)
    if series.dtype.is_float():
        missing |= np.isnan(np.asarray(series.to_numpy(), dtype=np.float64))
    return missing


def _figures(d: _frame.FrameData, decision: str, step: Any) -> tuple[str, str]:
    """The HTML of the figure sections and of the worst predictions; and a note on rows."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    from . import plot

    inputs = d.inputs
    n = inputs.P.shape[0]
    keep = ~(_missing_truth(inputs.truth) | np.isnan(inputs.P).any(axis=1))
    if inputs.weight is not None:
        keep &= ~np.isnan(inputs.weight)
    if not keep.any():
        raise ValueError(
            f"every one of the {n} rows has a missing value (truth, probability or weight); "
            "the report has nothing to draw."
        )
    rows = None if keep.all() else np.flatnonzero(keep)
    y = inputs.truth_rows(rows)
    P = inputs.P if rows is None else inputs.P[rows]
    w = inputs.weight if (inputs.weight is None or rows is None) else inputs.weight[rows]
    labels, alabels = inputs.labels, inputs.agreement_labels
    rules = list(list_metrics("scoring_rule"))
    parts: list[str] = []

    # text is drawn as given: no mathtext, so a "$" in a class name stays a "$"
    with rc_context({"text.parse_math": False, "text.usetex": False}):
        fig = Figure(figsize=(13.0, 5.0), layout="constrained")
        ax_qwk, ax_cost = fig.subplots(1, 2)
        common = {"by": rules, "labels": labels, "sample_weight": w, "decision": decision}
        plot.retention_curves(y, P, metric="qwk", ax=ax_qwk, **common)
        plot.retention_curves(y, P, metric="expected_cost", ax=ax_cost, **common)
        parts.append('<section id="retention">\n<h2>Retention curves</h2>')
        parts.append(
            '<p class="note">The rows are ranked by each scoring rule and the worst-scored are '
            f"removed first; the metric of the {_e(decision)} decisions on the rows kept is "
            "drawn against the fraction kept. A rule that singles out the bad predictions "
            "makes the curve improve fast. The legend gives each curve's AURSC (area under the "
            "curve, normalised); dashed lines: the oracle and random removal.</p>"
        )
        parts.append(
            _figure_html(
                fig,
                "Retention curves of the six scoring rules: QWK and expected cost",
                "Left: QWK (higher is better). Right: expected cost with absolute costs "
                "(lower is better).",
            )
        )
        parts.append("</section>")
        step()

        parts.append('<section id="reliability">\n<h2>Reliability diagrams</h2>')
        parts.append(
            '<p class="note">Observed frequency against mean forecast probability, in 15 '
            "equal-width bins; a calibrated model lies on the diagonal. Top-label: the "
            "event that the most probable class is the true one; classwise: y = k for every "
            "class; cumulative: y &le; k for every threshold.</p>"
        )
        parts.append('<div class="figures">')
        for view, what in (
            ("top_label", "top-label"),
            ("classwise", "classwise"),
            ("cumulative", "cumulative"),
        ):
            fig = Figure(figsize=(6.0, 6.0), layout="constrained")
            plot.reliability_diagram(
                y, P, view=view, labels=labels, sample_weight=w, ax=fig.subplots()
            )
            parts.append(
                _figure_html(fig, f"Reliability diagram ({what})", f"Reliability: {what}.")
            )
            step()
        parts.append("</div>\n</section>")

        pred = decide(P, decision, labels=alabels)
        fig = Figure(figsize=(6.4, 5.6), layout="constrained")
        plot.confusion_matrix_heatmap(y, pred, labels=alabels, sample_weight=w, ax=fig.subplots())
        parts.append('<section id="confusion">\n<h2>Confusion matrix</h2>')
        parts.append(
            f'<p class="note">Rows: true class; columns: the {_e(decision)} decision of every '
            "row. An ordinal model's errors stay close to the diagonal.</p>"
        )
        parts.append(
            _figure_html(
                fig,
                f"Confusion matrix of the {decision} decisions",
                f"Confusion matrix ({_e(decision)} decision"
                + (", weighted counts)." if w is not None else ", counts)."),
            )
        )
        parts.append("</section>")
        step()

    worst = worst_predictions(y, P, by="rps", k=WORST_K, labels=labels)
    positions = worst.index if rows is None else rows[worst.index]
    names = [str(v) for v in (alabels if alabels is not None else range(P.shape[1]))]
    header = ["row", *(_e(c) for c in d.by), "true class", "rps", *(_e(c) for c in names)]
    body = []
    for pos, true, score, probs in zip(
        positions, worst.y_true.tolist(), worst.score, worst.y_proba, strict=True
    ):
        cells = [str(int(pos))]
        cells += [_e(_cell(_py(d.frame[c][int(pos)]))) for c in d.by]
        cells += [_e(true), _num(score)]
        cells += [
            f"<strong>{_num(p, 3)}</strong>" if name == str(true) else _num(p, 3)
            for name, p in zip(names, probs, strict=True)
        ]
        body.append(cells)
    numeric = {0, len(d.by) + 2, *range(len(d.by) + 3, len(header))}
    parts.append('<section id="worst">\n<h2>Worst predictions</h2>')
    parts.append(
        f'<p class="note">The {len(worst)} rows with the highest (worst) RPS, worst first. '
        "row: position in the data, counted from 0; class columns: the predicted "
        "probabilities, that of the true class in bold.</p>"
    )
    parts.append(_html_table(header, body, numeric))
    parts.append("</section>")
    step()

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
    data, truth, proba, metrics, by, labels, sample_weight, nan_policy, decision
        As for :func:`ordmetrics.evaluate`. ``by`` groups the metric table only; the figures
        are of all rows.
    n_resamples : int, default 200
        Bootstrap resamples of the intervals of the metric table (0: none).
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
        Records of :func:`metric_table` to show instead of computing them (e.g. a table of
        several models when the figures are of one); their group columns are the keys other
        than ``metric``, ``estimate``, ``direction``, ``low`` and ``high``. ``n_resamples``,
        ``confidence_level`` and ``random_state`` then only describe its intervals.

    Returns
    -------
    str
        The HTML document: a summary, the metric table (with intervals), retention curves of
        the six scoring rules for QWK and expected cost, reliability diagrams (top-label,
        classwise, cumulative), the confusion matrix of the ``decision`` rule and the
        ``WORST_K`` = 10 worst predictions by RPS. The figures are PNG images embedded as
        data URIs; nothing is loaded from the network.

    Raises
    ------
    MissingDependencyError
        (an ImportError) When matplotlib is not installed (``pip install ordmetrics[plot]``).
    ValueError, TypeError
        Everything :func:`metric_table` raises.

    Notes
    -----
    Under ``nan_policy="omit"`` or ``"propagate"`` the figures are drawn from the rows
    without a missing value, and the summary says how many were left out.
    """
    from . import __version__

    require_matplotlib()
    if table is None:
        records = metric_table(
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
    else:
        records = [dict(r) for r in table]
    intervals = any(r.get("low") is not None for r in records)
    d = _read(data, truth, proba, by, labels, sample_weight)
    if table is None:
        table_by: list[Any] = list(d.by)
    else:
        table_by = [k for k in (records[0] if records else {}) if k not in TABLE_COLUMNS]

    with progress(5, "figures") as step:
        figures, dropped = _figures(d, decision, step)

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
        if table_by and table is None
        else ""
    )
    if intervals:
        table_note += (
            " low, high: bootstrap percentile interval of the estimate (resampling the rows "
            "of the group)."
            if table_by
            else " low, high: bootstrap percentile interval of the estimate."
        )
    level = confidence_level
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
        _metrics_html(records, table_by, level, intervals),
        "</section>",
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
        The keyword arguments of :func:`build_report` (``truth`` and ``proba`` required).

    Returns
    -------
    Path
        ``path``.
    """
    text = build_report(data, **kwargs)
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out
