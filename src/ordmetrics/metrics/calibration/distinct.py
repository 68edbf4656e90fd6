"""The score decompositions with one bin per distinct forecast value (``n_bins=None``).

Every event (a column of the classwise or cumulative view) is reduced to its distinct forecast
values u, each with the weight W_u and the weighted outcomes S_u of the rows that hold it; the
tie rule of :mod:`ordmetrics._core.numerics` groups neighbouring values into the bins, each
valued at its smallest member. Definitions: ``docs/definitions.md``, section 4.

* Unweighted: the forecast and the outcome of a row are packed into one integer key (the bits
  of the non-negative float64 forecast, shifted left, plus the outcome) and the keys sorted by
  the radix sort of :mod:`ordmetrics._core.radix` (no permutation of the rows); one compiled
  pass over the sorted keys (:func:`_value_sums`) gives the distinct values, their counts and
  counts of outcome 1 (exact, whatever the order of addition) and the tie starts.
* Weighted: the keys are the bits of the forecasts shifted left (ordered like the values),
  sorted by the same radix sort carrying the row numbers (stable: the permutation of
  ``np.argsort(kind="stable")``); the same pass adds W_u and S_u in sorted order, which is
  row order within a value: the bits of ``np.bincount`` in row order. For at most
  :data:`HASH_MAX_VALUES` distinct values a perfect hash of the bits finds the value of every
  row instead (no sort), and ``np.bincount`` adds. The sums W_b, S_b of a bin of several
  values are added over its rows in row order.

Order of the sums (fixed): REL and RES over the bins in ascending order, UNC from S = sum_b S_b
(NumPy's pairwise summation; the terms per bin by :func:`_bin_terms`, one pass); the score
over the rows in row order (pairwise); WBV and WBC, non-zero only where the tie rule puts
several distinct values in one bin, over the values above their bin's value f_b in ascending
order (pairwise) of W_u (u - f_b)^2 and 2 (S_u - W_u o_b)(u - f_b).

One event at a time: the memory beyond the input is a few vectors of N values, allocated once
per call and reused from event to event.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import TIE_TOLERANCE
from ordmetrics._core.radix import radix_argsort, radix_sort

__all__ = ["distinct_parts"]


def _events(P: np.ndarray, y: np.ndarray, view: str) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Forecasts (float64) and outcomes (bool) of the events of ``view``, one at a time, in two
    buffers reused from one event to the next. The cumulative forecasts are added column by
    column in the order of ``np.cumsum``: the values of
    :func:`~ordmetrics.metrics.calibration.binning.event_forecasts` bit for bit."""
    n, k = P.shape
    f = np.empty(n)
    o = np.empty(n, dtype=bool)
    for j in range(k if view == "classwise" else k - 1):
        if view == "classwise" or j == 0:
            f[:] = P[:, j]
        else:
            np.add(f, P[:, j], out=f)  # F_j = F_{j-1} + p_j, as np.cumsum adds
        if view == "classwise":
            np.equal(y, j, out=o)
        else:
            np.less_equal(y, j, out=o)
        yield f, o


def _run_starts(s: np.ndarray) -> np.ndarray:
    """True where the sorted ``s`` starts a run of equal values (``s[0]`` always does)."""
    change = np.empty(s.size, dtype=bool)
    change[:1] = True
    np.not_equal(s[1:], s[:-1], out=change[1:])
    return change


def _tie_starts(values: np.ndarray) -> np.ndarray:
    """:func:`~ordmetrics._core.numerics.group_starts_sorted` for sorted, distinct, finite,
    non-negative ``values``: there max(|a|, |b|) is b (the same bits, fewer passes)."""
    starts = np.empty(values.size, dtype=bool)
    starts[:1] = True
    hi = values[1:]
    gap = hi - values[:-1]
    np.greater(gap, np.multiply(hi, TIE_TOLERANCE), out=starts[1:])
    return starts


