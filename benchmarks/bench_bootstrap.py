"""Benchmark of ordmetrics' bootstrap: 1000-resample intervals of QWK and RPS, and AURSC.

On N rows of K classes (default N = 53,576, K = 5; probabilities from Dirichlet(1, ..., 1),
true classes uniform, hard predictions the true class moved by -1, 0 or +1 and clipped):

- ``bootstrap("qwk", y, y_pred, n_resamples=1000)`` (percentile and BCa) against the loop a
  user would write with scikit-learn: for each resample, ``cohen_kappa_score(y[idx],
  y_pred[idx], weights="quadratic", labels=range(K))``. The scikit-learn loop is timed on
  ``--sk-resamples`` resamples (default 100, 20 with ``--quick``) and extrapolated linearly to
  1000; the output says so. Before timing, those resamples (the same row indices that the
  bootstrap draws) are checked to give the bootstrap's values (relative tolerance 1e-9).
  The goal is ordmetrics at least 20x faster.
- ``bootstrap("rps", y, y_proba, n_resamples=1000)`` (percentile and BCa), with the loop
  ``ordmetrics.rps(y[idx], y_proba[idx])`` for scale (timed and extrapolated the same way).
- ``bootstrap("c_index", ...)`` and ``bootstrap("ece", ...)`` (1000 resamples, 100 with
  ``--quick``) with integer classes and with string labels: the ranking and calibration metrics
  are prepared once and evaluated on the resample counts. Against the per-resample metric call
  that they replace (the same metric passed as an unregistered callable, timed on
  ``--generic-resamples`` resamples, default 100, 10 with ``--quick``, and extrapolated); the
  values of those resamples are checked to be identical (bit for bit).
- ``bootstrap(aursc, y, y_proba, n_resamples=50)`` when
  ``ordmetrics.evaluation.retention`` is importable (otherwise "aursc not available").

Each ordmetrics call is timed ``--repeat`` times (default 3, 1 with ``--quick``) after a first
call that compiles the kernels or loads them from the cache; best and median are printed.

Run with ``.venv/bin/python benchmarks/bench_bootstrap.py [--quick]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import check_value, dirichlet_proba, gc_off, machine_info, timed

import ordmetrics
from ordmetrics.evaluation.resampling import bootstrap

N_DEFAULT = 53_576
N_RESAMPLES = 1000
N_RESAMPLES_AURSC = 50
COUNTS_METRICS = ("c_index", "ece")
GOAL_SPEEDUP = 20.0  # bootstrap("qwk") against the scikit-learn loop, 1000 resamples
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("ordmetrics", "ordmetrics"),
    ("scikit-learn", "sklearn"),
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=N_DEFAULT, help=f"rows ({N_DEFAULT:,})")
    parser.add_argument("--k", type=int, default=5, help="classes (5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and resamples (0)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per call (3)")
    parser.add_argument(
        "--sk-resamples",
        type=int,
        default=100,
        help="resamples of the scikit-learn loop, extrapolated to 1000 (100)",
    )
    parser.add_argument(
        "--generic-resamples",
        type=int,
        default=100,
        help="resamples of the per-resample metric calls, extrapolated (100)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 1 timed run, 20 scikit-learn resamples"
    )
    args = parser.parse_args(argv)
    args.counts_resamples = N_RESAMPLES
    if args.quick:
        args.repeat, args.sk_resamples = 1, 20
        args.generic_resamples, args.counts_resamples = 10, 100
    if not 1 <= args.generic_resamples <= args.counts_resamples:
        parser.error("need 1 <= --generic-resamples <= 1000 (100 with --quick)")
    if args.n < 2 or args.k < 2 or args.repeat < 1 or not 1 <= args.sk_resamples <= N_RESAMPLES:
        parser.error("need --n >= 2, --k >= 2, --repeat >= 1 and 1 <= --sk-resamples <= 1000")
    return args


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    proba = dirichlet_proba(rng, n, k)
    y_true = rng.integers(0, k, size=n)
    y_pred = np.clip(y_true + rng.integers(-1, 2, size=n), 0, k - 1)
    return y_true, y_pred, proba


def resample_indices(seed: int, n: int, count: int) -> list[np.ndarray]:
    """The row indices of the first ``count`` resamples, drawn as the bootstrap draws them."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n, size=n, dtype=np.int32) for _ in range(count)]


