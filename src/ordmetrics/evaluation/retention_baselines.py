"""The cuts of a retention curve and its baselines: the retained weight at each fraction, the
confusion counts of every retained prefix of one or many orderings, the per-cell losses that
rank the oracle's rows, the Monte Carlo (or hypergeometric) counts of random removal, and the
normalised area under the curve.

See the Notes of :func:`ordmetrics.evaluation.retention.retention_curve` for the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ordmetrics._core.parallel import parallel_slot, run_chunks
from ordmetrics.evaluation.retention_kappa import kappa_draws, kappa_draws_background
from ordmetrics.evaluation.retention_sampler import (
    hypergeometric_counts,
    hypergeometric_counts_background,
    row_ordering_counts,
)
from ordmetrics.metrics.decisions import builtin_matrix

#: Populations (total integer weight) up to which the hypergeometric sampler draws: beyond,
#: its log-factorial differences lose too many digits (the limit of NumPy's sampler too).
_HYPERGEOMETRIC_LIMIT = 10**9

#: Counts of the random draws whose values are summed together (the order of the sum).
_CHUNK_ELEMENTS = 1 << 21

#: Counts of the random draws drawn and evaluated at once (bounds the memory of the random
#: baseline; small enough to stay in the processor's cache while evaluated).
_PIECE_ELEMENTS = 1 << 18


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


def _segment_counts(
    cells: np.ndarray, seg: np.ndarray, cuts: np.ndarray, targets: np.ndarray, kk: int
) -> np.ndarray:
    """Confusion counts of the rows kept at each target (unit weights), from the segments.

    ``cuts`` are the sorted distinct targets below N and ``seg`` the number of cuts that leave
    each row out (:func:`~ordmetrics.evaluation.retention_inputs.segments_at_cuts`): the rows
    kept at cut ``cuts[i]`` are those of segments 0..i, so the counts are cumulative sums of
    one histogram of (segment, cell), exact integers; a target of N or more keeps every row.
    Returns (1, M, K*K), the counts :func:`_prefix_counts` gives for the same cuts.
    """
    hist = np.bincount(seg * kk + cells, minlength=(cuts.size + 1) * kk)
    counts = np.cumsum(hist.reshape(cuts.size + 1, kk), axis=0)
    return counts[np.searchsorted(cuts, targets.astype(np.int64))][None, :, :]


def _random_counts_units(
    full: np.ndarray, targets: np.ndarray, first: int, n_draws: int, seed: int
) -> np.ndarray:
    """Counts of uniformly random subsets of T weight units, for each target T: draws
    ``first`` to ``first + n_draws - 1`` of the stream ``seed``.

    A row of integer weight w is w units (repeated rows). The cell counts of a uniformly
    random subset of T of the W units follow the multivariate hypergeometric distribution,
    drawn here directly by a compiled sampler
    (:func:`~ordmetrics.evaluation.retention_sampler.hypergeometric_counts`):
    O(M n_draws K^2), whatever N.
    """
    return hypergeometric_counts(np.rint(full).astype(np.int64), targets, first, n_draws, seed)


def _random_counts_rows(
    cells: np.ndarray,
    weight: np.ndarray | None,
    targets: np.ndarray,
    first: int,
    n_draws: int,
    seed: int,
    kk: int,
    tol: float,
) -> np.ndarray:
    """Prefix counts of uniformly random orderings of the rows (non-integer weights, or
    integer weights too large for the hypergeometric sampler): draws ``first`` to
    ``first + n_draws - 1`` of the stream ``seed``, by a compiled shuffle and one pass over
    the rows per draw (:func:`~ordmetrics.evaluation.retention_sampler.row_ordering_counts`),
    cut as :func:`_prefix_counts` cuts."""
    return row_ordering_counts(cells, weight, targets, tol, kk, first, n_draws, seed)


def _cell_losses(metric: str, options: Mapping[str, Any], k: int) -> np.ndarray:
    """The per-row loss (for accuracy and within_k_accuracy, the credit) of each cell
    (y, yhat), K x K: the value of metric (one of
    :data:`~ordmetrics.evaluation.retention.DECOMPOSABLE`) on a single row in that cell.

    Read from the metric's definition, O(K^2): evaluating the K^2 one-row confusion matrices
    would take K^4 memory and time (767 MB at K = 100). ``options`` were checked by
    :func:`~ordmetrics.evaluation.retention.retention_curve`.
    """
    distance = builtin_matrix("absolute", k)
    if metric == "expected_cost":
        costs = options.get("costs", "absolute")
        if isinstance(costs, str):
            return builtin_matrix(costs, k)
        return np.array(costs, dtype=np.float64)
    if metric == "mae":
        return distance
    within = 0 if metric == "accuracy" else int(options.get("k", 1))
    return (distance <= within).astype(np.float64)


class RandomDraws:
    """The draws of the random-removal baseline, started before the curve is computed.

    The random counts are drawn and evaluated a piece of draws at a time, pieces on several
    threads, so the memory does not grow with ``n_random``: a piece holds at most
    ``_PIECE_ELEMENTS`` counts (M K^2 per draw; one draw when that alone is larger), and a row
    ordering is drawn and counted in O(N) memory per thread. Every draw has its own random
    stream (draw d of one seed taken from ``rng``) and each value depends on its draw only,
    so pieces and threads change nothing; the values are summed by chunks of
    ``_CHUNK_ELEMENTS`` counts, in order (the order of the final sum). With integer
    weights the first chunk is drawn in a background thread from the start, while the
    caller computes the curve; :meth:`mean` waits for it (for kappa with integer weights,
    every draw is evaluated as drawn, :mod:`ordmetrics.evaluation.retention_kappa`). With
    integer weights totalling at most (non-empty cells) x (fractions below the total), each
    draw is a shuffle of the weight units (sorted by cell) instead: fewer steps than the
    hypergeometric variates.
    """

    def __init__(
        self,
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
        *,
        background: bool = False,
        kappa_weights: Callable[[int], np.ndarray | None] | None = None,
    ) -> None:
        self.full, self.cells, self.weight, self.targets = full, cells, weight, targets
        self.n_random, self.k, self.tol = n_random, k, tol
        self.units = integer and total < _HYPERGEOMETRIC_LIMIT
        # few units (small N, many cells): a shuffle of the units costs O(W) per draw, the
        # hypergeometric counts O(M K^2) variates, each several times a shuffle step
        self.shuffle: np.ndarray | None = None
        if self.units and total <= np.count_nonzero(full) * np.count_nonzero(targets < total):
            # the units sorted by cell: the draws depend on the counts only, as the
            # hypergeometric ones do
            self.shuffle = np.repeat(np.arange(full.size), np.rint(full).astype(np.int64))
            self.units = False
        self.chunk = min(max(1, _CHUNK_ELEMENTS // (targets.size * k * k)), n_random)
        # one 64-bit seed from the caller's generator; draw d of the samplers depends only on
        # it and on d, so the chunks change nothing
        self.seed = int(rng.integers(0, 2**63, dtype=np.int64))
        self.pending: Callable[[], np.ndarray] | None = None
        # kappa with integer weights: every draw evaluated as drawn (the same values)
        self.kappa = kappa_weights(int(total)) if self.units and kappa_weights is not None else None
        if self.kappa is not None:
            # evaluated as drawn: values, not counts (one chunk in the background)
            self.pending = kappa_draws_background(
                np.rint(full).astype(np.int64), targets, self.kappa, self.chunk, self.seed
            )
        elif background and self.units:
            self.pending = hypergeometric_counts_background(
                np.rint(full).astype(np.int64), targets, 0, self.chunk, self.seed
            )

    def _draw(self, start: int, size: int) -> np.ndarray:
        if start == 0 and self.pending is not None:
            return self.pending()
        if self.kappa is not None:
            colors = np.rint(self.full).astype(np.int64)
            return kappa_draws(colors, self.targets, self.kappa, size, self.seed, first=start)
        if self.units:
            return _random_counts_units(self.full, self.targets, start, size, self.seed)
        if self.shuffle is not None:
            return _random_counts_rows(
                self.shuffle, None, self.targets, start, size, self.seed, self.k * self.k, 0.0
            )
        return _random_counts_rows(
            self.cells,
            self.weight,
            self.targets,
            start,
            size,
            self.seed,
            self.k * self.k,
            self.tol,
        )

    def _values(self, evaluate: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The metric of every draw (rows) at every target (columns).

        Drawn and evaluated a few draws at a time (at most :data:`_PIECE_ELEMENTS` counts,
        still in the processor's cache when evaluated), the pieces on several threads (the
        samplers and NumPy release the GIL): each value depends only on its draw, so the
        pieces and the threads change nothing. That holds by construction: the evaluator
        reduces every matrix over its own contiguous K x K block, in an order fixed by K (no
        matrix product, einsum or BLAS kernel, whose order of summation depends on the number
        of matrices in the batch and on the processor).
        """
        k, m, n = self.k, self.targets.size, self.n_random
        if self.kappa is not None:  # kappa of each draw and target, drawn by chunks
            return np.concatenate(
                [self._draw(s, min(self.chunk, n - s)) for s in range(0, n, self.chunk)]
            )
        out = np.empty((n, m))
        done = 0
        if self.pending is not None:  # the first chunk, drawn in the background
            out[: self.chunk] = evaluate(self._draw(0, self.chunk).reshape(-1, k, k)).reshape(
                self.chunk, m
            )
            done = self.chunk
        piece = max(1, _PIECE_ELEMENTS // (m * k * k))
        starts = range(done, n, piece)

        def work(c: int) -> None:
            lo = starts[c]
            hi = min(lo + piece, n)
            rand = self._draw(lo, hi - lo)
            out[lo:hi] = evaluate(rand.reshape(-1, k, k)).reshape(hi - lo, m)

        with parallel_slot((n - done) * m * k * k) as parallel:
            run_chunks(work, len(starts), parallel)
        return out

    def mean(self, evaluate: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Mean metric (NaN left out) of the random retentions, for each target."""
        m = self.targets.size
        every = self._values(evaluate)
        sums = np.zeros(m)
        defined = np.zeros(m, dtype=np.int64)
        # summed by chunks of ``self.chunk`` draws, in order: the sums do not depend on how
        # the values were computed
        for start in range(0, self.n_random, self.chunk):
            values = every[start : start + self.chunk]
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
