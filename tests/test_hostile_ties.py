"""Hostile inputs for the tie rule: tiny, huge, subnormal and infinite values, chains at the edge
of the tolerance, and the compiled copies of the rule against
:func:`ordmetrics._core.numerics.group_starts_sorted`."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core.numerics import TIE_TOLERANCE, group_starts_sorted, scale_weights
from ordmetrics.metrics.calibration import binning as CB
from ordmetrics.metrics.calibration import distinct as DI
from ordmetrics.metrics.rank_sums import counts_walk

BIG = np.finfo(np.float64).max
TINY = np.finfo(np.float64).smallest_subnormal


def _hostile_sorted(rng, n=400):
    """Sorted values of every kind: chains 0.9e-12 relative apart, tiny and huge values,
    subnormals, signed zeros, the largest doubles and infinities."""
    chain = 0.3 * (1 + 0.9e-12) ** np.arange(20)
    parts = [
        chain,
        -chain,
        np.geomspace(1e-300, 1e-10, 30),
        np.array([TINY, 2 * TINY, 3 * TINY, -0.0, 0.0, BIG, BIG, -BIG, np.inf, np.inf, -np.inf]),
        1e300 * (1 + rng.integers(0, 4, 20) * 4e-13),
        rng.choice([1e-16, 1.0000000000001e-16, 2e-16], 30),
    ]
    v = np.concatenate([*parts, rng.choice(np.concatenate(parts), n)])
    return np.sort(v)


def test_the_ranking_walk_applies_the_rule_of_group_starts_sorted(rng):
    for _ in range(5):
        s = _hostile_sorted(rng)
        n = s.size
        w = rng.integers(0, 3, n).astype(np.float64)
        w[0] = 1.0
        y = np.zeros(n, dtype=np.int64)
        order = np.arange(n)
        args = (1, float(w.sum()), np.zeros(1), False, False)
        groups = counts_walk(s, y, order, w, True, TIE_TOLERANCE, *args)[2]
        present = w > 0
        assert groups == int(group_starts_sorted(s[present]).sum())
        assert groups == int(group_starts_sorted(s, w)[present].sum())


def test_the_distinct_value_rule_applies_the_rule_of_group_starts_sorted(rng):
    for _ in range(5):
        s = np.unique(np.abs(_hostile_sorted(rng)))
        s = s[np.isfinite(s)]
        np.testing.assert_array_equal(DI._tie_starts(s), group_starts_sorted(s))


def test_a_chain_at_the_edge_of_the_tolerance_is_one_group():
    # neighbours 0.9e-12 relative apart: tied one by one, the ends 1.7e-11 apart
    chain = 0.3 * (1 + 0.9e-12) ** np.arange(20)
    assert group_starts_sorted(chain).sum() == 1
    apart = 0.3 * (1 + 1.1e-12) ** np.arange(20)
    assert group_starts_sorted(apart).all()


def test_expected_grades_of_tiny_mass_are_ranked_exactly(rng):
    # the mass above class 0 spans 1e-17 to 1e-13: expected grades that differ relatively by
    # far more than 1e-12 rank as distinct values (the absolute 1e-12 tied them all)
    n = 60
    tail = np.geomspace(1e-17, 1e-13, n)
    P = np.column_stack([1.0 - tail, tail, np.zeros(n)])
    y = (rng.random(n) < np.linspace(0, 1, n)).astype(int)
    grade = P[:, 1] + 2 * P[:, 2]  # as computed: p_1 + 2 p_2
    for func in (om.c_index, om.kendall_tau, om.spearman):
        assert func(y, P) == pytest.approx(func(y, grade), abs=1e-15), func.__name__


@pytest.mark.parametrize("view", ["classwise", "cumulative"])
def test_quantile_bins_of_tiny_forecasts_by_the_kernels_and_the_sort(rng, view, monkeypatch):
    # forecasts from 1e-16 to 1e-11, with near-ties at each magnitude: the kernels' tie
    # groups and the binning module's must agree
    from ordmetrics.metrics.calibration import fused_quantile as CQ

    calls = []
    thresholds = CQ._thresholds

    def counted(*args):
        calls.append(1)
        return thresholds(*args)

    monkeypatch.setattr(CQ, "_thresholds", counted)
    n = 20_000
    base = np.geomspace(1e-16, 1e-11, 40)
    p0 = base[rng.integers(0, base.size, n)] * (1 + rng.integers(0, 3, n) * 6e-13)
    p0 = np.where(rng.random(n) < 0.1, p0, rng.uniform(0.0, 0.5, n))  # a tenth of them tiny
    p1 = rng.uniform(0.0, 0.5, n)
    P = np.column_stack([p0, p1, 1.0 - p0 - p1])
    y = rng.integers(0, 3, n)
    w = rng.uniform(0.0, 2.0, n) * (rng.random(n) > 0.2)
    func = om.classwise_ece if view == "classwise" else om.cumulative_ece
    ws = scale_weights(w)[0]
    for b in (3, 15):
        got = func(y, P, n_bins=b, strategy="quantile", sample_weight=w)
        want = float(np.mean(CB._ece_columns(P, y, ws, view, b, "quantile")))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert calls  # the kernels' tie groups, not only the sorted path's
