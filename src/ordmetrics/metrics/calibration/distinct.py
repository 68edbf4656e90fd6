"""The score decompositions with one bin per distinct forecast value (``n_bins=None``).

Every event (a column of the classwise or cumulative view) is reduced to its distinct forecast
values u, each with the weight W_u and the weighted outcomes S_u of the rows that hold it; the
tie rule of :mod:`ordmetrics._core.numerics` groups neighbouring values into the bins, each
valued at its smallest member. Definitions: ``docs/definitions.md``, section 4.

* Unweighted: the forecast and the outcome of a row are packed into one integer key (the bits
  of the non-negative float64 forecast, shifted left, plus the outcome) and the keys sorted
  with NumPy's vectorised sort: the runs of equal keys give the counts per value and outcome,
  with no permutation of the rows. Counts are exact, whatever the order of addition.
* Weighted: the distinct value of every row, by a stable argsort of the forecasts' bits (as
  int64: ordered like non-negative values, and faster to sort than the floats) or, for at most
  :data:`HASH_MAX_VALUES` distinct values, by a perfect hash of the bits (no sort of the rows);
  then W_u, S_u and the bin sums W_b, S_b are added in row order (``np.bincount``).

Order of the sums (fixed): REL and RES over the bins in ascending order, UNC from S = sum_b S_b
(NumPy's pairwise summation); the score over the rows in row order (pairwise); WBV and WBC,
non-zero only where the tie rule puts several distinct values in one bin, over the values
above their bin's value f_b in ascending order (pairwise) of W_u (u - f_b)^2 and
2 (S_u - W_u o_b)(u - f_b).

One event at a time: the memory beyond the input is a few vectors of N values.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ordmetrics._core.numerics import TIE_TOLERANCE

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
    """:func:`~ordmetrics._core.numerics.group_starts_sorted` for sorted, distinct,
    non-negative ``values``: there max(1, |a|, |b|) is max(1, b) (the same bits, fewer passes)."""
    starts = np.empty(values.size, dtype=bool)
    starts[:1] = True
    hi = values[1:]
    gap = hi - values[:-1]
    scale = np.maximum(hi, 1.0)
    np.multiply(scale, TIE_TOLERANCE, out=scale)
    np.greater(gap, scale, out=starts[1:])
    return starts


def _unweighted_values(
    f: np.ndarray, o: np.ndarray, buf: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct values u of ``f`` (ascending), their counts and their counts of outcome 1
    (int64); ``f`` in [0, 2). ``buf``: a float64 buffer of N values, overwritten."""
    n = f.size
    key = buf.view(np.int64)
    # non-negative float64 values below 2: their bits as int64 are ordered like the values and
    # leave the top bit free for the shift (the bits of -0.0, the sign bit alone, shift out to
    # those of +0.0)
    np.left_shift(f.view(np.int64), 1, out=key)
    np.add(key, o, out=key)  # 2 bits(f) + o
    key.sort()  # NumPy's vectorised sort, no permutation of the rows
    starts = np.flatnonzero(_run_starts(key))  # runs of equal (value, outcome)
    run_key = key[starts]
    odd = run_key & 1  # 1 for the runs of outcome 1
    run_key >>= 1  # the value's bits: one run per value, or two (outcome 0, then 1)
    first = np.flatnonzero(_run_starts(run_key))
    if first.size == run_key.size:  # one run per value
        count = np.diff(starts, append=n)
        return run_key.view(np.float64), count, count * odd
    last = np.append(first[1:], run_key.size) - 1
    at = starts[first]  # the first (sorted) row of each value
    end = np.append(at[1:], n)
    return run_key[first].view(np.float64), end - at, (end - starts[last]) * odd[last]


def _reduce(
    v_bin: np.ndarray, weight: np.ndarray, s_o: np.ndarray, total: float, filled: bool
) -> tuple[float, float, float, np.ndarray]:
    """REL, RES, UNC and the observed frequency per bin, from the bin values and sums
    (``filled``: every bin has a positive weight)."""
    if filled:
        mean_o = s_o / weight
        mean_f = v_bin
    else:
        full = weight > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_o = np.where(full, s_o / weight, 0.0)
        mean_f = np.where(full, v_bin, 0.0)
    base_rate = s_o.sum() / total
    d = mean_f - mean_o
    np.multiply(d, d, out=d)
    np.multiply(weight, d, out=d)
    rel = float(d.sum() / total)
    np.subtract(mean_o, base_rate, out=d)
    np.multiply(d, d, out=d)
    np.multiply(weight, d, out=d)
    res = float(d.sum() / total)
    unc = float(base_rate * (1.0 - base_rate))
    return rel, res, unc, mean_o


