"""Benchmark of the calibration metrics: each as a multiple of one read pass.

Times ``ece``, ``classwise_ece`` and ``cumulative_ece`` (15 bins) and ``brier_decomposition``
and ``rps_decomposition`` (``n_bins=15``), each with uniform and quantile bins, unweighted and
with ``sample_weight``, on N Dirichlet rows (default N = 10^6) at K = 5 (``--k``) and K = 20,
and prints each time as a multiple of one read pass over the probabilities
(``y_proba.sum()``). Every call includes its input validation. The rows run in parallel on
numba's threads (``--threads N``: ``numba.set_num_threads``).

The timing runs in ``--processes P`` fresh processes (default 3, one after another; ``--quick``
and ``--processes 1``: this process only), because on a shared virtual machine the calls on
numba's threads have slow episodes (up to 1.9x) that can last a whole process's timing
(benchmarks/README.md). Each process times its own read pass in the
same round robin as the calls (``--repeat`` rounds: 3 read passes, then every call once), and
its ratios are taken to its own read pass: best / best and median / median. Per call the
table gives the best ratio over the processes, the median over the processes of the median
ratios, each process's best ratio, and the spread within the processes (the interquartile
range of the runs over their median, the median over the processes). The decompositions with
their default ``n_bins=None`` (one bin per distinct forecast value: a sort of every event's
forecasts) are timed once each at K = ``--k``, in the first process.

Peer: scikit-learn's ``calibration_curve`` (uniform bins) with the bin counts gives the
top-label ECE; it is checked to give the value ``ece`` gives, then timed.

The goal is every call within 5x one read pass at K = 5.

Run with ``.venv/bin/python benchmarks/bench_calibration.py [--quick] [--threads N]
[--processes P]``.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _common as common
import numpy as np
from _common import ReadPass, ms
from bench_scoring import set_threads, spread, take_threads

import ordmetrics as om

GOAL_READ = 5.0  # every call within this multiple of one read pass (at K = 5)
READ_RUNS_PER_ROUND = 3  # read passes timed before each round of calls
PROCESSES = 3  # fresh processes timed, one after another (--processes)
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


def time_one_process(n: int, ks: list[int], seed: int, repeat: int, first: bool) -> dict[str, Any]:
    """The timings of one process: per K the read passes, the peer's verdict and every call's
    runs (seconds); in the ``first`` process, the ``n_bins=None`` decompositions at ks[0]."""
    out: dict[str, Any] = {"ks": {}, "none": {}}
    for k in ks:
        rng = np.random.default_rng(seed)
        proba = common.dirichlet_proba(rng, n, k)
        y = rng.integers(0, k, size=n)
        w = rng.uniform(0.5, 2.0, size=n)
        todo = calls(y, proba, w)
        peer_value = sklearn_top_label_ece(y, proba, N_BINS)
        verdict = None
        if peer_value is not None:
            verdict = common.check_value(peer_value, om.ece(y, proba, n_bins=N_BINS))
            todo.append(
                (
                    "sklearn calibration_curve",
                    lambda y=y, p=proba: sklearn_top_label_ece(y, p, N_BINS),
                )
            )
        read, rows = bench(todo, proba, repeat)
        out["ks"][str(k)] = {
            "mb": proba.nbytes / 1e6,
            "read": read.times,
            "verdict": verdict,
            "calls": dict(rows),
        }
        if first and k == ks[0]:
            for name in ("brier_decomposition", "rps_decomposition"):
                func = getattr(om, name)
                seconds = common.timed(lambda f=func, y=y, p=proba: f(y, p))
                out["none"][name] = (seconds, seconds / read.best)
    return out


def _median_ratio(times: list[float], read: list[float]) -> float:
    return statistics.median(times) / statistics.median(read)


def report(k: int, results: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """The table of K = k over the processes' ``results``; (best ratio, call) per call."""
    per = [r["ks"][str(k)] for r in results]
    verdicts = sorted({p["verdict"] for p in per if p["verdict"] is not None})
    if verdicts:
        print(f"\nK = {k}: scikit-learn calibration_curve top-label ECE: {'; '.join(verdicts)}")
    reads = [p["read"] for p in per]
    bests = ", ".join(f"{min(t) * 1e3:.3f}" for t in reads)
    medians = ", ".join(f"{statistics.median(t) * 1e3:.3f}" for t in reads)
    print(
        f"\nK = {k} ({per[0]['mb']:.1f} MB), {len(per)} process{'es' if len(per) > 1 else ''}: "
        f"read pass y_proba.sum() best {bests} ms, median {medians} ms "
        f"({len(reads[0])} runs each); 'x read' = time / the read pass of the same process"
    )
    print(
        "best: the fastest run of all; x read best: the best over the processes of best / "
        "best read;\nx read median: the median over the processes of median / median read; "
        "per process: each one's best / best read;\nspread: within a process, the "
        "interquartile range over the median (the median over the processes)"
    )
    width = 8 * len(per) - 2
    columns = [("best", 10), ("median", 10), ("x read", 7), ("x read", 7)]
    columns += [("per process", max(width, 11)), ("spread", 6)]
    print(common.table_header(34, columns, ["ms", "ms", "best", "median", "x read best"]))
    out: list[tuple[float, str]] = []
    for name in per[0]["calls"]:
        samples = [p["calls"][name] for p in per]
        pooled = [t for s in samples for t in s]
        ratios = [min(s) / min(r) for s, r in zip(samples, reads, strict=True)]
        medians_ = [_median_ratio(s, r) for s, r in zip(samples, reads, strict=True)]
        inner = statistics.median(spread(s) for s in samples)
        cells = " ".join(f"{x:7.2f}" for x in ratios)
        print(
            f"{name:<34}  {ms(min(pooled))}  {ms(statistics.median(pooled))}  "
            f"{min(ratios):7.2f}  {statistics.median(medians_):7.2f}  "
            f"{cells:>{max(width, 11)}}  {inner:6.0%}"
        )
        if not name.startswith("sklearn"):
            out.append((min(ratios), name))
    return out


