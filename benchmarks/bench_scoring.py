"""Benchmark of the six scoring rules of ordmetrics.

Times ``rps``, ``sa_rps``, ``brier``, ``log_loss``, ``pbs`` and ``pll`` on N Dirichlet rows of
K classes (default N = 10^6, K = 5) and prints each time as a multiple of one read pass over
the probabilities (``y_proba.sum()``). The goal is every rule within 5x one read pass, with at
most one temporary the size of ``y_proba`` (peak extra memory <= 1.0x ``y_proba.nbytes``).

When installed, scoringrules' RPS and scikit-learn's multiclass Brier score and log loss are
timed on the same data; each is first checked to give the same number as ordmetrics.

Run with ``make bench`` or ``.venv/bin/python benchmarks/bench_scoring.py [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

import ordmetrics

RULES = ("rps", "sa_rps", "brier", "log_loss", "pbs", "pll")
GOAL_READ = 5.0  # every rule within this multiple of one read pass
GOAL_MEMORY = 1.0  # peak extra memory, in units of y_proba.nbytes
RTOL = 1e-9  # agreement required between a peer and ordmetrics
QUICK_N = 10_000
QUICK_REPEAT = 3
READ_RUNS_PER_ROUND = 3  # read passes timed before each round of calls
PEER_REPEAT = 3  # peers are slow at 10^6 rows: at most this many timed runs


@dataclass
class Timing:
    best: float
    median: float


@dataclass
class Row:
    name: str
    first: float
    timing: Timing
    memory: float


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="rows (default 1,000,000)")
    parser.add_argument("--k", type=int, default=5, help="classes (default 5)")
    parser.add_argument(
        "--repeat", type=int, default=15, help="timed runs per call; best and median (15)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: N = {QUICK_N:,} rows and {QUICK_REPEAT} runs",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat = QUICK_N, QUICK_REPEAT
    if args.n < 1 or args.k < 2 or args.repeat < 1:
        parser.error("need --n >= 1, --k >= 2 and --repeat >= 1")
    return args


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dirichlet(1, ..., 1) rows (float64, C-contiguous), integer truth and positive weights."""
    rng = np.random.default_rng(seed)
    proba = np.ascontiguousarray(rng.dirichlet(np.ones(k), size=n), dtype=np.float64)
    y = rng.integers(0, k, size=n)
    weight = rng.uniform(0.5, 2.0, size=n)
    return proba, y, weight


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


@contextlib.contextmanager
def gc_off() -> Iterator[None]:
    """The garbage collector switched off while timing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class ReadPass:
    """The baseline ``y_proba.sum()``, sampled again in every round of timing.

    Its best time is the minimum over all samples, so load elsewhere on the machine while
    some samples are taken does not shift every ratio.
    """

    def __init__(self, proba: np.ndarray) -> None:
        self.proba = proba
        self.times: list[float] = []

    def sample(self, runs: int) -> None:
        self.times.extend(timed(self.proba.sum) for _ in range(runs))

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def summarize(times: list[float]) -> Timing:
    return Timing(min(times), statistics.median(times))


def peak_extra_bytes(fn: Callable[[], Any]) -> int:
    """Peak memory allocated during ``fn()`` above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak - before


def optional_version(module: str) -> str | None:
    try:
        return importlib.import_module(module).__version__
    except ImportError:
        return None


def machine_info() -> list[str]:
    sk = optional_version("sklearn")
    sr = optional_version("scoringrules")
    return [
        f"platform     {platform.platform()} ({platform.machine()})",
        f"cpus         {os.cpu_count()} (os.cpu_count())",
        f"python       {platform.python_version()}",
        f"numpy        {np.__version__}",
        f"numba        {numba.__version__}",
        f"ordmetrics   {ordmetrics.__version__}",
        f"scikit-learn {sk or 'not installed'}",
        f"scoringrules {sr or 'not installed'}",
    ]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:10.2f}"


