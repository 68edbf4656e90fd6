"""Benchmark of the ranking metrics of ordmetrics: c_index, kendall_tau and spearman.

Times the three metrics on N rows of K ordered classes (default N = 10^6, K = 5) in two cases:
continuous scores, and heavily tied scores (the same scores rounded to 2 decimals, about two
thousand distinct values). The goal is c_index and kendall_tau under 1 s at N = 10^6.

Peers, each first checked to give the same number as ordmetrics (relative tolerance 1e-9):
``scipy.stats.kendalltau`` (tau-b) and ``scipy.stats.spearmanr`` on the same data,
``sklearn.metrics.roc_auc_score`` against ``c_index`` on a K = 2 case (classes >= K/2 against
the rest), and lifelines' ``concordance_index`` when it is importable.

Run with ``.venv/bin/python benchmarks/bench_ranking.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

import ordmetrics
from ordmetrics.ranking import c_index, kendall_tau, spearman

METRICS: dict[str, Callable[..., float]] = {
    "c_index": c_index,
    "kendall_tau": kendall_tau,
    "spearman": spearman,
}
GOAL_SECONDS = 1.0  # c_index and kendall_tau at N = 10^6
GOAL_METRICS = ("c_index", "kendall_tau")
RTOL = 1e-9  # agreement required between a peer and ordmetrics
QUICK_N = 10_000
QUICK_REPEAT = 3
PEER_REPEAT = 3  # peers are slow at 10^6 rows: at most this many timed runs


@dataclass
class Timing:
    best: float
    median: float


@dataclass
class Case:
    name: str
    y: np.ndarray
    score: Any  # 1-D scores or a probability matrix
    weight: np.ndarray


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="rows (default 1,000,000)")
    parser.add_argument("--k", type=int, default=5, help="classes (default 5)")
    parser.add_argument(
        "--repeat", type=int, default=7, help="timed runs per call; best and median (7)"
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
    if args.n < 2 or args.k < 2 or args.repeat < 1:
        parser.error("need --n >= 2, --k >= 2 and --repeat >= 1")
    return args


def make_cases(n: int, k: int, seed: int) -> list[Case]:
    """Truth uniform on 0..K-1; scores y + N(0, 2^2): continuous, rounded, and probabilities."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    s = y + rng.normal(0.0, 2.0, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    logits = -0.5 * (np.arange(k)[None, :] - s[:, None]) ** 2  # a peaked row around s
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    return [
        Case("continuous scores", y, s, w),
        Case("tied scores (rounded to 2 decimals)", y, np.round(s, 2), w),
        Case(f"probability matrix (N x {k}), expected grade", y, proba, w),
    ]


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(fn: Callable[[], Any], repeat: int) -> Timing:
    """Best and median of ``repeat`` runs, with the garbage collector off while timing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        times = [timed(fn) for _ in range(repeat)]
    finally:
        if enabled:
            gc.enable()
    return Timing(min(times), statistics.median(times))


def optional_version(module: str) -> str | None:
    try:
        return importlib.import_module(module).__version__
    except ImportError:
        return None


def machine_info() -> list[str]:
    return [
        f"platform     {platform.platform()} ({platform.machine()})",
        f"cpus         {os.cpu_count()} (os.cpu_count())",
        f"python       {platform.python_version()}",
        f"numpy        {np.__version__}",
        f"numba        {numba.__version__}",
        f"ordmetrics   {ordmetrics.__version__}",
        f"scipy        {optional_version('scipy') or 'not installed'}",
        f"scikit-learn {optional_version('sklearn') or 'not installed'}",
        f"lifelines    {optional_version('lifelines') or 'not installed'}",
    ]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:10.2f}"


def agreement(peer_value: float, ours_value: float) -> str:
    if np.isclose(peer_value, ours_value, rtol=RTOL, atol=0.0):
        return "agrees"
    return f"DIFFERS by {peer_value - ours_value:.3g} ({peer_value:.12g} vs {ours_value:.12g})"


def bench_case(case: Case, repeat: int, best: dict[str, float]) -> None:
    """Time every metric on ``case``, unweighted and weighted; record the worst best time."""
    print(f"case: {case.name}")
    head = f"{'call':<34}  {'first call':>10}  {'best':>10}  {'median':>10}  {'value':>14}"
    print(head)
    print(f"{'':<34}  {'ms':>10}  {'ms':>10}  {'ms':>10}")
    print("-" * len(head))
    for name, fn in METRICS.items():
        for label, kwargs in (("", {}), (", weighted", {"sample_weight": case.weight})):

            def call(fn: Callable[..., float] = fn, kwargs: dict[str, Any] = kwargs) -> float:
                return fn(case.y, case.score, **kwargs)

            first = timed(call)
            t = measure(call, repeat)
            best[name] = max(best.get(name, 0.0), t.best)
            print(f"{name + label:<34}  {ms(first)}  {ms(t.best)}  {ms(t.median)}  {call():14.10f}")
    print()


@dataclass
class Peer:
    name: str
    ours_name: str
    peer: Callable[[], float]
    ours: Callable[[], float]


def make_peers(cases: list[Case], k: int) -> tuple[list[Peer], list[str]]:
    """The installed peers on the continuous and tied cases, and lines for missing ones."""
    peers: list[Peer] = []
    missing: list[str] = []
    try:
        from scipy import stats
    except ImportError:
        missing.append("scipy.stats.kendalltau / spearmanr: not installed")
    else:
        for case in cases[:2]:
            y, s, tag = case.y, case.score, case.name.split(" ")[0]
            peers.append(
                Peer(
                    f"scipy kendalltau(variant='b'), {tag}",
                    "ordmetrics.kendall_tau",
                    lambda y=y, s=s: float(stats.kendalltau(y, s, variant="b").statistic),
                    lambda y=y, s=s: kendall_tau(y, s),
                )
            )
            peers.append(
                Peer(
                    f"scipy spearmanr, {tag}",
                    "ordmetrics.spearman",
                    lambda y=y, s=s: float(stats.spearmanr(y, s).statistic),
                    lambda y=y, s=s: spearman(y, s),
                )
            )
    y2 = (cases[0].y >= k // 2).astype(np.int64)  # a K = 2 problem on the same scores
    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:
        missing.append("sklearn.metrics.roc_auc_score: not installed")
    else:
        for case in cases[:2]:
            s, w, tag = case.score, case.weight, case.name.split(" ")[0]
            peers.append(
                Peer(
                    f"sklearn roc_auc_score (K = 2), {tag}",
                    "ordmetrics.c_index",
                    lambda s=s: float(roc_auc_score(y2, s)),
                    lambda s=s: c_index(y2, s),
                )
            )
            peers.append(
                Peer(
                    f"sklearn roc_auc_score (K = 2, w), {tag}",
                    "ordmetrics.c_index(sample_weight)",
                    lambda s=s, w=w: float(roc_auc_score(y2, s, sample_weight=w)),
                    lambda s=s, w=w: c_index(y2, s, sample_weight=w),
                )
            )
    try:
        from lifelines.utils import concordance_index
    except ImportError:
        missing.append("lifelines.utils.concordance_index: not installed")
    else:
        # Pairs with distinct y, score ties counted 1/2: the ordinal C-index (no censoring).
        y, s = cases[0].y, cases[0].score
        peers.append(
            Peer(
                "lifelines concordance_index, continuous",
                "ordmetrics.c_index",
                lambda: float(concordance_index(y, s)),
                lambda: c_index(y, s),
            )
        )
    return peers, missing


def bench_peers(peers: list[Peer], missing: list[str], repeat: int) -> None:
    peer_repeat = min(PEER_REPEAT, repeat)
    print(f"peers, best and median of {peer_repeat} runs (ordmetrics: {repeat} runs)")
    width = max([len(p.name) for p in peers] + [len(p.ours_name) + 5 for p in peers] + [10])
    head = f"{'call':<{width}}  {'best':>10}  {'median':>10}  {'ordmetrics faster':>17}  value"
    print(head)
    print(f"{'':<{width}}  {'ms':>10}  {'ms':>10}")
    print("-" * len(head))
    for p in peers:
        ours_value = p.ours()
        peer_value = p.peer()  # also the warm-up call
        ours = measure(p.ours, repeat)
        theirs = measure(p.peer, peer_repeat)
        print(
            f"{p.name:<{width}}  {ms(theirs.best)}  {ms(theirs.median)}  "
            f"{theirs.best / ours.best:16.1f}x  {agreement(peer_value, ours_value)}"
        )
        print(f"{'  vs ' + p.ours_name:<{width}}  {ms(ours.best)}  {ms(ours.median)}")
    for line in missing:
        print(line)
    print()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cases = make_cases(args.n, args.k, args.seed)
    print(
        f"ordmetrics ranking benchmark: N = {args.n:,} rows, K = {args.k} classes, "
        f"seed {args.seed}; best and median of {args.repeat} runs"
    )
    print("\n".join(machine_info()))
    print(f"distinct tied scores: {np.unique(cases[1].score).size:,}")
    print("(first call = compile or cache load, on the first case; every call includes its")
    print(" input validation)")
    print()

    best: dict[str, float] = {}
    for case in cases:
        bench_case(case, args.repeat, best)
    peers, missing = make_peers(cases, args.k)
    bench_peers(peers, missing, args.repeat)

    parts = []
    for name in GOAL_METRICS:
        ok = "met" if best[name] < GOAL_SECONDS else "NOT met"
        if args.n < 1_000_000:
            ok = "not assessed below N = 1,000,000"
        parts.append(f"{name} worst best time {best[name] * 1e3:.1f} ms ({ok})")
    print(f"summary: goal < {GOAL_SECONDS:g} s at N = 1,000,000: " + "; ".join(parts) + ".")
    if args.n != 1_000_000:
        print(f"(the goal is stated for N = 1,000,000; this run has N = {args.n:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