@njit(cache=True, nogil=True)
def _value_sums(
    sorted_key, value, order, w, o, w_value, s_value, first, starts, tolerance
):  # pragma: no cover - compiled
    """Runs of equal values in the sorted keys (a value's bits times 2, plus the outcome when
    unweighted): returns the number M of distinct values and the number of their tie groups;
    writes their bits over ``sorted_key[:M]`` (``value``: the same memory as float64), per
    value the weight and the weighted outcomes in ``w_value[:M]`` and ``s_value[:M]``, and in
    ``starts[:M]`` whether a value starts a tie group (:func:`_tie_starts`, the same
    operations).

    Weighted (``order``: the stable permutation that sorted the keys, N values): the sums of
    ``w`` and of ``w * o`` over the value's rows, added one by one in sorted order, which is
    row order within a value (the sort is stable): the additions of ``np.bincount`` in row
    order, bit for bit; and the sorted position of each value's first row in ``first[:M]``.
    Unweighted (``order`` and ``first`` empty): the count and the count of outcome 1 (the
    key's low bit), as float64 (exact).
    """
    n = sorted_key.size
    weighted = order.size == n
    if weighted:  # w and o in sorted order first (a gather apart: faster), over the outputs
        for i in range(n):
            r = order[i]
            w_value[i] = w[r]
            starts[i] = o[r]
    m = -1
    groups = 0
    last = -1
    w_sum = 0.0  # the sums of the current value, in registers
    s_sum = 0.0
    wi = 0.0
    oi = False
    for i in range(n):
        k = sorted_key[i]
        if weighted:  # read before the outputs m <= i are written
            wi = w_value[i]
            oi = starts[i]
        v = k >> 1
        if v != last:
            if m >= 0:
                w_value[m] = w_sum
                s_value[m] = s_sum
            m += 1
            sorted_key[m] = v  # m <= i: a key already read
            if m == 0:
                new = True
            else:  # the tie rule for sorted, finite, non-negative values: max(|a|, |b|) = b
                hi = value[m]
                new = hi - value[m - 1] > hi * tolerance
            starts[m] = new
            groups += new
            if weighted:
                first[m] = i
            w_sum = 0.0
            s_sum = 0.0
            last = v
        if weighted:
            w_sum += wi
            s_sum += wi * oi
        else:
            w_sum += 1.0
            s_sum += k & 1
    if m >= 0:
        w_value[m] = w_sum
        s_value[m] = s_sum
    return m + 1, groups


@njit(cache=True, nogil=True, error_model="numpy")
def _bin_terms(v_bin, weight, s_o, base_rate, mean_o, rel, res):  # pragma: no cover - compiled
    """Per bin (one pass): the observed frequency o_b = S_b / W_b, W_b (f_b - o_b)^2 and
    W_b (o_b - base_rate)^2; f_b and o_b taken as 0 in a bin of zero weight (the operations
    of NumPy's ``np.where(W_b > 0, ...)``, one by one). ``mean_o`` may be ``s_o``."""
    for b in range(v_bin.size):
        wb = weight[b]
        full = wb > 0
        mo = s_o[b] / wb if full else 0.0  # no branch: vector instructions
        mf = v_bin[b] if full else 0.0
        mean_o[b] = mo
        d = mf - mo
        rel[b] = wb * (d * d)
        d = mo - base_rate
        res[b] = wb * (d * d)


_NO_ROWS = np.empty(0, dtype=np.int64)
_NO_WEIGHTS = np.empty(0)
_NO_OUTCOMES = np.empty(0, dtype=bool)


def _other(buffers: tuple[np.ndarray, np.ndarray], used: np.ndarray) -> np.ndarray:
    """The buffer of the pair that is not ``used`` (a sort's result lies in either)."""
    return buffers[1] if used is buffers[0] else buffers[0]


