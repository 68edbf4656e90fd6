"""Every agreement metric as a function of confusion counts: the single source of each formula.

:func:`counts_evaluator` checks a metric's options once and returns ``f(M)``, which maps confusion
counts of shape (..., K, K) (rows: true class, columns: predicted class) to one value per matrix,
NaN where the metric is undefined. The public functions, the device path, retention curves, the
bootstrap and the streaming evaluator all call it. Definitions: ``docs/definitions.md``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ordmetrics._core.numerics import scale_counts
from ordmetrics._core.validation import check_flag
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.agreement.labels import (
    AGREEMENT_METRICS,
    _check_k,
    _cost_matrix,
    _kappa_weights,
)
from ordmetrics.metrics.decisions import builtin_matrix

__all__ = ["UNDEFINED", "counts_evaluator", "warn_if_undefined"]


# --------------------------------------------------------------------------------------------
# Every metric as a function of confusion counts M[..., true, predicted]: the single source of
# each formula. They take a stack of matrices (any leading shape) and return one value per
# matrix, NaN where undefined; the public functions, retention curves and the bootstrap all
# call them.
# --------------------------------------------------------------------------------------------


def _total(M: np.ndarray) -> np.ndarray:
    return M.sum(axis=(-2, -1))


def _kappa_counts(M: np.ndarray, W: np.ndarray) -> np.ndarray:
    """1 - sum(W O) / sum(W E) with O = M / n: = 1 - n sum(W M) / sum(W outer(r, c))."""
    # sum_i r_i sum_j W_ij c_j by reductions over each matrix's own last axis, in an order
    # fixed by K alone: einsum's and BLAS's order depends on the number of matrices (and on
    # the processor's kernels), and a matrix must give the same bits alone or in any batch
    r = M.sum(axis=-1)
    chance = (r * (W * M.sum(axis=-2)[..., None, :]).sum(axis=-1)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - (W * M).sum(axis=(-2, -1)) * _total(M) / chance
    return np.where(chance == 0.0, np.nan, value)


def _cost_counts(M: np.ndarray, C: np.ndarray, normalize: bool) -> np.ndarray:
    cost = (C * M).sum(axis=(-2, -1))
    if normalize:
        # EC / (min_k sum_j pi_j C[j, k]) with pi = row totals / n: the n cancels; (r C)_k
        # summed row after row, not by a matrix product (whose order depends on the batch)
        denom = (M.sum(axis=-1)[..., :, None] * C).sum(axis=-2).min(axis=-1)
    else:
        denom = _total(M)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom == 0.0, np.nan, cost / denom)


def _per_class_mae(M: np.ndarray) -> np.ndarray:
    """MAE of each true class (NaN for classes absent from y_true), shape (..., K)."""
    dist = builtin_matrix("absolute", M.shape[-1])
    r = M.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r > 0, (dist * M).sum(axis=-1) / r, np.nan)


def _nan_reduce(values: np.ndarray, how: str) -> np.ndarray:
    """Mean or max over the last axis ignoring NaN (all NaN gives NaN, silently)."""
    present = ~np.isnan(values)
    if how == "mean":
        n = present.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(present, values, 0.0).sum(axis=-1) / np.where(n > 0, n, np.nan)
    out = np.where(present, values, -np.inf).max(axis=-1)
    return np.where(present.any(axis=-1), out, np.nan)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den == 0.0, np.nan, num / den)


def _within_counts(M: np.ndarray, k: int) -> np.ndarray:
    near = builtin_matrix("absolute", M.shape[-1]) <= k
    return _ratio((M * near).sum(axis=(-2, -1)), _total(M))


def _macro_f1_counts(M: np.ndarray) -> np.ndarray:
    support = M.sum(axis=-1) + M.sum(axis=-2)
    diag = np.diagonal(M, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(support > 0, 2.0 * diag / support, np.nan)
    return _nan_reduce(f1, "mean")


def _macro_pr_counts(M: np.ndarray, axis: int) -> np.ndarray:
    """Macro precision (``axis=-2``: O_ii / c_i) or recall (``axis=-1``: O_ii / r_i).

    Over the classes present in y_true or y_pred (r_i + c_i > 0), as macro F1; a present
    class with a zero denominator counts 0 (scikit-learn's ``zero_division=0``).
    """
    den = M.sum(axis=axis)
    support = M.sum(axis=-1) + M.sum(axis=-2)
    diag = np.diagonal(M, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(den > 0, diag / np.where(den > 0, den, 1.0), 0.0)
    return _nan_reduce(np.where(support > 0, v, np.nan), "mean")


#: Why a metric can be undefined (NaN), for the warning.
UNDEFINED = {
    "kappa": "the chance disagreement sum(W * E) is 0 (e.g. y_true and y_pred hold one and "
    "the same class throughout)",
    "expected_cost": "the best constant prediction costs 0 (e.g. y_true holds a single "
    "class), so there is no cost to normalize by",
}


def counts_evaluator(name: str, n_classes: int, **options: Any) -> Callable[[Any], Any]:
    """The batched form of agreement metric ``name`` with its options checked once.

    Returns ``f(M)`` mapping confusion counts of shape (..., K, K) (rows: true class, columns:
    predicted class, any non-negative weights) to values of shape (...), NaN where the metric
    is undefined. Used by retention curves and the bootstrap, which evaluate a metric on many
    confusion matrices; the public functions below are this evaluator on one matrix.
    """
    k = n_classes
    if name == "kappa":
        W = _kappa_weights(options.pop("weights", None), k)
        f = lambda M: _kappa_counts(M, W)  # noqa: E731
    elif name == "qwk":
        W = _kappa_weights("quadratic", k)
        f = lambda M: _kappa_counts(M, W)  # noqa: E731
    elif name in ("expected_cost", "mae"):
        C = (
            _cost_matrix(options.pop("costs", "absolute"), k)
            if name == "expected_cost"
            else (builtin_matrix("absolute", k))
        )
        norm = (
            check_flag(options.pop("normalize", False), "normalize")
            if name == "expected_cost"
            else False
        )
        f = lambda M: _cost_counts(M, C, norm)  # noqa: E731
    elif name == "amae":
        f = lambda M: _nan_reduce(_per_class_mae(M), "mean")  # noqa: E731
    elif name == "mmae":
        f = lambda M: _nan_reduce(_per_class_mae(M), "max")  # noqa: E731
    elif name == "accuracy":
        f = lambda M: _ratio(np.trace(M, axis1=-2, axis2=-1), _total(M))  # noqa: E731
    elif name == "within_k_accuracy":
        kk = _check_k(options.pop("k", 1))
        f = lambda M: _within_counts(M, kk)  # noqa: E731
    elif name == "macro_f1":
        f = _macro_f1_counts
    elif name == "macro_precision":
        f = lambda M: _macro_pr_counts(M, -2)  # noqa: E731
    elif name == "macro_recall":
        f = lambda M: _macro_pr_counts(M, -1)  # noqa: E731
    else:
        raise ValueError(
            f"{name!r} is not an agreement metric; choose one of {', '.join(AGREEMENT_METRICS)}."
        )
    if options:
        raise TypeError(f"{name}() got unexpected keyword arguments {sorted(options)}.")
    # every metric is a ratio of sums and products of counts: scaling each matrix by a power
    # of two is exact and keeps products such as outer(r, c) finite and normal at any scale;
    # no formula uses a matrix product or einsum, so each matrix's value depends on its own
    # counts only and the chunks change no bit
    return lambda M: _in_chunks(f, M, k)


#: Entries of the confusion counts evaluated at once (1 MB of float64): a chunk of matrices
#: stays in the processor's cache through the passes of a formula (each a pass over it).
EVAL_CHUNK = 1 << 17


def _in_chunks(f: Callable[[np.ndarray], np.ndarray], M: Any, k: int) -> Any:
    """``f`` of the scaled counts ``M`` (..., K, K), :data:`EVAL_CHUNK` entries at a time.

    Each value depends on its own matrix only, and NumPy reduces each matrix (the same
    contiguous K x K block) in the same order whatever the number of matrices beside it, so
    the chunks give the values of one batched call, bit for bit (tested), in a fraction of
    the memory traffic.
    """
    if not (isinstance(M, np.ndarray) and M.dtype == np.float64):
        M = np.asarray(M, dtype=np.float64)
    if M.ndim < 3 or M.size <= EVAL_CHUNK or M.shape[-2:] != (k, k):
        return f(scale_counts(M))
    lead = M.shape[:-2]
    flat = M.reshape(-1, k, k)
    n = flat.shape[0]
    # a chunk of any size, a remainder of one matrix included, gives the bits of the whole
    # batch: the formulas are reductions over each matrix's own axes (no einsum or matrix
    # product, whose order of summation depends on the number of matrices)
    bounds = [*range(0, n, max(1, EVAL_CHUNK // (k * k))), n]
    out = np.empty(n)
    for lo, hi in itertools.pairwise(bounds):
        out[lo:hi] = f(scale_counts(flat[lo:hi]))
    return out.reshape(lead)


def warn_if_undefined(name: str, value: float, shown: str | None = None) -> float:
    """Return ``value``, warning with the reason when agreement metric ``name`` gave NaN.

    ``shown`` is the name used in the warning (e.g. a metric set's display name).
    """
    if math.isnan(value):
        base = "kappa" if name in ("kappa", "qwk") else name
        if base in UNDEFINED:
            label = "expected_cost(normalize=True)" if base == "expected_cost" else name
            warn_undefined(shown or label, UNDEFINED[base])
    return value
