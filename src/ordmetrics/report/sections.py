"""The figure sections of the HTML report: retention curves, reliability diagrams, confusion
matrices and the worst predictions, drawn with :mod:`ordmetrics.plot`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ordmetrics._core.registry import list_metrics
from ordmetrics.evaluation import (
    worst_predictions,
)
from ordmetrics.io.frames import FrameData
from ordmetrics.metrics.decisions import decide
from ordmetrics.report.markup import _cell, _e, _figure_html, _html_table, _num
from ordmetrics.report.plot_confusion import _class_ticks as _heatmap_ticks
from ordmetrics.report.tables import _py

#: How many worst predictions the report lists.
WORST_K = 10


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
    """Tick labels of a confusion matrix that stay readable: wrapped, or cut and turned.

    Up to 7 classes the names are wrapped onto lines, and the column labels turned upright
    where, laid out, two of them would still run together; beyond, the heat map's own labels
    (every n-th class past 20, cut, upright where they would not fit).
    """
    k = len(classes)
    if k > 7:
        _heatmap_ticks(ax, tuple(str(c) for c in classes))
        return
    ticks = [_short(c, max(8, 70 // k), split_words=False) for c in classes]
    ax.set_xticks(range(k), ticks, rotation=0, ha="center", fontsize="small")
    ax.set_yticks(range(k), [_short(c, 18) for c in classes], fontsize="small")
    if _run_together(ax.get_xticklabels()):
        ax.tick_params(axis="x", labelrotation=90)


def _run_together(texts: Sequence[Any]) -> bool:
    """Whether two neighbouring tick labels overlap once the figure is laid out."""
    if len(texts) < 2:
        return False
    texts[0].figure.draw_without_rendering()  # the layout sets the Axes' final size
    boxes = sorted((t.get_window_extent() for t in texts), key=lambda b: b.x0)
    return any(a.x1 > b.x0 for a, b in itertools.pairwise(boxes))


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
                y,
                P,
                by=rules,
                metric=metric,
                labels=labels,
                sample_weight=w,
                decision=decision,
                n_random=0,  # the panels draw no random-removal baseline
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
    ds: Sequence[tuple[str | None, FrameData]], decision: str, step: Any
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
