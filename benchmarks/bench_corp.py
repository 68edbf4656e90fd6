"""Benchmark of the CORP decompositions and reliability curves of ordmetrics (PAV, O(N log N)).

Times ``corp_decomposition`` of the Brier score (K class events) and of the RPS (K - 1
cumulative events), unweighted and weighted, and ``corp_reliability`` of the top-label event
with and without 100 resamples of consistency bands, on N rows of K classes (default
N = 10^6, K = 5; Dirichlet(1, ..., 1) forecasts, uniform classes). The baseline is one
``np.argsort`` of a column, the sort every event needs; ``ordmetrics.rps`` shows the cost of the
score itself.

Peer, first checked to give the same recalibrated values as ordmetrics: scikit-learn's
``IsotonicRegression`` on one class event (tie-aggregated data, since scikit-learn orders tied
``X`` by a secondary key). The decomposition identity S = MCB - DSC + UNC is checked against
``ordmetrics.brier`` and ``ordmetrics.rps`` to 1e-12.

Run with ``.venv/bin/python benchmarks/bench_corp.py [--quick]``.
"""

from __future__ import annotations

import sys
from typing import Any

import _common as common
import numpy as np

import ordmetrics as om
from ordmetrics.metrics.corp import corp_decomposition, corp_reliability

PACKAGES = (("numpy", "numpy"), ("numba", "numba"), ("scikit-learn", "sklearn"))


def main(argv: list[str] | None = None) -> int:
    args = common.parse_args(__doc__, argv, repeat=3)
    n, k = args.n, args.k
    rng = np.random.default_rng(args.seed)
    P = common.dirichlet_proba(rng, n, k)
    y = rng.integers(0, k, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    print(f"CORP benchmark: N = {n:,} rows, K = {k}, {args.repeat} timed runs per call")
    for line in common.machine_info(PACKAGES):
        print(line)
    corp_decomposition(y[:100], P[:100])  # compile the kernels
    corp_reliability(y[:100], P[:100], n_resamples=2, random_state=0)

    calls: list[tuple[str, Any]] = [
        ("np.argsort of one column (baseline)", lambda: np.argsort(P[:, 0])),
        ("ordmetrics.rps", lambda: om.rps(y, P)),
        ("corp_decomposition brier", lambda: corp_decomposition(y, P, score="brier")),
        ("corp_decomposition rps", lambda: corp_decomposition(y, P, score="rps")),
        (
            "corp_decomposition rps, weighted",
            lambda: corp_decomposition(y, P, score="rps", sample_weight=w),
        ),
        ("corp_reliability top_label", lambda: corp_reliability(y, P)),
        (
            "corp_reliability top_label, 100 resamples",
            lambda: corp_reliability(y, P, n_resamples=100, random_state=0),
        ),
    ]
    print(f"{'call':<44}{'best s':>10}{'median s':>10}")
    best: dict[str, float] = {}
    for name, fn in calls:
        t = common.measure(fn, args.repeat)
        best[name] = t.best
        print(f"{name:<44}{t.best:>10.3f}{t.median:>10.3f}")

    for score, func in (("brier", om.brier), ("rps", om.rps)):
        d = corp_decomposition(y, P, score=score, sample_weight=w)
        gap = abs(d.mcb - d.dsc + d.unc - float(func(y, P, sample_weight=w)))
        print(f"identity {score}: |MCB - DSC + UNC - {score}| = {gap:.2e} (must be <= 1e-12)")
        if gap > 1e-12:
            print("identity DIFFERS")

    sk = common.optional_module("sklearn.isotonic")
    if sk is None:
        print("scikit-learn IsotonicRegression: not installed")
    else:
        x, o = P[:, 0], (y == 0).astype(float)
        values, inv = np.unique(x, return_inverse=True)
        wa = np.bincount(inv, weights=w)
        oa = np.bincount(inv, weights=w * o) / wa
        iso = sk.IsotonicRegression(increasing=True, y_min=0.0, y_max=1.0)
        t = common.measure(lambda: iso.fit(values, oa, sample_weight=wa), args.repeat)
        want = iso.predict(values)
        got = corp_reliability(y, P, event="class", sample_weight=w).curves[0].recalibrated
        diff = float(np.max(np.abs(got - want)))
        verdict = "agrees" if diff <= 1e-12 else f"DIFFERS by {diff:.3g}"
        print(f"scikit-learn IsotonicRegression, one event (aggregated): {t.best:.3f} s, {verdict}")

    ratio = best["corp_decomposition rps"] / best["np.argsort of one column (baseline)"]
    common.print_summary(
        f"corp_decomposition('rps') takes {best['corp_decomposition rps']:.3f} s "
        f"({ratio:.1f} argsorts of one column) at N = {n:,}, K = {k}",
        n,
        goals="timings are",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
