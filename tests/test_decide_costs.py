"""``decide(rule="min_cost")``: the one-pass paths of absolute and squared costs and the
general K x K kernel decide as the K x K expected costs, added in class order, do.

The structured costs decide in one pass over the row and send near ties to the K x K costs;
these tests aim at the rows where the one-pass decision and the K x K one could part: row
sums off 1 (accepted by the row-sum tolerance but not by the kernels' screen), cumulative
sums at or next to 1/2, means at or next to halves, the first and the last class, and K not
a multiple of 4 (the general kernel takes four classes at a time).
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import direct_min_cost
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.decisions import decide

KS = [2, 3, 4, 5, 6, 7, 8, 9, 13, 20, 21]


def builtin(name, k):
    i = np.arange(k, dtype=np.float64)
    d = i[:, None] - i[None, :]
    return {"absolute": np.abs(d), "squared": d * d, "zero_one": (d != 0) * 1.0}[name]


def edge_rows(k, seed):
    """Rows built to sit on the decision boundaries, many with sums 1 +- up to 0.9 times the
    row-sum tolerance (off the kernels' screen, 0.75 times it)."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(k):  # all mass on one class, and on two neighbours in halves
        e = np.zeros(k)
        e[c] = 1.0
        rows.append(e)
        if c + 1 < k:
            h = np.zeros(k)
            h[c] = h[c + 1] = 0.5
            rows.append(h)
    for _ in range(40):  # F_m = 1/2 exactly, or 1/2 + a few 1e-7
        m = int(rng.integers(0, k - 1))
        low = rng.dirichlet(np.ones(m + 1)) * 0.5
        high = rng.dirichlet(np.ones(k - m - 1)) * 0.5
        row = np.concatenate([low, high])
        d = rng.choice([0.0, 4e-7, -4e-7, 1e-13, -1e-13])
        if row[m] + d >= 0.0 and row[m + 1] - d >= 0.0:  # F_m moves, the sum stays
            row[m] += d
            row[m + 1] -= d
        rows.append(row)
    for _ in range(40):  # means at or next to a half: two classes a half apart in weight
        a, b = sorted(rng.choice(k, size=2, replace=k < 2))
        row = np.zeros(k)
        row[a] += 0.5
        row[b] += 0.5
        rows.append(row)
    P = np.array(rows)
    P = np.concatenate([P, rng.dirichlet(np.full(k, 0.3), size=200)])
    P = np.clip(P, 0.0, 1.0)
    t = sum_tolerance(np.dtype(np.float64), k)
    shift = rng.choice([0.0, 0.0, 0.9 * t, -0.9 * t, 0.8 * t, -0.8 * t, 2e-16], size=len(P))
    last = P.shape[1] - 1
    P[:, last] = np.where(P[:, last] + shift >= 0, P[:, last] + shift, P[:, last])
    for r in np.flatnonzero(P[:, last] > 1.0):  # keep every entry in [0, 1]
        P[r, last] = 1.0
    return P


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("name", ["absolute", "squared", "zero_one"])
def test_structured_costs_on_the_decision_boundaries(k, name):
    P = edge_rows(k, seed=k)
    tol = sum_tolerance(np.dtype(np.float64), k)
    assert np.all(np.abs(P.sum(axis=1) - 1.0) <= tol)  # valid rows, some off the screen
    want = direct_min_cost(P, builtin(name, k))
    np.testing.assert_array_equal(decide(P, "min_cost", costs=name), want)
    np.testing.assert_array_equal(decide(P, "min_cost", costs=builtin(name, k)), want)


@pytest.mark.parametrize("k", KS)
def test_absolute_and_squared_costs_with_scaled_sums(k):
    """Rows summing to 1 + 0.9 x the row-sum tolerance: F_m = 1/2 is below half the sum, and a
    mean of m + 1/2 is not a half of the class scale; the decision is still the K x K one."""
    rng = np.random.default_rng(100 + k)
    P = rng.multinomial(2, np.full(k, 1.0 / k), size=500) / 2.0
    P[:, -1] += 0.9 * sum_tolerance(np.dtype(np.float64), k)
    P = np.clip(P, 0.0, 1.0)
    for name in ("absolute", "squared"):
        want = direct_min_cost(P, builtin(name, k))
        np.testing.assert_array_equal(decide(P, "min_cost", costs=name), want, err_msg=name)


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_general_costs_match_the_direct_costs(k, dtype):
    rng = np.random.default_rng(200 + k)
    P = rng.dirichlet(np.full(k, 0.5), size=3000)
    P[:500] = rng.multinomial(4, np.full(k, 1.0 / k), size=500) / 4.0
    P = P.astype(dtype)
    for C in (
        rng.choice([0.0, 1.0, 2.5, 4.0], size=(k, k)),  # many exact ties
        rng.uniform(0.0, 4.0, size=(k, k)),
        builtin("absolute", k) + np.eye(k) * 1e-9,  # almost absolute: the general path
    ):
        np.testing.assert_array_equal(decide(P, "min_cost", costs=C), direct_min_cost(P, C))


@pytest.mark.parametrize("k", [5, 20])
def test_parallel_and_serial_kernels_decide_alike(monkeypatch, k):
    from ordmetrics._core import parallel

    rng = np.random.default_rng(300 + k)
    n = parallel.PARALLEL_MIN_WORK // k + 3000
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    P[: n // 4] = rng.multinomial(2, np.full(k, 1.0 / k), size=n // 4) / 2.0
    C = rng.uniform(0.0, 4.0, size=(k, k))
    for costs in ("absolute", "squared", "zero_one", C):
        two = decide(P, "min_cost", costs=costs)
        with monkeypatch.context() as m:
            m.setattr(parallel, "PARALLEL_MIN_WORK", 1 << 62)
            one = decide(P, "min_cost", costs=costs)
        np.testing.assert_array_equal(two, one)
        matrix = builtin(costs, k) if isinstance(costs, str) else costs
        np.testing.assert_array_equal(two, direct_min_cost(P, matrix))


@pytest.mark.parametrize("name", ["absolute", "squared"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -0.25, 1.5])
def test_invalid_rows_still_raise(name, bad):
    P = np.full((3000, 5), 0.2)
    P[2999, 4] = bad
    with pytest.raises(ValueError, match="y_proba"):
        decide(P, "min_cost", costs=name)
