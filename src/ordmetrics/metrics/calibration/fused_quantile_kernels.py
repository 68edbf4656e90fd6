"""The compiled loops of the quantile bins (:mod:`ordmetrics.metrics.calibration.fused_quantile`).

The rows are read in blocks of about ``BLOCK`` values (whole rows, in row order), as the
uniform bins read them: a first loop over a block forms the forecasts where they are not the
values themselves and finds the bucket of every forecast (:func:`_fill_buckets`, a loop the
compiler turns into vector instructions); a second goes over the values of the block in row
order. The rows split into chunks (the split depends on N only) run in parallel on numba's
threads; each chunk adds into a table of its own.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit, prange
from ordmetrics._core.jit import vector_add4 as vector_add
from ordmetrics.metrics.calibration.fused_kernels import JIT_OPTIONS, _chunk, _count_below

#: Values per block of rows (whole rows: at least one row per block).
BLOCK = 1024

#: The four slots of a bucket in the tables of :func:`_bucket_sums`: the weight, the sums of
#: w f and of w o, and the number of rows of positive weight.
W_SLOT = 0
WF_SLOT = 1
WO_SLOT = 2
COUNT_SLOT = 3
#: With the moments of the decompositions: the sums of w d, w d^2, w o d (d the difference
#: of f from the middle of the bucket) and of w (f - o)^2.
D_SLOT = 4
DD_SLOT = 5
OD_SLOT = 6
SCORE_SLOT = 7

#: The bits of the bucket codes of :func:`_collect`: the bucket lies in a run; its lower edge,
#: its upper edge is the edge of a run; the bucket is the last one holding rows below a run
#: (its largest forecast is kept).
IN_RUN = 1
NEAR_LOWER = 2
NEAR_UPPER = 4
TOP_BELOW = 8


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


@njit(**JIT_OPTIONS)
def _fill_buckets(f, n, out, offs, M):
    """``out[j]`` = ``offs[j]`` plus the bucket ``min(max(floor(f[j] M), 0), M - 1)`` of
    ``f[j]``, j < n (NaN: bucket 0), written without branches so that the loop runs on vector
    instructions; returns the number of values outside [0, 1] (NaN included)."""
    fm = np.float64(M)
    top = np.float64(M - 1)
    bad = 0
    for j in range(n):
        v = np.float64(f[j])
        bad += np.int64(not ((v >= 0.0) & (v <= 1.0)))
        x = v * fm
        x = x if x > 0.0 else 0.0
        x = x if x < top else top
        out[j] = np.int64(x) + offs[j]
    return bad


@njit(**JIT_OPTIONS)
def _event_offsets(K, view, M, R):
    """``offs[j]``: the start e M of the table of the event of value j of a block (rows of K
    values; top label: one value per row, event 0; cumulative: the K-th value of a row, the
    row sum, goes to the table past the last event's)."""
    offs = np.empty(R * K, dtype=np.int64)
    for j in range(R * K):
        offs[j] = 0 if view == 0 else (j % K) * M
    return offs


@njit(**JIT_OPTIONS)
def _forecasts(blk, K, nr, y, i0, view, fbuf, obuf, tbuf):
    """The forecasts of the rows of a block that are not the values themselves, into
    ``fbuf``: the confidence (top label, ``fbuf[r]``; ``obuf[r]`` whether the argmax, lowest
    on ties, is y) or the cumulative forecasts F_k (added in the order of ``np.cumsum``;
    ``fbuf[r K + k]``); ``tbuf[r]`` the row sum (added in row order). The classwise
    forecasts are the values of the block themselves."""
    if view == 0:
        for r in range(nr):
            best = -1.0
            arg = 0
            t = 0.0
            for k in range(K):
                v = np.float64(blk[r * K + k])
                t += v
                gt = v > best
                arg = k if gt else arg
                best = v if gt else best
            fbuf[r] = best
            obuf[r] = 1.0 if arg == y[i0 + r] else 0.0
            tbuf[r] = t
    elif view == 2:
        for r in range(nr):
            t = 0.0
            for k in range(K):
                t += np.float64(blk[r * K + k])
                fbuf[r * K + k] = t
            tbuf[r] = t


@njit(**JIT_OPTIONS)
def _n_outside(f, n):
    """The number of values ``f[j]``, j < n, outside [0, 1] (NaN included), on vector
    instructions."""
    out = 0
    for j in range(n):
        v = np.float64(f[j])
        out += np.int64(not ((v >= 0.0) & (v <= 1.0)))
    return out


@njit(**JIT_OPTIONS)
def _n_bad_rows(yb, wb, ws, K, tbuf, nr, tol):
    """The number of rows whose class index (``yb``) is outside [0, K), whose weight
    (``wb * ws``; None: unweighted) is not finite and >= 0, or whose sum (``tbuf``) is off
    by more than ``tol`` (NaN included): loops on vector instructions."""
    out = 0
    for i in range(nr):
        yi = yb[i]
        out += np.int64((yi < 0) | (yi >= K))
        out += np.int64(not (abs(tbuf[i] - 1.0) <= tol))
    if wb is not None:
        for i in range(nr):
            wi = wb[i] * ws
            out += np.int64(not ((wi >= 0.0) & (wi < np.inf)))
    return out


@njit(inline="always", **JIT_OPTIONS)
def _add_moments(tab, mm, S, M, e, f, o, wi, inv, half):
    """Add w d, w d^2, w o d, w (f - o)^2 to slots 4..7 of the bucket ``mm`` (e M + m),
    d = f - (m + 1/2) / M."""
    d = f - ((mm - e * M) * inv + half)
    wd = wi * d
    ds = f - o
    vector_add(tab, mm * S + 4, wd, wd * d, wd * o, (ds * ds) * wi)


@njit(parallel=True, **JIT_OPTIONS)
def _bucket_sums(Pf, K, y, w, ws, view, tol, check, hist):
    """Validate every row and add, per (chunk, event, bucket), the weight, the sums of w f and
    w o and the number of the rows of positive weight into ``hist`` (C, E, M, 4 or 8; slots
    ``W_SLOT`` ...), in row order (the terms of a row of weight 0, and the terms w o = 0,
    leave a sum unchanged). With 8 slots, the moments of the decompositions as well: the
    sums of w d, w d^2, w o d and w (f - o)^2 (slots ``D_SLOT`` ...), d = f - (m + 1/2) / M
    the difference from the middle of the bucket m.

    ``Pf``: the N x K probabilities as one C-ordered vector. Returns the number of invalid
    rows and values (``check`` False: not counted); when there are any, the tables are
    discarded (the caller validates the slow way).
    """
    N = y.size
    C = hist.shape[0]
    M = hist.shape[2]
    S = hist.shape[3]
    moments = S == 8
    R = max(1, BLOCK // K)
    half = 0.5 / M
    inv = 1.0 / M
    bad = np.zeros(C, dtype=np.int64)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        tab = hist[c].reshape(-1)  # the chunk's own table (zeros), as one vector
        fbuf = np.empty(R * K)
        obuf = np.empty(R)
        tbuf = np.empty(R)
        mb = np.empty(R * K, dtype=np.int64)
        offs = _event_offsets(K, view, M, R)
        n_bad = 0
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if view == 1:  # classwise: p_k for y = k
                n_bad += _fill_buckets(blk, nr * K, mb, offs, M)
                for r in range(nr):
                    i = i0 + r
                    yi = y[i]
                    wi = 1.0
                    if w is not None:
                        wi = w[i] * ws
                    n = 1.0 if wi > 0.0 else 0.0
                    t = 0.0
                    for k in range(K):
                        j = r * K + k
                        v = np.float64(blk[j])
                        t += v
                        oe = 1.0 if yi == k else 0.0
                        vector_add(tab, mb[j] * S, wi, wi * v, wi * oe, n)
                        if moments:
                            _add_moments(tab, mb[j], S, M, k, v, oe, wi, inv, half)
                    tbuf[r] = t
            else:
                n_bad += _n_outside(blk, nr * K)
                _forecasts(blk, K, nr, y, i0, view, fbuf, obuf, tbuf)
                _fill_buckets(fbuf, nr if view == 0 else nr * K, mb, offs, M)
                if view == 0:  # top label: the confidence, and whether the argmax is y
                    for r in range(nr):
                        wi = 1.0
                        if w is not None:
                            wi = w[i0 + r] * ws
                        n = 1.0 if wi > 0.0 else 0.0
                        vector_add(tab, mb[r] * S, wi, wi * fbuf[r], wi * obuf[r], n)
                        if moments:
                            _add_moments(tab, mb[r], S, M, 0, fbuf[r], obuf[r], wi, inv, half)
                else:  # cumulative: F_k for y <= k
                    for r in range(nr):
                        i = i0 + r
                        yi = y[i]
                        wi = 1.0
                        if w is not None:
                            wi = w[i] * ws
                        n = 1.0 if wi > 0.0 else 0.0
                        for k in range(K - 1):
                            j = r * K + k
                            oe = 1.0 if yi <= k else 0.0
                            vector_add(tab, mb[j] * S, wi, wi * fbuf[j], wi * oe, n)
                            if moments:
                                _add_moments(tab, mb[j], S, M, k, fbuf[j], oe, wi, inv, half)
            if check:
                wb = None if w is None else w[i0:i1]
                n_bad += _n_bad_rows(y[i0:i1], wb, ws, K, tbuf, nr, tol)
        bad[c] = n_bad if check else 0
    return bad.sum()


@njit(parallel=True, **JIT_OPTIONS)
def _collect(Pf, K, y, w, ws, view, code, offsets, vals, wts, obs, top):
    """The forecasts, weights and outcomes, in row order, of the rows of positive weight in
    the buckets of a run (``code[e M + m] & IN_RUN``), event after event: chunk c of the
    rows writes the rows of event e from ``offsets[c, e]`` on; and ``top[c, e, m]``: the
    largest forecast of the chunk's rows of positive weight in the buckets ``TOP_BELOW``.

    Returns False when a forecast lies within twice the tie tolerance of the edge of a run
    (``NEAR_LOWER``, ``NEAR_UPPER``: the bucket's edge m / M or (m + 1) / M is one), where a
    tie group could cross the edge. ``code`` ((E + 1) M, the last M zeros) holds one byte
    per bucket: most are 0, one look-up and a well-predicted branch per forecast.
    """
    N = y.size
    C = offsets.shape[0]
    E = offsets.shape[1]
    M = code.size // (E + 1)
    R = max(1, BLOCK // K)
    L = 1 if view == 0 else K  # values per row in the buckets' vector
    inv = 1.0 / M
    margin = 2.0 * 1e-12
    clear = np.ones(C, dtype=np.bool_)
    for c in prange(C):
        start, stop = _chunk(N, c, C)
        fbuf = np.empty(R * K)
        obuf = np.empty(R)
        tbuf = np.empty(R)
        mb = np.empty(R * K, dtype=np.int64)
        offs = _event_offsets(K, view, M, R)
        pos = offsets[c].copy()
        ok = True
        for i0 in range(start, stop, R):
            i1 = min(stop, i0 + R)
            nr = i1 - i0
            blk = Pf[i0 * K : i1 * K]
            if view == 1:
                _fill_buckets(blk, nr * K, mb, offs, M)
            else:
                _forecasts(blk, K, nr, y, i0, view, fbuf, obuf, tbuf)
                _fill_buckets(fbuf, nr * L, mb, offs, M)
            for j in range(nr * L):
                mm = mb[j]
                cd = code[mm]
                if cd == 0:
                    continue
                r = j // L
                e = j - r * L
                m = mm - e * M
                i = i0 + r
                wi = 1.0
                if w is not None:
                    wi = w[i] * ws
                if not wi > 0.0:
                    continue
                if view == 1:
                    fe = np.float64(blk[j])
                    oe = 1.0 if y[i] == e else 0.0
                elif view == 2:
                    fe = fbuf[j]
                    oe = 1.0 if y[i] <= e else 0.0
                else:
                    fe = fbuf[r]
                    oe = obuf[r]
                if (cd & NEAR_LOWER) and abs(fe - m * inv) < margin:
                    ok = False
                if (cd & NEAR_UPPER) and abs((m + 1) * inv - fe) < margin:
                    ok = False
                if cd & TOP_BELOW:
                    top[c, e, m] = max(top[c, e, m], fe)
                if cd & IN_RUN:
                    p = pos[e]
                    vals[p] = fe
                    wts[p] = wi
                    obs[p] = oe
                    pos[e] = p + 1
        clear[c] = ok
    return clear.all()


@njit(**JIT_OPTIONS)
def _stable_order(vals, offsets, count, start, order):
    """``order[offsets[e]:offsets[e + 1]]``: the stable order of event e's collected rows by
    forecast (that of ``np.argsort(kind="stable")``), in O(n) for spread values: a counting
    sort by a key that does not decrease with the forecast (the bucket m, then the forecast's
    place within it scaled to the bucket's ``count[e, m]`` rows, from ``start[e, m]`` on),
    then an insertion sort (stable) of what the keys left out of order. Returns False, the
    order unfinished, when the insertion sort would move more than about 16 times the rows
    (forecasts crowded within a bucket: the caller sorts instead)."""
    E = offsets.size - 1
    M = count.shape[1]
    fm = np.float64(M)
    top = np.float64(M - 1)
    for e in range(E):
        a = offsets[e]
        n = offsets[e + 1] - a
        key = np.empty(n, dtype=np.int64)
        head = np.zeros(n + 1, dtype=np.int64)
        for p in range(n):
            x = vals[a + p] * fm
            xc = x if x > 0.0 else 0.0
            xc = xc if xc < top else top
            m = np.int64(xc)  # the bucket, as the passes find it
            cm = count[e, m]
            s = np.int64((x - m) * cm)
            s = s if s > 0 else 0
            s = s if s < cm - 1 else cm - 1
            k = start[e, m] + s
            key[p] = k
            head[k + 1] += 1
        for k in range(n):
            head[k + 1] += head[k]
        seg = order[a : a + n]
        for p in range(n):  # in row order: stable
            k = key[p]
            seg[head[k]] = p
            head[k] += 1
        moves = 0
        budget = 16 * n + 1024
        for i in range(1, n):
            q = seg[i]
            v = vals[a + q]
            j = i
            while j > 0 and vals[a + seg[j - 1]] > v:
                seg[j] = seg[j - 1]
                j -= 1
            seg[j] = q
            moves += i - j
            if moves > budget:
                return False
    return True


@njit(**JIT_OPTIONS)
def _plan_runs(hist, scale, delta, n_bins, code, run_of, below_w, below_n, top_of_run, per_chunk):
    """The runs of buckets whose rows are collected, from the tables ``hist`` (C, E, M, 4) of
    the first pass (added up over the chunks in their order).

    A bucket holding rows is needed when some level j (1..B-1) lies in [lo - delta,
    hi + delta], lo and hi the weight below the start of the previous bucket holding rows
    (or of this one) and below the end of this one, times ``scale`` = B / W; a run is a
    sequence of needed buckets with no other bucket holding rows between them. Writes the
    codes (``code`` (E + 1) M: ``IN_RUN``, ``NEAR_LOWER`` / ``NEAR_UPPER`` on both sides of
    the edges of the runs, ``TOP_BELOW`` on the last bucket holding rows below a run),
    ``run_of`` (E, M; -1 outside the runs), per run the weight and number of the rows below
    it and the bucket below it (-1: none), and ``per_chunk`` (C, E) the rows each chunk
    collects. Returns (the rows to collect, the most runs of an event)."""
    C = hist.shape[0]
    E = hist.shape[1]
    M = hist.shape[2]
    top_level = n_bins - 1.0
    n_sorted = 0.0
    most = 0
    for e in range(E):
        below = 0.0  # the weight below bucket m
        below_prev = 0.0  # the weight below the previous bucket holding rows
        rows_below = 0.0
        last = -1  # the previous bucket holding rows
        last_needed = False
        r = -1
        for m in range(M):
            weight = hist[0, e, m, 0]
            count = hist[0, e, m, 3]
            for ci in range(1, C):
                weight += hist[ci, e, m, 0]
                count += hist[ci, e, m, 3]
            end = below + weight
            run_of[e, m] = -1
            need = False
            if count > 0:
                lo_b = (below_prev if last >= 0 else below) * scale
                hi_b = end * scale
                first_j = max(np.ceil(lo_b - delta), 1.0)
                need = first_j <= min(hi_b + delta, top_level)
                if need:
                    n_sorted += count
                    for ci in range(C):
                        per_chunk[ci, e] += np.int64(hist[ci, e, m, 3])
                    if not (last >= 0 and last_needed):  # a run starts
                        r += 1
                        below_w[e, r] = below
                        below_n[e, r] = rows_below
                        top_of_run[e, r] = last
                        if last >= 0:
                            code[e * M + last] |= TOP_BELOW
                        if m > 0:
                            code[e * M + m] |= NEAR_LOWER
                            code[e * M + m - 1] |= NEAR_UPPER
                    run_of[e, m] = r
                    code[e * M + m] |= IN_RUN
                elif last >= 0 and last_needed and last < M - 1:  # the run before ends
                    code[e * M + last] |= NEAR_UPPER
                    code[e * M + last + 1] |= NEAR_LOWER
                below_prev = below
                last = m
                last_needed = need
                rows_below += count
            below = end
        if last >= 0 and last_needed and last < M - 1:  # the last run ends
            code[e * M + last] |= NEAR_UPPER
            code[e * M + last + 1] |= NEAR_LOWER
        most = max(most, r + 1)
    return n_sorted, most


@njit(**JIT_OPTIONS)
def _run_deviations(vals, wts, obs, offsets, T, mean_f, mean_o, out):
    """Add w (f - f_b)^2 and w (o - o_b)(f - f_b) of the collected rows of the runs, in row
    order, to ``out`` (E, B, 2): their bin b from the thresholds ``T``, f_b and o_b the bin's
    means (``mean_f``, ``mean_o`` (E, B))."""
    E = out.shape[0]
    n_t = T.shape[1]
    for e in range(E):
        for p in range(offsets[e], offsets[e + 1]):
            fe = vals[p]
            b = _count_below(fe, T, e, n_t)  # the bin: #{j : T[e, j] < f}
            df = fe - mean_f[e, b]
            wd = wts[p] * df
            out[e, b, 0] += wd * df
            out[e, b, 1] += wd * (obs[p] - mean_o[e, b])


@njit(**JIT_OPTIONS)
def _bucket_within(tables, lut, mean_f, mean_o, out):
    """Add, per (event, bin), the within-bin sums w (f - f_b)^2 and w (o - o_b)(f - f_b) of the
    buckets outside the runs (``lut[e, m]`` >= 0, their bin) to ``out`` (E, B, 2), buckets
    in increasing order, from their moments (``tables`` (E, M, 8), slots ``D_SLOT`` ...):
    the mean c_m + S_d / W_m (c_m the middle of bucket m, formed as :func:`_bucket_sums`
    forms it), the sum of squares S_dd - S_d^2 / W_m and the co-moment S_od - S_o S_d / W_m
    about it, moved to the bin's means (Chan, Golub and LeVeque)."""
    E = lut.shape[0]
    M = lut.shape[1]
    inv = 1.0 / M
    half = 0.5 / M
    for e in range(E):
        for m in range(M):
            b = lut[e, m]
            wm = tables[e, m, W_SLOT]
            if b < 0 or not wm > 0.0:
                continue
            s_d = tables[e, m, D_SLOT]
            s_o = tables[e, m, WO_SLOT]
            sq = tables[e, m, DD_SLOT] - s_d * s_d / wm
            co = tables[e, m, OD_SLOT] - s_o * s_d / wm
            dev = (m * inv + half) + s_d / wm - mean_f[e, b]
            out[e, b, 0] += sq + wm * dev * dev
            out[e, b, 1] += co + wm * dev * (s_o / wm - mean_o[e, b])