def _joined(starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From the tie starts of the distinct values: the first value of every bin, the values
    joined to a bin above its first value (ascending), and their bins."""
    first = np.flatnonzero(starts)
    joined = np.flatnonzero(~starts)
    return first, joined, np.searchsorted(first, joined, side="right") - 1


def _within(
    values: np.ndarray,
    w_value: np.ndarray,
    s_value: np.ndarray,
    joined: np.ndarray,
    bin_of_joined: np.ndarray,
    v_bin: np.ndarray,
    mean_o: np.ndarray,
    total: float,
) -> tuple[float, float]:
    """WBV, WBC of one event: sums over the values joined to a bin above its first value
    f_b (the only ones with u - f_b != 0), in ascending order, of W_u (u - f_b)^2 and
    (S_u - W_u o_b)(u - f_b), o_b the bin's observed frequency."""
    dev = values[joined] - v_bin[bin_of_joined]
    w_u = w_value[joined]
    wbv = float(np.sum(w_u * (dev * dev)) / total)
    wbc = 2.0 * float(np.sum((s_value[joined] - w_u * mean_o[bin_of_joined]) * dev)) / total
    return wbv, wbc


def _unweighted_event(f: np.ndarray, o: np.ndarray, buf: np.ndarray) -> list[float]:
    total = float(f.size)
    np.subtract(f, o, out=buf)
    np.multiply(buf, buf, out=buf)
    score = float(buf.sum()) / total
    values, count, ones = _unweighted_values(f, o, buf)  # counts: exact in any order
    starts = _tie_starts(values)
    if starts.all():  # every value its own bin
        rel, res, unc, _ = _reduce(values, count, ones, total, True)
        return [score, rel, res, unc, 0.0, 0.0]
    first, joined, bin_of_joined = _joined(starts)
    weight = count[first]
    np.add.at(weight, bin_of_joined, count[joined])
    s_o = ones[first]
    np.add.at(s_o, bin_of_joined, ones[joined])
    v_bin = values[first]
    rel, res, unc, mean_o = _reduce(v_bin, weight, s_o, total, True)
    wbv, wbc = _within(values, count, ones, joined, bin_of_joined, v_bin, mean_o, total)
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


def _sorted_runs(f: np.ndarray, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``f`` (ascending) and the index of every row's value, by a stable
    sort of the bits of the (non-negative) forecasts as int64: ordered like the values, and
    faster than a sort of the floats (-0.0, the sign bit alone, comes first)."""
    order = np.argsort(f.view(np.int64), kind="stable")
    sv = np.take(f, order, out=buf)
    change = _run_starts(sv)
    values = sv[change]  # the distinct values
    values[:1] += 0.0  # -0.0 as +0.0
    run = np.empty(f.size, dtype=np.int64)
    run_sorted = np.cumsum(change, dtype=np.int64)
    del change
    run_sorted -= 1
    run[order] = run_sorted
    return values, run


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


def _weighted_event(
    f: np.ndarray, o: np.ndarray, w: np.ndarray, total: float, buf: np.ndarray
) -> list[float]:
    np.subtract(f, o, out=buf)
    np.multiply(buf, buf, out=buf)
    np.multiply(buf, w, out=buf)
    score = float(buf.sum()) / total
    # the distinct values and the value of every row: the same by either way
    found = _hashed_runs(f, buf, HASH_MAX_VALUES)
    values, run = _sorted_runs(f, buf) if found is None else found
    wo = np.multiply(w, o, out=buf)  # w_i o_i
    # the weight and the weighted outcomes per distinct value, in row order
    w_value = np.bincount(run, weights=w, minlength=values.size)
    s_value = np.bincount(run, weights=wo, minlength=values.size)
    starts = _tie_starts(values)
    if starts.all():  # every value its own bin
        rel, res, unc, _ = _reduce(values, w_value, s_value, total, bool(w_value.all()))
        return [score, rel, res, unc, 0.0, 0.0]
    first, joined, bin_of_joined = _joined(starts)
    # bins of several values: the sums over their rows in row order, as for a single value
    bin_of_value = np.cumsum(starts) - 1
    if joined.size * 16 >= values.size:  # many: all rows
        index = bin_of_value[run]
        del run
        weight = np.bincount(index, weights=w, minlength=first.size)
        s_o = np.bincount(index, weights=wo, minlength=first.size)
    else:  # a few (near-ties among many distinct values): the rows of those bins alone
        several = np.unique(bin_of_joined)
        in_several = np.zeros(values.size, dtype=bool)
        in_several[first[several]] = True
        in_several[joined] = True
        rows = np.flatnonzero(in_several[run])
        index = bin_of_value[run[rows]]
        del run
        weight = w_value[first]
        weight[several] = np.bincount(index, weights=w[rows], minlength=first.size)[several]
        s_o = s_value[first]
        s_o[several] = np.bincount(index, weights=wo[rows], minlength=first.size)[several]
    del index
    v_bin = values[first]
    rel, res, unc, mean_o = _reduce(v_bin, weight, s_o, total, bool(weight.all()))
    wbv, wbc = _within(values, w_value, s_value, joined, bin_of_joined, v_bin, mean_o, total)
    return [score, rel, res, unc, wbv, wbc]


def distinct_parts(P: np.ndarray, y: np.ndarray, w: np.ndarray | None, view: str) -> np.ndarray:
    """Score, REL, RES, UNC, WBV, WBC of every event of ``view``, shape (6, E), each divided
    by the total weight W.

    ``P``: the float64 probabilities (N, K); ``y``: class codes 0..K-1; ``w``: the weights
    scaled by :func:`~ordmetrics._core.numerics.scale_weights`, or None (unweighted).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.5, 0.5], [0.5, 0.5], [0.2, 0.8], [0.2, 0.8]])
    >>> distinct_parts(P, np.array([0, 1, 1, 1]), None, "classwise").sum(axis=1).tolist()
    [0.29, 0.04, 0.125, 0.375, 0.0, 0.0]
    """
    buf = np.empty(P.shape[0])
    out = []
    total = float(w.sum()) if w is not None else 0.0
    for f, o in _events(P, y, view):
        if not (f.min() >= 0.0 and f.max() < 2.0):  # validated probabilities: never
            raise ValueError(
                f"y_proba must hold probabilities in [0, 1]; got forecasts from {f.min()!r} to "
                f"{f.max()!r}. Pass probabilities, or renormalize=True for scores."
            )
        if w is None:
            out.append(_unweighted_event(f, o, buf))
        else:
            out.append(_weighted_event(f, o, w, total, buf))
    return np.array(out, dtype=np.float64).reshape(-1, 6).T
