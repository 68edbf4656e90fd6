"""Scaling of ordmetrics with N and K: time against N = 10^3 .. 10^8 rows and K = 2 .. 100.

For every K of ``--k`` (default 2, 5, 20, 100) and every decade N = 10^3, 10^4, ..., ``--max-n``
(default 10^8), one data set: probabilities drawn from Dirichlet(1, ..., 1) (normalised
standard exponentials, float64, C-contiguous), true classes uniform on 0..K-1, and the argmax
decisions ``ordmetrics.decide(y_proba)`` (computed once, outside the timings), all from
``numpy.random.default_rng([seed, K, N])``. On it are timed, as users call them:

- ordmetrics: ``rps``, ``brier``, ``log_loss`` (``reduction="mean"``), ``decide`` (argmax),
  ``qwk(y, decisions)``, ``c_index(y, y_proba)`` (ranked by the expected grade),
  ``retention_curve(y, y_proba)`` (defaults: by rps, QWK of the argmax decisions, 21 fractions,
  with its oracle and random-removal baselines) and ``bootstrap`` of ``rps`` and of ``qwk``
  (1000 resamples, percentile);
- the peers a user would otherwise call: scikit-learn's ``brier_score_loss`` and ``log_loss``
  (``labels=range(K)``) and ``cohen_kappa_score(weights="quadratic")``; scoringrules'
  ``rps_score(y + 1, y_proba).mean()`` (against ``rps(normalize=False)``) and lifelines'
  ``concordance_index`` when installed; SciPy's ``somersd(y, expected grade)`` as
  (1 + D) / 2 (K <= 20: it builds an N x K table and is quadratic in N) and
  ``roc_auc_score(y, y_proba[:, 1])`` at K = 2, for the C-index; the retention curve
  recomputed at every fraction with ``cohen_kappa_score`` (one stable sort of the per-row RPS,
  no baselines); and per-resample loops for the bootstrap (draw the indices, then
  ``cohen_kappa_score`` or ``ordmetrics.rps`` on the resample), timed on as many resamples as
  take about 0.3 s and scaled to 1000 (marked ``~``).

Each peer is first checked, at the smallest N of each K, to give the number ordmetrics gives
(relative tolerance 1e-9; the retention curve to 1e-12 absolute; the bootstrap loops on their
first resamples, drawn as the bootstrap draws them).

Timing: in each cell every call runs 1 to 9 timed runs (9 under 0.05 s, 5 under 0.5 s, 3 under
2 s, else 1), the calls of a cell taking turns (one run of each per round), garbage collector
off; at the smallest N one untimed run first (compilation), and after a first run under 5 s
one traced run (its peak memory). A cell shows the median and, after ``±``, half the
interquartile range of its runs over the median; ``*`` marks a spread above 25 % (noisy).
Cells are skipped, shown as ``-``, when the matrix N x K x 8 bytes exceeds 6 GB, or when a
call's traced peak memory at the previous N (over the matrix, scaled to this N) with the data
exceeds 10 GB. A row stops, shown as ``>30 s`` (peers, ``--peer-budget``) or ``>60 s``
(ordmetrics, ``--budget``), once one run exceeds its budget or its median at the previous N
times its growth per decade (at least 10; 100 from the first N, quadratic at worst) would. A
bootstrap loop keeps to its budget in time spent (one resample) and stops with the bootstrap
it stands beside.

Output: Markdown, one section per K (value checks, times, growth per decade, peer /
ordmetrics); progress lines go to stderr. ``--quick``: N = 10^3 and 10^4, K = 2 and 5, at most
2 runs, budgets of 1 s.

Run with ``.venv/bin/python benchmarks/bench_scaling.py [--quick] [--max-n N] [--k K ...]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import QUICK_N, check_value, machine_info, optional_module, timed
from _scaling import (
    MEMORY_CAP,
    Call,
    Cell,
    Data,
    Prepared,
    Row,
    growth,
    growth_table,
    ordered,
    power,
    speedup_table,
    time_cell,
    times_table,
)

import ordmetrics as om
from ordmetrics.evaluation.retention import DEFAULT_FRACTIONS

KS = (2, 5, 20, 100)
QUICK_KS = (2, 5)
MAX_N = 10**8
MIN_N = 10**3
MATRIX_CAP = 6e9  # bytes of the N x K float64 matrix
PEER_BUDGET = 30.0  # seconds per cell, peers
OURS_BUDGET = 60.0  # seconds per cell, ordmetrics
QUICK_BUDGET = 1.0
N_RESAMPLES = 1000
LOOP_CHUNK = 0.3  # seconds of resamples per timed run of a bootstrap loop (0.05 quick)
LEGEND = """\
Cells: median of the runs, then ± half their interquartile range over the median (* above
25 %: noisy; (1 run): no spread); ~: a loop timed on some resamples, scaled to 1000;
- (...): skipped for memory; >30 s / >60 s: the row stopped at its time budget (est.: the
time at the previous N times its growth per decade). Growth: median at 10N over median at N
(* when either is noisy); O(N) grows 10x per decade, O(N log N) 10 log(10N) / log(N).
Timings include input validation; decisions are computed once, outside the timings."""
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("ordmetrics", "ordmetrics"),
    ("scikit-learn", "sklearn"),
    ("scipy", "scipy"),
    ("scoringrules", "scoringrules"),
    ("lifelines", "lifelines"),
)


def make_data(n: int, k: int, seed: int, chunk: float) -> Data:
    rng = np.random.default_rng([seed, k, n])
    proba = rng.standard_exponential((n, k))
    proba /= proba.sum(axis=1, keepdims=True)
    y = rng.integers(0, k, size=n)
    return Data(n, k, proba, y, om.decide(proba), seed, chunk)


# --------------------------------------------------------------------------------------------
# The calls
# --------------------------------------------------------------------------------------------


def plain(fn: Callable[[Data], Any]) -> Callable[[Data], Prepared]:
    return lambda d: ((lambda: fn(d)), 1.0)


def values_check(peer: Callable[[Data], Any], ours: Callable[[Data], Any]) -> Callable[[Data], str]:
    return lambda d: check_value(float(peer(d)), float(ours(d)))


def resamples(d: Data, count: int) -> list[np.ndarray]:
    """The row indices of the bootstrap's first ``count`` resamples, drawn as it draws them."""
    rng = np.random.default_rng(d.seed)
    return [rng.integers(0, d.n, size=d.n, dtype=np.int32) for _ in range(count)]


