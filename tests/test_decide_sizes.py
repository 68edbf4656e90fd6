"""``decide(rule="min_cost")`` at the edges of the kernels' internal sizes.

The structured costs (absolute, squared, zero-one) read two rows at a time in blocks of
``BLOCK`` rows (the last row of a block of odd length is read as both rows of its pair); the
general kernel copies tiles of ``TILE`` rows eight rows at a time (then the rest of the tile
one row at a time) and takes the classes one at a time, then four at a time (the last four
writing the decisions). These tests put near ties and invalid entries on every side of those
edges, on the serial path and on the parallel one, and compare with the K x K expected costs
of `conftest.direct_min_cost`.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import direct_min_cost
from ordmetrics._core import parallel
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.decision_kernels import BLOCK
from ordmetrics.metrics.decision_matrix import GENERAL_BLOCK, TILE
from ordmetrics.metrics.decisions import decide


def builtin(name, k):
    i = np.arange(k, dtype=np.float64)
    d = i[:, None] - i[None, :]
    return {"absolute": np.abs(d), "squared": d * d, "zero_one": (d != 0) * 1.0}[name]


def tied_rows(k, n, seed):
    """Dirichlet rows with every fourth row made of halves or quarters (exact ties of every
    rule) and a few sums 1 +- 0.8 times the row-sum tolerance (accepted by the full check, not
    by the screen, 0.75 times it)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    P[::4] = rng.multinomial(2, np.full(k, 1.0 / k), size=len(P[::4])) / 2.0
    P[1::8] = rng.multinomial(4, np.full(k, 1.0 / k), size=len(P[1::8])) / 4.0
    last = P[5::16, -1]
    t = 0.8 * sum_tolerance(np.dtype(np.float64), k)
    P[5::16, -1] = np.clip(last + rng.choice([t, -t], size=len(last)), 0.0, 1.0)
    return P


def both_paths(monkeypatch, P, costs):
    """The decisions of the serial kernel and of the parallel one (forced for any size)."""
    with monkeypatch.context() as m:
        m.setattr(parallel, "PARALLEL_MIN_WORK", 1 << 62)
        one = decide(P, "min_cost", costs=costs)
    with monkeypatch.context() as m:
        m.setattr(parallel, "PARALLEL_MIN_WORK", 1)
        two = decide(P, "min_cost", costs=costs)
    return one, two


STRUCTURED_SIZES = [1, 2, 3, BLOCK - 1, BLOCK + 1, 2 * BLOCK + 1, 3 * BLOCK + 777]


@pytest.mark.parametrize("n", STRUCTURED_SIZES)
@pytest.mark.parametrize("k", [2, 5, 20])
def test_structured_costs_in_blocks_of_odd_length(monkeypatch, n, k):
    P = tied_rows(k, n, seed=n + k)
    for name in ("absolute", "squared", "zero_one"):
        want = direct_min_cost(P, builtin(name, k))
        one, two = both_paths(monkeypatch, P, name)
        np.testing.assert_array_equal(one, want, err_msg=name)
        np.testing.assert_array_equal(two, want, err_msg=name)


@pytest.mark.parametrize("name", ["absolute", "squared", "zero_one"])
@pytest.mark.parametrize("where", [0, 1, BLOCK - 1, BLOCK, 2 * BLOCK])
@pytest.mark.parametrize("bad", [np.nan, -0.25, 1.5])
def test_invalid_entries_in_either_row_of_a_pair_raise(monkeypatch, name, where, bad):
    """Row ``2 BLOCK`` is the only row of the last block: read as both rows of its pair."""
    P = np.full((2 * BLOCK + 1, 5), 0.2)
    P[where, 1] = bad
    for limit in (1, 1 << 62):
        with monkeypatch.context() as m:
            m.setattr(parallel, "PARALLEL_MIN_WORK", limit)
            with pytest.raises(ValueError, match="y_proba"):
                decide(P, "min_cost", costs=name)


def general_sizes():
    # one row; fewer rows than a group of eight; a tile and a remainder not a multiple of 8;
    # a block and a short last block whose last tile has a remainder of 5 rows
    return [1, 7, 9, TILE - 1, TILE + 13, GENERAL_BLOCK + TILE + 8 * 3 + 5]


@pytest.mark.parametrize("n", general_sizes())
@pytest.mark.parametrize("k", [2, 4, 5, 6, 9, 20])
def test_general_costs_in_short_tiles(monkeypatch, n, k):
    """K = 2, 4: classes one at a time only; 5: one group of four from class 0 writing the
    decisions; 6: one class, then a group; 9: two groups; 20: three classes, four groups."""
    rng = np.random.default_rng(7 * n + k)
    P = tied_rows(k, n, seed=n * k)
    uniform = rng.uniform(0.0, 4.0, size=(k, k))
    tied = uniform.copy()
    tied[:, k - 1] = tied[:, 0]  # the first and the last class always tied
    for C in (uniform, rng.integers(0, 3, size=(k, k)).astype(np.float64), tied):
        want = direct_min_cost(P, C)
        one, two = both_paths(monkeypatch, P, C)
        np.testing.assert_array_equal(one, want)
        np.testing.assert_array_equal(two, want)


@pytest.mark.parametrize("where", [0, 7, 8, TILE - 1, TILE + 8, TILE + 12])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -0.25, 1.5, -1e-300])
def test_invalid_entries_in_a_tile_and_its_remainder_raise(monkeypatch, where, bad):
    """Rows in the groups of eight of a tile and in the rows after them (TILE + 13 rows)."""
    P = np.full((TILE + 13, 5), 0.2)
    P[where, 4] = bad
    C = np.random.default_rng(8).uniform(0.0, 4.0, size=(5, 5))
    for limit in (1, 1 << 62):
        with monkeypatch.context() as m:
            m.setattr(parallel, "PARALLEL_MIN_WORK", limit)
            with pytest.raises(ValueError, match="y_proba"):
                decide(P, "min_cost", costs=C)


def test_row_sums_on_the_edge_of_the_screen_in_the_remainder(monkeypatch):
    """Sums 1 +- 0.9 x the row-sum tolerance (outside the screen, 0.75 x it, inside the
    tolerance) in the last rows of a tile: accepted, with the K x K decisions."""
    P = tied_rows(6, TILE + 13, seed=9)
    tol = sum_tolerance(np.dtype(np.float64), 6)
    edge = P[TILE + 8 :]
    edge[:, 0] = 0.0
    rest = 1.0 - edge[:, 1:-1].sum(axis=1)
    edge[:, -1] = rest + np.where(rest + 0.9 * tol <= 1.0, 0.9 * tol, -0.9 * tol)
    assert np.all(np.abs(P.sum(axis=1) - 1.0) <= tol)
    assert np.all(np.abs(edge.sum(axis=1) - 1.0) > 0.8 * tol) and edge.min() >= 0.0
    C = np.random.default_rng(10).uniform(0.0, 4.0, size=(6, 6))
    want = direct_min_cost(P, C)
    one, two = both_paths(monkeypatch, P, C)
    np.testing.assert_array_equal(one, want)
    np.testing.assert_array_equal(two, want)
