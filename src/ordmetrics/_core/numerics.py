"""The two numerical conventions every metric shares: near-ties of computed values and weight scale.

Ties of computed values
-----------------------
Values that ordmetrics computes itself (expected grades sum_k k p_k, per-sample scores,
cumulative forecasts F_k, positions of a forecast or a cumulative weight among bin edges) carry
rounding: two rows that are equal in real numbers, such as ``[0.4, 0, 0.6]`` and
``[0.2, 0.4, 0.4]`` (expected grade 1.2 for both), can come out as ``1.2`` and
``1.2000000000000002``. Wherever such values are ranked, sorted or binned they are first
grouped by one rule:

    Sort the values; two neighbours a <= b are *tied* when
    b - a <= TIE_TOLERANCE * max(|a|, |b|), with TIE_TOLERANCE = 1e-12
    (purely relative: 1e-17 and 2e-17 are as distinct as 0.1 and 0.2, and 0 is tied only
    with 0). An infinite value is tied only with an equal infinity (+inf starts its own
    group after every finite value, -inf before). Tie groups are the chains of tied
    neighbours (single linkage) among the values of rows of *positive* weight, and every
    value of a group is replaced by the group's smallest value. A row of weight 0 is absent:
    it links no two values (it joins the group before it, and those before the first row of
    positive weight form a group of weight 0), so no result changes with it or without it.

The groups depend only on the set of values, never on the order of the rows, and every pair of
values within the tolerance of each other is in one group (the relation is made transitive by
chaining, so no pair is "tied" in one comparison and "ordered" in another). The rounding error
of a computed value v is about K * 1.1e-16 * |v| (K the number of classes) for the sums and
products involved, far below 1e-12 |v|, and a relative difference of 1e-12 in a probability or
a score carries no information; a tolerance relative to the values compared keeps forecasts
that differ by orders of magnitude apart, however small they are. The same 1e-12 is the
tolerance of the decision rules (:data:`ordmetrics.metrics.decisions.DECISION_TOLERANCE`).
Compiled kernels that apply the rule receive :data:`TIE_TOLERANCE` as an argument (a constant
read at compile time would survive in their cache after a change here) and compare
``b - a > tol * min(max(|a|, |b|), DBL_MAX)``, which is :func:`group_starts_sorted` operation by
operation: capping the scale at the largest double makes a finite value and an infinity never
tied (inf > tol * DBL_MAX) and two equal infinities tied (inf - inf is NaN, never greater).

Values the caller passes (a 1-D ``y_score``, scores passed as an array to ``by=``) are compared
exactly: they are the caller's numbers, not results of ordmetrics' arithmetic.

Weight scale
------------
Frequency weights only matter through their ratios, so every metric gives the same value for
``w`` and ``c * w``. Before any arithmetic the weights are multiplied by 2^-e, e the binary
exponent of the largest finite weight (:func:`scale_weights`): a power-of-two scaling is exact
(also for subnormal weights), puts the largest weight in [0.5, 1), and keeps every sum, product
and square of weights far from overflow and underflow. Results are then bitwise identical for
``w`` and ``2^j * w``, and equal up to the rounding of the weights themselves (about 1e-15
relative) for any other c. A weight smaller than 2^-1075 times the largest becomes 0.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

__all__ = [
    "TIE_SCALE_CAP",
    "TIE_TOLERANCE",
    "bin_of_fraction",
    "group_ids_sorted",
    "group_starts_sorted",
    "rank_order",
    "scale_counts",
    "scale_weights",
    "snap",
    "snap_sorted",
    "sum_in_order",
    "weight_exponent",
    "weight_scale",
]

#: Tolerance of the tie rule (see the module notes); also the decision rules' tolerance.
TIE_TOLERANCE = 1e-12


#: The cap of the scale max(|a|, |b|) of the tie rule: a finite value is never tied with an
#: infinity, two equal infinities are (see the module notes).
TIE_SCALE_CAP = float(np.finfo(np.float64).max)


def group_starts_sorted(s: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """For sorted ``s``: True where ``s[i]`` starts a new tie group (``s[0]`` always does).

    Parameters
    ----------
    s : ndarray of float64, shape (n,)
        Values sorted ascending (NaN excluded; +-inf allowed).
    weight : ndarray, shape (n,), optional
        The rows' weights, in the order of ``s``. Rows of weight 0 are then absent from the
        rule: they link no two values and start no group (each joins the group before it),
        except those before the first row of positive weight, which form a group of their own.

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> group_starts_sorted(np.array([0.1, 0.1 + 1e-14, 1e-20 + 0.2, np.inf])).tolist()
    [True, False, True, True]
    >>> s = np.array([0.5, 0.5 + 4e-13, 0.5 + 8e-13])
    >>> group_starts_sorted(s).tolist(), group_starts_sorted(s, np.array([1, 0, 1])).tolist()
    ([True, False, False], [True, False, True])
    """
    if weight is not None:
        return _starts_of_present(s, np.asarray(weight))
    starts = np.empty(s.size, dtype=bool)
    if s.size:
        starts[0] = True
        lo, hi = s[:-1], s[1:]
        scale = np.maximum(np.abs(lo), np.abs(hi))
        np.minimum(scale, TIE_SCALE_CAP, out=scale)
        np.multiply(scale, TIE_TOLERANCE, out=scale)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, tied
            np.greater(hi - lo, scale, out=starts[1:])
    return starts


def _starts_of_present(s: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """:func:`group_starts_sorted` over the rows of positive weight; rows of weight 0 start no
    group, except those before the first row of positive weight (one group of weight 0)."""
    present = np.flatnonzero(weight > 0)
    starts = np.zeros(s.size, dtype=bool)
    if s.size:
        starts[0] = True
    if present.size:
        starts[present] = group_starts_sorted(s[present])
        starts[present[0]] = True
    return starts


def snap_sorted(s: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """The sorted values ``s`` with every tie group replaced by its smallest value.

    ``weight`` (in the order of ``s``, optional): rows of weight 0 link no two values
    (:func:`group_starts_sorted`). Returns ``s`` itself when no two distinct values are tied
    (the common case: no copy).
    """
    starts = group_starts_sorted(s, weight)
    first = np.flatnonzero(starts)
    if first.size == s.size or first.size == 0:
        return s
    snapped = s[first[np.cumsum(starts) - 1]]
    if np.array_equal(snapped, s):
        return s
    return snapped


def snap(values: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """``values`` (1-D, no NaN) with every tie group replaced by its smallest value.

    ``weight`` (optional, one per value): rows of weight 0 link no two values (module notes).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.numerics import snap
    >>> snap(np.array([1.2000000000000002, 0.5, 1.2])).tolist()
    [1.2, 0.5, 1.2]
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return v
    order = np.argsort(v, kind="stable")
    s = v[order]
    snapped = snap_sorted(s, None if weight is None else np.asarray(weight)[order])
    if snapped is s:
        return v
    out = np.empty_like(v)
    out[order] = snapped
    return out