def loop(one: Callable[[Data, np.ndarray], Any]) -> Callable[[Data], Prepared]:
    """A per-resample loop (draw the indices, call the metric), timed on about ``d.chunk``
    seconds of resamples and scaled to N_RESAMPLES."""

    def prepare(d: Data) -> Prepared:
        def run(count: int) -> None:
            rng = np.random.default_rng(d.seed)
            for _ in range(count):
                one(d, rng.integers(0, d.n, size=d.n, dtype=np.int32))

        t1 = timed(lambda: run(1))
        count = max(1, min(N_RESAMPLES, int(d.chunk / max(t1, 1e-9))))
        return (lambda: run(count)), N_RESAMPLES / count

    return prepare


def loop_check(
    one: Callable[[Data, np.ndarray], Any], metric: str, x: Callable[[Data], np.ndarray]
) -> Callable[[Data], str]:
    def check(d: Data) -> str:
        ref = om.bootstrap(metric, d.y, x(d), n_resamples=N_RESAMPLES, random_state=d.seed)
        for idx, value in zip(resamples(d, 20), ref.distribution, strict=False):
            result = check_value(float(one(d, idx)), float(value))
            if result != "agrees":
                return result
        return "agrees"

    return check


def naive_retention(d: Data, fractions: np.ndarray) -> np.ndarray:
    """The default retention curve recomputed at every fraction with scikit-learn."""
    from sklearn.metrics import cohen_kappa_score

    order = np.argsort(om.rps(d.y, d.proba, reduction="none"), kind="stable")
    pred = d.proba.argmax(axis=1)
    labels = list(range(d.k))
    out = np.empty(fractions.size)
    for j, f in enumerate(fractions):
        keep = order[: max(1, math.floor(f * d.n + 0.5))]
        out[j] = cohen_kappa_score(d.y[keep], pred[keep], weights="quadratic", labels=labels)
    return out


