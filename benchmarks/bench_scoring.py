"""Benchmark of the scoring rules of ordmetrics.

Times every registered scoring rule (``ordmetrics.list_metrics("scoring_rule")``: ``rps``,
``sa_rps``, ``brier``, ``log_loss``, ``pbs``, ``pll``, ``spherical``, ``cdf_l1``) on N Dirichlet
rows of K classes (default N = 10^6, K = 5 and K = 20), unweighted and weighted, with
``reduction`` "mean", "sum" and "none", and prints each time as a multiple of one read pass over
the probabilities (``y_proba.sum()``), timed in the same rounds: best / best and median /
median, with the spread of the calls (interquartile range over the median). The goal is every
rule within 2.5x one read pass using the machine's cores (numba's threads; ``--threads N``
sets their number with ``numba.set_num_threads``), with at most one temporary the size of
``y_proba`` (peak extra memory <= 1.0x ``y_proba.nbytes``).

When installed, scoringrules' RPS and scikit-learn's multiclass Brier score and log loss are
timed on the same data (first K); each is first checked to give the same number as ordmetrics.

Run with ``make bench`` or ``.venv/bin/python benchmarks/bench_scoring.py [--quick]
[--threads N]``.
"""

from __future__ import annotations

import functools
import gc
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import _common as common
import numpy as np
from _common import Peer, Peers, ReadPass, Timing, ms

import ordmetrics

RULES = tuple(ordmetrics.list_metrics("scoring_rule"))
GOAL_READ = 2.5  # every rule within this multiple of one read pass
GOAL_MEMORY = 1.0  # peak extra memory, in units of y_proba.nbytes
READ_RUNS_PER_ROUND = 3  # read passes timed before each round of calls
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("ordmetrics", "ordmetrics"),
    ("scikit-learn", "sklearn"),
    ("scoringrules", "scoringrules"),
)


@dataclass
class Row:
    name: str
    first: float
    timing: Timing
    memory: float
    spread: float  # interquartile range / median of the timed runs


def spread(times: list[float]) -> float:
    """Interquartile range over the median: how noisy the runs of one call were."""
    q1, q2, q3 = np.percentile(times, [25, 50, 75])
    return float((q3 - q1) / q2)


def take_threads(argv: list[str] | None) -> tuple[int | None, list[str]]:
    """``--threads N`` (numba's thread count) taken out of the arguments."""
    return common.take_int_option(argv, "--threads", minimum=1)