def rank_order(values: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """Rows ordered by their tie group ascending, rows of one group by position ascending.

    The tie-group version of ``np.argsort(values, kind="stable")``; ``weight`` (optional, one
    per value): rows of weight 0 link no two values (module notes).
    """
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(v, kind="stable")
    s = v[order]
    snapped = snap_sorted(s, None if weight is None else np.asarray(weight)[order])
    if snapped is s:
        return order
    key = np.empty_like(v)
    key[order] = snapped
    return np.argsort(key, kind="stable")


def group_ids_sorted(s: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """Tie group of every value of the sorted ``s``: 0, 0, 1, 2, 2, ... (int64); ``weight``
    as in :func:`group_starts_sorted`."""
    return np.cumsum(group_starts_sorted(s, weight)) - 1


def bin_of_fraction(v: np.ndarray, n_bins: int) -> np.ndarray:
    """min(floor(v B), B - 1), clipped at 0, for ``v`` in [0, 1] (B = ``n_bins``), by the tie rule.

    ``v`` within ``TIE_TOLERANCE`` below an edge j / B lies on the edge and goes to bin j:
    ``0.57 * 100`` is ``56.99999999999999`` in float64, yet 0.57 goes to bin 57 of 100. The
    one rule behind the uniform bins (v a forecast) and the quantile bins (v the fraction of
    the weight below a forecast) of :mod:`ordmetrics.metrics.calibration`.
    """
    x = np.asarray(v, dtype=np.float64) * n_bins
    up = np.ceil(x)
    b = np.where((up - x) <= TIE_TOLERANCE * n_bins, up, np.floor(x))
    np.clip(b, 0, n_bins - 1, out=b)
    return b.astype(np.int64)


def weight_exponent(w: np.ndarray) -> int:
    """The binary exponent e of the largest finite weight (max |w| = m 2^e, m in [0.5, 1)).

    0 when no weight is finite and non-zero (NaN, infinite and negative weights are left to the
    validation, which reports them).
    """
    if w.size == 0:
        return 0
    with np.errstate(invalid="ignore"):
        top, bottom = float(np.max(w)), float(np.min(w))  # NaN propagates
    if math.isfinite(top) and math.isfinite(bottom) and bottom >= 0.0:
        # the usual case, two vectorised passes and no temporary: max |w| is the largest w
        return int(np.frexp(top)[1]) if top > 0.0 else 0
    with np.errstate(invalid="ignore"):
        a = np.abs(w)
        finite = a[np.isfinite(a)]
    if finite.size == 0:
        return 0
    top = float(finite.max())
    if top == 0.0:
        return 0
    return int(np.frexp(top)[1])


@overload
def scale_weights(w: np.ndarray) -> tuple[np.ndarray, int]: ...
@overload
def scale_weights(w: None) -> tuple[None, int]: ...
@overload
def scale_weights(w: np.ndarray | None) -> tuple[np.ndarray | None, int]: ...
def scale_weights(w: np.ndarray | None) -> tuple[np.ndarray | None, int]:
    """``(w * 2^-e, e)`` with e from :func:`weight_exponent`: exact, largest weight in [0.5, 1).

    ``w`` itself is returned when e = 0. Multiply a weight-valued result by ``2^e``
    (``np.ldexp(x, e)``) to bring it back to the caller's units.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.numerics import scale_weights
    >>> ws, e = scale_weights(np.array([1e308, 5e307]))
    >>> bool(0.5 <= ws.max() < 1.0), e
    (True, 1024)
    >>> scale_weights(np.array([3.0, 1.0]))
    (array([0.75, 0.25]), 2)
    """
    if w is None:
        return None, 0
    e = weight_exponent(w)
    if e == 0:
        return w, 0
    return np.ldexp(w, -e), e


def weight_scale(w: np.ndarray | None) -> tuple[np.ndarray | None, float, int]:
    """``(w, 2^-e, e)``: the weights and the power of two that brings them to scale (no copy).

    The kernels multiply each weight by the factor as they read it, which gives the same
    bits as :func:`scale_weights`' scaled copy (both round the exact product once) without
    writing that copy. When 2^-e is not a float64 (largest weight below 2^-1022), the scaled
    copy is returned with the factor 1.

    The exponent is that of :func:`weight_exponent` whenever every weight is finite and
    non-negative, from one pass (the largest weight) instead of two. Otherwise (a negative,
    NaN or infinite weight) it may differ, which changes nothing: the kernels report such
    weights as invalid, and the caller raises or scales the rows it keeps again.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.numerics import weight_scale
    >>> w, ws, e = weight_scale(np.array([3.0, 1.0]))
    >>> w * ws, e
    (array([0.75, 0.25]), 2)
    >>> weight_scale(None)
    (None, 1.0, 0)
    """
    if w is None:
        return None, 1.0, 0
    top = float(np.max(w)) if w.size else 0.0  # NaN propagates
    if 0.0 < top <= np.finfo(np.float64).max:
        # the largest weight; a smaller negative one makes the kernels report invalid weights
        e = int(np.frexp(top)[1])
    else:
        e = weight_exponent(w)
    if e > -1022:
        return w, float(np.ldexp(1.0, -e)), e
    return np.ldexp(w, -e), 1.0, e


def scale_counts(M: np.ndarray) -> np.ndarray:
    """Weighted counts (..., K, K) scaled by a power of two per matrix (largest entry < 1).

    For the formulas that are ratios of sums and products of counts (every agreement metric):
    exact, and safe from overflow and underflow whatever the scale of the weights.
    """
    if not (isinstance(M, np.ndarray) and M.dtype == np.float64):
        M = np.asarray(M, dtype=np.float64)
    if M.size == 0:
        return M
    # the largest magnitude from the maximum and the minimum (no array of magnitudes)
    with np.errstate(invalid="ignore"):
        top = np.maximum(M.max(axis=(-2, -1)), -M.min(axis=(-2, -1)))
    top = np.where(np.isfinite(top) & (top > 0), top, 1.0)
    e = np.frexp(top)[1]
    if not np.any(e):
        return M
    if e.min() < -1020:  # 2^-e beyond the float range (subnormal counts): ldexp
        return np.ldexp(M, -np.expand_dims(e, (-2, -1)))
    # a product by the power of two 2^-e rounds once, as ldexp does: the same bits
    return M * np.expand_dims(np.ldexp(1.0, -e), (-2, -1))


def sum_in_order(stack: np.ndarray) -> np.ndarray:
    """``stack[0] + stack[1] + ...``, added in that order (a new array): partial tables of
    fixed chunks combined in a fixed order, so the result depends on the data only.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.numerics import sum_in_order
    >>> sum_in_order(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).tolist()
    [9.0, 12.0]
    """
    out = stack[0].copy()
    for i in range(1, stack.shape[0]):
        out += stack[i]
    return out
