"""The metric index: a Markdown table of every registered metric, read from the registry."""

from __future__ import annotations

import math

from ._registry import PROPERTY_NAMES, get_metric, list_metrics

KIND_TITLES = {
    "scoring_rule": "Scoring rules (probabilities; per-sample scores)",
    "agreement": "Agreement on hard labels (one confusion matrix over the full label set)",
    "ranking": "Ranking (ordinal association of truth and a score)",
    "calibration": "Calibration",
}


def _num(x: float) -> str:
    return ("-inf" if x < 0 else "inf") if math.isinf(x) else f"{x:g}"


def metric_index() -> str:
    """Return the Markdown metric index (``docs/metrics.md``)."""
    lines = [
        "# Metric index",
        "",
        "Generated from the registry (`ordmetrics.get_metric`) by",
        "`python -m ordmetrics index > docs/metrics.md`; a test keeps this file current.",
        "",
    ]
    kinds = list(dict.fromkeys(get_metric(n).kind for n in list_metrics()))
    for kind in kinds:
        lines += [f"## {KIND_TITLES.get(kind, kind)}", ""]
        header = ["metric", "better", "range", "perfect", "what it is"]
        if kind == "scoring_rule":
            header += [p.replace("_", " ") for p in PROPERTY_NAMES]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for name in list_metrics(kind):
            spec = get_metric(name)
            lo, hi = spec.range
            rng = f"[{_num(lo)}, {_num(hi)}]" + (f" ({spec.range_note})" if spec.range_note else "")
            row = [
                f"`{name}`",
                "lower" if spec.direction == "minimize" else "higher",
                rng,
                _num(spec.perfect),
                spec.description,
            ]
            if kind == "scoring_rule":
                row += ["yes" if spec.properties[p] else "no" for p in PROPERTY_NAMES]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)