def time_calls(fn: Callable[[], Any], repeat: int) -> tuple[float, float, float, Any]:
    """(first call, best, median) in seconds and the last result."""
    first = timed(fn)
    times = []
    with gc_off():
        for _ in range(repeat):
            times.append(timed(fn))
    return first, min(times), statistics.median(times), fn()


def loop_seconds(fn: Callable[[np.ndarray], Any], indices: list[np.ndarray]) -> float:
    """Seconds of a Python loop calling ``fn`` on each resample, extrapolated to 1000."""
    with gc_off():
        seconds = timed(lambda: [fn(idx) for idx in indices])
    return seconds * N_RESAMPLES / len(indices)


def row(name: str, first: float, best: float, median: float, extra: str = "") -> str:
    return f"{name:<44}  {first:9.3f}  {best:9.3f}  {median:9.3f}  {extra}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n, k, seed = args.n, args.k, args.seed
    print(
        f"ordmetrics bootstrap benchmark: N = {n:,} rows, K = {k} classes, "
        f"{N_RESAMPLES} resamples, seed {seed}"
    )
    print("\n".join(machine_info(PACKAGES)))
    y, y_pred, proba = make_data(n, k, seed)
    labels = list(range(k))
    print()

    # --- the scikit-learn loop: values first, then time ---
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        cohen_kappa_score = None
    indices = resample_indices(seed, n, args.sk_resamples)

    print(f"ordmetrics calls, seconds (first call, then best and median of {args.repeat} runs)")
    header = f"{'call':<44}  {'first':>9}  {'best':>9}  {'median':>9}"
    print(header)
    print("-" * len(header))
    results: dict[str, tuple[float, float, float, Any]] = {}
    for name, x in (("qwk", y_pred), ("rps", proba)):
        for method in ("percentile", "bca"):
            label = f'bootstrap("{name}", method="{method}")'
            results[label] = time_calls(
                lambda name=name, x=x, method=method: bootstrap(
                    name, y, x, n_resamples=N_RESAMPLES, method=method, random_state=seed
                ),
                args.repeat,
            )
            first, best, median, res = results[label]
            print(row(label, first, best, median, f"[{res.low:.6f}, {res.high:.6f}]"))
    aursc_line = "aursc not available"
    if importlib.util.find_spec("ordmetrics.evaluation.retention") is not None:
        from ordmetrics.evaluation.retention import aursc

        label = f"bootstrap(aursc, n_resamples={N_RESAMPLES_AURSC})"
        first, best, median, res = time_calls(
            lambda: bootstrap(
                aursc, y, proba, n_resamples=N_RESAMPLES_AURSC, random_state=seed, by="rps"
            ),
            args.repeat,
        )
        print(row(label, first, best, median, f"[{res.low:.6f}, {res.high:.6f}]"))
        aursc_line = f"aursc: {N_RESAMPLES_AURSC} resamples in {best:.2f} s"
    else:
        print(aursc_line)
    print()

    qwk_res = results['bootstrap("qwk", method="percentile")'][3]
    qwk_best = results['bootstrap("qwk", method="percentile")'][1]
    rps_res = results['bootstrap("rps", method="percentile")'][3]
    rps_best = results['bootstrap("rps", method="percentile")'][1]
    print(
        f"loops over resamples, timed on the first {args.sk_resamples} resamples and "
        f"extrapolated to {N_RESAMPLES} (seconds for {N_RESAMPLES})"
    )
    print(f"{'loop':<60}  {'seconds':>9}  {'ordmetrics faster':>17}  value check")
    print("-" * 104)
    summary = "summary: scikit-learn not installed"
    if cohen_kappa_score is not None:
        sk_values = [
            cohen_kappa_score(y[i], y_pred[i], weights="quadratic", labels=labels) for i in indices
        ]
        check = worst_check(sk_values, qwk_res.distribution[: len(indices)])
        sk = loop_seconds(
            lambda i: cohen_kappa_score(y[i], y_pred[i], weights="quadratic", labels=labels),
            indices,
        )
        speedup = sk / qwk_best
        print(
            f"{'sklearn cohen_kappa_score(weights=quadratic) on y[idx]':<60}  {sk:9.3f}  "
            f"{speedup:16.1f}x  {check}"
        )
        met = "met" if speedup >= GOAL_SPEEDUP else "NOT met"
        summary = (
            f"summary: bootstrap('qwk') is {speedup:.1f}x faster than the scikit-learn loop "
            f"({qwk_best:.3f} s vs {sk:.2f} s for {N_RESAMPLES} resamples, scikit-learn "
            f"extrapolated from {args.sk_resamples}); goal >= {GOAL_SPEEDUP:.0f}x {met}. "
            f"rps: {rps_best:.3f} s. {aursc_line}."
        )
    om_values = [ordmetrics.rps(y[i], proba[i]) for i in indices]
    check = worst_check(om_values, rps_res.distribution[: len(indices)])
    loop = loop_seconds(lambda i: ordmetrics.rps(y[i], proba[i]), indices)
    print(
        f"{'ordmetrics.rps(y[idx], y_proba[idx])':<60}  {loop:9.3f}  "
        f"{loop / rps_best:16.1f}x  {check}"
    )
    print()
    counts_line = counts_section(y, proba, seed, args)
    print()
    print(f"{summary} {counts_line}")
    return 0


