"""Benchmark of the calibration metrics: each as a multiple of one read pass.

Times ``ece``, ``classwise_ece`` and ``cumulative_ece`` (15 bins) and ``brier_decomposition``
and ``rps_decomposition`` (``n_bins=15``), each with uniform and quantile bins, unweighted and
with ``sample_weight``, on N Dirichlet rows (default N = 10^6) at K = 5 (``--k``) and K = 20,
and prints each time as a multiple of one read pass over the probabilities
(``y_proba.sum()``), timed in the same rounds (best / best and median / median, with the
spread: interquartile range over the median). Every call includes its input validation. The
rows run in parallel on numba's threads (``--threads N``: ``numba.set_num_threads``). The
decompositions with their default ``n_bins=None`` (one bin per distinct forecast value: a sort
of every event's forecasts) are timed once each at K = ``--k``.

Peer: scikit-learn's ``calibration_curve`` (uniform bins) with the bin counts gives the
top-label ECE; it is checked to give the value ``ece`` gives, then timed.

The goal is every call within 5x one read pass at K = 5.

Run with ``.venv/bin/python benchmarks/bench_calibration.py [--quick] [--threads N]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np
from _common import ReadPass, ms
from bench_scoring import set_threads, spread, take_threads

import ordmetrics as om

GOAL_READ = 5.0  # every call within this multiple of one read pass (at K = 5)
READ_RUNS_PER_ROUND = 3  # read passes timed before each round of calls
N_BINS = 15
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("scikit-learn", "sklearn"),
    ("ordmetrics", "ordmetrics"),
)
FUNCTIONS = ("ece", "classwise_ece", "cumulative_ece", "brier_decomposition", "rps_decomposition")


def calls(y: np.ndarray, proba: np.ndarray, w: np.ndarray) -> list[tuple[str, Callable[[], Any]]]:
    out: list[tuple[str, Callable[[], Any]]] = []
    for name in FUNCTIONS:
        func = getattr(om, name)
        for strategy in ("uniform", "quantile"):
            for weighted in (False, True):
                kw: dict[str, Any] = {"n_bins": N_BINS, "strategy": strategy}
                if weighted:
                    kw["sample_weight"] = w
                label = f"{name} {strategy}{' w' if weighted else ''}"
                out.append((label, lambda f=func, kw=kw: f(y, proba, **kw)))
    return out


def sklearn_top_label_ece(y: np.ndarray, proba: np.ndarray, n_bins: int) -> float | None:
    """The top-label ECE from scikit-learn's ``calibration_curve`` (uniform bins) and the
    number of rows per bin; None without scikit-learn."""
    module = common.optional_module("sklearn.calibration")
    if module is None:
        return None
    conf = proba.max(axis=1)
    correct = (proba.argmax(axis=1) == y).astype(np.int64)
    prob_true, prob_pred = module.calibration_curve(
        correct, conf, n_bins=n_bins, strategy="uniform"
    )
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], conf), minlength=n_bins)
    counts = counts[counts > 0]
    return float(np.sum(counts / conf.size * np.abs(prob_true - prob_pred)))


def bench(
    todo: list[tuple[str, Callable[[], Any]]], proba: np.ndarray, repeat: int
) -> tuple[ReadPass, list[tuple[str, list[float]]]]:
    """Round robin: in each round the read pass 3 times, then every call once."""
    for _, fn in todo:  # compile or load the kernels before timing
        fn()
    proba.sum()
    read = ReadPass(proba)
    times: dict[str, list[float]] = {name: [] for name, _ in todo}
    with common.gc_off():
        for _ in range(repeat):
            read.sample(READ_RUNS_PER_ROUND)
            for name, fn in todo:
                times[name].append(common.timed(fn))
    return read, [(name, t) for name, t in times.items()]


def main(argv: list[str] | None = None) -> int:
    threads, rest = take_threads(argv)
    args = common.parse_args(__doc__, rest, repeat=5)
    threads_line = set_threads(threads)
    ks = sorted({args.k, 20})
    print(
        f"ordmetrics calibration benchmark: N = {args.n:,} rows, K = "
        f"{', '.join(map(str, ks))} classes, float64 C-contiguous Dirichlet(1, ..., 1) rows, "
        f"{N_BINS} bins, seed {args.seed}"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    print(threads_line)
    worst: tuple[float, str] = (0.0, "")
    for k in ks:
        rng = np.random.default_rng(args.seed)
        proba = common.dirichlet_proba(rng, args.n, k)
        y = rng.integers(0, k, size=args.n)
        w = rng.uniform(0.5, 2.0, size=args.n)
        todo = calls(y, proba, w)
        peer_value = sklearn_top_label_ece(y, proba, N_BINS)
        if peer_value is not None:
            ours = om.ece(y, proba, n_bins=N_BINS)
            verdict = common.check_value(peer_value, ours)
            print(f"\nK = {k}: scikit-learn calibration_curve top-label ECE: {verdict}")
            todo.append(
                (
                    "sklearn calibration_curve",
                    lambda y=y, p=proba: sklearn_top_label_ece(y, p, N_BINS),
                )
            )
        read, rows = bench(todo, proba, args.repeat)
        print()
        print(
            f"K = {k} ({proba.nbytes / 1e6:.1f} MB): read pass y_proba.sum() best "
            f"{read.best * 1e3:.3f} ms, median {read.median * 1e3:.3f} ms "
            f"({len(read.times)} runs); 'x read' = best time / best read pass"
        )
        columns = [("best", 10), ("median", 10), ("x read", 7), ("x read", 7), ("spread", 6)]
        print(common.table_header(34, columns, ["ms", "ms", "best", "median"]))
        for name, samples in rows:
            t = common.summarize(samples)
            ratio = t.best / read.best
            print(
                f"{name:<34}  {ms(t.best)}  {ms(t.median)}  {ratio:7.2f}  "
                f"{t.median / read.median:7.2f}  {spread(samples):6.0%}"
            )
            if k == args.k and not name.startswith("sklearn") and ratio > worst[0]:
                worst = (ratio, name)
        if k == args.k:
            print("one run each, n_bins=None (one bin per distinct value: a sort per event):")
            for name in ("brier_decomposition", "rps_decomposition"):
                func = getattr(om, name)
                seconds = common.timed(lambda f=func, y=y, p=proba: f(y, p))
                print(f"{name + ' None':<34}  {ms(seconds)}  {seconds / read.best:7.1f}x read")
    print()
    common.print_summary(
        f"calibration worst {worst[0]:.2f}x read pass ({worst[1]}) at K = {args.k}; goal <= "
        f"{GOAL_READ:g}x",
        args.n,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