def bench_rules(
    proba: np.ndarray, y: np.ndarray, weight: np.ndarray, repeat: int, read: ReadPass
) -> list[Row]:
    """Time every rule with reduction "mean", "none" and "mean" with sample_weight."""
    variants: list[tuple[str, dict[str, Any]]] = [
        ("mean", {}),
        ("none", {"reduction": "none"}),
        ("mean, weighted", {"sample_weight": weight}),
    ]
    calls = [
        (f"{rule} ({label})", functools.partial(getattr(ordmetrics, rule), y, proba, **kwargs))
        for rule in RULES
        for label, kwargs in variants
    ]
    first = [timed(call) for _, call in calls]
    # Round robin, one run of every call per round: a burst of load elsewhere on the machine
    # costs one sample of each call instead of every sample of one call.
    times: list[list[float]] = [[] for _ in calls]
    with gc_off():
        for _ in range(repeat):
            read.sample(READ_RUNS_PER_ROUND)
            for samples, (_, call) in zip(times, calls, strict=True):
                samples.append(timed(call))
    # Memory in a separate pass: tracemalloc slows allocation and must not touch the timings.
    return [
        Row(name, t0, summarize(samples), peak_extra_bytes(call) / proba.nbytes)
        for (name, call), t0, samples in zip(calls, first, times, strict=True)
    ]


@dataclass
class Peer:
    name: str
    ours_name: str
    peer: Callable[[], float]
    ours: Callable[[], float]


def make_peers(proba: np.ndarray, y: np.ndarray) -> tuple[list[Peer], list[str]]:
    """The installed peers, and a line for each one that is not installed."""
    k = proba.shape[1]
    labels = np.arange(k)
    peers: list[Peer] = []
    missing: list[str] = []
    try:
        import scoringrules as sr
    except ImportError:
        missing.append("scoringrules.rps_score: not installed")
    else:
        # Categorical observations are numbered 1..K; the score is the unnormalised sum over
        # the K cumulative differences (the K-th is always 0), i.e. rps(normalize=False).
        obs = y + 1
        peers.append(
            Peer(
                "scoringrules.rps_score(...).mean()",
                "ordmetrics.rps(normalize=False)",
                lambda: float(np.mean(sr.rps_score(obs, proba))),
                lambda: ordmetrics.rps(y, proba, normalize=False),
            )
        )
    try:
        from sklearn.metrics import brier_score_loss, log_loss
    except ImportError:
        missing.append("sklearn.metrics.brier_score_loss: not installed")
        missing.append("sklearn.metrics.log_loss: not installed")
    else:
        # Multiclass Brier (scikit-learn >= 1.7) is the sum over the K classes, as in ordmetrics.
        peers.append(
            Peer(
                "sklearn brier_score_loss(labels=...)",
                "ordmetrics.brier",
                lambda: float(brier_score_loss(y, proba, labels=labels)),
                lambda: ordmetrics.brier(y, proba),
            )
        )
        peers.append(
            Peer(
                "sklearn log_loss(labels=...)",
                "ordmetrics.log_loss",
                lambda: float(log_loss(y, proba, labels=labels)),
                lambda: ordmetrics.log_loss(y, proba),
            )
        )
    return peers, missing


def agreement(peer_value: float, ours_value: float) -> str:
    if np.isclose(peer_value, ours_value, rtol=RTOL, atol=0.0):
        return "agrees"
    diff = peer_value - ours_value
    return f"DIFFERS by {diff:.3g} ({peer_value:.12g} vs {ours_value:.12g})"


@dataclass
class PeerResult:
    peer: Peer
    theirs: Timing
    ours: Timing
    check: str


