"""Shared fixtures and literal reference implementations of the scoring rules.

The references below are written as plain Python loops straight from docs/definitions.md section 1.
They are the independent computation the library is checked against, so they use nothing from
``ordmetrics``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

import ordmetrics

SCORING_RULES = ordmetrics.list_metrics("scoring_rule")


def make_data(rng: np.random.Generator, n: int, k: int, alpha: float = 1.0):
    """``n`` random rows: true classes ``0..k-1`` and Dirichlet probability rows."""
    y = rng.integers(0, k, size=n)
    P = rng.dirichlet(np.full(k, alpha), size=n)
    return y, P


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


# --------------------------------------------------------------------------------------------
# Literal references
# --------------------------------------------------------------------------------------------


def _neg_log(p: float) -> float:
    return math.inf if p == 0.0 else -math.log(p)


def ref_score(
    name: str,
    p: Sequence[float],
    y: int,
    K: int,
    *,
    normalize: bool = True,
    eps: float | None = None,
    ties: str = "argmax",
    alpha: float = 2.0,
) -> float:
    """The score of one prediction ``p`` (length ``K``) for the true class ``y`` (0-based).

    PBS and PLL penalize when the arg-max decision (first most probable class) is not y, or
    with ``ties="unpenalized"`` when some class is strictly more probable than y.
    """
    p = [float(v) for v in p]
    y = int(y)
    if name == "cdf_l1":
        F = 0.0
        total = 0.0
        for k in range(K - 1):
            F = F + p[k]
            total = total + abs(F - (1.0 if y <= k else 0.0))
        return total / (K - 1) if normalize else total
    if name in ("spherical", "pseudospherical"):
        norm = sum(v**alpha for v in p) ** (1.0 / alpha)
        return 1.0 - (p[y] / norm) ** (alpha - 1.0)
    if name in ("rps", "sa_rps"):
        F = 0.0
        total = 0.0
        for k in range(K - 1):
            F = F + p[k]
            H = 1.0 if y <= k else 0.0
            if name == "rps":
                total = total + (F - H) * (F - H)
            else:
                total = total + abs(F - H)
        if name == "rps":
            return total / (K - 1) if normalize else total
        mean_abs = total / (K - 1)
        return mean_abs * mean_abs

    brier = 0.0
    for k in range(K):
        d = p[k] - (1.0 if k == y else 0.0)
        brier = brier + d * d
    m = 0
    first_max = 0
    for k in range(K):
        if p[k] > p[y]:
            m = 1
        if p[k] > p[first_max]:
            first_max = k
    if ties == "argmax" and first_max != y:
        m = 1

    if name == "brier":
        return brier
    if name == "pbs":
        return brier + (K - 1) / K * m
    if name == "log_loss":
        py = p[y]
        if eps is not None:
            py = min(max(py, eps), 1.0 - eps)
        return _neg_log(py)
    if name == "pll":
        return _neg_log(p[y]) + math.log(K) * m
    raise KeyError(name)


def ref_scores(name: str, Y: Sequence[int], P, **opts) -> list[float]:
    """Per-sample reference scores, row by row."""
    P = np.asarray(P, dtype=np.float64)
    K = P.shape[1]
    out = []
    for i in range(P.shape[0]):
        out.append(ref_score(name, P[i].tolist(), int(Y[i]), K, **opts))
    return out


def ref_sum(name: str, Y: Sequence[int], P, w=None, **opts) -> float:
    """Weighted sum of the reference scores; rows of weight 0 are left out entirely."""
    scores = ref_scores(name, Y, P, **opts)
    terms = []
    for i, s in enumerate(scores):
        wi = 1.0 if w is None else float(w[i])
        if wi != 0.0:
            terms.append(wi * s)
    return math.fsum(terms)


def ref_mean(name: str, Y: Sequence[int], P, w=None, **opts) -> float:
    """Weighted mean of the reference scores (frequency weights)."""
    n = len(Y)
    total_weight = math.fsum(1.0 if w is None else float(w[i]) for i in range(n))
    return ref_sum(name, Y, P, w, **opts) / total_weight


def direct_min_cost(P, C):
    """The decision of every ``min_cost`` path: the K x K expected costs in float64, each
    added in class order, and the lowest class within the tolerance of the least."""
    from ordmetrics.metrics.decisions import decision_tolerance

    P = np.asarray(P)
    k = P.shape[1]
    X = P.astype(np.float64)
    cost = X[:, :1] * C[0]
    for j in range(1, k):
        cost = cost + X[:, j : j + 1] * C[j]
    limit = cost.min(axis=1, keepdims=True) + decision_tolerance(P.dtype, k) * float(C.max())
    return np.argmax(cost <= limit, axis=1)


def on_one_and_two_threads(compute):
    """``compute()`` with numba on one thread, then on two (restoring the count): the two
    results, which every kernel must make identical."""
    import numba

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = compute()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = compute()
    finally:
        numba.set_num_threads(before)
    return one, two
