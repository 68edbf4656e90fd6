"""The HTML pieces of the report: the style sheet, escaping, tables and embedded PNG figures."""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ordmetrics.io.readers import MissingDependencyError

_DPI = 96


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


def p_text(p: float, alpha: float) -> str:
    """A p-value with 4 decimals, or more where 4 would round it onto the other side of
    ``alpha`` (2 * 25 / 1001 = 0.04995 is below 0.05 but prints as 0.0500 with 4), so a
    printed p-value never contradicts the verdict printed beside it.

    Examples
    --------
    >>> p_text(50 / 1001, 0.05), p_text(0.05, 0.05), p_text(0.048, 0.05)
    ('0.04995', '0.0500', '0.0480')
    """
    if math.isnan(p):
        return "nan"
    digits = 4
    while digits < 17 and (float(f"{p:.{digits}f}") < alpha) != (p < alpha):
        digits += 1
    return f"{p:.{digits}f}"


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
    from ordmetrics.evaluation.resample_intervals import significance_level

    alpha = significance_level(level)
    rows = []
    for r in diffs:
        rows.append(
            [
                _e(r["metric"]),
                f"{_e(r['a'])} &minus; {_e(r['b'])}",
                _num(r["difference"]),
                _num(r["low"]),
                _num(r["high"]),
                p_text(r["p_value"], alpha),
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