def worker(index: int, path: str, argv: list[str]) -> int:
    """A worker process: time and write the result (``--worker INDEX PATH``)."""
    threads, rest = take_threads(argv)
    args = common.parse_args(__doc__, rest, repeat=5)
    set_threads(threads)
    ks = [args.k, *sorted({20} - {args.k})]
    common.write_worker_result(
        path, time_one_process(args.n, ks, args.seed, args.repeat, first=index == 0)
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    job, argv = common.take_worker(argv)
    if job is not None:
        return worker(*job, argv)
    processes, passed = common.take_int_option(argv, "--processes", minimum=1)
    threads, rest = take_threads(passed)
    if "-h" in rest or "--help" in rest:
        print("options of this script: --threads N (numba's threads), --processes P (fresh")
        print(f"processes timed, {PROCESSES}; --quick: 1)")
    args = common.parse_args(__doc__, rest, repeat=5)
    if processes is None:
        processes = 1 if args.quick else PROCESSES
    threads_line = set_threads(threads)
    ks = [args.k, *sorted({20} - {args.k})]
    print(
        f"ordmetrics calibration benchmark: N = {args.n:,} rows, K = "
        f"{', '.join(map(str, sorted(ks)))} classes, float64 C-contiguous Dirichlet(1, ..., 1) "
        f"rows, {N_BINS} bins, seed {args.seed}"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    print(threads_line)
    if processes == 1:
        print(f"timing: {args.repeat} rounds in this process (--processes 1)", flush=True)
        results = [time_one_process(args.n, ks, args.seed, args.repeat, first=True)]
    else:
        print(
            f"timing: {args.repeat} rounds in each of {processes} fresh processes, one after "
            "another (--processes)",
            flush=True,
        )
        results = common.run_workers(str(Path(__file__).resolve()), passed, processes)
    worst: tuple[float, str] = (0.0, "")
    for k in sorted(ks):
        rows = report(k, results)
        if k == args.k:
            worst = max([worst, *rows])
            print("one run each, n_bins=None (one bin per distinct value: a sort per event):")
            for name, (seconds, ratio) in results[0]["none"].items():
                print(f"{name + ' None':<34}  {ms(seconds)}  {ratio:7.1f}x read")
    print()
    common.print_summary(
        f"calibration worst {worst[0]:.2f}x read pass ({worst[1]}) at K = {args.k}; goal <= "
        f"{GOAL_READ:g}x (best over {processes} process{'es' if processes > 1 else ''})",
        args.n,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