def bench_peers(
    peers: list[Peer], repeat: int, peer_repeat: int, read: ReadPass
) -> list[PeerResult]:
    """Check each peer's value against ordmetrics, then time both in alternation."""
    results = []
    for p in peers:
        ours_value = p.ours()
        peer_value = p.peer()  # also the warm-up call
        ours: list[float] = []
        theirs: list[float] = []
        with gc_off():
            for i in range(repeat):
                read.sample(READ_RUNS_PER_ROUND)
                ours.append(timed(p.ours))
                if i < peer_repeat:
                    theirs.append(timed(p.peer))
        results.append(
            PeerResult(p, summarize(theirs), summarize(ours), agreement(peer_value, ours_value))
        )
    return results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    proba, y, weight = make_data(args.n, args.k, args.seed)
    peer_repeat = min(PEER_REPEAT, args.repeat)
    peers, missing = make_peers(proba, y)

    proba.sum()  # touch the data once before timing
    read = ReadPass(proba)
    rows = bench_rules(proba, y, weight, args.repeat, read)
    peer_results = bench_peers(peers, args.repeat, peer_repeat, read)

    mb = proba.nbytes / 1e6
    print(
        f"ordmetrics scoring benchmark: N = {args.n:,} rows, K = {args.k} classes, float64 "
        f"C-contiguous ({mb:.1f} MB), seed {args.seed}"
    )
    print("\n".join(machine_info()))
    print()
    print(
        f"read pass y_proba.sum(): best {read.best * 1e3:.3f} ms, median "
        f"{read.median * 1e3:.3f} ms ({len(read.times)} runs, {READ_RUNS_PER_ROUND} in each round "
        f"of timing); 'x read' = best time / {read.best * 1e3:.3f} ms"
    )
    print()

    width = max(len(r.name) for r in rows)
    head = (
        f"{'call':<{width}}  {'first call':>10}  {'best':>10}  {'median':>10}  "
        f"{'x read':>7}  {'peak mem':>8}"
    )
    print(f"ordmetrics, best and median of {args.repeat} runs")
    print("(first call = compile or cache load; peak mem = tracemalloc peak / y_proba.nbytes)")
    print(head)
    print(f"{'':<{width}}  {'ms':>10}  {'ms':>10}  {'ms':>10}  {'':>7}  {'x proba':>8}")
    print("-" * len(head))
    for r in rows:
        print(
            f"{r.name:<{width}}  {ms(r.first)}  {ms(r.timing.best)}  {ms(r.timing.median)}  "
            f"{r.timing.best / read.best:7.2f}  {r.memory:8.3f}"
        )
    print()

    print(f"peers, best and median of {peer_repeat} runs (ordmetrics: {args.repeat} runs)")
    pwidth = max([len(p.name) + 2 for p in peers] + [len(p.ours_name) + 4 for p in peers] + [10])
    phead = (
        f"{'call':<{pwidth}}  {'best':>10}  {'median':>10}  {'x read':>7}  "
        f"{'ordmetrics faster':>17}  value check"
    )
    print(phead)
    print(f"{'':<{pwidth}}  {'ms':>10}  {'ms':>10}")
    print("-" * len(phead))
    for res in peer_results:
        theirs, ours = res.theirs, res.ours
        print(
            f"{res.peer.name:<{pwidth}}  {ms(theirs.best)}  {ms(theirs.median)}  "
            f"{theirs.best / read.best:7.2f}  {theirs.best / ours.best:16.1f}x  {res.check}"
        )
        print(
            f"{'  vs ' + res.peer.ours_name:<{pwidth}}  {ms(ours.best)}  {ms(ours.median)}  "
            f"{ours.best / read.best:7.2f}"
        )
    for line in missing:
        print(line)
    print()

    worst = max(rows, key=lambda r: r.timing.best)
    worst_ratio = worst.timing.best / read.best
    worst_mem = max(rows, key=lambda r: r.memory)
    time_ok = "met" if worst_ratio <= GOAL_READ else "NOT met"
    mem_ok = "met" if worst_mem.memory <= GOAL_MEMORY else "NOT met"
    print(
        f"summary: worst {worst_ratio:.2f}x read pass ({worst.name}); goal <= {GOAL_READ:g}x "
        f"{time_ok}. Worst peak memory {worst_mem.memory:.3f}x y_proba ({worst_mem.name}); "
        f"goal <= {GOAL_MEMORY:g}x {mem_ok}."
    )
    if args.n < 1_000_000:
        print(f"(the goals are stated for N = 1,000,000; this run has N = {args.n:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
