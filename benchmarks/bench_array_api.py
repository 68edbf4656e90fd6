"""Benchmark of the scoring rules and QWK on PyTorch tensors against the NumPy path.

Times the six scoring rules (``reduction="mean"``) on N Dirichlet rows of K classes (default
N = 10^6, K = 5) three ways: NumPy arrays (the compiled kernels), PyTorch CPU tensors in
float64 and in float32 (the array-API path of ``ordmetrics._core.array_api``), and the same
on a CUDA device when PyTorch sees one. Then ``qwk`` and ``confusion_matrix`` on hard labels. Every
tensor result is first checked against the NumPy value (rtol 1e-9 in float64, 1e-5 in float32).
Each timed call includes the validation and the conversion of the 0-d result to a float (so
device work is finished when the clock stops).

Run with ``.venv/bin/python benchmarks/bench_array_api.py [--quick]``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np
from _common import ms

import ordmetrics
from ordmetrics.metrics import agreement

RULES = ("rps", "sa_rps", "brier", "log_loss", "pbs", "pll")
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("torch", "torch"),
    ("array-api-c.", "array_api_compat"),
    ("ordmetrics", "ordmetrics"),
)
RTOL = {"float64": 1e-9, "float32": 1e-5}


def make_data(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dirichlet(1, ..., 1) rows (float64), integer truth and a noisy hard prediction."""
    rng = np.random.default_rng(seed)
    proba = common.dirichlet_proba(rng, n, k)
    y = rng.integers(0, k, size=n)
    y_pred = np.clip(y + rng.integers(-1, 2, size=n), 0, k - 1)
    return proba, y, y_pred


def as_float(fn: Callable[[], Any]) -> Callable[[], float]:
    """``fn`` with its result converted to a float: waits for the device to finish."""
    return lambda: float(fn())


def check(value: float, expected: float, dtype: str) -> str:
    return common.check_value(value, expected, RTOL[dtype])


def bench_device(
    torch: Any, device: str, proba: np.ndarray, y: np.ndarray, y_pred: np.ndarray, repeat: int
) -> tuple[list[str], list[float]]:
    """Table lines for one torch device, and the float64 time ratios torch / NumPy."""
    lines: list[str] = []
    ratios: list[float] = []
    y_t = torch.asarray(y, device=device)
    yp_t = torch.asarray(y_pred, device=device)
    tensors = {
        dtype: torch.asarray(proba, dtype=getattr(torch, dtype), device=device)
        for dtype in ("float64", "float32")
    }
    head = (
        f"{'call':<24}{'numpy':>11}{'torch f64':>11}{'f64/numpy':>11}{'torch f32':>11}"
        f"{'f32/numpy':>11}  value check (f64; f32)"
    )
    lines += [f"device {device}: best of {repeat} runs, ms", head, "-" * len(head)]
    for rule in RULES:
        fn = getattr(ordmetrics, rule)
        numpy_call = as_float(functools.partial(fn, y, proba))
        expected = numpy_call()
        numpy_time = common.measure(numpy_call, repeat).best
        cells, checks = [], []
        for dtype, P_t in tensors.items():
            call = as_float(functools.partial(fn, y_t, P_t))
            checks.append(check(call(), expected, dtype))
            best = common.measure(call, repeat).best
            cells.append((best, best / numpy_time))
        ratios.append(cells[0][1])
        lines.append(
            f"{rule + ' (mean)':<24}{ms(numpy_time):>11}{ms(cells[0][0]):>11}"
            f"{cells[0][1]:>10.2f}x{ms(cells[1][0]):>11}{cells[1][1]:>10.2f}x  "
            f"{checks[0]}; {checks[1]}"
        )
    numpy_call = as_float(functools.partial(agreement.qwk, y, y_pred))
    torch_call = as_float(functools.partial(agreement.qwk, y_t, yp_t))
    numpy_time = common.measure(numpy_call, repeat).best
    torch_time = common.measure(torch_call, repeat).best
    ratios.append(torch_time / numpy_time)
    lines.append(
        f"{'qwk':<24}{ms(numpy_time):>11}{ms(torch_time):>11}{ratios[-1]:>10.2f}x{'':>22}  "
        f"{check(torch_call(), numpy_call(), 'float64')}"
    )
    cm_numpy = common.measure(lambda: agreement.confusion_matrix(y, y_pred), repeat).best
    cm_torch = common.measure(
        lambda: agreement.confusion_matrix(y_t, yp_t).sum().item(), repeat
    ).best
    same = np.array_equal(
        agreement.confusion_matrix(y_t, yp_t).cpu().numpy(), agreement.confusion_matrix(y, y_pred)
    )
    lines.append(
        f"{'confusion_matrix':<24}{ms(cm_numpy):>11}{ms(cm_torch):>11}"
        f"{cm_torch / cm_numpy:>10.2f}x{'':>22}  {'agrees' if same else 'DIFFERS'}"
    )
    return lines, ratios


def main(argv: list[str] | None = None) -> int:
    args = common.parse_args(__doc__, argv, repeat=7)
    proba, y, y_pred = make_data(args.n, args.k, args.seed)
    print(
        f"ordmetrics array-API benchmark: N = {args.n:,} rows, K = {args.k} classes, "
        f"seed {args.seed}"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    torch = common.optional_module("torch")
    if torch is None or common.optional_module("array_api_compat") is None:
        print("torch or array-api-compat not installed: nothing to compare")
        common.print_summary("skipped (torch or array-api-compat not installed)", args.n)
        return 0
    print(f"torch threads {torch.get_num_threads()}")
    print()
    lines, ratios = bench_device(torch, "cpu", proba, y, y_pred, args.repeat)
    print("\n".join(lines))
    print()
    cuda = torch.cuda.is_available()
    if cuda:
        lines, cuda_ratios = bench_device(torch, "cuda", proba, y, y_pred, args.repeat)
        print(f"cuda device: {torch.cuda.get_device_name()}")
        print("\n".join(lines))
    else:
        print("no CUDA device")
    print()
    summary = (
        f"torch CPU float64 takes {min(ratios):.2f}x to {max(ratios):.2f}x the NumPy path's "
        "time (rules and qwk)"
    )
    if cuda:
        summary += f"; CUDA float64 {min(cuda_ratios):.2f}x to {max(cuda_ratios):.2f}x"
    common.print_summary(summary + ".", args.n, goals="comparisons are")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
