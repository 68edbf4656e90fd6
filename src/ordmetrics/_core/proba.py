"""Probability matrices: conversion, the row-sum tolerance and the full diagnosis.

Value checks on the probabilities (range, row sums, NaN) run inside the compiled scoring kernels
in one pass; only when a kernel reports a problem does :func:`find_problems` look at the data
again to write a precise message or to apply the ``nan_policy``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ordmetrics._core.arrays import (
    check_array_like,
    check_real,
    is_pandas,
    is_polars,
    unmask,
)
from ordmetrics._core.messages import fmt_rows, fmt_values, type_name
from ordmetrics._core.options import check_flag

#: The smallest absolute tolerance on the row sums of ``y_proba`` (see :func:`sum_tolerance`).
SUM_TOLERANCE = 1e-6
#: Per class: half a unit of the sixth decimal, the rounding of probabilities written with six
#: decimals (a CSV export's usual precision).
ROUNDING_PER_CLASS = 5e-7


def sum_tolerance_eps(eps: float, n_classes: int) -> float:
    """:func:`sum_tolerance` for a floating type of machine epsilon ``eps``.

    Examples
    --------
    >>> [round(sum_tolerance_eps(2.0**-52, k), 12) for k in (2, 3, 5)]
    [1e-06, 1.5e-06, 2.5e-06]
    """
    return max(SUM_TOLERANCE, n_classes * (ROUNDING_PER_CLASS + 4.0 * eps))


def sum_tolerance(dtype: np.dtype, n_classes: int) -> float:
    """Row-sum tolerance: ``max(1e-6, K (5e-7 + 4 eps))`` for K classes of ``dtype``.

    K values each rounded to six decimals sum to 1 within K * 5e-7 (1.000001 for three
    classes is such a row), and K values each off by a few units of roundoff (a float32
    softmax) within about 4 K eps; a row within both is accepted and scored as it is.
    """
    return sum_tolerance_eps(float(np.finfo(dtype).eps), n_classes)


def as_proba(y_proba: Any, *, renormalize: bool = False, name: str = "y_proba") -> np.ndarray:
    """Convert ``y_proba`` to a C-contiguous float array of shape ``(N, K)``.

    Value checks (range, NaN, row sums) are left to the kernels and :func:`find_problems`.
    """
    renormalize = check_flag(renormalize, "renormalize")
    if is_pandas(y_proba, "DataFrame") or is_polars(y_proba, "DataFrame"):
        arr = y_proba.to_numpy()
    else:
        check_array_like(y_proba, name, "a 2-D array of probabilities (n_samples, n_classes)")
        try:
            arr = np.asarray(unmask(y_proba, name))
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"{name} must be a 2-D array of probabilities (n_samples, n_classes); "
                f"could not convert {type_name(y_proba)} to an array ({exc})."
            ) from None
    check_real(arr, name)
    if arr.dtype == object or arr.dtype.kind not in "fiub":
        try:
            arr = arr.astype(np.float64)
        except (ValueError, TypeError):
            raise TypeError(
                f"{name} must hold numbers; got values of dtype {arr.dtype} that are not "
                "numeric. Convert the probability columns to float first."
            ) from None
    if arr.ndim != 2:
        hint = (
            " For a binary problem with P(class 1) = p, pass np.column_stack([1 - p, p])."
            if arr.ndim == 1
            else ""
        )
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_classes); got a {arr.ndim}-D array "
            f"of shape {arr.shape}.{hint}"
        )
    n, k = arr.shape
    if k < 2:
        raise ValueError(
            f"{name} must have at least 2 columns (one per ordered class); got {k}. "
            "An ordinal problem needs K >= 2 classes."
        )
    if n == 0:
        raise ValueError(f"{name} is empty (0 rows); there is nothing to score.")
    if arr.dtype != np.float32:
        arr = arr.astype(np.float64, copy=False)
    arr = np.ascontiguousarray(arr)
    if not arr.flags.writeable:
        # read-only views (pyarrow, memory maps) would make numba compile every kernel again
        arr = arr.copy()
    if renormalize:
        arr = renormalize_rows(arr, name)
    return arr


def renormalize_rows(p: np.ndarray, name: str) -> np.ndarray:
    """Rows of ``p`` divided by their sums (``renormalize=True``); raises for negative values or
    a zero sum."""
    with np.errstate(invalid="ignore"):
        negative = (p < 0).any(axis=1)
    if negative.any():
        raise ValueError(
            f"{name} has negative values in {fmt_rows(np.flatnonzero(negative))}; "
            "renormalize=True only rescales rows of non-negative values."
        )
    s = p.sum(axis=1, keepdims=True, dtype=np.float64)
    zero = s[:, 0] == 0
    if zero.any():
        raise ValueError(
            f"{name} sums to 0 in {fmt_rows(np.flatnonzero(zero))}, which cannot be renormalized."
        )
    with np.errstate(invalid="ignore"):
        return np.ascontiguousarray(p / s, dtype=p.dtype)


# --------------------------------------------------------------------------------------------
# Full diagnosis (slow path, only after a kernel reported a problem or for NaN handling)
# --------------------------------------------------------------------------------------------


def proba_looks_valid(P: np.ndarray) -> bool:
    """Cheap screen: entries in [0, 1] and row sums within tolerance (NaN fails).

    Valid input passes with three vectorised passes; only input that fails it needs the full
    diagnosis of :func:`find_problems`.
    """
    k = P.shape[1]
    with np.errstate(invalid="ignore"):
        if not (P.min() >= 0.0 and P.max() <= 1.0):
            return False
        sums = P @ np.ones(k, dtype=P.dtype)
        tol = sum_tolerance(P.dtype, k)
        return bool(sums.min() >= 1.0 - tol and sums.max() <= 1.0 + tol)


def looks_like_percentages(proba: np.ndarray) -> bool:
    """Whether finite ``proba`` looks like probabilities in percent: every value in [0, 100],
    some above 1, and every row summing to 100 within 1 (percentages rounded to whole
    numbers or a few decimals).

    Examples
    --------
    >>> import numpy as np
    >>> looks_like_percentages(np.array([[20.0, 30.0, 50.0], [33.3, 33.3, 33.3]]))
    True
    >>> looks_like_percentages(np.array([[2.0, -1.0, 0.5]]))  # logits
    False
    """
    if proba.size == 0:
        return False
    with np.errstate(invalid="ignore"):
        in_range = bool(proba.min() >= 0.0 and proba.max() <= 100.0)
        if not (in_range and proba.max() > 1.0):
            return False
        sums = proba.sum(axis=1, dtype=np.float64)
        return bool(np.all(np.abs(sums - 100.0) <= 1.0))


def find_problems(
    y: np.ndarray,
    proba: np.ndarray,
    weight: np.ndarray | None,
    *,
    y_missing: np.ndarray | None,
    nan_policy: str,
    labels: tuple[Hashable, ...] | None,
    name: str = "y_proba",
    renormalize_hint: bool = True,
) -> np.ndarray | None:
    """Raise for invalid values; return the mask of rows with missing values (or ``None``).

    Missing values (NaN in ``y_proba`` or ``sample_weight``, missing ``y_true``) raise under
    ``nan_policy="raise"`` and are returned as a mask otherwise. Everything else that is wrong
    (infinite or out-of-range probabilities, rows not summing to 1, labels out of range,
    negative weights, zero total weight) raises whatever the policy.
    """
    k = proba.shape[1]
    proba_nan = np.isnan(proba).any(axis=1)
    missing = proba_nan.copy()
    if y_missing is not None:
        missing |= y_missing
    w_nan = None
    if weight is not None:
        w_nan = np.isnan(weight)
        missing |= w_nan
    if missing.any() and nan_policy == "raise":
        parts = []
        if proba_nan.any():
            parts.append(f"{name} has NaN in {fmt_rows(np.flatnonzero(proba_nan))}")
        if y_missing is not None and y_missing.any():
            parts.append(f"y_true is missing in {fmt_rows(np.flatnonzero(y_missing))}")
        if w_nan is not None and w_nan.any():
            parts.append(f"sample_weight is NaN in {fmt_rows(np.flatnonzero(w_nan))}")
        raise ValueError(
            "; ".join(parts) + ". Pass nan_policy='omit' to drop those rows or "
            "nan_policy='propagate' to get NaN."
        )
    ok = ~missing
    with np.errstate(invalid="ignore"):
        inf_rows = np.isinf(proba).any(axis=1) & ok
        if inf_rows.any():
            raise ValueError(
                f"{name} has infinite values in {fmt_rows(np.flatnonzero(inf_rows))}; "
                "probabilities must be finite numbers in [0, 1]."
            )
        out = ((proba < 0) | (proba > 1)).any(axis=1) & ok
    if out.any():
        rows = np.flatnonzero(out)
        r = rows[0]
        if looks_like_percentages(proba[ok]):
            # a softmax of percentages would be wrong: they only need scaling
            fix = f"These look like percentages (rows sum to about 100): divide {name} by 100."
            if renormalize_hint:
                fix += " Pass renormalize=True to rescale each row to sum 1."
        else:
            fix = "Are these logits or scores? Apply a softmax first."
        raise ValueError(
            f"{name} must lie in [0, 1]; values outside it in {fmt_rows(rows)} (row {r}: "
            f"{proba[r].tolist()}). {fix} ordmetrics never clips silently."
        )
    tol = sum_tolerance(proba.dtype, k)
    sums = proba.sum(axis=1, dtype=np.float64)
    off = (np.abs(sums - 1.0) > tol) & ok
    if off.any():
        rows = np.flatnonzero(off)
        r = rows[0]
        raise ValueError(
            f"rows of {name} must sum to 1 (tolerance {tol:g}); they do not in "
            f"{fmt_rows(rows)} (row {r} sums to {sums[r]:.10g}). "
            + (
                "Pass renormalize=True to rescale each row to sum 1."
                if renormalize_hint
                else f"Rescale each row to sum 1 first, e.g. {name} / "
                f"{name}.sum(axis=1, keepdims=True)."
            )
        )
    yy = y[ok] if y_missing is not None or missing.any() else y
    bad_y = (yy < 0) | (yy >= k)
    if bad_y.any():
        rows = np.flatnonzero(ok)[np.flatnonzero(bad_y)]
        vals = list(dict.fromkeys(y[rows].tolist()))
        if labels is None:
            raise ValueError(
                f"y_true must hold class indices 0..{k - 1} ({name} has {k} columns); got "
                f"{fmt_values(vals)} in {fmt_rows(rows)}. If your classes are numbered "
                "differently (e.g. from 1), pass labels=[...] with the class of each column."
            )
        raise ValueError(f"y_true has codes outside 0..{k - 1} in {fmt_rows(rows)}.")
    if weight is not None:
        wk = weight[ok]
        with np.errstate(invalid="ignore"):
            neg = np.flatnonzero(ok)[np.flatnonzero(wk < 0)]
            inf = np.flatnonzero(ok)[np.flatnonzero(np.isinf(wk))]
        if neg.size:
            raise ValueError(
                f"sample_weight must be non-negative frequency weights; got negative values in "
                f"{fmt_rows(neg)} (e.g. {float(weight[neg[0]])!r})."
            )
        if inf.size:
            raise ValueError(
                f"sample_weight must be finite; got infinite values in {fmt_rows(inf)}. Use "
                "finite frequency weights."
            )
    if not ok.any() and nan_policy == "omit":
        raise ValueError(
            "every row has a missing value, so nan_policy='omit' leaves nothing to score."
        )
    if weight is not None and not (weight[ok] > 0).any():
        if not (nan_policy == "propagate" and missing.any()):  # else the result is NaN anyway
            raise ValueError(
                "sample_weight sums to 0 over the rows that are scored; at least one row needs "
                "a positive weight."
            )
    return missing if missing.any() else None
