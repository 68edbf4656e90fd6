"""``decide(rule="min_cost")`` with a general cost matrix: every decision is the one of the
K x K expected costs in float64, each added in class order (ties within the tolerance to the
lowest class), computed by brute force with NumPy (`conftest.direct_min_cost`).

The kernel finds a candidate class in float32 and sends the rows whose gap to the second
least cost is within a rounding bound to the float64 costs; these tests aim at that boundary:
exact ties, near ties inside and outside the decision tolerance and inside the float32
rounding, zero and one-hot rows, rows off a sum of 1, tiny entries, costs of every scale,
K = 2..25, and sizes beyond a tile and a block (``GENERAL_BLOCK`` rows), with a short last
one, on one thread and on several.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import direct_min_cost
from ordmetrics._core import parallel
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.decision_matrix import GENERAL_BLOCK
from ordmetrics.metrics.decisions import decide

N = GENERAL_BLOCK + 904  # a block and a short one, many tiles of every size and a short one


def matrices(k, rng):
    """Cost matrices with ties, near ties at every scale of the tolerances, and odd scales."""
    uniform = rng.uniform(0.0, 4.0, size=(k, k))
    yield "uniform", uniform
    yield "integers", rng.integers(0, 3, size=(k, k)).astype(np.float64)  # exact ties
    same = uniform.copy()
    a, b = rng.choice(k, size=2, replace=False)
    same[:, b] = same[:, a]  # two classes always tied
    yield "equal columns", same
    for rel in (3e-13, 3e-12, 1e-9, 1e-7, 2e-6, 1e-5):  # inside/outside tol, float32 bound
        near = same.copy()
        near[:, b] += rel * 4.0 * rng.uniform(-1.0, 1.0, size=k)
        yield f"columns {rel:g} apart", np.abs(near)
    yield "tiny scale", uniform * 1e-200
    yield "huge scale", uniform * 1e200
    yield "subnormal scale", uniform * 1e-310  # 1 / max(C) overflows: every row in float64
    yield "near the largest float", uniform * 4e307
    wide = uniform * np.exp(rng.uniform(-30.0, 30.0, size=(k, k)))  # costs of every scale
    yield "wide range", wide
    one = np.zeros((k, k))
    one[rng.integers(k), rng.integers(k)] = 1.0
    yield "one entry", one
    yield "zeros", np.zeros((k, k))


def rows(k, rng, n=N):
    """Dirichlet rows, with one-hot, halves, quarters, tiny entries and sums 1 +- 0.8 times the
    row-sum tolerance (off the kernels' screen, 0.75 times it)."""
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    m = n // 8
    P[:m] = np.eye(k)[rng.integers(0, k, size=m)]  # one-hot rows
    P[m : 2 * m] = rng.multinomial(2, np.full(k, 1.0 / k), size=m) / 2.0  # halves
    P[2 * m : 3 * m] = rng.multinomial(4, np.full(k, 1.0 / k), size=m) / 4.0  # quarters
    tiny = P[3 * m : 4 * m]
    tiny[:, 0] = rng.choice([1e-30, 1e-45, 5e-310, 0.0], size=m)  # float32 underflow
    tiny[:, -1] = 1.0 - tiny[:, :-1].sum(axis=1)
    off = P[4 * m : 5 * m]
    t = 0.8 * sum_tolerance(np.dtype(np.float64), k)
    off[:, -1] = np.clip(off[:, -1] + rng.choice([t, -t], size=m), 0.0, 1.0)
    return P


@pytest.mark.parametrize("k", range(2, 26))
def test_general_costs_match_brute_force(k):
    rng = np.random.default_rng(1000 + k)
    P = rows(k, rng)
    assert np.all(np.abs(P.sum(axis=1) - 1.0) <= sum_tolerance(np.dtype(np.float64), k))
    for name, C in matrices(k, rng):
        np.testing.assert_array_equal(
            decide(P, "min_cost", costs=C), direct_min_cost(P, C), err_msg=f"K = {k}, {name}"
        )


@pytest.mark.parametrize("k", [2, 5, 9, 20, 25])
def test_general_costs_float32_input(k):
    rng = np.random.default_rng(2000 + k)
    P = rows(k, rng).astype(np.float32)
    for name, C in matrices(k, rng):
        np.testing.assert_array_equal(
            decide(P, "min_cost", costs=C), direct_min_cost(P, C), err_msg=f"K = {k}, {name}"
        )


@pytest.mark.parametrize("k", [3, 5, 20])
def test_general_costs_near_ties_of_float32(k):
    """Costs apart by less than float32 resolves (1e-9 of the largest cost), on either side
    of the decision tolerance: the float32 candidate cannot tell, the float64 costs decide."""
    rng = np.random.default_rng(3000 + k)
    P = rng.dirichlet(np.ones(k), size=N)
    base = rng.uniform(1.0, 2.0, size=k)
    C = np.tile(base[:, None], (1, k))  # every class costs the same...
    signs = np.where(np.arange(k) % 2 == 0, 1.0, -1.0)
    C[:, 1] += 1e-9 * signs * rng.uniform(0.5, 1.0, size=k)  # ...but class 1 more or less
    C[:, k - 1] += 1e-13 * rng.uniform(0.0, 1.0, size=k)  # within the tolerance
    want = direct_min_cost(P, C)
    assert len(np.unique(want)) > 1  # both sides of the near tie occur
    np.testing.assert_array_equal(decide(P, "min_cost", costs=C), want)


@pytest.mark.parametrize("k", [2, 5, 13, 20])
def test_general_costs_on_any_number_of_threads(monkeypatch, k):
    """Blocks in parallel (forced for a small input) decide as the serial path does."""
    rng = np.random.default_rng(4000 + k)
    P = rows(k, rng, n=5 * GENERAL_BLOCK + 123)
    for name, C in matrices(k, rng):
        with monkeypatch.context() as m:
            m.setattr(parallel, "PARALLEL_MIN_WORK", 1)
            two = decide(P, "min_cost", costs=C)
        with monkeypatch.context() as m:
            m.setattr(parallel, "PARALLEL_MIN_WORK", 1 << 62)
            one = decide(P, "min_cost", costs=C)
        np.testing.assert_array_equal(two, one, err_msg=name)
        np.testing.assert_array_equal(two, direct_min_cost(P, C), err_msg=name)


def test_negative_zero_entries_are_valid():
    """-0.0 is a valid entry (for the kernel's screen and for the full check): same decisions."""
    rng = np.random.default_rng(5)
    P = rng.dirichlet(np.ones(5), size=N)
    P[::7, 2] = 0.0
    P[::7] /= P[::7].sum(axis=1, keepdims=True)
    C = rng.uniform(0.0, 4.0, size=(5, 5))
    want = direct_min_cost(P, C)
    P[::7, 2] = -0.0
    np.testing.assert_array_equal(decide(P, "min_cost", costs=C), want)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -0.25, 1.5, -1e-300])
@pytest.mark.parametrize("where", [0, GENERAL_BLOCK - 1, GENERAL_BLOCK + 1, -1])
def test_invalid_rows_still_raise(bad, where):
    P = np.full((N, 5), 0.2)
    P[where, 3] = bad
    C = np.random.default_rng(6).uniform(0.0, 4.0, size=(5, 5))
    with pytest.raises(ValueError, match="y_proba"):
        decide(P, "min_cost", costs=C)


def test_row_sums_off_the_tolerance_raise():
    P = np.full((N, 4), 0.25)
    P[N - 1, 0] += 3e-6  # beyond the tolerance for K = 4, max(1e-6, 4 x 5e-7) = 2e-6
    with pytest.raises(ValueError, match="y_proba"):
        decide(P, "min_cost", costs=np.arange(16.0).reshape(4, 4))