def retention_check(d: Data) -> str:
    curve = om.retention_curve(d.y, d.proba)
    worst = float(np.max(np.abs(naive_retention(d, curve.fractions) - curve.values)))
    return "agrees" if worst <= 1e-12 else f"DIFFERS by up to {worst:.3g}"


def expected_grade(d: Data) -> np.ndarray:
    return d.proba @ np.arange(d.k, dtype=np.float64)


def make_calls() -> tuple[list[Call], list[str]]:
    """The ordmetrics rows, each followed by its peers; and the peers not installed."""
    boot = om.bootstrap

    def qwk_sk(d: Data, y: np.ndarray, y_pred: np.ndarray) -> float:
        return float(sk.cohen_kappa_score(y, y_pred, weights="quadratic", labels=range(d.k)))

    def qwk_one(d: Data, i: np.ndarray) -> float:
        return qwk_sk(d, d.y[i], d.y_pred[i])

    def rps_one(d: Data, i: np.ndarray) -> float:
        return float(om.rps(d.y[i], d.proba[i]))

    calls: list[Call] = []
    missing: list[str] = []
    sk: Any = optional_module("sklearn.metrics")
    scipy_stats: Any = optional_module("scipy.stats")
    sr: Any = optional_module("scoringrules")
    ll: Any = optional_module("lifelines.utils")

    def add_peer(module: Any, label: str, call: Call) -> None:
        if module is None:
            missing.append(f"{label}: not installed")
        else:
            calls.append(call)

    calls.append(Call("rps", plain(lambda d: om.rps(d.y, d.proba))))
    add_peer(
        sr,
        "scoringrules rps_score",
        Call(
            "scoringrules rps_score(...).mean()",
            plain(lambda d: sr.rps_score(d.y + 1, d.proba).mean()),
            "rps",
            values_check(
                lambda d: sr.rps_score(d.y + 1, d.proba).mean(),
                lambda d: om.rps(d.y, d.proba, normalize=False),
            ),
        ),
    )
    calls.append(Call("brier", plain(lambda d: om.brier(d.y, d.proba))))

    def sk_brier(d: Data) -> float:
        # at K = 2 scikit-learn scores the positive class alone: half the sum over 2 classes
        return sk.brier_score_loss(d.y, d.proba, labels=range(d.k)) * (2.0 if d.k == 2 else 1.0)

    add_peer(
        sk,
        "sklearn brier_score_loss",
        Call(
            "sklearn brier_score_loss",
            plain(sk_brier),
            "brier",
            values_check(sk_brier, lambda d: om.brier(d.y, d.proba)),
        ),
    )
    calls.append(Call("log_loss", plain(lambda d: om.log_loss(d.y, d.proba))))
    add_peer(
        sk,
        "sklearn log_loss",
        Call(
            "sklearn log_loss",
            plain(lambda d: sk.log_loss(d.y, d.proba, labels=range(d.k))),
            "log_loss",
            values_check(
                lambda d: sk.log_loss(d.y, d.proba, labels=range(d.k)),
                lambda d: om.log_loss(d.y, d.proba),
            ),
        ),
    )
    calls.append(Call("decide (argmax)", plain(lambda d: om.decide(d.proba))))
    calls.append(Call("qwk (decisions)", plain(lambda d: om.qwk(d.y, d.y_pred))))
    add_peer(
        sk,
        "sklearn cohen_kappa_score",
        Call(
            "sklearn cohen_kappa_score",
            plain(lambda d: qwk_sk(d, d.y, d.y_pred)),
            "qwk (decisions)",
            values_check(
                lambda d: qwk_sk(d, d.y, d.y_pred),
                lambda d: om.qwk(d.y, d.y_pred),
            ),
        ),
    )
    calls.append(Call("c_index", plain(lambda d: om.c_index(d.y, d.proba))))

    def somers(d: Data) -> float:
        return (1.0 + scipy_stats.somersd(d.y, expected_grade(d)).statistic) / 2.0

    add_peer(
        scipy_stats,
        "scipy somersd",
        Call(
            "scipy somersd",
            plain(somers),
            "c_index",
            values_check(somers, lambda d: om.c_index(d.y, d.proba)),
            ks=(2, 5, 20),  # quadratic in N, and 25 s at N = 10^3, K = 100
        ),
    )
    add_peer(
        sk,
        "sklearn roc_auc_score",
        Call(
            "sklearn roc_auc_score",
            plain(lambda d: sk.roc_auc_score(d.y, d.proba[:, 1])),
            "c_index",
            values_check(
                lambda d: sk.roc_auc_score(d.y, d.proba[:, 1]),
                lambda d: om.c_index(d.y, d.proba),
            ),
            ks=(2,),
        ),
    )
    add_peer(
        ll,
        "lifelines concordance_index",
        Call(
            "lifelines concordance_index",
            plain(lambda d: ll.concordance_index(d.y, expected_grade(d))),
            "c_index",
            values_check(
                lambda d: ll.concordance_index(d.y, expected_grade(d)),
                lambda d: om.c_index(d.y, d.proba),
            ),
        ),
    )
    calls.append(Call("retention_curve", plain(lambda d: om.retention_curve(d.y, d.proba))))
    add_peer(
        sk,
        "per-fraction retention with sklearn",
        Call(
            "sklearn per-fraction loop",
            plain(lambda d: naive_retention(d, DEFAULT_FRACTIONS)),
            "retention_curve",
            retention_check,
        ),
    )
    calls.append(
        Call(
            "bootstrap rps (1000)",
            plain(
                lambda d: boot("rps", d.y, d.proba, n_resamples=N_RESAMPLES, random_state=d.seed)
            ),
        )
    )
    calls.append(
        Call(
            "loop of om.rps (1000)",
            loop(rps_one),
            "bootstrap rps (1000)",
            loop_check(rps_one, "rps", lambda d: d.proba),
            loop=True,
        )
    )
    calls.append(
        Call(
            "bootstrap qwk (1000)",
            plain(
                lambda d: boot("qwk", d.y, d.y_pred, n_resamples=N_RESAMPLES, random_state=d.seed)
            ),
        )
    )
    add_peer(
        sk,
        "sklearn cohen_kappa_score loop",
        Call(
            "loop of sklearn kappa (1000)",
            loop(qwk_one),
            "bootstrap qwk (1000)",
            loop_check(qwk_one, "qwk", lambda d: d.y_pred),
            loop=True,
        ),
    )
    return calls, missing


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def load() -> str:
    """The 1, 5 and 15 minute load averages (runnable processes; 2 cores here)."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument(
        "--max-n", type=int, default=MAX_N, help=f"largest N, a power of 10 ({MAX_N:,})"
    )
    parser.add_argument("--k", type=int, nargs="+", default=list(KS), help="classes (2 5 20 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument(
        "--budget",
        type=float,
        default=OURS_BUDGET,
        help=f"seconds per ordmetrics cell ({OURS_BUDGET:g})",
    )
    parser.add_argument(
        "--peer-budget",
        type=float,
        default=PEER_BUDGET,
        help=f"seconds per peer cell ({PEER_BUDGET:g})",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"smoke run: N up to {QUICK_N:,}, K = {', '.join(map(str, QUICK_KS))}, "
            f"at most 3 runs, budgets {QUICK_BUDGET:g} s"
        ),
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.max_n, args.k = QUICK_N, list(QUICK_KS)
        args.budget = args.peer_budget = QUICK_BUDGET
    if args.max_n < MIN_N or min(args.k) < 2 or args.budget <= 0 or args.peer_budget <= 0:
        parser.error(f"need --max-n >= {MIN_N:,}, every --k >= 2 and positive budgets")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ns = [10**e for e in range(3, 9) if 10**e <= args.max_n]
    ks = sorted(set(args.k))
    print(
        f"ordmetrics scaling benchmark: decades of N from N = {ns[0]:,} to N = {ns[-1]:,} rows, "
        f"K = {', '.join(map(str, ks))}; seed {args.seed}; "
        + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    )
    print("\n".join(machine_info(PACKAGES)))
    print(
        f"budgets: {args.budget:g} s per ordmetrics cell, {args.peer_budget:g} s per peer cell; "
        f"matrix cap {MATRIX_CAP / 1e9:g} GB, call cap {MEMORY_CAP / 1e9:g} GB with the data"
    )
    print(f"load average {load()} at the start (other work on the machine)")
    calls, missing = make_calls()
    for line in missing:
        print(line)
    print()
    print(LEGEND)
    rows: list[Row] = []
    started = time.perf_counter()
    for k in ks:
        krows = [Row(c, k) for c in calls if c.ks is None or k in c.ks]
        rows += krows
        t_k = time.perf_counter()
        print(f"\n### K = {k}\n")
        for n in ns:
            if n * k * 8 > MATRIX_CAP:
                for r in krows:
                    r.cells[n] = Cell(text=f"- (matrix {n * k * 8 / 1e9:g} GB)")
                continue
            t0 = time.perf_counter()
            d = make_data(n, k, args.seed, 0.05 if args.quick else LOOP_CHUNK)
            if n == ns[0]:
                checks = [f"{r.call.name}: {r.call.check(d)}" for r in krows if r.call.check]
                print(f"Value checks at N = {n:,}: " + "; ".join(checks) + ".\n")
            time_cell(krows, d, args)
            del d
            seconds = time.perf_counter() - t0
            print(
                f"  K = {k}, N = {power(n)} timed in {seconds:.1f} s", file=sys.stderr, flush=True
            )
        krows = ordered(krows, calls)
        print("Times:\n")
        print(times_table(krows, ns))
        print("\nGrowth per decade of N (median at 10N / median at N):\n")
        print(growth_table(krows, ns))
        print("\nPeer / ordmetrics (ratio of the medians: how many times faster ordmetrics is):\n")
        print(speedup_table(krows, ns))
        print(f"\n(K = {k}: {time.perf_counter() - t_k:.0f} s)", flush=True)
    seconds = time.perf_counter() - started
    print(f"\nall cells timed in {seconds:.0f} s; load average {load()} at the end\n")
    timed_cells = sum(c.text is None for r in rows for c in r.cells.values())
    skipped = sum(c.text is not None for r in rows for c in r.cells.values())
    last = []
    for r in rows:
        if r.call.peer or r.k != (5 if 5 in ks else ks[0]):
            continue
        steps = [(a, b) for a, b in itertools.pairwise(ns) if growth(r, a, b)]
        if steps:
            a, b = steps[-1]
            last.append(f"{r.call.name} x{growth(r, a, b)} ({power(a)} to {power(b)})")
    print(
        f"summary: scaling of {sum(not c.peer for c in calls)} ordmetrics calls and "
        f"{sum(c.peer for c in calls)} peers, {timed_cells} cells timed, {skipped} skipped; "
        f"growth per decade at the largest N timed, K = {5 if 5 in ks else ks[0]}: "
        + ", ".join(last)
    )
    return 0


if __name__ == "__main__":
    warnings.simplefilter("ignore", om.UndefinedMetricWarning)
    sys.exit(main())
