"""Compiled draws of the random-removal baseline: multivariate hypergeometric confusion counts.

A uniformly random subset of T of the W weight units of a confusion matrix has cell counts
that follow the multivariate hypergeometric distribution. :func:`hypergeometric_counts` draws
them for every (draw, target) pair in one compiled loop, cell by cell (the conditional
"marginals" method: cell c gets a hypergeometric count of the units still to draw, from the
units of cells c, c+1, ...).

Each univariate count is exact: Stadlober's ratio-of-uniforms method (HRUA, the algorithm of
NumPy's ``Generator.hypergeometric``) for samples of 10 or more, unit-by-unit selection for
fewer. The log-factorials it needs come from a table (``math.lgamma``, kept for the process
and grown as needed up to :data:`TABLE_LIMIT` entries) and from Stirling's series beyond, so
a draw costs a few table reads instead of eight logarithms.

The uniforms come from xoshiro256** generators, one per draw, seeded by splitmix64 from a
64-bit seed and the draw's index: draw d is the same whatever the chunk or the thread it is
computed in, so chunking (to bound the memory) and the blocks of draws run in parallel on the
available cores never change the counts.

The draws are computed :data:`LANES` at a time (:func:`draw_lanes`): for each cell, the
variate of every draw of the group in turn. A variate is a short chain of dependent
operations (a square root, divisions, table reads, an unpredictable accept test), and the
next cell's variate depends on it; the draws of a group are independent, so the processor
overlaps their chains (about 1.2x fewer cycles than one draw after the other). Each draw
still reads only its own stream, in the same order: the counts are those of the draws one by
one. Each kernel exists twice (:func:`draw_kernel`): reading the table without bounds tests
when the total is within it (the usual case, another 1.1x), and with Stirling's series beyond
it (totals of 2^20 units or more); the same numbers, and each compiled on its first use only.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.parallel import thread_pool, usable_cpus

__all__ = [
    "LANES",
    "TABLE_LIMIT",
    "draw_kernel",
    "draw_lanes",
    "hypergeometric_counts",
    "hypergeometric_counts_background",
    "log_factorials",
    "row_ordering_counts",
]

#: Largest table of log-factorials kept (entries; 8 bytes each); larger arguments use
#: Stirling's series.
TABLE_LIMIT = 1 << 20

_TABLE: list[np.ndarray] = [np.zeros(0)]
_TABLE_LOCK = threading.Lock()

_opts = {"cache": True, "nogil": True}

#: (draw, target) pairs below which a block of draws is not worth a thread of its own.
_MIN_PER_THREAD = 256

#: Draws computed together, cell by cell (see the module notes).
LANES = 4


def _run_blocks(run: Callable[[int, int], None], n_draws: int, work: int) -> None:
    """``run(lo, hi)`` on blocks of the draws 0..n_draws - 1 on the calling thread and the
    pool's (the kernels release the GIL), at most one per core and one per ``work`` unit. A
    block whose thread has not started when the caller is done with its own is run by the
    caller instead of waited for. Each draw has its own random stream, so the result does
    not depend on the number of threads."""
    n_threads = max(1, min(usable_cpus(), work, n_draws))
    if n_threads == 1:
        run(0, n_draws)
        return
    run(0, 0)  # compiles the kernel once, here
    bounds = np.linspace(0, n_draws, n_threads + 1).astype(np.int64).tolist()
    blocks = list(itertools.pairwise(bounds[1:]))
    helpers = [thread_pool().submit(run, lo, hi) for lo, hi in blocks]
    run(0, bounds[1])
    for (lo, hi), f in zip(blocks, helpers, strict=True):
        if f.cancel():
            run(lo, hi)
        else:
            f.result()


@njit(**_opts)
def _fill_log_factorials(out: np.ndarray, start: int) -> None:
    for k in range(start, out.size):
        out[k] = math.lgamma(k + 1.0)


def log_factorials(n: int) -> np.ndarray:
    """log(k!) for k = 0 .. min(n, TABLE_LIMIT - 1), from a table kept between calls."""
    size = min(int(n) + 1, TABLE_LIMIT)
    table = _TABLE[0]
    if table.size >= size:
        return table
    with _TABLE_LOCK:
        table = _TABLE[0]
        if table.size < size:
            grown = np.empty(min(max(size, 2 * table.size), TABLE_LIMIT))
            grown[: table.size] = table
            _fill_log_factorials(grown, table.size)
            grown.setflags(write=False)
            _TABLE[0] = table = grown
    return table


_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_D1 = 1.7155277699214135  # 2 sqrt(2 / e)
_D2 = 0.8989161620588988  # 3 - 2 sqrt(3 / e)


@njit(inline="always", **_opts)
def _log_factorial(k: int, table: np.ndarray) -> float:
    if k < table.size:
        return table[k]
    x = float(k)
    return (
        (x + 0.5) * math.log(x)
        - x
        + _HALF_LOG_2PI
        + (1.0 / x) * (1.0 / 12.0 - 1.0 / (360.0 * x * x))
    )


@njit(**_opts)
def _log_terms_beyond(k: int, mingb: int, small: int, maxgb: int, table: np.ndarray) -> float:
    """:func:`_log_terms` with arguments that may be beyond the table (a call)."""
    return (
        _log_factorial(k, table)
        + _log_factorial(mingb - k, table)
        + _log_factorial(small - k, table)
        + _log_factorial(maxgb - small + k, table)
    )


@njit(inline="always", **_opts)
def _log_terms(
    k: int, mingb: int, small: int, maxgb: int, table: np.ndarray, direct: bool
) -> float:
    """log(k! (mingb - k)! (small - k)! (maxgb - small + k)!): the table read without bounds
    tests when ``direct`` (every argument is at most the total, within the table)."""
    if direct:
        return table[k] + table[mingb - k] + table[small - k] + table[maxgb - small + k]
    return _log_terms_beyond(k, mingb, small, maxgb, table)


@njit(inline="always", **_opts)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always", **_opts)
def _next(s: np.ndarray) -> np.uint64:
    """xoshiro256** on the state ``s`` (4 words)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(inline="always", **_opts)
