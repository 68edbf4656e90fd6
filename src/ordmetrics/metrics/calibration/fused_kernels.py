"""The compiled loops of :mod:`ordmetrics.metrics.calibration.fused` (see its notes).

Row helpers inlined into the kernels, and the kernels: one pass over the rows each, the rows
split into chunks run in parallel on numba's threads (the split depends on N only).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange

#: The numba options of the calibration kernels (cached on disk).
JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


# --------------------------------------------------------------------------------------------
# Row helpers (inlined into the kernels)
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def _row_events(P, i, K, view, yi, f, o):
    """Forecasts ``f[e]`` and outcomes ``o[e]`` of the events of row i; (row sum, min, max)."""
    t = 0.0
    lo = 1.0
    hi = 0.0
    if view == 0:  # top label: the confidence, and whether the argmax (lowest on ties) is y
        best = np.float64(P[i, 0])
        arg = 0
        for k in range(K):
            v = np.float64(P[i, k])
            lo = min(lo, v)
            hi = max(hi, v)
            t += v
            gt = v > best
            arg = k if gt else arg
            best = v if gt else best
        f[0] = best
        o[0] = 1.0 if arg == yi else 0.0
    elif view == 1:  # classwise: p_k for y = k
        for k in range(K):
            v = np.float64(P[i, k])
            lo = min(lo, v)
            hi = max(hi, v)
            t += v
            f[k] = v
            o[k] = 1.0 if yi == k else 0.0
    else:  # cumulative: F_k = F_{k-1} + p_k (the order of np.cumsum) for y <= k
        for k in range(K):
            v = np.float64(P[i, k])
            lo = min(lo, v)
            hi = max(hi, v)
            t += v
            if k < K - 1:
                f[k] = t
                o[k] = 1.0 if yi <= k else 0.0
    return t, lo, hi


@njit(inline="always", **JIT_OPTIONS)
def _uniform_bin(v, n_bins, tol_b):
    """:func:`ordmetrics._core.numerics.bin_of_fraction` of one value (``tol_b`` = 1e-12 B).

    For x = v B in [0, B] (NaN and x <= 0 give 0, x > B is B), ``int(x)`` is floor(x), and
    ``int(x) + 1`` is ceil(x) unless x is a whole number (then x itself, which the test
    leaves in place since 1 > ``tol_b``). Written without branches (selects only).
    """
    fb = np.float64(n_bins)
    x = v * fb
    x = x if x > 0.0 else 0.0
    x = x if x < fb else fb
    b = np.int64(x)
    b += np.int64((np.float64(b) + 1.0) - x <= tol_b)
    return b if b < n_bins else n_bins - 1


@njit(inline="always", **JIT_OPTIONS)
def _threshold_bin(v, T, e, n_t):
    """#{j : T[e, j] < v}: the quantile bin of a forecast from the thresholds (binary search)."""
    lo = 0
    hi = n_t
    while lo < hi:
        mid = (lo + hi) >> 1
        if T[e, mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always", **JIT_OPTIONS)
def _count_below(v, T, e, n_t):
    """#{j : T[e, j] < v}, as :func:`_threshold_bin`: for a few thresholds (at most 32) by
    counting, without branches (the collected rows come in row order: their bins are not
    predictable), else by binary search."""
    if n_t > 32:
        return _threshold_bin(v, T, e, n_t)
    count = 0
    for j in range(n_t):
        count += np.int64(T[e, j] < v)
    return count


@njit(inline="always", **JIT_OPTIONS)
def _bucket(v, m):
    b = int(v * m)
    if b < 0:
        return 0
    if b > m - 1:
        return m - 1
    return b


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def _chunk(N, c, n_chunks):
    """Rows [start, stop) of chunk c of ``n_chunks`` (a split that depends on N only)."""
    return (N * c) // n_chunks, (N * (c + 1)) // n_chunks


@njit(**JIT_OPTIONS)
def _thresholds(
    vals, wts, offsets, orders, run_of, below_w, below_top, below_n, total, n_bins, tol_b, tol, T
):
    """T[e, j - 1], j = 1..B-1: the largest forecast of the bins below j (inf: no row reaches
    bin j), from the sorted rows of the runs (the tie groups and bins of the binning module);
    ``orders[offsets[e]:offsets[e + 1]]``: the stable order of event e's rows by forecast;
    ``tol``: :data:`ordmetrics._core.numerics.TIE_TOLERANCE` (the rows are those of positive
    weight, forecasts in [0, 1]: the scale max(|a|, |b|) is b)."""
    E = run_of.shape[0]
    M = run_of.shape[1]
    for e in range(E):
        a = offsets[e]
        z = offsets[e + 1]
        v = vals[a:z]
        ww = wts[a:z]
        order = orders[a:z]  # stable: group weights added in row order
        n = z - a
        i = 0
        prev_run = -1
        prev_bin = 0
        prev_top = 0.0
        cs = 0.0
        while i < n:
            s0 = v[order[i]]
            r = run_of[e, _bucket(s0, M)]
            if r != prev_run:  # the first group of a run: what lies below its first bucket
                prev_run = r
                cs = below_w[e, r]
                if below_n[e, r] > 0:
                    prev_bin = _uniform_bin(cs / total, n_bins, tol_b)
                    prev_top = below_top[e, r]
                else:
                    prev_bin = -1
            # the tie group starting at i: chains of neighbours within the tolerance
            gw = ww[order[i]]
            top = s0
            j = i + 1
            while j < n:
                b = v[order[j]]
                if b - top > tol * b or run_of[e, _bucket(b, M)] != r:
                    break
                gw += ww[order[j]]
                top = b
                j += 1
            cs += gw
            gbin = _uniform_bin((cs - gw) / total, n_bins, tol_b)
            if prev_bin >= 0:
                for jj in range(prev_bin + 1, gbin + 1):
                    if jj <= n_bins - 1:
                        T[e, jj - 1] = prev_top
            prev_bin = gbin
            prev_top = top
            i = j


@njit(inline="always", **JIT_OPTIONS)
def _quantile_bin(v, T, lut, e, n_t):
    """The quantile bin of a forecast: from the bucket (``lut[e, m]``: the bin of every value
    of bucket m) or, in the buckets of the runs (-1), by binary search of the thresholds."""
    M = lut.shape[1]
    b = lut[e, _bucket(v, M)]
    if b < 0:
        b = _threshold_bin(v, T, e, n_t)
    return b


@njit(**JIT_OPTIONS)
def _quantile_bin_sums(bucket_sums, lut, vals, wts, obs, offsets, T, out):
    """The sums (E, B, 3) of w, w f, w o per (event, quantile bin), into ``out`` (zeros): per
    event, the sums of the buckets outside the runs (``bucket_sums`` (E, M, 3), their bin
    ``lut[e, m]``) in bucket order, then the collected rows of the runs in row order (their
    bin from the thresholds ``T``)."""
    E = out.shape[0]
    M = lut.shape[1]
    n_t = T.shape[1]
    for e in range(E):
        for m in range(M):
            b = lut[e, m]
            if b >= 0:
                for j in range(3):
                    out[e, b, j] += bucket_sums[e, m, j]
        for p in range(offsets[e], offsets[e + 1]):
            fe = vals[p]
            wi = wts[p]
            b = _count_below(fe, T, e, n_t)
            out[e, b, 0] += wi
            out[e, b, 1] += wi * fe
            out[e, b, 2] += wi * obs[p]


@njit(parallel=True, **JIT_OPTIONS)
def _threshold_sums(P, y, w, ws, view, T, lut, sums):
    """Add w, w f, w o per (event, quantile bin), in the tables of :func:`_uniform_sums`."""
    N, K = P.shape
    C = sums.shape[0]
    E = sums.shape[1]
    n_t = T.shape[1]
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        f = np.empty(K)
        o = np.empty(K)
        for i in range(start, stop):
            wi = 1.0
            if w is not None:
                wi = w[i] * ws
            _row_events(P, i, K, view, y[i], f, o)
            for e in range(E):
                fe = f[e]
                b = _quantile_bin(fe, T, lut, e, n_t)
                sums[c, e, b, 0] += wi
                sums[c, e, b, 1] += wi * fe
                sums[c, e, b, 2] += wi * o[e]


@njit(inline="always", **JIT_OPTIONS)
def _neumaier(acc, comp, e, c, x):
    s = acc[e, c]
    t = s + x
    if abs(s) >= abs(x):
        comp[e, c] += (s - t) + x
    else:
        comp[e, c] += (x - t) + s
    acc[e, c] = t


#: Rows per block of the within-bin sums: added plainly within a block, the block sums with
#: Neumaier's compensated summation.
DEVIATION_BLOCK = 1024


@njit(parallel=True, **JIT_OPTIONS)
def _deviation_sums(P, y, w, ws, view, quantile, T, lut, n_bins, tol_b, mean_f, mean_o, parts, out):
    """Per event: sum w (f - o)^2, sum w (f - f_b)^2, sum w (o - o_b)(f - f_b) into ``out``
    (E, 3). Each chunk of rows adds blocks of ``DEVIATION_BLOCK`` rows in row order, and the
    block sums with Neumaier's compensated summation (``parts`` (C, 2, E, 3): the sums and
    compensations of each chunk); then the chunks in their order."""
    N, K = P.shape
    C = parts.shape[0]
    E = out.shape[0]
    n_t = T.shape[1]
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        f = np.empty(K)
        o = np.empty(K)
        acc = parts[c, 0]
        comp = parts[c, 1]
        blk = np.zeros((E, 3))
        for b0 in range(start, stop, DEVIATION_BLOCK):
            blk[:] = 0.0
            for i in range(b0, min(stop, b0 + DEVIATION_BLOCK)):
                wi = 1.0
                if w is not None:
                    wi = w[i] * ws
                _row_events(P, i, K, view, y[i], f, o)
                for e in range(E):
                    fe = f[e]
                    oe = o[e]
                    if quantile:
                        b = _quantile_bin(fe, T, lut, e, n_t)
                    else:
                        b = _uniform_bin(fe, n_bins, tol_b)
                    df = fe - mean_f[e, b]
                    do = oe - mean_o[e, b]
                    ds = fe - oe
                    blk[e, 0] += (ds * ds) * wi
                    blk[e, 1] += (df * df) * wi
                    blk[e, 2] += (do * df) * wi
            for e in range(E):
                for j in range(3):
                    _neumaier(acc, comp, e, j, blk[e, j])
    total = np.zeros((E, 3))
    carry = np.zeros((E, 3))
    for c in range(C):
        for e in range(E):
            for j in range(3):
                _neumaier(total, carry, e, j, parts[c, 0, e, j])
                carry[e, j] += parts[c, 1, e, j]
    for e in range(E):
        for j in range(3):
            out[e, j] = total[e, j] + carry[e, j]
