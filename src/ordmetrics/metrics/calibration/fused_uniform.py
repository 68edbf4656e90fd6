"""The compiled loops of the uniform bins of :mod:`ordmetrics.metrics.calibration.fused`.

The rows are read in blocks of about ``BLOCK`` values (whole rows, in row order): a first
loop over a block forms the forecasts where they are not the values themselves and finds
the uniform bin of every forecast (:func:`_fill_bins`, a loop the compiler turns into vector
instructions), a second adds them to the tables of their bins row by row. The rows split
into chunks (the split depends on N only) run in parallel on numba's threads; each chunk adds
its rows in row order into its own table.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange
from ordmetrics.metrics.calibration.fused_kernels import JIT_OPTIONS, _chunk, _uniform_bin

#: Values per block of rows (whole rows: at least one row per block).
BLOCK = 1024


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
def _copy_slots(tab, out, n):
    """``out[e, b, j] = tab[e, b, j]`` for the first ``n`` slots (plain loops: numba's
    sliced assignment between 3-D arrays costs seconds of compilation on first use)."""
    for e in range(out.shape[0]):
        for b in range(out.shape[1]):
            for j in range(n):
                out[e, b, j] = tab[e, b, j]


@njit(inline="always", **JIT_OPTIONS)
def _row_fine(t, yi, K, wi, tol):
    """Row sum within the tolerance (NaN fails), class index and weight valid."""
    ok = abs(t - 1.0) <= tol
    ok &= (yi >= 0) & (yi < K)
    ok &= (wi >= 0.0) & (wi < np.inf)
    return ok


@njit(parallel=True, **JIT_OPTIONS)
def _uniform_sums(Pf, K, y, w, ws, view, n_bins, tol, tol_b, check, sums):
    """Validate every row and add w, w f, w o per (event, uniform bin).

    ``Pf``: the N x K probabilities as one C-ordered vector. ``sums`` (C, E, B, 3): chunk c of
    the rows adds into a table of its own in row order, copied to ``sums[c]``; the caller adds
    the C tables up in their order (one chunk below 2 ``_MIN_CHUNK_ROWS`` rows: the sums of
    ``np.bincount``, bit for bit: the terms w o = 0 that are skipped leave a sum unchanged).
    Returns the number of invalid rows and values (``check`` False: not checked); when there
    are any, the sums are discarded (the caller validates the slow way).
    """
    N = y.size
    C = sums.shape[0]
    E = sums.shape[1]
    R = max(1, BLOCK // K)
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros((E, n_bins, 4))  # (w, w f, w o, unused): one 32-byte block per bin
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            blk = Pf[i0 * K : i1 * K]
            if view == 0:  # top label: the confidence, and whether the argmax (lowest) is y
                n_bad += _n_outside(blk)
                for r in range(i1 - i0):
                    i = i0 + r
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
                    tab[0, b, 0] += wi
                    tab[0, b, 1] += wi * best
                    tab[0, b, 2] += wi if arg == yi else 0.0
                    n_bad += not _row_fine(t, yi, K, wi, tol)
            elif view == 1:  # classwise: p_k for y = k; w o added to the event of y only
                n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
                for r in range(i1 - i0):
                    i = i0 + r
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    t = 0.0
                    by = 0
                    for k in range(K):
                        v = np.float64(blk[r * K + k])
                        t += v
                        b = bins[r * K + k]
                        tab[k, b, 0] += wi
                        tab[k, b, 1] += wi * v
                        by = b if k == yi else by
                    tab[min(max(yi, 0), K - 1), by, 2] += wi  # an invalid yi: discarded
                    n_bad += not _row_fine(t, yi, K, wi, tol)
            else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum) for y <= k
                n_bad += _cumulate(blk, K, i1 - i0, fbuf, tol)
                _fill_bins(fbuf, (i1 - i0) * K, bins, n_bins, tol_b)
                for r in range(i1 - i0):
                    i = i0 + r
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    for k in range(K - 1):
                        b = bins[r * K + k]
                        tab[k, b, 0] += wi
                        tab[k, b, 1] += wi * fbuf[r * K + k]
                        tab[k, b, 2] += wi if yi <= k else 0.0
                    n_bad += not _row_fine(1.0, yi, K, wi, tol)
        _copy_slots(tab, sums[c], 3)
        bad[c] = n_bad if check else 0
    return bad.sum()


@njit(inline="always", **JIT_OPTIONS)
def _n_outside(f):
    """The number of values of ``f`` outside [0, 1] (NaN included), on vector instructions."""
    out = 0
    for j in range(f.size):
        v = np.float64(f[j])
        out += np.int64(not ((v >= 0.0) & (v <= 1.0)))
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
def _moment_add(tab, e, b, wi, f, event):
    """Add a forecast f of weight wi to bin b of event e of ``tab``: w, w d (into the
    block's part, slot 3), w d^2, with d = f - s the difference from the shift s of the bin
    (slot 6: given, or where NaN the first forecast the chunk puts there). Returns w d and
    the score term w (f - o)^2 (o = 1 where ``event``)."""
    if tab[e, b, 0] == 0.0 and np.isnan(tab[e, b, 6]):  # no shift yet: this forecast
        tab[e, b, 6] = f
    d = f - tab[e, b, 6]
    wd = wi * d
    ds = f - 1.0 if event else f
    tab[e, b, 0] += wi
    tab[e, b, 3] += wd
    tab[e, b, 2] += wd * d
    return wd, (wi * ds) * ds


#: Blocks of rows whose sums of w d and w o d are added in a part of their own, then to the
#: chunk's (two-level sums: the signed differences keep their precision).
FLUSH_BLOCKS = 4


@njit(inline="always", **JIT_OPTIONS)
def _flush(tab):
    """Add the parts (slots 3 and 7) of w d and w o d to the chunk's sums (1 and 5)."""
    for e in range(tab.shape[0]):
        for b in range(tab.shape[1]):
            tab[e, b, 1] += tab[e, b, 3]
            tab[e, b, 5] += tab[e, b, 7]
            tab[e, b, 3] = 0.0
            tab[e, b, 7] = 0.0


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


@njit(parallel=True, **JIT_OPTIONS)
def _uniform_moments(Pf, K, y, w, ws, view, n_bins, tol, tol_b, check, shifts, moms, scores):
    """Validate every row and add, per (event, uniform bin), the shifted sums of
    :func:`_moment_add`, w o, w o d and the shift (``shifts`` (E, B), NaN: the chunk's first
    forecast in the bin): ``moms`` (C, E, B, 7; slot 3 unused),
    chunk c of the rows in row order into ``moms[c]`` (w d and w o d per ``FLUSH_BLOCKS``
    blocks of rows, then added to the chunk's sums) (views 1 and 2: classwise,
    cumulative), and the score terms of all events: ``scores[c]`` (sum, compensation), the
    terms of a block of rows added plainly, the block sums with Neumaier's compensated
    summation. The caller turns
    each chunk's sums into the bin's weight, means, and sums of squared and crossed
    deviations from the means, and merges the chunks in their order. Returns the number of
    invalid rows and values (``check`` False: not checked); when there are any, the sums are
    discarded.
    """
    N = y.size
    C = moms.shape[0]
    E = moms.shape[1]
    R = max(1, BLOCK // K)
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = np.zeros((E, n_bins, 8))  # one 64-byte block per bin
        for e in range(E):
            for b in range(n_bins):
                tab[e, b, 6] = shifts[e, b]
        fbuf = np.empty(R * K)
        bins = np.empty(R * K, dtype=np.int64)
        acc = np.zeros(2)
        n_blocks = 0
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            blk = Pf[i0 * K : i1 * K]
            block_score = 0.0
            if view == 1:  # classwise: p_k for y = k; w o, w o d added to the event of y only
                n_bad += _fill_bins(blk, blk.size, bins, n_bins, tol_b)
                for r in range(i1 - i0):
                    i = i0 + r
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    t = 0.0
                    by = 0
                    wdy = 0.0
                    for k in range(K):
                        v = np.float64(blk[r * K + k])
                        t += v
                        b = bins[r * K + k]
                        wd, sc = _moment_add(tab, k, b, wi, v, k == yi)
                        block_score += sc
                        by = b if k == yi else by
                        wdy = wd if k == yi else wdy
                    ye = min(max(yi, 0), K - 1)  # an invalid yi: discarded anyway
                    tab[ye, by, 4] += wi
                    tab[ye, by, 7] += wdy
                    n_bad += not _row_fine(t, yi, K, wi, tol)
            else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum) for y <= k
                n_bad += _cumulate(blk, K, i1 - i0, fbuf, tol)
                _fill_bins(fbuf, (i1 - i0) * K, bins, n_bins, tol_b)
                for r in range(i1 - i0):
                    i = i0 + r
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    for k in range(K - 1):
                        f = fbuf[r * K + k]
                        b = bins[r * K + k]
                        wd, sc = _moment_add(tab, k, b, wi, f, yi <= k)
                        block_score += sc
                        tab[k, b, 4] += wi if yi <= k else 0.0
                        tab[k, b, 7] += wd if yi <= k else 0.0
                    n_bad += not _row_fine(1.0, yi, K, wi, tol)
            _compensated(acc, block_score)
            n_blocks += 1
            if n_blocks == FLUSH_BLOCKS:
                _flush(tab)
                n_blocks = 0
        _flush(tab)
        _copy_slots(tab, moms[c], 7)
        scores[c, 0] = acc[0]
        scores[c, 1] = acc[1]
        bad[c] = n_bad if check else 0
    return bad.sum()
