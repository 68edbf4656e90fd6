"""The compiled loops of the uniform bins of :mod:`ordmetrics.metrics.calibration.fused`.

The rows are read in blocks of about ``BLOCK`` values (whole rows, in row order): loops over a
block check the class indices and weights, form the forecasts where they are not the values
themselves and find the uniform bin of every forecast (:func:`_fill_bins`), all on vector
instructions; a last loop adds each (row, event) to the table of its bin, row by row, the sums
of a bin side by side in one vector addition (:data:`~ordmetrics._core.jit.vector_add4`: lane by
lane, the additions of scalar code, bit for bit). The rows split into chunks (the split depends
on N only) run in parallel on numba's threads; each chunk adds its rows in row order into its
own table.

The sums of the three views are three kernels (:func:`run_uniform_sums` picks one; each is
compiled on its first use, and the compiler optimises each loop on its own). Where a row has
at most ``UNROLL`` values, the loops over a row's values run a fixed count of steps, the steps
beyond K skipped (the compiler unrolls them: no loop set-up per row); the values are added in
the same order either way; in :func:`_uniform_moments` the longer rows run in functions of
their own (the unrolled loops compile leaner without the plain ones beside them).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange
from ordmetrics._core.jit import vector_add4 as _vadd4
from ordmetrics._core.parallel import run_kernel
from ordmetrics.metrics.calibration.fused_kernels import JIT_OPTIONS, _chunk, _uniform_bin

__all__ = [
    "BLOCK",
    "FLUSH_BLOCKS",
    "UNROLL",
    "merge_moments",
    "run_uniform_sums",
    "sample_shifts",
    "weight_bits",
]

#: Values per block of rows (whole rows: at least one row per block).
BLOCK = 1024

#: Blocks of rows whose sums of w d (per outcome) and score terms are added in a part of their
#: own, then to the chunk's (two-level sums: the signed differences keep their precision).
FLUSH_BLOCKS = 4

#: Slots per (event, bin) of the tables of :func:`run_uniform_sums` (one 32-byte vector) and
#: of :func:`_uniform_moments` (two: one per outcome).
_SUM_SLOTS = 4
_MOMENT_SLOTS = 8

#: Rows of at most this many values (K <= UNROLL) run through loops of this fixed count, the
#: steps beyond K skipped (unrolled by the compiler: no loop set-up per row); longer rows
#: through plain loops.
UNROLL = 8


#: int64 bounds, the bits of -0.0 (the smallest int64) and of +inf (NaN lies above).
_INT_MAX = np.int64(0x7FFFFFFFFFFFFFFF)
_NEG_ZERO = np.int64(-0x7FFFFFFFFFFFFFFF - 1)


@njit(**JIT_OPTIONS)
def weight_bits(wb):
    """Over the bits of the weights (``wb = w.view(np.int64)``): the largest, the smallest
    positive (``_INT_MAX``: none) and the smallest, -0.0 counted as 0 (integer minima and
    maxima: loops on vector instructions). Non-negative doubles order as their bits; a negative
    weight has negative bits, +inf and NaN bits at or above those of +inf."""
    hi = np.int64(0)
    lo_pos = _INT_MAX
    lo = _INT_MAX
    for i in range(wb.size):
        b = wb[i]
        b = np.int64(0) if b == _NEG_ZERO else b
        hi = max(hi, b)
        lo = min(lo, b)
        lo_pos = min(lo_pos, b if b > 0 else _INT_MAX)
    return hi, lo_pos, lo


@njit(**JIT_OPTIONS)
def sample_shifts(Pf, K, step, cumulative, n_bins, tol_b, shifts):
    """The shifts of :func:`_uniform_moments`, ``shifts[e B + b]`` for E = ``shifts.size / B``
    events and B = ``n_bins`` bins: the mean forecast of bin b of event e over the rows 0,
    ``step``, 2 ``step``, ... of the flat matrix ``Pf`` (K values a row), or where none of
    those rows falls in the bin, its centre (b + 1/2) / B.

    The forecasts are p_k (classwise) or F_k (``cumulative``: added in the order of
    ``np.cumsum``), read as float64; the values are not checked yet, so NaN counts as 0 and
    the forecasts are clipped to [0, 1] (any finite shift gives the same sums up to rounding).
    Each forecast goes to the bin of :func:`_uniform_bin`, and the sums of a bin are added in
    row order, as ``np.bincount`` adds them. One serial pass over the sampled rows (a few
    thousand) with no temporary arrays: the NumPy version of the same steps took 0.1-0.25 ms,
    most of it the fixed cost of a dozen calls.
    """
    E = shifts.size // n_bins
    n = Pf.size // K
    count = np.zeros(shifts.size, dtype=np.int64)
    total = np.zeros(shifts.size)
    for i in range(0, n, step):
        t = 0.0
        for k in range(E):
            v = np.float64(Pf[i * K + k])
            t += v
            f = t if cumulative else v
            f = 0.0 if np.isnan(f) else f
            f = 0.0 if f < 0.0 else (1.0 if f > 1.0 else f)
            m = k * n_bins + _uniform_bin(f, n_bins, tol_b)
            count[m] += 1
            total[m] += f
    for m in range(shifts.size):
        centre = (np.float64(m % n_bins) + 0.5) / n_bins
        shifts[m] = total[m] / count[m] if count[m] > 0 else centre
    return shifts


@njit(inline="always", **JIT_OPTIONS)
def _chunk_mean(moms, c, e, b, ref):
    """(W_c, W_c or 1 where 0, S_d, m_c) of chunk c and (event, bin) (e, b) of
    :func:`merge_moments`: m_c = (s_c - r) + S_d / W_c, 0 in an empty chunk."""
    w_c = moms[c, e, b, 0]
    safe_c = w_c if w_c > 0.0 else 1.0
    s_d = moms[c, e, b, 1]
    m_c = ((moms[c, e, b, 6] - ref) + s_d / safe_c) if w_c > 0.0 else 0.0
    return w_c, safe_c, s_d, m_c


@njit(**JIT_OPTIONS)
def merge_moments(moms, max_ratio, out):
    """Combine the chunks of :func:`_uniform_moments`: ``moms`` (C, E, B, 7) holds per chunk
    and (event, bin) W_c, S_d, S_dd, -, S_o, S_od and the shift s_c. Writes ``out`` (5, E, B):
    the weight, the mean forecast (0 in an empty bin), the sum of w o, and the within-bin
    sums WBV and WBC; returns False (WBV and WBC are then not to be used) when an event's
    shifted sums of squares S_dd exceed ``max_ratio`` times its sums M_c (over its chunks
    and bins).

    Per chunk: m_c = (s_c - r) + S_d / W_c (r the shift of the first chunk holding weight),
    o_c = S_o / W_c, M_c = S_dd - S_d^2 / W_c, C_c = S_od - S_o S_d / W_c; then over the
    chunks, added in their order: W = sum W_c, S_o = sum S_o, m = sum W_c m_c / W,
    f_b = r + m, WBV = sum M_c + sum W_c (m_c - m)^2 and
    WBC = sum C_c + sum W_c (m_c - m)(o_c - S_o / W) (Chan, Golub and LeVeque's formula).
    The operations of the NumPy version this replaces, in the same order (the same bits);
    one compiled call instead of about fifty NumPy calls on small arrays (0.2-0.3 ms). Each
    sum over the chunks starts from the first chunk's term, not from 0.0 + it (as NumPy's
    copy of the first table: a -0.0 term stays -0.0).
    """
    C, E, B = moms.shape[0], moms.shape[1], moms.shape[2]
    ok = True
    for e in range(E):
        sq_all = 0.0
        dd_all = 0.0
        for b in range(B):
            first = 0
            for c in range(C):
                if moms[c, e, b, 0] > 0.0:
                    first = c
                    break
            ref = moms[first, e, b, 6]
            weight = 0.0
            sum_o = 0.0
            sum_wm = 0.0
            for c in range(C):
                w_c, safe_c, s_d, m_c = _chunk_mean(moms, c, e, b, ref)
                weight = w_c if c == 0 else weight + w_c
                sum_o = moms[c, e, b, 4] if c == 0 else sum_o + moms[c, e, b, 4]
                sum_wm = w_c * m_c if c == 0 else sum_wm + w_c * m_c
            safe = weight if weight > 0.0 else 1.0
            m = sum_wm / safe
            out[0, e, b] = weight
            out[1, e, b] = ref + m if weight > 0.0 else 0.0
            out[2, e, b] = sum_o
            mean_o = sum_o / safe
            sq = 0.0
            co = 0.0
            sq_m = 0.0
            co_m = 0.0
            for c in range(C):
                w_c, safe_c, s_d, m_c = _chunk_mean(moms, c, e, b, ref)
                s_o = moms[c, e, b, 4]
                o_c = s_o / safe_c
                sq_c = moms[c, e, b, 2] - s_d * s_d / safe_c
                co_c = moms[c, e, b, 5] - s_o * s_d / safe_c
                sq_all += sq_c
                dd_all += moms[c, e, b, 2]
                dev = m_c - m if w_c > 0.0 else 0.0
                wdev = w_c * dev
                sq = sq_c if c == 0 else sq + sq_c
                co = co_c if c == 0 else co + co_c
                sq_m = wdev * dev if c == 0 else sq_m + wdev * dev
                co_m = wdev * (o_c - mean_o) if c == 0 else co_m + wdev * (o_c - mean_o)
            out[3, e, b] = sq + sq_m
            out[4, e, b] = co + co_m
        ok &= sq_all * max_ratio >= dd_all
    return ok


@njit(inline="always", **JIT_OPTIONS)
def _fill_bins(f, n, bins, n_bins, tol_b):
    """``bins[j]`` = :func:`~ordmetrics.metrics.calibration.fused_kernels._uniform_bin` of
    ``f[j]``, j < n, written without branches so that the loop runs on vector instructions;
    returns the number of values outside [0, 1] (NaN included)."""
    fb = np.float64(n_bins)
    out = 0
    for j in range(n):
        v = np.float64(f[j])
        out += np.int64(not ((v >= 0.0) & (v <= 1.0)))
        x = v * fb
        x = x if x > 0.0 else 0.0
        x = x if x < fb else fb
        b = np.int64(x)
        b += np.int64((np.float64(b) + 1.0) - x <= tol_b)
        bins[j] = b if b < n_bins else n_bins - 1
    return out


@njit(inline="always", **JIT_OPTIONS)
def _n_outside(f):
    """The number of values of ``f`` outside [0, 1] (NaN included), on vector instructions."""
    out = 0
    for j in range(f.size):
        v = np.float64(f[j])
        out += np.int64(not ((v >= 0.0) & (v <= 1.0)))
    return out


@njit(inline="always", **JIT_OPTIONS)
def _n_bad_rows(yb, wb, ws, K, check):
    """The number of rows whose class index (``yb``) is outside [0, K) or, with ``check`` 2,
    whose weight (``wb * ws``; None: unweighted) is not finite and >= 0 (NaN included): loops
    on vector instructions."""
    out = 0
    for i in range(yb.size):
        yi = yb[i]
        out += np.int64((yi < 0) | (yi >= K))
    if wb is not None and check == 2:
        for i in range(wb.size):
            wi = wb[i] * ws
            out += np.int64(not ((wi >= 0.0) & (wi < np.inf)))
    return out


@njit(inline="always", **JIT_OPTIONS)
def _cumulate(blk, K, nr, fbuf, tol):
    """``fbuf[r K + k]`` = F_k of row r of the block (added in the order of ``np.cumsum``);
    returns the number of values outside [0, 1] and of rows whose sum F_K is off."""
    n_bad = _n_outside(blk)
    if K <= UNROLL:
        for r in range(nr):
            t = 0.0
            for k in range(UNROLL):  # a fixed count: unrolled, no loop
                if k < K:
                    t += np.float64(blk[r * K + k])
                    fbuf[r * K + k] = t
            n_bad += np.int64(not (abs(t - 1.0) <= tol))
        return n_bad
    for r in range(nr):
        t = 0.0
        for k in range(K):
            t += np.float64(blk[r * K + k])
            fbuf[r * K + k] = t
        n_bad += np.int64(not (abs(t - 1.0) <= tol))
    return n_bad


@njit(inline="always", **JIT_OPTIONS)
def _copy_sums(tab, out):
    """``out[e, b, j] = tab[(e B + b) 4 + j]``, j < 3 (plain loops: numba's sliced assignment
    between 3-D arrays costs seconds of compilation on first use)."""
    E, B = out.shape[0], out.shape[1]
    for e in range(E):
        for b in range(B):
            for j in range(3):
                out[e, b, j] = tab[(e * B + b) * _SUM_SLOTS + j]


@njit(parallel=True, **JIT_OPTIONS)
def _top_label_sums(Pf, K, y, w, ws, n_bins, tol, tol_b, check, sums):
    """:func:`run_uniform_sums` of the top label: the confidence, and whether the argmax (the
    lowest class on ties) is y."""
    N = y.size
    C = sums.shape[0]
    R = max(1, BLOCK // K)
    S = _SUM_SLOTS
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros(n_bins * S)  # (w, w f, w o, 0) per bin
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K, check)
            n_bad += _n_outside(blk)
            for r in range(nr):
                i = np.uint64(i0 + r)  # unsigned: no wraparound
                yi = y[i]
                wi = 1.0
                if w is not None:
                    wi = w[i] * ws
                t = 0.0
                best = -1.0
                arg = 0
                for k in range(K):
                    v = np.float64(blk[r * K + k])
                    t += v
                    gt = v > best
                    arg = k if gt else arg
                    best = v if gt else best
                b = _uniform_bin(best, n_bins, tol_b)
                _vadd4(tab, np.uint64(b * S), wi, wi * best, wi if arg == yi else 0.0, 0.0)
                n_bad += np.int64(not (abs(t - 1.0) <= tol))
        _copy_sums(tab, sums[c])
        bad[c] = n_bad if check else 0
    return bad.sum()


@njit(parallel=True, **JIT_OPTIONS)
def _classwise_sums(Pf, K, y, w, ws, n_bins, tol, tol_b, check, sums):
    """:func:`run_uniform_sums` of the classwise events: p_k for y = k."""
    N = y.size
    C = sums.shape[0]
    R = max(1, BLOCK // K)
    S = _SUM_SLOTS
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros(K * n_bins * S)  # (w, w f, w o, 0) per (event, bin)
        bins = np.empty(R * K, dtype=np.int64)
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K, check)
            n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
            for r in range(nr):
                i = np.uint64(i0 + r)  # unsigned: no wraparound
                yi = y[i]
                wi = 1.0
                if w is not None:
                    wi = w[i] * ws
                t = 0.0
                if K <= UNROLL:
                    for k in range(UNROLL):  # a fixed count: unrolled, no loop
                        if k < K:
                            v = np.float64(blk[r * K + k])
                            t += v
                            j = np.uint64((k * n_bins + bins[r * K + k]) * S)
                            _vadd4(tab, j, wi, wi * v, wi if k == yi else 0.0, 0.0)
                else:
                    for k in range(K):
                        v = np.float64(blk[r * K + k])
                        t += v
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)
                        _vadd4(tab, j, wi, wi * v, wi if k == yi else 0.0, 0.0)
                n_bad += np.int64(not (abs(t - 1.0) <= tol))
        _copy_sums(tab, sums[c])
        bad[c] = n_bad if check else 0
    return bad.sum()


@njit(parallel=True, **JIT_OPTIONS)
def _cumulative_sums(Pf, K, y, w, ws, n_bins, tol, tol_b, check, sums):
    """:func:`run_uniform_sums` of the cumulative events: F_k = F_{k-1} + p_k (the order of
    ``np.cumsum``) for y <= k."""
    N = y.size
    C = sums.shape[0]
    R = max(1, BLOCK // K)
    S = _SUM_SLOTS
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros((K - 1) * n_bins * S)  # (w, w f, w o, 0) per (event, bin)
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K, check)
            n_bad += _cumulate(blk, K, nr, fbuf, tol)
            _fill_bins(fbuf, nr * K, bins, n_bins, tol_b)
            for r in range(nr):
                i = np.uint64(i0 + r)  # unsigned: no wraparound
                yi = y[i]
                wi = 1.0
                if w is not None:
                    wi = w[i] * ws
                if K <= UNROLL:
                    for k in range(UNROLL - 1):  # a fixed count: unrolled, no loop
                        if k < K - 1:
                            f = fbuf[r * K + k]
                            j = np.uint64((k * n_bins + bins[r * K + k]) * S)
                            _vadd4(tab, j, wi, wi * f, wi if yi <= k else 0.0, 0.0)
                else:
                    for k in range(K - 1):
                        f = fbuf[r * K + k]
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)
                        _vadd4(tab, j, wi, wi * f, wi if yi <= k else 0.0, 0.0)
        _copy_sums(tab, sums[c])
        bad[c] = n_bad if check else 0
    return bad.sum()


#: The kernels of :func:`run_uniform_sums`, by view code.
_SUM_KERNELS = (_top_label_sums, _classwise_sums, _cumulative_sums)


def run_uniform_sums(
    Pf: np.ndarray,
    K: int,
    y: np.ndarray,
    w: np.ndarray | None,
    ws: float,
    view: int,
    n_bins: int,
    tol: float,
    tol_b: float,
    check: int,
    sums: np.ndarray,
) -> int:
    """Validate every row and add w, w f, w o per (event, uniform bin) (``view``: 0 top
    label, 1 classwise, 2 cumulative; one kernel each, compiled on its first use).

    ``Pf``: the N x K probabilities as one C-ordered vector. ``sums`` (C, E, B, 3): chunk c of
    the rows adds into a table of its own in row order (the three sums of a bin and a fourth
    slot, always 0, in one :data:`~ordmetrics._core.jit.vector_add4`; w o adds 0 where the event
    did not happen, which leaves a sum unchanged), copied to ``sums[c]``; the caller adds the C
    tables up in their order (one chunk below 2 ``_MIN_CHUNK_ROWS`` rows: the sums of
    ``np.bincount``, bit for bit). Returns the number of invalid rows and values (``check``
    0: not checked; 1: the values and class indices; 2: the weights too); when there are any,
    the sums are discarded (the caller validates the slow way).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused_uniform import run_uniform_sums
    >>> P = np.array([[0.8, 0.2], [0.4, 0.6]])
    >>> sums = np.zeros((1, 2, 2, 3))  # one chunk, two events (classwise), two bins
    >>> run_uniform_sums(P.ravel(), 2, np.array([0, 1]), None, 1.0, 1, 2, 1e-6, 2e-12, 1, sums)
    0
    >>> sums[0, 0].tolist()  # class 0: p = 0.4 in bin 0, p = 0.8 (the event) in bin 1
    [[1.0, 0.4, 0.0], [1.0, 0.8, 1.0]]
    """
    args = (Pf, K, y, w, ws, n_bins, tol, tol_b, check, sums)
    return int(run_kernel(_SUM_KERNELS[view], Pf.size, *args))


@njit(inline="always", **JIT_OPTIONS)
def _compensated(acc, x):
    """Neumaier's step: ``acc`` (sum, compensation) plus x."""
    s = acc[0]
    t = s + x
    if abs(s) >= abs(x):
        acc[1] += (s - t) + x
    else:
        acc[1] += (x - t) + s
    acc[0] = t


