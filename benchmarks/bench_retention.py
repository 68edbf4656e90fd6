"""Benchmark of retention curves: one sort and cumulative confusion counts vs recomputing.

Data of the size of the Galdran paper's EyePACS test set (N = 53,576 rows, K = 5 grades):
probabilities drawn from Dirichlet(1, ..., 1) and each true class drawn from its own row of
probabilities, all from ``numpy.random.default_rng(seed)``.

(a) ordmetrics: ``retention_curve`` for every registered scoring rule (``by``) x 2 metrics
    (``qwk``, ``expected_cost`` with absolute costs), argmax decisions, the default 21
    fractions 1.000, 0.975, ..., 0.500; total time of the curves as users call it (its
    defaults: the oracle curve for the expected cost, the random-removal expectation with
    100 Monte Carlo draws for QWK) and of the curve alone (``aursc``); the baselines' cost is
    the difference, paired by round.
(b) naive: the same curves recomputed per fraction: per-sample scores and one stable sort
    per curve, then for each fraction the retained subset and scikit-learn's
    ``cohen_kappa_score(weights="quadratic", labels=range(K))`` or a NumPy expected cost.

The values of (a) and (b) are checked to agree (to 1e-12) before any ratio is printed. The
variants run round robin (each once per round), and the medians and the spread (min-max) of
the rounds are printed: the machine may be shared. The same ratios follow in CPU time of the
process for one QWK curve (less sensitive to the load of a shared machine). The goals: QWK
curves with their baselines at least 20x faster than recomputing per fraction with
scikit-learn, and the random-removal baseline costing at most what the curve costs.

Run with ``.venv/bin/python benchmarks/bench_retention.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
from _common import QUICK_N, QUICK_REPEAT, dirichlet_proba, gc_off, machine_info, timed

import ordmetrics
from ordmetrics.evaluation.retention import DEFAULT_FRACTIONS, aursc, retention_curve

EYEPACS_N = 53_576  # rows of the EyePACS test set in the paper
GOAL_SPEEDUP = 20.0
RULES = ordmetrics.list_metrics("scoring_rule")
METRICS = ("qwk", "expected_cost")
AGREE = 1e-12
PACKAGES = (("numpy", "numpy"), ("ordmetrics", "ordmetrics"), ("scikit-learn", "sklearn"))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=EYEPACS_N, help=f"rows ({EYEPACS_N:,})")
    parser.add_argument("--k", type=int, default=5, help="classes (5)")
    parser.add_argument(
        "--repeat", type=int, default=9, help="round-robin timed runs; median and spread (9)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument(
        "--quick", action="store_true", help=f"smoke run: N = {QUICK_N:,}, {QUICK_REPEAT} runs"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat = QUICK_N, QUICK_REPEAT
    if args.n < 2 or args.k < 2 or args.repeat < 1:
        parser.error("need --n >= 2, --k >= 2 and --repeat >= 1")
    return args


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Dirichlet(1, ..., 1) probabilities and a true class drawn from each row."""
    rng = np.random.default_rng(seed)
    proba = dirichlet_proba(rng, n, k)
    u = rng.random((n, 1))
    y_true = np.minimum((np.cumsum(proba, axis=1) < u).sum(axis=1), k - 1)
    return proba, y_true


def naive_curve(
    y_true: np.ndarray, proba: np.ndarray, rule: str, metric: str, fractions: np.ndarray
) -> np.ndarray:
    """One curve recomputed from scratch at every fraction (the per-fraction baseline)."""
    from sklearn.metrics import cohen_kappa_score

    k = proba.shape[1]
    labels = list(range(k))
    scores = ordmetrics.get_metric(rule)(y_true, proba, reduction="none")
    order = np.argsort(scores, kind="stable")
    y_pred = proba.argmax(axis=1)
    out = np.empty(fractions.size)
    for j, f in enumerate(fractions):
        keep = order[: max(1, math.floor(f * y_true.size + 0.5))]
        yt, yp = y_true[keep], y_pred[keep]
        if metric == "qwk":
            out[j] = cohen_kappa_score(yt, yp, weights="quadratic", labels=labels)
        else:
            out[j] = np.abs(yt - yp).mean()
    return out


