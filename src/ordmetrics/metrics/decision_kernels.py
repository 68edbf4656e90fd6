"""The compiled kernels of :func:`ordmetrics.metrics.decisions.decide`: one pass per rule.

Each kernel writes the decision of every row and screens the values in the same loop; the
rows run in fixed blocks in parallel (numba ``prange``), each row's decision computed from
that row alone, so no decision depends on the number of threads (the serial twin of a kernel,
:attr:`ordmetrics._core.jit.LazyKernel.serial`, gives the same). See docs/definitions.md,
section 2, for the rules.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange

__all__ = [
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
_BLOCK = 1024

#: The kernels' screen accepts row sums within this fraction of the row-sum tolerance only, so
#: a row near the tolerance's edge (where the order of a sum could matter) always goes to the
#: full check of ``decide`` (``_check_proba``), which decides as it would without the screen.
SCREEN_FRACTION = 0.75

#: Cost structures with an O(K) expected-cost formula (``min_cost``): a general matrix,
#: absolute |j - k|, squared (j - k)^2 and zero-one costs.
_GENERAL, _ABSOLUTE, _SQUARED, _ZERO_ONE = 0, 1, 2, 3
COST_GENERAL, COST_ABSOLUTE, COST_SQUARED, COST_ZERO_ONE = 0, 1, 2, 3

# Each kernel writes the decision of every row into ``out`` and returns True when every entry
# is in [0, 1] and every row sum (in float64) is in [lo, hi]; False sends the input to
# the full check of ``decide``, which raises or, for a row sum at the edge of the tolerance,
# accepts.
# A NaN or infinite entry makes its row sum NaN or infinite, outside [lo, hi]. The rows run in
# blocks of _BLOCK rows in parallel (serial twin: the same code in order; see
# ordmetrics._core.parallel): each row's decision is computed from that row alone.


@njit(**_opts)
def _argmax_rows(P, out, lo, hi):
    n, k = P.shape
    nb = (n + _BLOCK - 1) // _BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * _BLOCK, min(n, (b + 1) * _BLOCK)):
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
    nb = (n + _BLOCK - 1) // _BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * _BLOCK, min(n, (b + 1) * _BLOCK)):
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
    nb = (n + _BLOCK - 1) // _BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        mn = np.inf
        mx = -np.inf
        bad = 0
        for i in range(b * _BLOCK, min(n, (b + 1) * _BLOCK)):
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


@njit(inline="always", **_inline)
def _row_stats(P, i, k):
    """(sum, min, max) of row i, the sum in float64 from class 0 up."""
    x = np.float64(P[i, 0])
    s = x
    mn = x
    mx = x
    for j in range(1, k):
        x = np.float64(P[i, j])
        s += x
        mn = min(mn, x)
        mx = max(mx, x)
    return s, mn, mx


@njit(inline="always", **_inline)
def _absolute_row(P, i, k):
    """Absolute costs: e_{m+1} - e_m = d_m = 2 F_m - s, non-decreasing in m (the costs are
    convex in the class). The least cost is at the number of negative d_m (the median); the
    margin is the gap to the nearer neighbour."""
    s, mn, mx = _row_stats(P, i, k)
    F = 0.0
    choice = 0
    dneg = -np.inf
    dpos = np.inf
    for m in range(k - 1):
        F += np.float64(P[i, m])
        d = 2.0 * F - s
        neg = d < 0.0
        choice += neg
        dneg = d if neg else dneg
        dpos = min(dpos, np.inf if neg else d)
    return s, mn, mx, choice, min(-dneg, dpos)


@njit(inline="always", **_inline)
def _squared_row(P, i, k):
    """Squared costs: e_{m+1} - e_m = d_m = (2m + 1) s - 2 sum_j j p_j, increasing in m."""
    s, mn, mx = _row_stats(P, i, k)
    s1 = 0.0
    for j in range(1, k):
        s1 += j * np.float64(P[i, j])
    choice = 0
    dneg = -np.inf
    dpos = np.inf
    for m in range(k - 1):
        d = (2 * m + 1) * s - 2.0 * s1
        neg = d < 0.0
        choice += neg
        dneg = d if neg else dneg
        dpos = min(dpos, np.inf if neg else d)
    return s, mn, mx, choice, min(-dneg, dpos)


@njit(inline="always", **_inline)
def _zero_one_row(P, i, k):
    """Zero-one costs: e_m = s - p_m; the least is at the largest p_m (ties: the lowest
    class), the margin is the gap to the second largest."""
    x = np.float64(P[i, 0])
    s = x
    mn = x
    best = x
    second = -np.inf
    top = 0
    for j in range(1, k):
        x = np.float64(P[i, j])
        s += x
        mn = min(mn, x)
        up = x > best
        second = max(second, best if up else x)
        best = x if up else best
        top = j if up else top
    return s, mn, best, top, best - second


@njit(**_opts)
def _min_cost_rows(P, C, kind, out, slack, lo, hi):
    """argmin_m sum_j p_j C[j, m], the lowest class within ``slack`` of the least cost.

    The decision is that of the expected costs of every class, each added in class order
    (K x K products per row). For the structured costs (``kind`` absolute, squared, zero-one)
    an O(K) pass first finds the class of least expected cost and the gap ``margin`` to the
    next least (absolute and squared costs are convex in the class: the gaps to the two
    neighbours; zero-one: the two largest p_j). ``delta`` bounds the rounding of both that
    pass and the K x K sums (with a margin of 3 or more): when ``margin > slack + 2 delta``,
    every other class has a K x K expected cost above the least one plus ``slack``, so the
    K x K decision is that class. Otherwise (a near tie) the row takes the K x K path: every
    decision is the K x K one.
    """
    n, k = P.shape
    nb = (n + _BLOCK - 1) // _BLOCK
    good = np.empty(nb, dtype=np.bool_)
    cmax = 0.0
    for j in range(k):
        for m in range(k):
            cmax = max(cmax, C[j, m])
    for b in prange(nb):
        start = b * _BLOCK
        stop = min(n, start + _BLOCK)
        if kind == _ABSOLUTE:
            good[b] = _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, _ABSOLUTE)
        elif kind == _SQUARED:
            good[b] = _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, _SQUARED)
        elif kind == _ZERO_ONE:
            good[b] = _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, _ZERO_ONE)
        else:
            mn = np.inf
            mx = -np.inf
            bad = 0
            cost = np.empty(k)
            for i in range(start, stop):
                s, rmn, rmx, idx = _general_row(P, C, i, k, cost, slack)
                mn = min(mn, rmn)
                mx = max(mx, rmx)
                bad |= not ((s >= lo) & (s <= hi))
                out[i] = idx
            good[b] = bad == 0 and mn >= 0.0 and mx <= 1.0
    return good.all()


@njit(inline="always", **_inline)
def _general_row(P, C, i, k, cost, slack):
    """The K x K expected costs of row i, each added in class order; the lowest class within
    ``slack`` of the least. Returns (sum, min, max, decision)."""
    x = np.float64(P[i, 0])
    s = x
    mn = x
    mx = x
    for m in range(k):
        cost[m] = x * C[0, m]
    for j in range(1, k):
        x = np.float64(P[i, j])
        s += x
        mn = min(mn, x)
        mx = max(mx, x)
        for m in range(k):
            cost[m] += x * C[j, m]
    low = cost[0]
    for m in range(1, k):
        v = cost[m]
        low = v if v < low else low
    limit = low + slack
    idx = k - 1
    for m in range(k - 2, -1, -1):  # the lowest class within the tolerance wins
        idx = m if cost[m] <= limit else idx
    return s, mn, mx, idx


@njit(inline="always", **_inline)
def _structured_block(P, C, out, slack, lo, hi, start, stop, cmax, kind):
    """Rows start..stop of ``_min_cost_rows`` for a structured ``kind`` (a constant here)."""
    k = P.shape[1]
    mn = np.inf
    mx = -np.inf
    bad = 0
    cost = np.empty(k)
    for i in range(start, stop):
        if kind == _ABSOLUTE:
            s, rmn, rmx, choice, margin = _absolute_row(P, i, k)
        elif kind == _SQUARED:
            s, rmn, rmx, choice, margin = _squared_row(P, i, k)
        else:
            s, rmn, rmx, choice, margin = _zero_one_row(P, i, k)
        mn = min(mn, rmn)
        mx = max(mx, rmx)
        bad |= not ((s >= lo) & (s <= hi))
        delta = 32.0 * k * 1.1102230246251565e-16 * max(cmax, 1.0) * max(s, 1.0)
        if not margin > slack + 2.0 * delta:  # a near tie (or NaN): the K x K costs decide
            s, rmn, rmx, choice = _general_row(P, C, i, k, cost, slack)
        out[i] = choice
    return bad == 0 and mn >= 0.0 and mx <= 1.0


#: The lazy kernels by rule, kept here: on its first call a kernel's module name is rebound
#: to the numba dispatcher, which has no serial twin.
KERNELS = {
    "argmax": _argmax_rows,
    "median": _median_rows,
    "expected": _expected_rows,
    "min_cost": _min_cost_rows,
}
