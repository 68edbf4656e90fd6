"""Benchmark of peak memory: what the calibration, retention and bootstrap functions allocate.

For each function the peak of the memory allocated during one call, beyond what was allocated
before it (the inputs), is measured with ``tracemalloc`` (NumPy reports its array buffers to
it), and printed in MB and as a multiple of the size of the probability matrix P (N x K
float64). The time of one call (without tracing) is printed next to it.

* ``cumulative_ece``, ``classwise_ece`` (15 uniform bins), ``brier_decomposition``,
  ``rps_decomposition`` (one bin per distinct value, the default, and 10 uniform bins) on
  N rows of K classes (default N = 200,000, K = 50: P is 80 MB);
* ``retention_curve(..., metric="qwk")`` with the default ``n_random=100`` on 1,000 rows of
  ``--retention-k`` classes (default 100): the random baseline is drawn and evaluated in
  chunks, so its memory no longer grows with ``n_random``;
* ``bootstrap("rps", ...)`` with 100,000 resamples on 10,000 rows.

Goal: at most one extra copy of P (1.0x) for every calibration function; the retention curve
and the bootstrap within a fixed budget whatever ``n_random`` / ``n_resamples``.

Run with ``.venv/bin/python benchmarks/bench_memory.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import QUICK_N, machine_info

import ordmetrics
from ordmetrics.evaluation.retention import retention_curve

GOAL_COPIES = 1.0


def peak_extra(fn: Callable[[], Any]) -> float:
    """Bytes allocated at the peak of one call of ``fn``, beyond those allocated before."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return float(peak - before)


def seconds(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="rows (default 200,000)")
    parser.add_argument("--k", type=int, default=50, help="classes (default 50)")
    parser.add_argument(
        "--retention-k", type=int, default=100, help="classes of the retention curve (100)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument("--quick", action="store_true", help=f"smoke run: N = {QUICK_N:,}")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.retention_k = QUICK_N, 20
    n, k = args.n, args.k
    rng = np.random.default_rng(args.seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=p) for p in P[: min(n, 1000)]])
    y = np.resize(y, n)
    size = P.nbytes
    print(f"N = {n:,} rows, K = {k} classes (P: {size / 1e6:.1f} MB)")
    for line in machine_info((("numpy", "numpy"), ("ordmetrics", "ordmetrics"))):
        print(line)
    print(f"{'function':<44} {'peak extra MB':>14} {'x P':>6} {'seconds':>9}")
    worst = 0.0
    calls: list[tuple[str, Callable[[], Any], bool]] = [
        ("cumulative_ece(n_bins=15)", lambda: ordmetrics.cumulative_ece(y, P), True),
        ("classwise_ece(n_bins=15)", lambda: ordmetrics.classwise_ece(y, P), True),
        ("brier_decomposition()", lambda: ordmetrics.brier_decomposition(y, P), True),
        ("rps_decomposition()", lambda: ordmetrics.rps_decomposition(y, P), True),
        (
            "rps_decomposition(n_bins=10)",
            lambda: ordmetrics.rps_decomposition(y, P, n_bins=10),
            True,
        ),
    ]
    kr = args.retention_k
    Pr = rng.dirichlet(np.ones(kr), size=1000)
    yr = rng.integers(0, kr, size=1000)
    calls.append(
        (
            f"retention_curve(N=1000, K={kr}, n_random=100)",
            lambda: retention_curve(yr, Pr, metric="qwk", random_state=0),
            False,
        )
    )
    yb, Pb = y[:10_000], P[:10_000]
    n_boot = 2_000 if args.quick else 100_000
    calls.append(
        (
            f"bootstrap('rps', N={yb.size}, n_resamples={n_boot})",
            lambda: ordmetrics.bootstrap("rps", yb, Pb, n_resamples=n_boot, random_state=0),
            False,
        )
    )
    for name, fn, counts in calls:
        fn()  # compile the kernels first
        extra = peak_extra(fn)
        t = seconds(fn)
        ratio = extra / size
        if counts:
            worst = max(worst, ratio)
        shown = f"{ratio:6.2f}" if counts else "     -"
        print(f"{name:<44} {extra / 1e6:14.1f} {shown} {t:9.3f}")
    verdict = "meets" if worst <= GOAL_COPIES else "MISSES"
    print(
        f"summary: peak memory of the calibration functions at most {worst:.2f}x the "
        f"probability matrix ({verdict} the goal of {GOAL_COPIES:.0f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