def total(fns: list[Callable[[], object]]) -> Callable[[], None]:
    def run() -> None:
        for fn in fns:
            fn()

    return run


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    proba, y_true = make_data(args.n, args.k, args.seed)
    fr = DEFAULT_FRACTIONS
    print(
        f"ordmetrics retention benchmark: N = {args.n:,} rows, K = {args.k} classes, "
        f"{fr.size} fractions {fr[0]:g}..{fr[-1]:g}, {len(RULES)} rules x {len(METRICS)} "
        f"metrics = {len(RULES) * len(METRICS)} curves; seed {args.seed}, {args.repeat} runs"
    )
    print("\n".join(machine_info(PACKAGES)))
    print()
    pairs = [(r, m) for r in RULES for m in METRICS]

    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("scikit-learn not installed: no naive baseline, no ratio")
        return 0

    # correctness first: every curve equals the naive recomputation
    worst = 0.0
    for rule, metric in pairs:
        ours = retention_curve(y_true, proba, by=rule, metric=metric).values
        ref = naive_curve(y_true, proba, rule, metric, fr)
        worst = max(worst, float(np.max(np.abs(ours - ref))))
    if not worst <= AGREE:
        print(f"curves DIFFERS from the naive recomputation: up to {worst:.3g}; no timing.")
        return 1
    print(
        f"values: all {len(pairs)} curves agree with the naive recomputation (max |diff| "
        f"{worst:.2g} <= {AGREE:g})"
    )
    print()

    def ours_full(r: str, m: str) -> Callable[[], object]:
        return lambda: retention_curve(y_true, proba, by=r, metric=m)

    def ours_curve(r: str, m: str) -> Callable[[], object]:
        return lambda: aursc(y_true, proba, by=r, metric=m)

    def naive(r: str, m: str) -> Callable[[], object]:
        return lambda: naive_curve(y_true, proba, r, m, fr)

    groups = (
        ("qwk", [p for p in pairs if p[1] == "qwk"]),
        ("expected_cost", [p for p in pairs if p[1] == "expected_cost"]),
        ("all", pairs),
    )
    # round robin: in every round each variant of a group runs once, so load elsewhere on the
    # machine hits them alike; the baseline cost is the paired difference (full - curve) of
    # each round
    n_naive = min(args.repeat, 3)
    rows = []
    for label, subset in groups:
        full_fn = total([ours_full(*p) for p in subset])
        curve_fn = total([ours_curve(*p) for p in subset])
        naive_fn = total([naive(*p) for p in subset])
        t_full: list[float] = []
        t_curve: list[float] = []
        t_naive: list[float] = []
        with gc_off():
            for r in range(args.repeat):
                t_full.append(timed(full_fn))
                t_curve.append(timed(curve_fn))
                if r < n_naive:
                    t_naive.append(timed(naive_fn))
        rows.append((f"{label} ({len(subset)})", t_full, t_curve, t_naive))

    def spread(ts: list[float]) -> str:
        return f"{min(ts) * 1e3:.1f}-{max(ts) * 1e3:.1f}"

    head = (
        f"{'curves':<17} {'curve':>8} {'+baselines':>11} {'baselines':>10} {'naive':>9} "
        f"{'naive/curve':>12} {'naive/+base':>12} {'base/curve':>11}"
    )
    print(
        f"medians of {args.repeat} round-robin runs (naive: {n_naive}), total over the curves, "
        "ms; the spread (min-max) below each row"
    )
    print(head)
    print("-" * len(head))
    summary = {}
    for label, t_full, t_curve, t_naive in rows:
        base = [a - b for a, b in zip(t_full, t_curve, strict=True)]
        mf, mc, mb, mn = (statistics.median(x) for x in (t_full, t_curve, base, t_naive))
        summary[label.split()[0]] = (mf, mc, mb, mn)
        print(
            f"{label:<17} {mc * 1e3:8.2f} {mf * 1e3:11.2f} {mb * 1e3:10.2f} {mn * 1e3:9.1f} "
            f"{mn / mc:11.1f}x {mn / mf:11.1f}x {mb / mc:10.2f}x"
        )
        print(
            f"{'  spread':<17} {spread(t_curve):>8} {spread(t_full):>11} {spread(base):>10} "
            f"{spread(t_naive):>9} {min(t_naive) / max(t_curve):5.1f}-"
            f"{max(t_naive) / min(t_curve):.1f}x {min(t_naive) / max(t_full):5.1f}-"
            f"{max(t_naive) / min(t_full):.1f}x"
        )
    print(
        "curve: aursc (the curve alone, the same work as the naive loop); +baselines: "
        "retention_curve with its defaults (the oracle curve for the expected cost, the "
        "random-removal expectation, 100 Monte Carlo draws, for QWK); baselines: their cost, "
        "(+baselines) - (curve) paired by round"
    )
    print()
    q_full, q_curve, q_base, q_naive = summary["qwk"]
    a_full, a_curve, _, a_naive = summary["all"]
    n_q = len(groups[0][1])
    ratio = q_naive / q_full
    ok = "met" if ratio >= GOAL_SPEEDUP else "NOT met"
    base_ok = "met" if q_base <= q_curve else "NOT met"
    print(
        f"summary: QWK retention curves (retention_curve's defaults, baselines included) "
        f"{ratio:.1f}x faster than "
        f"recomputing per fraction with scikit-learn (goal >= {GOAL_SPEEDUP:g}x {ok}; "
        f"{q_naive / q_curve:.1f}x for the curve alone); the random-removal baseline costs "
        f"{q_base / q_curve:.2f}x the curve ({q_base * 1e3 / n_q:.2f} ms vs "
        f"{q_curve * 1e3 / n_q:.2f} ms per curve; goal <= 1x {base_ok}); all {len(pairs)} "
        f"curves {a_naive / a_full:.1f}x "
        f"with baselines, {a_naive / a_curve:.1f}x without (the naive expected cost is NumPy)"
    )
    work_ratios(y_true, proba, fr, args.repeat)
    if args.n != EYEPACS_N:
        print(f"(the goal is stated for N = {EYEPACS_N:,}; this run has N = {args.n:,})")
    return 0


