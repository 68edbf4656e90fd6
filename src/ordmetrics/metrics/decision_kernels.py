"""The compiled kernels of :func:`ordmetrics.metrics.decisions.decide`: one pass per rule.

Each kernel writes the decision of every row and screens the values in the same loop; the
rows run in fixed blocks in parallel (numba ``prange``), each row's decision computed from
that row alone, so no decision depends on the number of threads (the serial twin of a kernel,
:attr:`ordmetrics._core.jit.LazyKernel.serial`, gives the same). See docs/definitions.md,
section 2, for the rules. ``min_cost`` with a general cost matrix has a module of its own,
:mod:`ordmetrics.metrics.decision_matrix`.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange
from ordmetrics.metrics.decision_matrix import general_row

__all__ = [
    "BLOCK",
    "COST_ABSOLUTE",
    "COST_GENERAL",
    "COST_SQUARED",
    "COST_ZERO_ONE",
    "KERNELS",
    "SCREEN_FRACTION",
]

# --------------------------------------------------------------------------------------------
# Kernels: one pass over the rows per rule, screening the values in the same loop
# --------------------------------------------------------------------------------------------

_opts = {"cache": True, "nogil": True, "error_model": "numpy", "parallel": True}

#: Rows of a block: the blocks run in parallel (numba ``prange``), each screening its rows
#: into its own flag, so a decision never depends on the number of threads.
BLOCK = 1024

#: The kernels' screen accepts row sums within this fraction of the row-sum tolerance only, so
#: a row near the tolerance's edge (where the order of a sum could matter) always goes to the
#: full check of ``decide`` (``_check_proba``), which decides as it would without the screen.
SCREEN_FRACTION = 0.75

#: Cost structures with an O(K) expected-cost formula (``min_cost``): a general matrix,
#: absolute |j - k|, squared (j - k)^2 and zero-one costs.
COST_GENERAL, COST_ABSOLUTE, COST_SQUARED, COST_ZERO_ONE = 0, 1, 2, 3

# Each kernel writes the decision of every row into ``out`` and returns True when every entry
# is in [0, 1] and every row sum (in float64) is in [lo, hi]; False sends the input to
# the full check of ``decide``, which raises or, for a row sum at the edge of the tolerance,
# accepts.
# A NaN or infinite entry makes its row sum NaN or infinite, outside [lo, hi]. The rows run in
# blocks of BLOCK rows in parallel (serial twin: the same code in order; see
# ordmetrics._core.parallel): each row's decision is computed from that row alone.


@njit(**_opts)
def _argmax_rows(P, out, lo, hi):
    n, k = P.shape
    nb = (n + BLOCK - 1) // BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            best = P[i, 0]
            idx = 0
            s = np.float64(best)
            mn = min(mn, best)
            for j in range(1, k):
                x = P[i, j]
                s += x
                mn = min(mn, x)
                c = x > best  # strictly greater: ties go to the lowest class
                best = x if c else best
                idx = j if c else idx
            mx = max(mx, best)  # the row's maximum
            bad |= not ((s >= lo) & (s <= hi))
            out[i] = idx
        good[b] = bad == 0 and mn >= 0.0 and mx <= 1.0
    return good.all()


@njit(**_opts)
def _median_rows(P, out, threshold, lo, hi):
    # F_k is non-decreasing in k, so the smallest k with F_k >= 1/2 is the number of k < K-1
    # with F_k < 1/2 (F_{K-1} is the row sum, always >= 1/2).
    n, k = P.shape
    nb = (n + BLOCK - 1) // BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            F = np.float64(P[i, 0])
            idx = np.int64(0)
            mn = min(mn, P[i, 0])
            mx = max(mx, P[i, 0])
            for j in range(1, k):
                idx += F < threshold
                x = P[i, j]
                F += x
                mn = min(mn, x)
                mx = max(mx, x)
            bad |= not ((F >= lo) & (F <= hi))
            out[i] = idx
        good[b] = bad == 0 and mn >= 0.0 and mx <= 1.0
    return good.all()


@njit(**_opts)
def _expected_rows(P, out, half, lo, hi):
    n, k = P.shape
    nb = (n + BLOCK - 1) // BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            s = np.float64(P[i, 0])
            grade = 0.0
            w = 0.0  # the class j, as a float
            mn = min(mn, P[i, 0])
            mx = max(mx, P[i, 0])
            for j in range(1, k):
                x = np.float64(P[i, j])
                w += 1.0
                s += x
                grade += x * w
                mn = min(mn, x)
                mx = max(mx, x)
            bad |= not ((s >= lo) & (s <= hi))
            out[i] = np.int64(np.floor(grade + half))
        good[b] = bad == 0 and mn >= 0.0 and mx <= 1.0
    return good.all()


_inline = {k: v for k, v in _opts.items() if k != "parallel"}


# The three structured costs, each in one pass over two rows at a time (rows i and i2, in one
# loop over the classes: the same operations, in the same order, for each row, so the same
# values as one row at a time; the two independent chains of additions overlap). Each
# returns the two row sums, the least and the largest entry of both rows, the two candidate
# classes and their margins (a lower bound on the gap to every other class's cost).


@njit(inline="always", **_inline)
def _absolute_pair(P, i, i2, k):
    """Absolute costs in one pass: the median, counted against 1/2 as the row is read.

    In exact arithmetic e_{m+1} - e_m = 2 F_m - s (non-decreasing in m: the costs are convex
    in the class), so the least cost is at the number of m < K - 1 with 2 F_m < s, and every
    other class costs at least min_m |2 F_m - s| more. The sum s is known only at the end of
    the row, so the pass counts the m with F_m < 1/2 instead and keeps g = min_m |2 F_m - 1|
    (as 2 |F_m - 1/2|, whose sign is exact). As |(2 F_m - s) - (2 F_m - 1)| = |s - 1|, every
    m with |2 F_m - 1| > |s - 1| has 2 F_m - s of the sign of 2 F_m - 1: with the margin
    g - |s - 1| > 0 the count is that of 2 F_m < s, and the margin is at most
    min_m |2 F_m - s|. The rounding of the partial sums F_m, of 2 F_m - 1 and of s - 1 (at
    most a few K eps s) lies far inside the bound ``delta`` of :func:`_structured_block`.
    """
    x = np.float64(P[i, 0])
    y = np.float64(P[i2, 0])
    s = x  # F_m: the sum of the first m + 1 classes, in class order
    r = y
    mn = min(x, y)
    mx = max(x, y)
    cx = 0
    cy = 0
    gx = np.inf
    gy = np.inf
    for j in range(1, k):
        t = s - 0.5  # F_{j-1} - 1/2, of the sign of 2 F_{j-1} - 1
        u = r - 0.5
        cx += t < 0.0
        cy += u < 0.0
        a = abs(t)
        b = abs(u)
        gx = a if a < gx else gx
        gy = b if b < gy else gy
        x = np.float64(P[i, j])
        y = np.float64(P[i2, j])
        s += x
        r += y
        mn = min(mn, min(x, y))
        mx = max(mx, max(x, y))
    return s, r, mn, mx, cx, cy, 2.0 * gx - abs(s - 1.0), 2.0 * gy - abs(r - 1.0)


@njit(inline="always", **_inline)
def _squared_choice(s, s1, k):
    """The candidate class of squared costs and its margin, from the row sum s and
    s1 = sum_j j p_j (see :func:`_squared_pair`)."""
    h = s1 - 0.5 * s
    top = k - 1.0
    c = h if h > 0.0 else 0.0  # NaN: 0
    c = np.ceil(c if c < top else top)
    u = c * s - h  # d_c = 2 u and -d_{c-1} = 2 (s - u)
    # At the ends the missing neighbour's d is far from 0 and bounds nothing away: at c = 0,
    # -d_{-1} = s + 2 s1 >= s; at c = K - 1, d_{K-1} = (2K - 1) s - 2 s1 >= s (s1 <= (K-1) s).
    return np.int64(c), 2.0 * min(u, s - u)


@njit(inline="always", **_inline)
def _squared_pair(P, i, i2, k):
    """Squared costs in one pass: the class nearest the mean, checked at its two neighbours.

    In exact arithmetic e_{m+1} - e_m = d_m = (2m + 1) s - 2 s1 with s1 = sum_j j p_j,
    increasing in m (the costs are convex in the class): the least cost is at the class c
    with d_{c-1} < 0 <= d_c (no d_{-1}, no d_{K-1}), and every other class costs at least
    min(-d_{c-1}, d_c) more. The candidate c = ceil(h), h = s1 - s / 2 (within 0..K-1; the
    mean s1 / s up to the factor s, which is 1 within the row-sum screen), is checked against
    those two d_m only, d_c = 2 (c s - h) and -d_{c-1} = 2 (s - (c s - h)): if the candidate
    is not the class of least cost, one of them is <= 0 (up to rounding), the margin fails
    and the row takes the K x K costs. The rounding of s, s1 and d_m (a few K^2 eps s) lies
    far inside ``delta`` of :func:`_structured_block`.
    """
    x = np.float64(P[i, 0])
    y = np.float64(P[i2, 0])
    s = x
    r = y
    mn = min(x, y)
    mx = max(x, y)
    sx = 0.0  # s1 of each row
    sy = 0.0
    w = 0.0  # the class j, as a float
    for j in range(1, k):
        x = np.float64(P[i, j])
        y = np.float64(P[i2, j])
        w += 1.0
        s += x
        r += y
        sx += w * x
        sy += w * y
        mn = min(mn, min(x, y))
        mx = max(mx, max(x, y))
    cx, gx = _squared_choice(s, sx, k)
    cy, gy = _squared_choice(r, sy, k)
    return s, r, mn, mx, cx, cy, gx, gy


@njit(inline="always", **_inline)
def _zero_one_pair(P, i, i2, k):
    """Zero-one costs: e_m = s - p_m; the least is at the largest p_m (ties: the lowest
    class), the margin is the gap to the second largest."""
    x = np.float64(P[i, 0])
    y = np.float64(P[i2, 0])
    s = x
    r = y
    mn = min(x, y)
    bx = x  # the largest entry of each row
    by = y
    ox = -np.inf  # the second largest
    oy = -np.inf
    tx = 0
    ty = 0
    for j in range(1, k):
        x = np.float64(P[i, j])
        y = np.float64(P[i2, j])
        s += x
        r += y
        mn = min(mn, min(x, y))
        ux = x > bx
        uy = y > by
        ox = max(ox, bx if ux else x)
        oy = max(oy, by if uy else y)
        bx = x if ux else bx
        by = y if uy else by
        tx = j if ux else tx
        ty = j if uy else ty
    return s, r, mn, max(bx, by), tx, ty, bx - ox, by - oy


#: Twice the rounding bound of the structured costs per unit of K max(cmax, 1) max(s, 1):
#: 2 delta = 64 K eps max(cmax, 1) max(s, 1), eps = 2^-53 (see _structured_block).
_TWO_DELTA = 64.0 * 1.1102230246251565e-16


@njit(inline="always", **_inline)
def _cost_max(C):
    k = C.shape[0]
    cmax = 0.0
    for j in range(k):
        for m in range(k):
            cmax = max(cmax, C[j, m])
    return cmax


@njit(inline="always", **_inline)
def _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, pair):
    """Rows start..stop of a structured cost (``pair``, one of :func:`_absolute_pair`,
    :func:`_squared_pair` and :func:`_zero_one_pair`): argmin_m sum_j p_j C[j, m], the
    lowest class within ``slack`` of the least cost.

    The decision is that of the expected costs of every class, each added in class order
    (the K x K products of :func:`~ordmetrics.metrics.decision_matrix.general_row`). An
    O(K) pass (``pair``, two rows at a time; the last row of a block of odd length is
    passed as both rows) finds the class of least expected cost and a lower bound
    ``margin`` on the gap to every other class (absolute and squared costs are convex in
    the class: the gaps to the two neighbours; zero-one: the two largest p_j). ``delta``
    = 32 K eps max(cmax, 1) max(s, 1) bounds the rounding of both that pass and the K x K
    sums (with a margin of 3 or more): when ``margin > slack + 2 delta``, every other class
    has a K x K expected cost above the least one plus ``slack``, so the K x K decision is
    that class. The test uses max(s, 1) <= 2, true of every row that can pass the full check
    (its sum is 1 within the row-sum tolerance); a row summing to more is reported anyway.
    Otherwise (a near tie) the row is marked and a second loop over the block gives it the
    K x K decision: every decision is the K x K one.
    """
    k = P.shape[1]
    mn = np.inf
    mx = -np.inf
    bad = 0
    near = False  # rows marked (out[i] = -1) for the K x K costs
    # slack + 2 delta with max(s, 1) <= 2
    limit = slack + 2.0 * _TWO_DELTA * k * max(cmax, 1.0)
    last = stop - 1
    for h in range((stop - start + 1) // 2):  # two rows at a time, in one loop over the classes
        i = start + 2 * h
        i2 = i + (i < last)  # the last row of an odd block: twice (the same values)
        s, r, rmn, rmx, choice, other, margin, gap = pair(P, i, i2, k)
        mn = min(mn, rmn)
        mx = max(mx, rmx)
        bad |= not ((s >= lo) & (s <= hi) & (r >= lo) & (r <= hi))
        sure = margin > limit  # False: a near tie (or NaN)
        fine = gap > limit
        near |= not (sure & fine)
        out[i] = choice if sure else -1
        out[i2] = other if fine else -1
    if near:  # the near ties, in a loop of their own that keeps the first one small
        cost = np.empty(k)
        for i in range(start, stop):
            if out[i] < 0:
                out[i] = general_row(P, C, i, k, cost, slack)[3]
    return bad == 0 and mn >= 0.0 and mx <= 1.0


@njit(inline="always", **_inline)
def _structured_rows(P, C, out, slack, lo, hi, pair):
    """The blocks of a structured cost (``pair``) in parallel (:func:`_structured_block`).

    Inlined into one kernel per cost structure, which names its own ``pair``: each kernel
    compiles only its own row loop.
    """
    n = P.shape[0]
    nb = (n + BLOCK - 1) // BLOCK
    good = np.empty(nb, dtype=np.bool_)
    cmax = _cost_max(C)
    for b in prange(nb):
        start = b * BLOCK
        stop = min(n, start + BLOCK)
        good[b] = _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, pair)
    return good.all()


@njit(**_opts)
def _absolute_rows(P, C, out, slack, lo, hi):
    return _structured_rows(P, C, out, slack, lo, hi, _absolute_pair)


@njit(**_opts)
def _squared_rows(P, C, out, slack, lo, hi):
    return _structured_rows(P, C, out, slack, lo, hi, _squared_pair)


@njit(**_opts)
def _zero_one_rows(P, C, out, slack, lo, hi):
    return _structured_rows(P, C, out, slack, lo, hi, _zero_one_pair)


#: The lazy kernels by rule (``min_cost`` by cost structure; a general matrix:
#: :func:`ordmetrics.metrics.decision_matrix.decide_general`), kept here: on its first call a
#: kernel's module name is rebound to the numba dispatcher, which has no serial twin.
KERNELS = {
    "argmax": _argmax_rows,
    "median": _median_rows,
    "expected": _expected_rows,
    ("min_cost", COST_ABSOLUTE): _absolute_rows,
    ("min_cost", COST_SQUARED): _squared_rows,
    ("min_cost", COST_ZERO_ONE): _zero_one_rows,
}
