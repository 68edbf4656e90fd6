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

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import _common as common
import numpy as np
from _common import Peer, Peers, ms

from ordmetrics.metrics.ranking import c_index, kendall_tau, spearman

METRICS: dict[str, Callable[..., float]] = {
    "c_index": c_index,
    "kendall_tau": kendall_tau,
    "spearman": spearman,
}
GOAL_SECONDS = 1.0  # c_index and kendall_tau at N = 10^6
GOAL_METRICS = ("c_index", "kendall_tau")
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("ordmetrics", "ordmetrics"),
    ("scipy", "scipy"),
    ("scikit-learn", "sklearn"),
    ("lifelines", "lifelines"),
)


@dataclass
class Case:
    name: str
    y: np.ndarray
    score: Any  # 1-D scores or a probability matrix
    weight: np.ndarray


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


def bench_case(case: Case, repeat: int, best: dict[str, float]) -> None:
    """Time every metric on ``case``, unweighted and weighted; record the worst best time."""
    print(f"case: {case.name}")
    columns = [("first call", 10), ("best", 10), ("median", 10), ("value", 14)]
    print(common.table_header(34, columns, ["ms", "ms", "ms"]))
    for name, fn in METRICS.items():
        for label, kwargs in (("", {}), (", weighted", {"sample_weight": case.weight})):

            def call(fn: Callable[..., float] = fn, kwargs: dict[str, Any] = kwargs) -> float:
                return fn(case.y, case.score, **kwargs)

            first = common.timed(call)
            t = common.measure(call, repeat)
            best[name] = max(best.get(name, 0.0), t.best)
            print(f"{name + label:<34}  {ms(first)}  {ms(t.best)}  {ms(t.median)}  {call():14.10f}")
    print()


def make_peers(cases: list[Case], k: int) -> tuple[list[Peer], list[str]]:
    """The installed peers on the continuous and tied cases, and lines for missing ones."""
    peers = Peers()
    stats = peers.library("scipy.stats", "scipy.stats.kendalltau / spearmanr")
    if stats is not None:
        for case in cases[:2]:
            y, s, tag = case.y, case.score, case.name.split(" ")[0]
            peers.found.append(
                Peer(
                    f"scipy kendalltau(variant='b'), {tag}",
                    "ordmetrics.kendall_tau",
                    lambda y=y, s=s: float(stats.kendalltau(y, s, variant="b").statistic),
                    lambda y=y, s=s: kendall_tau(y, s),
                )
            )
            peers.found.append(
                Peer(
                    f"scipy spearmanr, {tag}",
                    "ordmetrics.spearman",
                    lambda y=y, s=s: float(stats.spearmanr(y, s).statistic),
                    lambda y=y, s=s: spearman(y, s),
                )
            )
    y2 = (cases[0].y >= k // 2).astype(np.int64)  # a K = 2 problem on the same scores
    metrics = peers.library("sklearn.metrics", "sklearn.metrics.roc_auc_score")
    if metrics is not None:
        roc_auc_score = metrics.roc_auc_score
        for case in cases[:2]:
            s, w, tag = case.score, case.weight, case.name.split(" ")[0]
            peers.found.append(
                Peer(
                    f"sklearn roc_auc_score (K = 2), {tag}",
                    "ordmetrics.c_index",
                    lambda s=s: float(roc_auc_score(y2, s)),
                    lambda s=s: c_index(y2, s),
                )
            )
            peers.found.append(
                Peer(
                    f"sklearn roc_auc_score (K = 2, w), {tag}",
                    "ordmetrics.c_index(sample_weight)",
                    lambda s=s, w=w: float(roc_auc_score(y2, s, sample_weight=w)),
                    lambda s=s, w=w: c_index(y2, s, sample_weight=w),
                )
            )
    utils = peers.library("lifelines.utils", "lifelines.utils.concordance_index")
    if utils is not None:
        concordance_index = utils.concordance_index
        # Pairs with distinct y, score ties counted 1/2: the ordinal C-index (no censoring).
        y, s = cases[0].y, cases[0].score
        peers.found.append(
            Peer(
                "lifelines concordance_index, continuous",
                "ordmetrics.c_index",
                lambda: float(concordance_index(y, s)),
                lambda: c_index(y, s),
            )
        )
    return peers.found, peers.missing


def bench_peers(peers: list[Peer], missing: list[str], repeat: int) -> None:
    peer_repeat = min(common.PEER_REPEAT, repeat)
    print(f"peers, best and median of {peer_repeat} runs (ordmetrics: {repeat} runs)")
    width = max([len(p.name) for p in peers] + [len(p.ours_name) + 5 for p in peers] + [10])
    columns = [("best", 10), ("median", 10), ("ordmetrics faster", 17), ("value", 0)]
    print(common.table_header(width, columns, ["ms", "ms"]))
    for p in peers:
        ours_value = p.ours()
        peer_value = p.peer()  # also the warm-up call
        ours = common.measure(p.ours, repeat)
        theirs = common.measure(p.peer, peer_repeat)
        print(
            f"{p.name:<{width}}  {ms(theirs.best)}  {ms(theirs.median)}  "
            f"{theirs.best / ours.best:16.1f}x  {common.check_value(peer_value, ours_value)}"
        )
        print(f"{'  vs ' + p.ours_name:<{width}}  {ms(ours.best)}  {ms(ours.median)}")
    for line in missing:
        print(line)
    print()


def main(argv: list[str] | None = None) -> int:
    args = common.parse_args(__doc__, argv, repeat=7, min_n=2)
    cases = make_cases(args.n, args.k, args.seed)
    print(
        f"ordmetrics ranking benchmark: N = {args.n:,} rows, K = {args.k} classes, "
        f"seed {args.seed}; best and median of {args.repeat} runs"
    )
    print("\n".join(common.machine_info(PACKAGES)))
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
        if args.n < common.GOAL_N:
            ok = f"not assessed below N = {common.GOAL_N:,}"
        parts.append(f"{name} worst best time {best[name] * 1e3:.1f} ms ({ok})")
    goal = f"goal < {GOAL_SECONDS:g} s at N = {common.GOAL_N:,}: "
    common.print_summary(goal + "; ".join(parts) + ".", args.n, above=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