@njit(inline="always", **JIT_OPTIONS)
def _flush(tab, part):
    """Add the parts of w d of the two outcomes (slots 1 and 5) to the chunk's sums S_d0 and
    S_d1 (``part`` slots 0 and 1) and the parts of the score terms (slots 3 and 7, outcome 0
    then 1) to the compensated sum of ``part`` slots 2 and 3 (sum, compensation); the parts
    start again from 0."""
    for m in range(tab.size // _MOMENT_SLOTS):
        j = m * _MOMENT_SLOTS
        p = m * 4
        part[p] += tab[j + 1]
        part[p + 1] += tab[j + 5]
        _compensated(part[p + 2 : p + 4], tab[j + 3])
        _compensated(part[p + 2 : p + 4], tab[j + 7])
        tab[j + 1] = 0.0
        tab[j + 3] = 0.0
        tab[j + 5] = 0.0
        tab[j + 7] = 0.0


@njit(inline="always", **JIT_OPTIONS)
def _add_moments(tab, m, o, wi, d, ds):
    """Add w, w d, w d^2 and the score term w (f - o)^2 (``ds`` = f - o) to the entry of the
    outcome ``o`` (0 or 1) of (event, bin) ``m``: slots 8 m + 4 o to 8 m + 4 o + 3, one
    vector."""
    wd = wi * d
    j = m * np.uint64(_MOMENT_SLOTS) + o * np.uint64(4)
    _vadd4(tab, j, wi, wd, wd * d, (wi * ds) * ds)


@njit(**JIT_OPTIONS)
def _classwise_long_rows(tab, blk, bins, y, w, ws, i0, nr, K, n_bins, tol, shifts):
    """The classwise rows of a block of :func:`_uniform_moments` of more than ``UNROLL``
    values (plain loops; a function of its own, not inlined: the unrolled loop of the short
    rows runs 10-20% faster without it, K = 5); returns the number of rows whose sum is off."""
    n_bad = 0
    for r in range(nr):
        i = np.uint64(i0 + r)  # unsigned: no wraparound
        yi = y[i]
        wi = 1.0
        if w is not None:
            wi = w[i] * ws
        t = 0.0
        for k in range(K):
            v = np.float64(blk[r * K + k])
            t += v
            m = np.uint64(k * n_bins + bins[r * K + k])
            o = k == yi
            _add_moments(tab, m, np.uint64(o), wi, v - shifts[m], v - o)
        n_bad += np.int64(not (abs(t - 1.0) <= tol))
    return n_bad


@njit(**JIT_OPTIONS)
def _cumulative_long_rows(tab, fbuf, bins, y, w, ws, i0, nr, K, n_bins, shifts):
    """The cumulative rows of a block of :func:`_uniform_moments` of more than ``UNROLL``
    values (as :func:`_classwise_long_rows`)."""
    for r in range(nr):
        i = np.uint64(i0 + r)  # unsigned: no wraparound
        yi = y[i]
        wi = 1.0
        if w is not None:
            wi = w[i] * ws
        for k in range(K - 1):
            f = fbuf[r * K + k]
            m = np.uint64(k * n_bins + bins[r * K + k])
            o = yi <= k
            _add_moments(tab, m, np.uint64(o), wi, f - shifts[m], f - o)


@njit(parallel=True, **JIT_OPTIONS)
def _uniform_moments(Pf, K, y, w, ws, view, n_bins, tol, tol_b, check, shifts, moms, scores):
    """Validate every row and add, per (event, uniform bin) and outcome o (0 or 1), w, w d,
    w d^2 and the score terms w (f - o)^2, with d = f - s the difference from the shift s of
    the bin (``shifts``: E B finite values, in (event, bin) order).

    Chunk c of the rows adds in row order into a table of its own, 8 slots per (event, bin):
    the 4 sums of outcome 0 then those of outcome 1, a row adding to those of its outcome in
    one :data:`~ordmetrics._core.jit.vector_add4` per event (classwise: o = [y = k];
    cumulative: o = [y <= k]); w d and the score terms in parts of ``FLUSH_BLOCKS`` blocks of
    rows, then added to the chunk's sums (the score terms by Neumaier's compensated summation,
    per (event, bin), outcome 0 then 1). ``moms`` (C, E, B, 7): the bin's W = W_0 + W_1,
    S_d = S_d0 + S_d1, S_dd = S_dd0 + S_dd1 (each added in that order), (unused),
    S_o = W_1, S_od = S_d1 and the shift of each bin (W_o, S_do, S_ddo: the row-order sums of
    the rows of outcome o); ``scores[c]``: the chunk's score (sum, compensation), its
    (event, bin) sums compensated in their order. The caller turns each chunk's sums into the
    bin's weight, means, and sums of squared and crossed deviations from the means, and merges
    the chunks in their order. Returns the number of invalid rows and values (``check`` as
    :func:`run_uniform_sums`); when there are any, the sums are discarded.
    """
    N = y.size
    C = moms.shape[0]
    E = moms.shape[1]
    R = max(1, BLOCK // K)
    S = _MOMENT_SLOTS
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros(E * n_bins * S)
        part = np.zeros(E * n_bins * 4)  # S_d0, S_d1, score (sum, compensation)
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        n_blocks = 0
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K, check)
            if view == 1:  # classwise: p_k, o = [y = k]
                n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
                if K > UNROLL:  # long rows: a function of their own (the loop below stays lean)
                    n_bad += _classwise_long_rows(
                        tab, blk, bins, y, w, ws, i0, nr, K, n_bins, tol, shifts
                    )
                else:
                    for r in range(nr):
                        i = np.uint64(i0 + r)  # unsigned: no wraparound
                        yi = y[i]
                        wi = 1.0
                        if w is not None:
                            wi = w[i] * ws
                        t = 0.0
                        for k in range(UNROLL):  # a fixed count: unrolled, no loop
                            if k < K:
                                v = np.float64(blk[r * K + k])
                                t += v
                                m = np.uint64(k * n_bins + bins[r * K + k])
                                o = k == yi
                                _add_moments(tab, m, np.uint64(o), wi, v - shifts[m], v - o)
                        n_bad += np.int64(not (abs(t - 1.0) <= tol))
            else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum), o = [y <= k]
                n_bad += _cumulate(blk, K, nr, fbuf, tol)
                _fill_bins(fbuf, nr * K, bins, n_bins, tol_b)
                if K > UNROLL:  # long rows: a function of their own (the loop below stays lean)
                    _cumulative_long_rows(tab, fbuf, bins, y, w, ws, i0, nr, K, n_bins, shifts)
                else:
                    for r in range(nr):
                        i = np.uint64(i0 + r)  # unsigned: no wraparound
                        yi = y[i]
                        wi = 1.0
                        if w is not None:
                            wi = w[i] * ws
                        for k in range(UNROLL - 1):  # a fixed count: unrolled, no loop
                            if k < K - 1:
                                f = fbuf[r * K + k]
                                m = np.uint64(k * n_bins + bins[r * K + k])
                                o = yi <= k
                                _add_moments(tab, m, np.uint64(o), wi, f - shifts[m], f - o)
            n_blocks += 1
            if n_blocks == FLUSH_BLOCKS:
                _flush(tab, part)
                n_blocks = 0
        _flush(tab, part)
        out = moms[c]
        acc = np.zeros(2)
        for e in range(E):
            for b in range(n_bins):
                m = e * n_bins + b
                j = m * S
                p = m * 4
                out[e, b, 0] = tab[j] + tab[j + 4]
                out[e, b, 1] = part[p] + part[p + 1]
                out[e, b, 2] = tab[j + 2] + tab[j + 6]
                out[e, b, 4] = tab[j + 4]
                out[e, b, 5] = part[p + 1]
                out[e, b, 6] = shifts[m]
                _compensated(acc, part[p + 2])
                acc[1] += part[p + 3]
        scores[c, 0] = acc[0]
        scores[c, 1] = acc[1]
        bad[c] = n_bad if check else 0
    return bad.sum()
