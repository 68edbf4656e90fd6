"""Benchmark of ``decide``: each decision rule as a multiple of one read pass.

Times ``decide`` with ``rule="argmax"``, ``"median"``, ``"expected"`` and ``"min_cost"`` (the
default absolute costs, squared and zero-one costs, and a general cost matrix) on N Dirichlet
rows (default N = 10^6) at K = 5 (``--k``) and K = 20, and prints each time as a multiple of
one read pass over the probabilities (``y_proba.sum()``), timed in the same rounds (best / best
and median / median, with the spread: interquartile range over the median). Every call
includes its input validation. The rows run in parallel on numba's threads (``--threads N``:
``numba.set_num_threads``). The goal is every rule within 3x one read pass at K = 5 and at
K = 20; the summary line gives the worst call at each K.

Run with ``.venv/bin/python benchmarks/bench_decide.py [--quick] [--threads N]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np
from _common import ReadPass, ms
from bench_scoring import set_threads, spread, take_threads

from ordmetrics.metrics.decisions import decide

GOAL_READ = 3.0  # every rule within this multiple of one read pass (at K = 5 and K = 20)
READ_RUNS_PER_ROUND = 3  # read passes timed before each round of calls
PACKAGES = (("numpy", "numpy"), ("numba", "numba"), ("ordmetrics", "ordmetrics"))


def calls(proba: np.ndarray, seed: int) -> list[tuple[str, Callable[[], Any]]]:
    k = proba.shape[1]
    costs = np.random.default_rng(seed).uniform(0.0, 4.0, size=(k, k))
    return [
        ("argmax", lambda: decide(proba)),
        ("median", lambda: decide(proba, "median")),
        ("expected", lambda: decide(proba, "expected")),
        ("min_cost (absolute)", lambda: decide(proba, "min_cost")),
        ("min_cost (squared)", lambda: decide(proba, "min_cost", costs="squared")),
        ("min_cost (zero_one)", lambda: decide(proba, "min_cost", costs="zero_one")),
        ("min_cost (general C)", lambda: decide(proba, "min_cost", costs=costs)),
    ]


def bench(
    proba: np.ndarray, seed: int, repeat: int
) -> tuple[ReadPass, list[tuple[str, list[float]]]]:
    """Round robin: in each round the read pass 3 times, then every call once."""
    todo = calls(proba, seed)
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
        f"ordmetrics decide benchmark: N = {args.n:,} rows, K = {', '.join(map(str, ks))} "
        f"classes, float64 C-contiguous Dirichlet(1, ..., 1) rows, seed {args.seed}"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    print(threads_line)
    worst = {k: (0.0, "") for k in ks}
    for k in ks:
        proba = common.dirichlet_proba(np.random.default_rng(args.seed), args.n, k)
        read, rows = bench(proba, args.seed, args.repeat)
        print()
        print(
            f"K = {k} ({proba.nbytes / 1e6:.1f} MB): read pass y_proba.sum() best "
            f"{read.best * 1e3:.3f} ms, median {read.median * 1e3:.3f} ms "
            f"({len(read.times)} runs); 'x read' = best time / best read pass"
        )
        columns = [("best", 10), ("median", 10), ("x read", 7), ("x read", 7), ("spread", 6)]
        print(common.table_header(22, columns, ["ms", "ms", "best", "median"]))
        for name, samples in rows:
            t = common.summarize(samples)
            ratio = t.best / read.best
            print(
                f"{name:<22}  {ms(t.best)}  {ms(t.median)}  {ratio:7.2f}  "
                f"{t.median / read.median:7.2f}  {spread(samples):6.0%}"
            )
            if ratio > worst[k][0]:
                worst[k] = (ratio, name)
    print()
    common.print_summary(
        "decide worst "
        + ", ".join(f"{r:.2f}x read pass ({name}) at K = {k}" for k, (r, name) in worst.items())
        + f"; goal <= {GOAL_READ:g}x",
        args.n,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
