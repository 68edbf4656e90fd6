"""The metric index: a Markdown table of every registered metric, read from the registry."""

from __future__ import annotations

import math

from ordmetrics._core.registry import (
    PROPERTY_NAMES,
    get_metric,
    list_metrics,
)

KIND_TITLES = {
    "scoring_rule": "Scoring rules (probabilities; per-sample scores)",
    "agreement": "Agreement on hard labels (one confusion matrix over the full label set)",
    "ranking": "Ranking (ordinal association of truth and a score)",
    "calibration": "Calibration",
    "retention": "Retention (a set metric on the best-scored rows as the worst are removed)",
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
        "The estimator column says how a metric is formed from the K classes, as the",
        "`estimator` column of `ordmetrics.evaluate` (yardstick's `.estimator`) names it:",
        "`multiclass` (one formula for every K), `macro` (mean over classes), `max` (largest",
        "over classes), `top_label`, `cumulative` (mean over the K - 1 thresholds), `ordinal`",
        "(pairs of rows of different classes) or `standard` (as for a numeric outcome). With",
        "K = 2, `multiclass` and `ordinal` metrics are `binary`.",
        "",
    ]
    kinds = list(dict.fromkeys(get_metric(n).kind for n in list_metrics()))
    for kind in kinds:
        lines += [f"## {KIND_TITLES.get(kind, kind)}", ""]
        header = ["metric", "better", "range", "perfect", "what it is", "estimator"]
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
                f"`{spec.estimator}`",
            ]
            if kind == "scoring_rule":
                row += ["yes" if spec.properties[p] else "no" for p in PROPERTY_NAMES]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if kind == "scoring_rule":
            lines += _variant_lines()
    return "\n".join(lines)


def _variant_lines() -> list[str]:
    """Options with other properties (``spec.variants``) and properties per K."""
    lines = []
    header = ["metric and option", "what changes", *(p.replace("_", " ") for p in PROPERTY_NAMES)]
    rows = []
    notes = []
    for name in list_metrics("scoring_rule"):
        spec = get_metric(name)
        for v in spec.variants.values():
            opts = ", ".join(f"{k}={val!r}" for k, val in v.options.items())
            flags = ["yes" if v.properties[p] else "no" for p in PROPERTY_NAMES]
            rows.append("| " + " | ".join([f"`{name}({opts})`", v.note, *flags]) + " |")
        for k, props in sorted(spec.properties_by_k.items()):
            said = ", ".join(
                f"{p.replace('_', ' ')}: {'yes' if val else 'no'}" for p, val in props.items()
            )
            notes.append(f"- `{name}`, K = {k}: {said}")
    if rows:
        lines += ["Options with other properties (`get_metric(name).variants`):", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += rows
        lines.append("")
    if notes:
        lines += [
            "Properties for one number of classes (`get_metric(name).properties_for(k)`):",
            "",
        ]
        lines += notes
        lines.append("")
    return lines