def counts_section(y: np.ndarray, proba: np.ndarray, seed: int, args: argparse.Namespace) -> str:
    """Ranking and calibration metrics: prepared once, evaluated on the resample counts,
    against one metric call per resample (the metric as an unregistered callable)."""
    b, g = args.counts_resamples, args.generic_resamples
    names = np.array([f"grade {c}" for c in range(proba.shape[1])], dtype=object)
    print(
        f"ranking and calibration metrics: {b} resamples prepared once vs one metric call per "
        f"resample (timed on {g}, extrapolated to {b}); seconds"
    )
    header = f"{'call':<44}  {'counts':>9}  {'per call':>9}  {'ratio':>7}  values"
    print(header)
    print("-" * len(header))
    ratios = []
    for metric in COUNTS_METRICS:
        func = getattr(ordmetrics, metric)

        def per_call(y_true: Any, x: Any, func: Any = func, **kwargs: Any) -> float:
            return func(y_true, x, **kwargs)

        for tag, truth, kw in (("codes", y, {}), ("strings", names[y], {"labels": list(names)})):
            _, best, _, fast = time_calls(
                lambda metric=metric, truth=truth, kw=kw: bootstrap(
                    metric, truth, proba, n_resamples=b, random_state=seed, **kw
                ),
                args.repeat,
            )
            with gc_off():
                t0 = time.perf_counter()
                slow = bootstrap(per_call, truth, proba, n_resamples=g, random_state=seed, **kw)
                slow_s = time.perf_counter() - t0
            same = np.array_equal(fast.distribution[:g], slow.distribution, equal_nan=True)
            slow_b = slow_s * b / g
            ratio = slow_b / best
            ratios.append(f"{metric} ({tag}) {ratio:.1f}x")
            label = f'bootstrap("{metric}") {tag}'
            check = "identical" if same else "DIFFER"
            print(f"{label:<44}  {best:9.3f}  {slow_b:9.3f}  {ratio:6.1f}x  {check}")
    return f"Prepared once vs per-resample calls: {', '.join(ratios)}."


def worst_check(reference: list[float], ours: np.ndarray) -> str:
    """``agrees`` when every resample agrees, else the first difference."""
    for ref, value in zip(reference, ours, strict=True):
        check = check_value(float(ref), float(value))
        if check != "agrees":
            return check
    return "agrees"


if __name__ == "__main__":
    sys.exit(main())
