"""The compiled loops of the uniform bins of :mod:`ordmetrics.metrics.calibration.fused`.

The rows are read in blocks of about ``BLOCK`` values (whole rows, in row order): loops over a
block check the class indices and weights, form the forecasts where they are not the values
themselves and find the uniform bin of every forecast (:func:`_fill_bins`), all on vector
instructions; a last loop adds each (row, event) to the table of its bin, row by row, the sums
of a bin side by side in one vector addition (:data:`~ordmetrics._core.jit.vector_add4`: lane by
lane, the additions of scalar code, bit for bit). The rows split into chunks (the split depends
on N only) run in parallel on numba's threads; each chunk adds its rows in row order into its
own table.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange
from ordmetrics._core.jit import vector_add4 as _vadd4
from ordmetrics.metrics.calibration.fused_kernels import JIT_OPTIONS, _chunk, _uniform_bin

__all__ = ["BLOCK", "FLUSH_BLOCKS"]

#: Values per block of rows (whole rows: at least one row per block).
BLOCK = 1024

#: Blocks of rows whose sums of w d and w o d are added in a part of their own, then to the
#: chunk's (two-level sums: the signed differences keep their precision).
FLUSH_BLOCKS = 4

#: Slots per (event, bin) of the tables of :func:`_uniform_sums` (one 32-byte vector) and of
#: :func:`_uniform_moments` (two).
_SUM_SLOTS = 4
_MOMENT_SLOTS = 8


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
def _n_bad_rows(yb, wb, ws, K):
    """The number of rows whose class index (``yb``) is outside [0, K) or whose weight
    (``wb * ws``; None: unweighted) is not finite and >= 0 (NaN included): loops on vector
    instructions."""
    out = 0
    for i in range(yb.size):
        yi = yb[i]
        out += np.int64((yi < 0) | (yi >= K))
    if wb is not None:
        for i in range(wb.size):
            wi = wb[i] * ws
            out += np.int64(not ((wi >= 0.0) & (wi < np.inf)))
    return out


@njit(inline="always", **JIT_OPTIONS)
def _cumulate(blk, K, nr, fbuf, tol):
    """``fbuf[r K + k]`` = F_k of row r of the block (added in the order of ``np.cumsum``);
    returns the number of values outside [0, 1] and of rows whose sum F_K is off."""
    n_bad = _n_outside(blk)
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
def _uniform_sums(Pf, K, y, w, ws, view, n_bins, tol, tol_b, check, sums):
    """Validate every row and add w, w f, w o per (event, uniform bin).

    ``Pf``: the N x K probabilities as one C-ordered vector. ``sums`` (C, E, B, 3): chunk c of
    the rows adds into a table of its own in row order (the three sums of a bin and a fourth
    slot, always 0, in one :data:`~ordmetrics._core.jit.vector_add4`; w o adds 0 where the event
    did not happen, which leaves a sum unchanged), copied to ``sums[c]``; the caller adds the C
    tables up in their order (one chunk below 2 ``_MIN_CHUNK_ROWS`` rows: the sums of
    ``np.bincount``, bit for bit). Returns the number of invalid rows and values (``check``
    False: not checked); when there are any, the sums are discarded (the caller validates the
    slow way).
    """
    N = y.size
    C = sums.shape[0]
    E = sums.shape[1]
    R = max(1, BLOCK // K)
    S = _SUM_SLOTS
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros(E * n_bins * S)  # (w, w f, w o, 0) per (event, bin)
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K)
            if view == 0:  # top label: the confidence, and whether the argmax (lowest) is y
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
            elif view == 1:  # classwise: p_k for y = k
                n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
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
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)  # unsigned: no wraparound
                        _vadd4(tab, j, wi, wi * v, wi if k == yi else 0.0, 0.0)
                    n_bad += np.int64(not (abs(t - 1.0) <= tol))
            else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum) for y <= k
                n_bad += _cumulate(blk, K, nr, fbuf, tol)
                _fill_bins(fbuf, nr * K, bins, n_bins, tol_b)
                for r in range(nr):
                    i = np.uint64(i0 + r)  # unsigned: no wraparound
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    for k in range(K - 1):
                        f = fbuf[r * K + k]
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)  # unsigned: no wraparound
                        _vadd4(tab, j, wi, wi * f, wi if yi <= k else 0.0, 0.0)
        _copy_sums(tab, sums[c])
        bad[c] = n_bad if check else 0
    return bad.sum()


@njit(inline="always", **JIT_OPTIONS)
def _flush(tab):
    """Add the parts of w d and w o d (slots 1 and 4) to the chunk's sums (slots 5 and 6);
    the parts start again from 0."""
    for j in range(0, tab.size, _MOMENT_SLOTS):
        tab[j + 5] += tab[j + 1]
        tab[j + 6] += tab[j + 4]
        tab[j + 1] = 0.0
        tab[j + 4] = 0.0


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
def _shifted(tab, j, f):
    """d = f - s, s the shift of the (event, bin) at slot ``j`` (slot j + 7; where NaN, the
    first forecast the chunk puts there becomes the shift)."""
    s = j + np.uint64(7)
    if tab[j] == 0.0 and np.isnan(tab[s]):  # no shift yet: this forecast
        tab[s] = f
    return f - tab[s]


@njit(parallel=True, **JIT_OPTIONS)
def _uniform_moments(Pf, K, y, w, ws, view, n_bins, tol, tol_b, check, shifts, moms, scores):
    """Validate every row and add, per (event, uniform bin), w, w d, w d^2, w o and w o d,
    with d = f - s the difference from the shift s of the bin (``shifts`` (E, B), NaN: the
    chunk's first forecast in the bin), and the score terms w (f - o)^2 of all events.

    Chunk c of the rows adds in row order into a table of its own, 8 slots per (event, bin): w,
    w d, w d^2, w o in one :data:`~ordmetrics._core.jit.vector_add4` (w o: 0 where the event did
    not happen, which leaves a sum unchanged), then w o d; w d and w o d in parts of
    ``FLUSH_BLOCKS`` blocks of rows, then added to the chunk's sums (slots 5 and 6; slot 7: the
    shift). ``moms`` (C, E, B, 7): w, S_d, S_dd, (unused), S_o, S_od and the shift of each bin.
    The score terms of a block of rows are added plainly (row after row, event after event), the
    block sums with Neumaier's compensated summation into ``scores[c]`` (sum, compensation). The
    caller turns each chunk's sums into the bin's weight, means, and sums of squared and crossed
    deviations from the means, and merges the chunks in their order. Returns the number of
    invalid rows and values (``check`` False: not checked); when there are any, the sums are
    discarded.
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
        for e in range(E):
            for b in range(n_bins):
                tab[(e * n_bins + b) * S + 7] = shifts[e, b]
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        acc = np.zeros(2)
        n_blocks = 0
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if check:
                n_bad += _n_bad_rows(y[i0:i1], None if w is None else w[i0:i1], ws, K)
            block_score = 0.0
            if view == 1:  # classwise: p_k for y = k; w o, w o d added to the event of y only
                n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
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
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)  # unsigned: no wraparound
                        d = _shifted(tab, j, v)
                        wd = wi * d
                        event = k == yi
                        ds = v - 1.0 if event else v
                        _vadd4(tab, j, wi, wd, wd * d, wi if event else 0.0)
                        block_score += (wi * ds) * ds
                        tab[j + np.uint64(4)] += wd if event else 0.0
                    n_bad += np.int64(not (abs(t - 1.0) <= tol))
            else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum) for y <= k
                n_bad += _cumulate(blk, K, nr, fbuf, tol)
                _fill_bins(fbuf, nr * K, bins, n_bins, tol_b)
                for r in range(nr):
                    i = np.uint64(i0 + r)  # unsigned: no wraparound
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    for k in range(K - 1):
                        f = fbuf[r * K + k]
                        j = np.uint64((k * n_bins + bins[r * K + k]) * S)  # unsigned: no wraparound
                        d = _shifted(tab, j, f)
                        wd = wi * d
                        event = yi <= k
                        ds = f - 1.0 if event else f
                        _vadd4(tab, j, wi, wd, wd * d, wi if event else 0.0)
                        block_score += (wi * ds) * ds
                        tab[j + np.uint64(4)] += wd if event else 0.0
            _compensated(acc, block_score)
            n_blocks += 1
            if n_blocks == FLUSH_BLOCKS:
                _flush(tab)
                n_blocks = 0
        _flush(tab)
        out = moms[c]
        for e in range(E):
            for b in range(n_bins):
                j = (e * n_bins + b) * S
                out[e, b, 0] = tab[j]
                out[e, b, 1] = tab[j + 5]
                out[e, b, 2] = tab[j + 2]
                out[e, b, 4] = tab[j + 3]
                out[e, b, 5] = tab[j + 6]
                out[e, b, 6] = tab[j + 7]
        scores[c, 0] = acc[0]
        scores[c, 1] = acc[1]
        bad[c] = n_bad if check else 0
    return bad.sum()
