"""``decide(rule="min_cost")`` with a general K x K cost matrix, compiled.

The decision of a row is that of its K x K expected costs in float64, each added in class
order, the lowest class within ``slack`` of the least (:func:`general_row`). Forming them row
by row is slow (K^2 dependent multiply-adds per row, in short loops), so :func:`_rows` first
finds the class of least cost in float32, vectorised over the rows of a tile, with the
gap to the second least; a row whose gap exceeds a bound on the rounding of both computations
plus ``slack`` has that class as its float64 decision, and every other row (a near tie) takes
the float64 costs of :func:`general_row`. Every decision is therefore the float64 one, the
same on any number of threads (see :func:`decide_general` for the bound, and
docs/definitions.md, section 2, for the rule).

A tile of T rows (512 up to K = 64, then about 32768 / K, at least 32) is copied transposed
(class by row) into a float32 buffer while its entries and row sums are screened, multiplied
by the scaled cost matrix and reduced to a candidate and its gap: each step a kernel of its
own, the last two with loops over the rows of the tile that compile to vector instructions.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange, prefetch

__all__ = ["GENERAL_BLOCK", "TILE", "decide_general", "general_row", "general_rows"]

_opts = {"cache": True, "nogil": True, "error_model": "numpy"}
_inline = {**_opts, "inline": "always"}

#: Rows of a block of :func:`general_rows`: the blocks run in parallel, each row's decision
#: computed from that row alone, so that no decision depends on the number of threads.
GENERAL_BLOCK = 4096

#: Rows of a tile of :func:`_rows` up to K = 64 classes (then about 64 TILE / K, at least 32).
TILE = 512

#: The float32 unit roundoff, 2^-24.
_U32 = 2.0**-24


@njit(**_inline)
def general_row(P, C, i, k, cost, slack):
    """The K x K expected costs of row i, each added in class order; the lowest class within
    ``slack`` of the least. Returns (sum, min, max, decision).

    Four classes j at a time, the four products added to cost[m] one after the other (the
    order of one class at a time, with one load and store of cost[m] instead of four).
    """
    x = np.float64(P[i, 0])
    s = x
    mn = x
    mx = x
    for m in range(k):
        cost[m] = x * C[0, m]
    j = 1
    while j + 4 <= k:
        x0 = np.float64(P[i, j])
        x1 = np.float64(P[i, j + 1])
        x2 = np.float64(P[i, j + 2])
        x3 = np.float64(P[i, j + 3])
        s = (((s + x0) + x1) + x2) + x3
        mn = min(mn, min(min(x0, x1), min(x2, x3)))
        mx = max(mx, max(max(x0, x1), max(x2, x3)))
        for m in range(k):
            c = cost[m] + x0 * C[j, m]
            c = c + x1 * C[j + 1, m]
            c = c + x2 * C[j + 2, m]
            cost[m] = c + x3 * C[j + 3, m]
        j += 4
    for jj in range(j, k):  # the last K - 1 mod 4 classes
        x = np.float64(P[i, jj])
        s += x
        mn = min(mn, x)
        mx = max(mx, x)
        for m in range(k):
            cost[m] += x * C[jj, m]
    low = cost[0]
    for m in range(1, k):
        v = cost[m]
        low = v if v < low else low
    limit = low + slack
    idx = k - 1
    for m in range(k - 2, -1, -1):  # the lowest class within the tolerance wins
        idx = m if cost[m] <= limit else idx
    return s, mn, mx, idx


@njit(**_opts)
def _transpose(P, t0, nt, Q, s, lo, hi):
    """Rows t0..t0+nt of P into the columns 0..nt-1 of Q (class by row, rounded to float32),
    eight rows at a time, with each row's sum in float64 into s; True when every entry is in
    [0, 1] and every row sum in [lo, hi].

    Asks for the lines of the next nt rows as it goes (a hint that keeps the memory busy
    while the tile is worked on). The entries are checked in one loop over the tile's rows
    as they lie in memory (vector instructions; NaN fails). The row sums may be added in any
    order here (the screen accepts sums within a fraction of the tolerance only).
    """
    n, k = P.shape
    size = P.itemsize
    row = k * size
    ahead = (t0 + nt) * row  # the byte of P nt rows ahead
    end = n * row
    ii = 0
    while ii + 8 <= nt:
        a = ahead + ii * row
        for off in range(a, min(a + 8 * row, end), 64):
            prefetch(P, off)
        r0 = P[t0 + ii]
        r1 = P[t0 + ii + 1]
        r2 = P[t0 + ii + 2]
        r3 = P[t0 + ii + 3]
        r4 = P[t0 + ii + 4]
        r5 = P[t0 + ii + 5]
        r6 = P[t0 + ii + 6]
        r7 = P[t0 + ii + 7]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for j in range(k):
            x0, x1, x2, x3 = r0[j], r1[j], r2[j], r3[j]
            x4, x5, x6, x7 = r4[j], r5[j], r6[j], r7[j]
            s0 += x0
            s1 += x1
            s2 += x2
            s3 += x3
            s4 += x4
            s5 += x5
            s6 += x6
            s7 += x7
            q = Q[j]
            q[ii] = np.float32(x0)
            q[ii + 1] = np.float32(x1)
            q[ii + 2] = np.float32(x2)
            q[ii + 3] = np.float32(x3)
            q[ii + 4] = np.float32(x4)
            q[ii + 5] = np.float32(x5)
            q[ii + 6] = np.float32(x6)
            q[ii + 7] = np.float32(x7)
        s[ii] = s0
        s[ii + 1] = s1
        s[ii + 2] = s2
        s[ii + 3] = s3
        s[ii + 4] = s4
        s[ii + 5] = s5
        s[ii + 6] = s6
        s[ii + 7] = s7
        ii += 8
    for i2 in range(ii, nt):
        acc = 0.0
        for j in range(k):
            x = P[t0 + i2, j]
            acc += x
            Q[j, i2] = np.float32(x)
        s[i2] = acc
    flat = P[t0 : t0 + nt].reshape(nt * k)  # the tile's entries, in memory order
    good = True
    for e in range(flat.size):
        x = flat[e]
        good &= (x >= 0.0) & (x <= 1.0)  # False for NaN
    for i2 in range(nt):
        good &= (s[i2] >= lo) & (s[i2] <= hi)
    return good


@njit(**_opts)
def _costs(Q, C32, cost, nt):
    """cost[m, i] = sum_j Q[j, i] C32[j, m] in float32, for the nt rows of the tile, added in
    class order: four classes j and two classes m at a time (each load of Q serves two costs;
    the first four classes j write the costs, the others add to them)."""
    k = Q.shape[0]
    j = 0
    while j + 4 <= k:
        q0 = Q[j]
        q1 = Q[j + 1]
        q2 = Q[j + 2]
        q3 = Q[j + 3]
        m = 0
        while m + 2 <= k:
            cm = cost[m]
            cn = cost[m + 1]
            a0, a1, a2, a3 = C32[j, m], C32[j + 1, m], C32[j + 2, m], C32[j + 3, m]
            b0, b1 = C32[j, m + 1], C32[j + 1, m + 1]
            b2, b3 = C32[j + 2, m + 1], C32[j + 3, m + 1]
            if j == 0:
                for ii in range(nt):
                    x0 = q0[ii]
                    x1 = q1[ii]
                    x2 = q2[ii]
                    x3 = q3[ii]
                    cm[ii] = ((x0 * a0 + x1 * a1) + x2 * a2) + x3 * a3
                    cn[ii] = ((x0 * b0 + x1 * b1) + x2 * b2) + x3 * b3
            else:
                for ii in range(nt):
                    x0 = q0[ii]
                    x1 = q1[ii]
                    x2 = q2[ii]
                    x3 = q3[ii]
                    cm[ii] = (((cm[ii] + x0 * a0) + x1 * a1) + x2 * a2) + x3 * a3
                    cn[ii] = (((cn[ii] + x0 * b0) + x1 * b1) + x2 * b2) + x3 * b3
            m += 2
        if m < k:
            cm = cost[m]
            a0, a1, a2, a3 = C32[j, m], C32[j + 1, m], C32[j + 2, m], C32[j + 3, m]
            if j == 0:
                for ii in range(nt):
                    cm[ii] = ((q0[ii] * a0 + q1[ii] * a1) + q2[ii] * a2) + q3[ii] * a3
            else:
                for ii in range(nt):
                    cm[ii] = (((cm[ii] + q0[ii] * a0) + q1[ii] * a1) + q2[ii] * a2) + q3[ii] * a3
        j += 4
    if j == 0:  # K < 4: the first class writes the costs
        q0 = Q[0]
        for m in range(k):
            cm = cost[m]
            a0 = C32[0, m]
            for ii in range(nt):
                cm[ii] = q0[ii] * a0
        j = 1
    for jj in range(j, k):
        q0 = Q[jj]
        for m in range(k):
            cm = cost[m]
            a0 = C32[jj, m]
            for ii in range(nt):
                cm[ii] = cm[ii] + q0[ii] * a0


@njit(**_opts)
def _pick_step(v, a, b, c, f):
    """One class m (cost v, index f) into (least a, second least b, class c of a)."""
    up = v < a
    w = a if up else v
    return (v if up else a), (w if w < b else b), (f if up else c)


@njit(**_opts)
def _pick(cost, low, second, cand, nt, out, t0, limit):
    """The class of least float32 cost of each row (ties: the lowest), written to out when
    the second least is more than ``limit`` above it, else -1 (a near tie); True when some
    row is a near tie. Four classes at a time (one load and store of the running minimum;
    classes 0 to 4 straight from the costs), each loop over the rows of the tile compiled to
    vector instructions."""
    k = cost.shape[0]
    c0 = cost[0]
    inf = np.float32(np.inf)
    m = 1
    if k >= 5:
        ca, cb, cc, cd = cost[1], cost[2], cost[3], cost[4]
        f0 = np.float32(0.0)
        fa, fb = np.float32(1.0), np.float32(2.0)
        fc, fd = np.float32(3.0), np.float32(4.0)
        for ii in range(nt):
            a, b, c = _pick_step(ca[ii], c0[ii], inf, f0, fa)
            a, b, c = _pick_step(cb[ii], a, b, c, fb)
            a, b, c = _pick_step(cc[ii], a, b, c, fc)
            a, b, c = _pick_step(cd[ii], a, b, c, fd)
            low[ii] = a
            second[ii] = b
            cand[ii] = c
        m = 5
    else:
        for ii in range(nt):
            low[ii] = c0[ii]
            second[ii] = inf
            cand[ii] = 0.0
    while m + 4 <= k:
        ca, cb, cc, cd = cost[m], cost[m + 1], cost[m + 2], cost[m + 3]
        fa, fb = np.float32(m), np.float32(m + 1)
        fc, fd = np.float32(m + 2), np.float32(m + 3)
        for ii in range(nt):
            a, b, c = _pick_step(ca[ii], low[ii], second[ii], cand[ii], fa)
            a, b, c = _pick_step(cb[ii], a, b, c, fb)
            a, b, c = _pick_step(cc[ii], a, b, c, fc)
            a, b, c = _pick_step(cd[ii], a, b, c, fd)
            low[ii] = a
            second[ii] = b
            cand[ii] = c
        m += 4
    for mm in range(m, k):
        cm = cost[mm]
        fm = np.float32(mm)
        for ii in range(nt):
            low[ii], second[ii], cand[ii] = _pick_step(cm[ii], low[ii], second[ii], cand[ii], fm)
    # a view of the tile's rows of out: indices from 0, which the compiler knows are not
    # negative (no wraparound test per row), so the loop compiles to vector instructions
    tile = out[t0 : t0 + nt]
    near = 0
    for ii in range(nt):
        sure = (second[ii] - low[ii]) > limit  # False for NaN
        near += not sure
        tile[ii] = np.int64(cand[ii]) if sure else -1
    return near > 0


@njit(**_opts)
def _rows(P, C, C32, out, slack, lo, hi, limit, start, stop):
    """Rows start..stop of :func:`decide_general`, tile by tile; a tile's near ties take
    :func:`general_row` at once. True when every entry is in [0, 1] and every row sum in
    [lo, hi]. (The serial path, and each block of the parallel kernel.)"""
    k = P.shape[1]
    t = min(TILE, max(32, (64 * TILE // k) // 16 * 16))  # rows of a tile
    w = t + 8  # the buffers' row length: no power-of-two stride
    Q = np.empty((k, w), dtype=np.float32)
    cost = np.empty((k, w), dtype=np.float32)
    s = np.empty(t)
    low = np.empty(t, dtype=np.float32)
    second = np.empty(t, dtype=np.float32)
    cand = np.empty(t, dtype=np.float32)
    row = np.empty(k)
    ok = True
    for t0 in range(start, stop, t):
        nt = min(t, stop - t0)
        ok &= _transpose(P, t0, nt, Q, s, lo, hi)
        _costs(Q, C32, cost, nt)
        if _pick(cost, low, second, cand, nt, out, t0, limit):
            for i in range(t0, t0 + nt):  # the near ties: the float64 K x K costs
                if out[i] < 0:
                    out[i] = general_row(P, C, i, k, row, slack)[3]
    return ok


@njit(parallel=True, **_opts)
def general_rows(P, C, C32, out, slack, lo, hi, limit):
    """The blocks of :data:`GENERAL_BLOCK` rows of :func:`decide_general` in parallel (numba
    ``prange``; each block is :func:`_rows`, as the serial path)."""
    n = P.shape[0]
    nb = (n + GENERAL_BLOCK - 1) // GENERAL_BLOCK
    good = np.empty(nb, dtype=np.bool_)
    for b in prange(nb):
        start = b * GENERAL_BLOCK
        stop = min(n, start + GENERAL_BLOCK)
        good[b] = _rows(P, C, C32, out, slack, lo, hi, limit, start, stop)
    return good.all()


def decide_general(
    P: np.ndarray,
    C: np.ndarray,
    out: np.ndarray,
    slack: float,
    lo: float,
    hi: float,
    parallel: bool,
) -> bool:
    """Write each row's ``min_cost`` decision under the general matrix ``C`` into ``out``:
    the decision of :func:`general_row`, in blocks of :data:`GENERAL_BLOCK` rows in parallel
    (:func:`general_rows`) when ``parallel``, else in one call of :func:`_rows` (the same
    decisions). True when every entry is in [0, 1] and every row sum in [lo, hi] (False
    sends the input to the full check of ``decide``).

    With cmax the largest cost, the float32 pass works on C / cmax: its costs a_m differ
    from the exact ones, sum_j p_j C[j, m] / cmax, by at most (K + 2) u s (u = 2^-24: the
    rounding of p_j and C[j, m] / cmax to float32, of the products and of the K - 1
    additions; a few 2^-140 more where an entry underflows), and the float64 costs of
    :func:`general_row` by at most K 2^-53 s cmax. With s <= 2 (true of every row that can
    pass the full check, its sum being 1 within the row-sum tolerance; any other row is
    reported), a gap ``limit`` = tol + 8 (K + 2) u (tol = slack / cmax, ``limit`` rounded
    up to float32) between the least and the second least a_m leaves, between the float64
    cost of that class and that of every other, more than ``slack`` plus the rounding of
    ``low + slack``: the float64 decision is that class. A smaller gap (a near tie, or equal
    least costs) sends the row to :func:`general_row`, as does every row when cmax is 0 or
    outside [2^-1000, 2^1000] (where 1 / cmax or a float64 cost could overflow).

    Examples
    --------
    Through ``decide``, which checks the input and the matrix first:

    >>> from ordmetrics.metrics.decisions import decide
    >>> P = [[0.2, 0.5, 0.3], [0.8, 0.1, 0.1]]
    >>> C = [[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [5.0, 2.0, 0.0]]  # C[true, predicted]
    >>> decide(P, "min_cost", costs=C).tolist()
    [1, 0]
    """
    n, k = P.shape
    cmax = float(C.max())
    # 0 (every row to general_row) for costs that are all 0, or so small or large that
    # 1 / cmax or the float64 costs could overflow
    scale = 1.0 / cmax if 2.0**-1000 < cmax < 2.0**1000 else 0.0
    C32 = (C * scale).astype(np.float32)  # C[j, m] * scale rounded to float32, as in a loop
    limit = np.float32((slack * scale + 8.0 * (k + 2) * _U32) * (1.0 + 4.0 * _U32))
    if parallel:
        return bool(GENERAL_KERNEL(P, C, C32, out, slack, lo, hi, limit))
    return bool(SERIAL_KERNEL(P, C, C32, out, slack, lo, hi, limit, 0, n))


#: The lazy kernels, kept under names of their own: on the first call of a kernel (or any
#: look-up of an attribute of numba's) its module name is rebound to the numba dispatcher.
GENERAL_KERNEL = general_rows
SERIAL_KERNEL = _rows