def _unweighted_values(
    f: np.ndarray, o: np.ndarray, buf: np.ndarray, ints: np.ndarray, flags: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Distinct values u of ``f`` (ascending), their counts and their counts of outcome 1
    (float64, exact), the tie starts among the values (:func:`_tie_starts`) and their number;
    ``f`` in [0, 2). ``buf`` (float64, N), ``ints`` (int64, (2, N)) and
    ``flags`` (bool, N): buffers overwritten, the results lie in them."""
    key = buf.view(np.int64)
    # non-negative float64 values below 2: their bits as int64 are ordered like the values and
    # leave the top bit free for the shift (the bits of -0.0, the sign bit alone, shift out to
    # those of +0.0)
    np.left_shift(f.view(np.int64), 1, out=key)
    np.add(key, o, out=key)  # 2 bits(f) + o
    pair = (key, ints[0])
    sorted_key, _ = radix_sort(key, pair[1])  # no permutation of the rows
    count = _other(pair, sorted_key).view(np.float64)
    ones = ints[1].view(np.float64)
    m, groups = _value_sums(
        sorted_key,
        sorted_key.view(np.float64),
        _NO_ROWS,
        _NO_WEIGHTS,
        _NO_OUTCOMES,
        count,
        ones,
        _NO_ROWS,
        flags,
        TIE_TOLERANCE,
    )
    values = sorted_key[:m].view(np.float64)
    return values, count[:m], ones[:m], flags[:m], groups


def _reduce(
    v_bin: np.ndarray, weight: np.ndarray, s_o: np.ndarray, total: float, terms: np.ndarray
) -> tuple[float, float, float, np.ndarray]:
    """REL, RES, UNC and the observed frequency per bin, from the bin values and sums: the
    terms per bin by :func:`_bin_terms`, their sums by NumPy (pairwise, in bin order). The
    frequencies are written over ``s_o``; ``terms``: a float64 buffer (2, >= bins)."""
    base_rate = s_o.sum() / total
    rel_terms = terms[0, : v_bin.size]
    res_terms = terms[1, : v_bin.size]
    _bin_terms(v_bin, weight, s_o, float(base_rate), s_o, rel_terms, res_terms)
    rel = float(rel_terms.sum() / total)
    res = float(res_terms.sum() / total)
    unc = float(base_rate * (1.0 - base_rate))
    return rel, res, unc, s_o


@njit(cache=True, nogil=True)
def _merge_ties(
    values, w_value, s_value, starts, joined, j_value, j_w, j_s, j_bin
):  # pragma: no cover - compiled
    """Join the values of a tie group into one bin, in place: ``values[:B]`` the bins' first
    values f_b, ``w_value[:B]`` and ``s_value[:B]`` the sums over their values (added in
    ascending order); returns the number B of bins. Of the values joined to a bin above its
    first value (``starts`` false), in ascending order: their index, value, W_u, S_u and bin
    in ``joined``, ``j_value``, ``j_w``, ``j_s``, ``j_bin`` (as many as there are)."""
    b = -1
    j = 0
    for u in range(values.size):
        if starts[u]:  # b <= u: a value already read
            b += 1
            values[b] = values[u]
            w_value[b] = w_value[u]
            s_value[b] = s_value[u]
        else:
            joined[j] = u
            j_value[j] = values[u]
            j_w[j] = w_value[u]
            j_s[j] = s_value[u]
            j_bin[j] = b
            j += 1
            w_value[b] += w_value[u]
            s_value[b] += s_value[u]
    return b + 1


def _join(
    values: np.ndarray, w_value: np.ndarray, s_value: np.ndarray, starts: np.ndarray, groups: int
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_merge_ties` (``groups``: the number of tie starts): the number of bins, and the
    joined values' index, value, W_u, S_u and bin."""
    n_joined = values.size - groups
    joined = np.empty(n_joined, dtype=np.int64)
    j_bin = np.empty(n_joined, dtype=np.int64)
    j_value = np.empty(n_joined)
    j_w = np.empty(n_joined)
    j_s = np.empty(n_joined)
    bins = _merge_ties(values, w_value, s_value, starts, joined, j_value, j_w, j_s, j_bin)
    return bins, joined, j_value, j_w, j_s, j_bin


def _within(
    j_value: np.ndarray,
    j_w: np.ndarray,
    j_s: np.ndarray,
    j_bin: np.ndarray,
    v_bin: np.ndarray,
    mean_o: np.ndarray,
    total: float,
) -> tuple[float, float]:
    """WBV, WBC of one event: sums over the values joined to a bin above its first value
    f_b (the only ones with u - f_b != 0; value u, W_u, S_u and bin b each), in ascending
    order, of W_u (u - f_b)^2 and (S_u - W_u o_b)(u - f_b), o_b the bin's observed
    frequency."""
    dev = j_value - v_bin[j_bin]
    wbv = float(np.sum(j_w * (dev * dev)) / total)
    wbc = 2.0 * float(np.sum((j_s - j_w * mean_o[j_bin]) * dev)) / total
    return wbv, wbc


def _unweighted_event(
    f: np.ndarray,
    o: np.ndarray,
    buf: np.ndarray,
    ints: np.ndarray,
    flags: np.ndarray,
    terms: np.ndarray,
) -> list[float]:
    total = float(f.size)
    np.subtract(f, o, out=buf)
    np.multiply(buf, buf, out=buf)
    score = float(buf.sum()) / total
    # counts: exact in any order
    values, count, ones, starts, groups = _unweighted_values(f, o, buf, ints, flags)
    if groups == values.size:  # every value its own bin
        rel, res, unc, _ = _reduce(values, count, ones, total, terms)
        return [score, rel, res, unc, 0.0, 0.0]
    bins, _, j_value, j_w, j_s, j_bin = _join(values, count, ones, starts, groups)
    v_bin = values[:bins]
    rel, res, unc, mean_o = _reduce(v_bin, count[:bins], ones[:bins], total, terms)
    wbv, wbc = _within(j_value, j_w, j_s, j_bin, v_bin, mean_o, total)
    return [score, rel, res, unc, wbv, wbc]


#: Weighted events whose forecasts take at most this many distinct values find the value of
#: every row by a perfect hash of its bits (a few passes) instead of an argsort.
HASH_MAX_VALUES = 512

#: Odd 64-bit multipliers tried in turn for the perfect hash (fixed: the same on every run).
_MULTIPLIERS = (
    0x9E3779B97F4A7C15,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0xD6E8FEB86659FD93,
    0xFF51AFD7ED558CCD,
    0xC4CEB9FE1A85EC53,
    0x94D049BB133111EB,
    0xBF58476D1CE4E5B9,
)


def _sorted_sums(
    f: np.ndarray,
    o: np.ndarray,
    w: np.ndarray,
    buf: np.ndarray,
    ints: np.ndarray,
    flags: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
    """Distinct values of ``f`` (ascending), their weights W_u and weighted outcomes S_u
    (:func:`_value_sums`), their tie starts and the number of these, the stable permutation
    that sorts the rows by value and the sorted position of each value's first row, by a
    stable radix sort of the keys 2 bits(f) (ordered like the non-negative values; the bits
    of -0.0, the sign bit alone, shifted out to those of +0.0). ``buf`` (float64, N), ``ints``
    (int64, (4, N)) and ``flags`` (bool, N): buffers overwritten, the results lie in them."""
    key = buf.view(np.int64)
    np.left_shift(f.view(np.int64), 1, out=key)
    keys = (key, ints[0])
    orders = (ints[1], ints[2])
    sorted_key, order = radix_argsort(key, keys[1], orders[0], orders[1])
    w_value = _other(keys, sorted_key).view(np.float64)
    s_value = _other(orders, order).view(np.float64)
    first = ints[3]
    m, groups = _value_sums(
        sorted_key,
        sorted_key.view(np.float64),
        order,
        w,
        o,
        w_value,
        s_value,
        first,
        flags,
        TIE_TOLERANCE,
    )
    values = sorted_key[:m].view(np.float64)
    return values, w_value[:m], s_value[:m], flags[:m], groups, order, first[:m]


def _row_runs(order: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The index of every row's value, from the results of :func:`_sorted_sums`."""
    run = np.empty(order.size, dtype=np.int64)
    run[order] = np.repeat(np.arange(first.size), np.diff(first, append=order.size))
    return run


def _sorted_runs(f: np.ndarray, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``f`` (ascending) and the index of every row's value, by
    :func:`_sorted_sums`."""
    n = f.size
    ints = np.empty((4, n), dtype=np.int64)
    values, _, _, _, _, order, first = _sorted_sums(
        f, np.zeros(n, dtype=bool), np.ones(n), buf, ints, np.empty(n, dtype=bool)
    )
    return values, _row_runs(order, first)


def _hashed_runs(
    f: np.ndarray, buf: np.ndarray, max_values: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """What :func:`_sorted_runs` gives, for forecasts with at most ``max_values`` distinct
    values (None otherwise): the distinct bits (``np.unique``), then a multiplicative hash
    h(x) = (x m mod 2^64) >> (64 - b) that is injective on them, with 2^b >= 2 G^2 slots (a
    multiplier of the fixed list succeeds with probability about 3/4), maps every row to its
    value through a table."""
    n = f.size
    if np.unique(f[:: max(1, n // 4_096)]).size > max_values // 2:
        return None  # a sample already has many distinct values
    np.add(f, 0.0, out=buf)  # -0.0 as +0.0
    bits = buf.view(np.uint64)
    try:
        distinct = np.unique(bits, sorted=False)  # by hashing (NumPy >= 2.3)
    except TypeError:  # pragma: no cover - older NumPy
        distinct = np.unique(bits)
    g = distinct.size
    if g > max_values:
        return None
    distinct.sort()  # bits of non-negative values: ordered like the values
    b = max(4, (2 * g * g - 1).bit_length())
    shift = np.uint64(64 - b)
    for m in _MULTIPLIERS:
        mult = np.uint64(m)
        slot = ((distinct * mult) >> shift).astype(np.int64)
        if np.unique(slot).size == g:
            break
    else:  # pragma: no cover - probability below 1e-5
        return None
    table = np.zeros(1 << b, dtype=np.int64)
    table[slot] = np.arange(g)
    hashed = np.multiply(bits, mult, out=np.empty(n, dtype=np.uint64))
    np.right_shift(hashed, shift, out=hashed)
    run = table[hashed.view(np.int64)]
    del hashed
    if not np.array_equal(distinct[run], bits):  # pragma: no cover - never: a safeguard
        return None
    return distinct.view(np.float64), run


def _rows_of_bins(
    order: np.ndarray,
    at: np.ndarray,
    lo_u: np.ndarray,
    hi_u: np.ndarray,
    bins: np.ndarray,
    starts: np.ndarray,
) -> tuple[np.ndarray | None, np.ndarray]:
    """The rows of ``bins`` (ascending bin numbers; their values ``lo_u`` to ``hi_u - 1``) in
    row order and the bin of each, from the results of :func:`_sorted_sums` (``at``: the
    sorted position of each value's first row, ``starts``: the values' tie starts). Where
    they hold many rows: None, and the bin of every row."""
    n = order.size
    lo = at[lo_u]
    hi = np.where(hi_u < at.size, at[np.minimum(hi_u, at.size - 1)], n)
    lengths = hi - lo
    total = int(lengths.sum())
    if total * 8 < n:  # a few: sort their row numbers
        pos = np.arange(total) + np.repeat(lo - (np.cumsum(lengths) - lengths), lengths)
        rows = order[pos]
        by_row = np.argsort(rows)
        return rows[by_row], np.repeat(bins, lengths)[by_row]
    bin_of_value = np.cumsum(starts) - 1
    index = np.empty(n, dtype=np.int64)
    index[order] = np.repeat(bin_of_value, np.diff(at, append=n))
    return None, index


def _drop_absent(
    values: np.ndarray,
    w_value: np.ndarray,
    s_value: np.ndarray,
    run: np.ndarray | None,
    at: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The distinct values of positive weight W_u, their sums, and the row-to-value maps of
    :func:`_hashed_runs` (``run``) or :func:`_sorted_sums` (``at``) onto them: a row of weight
    0 whose value is dropped goes to the value below it (the first value for those below every
    one), where its weight adds nothing. Rows of weight 0 then neither link two values into
    a tie group nor make a bin of their own, and the sums are those without them, bit for bit
    (the rule of :mod:`ordmetrics._core.numerics`)."""
    keep = w_value > 0
    if run is not None:
        below = np.maximum(np.cumsum(keep) - 1, 0)
        run = below[run]
    if at is not None:
        at = at[keep]
        at[0] = 0  # the rows of the dropped values below the first one join it
    return values[keep], w_value[keep], s_value[keep], run, at


def _weighted_event(
    f: np.ndarray,
    o: np.ndarray,
    w: np.ndarray,
    total: float,
    buf: np.ndarray,
    ints: np.ndarray,
    flags: np.ndarray,
    terms: np.ndarray,
) -> list[float]:
    np.subtract(f, o, out=buf)
    np.multiply(buf, buf, out=buf)
    np.multiply(buf, w, out=buf)
    score = float(buf.sum()) / total
    # the distinct values and the value of every row: the same by either way
    found = _hashed_runs(f, buf, HASH_MAX_VALUES)
    order: np.ndarray | None = None
    at: np.ndarray | None = None
    # the weight and the weighted outcomes per distinct value, added in row order
    if found is None:  # by a sort: the sums in sorted order, row order within a value
        values, w_value, s_value, starts, groups, order, at = _sorted_sums(
            f, o, w, buf, ints, flags
        )
        run = wo = None
    else:
        values, run = found
        wo = np.multiply(w, o, out=buf)  # w_i o_i
        w_value = np.bincount(run, weights=w, minlength=values.size)
        s_value = np.bincount(run, weights=wo, minlength=values.size)
        starts = _tie_starts(values)
        groups = int(np.count_nonzero(starts))
    if not w_value.all():  # values held only by rows of weight 0: absent, they form no bin
        values, w_value, s_value, run, at = _drop_absent(values, w_value, s_value, run, at)
        starts = _tie_starts(values)
        groups = int(np.count_nonzero(starts))
    n_values = values.size
    if groups == n_values:  # every value its own bin
        rel, res, unc, _ = _reduce(values, w_value, s_value, total, terms)
        return [score, rel, res, unc, 0.0, 0.0]
    bins, joined, j_value, j_w, j_s, j_bin = _join(values, w_value, s_value, starts, groups)
    # bins of several values: the sums over their rows in row order, as for a single value
    several, first_joined = np.unique(j_bin, return_index=True)  # j_bin: ascending
    lo_u = joined[first_joined] - 1  # the first value of each such bin
    hi_u = joined[np.searchsorted(j_bin, several, side="right") - 1] + 1  # the next bin's
    if run is None:  # the rows of those bins, by their sorted positions
        assert order is not None and at is not None
        rows, index = _rows_of_bins(order, at, lo_u, hi_u, several, starts)
    else:
        bin_of_value = np.cumsum(starts) - 1
        if joined.size * 16 >= n_values:  # many: all rows
            rows = None
            index = bin_of_value[run]
        else:  # a few (near-ties among many distinct values): the rows of those bins alone
            in_several = np.zeros(n_values, dtype=bool)
            in_several[lo_u] = True
            in_several[joined] = True
            rows = np.flatnonzero(in_several[run])
            index = bin_of_value[run[rows]]
    del run
    weight = w_value[:bins]  # the sums over a bin's values, replaced for bins of several
    s_o = s_value[:bins]
    if rows is None:  # all rows (many near-ties), in row order
        weight[several] = np.bincount(index, weights=w, minlength=bins)[several]
        if wo is None:
            wo = np.multiply(w, o)  # (buf holds the values' sums)
        s_o[several] = np.bincount(index, weights=wo, minlength=bins)[several]
    else:
        w_rows = w[rows]
        weight[several] = np.bincount(index, weights=w_rows, minlength=bins)[several]
        np.multiply(w_rows, o[rows], out=w_rows)
        s_o[several] = np.bincount(index, weights=w_rows, minlength=bins)[several]
    del index
    v_bin = values[:bins]
    rel, res, unc, mean_o = _reduce(v_bin, weight, s_o, total, terms)
    wbv, wbc = _within(j_value, j_w, j_s, j_bin, v_bin, mean_o, total)
    return [score, rel, res, unc, wbv, wbc]


def distinct_parts(P: np.ndarray, y: np.ndarray, w: np.ndarray | None, view: str) -> np.ndarray:
    """Score, REL, RES, UNC, WBV, WBC of every event of ``view``, shape (6, E), each divided
    by the total weight W.

    ``P``: the float64 probabilities (N, K); ``y``: class codes 0..K-1; ``w``: the weights
    scaled by :func:`~ordmetrics._core.numerics.scale_weights`, or None (unweighted). Rows of
    weight 0 add nothing to any sum, link no two values into one tie group and make no bin of
    their own (the rule of :mod:`ordmetrics._core.numerics`; :func:`_drop_absent`).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [0.5, 0.5], [0.2, 0.8], [0.2, 0.8]])
    >>> distinct_parts(P, np.array([0, 1, 1, 1]), None, "classwise").sum(axis=1).tolist()
    [0.29, 0.04, 0.125, 0.375, 0.0, 0.0]
    """
    buf = np.empty(P.shape[0])
    ints = np.empty((2 if w is None else 4, P.shape[0]), dtype=np.int64)
    flags = np.empty(P.shape[0], dtype=bool)
    terms = np.empty((2, P.shape[0]))
    out = []
    total = 0.0
    if w is not None:
        w = np.ascontiguousarray(w, dtype=np.float64)  # one compiled version of the kernel
        total = float(w.sum())
    for f, o in _events(P, y, view):
        if not (f.min() >= 0.0 and f.max() < 2.0):  # validated probabilities: never
            raise ValueError(
                f"y_proba must hold probabilities in [0, 1]; got forecasts from {f.min()!r} to "
                f"{f.max()!r}. Pass probabilities, or renormalize=True for scores."
            )
        if w is None:
            out.append(_unweighted_event(f, o, buf, ints, flags, terms))
        else:
            out.append(_weighted_event(f, o, w, total, buf, ints, flags, terms))
    return np.array(out, dtype=np.float64).reshape(-1, 6).T
