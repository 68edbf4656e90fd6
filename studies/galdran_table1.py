"""Reproduce the protocol of Galdran's Table 1 on real ordinal data shipped with ordmetrics.

Protocol (Galdran, "Performance Metrics for Probabilistic Ordinal Classifiers", Sect. 2.4 and
3.3): take a model's probabilistic predictions on held-out data; rank the samples by a
per-sample scoring rule; remove the worst ones step by step (retained fractions 1.000, 0.975,
..., 0.500); after each step compute QWK and the expected cost (EC) of the arg-max decisions on
the retained samples; summarise each curve by its normalised area (AURSC). A scoring rule that
recognises bad ordinal predictions makes QWK rise (and EC fall) faster. Dispersion: 50 bootstrap
resamples of the rows, reported as mean +/- standard deviation, as in the paper.

Data: out-of-fold predictions of two models (gradient-boosted trees ``hgb`` and multinomial
logistic regression ``logit``) of the ``cut`` grade of the 53,940 diamonds of ggplot2's
``diamonds`` data set (Fair < Good < Very Good < Premium < Ideal), shipped with the package.

EC uses absolute costs |i - j| (the usual choice for grading). AURSC here is the trapezoidal area
divided by the span of the fractions (a constant curve m gives m), so QWK values lie in [-1, 1];
the paper's printed values (13-18 for QWK) are on an unstated, unnormalised scale.

Run: ``python studies/galdran_table1.py`` (add ``--quick`` for a smoke run). The figure needs
matplotlib (``pip install ordmetrics[plot]``); without it the table is still printed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import ordmetrics
from ordmetrics.datasets import MODELS, load_diamonds_cut
from ordmetrics.evaluation.resampling import bootstrap
from ordmetrics.evaluation.retention import aursc, retention_curve

RULES = ("brier", "log_loss", "rps", "sa_rps", "pbs", "pll")
RULE_NAMES = {
    "brier": "Brier",
    "log_loss": "Neg-Log",
    "rps": "RPS",
    "sa_rps": "sa-RPS",
    "pbs": "PBS",
    "pll": "PLL",
}
METRICS = {"qwk": {}, "expected_cost": {"costs": "absolute"}}
METRIC_NAMES = {"qwk": "AURSC-QWK (higher better)", "expected_cost": "AURSC-EC (lower better)"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=50, help="bootstrap resamples (50)")
    parser.add_argument("--seed", type=int, default=0, help="random_state of the bootstrap (0)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "output" / "retention_curves.png",
        help="where to write the retention-curve figure",
    )
    parser.add_argument("--quick", action="store_true", help="5 resamples, 5,000 rows")
    return parser.parse_args(argv)


def study(n_boot: int, seed: int, n_rows: int | None = None) -> dict:
    """AURSC estimate and bootstrap mean/std for every model, rule and metric."""
    results: dict = {}
    for model in MODELS:
        ex = load_diamonds_cut(model)
        y, p = ex.y_true[:n_rows], ex.y_proba[:n_rows]
        for metric, options in METRICS.items():
            for rule in RULES:
                kwargs = {"by": rule, "metric": metric, "labels": ex.labels}
                if options:
                    kwargs["metric_kwargs"] = options
                boot = bootstrap(aursc, y, p, n_resamples=n_boot, random_state=seed, **kwargs)
                results[model, metric, rule] = boot
    return results


def print_table(results: dict, n_boot: int) -> None:
    for model in MODELS:
        print(f"\nmodel {model}: AURSC, bootstrap mean +/- std over {n_boot} resamples")
        header = f"{'rule':<8}" + "".join(f"{METRIC_NAMES[m]:>30}" for m in METRICS)
        print(header)
        print("-" * len(header))
        for rule in RULES:
            cells = []
            for metric in METRICS:
                b = results[model, metric, rule]
                cells.append(f"{b.mean:.4f} +/- {b.std:.4f} ({b.estimate:.4f})")
            print(f"{RULE_NAMES[rule]:<8}" + "".join(f"{c:>30}" for c in cells))
        for metric in METRICS:
            spec = ordmetrics.get_metric(metric)
            order = sorted(RULES, key=lambda r: results[model, metric, r].mean)
            if spec.direction == "maximize":
                order.reverse()
            ranking = " > ".join(RULE_NAMES[r] for r in order)
            print(f"  {metric}: best to worst: {ranking}")
    print("(value in parentheses: AURSC on all rows)")


def plot(out: Path, n_rows: int | None = None) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure (pip install ordmetrics[plot])")
        return False
    ex = load_diamonds_cut("hgb")
    y, p = ex.y_true[:n_rows], ex.y_proba[:n_rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (metric, options) in zip(axes, METRICS.items(), strict=True):
        for rule in RULES:
            curve = retention_curve(
                y, p, by=rule, metric=metric, labels=ex.labels, metric_kwargs=options or None
            )
            ax.plot(curve.fractions, curve.values, label=f"{RULE_NAMES[rule]} ({curve.area:.4f})")
        if curve.oracle is not None:
            ax.plot(curve.fractions, curve.oracle, "k:", label="oracle")
        ax.plot(curve.fractions, curve.random, color="grey", lw=0.8, label="random removal")
        ax.set_xlabel("retained fraction")
        ax.set_ylabel(metric)
        ax.invert_xaxis()
        ax.legend(fontsize=8)
        ax.set_title(f"{METRIC_NAMES[metric]}, model hgb")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"figure written to {out}")
    return True


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n_boot = 5 if args.quick else args.n_boot
    n_rows = 5_000 if args.quick else None
    t0 = time.perf_counter()
    results = study(n_boot, args.seed, n_rows)
    print_table(results, n_boot)
    print(f"\n{len(results)} bootstrapped AURSC values in {time.perf_counter() - t0:.1f} s")
    plot(args.out, n_rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
