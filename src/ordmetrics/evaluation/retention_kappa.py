"""The random-removal baseline of kappa and QWK, drawn and evaluated in one compiled pass.

For the Monte Carlo estimate of the random-removal curve (see the Notes of
:func:`ordmetrics.evaluation.retention.retention_curve`), each draw is a multivariate
hypergeometric confusion matrix (:mod:`ordmetrics.evaluation.retention_sampler`). For kappa
(QWK included) with integer counts, the compiled kernel here evaluates every matrix as soon as
it is drawn, without writing the (draws, fractions, K^2) counts or evaluating them in NumPy
afterwards.

The values are those of :func:`ordmetrics.metrics.agreement.counts_evaluator`, bit for bit:
the kernel is used only when the weights are W = V 2^-p with V an integer matrix and
max|V| W_total^2 <= 2^53 (W_total the total count), where every sum and product that formula
forms from integer counts (scaled by a power of two or not) is an exact float64, whatever its
order; the three last operations, ``1 - (D n) / E``, are done in the formula's order. The
built-in weights of the usual K (QWK for K = 2, 3, 5, 9, 17, ...; linear weights for K - 1 a
power of two; unweighted kappa for every K) qualify; others are evaluated by the batched
evaluator, as before.

The draws start in background threads (draws w, w + H, ... for helper w of H), taken from a
pool of threads kept for the process, while the caller computes the curve; when the caller
asks for the result it draws from the last draw downwards until it meets a draw already taken,
then draws itself every draw whose values are not all written yet, instead of waiting for a
helper that may not be scheduled (a busy machine). Every thread takes its draws a group of
:data:`~ordmetrics.evaluation.retention_sampler.LANES` at a time (claimed, then drawn
together, see :func:`~ordmetrics.evaluation.retention_sampler.draw_lanes`). Each value is
published by one aligned 8-byte store over a NaN pattern that kappa never gives, so a value is
either pending or final, and a helper that finishes a draw the caller also drew writes the
same bits. Draw d depends only on the seed and d, so the values do not depend on which thread
draws it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.parallel import thread_pool, usable_cpus
from ordmetrics.evaluation.retention_sampler import (
    LANES,
    draw_kernel,
    draw_lanes,
    log_factorials,
    seed_lanes,
)
from ordmetrics.metrics.decisions import builtin_matrix

__all__ = ["integer_kappa_weights", "kappa_draws", "kappa_draws_background"]

_opts = {"cache": True, "nogil": True}

#: (draw, fraction) pairs below which a background thread is not worth starting.
_MIN_PAIRS = 256

#: A NaN whose payload kappa never produces (its NaN is NumPy's): a value not computed yet.
_PENDING_BITS = np.uint64(0x7FF8_0000_DEAD_BEEF)
_PENDING = np.array([_PENDING_BITS]).view(np.float64)[0]


def integer_kappa_weights(
    metric: str, options: dict[str, Any], n_classes: int, total: int
) -> np.ndarray | None:
    """The integer matrix V of the weights W = V 2^-p of kappa ``metric`` (``"qwk"``, or
    ``"kappa"`` with built-in weights), when V exists and max|V| total^2 <= 2^53: then every
    intermediate of the kappa formula on integer counts of that total is exact. None
    otherwise (another metric, custom weights, or too large a total).

    Examples
    --------
    >>> from ordmetrics.evaluation.retention_kappa import integer_kappa_weights
    >>> integer_kappa_weights("qwk", {}, 3, 100).tolist()  # (i - j)^2 / 4 = V / 2^2
    [[0, 1, 4], [1, 0, 1], [4, 1, 0]]
    >>> integer_kappa_weights("qwk", {}, 4, 100) is None  # (i - j)^2 / 9: not dyadic
    True
    """
    if metric == "qwk":
        weights: Any = "quadratic"
    elif metric == "kappa":
        weights = options.get("weights")
        if weights is None:
            weights = "zero_one"
        elif not (isinstance(weights, str) and weights in ("linear", "quadratic")):
            return None
    else:
        return None
    v = _integer_weights(weights, int(n_classes))
    if v is None or int(v.max()) * int(total) ** 2 > 2**53:
        return None
    return v


@functools.lru_cache(maxsize=32)
def _integer_weights(name: str, k: int) -> np.ndarray | None:
    """V (read-only) with the built-in matrix ``name`` = V 2^-p for the smallest p, or None."""
    w = builtin_matrix(name, k)
    for p in range(64):
        v = np.ldexp(w, p)
        if not np.abs(v).max() < 2.0**53:  # beyond, every float is an integer: V is not exact
            return None
        if np.array_equal(v, np.floor(v)):
            out = v.astype(np.int64)
            out.setflags(write=False)
            return out
    return None


@njit(inline="always", **_opts)
def _kappa_of_counts(x: np.ndarray, v: np.ndarray, r: np.ndarray, col: np.ndarray) -> float:
    """1 - (D n) / E for the integer counts ``x`` (K*K, row-major) and integer weights ``v``:
    D = sum v M, n = sum M, E = sum v outer(r, c); NaN when E = 0. Exact integer sums."""
    k = r.size
    for i in range(k):
        r[i] = 0
        col[i] = 0
    dis = 0
    for i in range(k):
        for j in range(k):
            m = x[i * k + j]
            r[i] += m
            col[j] += m
            dis += v[i, j] * m
    n = 0
    chance = 0
    for i in range(k):
        n += r[i]
        if r[i] != 0:
            acc = 0
            for j in range(k):
                acc += v[i, j] * col[j]
            chance += r[i] * acc
    if chance == 0:
        return np.nan
    return 1.0 - (float(dis) * float(n)) / float(chance)


@njit(inline="always", **_opts)
def _kappa_body(
    colors: np.ndarray,
    targets: np.ndarray,
    v: np.ndarray,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
    claimed: np.ndarray,
    draws: np.ndarray,
    first: int,
    mark: int,
    stop: bool,
    direct: bool,
) -> None:
    """The draws ``first + d`` for d in ``draws``, in that order, each evaluated into
    ``out[d]`` after marking ``claimed[d]`` with ``mark``; with ``stop``, until a draw that
    is already marked. The draws are claimed, then drawn together, up to
    :data:`~ordmetrics.evaluation.retention_sampler.LANES` at a time."""
    m = out.shape[1]
    kk = colors.size
    k = v.shape[0]
    total = 0
    for c in range(kk):
        total += colors[c]
    state = np.empty((LANES, 4), dtype=np.uint64)
    x = np.empty((LANES, kk), dtype=np.int64)
    r = np.empty(k, dtype=np.int64)
    col = np.empty(k, dtype=np.int64)
    group = np.empty(LANES, dtype=np.int64)
    i = 0
    while i < draws.size:
        lanes = 0
        while lanes < LANES and i < draws.size:
            d = draws[i]
            if stop and claimed[d] != 0:
                break
            claimed[d] = mark
            group[lanes] = d
            lanes += 1
            i += 1
        if lanes == 0:
            return
        seed_lanes(state, seed, group, 0, lanes, first)
        for j in range(m):
            draw_lanes(colors, total, targets[j], state, lanes, table, x, direct)
            for lane in range(lanes):
                out[group[lane], j] = _kappa_of_counts(x[lane], v, r, col)
        if lanes < LANES and i < draws.size:
            return  # stopped at a draw already marked


@njit(**_opts)
def _kappa_draws(
    colors: np.ndarray,
    targets: np.ndarray,
    v: np.ndarray,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
    claimed: np.ndarray,
    draws: np.ndarray,
    first: int,
    mark: int,
    stop: bool,
) -> None:
    _kappa_body(colors, targets, v, seed, table, out, claimed, draws, first, mark, stop, True)


@njit(**_opts)
def _kappa_draws_beyond(
    colors: np.ndarray,
    targets: np.ndarray,
    v: np.ndarray,
    seed: np.uint64,
    table: np.ndarray,
    out: np.ndarray,
    claimed: np.ndarray,
    draws: np.ndarray,
    first: int,
    mark: int,
    stop: bool,
) -> None:
    _kappa_body(colors, targets, v, seed, table, out, claimed, draws, first, mark, stop, False)


def kappa_draws_background(
    colors: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    n_draws: int,
    seed: int,
    *,
    first: int = 0,
    threads: int | None = None,
) -> Callable[[], np.ndarray]:
    """Kappa of ``n_draws`` uniformly random subsets of T units, for each target T, started
    in background threads; returns the function that draws what the threads have not
    finished (from the last draw down, never waiting for a thread) and returns the values,
    shape (n_draws, M): row d holds the draw ``first + d``.

    ``colors`` (int64, K*K) holds the units of each cell, ``weights`` the integer weights V of
    :func:`integer_kappa_weights`; draw d is the draw d of
    :func:`~ordmetrics.evaluation.retention_sampler.hypergeometric_counts` with the same seed
    (the same counts), evaluated as :func:`~ordmetrics.metrics.agreement.counts_evaluator`
    evaluates them. ``threads``: background threads (default: one per core but the
    caller's, from a pool kept for the process).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_kappa import kappa_draws_background
    >>> colors = np.array([30, 5, 2, 4, 40, 6, 1, 3, 25])
    >>> V = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]])
    >>> values = kappa_draws_background(colors, np.array([116, 60]), V, 4, 7)()
    >>> values.shape, bool((values[:, 0] == values[0, 0]).all())  # T = all 116 units
    ((4, 2), True)
    """
    colors = np.ascontiguousarray(colors, dtype=np.int64)
    targets = np.ascontiguousarray(targets, dtype=np.int64)
    v = np.ascontiguousarray(weights, dtype=np.int64)
    table = log_factorials(int(colors.sum()))
    out = np.full((n_draws, targets.size), _PENDING)
    claimed = np.zeros(n_draws, dtype=np.int8)
    seed64 = np.uint64(seed)
    none = np.zeros(0, dtype=np.int64)
    first = int(first)
    kernel = draw_kernel(colors, table, _kappa_draws, _kappa_draws_beyond)
    kernel(colors, targets, v, seed64, table, out, claimed, none, first, 0, True)  # compiled
    n_workers = usable_cpus() - 1 if threads is None else threads
    n_workers = max(0, min(n_workers, (n_draws * targets.size) // _MIN_PAIRS, n_draws))

    def work(w: int) -> None:
        mine = np.arange(w, n_draws, n_workers, dtype=np.int64)
        kernel(colors, targets, v, seed64, table, out, claimed, mine, first, 1, True)

    helpers: list[Future[None]] = [thread_pool().submit(work, w) for w in range(n_workers)]

    def result() -> np.ndarray:
        down = np.arange(n_draws - 1, -1, -1, dtype=np.int64)
        kernel(colors, targets, v, seed64, table, out, claimed, down, first, 2, True)
        for f in helpers:
            f.cancel()  # not started yet: its draws are drawn below
        # a value is published by one aligned 8-byte store: the draws still holding the
        # pending pattern (claimed by a helper that has not finished them) are drawn here,
        # not waited for; a helper finishing one of them writes the same values
        missing = np.flatnonzero((out.view(np.uint64) == _PENDING_BITS).any(axis=1))
        kernel(colors, targets, v, seed64, table, out, claimed, missing, first, 2, False)
        return out.copy()  # a helper may still write (the same bits) into ``out``

    return result


def kappa_draws(
    colors: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    n_draws: int,
    seed: int,
    *,
    first: int = 0,
) -> np.ndarray:
    """:func:`kappa_draws_background`, waited for at once (the same values)."""
    return kappa_draws_background(colors, targets, weights, n_draws, seed, first=first)()
