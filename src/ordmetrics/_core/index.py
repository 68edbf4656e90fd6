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


def scoring_rule_table() -> str:
    """The README's table of the registered scoring rules: formula, range and properties.

    Examples
    --------
    >>> import ordmetrics
    >>> from ordmetrics._core.index import scoring_rule_table
    >>> scoring_rule_table().splitlines()[2].split(" | ")[:3]
    ['| `rps`', '(1/(K-1)) sum_{k<K} (F_k - H_k)^2', '[0, 1]']
    """
    titles = {"strictly_proper": "strictly proper", "distance_sensitive": "distance-sensitive"}
    head = "| rule | per-sample score | range | " + " | ".join(
        titles.get(p, p) for p in PROPERTY_NAMES
    )
    lines = [head + " |", "|---" * (3 + len(PROPERTY_NAMES)) + "|"]
    for name in list_metrics("scoring_rule"):
        spec = get_metric(name)
        rng = spec.range_text or f"[{_num(spec.range[0])}, {_num(spec.range[1])}]"
        flags = ["yes" if spec.properties[p] else "no" for p in PROPERTY_NAMES]
        formula = spec.formula.replace("|", "\\|")
        lines.append(f"| `{name}` | {formula} | {rng} | " + " | ".join(flags) + " |")
    return "\n".join(lines) + "\n"


def api_entries(kind: str, module_all: list[str]) -> list[str]:
    """The API page's entries for ``kind``: the registered metrics of that kind, then the other
    functions of ``module_all`` (the names the package exports from their module, e.g.
    ``pseudospherical``).

    Examples
    --------
    >>> import ordmetrics
    >>> from ordmetrics._core.index import api_entries
    >>> api_entries("scoring_rule", ["rps", "pseudospherical", "RULES"])[-2:]
    ['cdf_l1', 'pseudospherical']
    """
    names = list_metrics(kind)
    return names + [n for n in module_all if n not in names and n.islower()]
