"""On which scale are the AURSC values of Galdran's Table 1 (13-18 for QWK)?

``ordmetrics`` reports the AURSC as the trapezoidal area under the retention curve divided by
the span of the retained fractions (a constant curve m gives m), so AURSC-QWK lies in [-1, 1].
Galdran's Table 1 prints 13.46-14.95 (TMED) and 17.36-17.86 (Eyepacs) for AURSC-QWK and
1.88-3.76 for AURSC-EC, and does not state the scale. Every convention in use is a constant
multiple ``c`` of the normalised area on a given grid of fractions, so the question is which
``c``. This script computes, on the retention curves of the shipped diamonds predictions (the
data of ``galdran_table1.py``, fractions 1.000, 0.975, ..., 0.500), the values under the
candidate conventions:

* normalised (ordmetrics): area / span, c = 1;
* percentage of the un-normalised area: 100 x area over f in [0.5, 1], c = 50 (the same as the
  area with x = percentage of samples removed, 0..50);
* ``numpy.trapezoid(values)`` with unit spacing (x = step index, 20 steps), c = 20;
* sum of the 21 values (rectangle rule on the steps), about c = 21;
* x = percentage removed over the first 20% only (1.000..0.800), c = 20 on that span.

Independently of the data: a QWK is at most 1, so the normalised AURSC-QWK is at most 1 and the
printed 17.86 (Eyepacs, sa-RPS) needs ``c >= 17.86``; with ``c = 50`` the printed values would
mean normalised AURSC-QWK of 0.27-0.36, curves that stay far below the QWK of any useful
grader although removing the worst-scored samples raises QWK (the paper's Fig. 4).

Run: ``python studies/galdran_aursc_scale.py``; writes ``galdran_aursc_scale.md`` to
``--out-dir`` (default ``studies/results``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ordmetrics.datasets import MODELS, load_diamonds_cut
from ordmetrics.evaluation.retention import retention_curve

RULES = {"brier": "Brier", "log_loss": "Neg-Log", "rps": "RPS", "sa_rps": "sa-RPS"}
METRICS = {"qwk": {}, "expected_cost": {"costs": "absolute"}}
PAPER = {  # Galdran, Table 1: (TMED, Eyepacs)
    "qwk": {
        "brier": (13.46, 17.36),
        "log_loss": (13.56, 17.44),
        "rps": (14.76, 17.81),
        "sa_rps": (14.95, 17.86),
    },
    "expected_cost": {
        "brier": (3.76, 2.84),
        "log_loss": (3.62, 2.67),
        "rps": (2.68, 1.99),
        "sa_rps": (2.53, 1.88),
    },
}


def trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    """Trapezoidal area, sign-free (the fractions decrease)."""
    return float(abs(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0)))


def conventions(fractions: np.ndarray, values: np.ndarray) -> dict[str, float]:
    area = trapezoid(fractions, values)
    span = float(fractions.max() - fractions.min())
    first20 = fractions >= 0.8 - 1e-12
    return {
        "normalised (ordmetrics)": area / span,
        "100 x area, f in [0.5, 1]": 100.0 * area,
        "trapezoid, unit steps": trapezoid(np.arange(len(values), dtype=float), values),
        "sum of values": float(values.sum()),
        "% removed in [0, 20]": trapezoid(100.0 * (1.0 - fractions[first20]), values[first20]),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    parser.add_argument("--quick", action="store_true", help="5,000 rows")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n_rows = 5_000 if args.quick else None
    lines = [
        "# Galdran, Table 1: the scale of the AURSC",
        "",
        "Retention curves of the shipped diamonds predictions (fractions 1.000, 0.975, ..., "
        "0.500), AURSC under each convention; the paper's Table 1 values for comparison.",
        "",
    ]
    for metric, options in METRICS.items():
        names = None
        rows = []
        for model in MODELS:
            ex = load_diamonds_cut(model)
            y, p = ex.y_true[:n_rows], ex.y_proba[:n_rows]
            for rule in RULES:
                curve = retention_curve(
                    y, p, by=rule, metric=metric, labels=ex.labels, metric_kwargs=options or None
                )
                conv = conventions(np.asarray(curve.fractions), np.asarray(curve.values))
                if not np.isclose(conv["normalised (ordmetrics)"], curve.area, atol=1e-12):
                    raise AssertionError("normalised area disagrees with RetentionCurve.area")
                names = list(conv)
                rows.append((model, rule, conv))
        lines += [
            f"## AURSC-{'QWK' if metric == 'qwk' else 'EC (absolute costs)'}",
            "",
            "| model | rule | " + " | ".join(names) + " | paper TMED | paper Eyepacs |",
            "|---|---|" + "---|" * (len(names) + 2),
        ]
        for model, rule, conv in rows:
            tmed, eye = PAPER[metric][rule]
            cells = " | ".join(
                f"{conv[n]:.4f}" if n.startswith("normalised") else f"{conv[n]:.2f}" for n in names
            )
            lines.append(f"| {model} | {RULES[rule]} | {cells} | {tmed:.2f} | {eye:.2f} |")
        lines.append("")
    qwk_max = max(max(v) for v in PAPER["qwk"].values())
    qwk_min = min(min(v) for v in PAPER["qwk"].values())
    lines += [
        f"A QWK is at most 1, so c >= {qwk_max:.2f} (the largest printed AURSC-QWK). With "
        f"c = 50 the printed values would be normalised AURSC-QWK of {qwk_min / 50:.2f}-"
        f"{qwk_max / 50:.2f}; with c = 20 they are {qwk_min / 20:.3f}-{qwk_max / 20:.3f}.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "galdran_aursc_scale.md").write_text(text)
    print(f"table written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
