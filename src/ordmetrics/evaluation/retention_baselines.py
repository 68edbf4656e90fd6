"""The cuts of a retention curve and its random baseline: the retained weight at each
fraction, the confusion counts of every retained prefix of one or many orderings, the Monte
Carlo (or hypergeometric) counts of random removal, and the normalised area under the curve.

See the Notes of :func:`ordmetrics.evaluation.retention.retention_curve` for the rules.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Populations (total integer weight) from which NumPy's hypergeometric sampler can draw.
_HYPERGEOMETRIC_LIMIT = 10**9

#: Rows x orderings handled at once by the row-permutation Monte Carlo (bounds its memory).
_CHUNK_ELEMENTS = 1 << 21


def _integer_units(weight: np.ndarray) -> bool:
    """Whether the weights are integers whose sum is exact in float64 (at most 2^53): only
    then are they units, cut by whole units (see the Notes of :func:`retention_curve`)."""
    with np.errstate(over="ignore"):
        return bool((weight == np.floor(weight)).all() and weight.sum() <= 2.0**53)


def _targets(
    fractions: np.ndarray, weight: np.ndarray | None, n: int
) -> tuple[np.ndarray, bool, float]:
    """Retained weight T(f) per fraction, whether the weights are integers, and the total W."""
    if weight is None:
        total, integer = float(n), True
    else:
        total = float(weight.sum())
        integer = _integer_units(weight)
    raw = fractions * total
    if integer:
        return np.maximum(1.0, np.floor(raw + 0.5)), True, total
    return raw, False, total


def _prefix_counts(
    cells: np.ndarray,
    weight: np.ndarray | None,
    orders: np.ndarray,
    targets: np.ndarray,
    kk: int,
    tol: float,
) -> np.ndarray:
    """Confusion counts of the first T rows (by weight) of each ordering, for each target T.

    ``cells`` holds each row's cell ``y * K + yhat``; ``orders`` of shape (R, N) lists the
    rows of each of R orderings; rows enter in that order until their cumulative weight
    reaches T, the boundary row contributing only the part of its weight that is needed.
    Returns (R, M, K*K): the rows between consecutive cuts are counted once (one bincount)
    and cumulated over the cuts, so the cost is O(R N + R M K^2).

    ``tol`` absorbs the rounding of cumulative sums of non-integer weights: a boundary part
    within ``tol`` of 0 or of the row's whole weight is taken as exactly that (0 for integer
    weights, where every sum is exact).
    """
    r, n = orders.shape
    m = targets.size
    asc = np.argsort(targets, kind="stable")
    t_asc = targets[asc]
    c = cells[orders]
    # segment s of a row: it is fully retained at the targets t_asc[s:], the ones >= its
    # cumulative weight
    if weight is None:
        w = None
        # the row at position i (cumulative weight i + 1) is in segment s for
        # t_asc[s - 1] < i + 1 <= t_asc[s]
        bounds = np.concatenate([[0], t_asc.astype(np.int64), [n]])
        seg = np.repeat(np.arange(m + 1), np.diff(bounds))[None, :]
    else:
        w = weight[orders]
        cw = np.cumsum(w, axis=1)
        seg = np.searchsorted(t_asc, cw, side="left")
    seg = np.broadcast_to(seg, (r, n))
    block = np.arange(r)[:, None] * (m + 1) + seg
    hist = np.bincount(
        (block * kk + c).ravel(),
        weights=None if w is None else w.ravel(),
        minlength=r * (m + 1) * kk,
    ).reshape(r, m + 1, kk)
    counts = np.cumsum(hist[:, :m], axis=1)
    if w is not None:
        # number of fully retained rows at each target; the next row is the boundary row
        n_full = np.cumsum(
            np.bincount(block.ravel(), minlength=r * (m + 1)).reshape(r, m + 1)[:, :m], axis=1
        )
        rows = np.arange(r)[:, None]
        inside = n_full < n
        b = np.minimum(n_full, n - 1)
        before = np.where(n_full > 0, cw[rows, np.maximum(n_full - 1, 0)], 0.0)
        part = np.where(inside, t_asc[None, :] - before, 0.0)
        wb = w[rows, b]
        part = np.where(part <= tol, 0.0, np.where(wb - part <= tol, wb, part))
        counts[rows, np.arange(m)[None, :], c[rows, b]] += part
    out = np.empty_like(counts)
    out[:, asc] = counts
    return out


def _random_counts_units(
    full: np.ndarray, targets: np.ndarray, n_random: int, rng: np.random.Generator
) -> np.ndarray:
    """Counts of ``n_random`` uniformly random subsets of T weight units, for each target T.

    A row of integer weight w is w units (repeated rows). The cell counts of a uniformly
    random subset of T of the W units follow the multivariate hypergeometric distribution,
    drawn here directly: O(M n_random K^2), whatever N.
    """
    colors = np.rint(full).astype(np.int64)
    total = int(colors.sum())
    out = np.empty((n_random, targets.size, colors.size))
    for j, t in enumerate(targets.astype(np.int64).tolist()):
        if t >= total:
            out[:, j] = colors
        else:
            out[:, j] = rng.multivariate_hypergeometric(colors, t, size=n_random)
    return out


def _random_counts_rows(
    cells: np.ndarray,
    weight: np.ndarray | None,
    targets: np.ndarray,
    n_random: int,
    rng: np.random.Generator,
    kk: int,
    tol: float,
) -> np.ndarray:
    """Prefix counts of ``n_random`` uniformly random orderings of the rows (non-integer
    weights, or integer weights too large for the hypergeometric sampler)."""
    n = cells.size
    chunk = max(1, _CHUNK_ELEMENTS // n)
    parts = []
    for start in range(0, n_random, chunk):
        size = min(chunk, n_random - start)
        orders = rng.permuted(np.tile(np.arange(n), (size, 1)), axis=1)
        parts.append(_prefix_counts(cells, weight, orders, targets, kk, tol))
    return np.concatenate(parts, axis=0)


def _random_baseline(
    evaluate: Callable[[np.ndarray], np.ndarray],
    full: np.ndarray,
    cells: np.ndarray,
    weight: np.ndarray | None,
    targets: np.ndarray,
    n_random: int,
    rng: np.random.Generator,
    k: int,
    tol: float,
    integer: bool,
    total: float,
) -> np.ndarray:
    """Mean metric (NaN left out) of ``n_random`` random retentions, for each target.

    The random counts are drawn and evaluated a chunk of orderings at a time, so the memory
    does not grow with ``n_random``: a chunk holds at most ``_CHUNK_ELEMENTS`` counts (M K^2
    per ordering; one ordering when that alone is larger), and for the row orderings at most
    ``_CHUNK_ELEMENTS`` row indices. Whenever everything fits in one chunk, the draws are
    those of one call for all ``n_random`` orderings.
    """
    kk = k * k
    m = targets.size
    units = integer and total < _HYPERGEOMETRIC_LIMIT
    chunk = max(1, _CHUNK_ELEMENTS // (m * kk))
    if not units:
        chunk = min(chunk, max(1, _CHUNK_ELEMENTS // cells.size))
    chunk = min(chunk, n_random)
    sums = np.zeros(m)
    defined = np.zeros(m, dtype=np.int64)
    for start in range(0, n_random, chunk):
        size = min(chunk, n_random - start)
        if units:
            rand = _random_counts_units(full, targets, size, rng)
        else:
            rand = _random_counts_rows(cells, weight, targets, size, rng, kk, tol)
        values = evaluate(rand.reshape(-1, k, k)).reshape(size, m)
        del rand
        ok = ~np.isnan(values)
        sums += np.where(ok, values, 0.0).sum(axis=0)
        defined += ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined > 0, sums / np.maximum(defined, 1), np.nan)


def _area(fractions: np.ndarray, values: np.ndarray) -> float:
    """Trapezoidal area under (f, value) divided by the span of f (a single point: its value).

    Written as v_0 + sum_j c_j (v_j - v_0) with trapezoid weights c_j summing to 1, so that a
    constant curve gives exactly its constant.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size == 1:
        return float(v[0])
    df = fractions[:-1] - fractions[1:]
    c = np.zeros(v.size)
    c[:-1] += df / 2
    c[1:] += df / 2
    c /= fractions[0] - fractions[-1]
    return float(v[0] + np.dot(c, v - v[0]))