def _next4(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """xoshiro256** on a state held in four scalars (kept in registers): the output of
    :func:`_next` and the next state."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always", **_opts)
def _to_unit(x: np.uint64) -> float:
    """A double in [0, 1): the top 53 bits of a generator output."""
    return float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always", **_opts)
def _splitmix(x: np.uint64) -> np.uint64:
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**_opts)
def _seed_state(s: np.ndarray, seed: np.uint64, draw: int) -> None:
    x = seed ^ (np.uint64(draw) * np.uint64(0xD1B54A32D192ED03))
    for i in range(4):
        x = _splitmix(x)
        s[i] = x
    if s[0] == 0 and s[1] == 0 and s[2] == 0 and s[3] == 0:  # pragma: no cover
        s[0] = np.uint64(1)


@njit(inline="always", **_opts)
def _hypergeometric(
    good: int,
    bad: int,
    sample: int,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
    table: np.ndarray,
    direct: bool,
) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """Number of good items among ``sample`` drawn without replacement from good + bad, from
    the stream (s0, s1, s2, s3); returns it and the stream's next state."""
    total = good + bad
    if sample <= 0 or good <= 0:
        return 0, s0, s1, s2, s3
    if bad <= 0:
        return sample, s0, s1, s2, s3
    if sample >= total:
        return good, s0, s1, s2, s3
    small = min(sample, total - sample)
    if small < 10:
        # unit by unit: the next of the remaining items is good with probability
        # remaining_good / remaining_total
        g = good
        left = total
        for _ in range(small):
            r, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
            if _to_unit(r) * left < g:
                g -= 1
            left -= 1
        k = good - g
        return (k if small == sample else good - k), s0, s1, s2, s3
    # HRUA (Stadlober 1989, as in NumPy): count of the smaller of good and bad in the smaller
    # of sample and total - sample, then mapped back
    mingb = min(good, bad)
    maxgb = max(good, bad)
    inv = 1.0 / total
    p = mingb * inv
    a = small * p + 0.5
    var = (total - small) * (small * p) * (maxgb * inv) / (total - 1.0)
    c = math.sqrt(var + 0.5)
    h = _D1 * c + _D2
    m = math.floor((small + 1.0) * (mingb + 1.0) / (total + 2.0))
    g0 = _log_terms(m, mingb, small, maxgb, table, direct)
    b = min(min(small, mingb) + 1.0, math.floor(a + 16.0 * c))
    k = 0
    while True:
        r, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
        u = _to_unit(r)
        r, s0, s1, s2, s3 = _next4(s0, s1, s2, s3)
        v = _to_unit(r)
        if u == 0.0:
            continue
        x = a + h * (v - 0.5) / u
        if x < 0.0 or x >= b:
            continue
        k = math.floor(x)
        t = g0 - _log_terms(k, mingb, small, maxgb, table, direct)
        if u * (4.0 - u) - 3.0 <= t:
            break
        if u * (u - t) >= 1.0:
            continue
        if 2.0 * math.log(u) <= t:
            break
    if good > bad:
        k = small - k
    if small < sample:
        k = good - k
    return k, s0, s1, s2, s3


@njit(inline="always", **_opts)
def draw_lanes(
    colors: np.ndarray,
    total: int,
    t: int,
    state: np.ndarray,
    lanes: int,
    table: np.ndarray,
    x: np.ndarray,
    direct: bool,
) -> None:
    """x[l] = the cell counts of a uniformly random subset of ``t`` of the ``total`` units of
    ``colors`` (all of them when ``t >= total``), for each draw l < ``lanes`` of a group,
    from its stream ``state[l]`` (updated). Cell by cell, the variate of every draw in turn:
    each draw reads its own stream in the order of a draw alone. ``direct`` (a constant of
    the kernel, see :func:`draw_kernel`): the total is within the table of log-factorials,
    read without bounds tests; else Stirling's series beyond the table."""
    kk = colors.size
    if t >= total:
        for lane in range(lanes):
            for c in range(kk):
                x[lane, c] = colors[c]
        return
    for lane in range(lanes):
        x[lane, kk - 1] = t  # the units still to draw, before cell c
    left_total = total
    for c in range(kk):
        n_c = colors[c]
        for lane in range(lanes):
            left_sample = x[lane, kk - 1]
            if left_sample == 0 or n_c == 0:
                v = 0
            elif c == kk - 1 or left_sample == left_total:
                v = min(n_c, left_sample)
            else:
                s0, s1, s2, s3 = state[lane, 0], state[lane, 1], state[lane, 2], state[lane, 3]
                v, s0, s1, s2, s3 = _hypergeometric(
                    n_c, left_total - n_c, left_sample, s0, s1, s2, s3, table, direct
                )
                state[lane, 0], state[lane, 1], state[lane, 2], state[lane, 3] = s0, s1, s2, s3
            if c < kk - 1:
                x[lane, c] = v
            x[lane, kk - 1] = left_sample - v if c < kk - 1 else v
        left_total -= n_c


@njit(inline="always", **_opts)
def seed_lanes(
    state: np.ndarray, seed: np.uint64, draws: np.ndarray, lo: int, lanes: int, first: int
) -> None:
    """state[l] = the stream of draw ``first + draws[lo + l]``, for l < ``lanes``."""
    s = np.empty(4, dtype=np.uint64)
    for lane in range(lanes):
        _seed_state(s, seed, first + draws[lo + lane])
        for i in range(4):
            state[lane, i] = s[i]


@njit(inline="always", **_opts)
def _counts_body(
    colors: np.ndarray,
    targets: np.ndarray,
    first: int,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
    direct: bool,
) -> None:
    """out[d] = the counts of draw ``first + d`` at every target, in groups of LANES draws."""
    n_draws, m, kk = out.shape
    total = 0
    for c in range(kk):
        total += colors[c]
    state = np.empty((LANES, 4), dtype=np.uint64)
    x = np.empty((LANES, kk), dtype=np.int64)
    draws = np.arange(n_draws)
    for lo in range(0, n_draws, LANES):
        lanes = min(LANES, n_draws - lo)
        seed_lanes(state, seed, draws, lo, lanes, first)
        for j in range(m):
            draw_lanes(colors, total, targets[j], state, lanes, table, x, direct)
            for lane in range(lanes):
                for c in range(kk):
                    out[lo + lane, j, c] = x[lane, c]


@njit(**_opts)
def _draw_counts(
    colors: np.ndarray,
    targets: np.ndarray,
    first: int,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
) -> None:
    _counts_body(colors, targets, first, seed, table, out, True)


@njit(**_opts)
def _draw_counts_beyond(
    colors: np.ndarray,
    targets: np.ndarray,
    first: int,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
) -> None:
    _counts_body(colors, targets, first, seed, table, out, False)


def draw_kernel(colors: np.ndarray, table: np.ndarray, direct: Any, beyond: Any) -> Any:
    """``direct`` when the total of ``colors`` is within ``table`` (every log-factorial the
    draws need is in it: table reads without bounds tests, 10-15% fewer cycles), else
    ``beyond`` (Stirling's series beyond the table; totals of 2^20 units or more). The two
    kernels give the same numbers; each is compiled on its first use only.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_sampler import draw_kernel, log_factorials
    >>> draw_kernel(np.array([4, 6]), log_factorials(10), "direct", "beyond")
    'direct'
    >>> draw_kernel(np.array([2**20, 6]), log_factorials(10), "direct", "beyond")
    'beyond'
    """
    return direct if int(colors.sum()) < table.size else beyond


def hypergeometric_counts_background(
    colors: np.ndarray, targets: np.ndarray, first: int, n_draws: int, seed: int
) -> Callable[[], np.ndarray]:
    """:func:`hypergeometric_counts` in background threads (blocks of draws, one per core),
    so that the caller can work meanwhile; returns the function that waits for the counts and
    returns them (the same numbers)."""
    colors = np.ascontiguousarray(colors, dtype=np.int64)
    targets = np.ascontiguousarray(targets, dtype=np.int64)
    table = log_factorials(int(colors.sum()))
    out = np.empty((n_draws, targets.size, colors.size))
    seed64 = np.uint64(seed)
    kernel = draw_kernel(colors, table, _draw_counts, _draw_counts_beyond)
    kernel(colors, targets, int(first), seed64, table, out[:0])  # compiled here
    n_threads = max(1, min(usable_cpus(), (n_draws * targets.size) // _MIN_PER_THREAD, n_draws))
    bounds = np.linspace(0, n_draws, n_threads + 1).astype(np.int64).tolist()
    blocks = list(itertools.pairwise(bounds))

    def block(lo: int, hi: int) -> None:
        kernel(colors, targets, int(first) + lo, seed64, table, out[lo:hi])

    helpers = [thread_pool().submit(block, lo, hi) for lo, hi in blocks]

    def result() -> np.ndarray:
        # a block whose thread has not started is drawn here instead of waited for
        for (lo, hi), f in zip(blocks, helpers, strict=True):
            if f.cancel():
                block(lo, hi)
            else:
                f.result()
        return out

    return result


def hypergeometric_counts(
    colors: np.ndarray, targets: np.ndarray, first: int, n_draws: int, seed: int
) -> np.ndarray:
    """Cell counts of ``n_draws`` uniformly random subsets of T units, for each target T.

    Parameters
    ----------
    colors : ndarray of int64, shape (C,)
        Units in each cell (the confusion counts of all the rows, flattened).
    targets : ndarray of int64, shape (M,)
        Units kept; a target of at least the total keeps every unit.
    first : int
        Index of the first draw: draw ``first + d`` depends only on ``seed`` and its index.
    n_draws : int
        Number of draws.
    seed : int
        64-bit seed of the draws.

    Returns
    -------
    ndarray of float64, shape (n_draws, M, C)
        Counts of each draw and target, summing to ``min(T, total)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_sampler import hypergeometric_counts
    >>> out = hypergeometric_counts(np.array([5, 0, 3, 2]), np.array([10, 4]), 0, 3, 7)
    >>> out.shape, out[:, 0].tolist() == [[5.0, 0.0, 3.0, 2.0]] * 3
    ((3, 2, 4), True)
    >>> bool((out[:, 1].sum(axis=1) == 4).all() and (out[:, 1, 1] == 0).all())
    True
    """
    colors = np.ascontiguousarray(colors, dtype=np.int64)
    targets = np.ascontiguousarray(targets, dtype=np.int64)
    table = log_factorials(int(colors.sum()))
    out = np.empty((n_draws, targets.size, colors.size))
    seed64 = np.uint64(seed)
    kernel = draw_kernel(colors, table, _draw_counts, _draw_counts_beyond)
    _run_blocks(
        lambda lo, hi: kernel(colors, targets, int(first) + lo, seed64, table, out[lo:hi]),
        n_draws,
        (n_draws * targets.size) // _MIN_PER_THREAD,
    )
    return out


# --------------------------------------------------------------------------------------------
# Random orderings of the rows (non-integer weights, or integer weights beyond the sampler)
# --------------------------------------------------------------------------------------------


@njit(inline="always", **_opts)
def _below(bound: int, mask: np.uint64, s: np.ndarray) -> int:
    """A uniform integer in [0, bound] (``mask`` = 2^k - 1 >= bound): masked rejection."""
    while True:
        x = _next(s) & mask
        if x <= np.uint64(bound):
            return int(x)


@njit(**_opts)
def _draw_row_orderings(
    cells: np.ndarray,
    weight: np.ndarray,
    t_asc: np.ndarray,
    pos: np.ndarray,
    tol: float,
    first: int,
    seed: np.uint64,
    out: np.ndarray,
    units: bool,
) -> None:
    """out[d, pos[j]] = the counts of draw ``first + d`` at the target ``t_asc[j]`` (the
    targets sorted; ``pos`` their places in ``out``); ``units``: see :func:`row_ordering_counts`."""
    n = cells.size
    n_draws, m, kk = out.shape
    s = np.empty(4, dtype=np.uint64)
    perm = np.empty(n, dtype=np.int64)
    hist = np.empty((m + 1, kk))
    acc = np.empty(kk)
    part = np.empty(m)
    bcell = np.empty(m, dtype=np.int64)
    full = np.zeros(kk)
    last = 1  # units: the positions below the smallest target are not placed (kept at all)
    if units:
        for i in range(n):
            full[cells[i]] += 1.0
        last = 1 if m == 0 or t_asc[0] <= 1 else (n if t_asc[0] >= n else int(t_asc[0]))
    for d in range(n_draws):
        _seed_state(s, seed, first + d)
        # Fisher-Yates shuffle of the rows (step i places position i)
        for i in range(n):
            perm[i] = i
        mask = np.uint64(0)
        for i in range(n - 1, last - 1, -1):
            while mask < np.uint64(i):
                mask = (mask << np.uint64(1)) | np.uint64(1)
            while mask >> np.uint64(1) >= np.uint64(i):
                mask = mask >> np.uint64(1)
            j = _below(i, mask, s)
            tmp = perm[i]
            perm[i] = perm[j]
            perm[j] = tmp
        if units:
            # the total counts less those of the positions T.. (exact integers)
            acc[:] = 0.0
            q = n
            for j in range(m - 1, -1, -1):
                t = n if t_asc[j] >= n else max(0, int(t_asc[j]))
                while q > t:
                    q -= 1
                    acc[cells[perm[q]]] += 1.0
                row = out[d, pos[j]]
                for c in range(kk):
                    row[c] = full[c] - acc[c]
            continue
        # rows enter in that order; a row is in segment g when t_asc[g - 1] < its cumulative
        # weight <= t_asc[g]: fully kept at the targets t_asc[g:], the boundary row of the
        # targets it crosses (kept in part: the target minus the weight before it)
        hist[:, :] = 0.0
        for j in range(m):
            part[j] = 0.0
            bcell[j] = 0
        cw = 0.0
        g = 0
        for i in range(n):
            r = perm[i]
            wr = weight[r]
            before = cw
            cw += wr
            g0 = g
            while g < m and t_asc[g] < cw:
                g += 1
            for j in range(g0, g):
                p = t_asc[j] - before
                if p <= tol:
                    p = 0.0
                elif wr - p <= tol:
                    p = wr
                part[j] = p
                bcell[j] = cells[r]
            hist[g, cells[r]] += wr
        # cumulated over the sorted targets, each written in its place
        acc[:] = 0.0
        for j in range(m):
            row = out[d, pos[j]]
            for c in range(kk):
                acc[c] += hist[j, c]
                row[c] = acc[c]
            row[bcell[j]] += part[j]


def row_ordering_counts(
    cells: np.ndarray,
    weight: np.ndarray | None,
    targets: np.ndarray,
    tol: float,
    kk: int,
    first: int,
    n_draws: int,
    seed: int,
) -> np.ndarray:
    """Confusion counts of the first T weight of ``n_draws`` uniformly random orderings of the
    rows, for each target T (the boundary row in part, as the curve cuts).

    Each draw is a Fisher-Yates shuffle from its own xoshiro256** stream (draw
    ``first + d`` of ``seed``), then one pass over the rows: O(N) per draw and O(N) memory
    per thread, whatever ``n_draws``. ``tol`` snaps a boundary part within it of 0 or of the
    row's whole weight to that value. Returns (n_draws, M, kk), targets in their given order.

    Unit rows (no weights) and integer targets: the shuffle stops once the positions min(T)..
    are placed, the counts at T are the total less those of positions T.. (exact integers).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_sampler import row_ordering_counts
    >>> out = row_ordering_counts(np.array([0, 1, 3]), np.array([0.5, 1.0, 1.5]),
    ...                           np.array([3.0, 1.0]), 0.0, 4, 0, 2, 5)
    >>> out[:, 0].tolist(), out[:, 1].sum(axis=1).tolist()
    ([[0.5, 1.0, 0.0, 1.5], [0.5, 1.0, 0.0, 1.5]], [1.0, 1.0])
    """
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    w = np.ones(cells.size) if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
    units = weight is None and bool(np.array_equal(targets, np.floor(targets)))
    asc = np.argsort(targets, kind="stable")
    t_asc = np.ascontiguousarray(targets[asc], dtype=np.float64)
    out = np.empty((n_draws, t_asc.size, kk))
    seed64 = np.uint64(seed)
    pos = np.ascontiguousarray(asc, dtype=np.int64)
    _run_blocks(
        lambda lo, hi: _draw_row_orderings(
            cells, w, t_asc, pos, float(tol), int(first) + lo, seed64, out[lo:hi], units
        ),
        n_draws,
        max(1, (n_draws * cells.size) // (_MIN_PER_THREAD * 64)),
    )
    return out