def work_ratios(y_true: np.ndarray, proba: np.ndarray, fr: np.ndarray, repeat: int) -> None:
    """The same ratios in CPU time of the process (threads included), for one QWK curve by RPS:
    less sensitive than wall time to the load of a shared machine (but blind to the cores a
    background thread uses while the caller works)."""
    fns = {
        "curve": lambda: aursc(y_true, proba, metric="qwk"),
        "+baselines": lambda: retention_curve(y_true, proba, metric="qwk"),
        "naive": lambda: naive_curve(y_true, proba, "rps", "qwk", fr),
    }
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    with gc_off():
        for r in range(2 * repeat + 1):
            for name, fn in fns.items():
                if name != "naive" or r % 3 == 0:
                    t0 = time.process_time()
                    fn()
                    cpu[name].append(time.process_time() - t0)
    med = {name: statistics.median(ts) for name, ts in cpu.items()}
    print(
        "CPU time (time.process_time) of one QWK curve by RPS, median (min-max) in ms: "
        + ", ".join(
            f"{name} {med[name] * 1e3:.2f} ({min(ts) * 1e3:.2f}-{max(ts) * 1e3:.2f})"
            for name, ts in cpu.items()
        )
        + f"; naive/+baselines {med['naive'] / med['+baselines']:.1f}x, naive/curve "
        f"{med['naive'] / med['curve']:.1f}x, baselines/curve "
        f"{(med['+baselines'] - med['curve']) / med['curve']:.2f}x"
    )


if __name__ == "__main__":
    sys.exit(main())
