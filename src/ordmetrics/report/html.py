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

This module assembles the page. The numbers come from :mod:`ordmetrics.report.tables` (the
estimates of :func:`ordmetrics.evaluate`, the intervals of :func:`ordmetrics.bootstrap` on the
rows of each group, the paired differences of :func:`ordmetrics.compare`), the figure sections
from :mod:`ordmetrics.report.sections` (drawn with :mod:`ordmetrics.plot`, the worst predictions
of :func:`ordmetrics.worst_predictions`) and the HTML pieces from
:mod:`ordmetrics.report.markup`. matplotlib is needed for the figures only
(``pip install ordmetrics[plot]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ordmetrics._core.progress import progress
from ordmetrics._version import __version__
from ordmetrics.evaluation.resample_intervals import significance_level
from ordmetrics.evaluation.resampling import DEFAULT_RESAMPLES
from ordmetrics.report.cli_output import write_atomically
from ordmetrics.report.markup import (
    _CSS,
    _differences_html,
    _e,
    _metrics_html,
    _models_html,
    require_matplotlib,
)
from ordmetrics.report.sections import WORST_K as WORST_K
from ordmetrics.report.sections import _figures
from ordmetrics.report.tables import TABLE_COLUMNS as TABLE_COLUMNS
from ordmetrics.report.tables import (
    _as_models,
    _differences,
    _read,
    metric_table,
)

__all__ = [
    "build_report",
    "metric_table",
    "require_matplotlib",
    "write_report",
]


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
    n_resamples: int = DEFAULT_RESAMPLES,
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
    n_resamples : int, default DEFAULT_RESAMPLES = 999
        Bootstrap resamples of the intervals of the metric table, and of the paired
        differences between models (0: none); the default is that of
        :func:`ordmetrics.compare` and of ``ordmetrics compare``, so that the report names
        the same better model.
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
    :func:`ordmetrics.compare`, and ``better`` names a model exactly when the p-value is
    below alpha = 1 - ``confidence_level``, which is exactly when the interval of the
    difference excludes 0 (the one rule of :func:`ordmetrics.compare`).

    Examples
    --------
    >>> from ordmetrics.datasets import load_diamonds_cut_frame, CUT_LABELS
    >>> from ordmetrics.report.html import build_report
    >>> df = load_diamonds_cut_frame("pandas").head(300)
    >>> page = build_report(df, truth="cut", labels=list(CUT_LABELS), n_resamples=40,
    ...                     proba={"hgb": "hgb_", "logit": "logit_"})
    >>> page.count('<img src="data:image/png;base64,')  # 2 retention, 2 x (3 + 1)
    10
    >>> 'id="differences"' in page
    True
    """
    require_matplotlib()
    models = _as_models(proba)
    several = len(models) > 1
    first = None  # the first model's rows, read early to check the group columns
    if several and by is not None:
        first = _read(data, truth, models[0][1], by, labels, sample_weight, nan_policy)
        if "model" in [str(c) for c in first.by]:
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
        (
            name,
            first
            if i == 0 and first is not None
            else _read(data, truth, columns, by, labels, sample_weight, nan_policy),
        )
        for i, (name, columns) in enumerate(models)
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
                    "two-sided bootstrap p-value of no difference (never below "
                    "2 / (resamples + 1) = "
                    f"{2 / (n_resamples + 1):.3f}, the resolution of {n_resamples} resamples). "
                    "better: the model whose metric is better &mdash; lower for a metric to "
                    "minimize, higher for one to maximize &mdash; at level alpha = "
                    f"{significance_level(level):g} by the paired bootstrap of the difference: "
                    "named exactly when the p-value is below alpha, which is exactly when the "
                    "interval excludes 0.</p>",
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
        The HTML file to write, replaced if it exists: the page is written to a temporary
        file in the same directory and renamed onto ``path`` when complete
        (:func:`ordmetrics.report.cli_output.write_atomically`), so a failure (a full disk)
        leaves an existing file as it was.
    data : data frame
        The predictions, as for :func:`build_report`.
    **kwargs
        The keyword arguments of :func:`build_report` (``truth`` and ``proba`` required;
        ``proba`` a mapping of model names to columns for several models).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        When the file cannot be written; the message names ``path``.
    """
    text = build_report(data, **kwargs)
    return write_atomically(path, lambda f: f.write(text))
