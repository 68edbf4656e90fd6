"""Benchmark of the hard-label agreement metrics and the decision rules of ordmetrics.

Times every agreement metric (``qwk``, ``kappa``, ``expected_cost``, ``mae``, ``amae``,
``mmae``, ``accuracy``, ``within_k_accuracy``, ``macro_f1``, ``confusion_matrix``) on N random
hard labels of K classes (default N = 10^6, K = 5), and ``decide`` on an (N, K) probability
matrix, and prints each time as a multiple of one read pass over that matrix
(``y_proba.sum()``).

scikit-learn's ``cohen_kappa_score(weights="quadratic")`` is timed on the same labels after
checking that it gives the same QWK as ordmetrics (with ``labels=range(K)``); the goal is
ordmetrics at least 10x faster.

Run with ``.venv/bin/python benchmarks/bench_agreement.py [--quick]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np
from _common import ms

from ordmetrics.metrics import agreement
from ordmetrics.metrics.decisions import decide

GOAL_SPEEDUP = 10.0  # ordmetrics.qwk at least this many times faster than scikit-learn
PACKAGES = (("numpy", "numpy"), ("ordmetrics", "ordmetrics"), ("scikit-learn", "sklearn"))


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Probabilities (Dirichlet(1, ..., 1), float64), truth, a noisy prediction, weights."""
    rng = np.random.default_rng(seed)
    proba = common.dirichlet_proba(rng, n, k)
    y_true = rng.integers(0, k, size=n)
    y_pred = np.clip(y_true + rng.integers(-1, 2, size=n), 0, k - 1)
    weight = rng.uniform(0.5, 2.0, size=n)
    return proba, y_true, y_pred, weight


def calls(
    proba: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray, weight: np.ndarray
) -> list[tuple[str, Callable[[], Any]]]:
    a = agreement
    return [
        ("qwk", lambda: a.qwk(y_true, y_pred)),
        ("qwk (weighted)", lambda: a.qwk(y_true, y_pred, sample_weight=weight)),
        ("kappa", lambda: a.kappa(y_true, y_pred)),
        ("kappa (linear)", lambda: a.kappa(y_true, y_pred, weights="linear")),
        ("expected_cost", lambda: a.expected_cost(y_true, y_pred)),
        (
            "expected_cost (squared, normalize)",
            lambda: a.expected_cost(y_true, y_pred, costs="squared", normalize=True),
        ),
        ("mae", lambda: a.mae(y_true, y_pred)),
        ("amae", lambda: a.amae(y_true, y_pred)),
        ("mmae", lambda: a.mmae(y_true, y_pred)),
        ("accuracy", lambda: a.accuracy(y_true, y_pred)),
        ("within_k_accuracy", lambda: a.within_k_accuracy(y_true, y_pred)),
        ("macro_f1", lambda: a.macro_f1(y_true, y_pred)),
        ("confusion_matrix", lambda: a.confusion_matrix(y_true, y_pred)),
        ("decide argmax", lambda: decide(proba)),
        ("decide median", lambda: decide(proba, "median")),
        ("decide expected", lambda: decide(proba, "expected")),
        ("decide min_cost (squared)", lambda: decide(proba, "min_cost", costs="squared")),
    ]


def main(argv: list[str] | None = None) -> int:
    args = common.parse_args(__doc__, argv)
    proba, y_true, y_pred, weight = make_data(args.n, args.k, args.seed)
    print(
        f"ordmetrics agreement benchmark: N = {args.n:,} rows, K = {args.k} classes, int64 "
        f"labels; y_proba float64 ({proba.nbytes / 1e6:.1f} MB), seed {args.seed}"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    print()

    proba.sum()  # touch the data once before timing
    read = common.measure(proba.sum, args.repeat)
    print(
        f"read pass y_proba.sum(): best {read.best * 1e3:.3f} ms, median "
        f"{read.median * 1e3:.3f} ms ({args.repeat} runs); 'x read' = best time / "
        f"{read.best * 1e3:.3f} ms"
    )
    print()

    rows = calls(proba, y_true, y_pred, weight)
    width = max(len(name) for name, _ in rows)
    print(f"ordmetrics, best and median of {args.repeat} runs")
    print(common.table_header(width, [("best", 10), ("median", 10), ("x read", 7)], ["ms", "ms"]))
    timings = {}
    for name, fn in rows:
        fn()  # warm-up
        t = common.measure(fn, args.repeat)
        timings[name] = t
        print(f"{name:<{width}}  {ms(t.best)}  {ms(t.median)}  {t.best / read.best:7.2f}")
    print()

    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        print("scikit-learn cohen_kappa_score: not installed")
        return 0
    labels = list(range(args.k))
    ours = agreement.qwk(y_true, y_pred)
    theirs = float(cohen_kappa_score(y_true, y_pred, weights="quadratic", labels=labels))
    plain = float(cohen_kappa_score(y_true, y_pred, weights="quadratic"))
    if not np.isclose(ours, theirs, rtol=common.RTOL, atol=0.0):
        print(
            f"QWK DIFFERS: ordmetrics {ours!r}, scikit-learn (labels=range(K)) {theirs!r}; "
            "no speed comparison."
        )
        return 1
    print(
        f"QWK check: ordmetrics {ours:.15g}, scikit-learn with labels=range(K) {theirs:.15g} "
        f"(agree to rtol {common.RTOL:g}); without labels= {plain:.15g}"
    )
    peer_repeat = min(common.PEER_REPEAT, args.repeat)

    def sk_qwk() -> float:
        return float(cohen_kappa_score(y_true, y_pred, weights="quadratic"))

    def sk_qwk_labels() -> float:
        return float(cohen_kappa_score(y_true, y_pred, weights="quadratic", labels=labels))

    sk = common.measure(sk_qwk, peer_repeat)
    sk_labels = common.measure(sk_qwk_labels, peer_repeat)
    ours_t = common.measure(lambda: agreement.qwk(y_true, y_pred), args.repeat)
    speedup = sk.best / ours_t.best
    print(f"scikit-learn, best and median of {peer_repeat} runs")
    for name, t in (
        ('cohen_kappa_score(weights="quadratic")', sk),
        ('cohen_kappa_score(weights="quadratic", labels=range(K))', sk_labels),
        ("ordmetrics qwk", ours_t),
    ):
        print(f"  {name:<58} {ms(t.best)} ms  {ms(t.median)} ms  {t.best / read.best:8.2f}x read")
    ok = "met" if speedup >= GOAL_SPEEDUP else "NOT met"
    metric_rows = [n for n, _ in rows if not n.startswith("decide")]
    slowest = max(metric_rows, key=lambda n: timings[n].best)
    print()
    common.print_summary(
        f"ordmetrics.qwk is {speedup:.1f}x faster than scikit-learn's "
        f'cohen_kappa_score(weights="quadratic") ({sk_labels.best / ours_t.best:.1f}x with '
        f"labels=); goal >= {GOAL_SPEEDUP:g}x {ok}. Slowest agreement metric: {slowest} at "
        f"{timings[slowest].best / read.best:.2f}x read.",
        args.n,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