def set_threads(threads: int | None) -> str:
    """Set numba's thread count (None: its default); a line saying what runs."""
    import numba

    if threads is not None:
        numba.set_num_threads(threads)
    return (
        f"numba threads {numba.get_num_threads()} of {numba.config.NUMBA_NUM_THREADS} "
        f"(--threads; numba.set_num_threads)"
    )


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dirichlet(1, ..., 1) rows (float64, C-contiguous), integer truth and positive weights."""
    rng = np.random.default_rng(seed)
    proba = common.dirichlet_proba(rng, n, k)
    y = rng.integers(0, k, size=n)
    weight = rng.uniform(0.5, 2.0, size=n)
    return proba, y, weight


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


def bench_rules(
    proba: np.ndarray, y: np.ndarray, weight: np.ndarray, repeat: int, read: ReadPass
) -> list[Row]:
    """Time every rule with each reduction, without and with sample_weight."""
    variants: list[tuple[str, dict[str, Any]]] = [
        (f"{red}{', weighted' if weighted else ''}", {"reduction": red, **kw})
        for red in ("mean", "sum", "none")
        for weighted, kw in ((False, {}), (True, {"sample_weight": weight}))
    ]
    calls = [
        (f"{rule} ({label})", functools.partial(getattr(ordmetrics, rule), y, proba, **kwargs))
        for rule in RULES
        for label, kwargs in variants
    ]
    first = [common.timed(call) for _, call in calls]
    # Round robin, one run of every call per round: a burst of load elsewhere on the machine
    # costs one sample of each call instead of every sample of one call.
    times: list[list[float]] = [[] for _ in calls]
    with common.gc_off():
        for _ in range(repeat):
            read.sample(READ_RUNS_PER_ROUND)
            for samples, (_, call) in zip(times, calls, strict=True):
                samples.append(common.timed(call))
    # Memory in a separate pass: tracemalloc slows allocation and must not touch the timings.
    return [
        Row(
            name,
            t0,
            common.summarize(samples),
            peak_extra_bytes(call) / proba.nbytes,
            spread(samples),
        )
        for (name, call), t0, samples in zip(calls, first, times, strict=True)
    ]


def make_peers(proba: np.ndarray, y: np.ndarray) -> tuple[list[Peer], list[str]]:
    """The installed peers, and a line for each one that is not installed."""
    k = proba.shape[1]
    labels = np.arange(k)
    peers = Peers()
    sr = peers.library("scoringrules", "scoringrules.rps_score")
    if sr is not None:
        # Categorical observations are numbered 1..K; the score is the unnormalised sum over
        # the K cumulative differences (the K-th is always 0), i.e. rps(normalize=False).
        obs = y + 1
        peers.found.append(
            Peer(
                "scoringrules.rps_score(...).mean()",
                "ordmetrics.rps(normalize=False)",
                lambda: float(np.mean(sr.rps_score(obs, proba))),
                lambda: ordmetrics.rps(y, proba, normalize=False),
            )
        )
    metrics = peers.library(
        "sklearn.metrics", "sklearn.metrics.brier_score_loss", "sklearn.metrics.log_loss"
    )
    if metrics is not None:
        brier_score_loss, log_loss = metrics.brier_score_loss, metrics.log_loss
        # Multiclass Brier (scikit-learn >= 1.7) is the sum over the K classes, as in ordmetrics.
        peers.found.append(
            Peer(
                "sklearn brier_score_loss(labels=...)",
                "ordmetrics.brier",
                lambda: float(brier_score_loss(y, proba, labels=labels)),
                lambda: ordmetrics.brier(y, proba),
            )
        )
        peers.found.append(
            Peer(
                "sklearn log_loss(labels=...)",
                "ordmetrics.log_loss",
                lambda: float(log_loss(y, proba, labels=labels)),
                lambda: ordmetrics.log_loss(y, proba),
            )
        )
    return peers.found, peers.missing


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
        with common.gc_off():
            for i in range(repeat):
                read.sample(READ_RUNS_PER_ROUND)
                ours.append(common.timed(p.ours))
                if i < peer_repeat:
                    theirs.append(common.timed(p.peer))
        results.append(
            PeerResult(
                p,
                common.summarize(theirs),
                common.summarize(ours),
                common.check_value(peer_value, ours_value),
            )
        )
    return results


def print_rules(rows: list[Row], read: ReadPass, repeat: int) -> None:
    width = max(len(r.name) for r in rows)
    print(f"ordmetrics, best and median of {repeat} runs")
    print(
        "(first call = compile or cache load; x read = best / best read pass and median / "
        "median read pass;\n spread = interquartile range / median of the runs; peak mem = "
        "tracemalloc peak / y_proba.nbytes)"
    )
    columns = [
        ("first call", 10),
        ("best", 10),
        ("median", 10),
        ("x read", 7),
        ("x read", 7),
        ("spread", 6),
        ("peak mem", 8),
    ]
    print(common.table_header(width, columns, ["ms", "ms", "ms", "best", "median", "", "x proba"]))
    for r in rows:
        print(
            f"{r.name:<{width}}  {ms(r.first)}  {ms(r.timing.best)}  {ms(r.timing.median)}  "
            f"{r.timing.best / read.best:7.2f}  {r.timing.median / read.median:7.2f}  "
            f"{r.spread:6.0%}  {r.memory:8.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    threads, rest = take_threads(argv)
    args = common.parse_args(__doc__, rest)
    threads_line = set_threads(threads)
    ks = list(dict.fromkeys([args.k, 20]))
    worst: tuple[float, str] = (0.0, "")
    worst_median: tuple[float, str] = (0.0, "")
    worst_mem: tuple[float, str] = (0.0, "")
    peer_results: list[PeerResult] = []
    missing: list[str] = []
    for index, k in enumerate(ks):
        proba, y, weight = make_data(args.n, k, args.seed)
        proba.sum()  # touch the data once before timing
        read = ReadPass(proba)
        rows = bench_rules(proba, y, weight, args.repeat, read)
        if index == 0:
            peer_repeat = min(common.PEER_REPEAT, args.repeat)
            peers, missing = make_peers(proba, y)
            peer_results = bench_peers(peers, args.repeat, peer_repeat, read)
            mb = proba.nbytes / 1e6
            print(
                f"ordmetrics scoring benchmark: N = {args.n:,} rows, K = "
                f"{', '.join(map(str, ks))} classes, float64 C-contiguous ({mb:.1f} MB at "
                f"K = {k}), seed {args.seed}"
            )
            print("\n".join(common.machine_info(PACKAGES)))
            print(threads_line)
        print()
        print(
            f"K = {k}: read pass y_proba.sum(): best {read.best * 1e3:.3f} ms, median "
            f"{read.median * 1e3:.3f} ms ({len(read.times)} runs, {READ_RUNS_PER_ROUND} in each "
            f"round of timing)"
        )
        print_rules(rows, read, args.repeat)
        for r in rows:
            name = f"{r.name}, K = {k}"
            worst = max(worst, (r.timing.best / read.best, name))
            worst_median = max(worst_median, (r.timing.median / read.median, name))
            worst_mem = max(worst_mem, (r.memory, name))
        if index == 0:
            print()
            print(
                f"peers at K = {k}, best and median of {peer_repeat} runs (ordmetrics: "
                f"{args.repeat} runs)"
            )
            pwidth = max(
                [len(p.peer.name) + 2 for p in peer_results]
                + [len(p.peer.ours_name) + 4 for p in peer_results]
                + [10]
            )
            columns = [("best", 10), ("median", 10), ("x read", 7), ("ordmetrics faster", 17)]
            print(common.table_header(pwidth, [*columns, ("value check", 0)], ["ms", "ms"]))
            for res in peer_results:
                theirs, ours = res.theirs, res.ours
                print(
                    f"{res.peer.name:<{pwidth}}  {ms(theirs.best)}  {ms(theirs.median)}  "
                    f"{theirs.best / read.best:7.2f}  {theirs.best / ours.best:16.1f}x  "
                    f"{res.check}"
                )
                print(
                    f"{'  vs ' + res.peer.ours_name:<{pwidth}}  {ms(ours.best)}  "
                    f"{ms(ours.median)}  {ours.best / read.best:7.2f}"
                )
            for line in missing:
                print(line)
    print()
    time_ok = "met" if worst[0] <= GOAL_READ else "NOT met"
    mem_ok = "met" if worst_mem[0] <= GOAL_MEMORY else "NOT met"
    common.print_summary(
        f"worst {worst[0]:.2f}x read pass best/best ({worst[1]}), {worst_median[0]:.2f}x "
        f"median/median ({worst_median[1]}); goal <= {GOAL_READ:g}x {time_ok}. Worst peak "
        f"memory {worst_mem[0]:.3f}x y_proba ({worst_mem[1]}); goal <= {GOAL_MEMORY:g}x "
        f"{mem_ok}.",
        args.n,
        goals="goals are",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
