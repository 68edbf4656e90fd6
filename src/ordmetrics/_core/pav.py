"""Weighted isotonic regression by the pool-adjacent-violators algorithm (PAV), compiled.

:func:`tie_starts` groups sorted forecast values into tie groups; :func:`pav` fits the
non-decreasing step function to the groups' event rates in one linear pass; :func:`resample_pav`
repeats the fit for outcomes drawn under the calibration hypothesis (the consistency bands of
:mod:`ordmetrics.metrics.corp`). Sorting (O(N log N)) is left to the caller; everything here
is O(N).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import group_starts_sorted

_opts = {"cache": True, "nogil": True, "error_model": "numpy"}

#: 2^63: float64 weights from here on are no int64 counts (the binomial draws' limit).
_INT64_LIMIT = 2.0**63


def tie_starts(x_sorted: np.ndarray, computed: bool = False) -> np.ndarray:
    """First row of every tie group of the sorted values, and N at the end (int64, G + 1).

    Values as given (``computed=False``) are tied when exactly equal. Values that ordmetrics
    computed (``computed=True``, e.g. cumulative forecasts) are grouped by the shared tie rule
    of :mod:`ordmetrics._core.numerics` (chains of neighbours within 1e-12 times the larger).
    The rows are those of positive weight (the caller leaves the others out).
    """
    if computed:
        first = np.flatnonzero(group_starts_sorted(x_sorted))
    else:
        first = np.concatenate(([0], np.flatnonzero(np.diff(x_sorted) != 0) + 1))
    return np.append(first, x_sorted.size).astype(np.int64)


@njit(**_opts)
def pav(event_sum: np.ndarray, weight: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    """Non-decreasing least-squares fit of the rates ``event_sum / weight`` (weights > 0).

    Returns the fitted rate of every group: the weighted mean of the pooled block holding it.
    Adjacent blocks are pooled while the left mean is at least the right one (compared as
    cross products, without division), so the fitted values strictly increase across blocks.
    """
    g = weight.size
    bw = np.empty(g)
    bs = np.empty(g)
    start = np.empty(g, dtype=np.int64)
    top = 0
    for j in range(g):
        cw = weight[j]
        cs = event_sum[j]
        first = j
        while top > 0 and bs[top - 1] * cw >= cs * bw[top - 1]:
            top -= 1
            cw += bw[top]
            cs += bs[top]
            first = start[top]
        bw[top] = cw
        bs[top] = cs
        start[top] = first
        top += 1
    out = np.empty(g)
    for b in range(top):
        end = start[b + 1] if b + 1 < top else g
        m = min(max(bs[b] / bw[b], 0.0), 1.0)  # a rate: rounding must not leave [0, 1]
        for j in range(start[b], end):
            out[j] = m
    return out


@njit(**_opts)
def sorted_group_sums(
    order: np.ndarray, x_sorted: np.ndarray, o: np.ndarray, w: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:  # pragma: no cover - numba
    """One pass over the rows in sorted order (row ``order[i]`` has value ``x_sorted[i]``).

    Returns the weight W_g and event weight O_g of every group and sum_i w_i (x_i - o_i)^2,
    the latter added with Neumaier's compensated summation.
    """
    g = starts.size - 1
    gw = np.empty(g)
    go = np.empty(g)
    total = 0.0
    comp = 0.0
    for j in range(g):
        a = 0.0
        b = 0.0
        for i in range(starts[j], starts[j + 1]):
            r = order[i]
            wi = w[r]
            oi = o[r]
            a += wi
            b += wi * oi
            d = x_sorted[i] - oi
            v = wi * d * d
            t = total + v
            if abs(total) >= abs(v):
                comp += (total - t) + v
            else:
                comp += (v - t) + total
            total = t
        gw[j] = a
        go[j] = b
    return gw, go, total + comp


@njit(**_opts)
def _group_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:  # pragma: no cover
    g = starts.size - 1
    out = np.zeros(g)
    for j in range(g):
        s = 0.0
        for i in range(starts[j], starts[j + 1]):
            s += values[i]
        out[j] = s
    return out


def group_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over every group (rows ``starts[j]:starts[j+1]``), added in row order."""
    return _group_sums(np.ascontiguousarray(values, dtype=np.float64), starts)


@njit(**_opts)
def _fit_draw(
    draw: np.ndarray, starts: np.ndarray, weight: np.ndarray, at: np.ndarray
) -> np.ndarray:  # pragma: no cover - numba
    sums = _group_sums(draw, starts)
    fitted = pav(sums, weight)
    out = np.empty(at.size)
    for j in range(at.size):
        out[j] = fitted[at[j]]
    return out


def resample_pav(
    x_sorted: np.ndarray,
    w_sorted: np.ndarray,
    starts: np.ndarray,
    group_weight: np.ndarray,
    at: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """PAV fits of outcomes drawn under calibration, read at the groups ``at``: (B, len(at)).

    Row i gets the event weight w_i * Bernoulli(x_i), or Binomial(w_i, x_i) when every
    weight is an integer below 2^63 (so a row of integer weight m draws like m repeated rows;
    NumPy draws binomials of int64 counts, and a float64 weight of 2^63 or more is a count no
    int64 holds). The loop runs over resamples; each resample is vectorised over the rows and
    compiled over groups.
    """
    p = np.clip(x_sorted, 0.0, 1.0)
    integer = bool(np.all(w_sorted == np.round(w_sorted))) and bool(
        w_sorted.size == 0 or w_sorted.max() < _INT64_LIMIT
    )
    ones = bool(np.all(w_sorted == 1.0))
    counts = w_sorted.astype(np.int64) if integer else None
    out = np.empty((n_resamples, at.size))
    for b in range(n_resamples):
        if ones:
            draw = (rng.random(p.size) < p).astype(np.float64)
        elif counts is not None:
            draw = rng.binomial(counts, p).astype(np.float64)
        else:
            draw = w_sorted * (rng.random(p.size) < p)
        out[b] = _fit_draw(draw, starts, group_weight, at)
    return out
