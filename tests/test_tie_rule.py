"""The tie rule of computed values (ordmetrics._core.numerics, docs/definitions.md): purely
relative, infinities tied only with themselves, groups formed from rows of positive weight only;
and the metrics that apply it (CORP, the decompositions with ``n_bins=None``, the quantile bins,
the C-index of an expected grade) against references that tie exactly.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics as om
from ordmetrics._core.numerics import (
    TIE_TOLERANCE,
    group_ids_sorted,
    group_starts_sorted,
    rank_order,
    snap,
)
from ordmetrics.metrics.calibration import binning as CB
from ordmetrics.metrics.corp import corp_decomposition, corp_reliability

INF = np.inf


# --------------------------------------------------------------------------------------------
# The rule itself
# --------------------------------------------------------------------------------------------


def test_the_tolerance_is_relative_to_the_values_compared():
    assert TIE_TOLERANCE == 1e-12
    # tiny values orders of magnitude apart: all distinct (the absolute 1e-12 tied them all)
    tiny = np.array([1.75e-16, 1e-15, 3e-14, 2e-13, 8.1e-12])
    assert group_starts_sorted(tiny).all()
    # near-ties of any size: relative gaps of at most 1e-12 are tied
    for v in (1e-15, 0.3, 1.0, 7.5e6, 1e300):
        s = np.array([v, v * (1 + 5e-13), v * (1 + 3e-12)])
        assert group_starts_sorted(s).tolist() == [True, False, True], v
    # 0 is tied only with 0 (and -0.0)
    assert group_starts_sorted(np.array([-0.0, 0.0, 5e-324, 1e-300])).tolist() == [
        True,
        False,
        True,
        True,
    ]


def test_an_infinity_is_tied_only_with_an_equal_infinity():
    big = np.finfo(np.float64).max
    s = np.array([-INF, -INF, -big, -1.0, 0.0, big, big, INF, INF])
    starts = [True, False, True, True, True, True, False, True, False]
    assert group_starts_sorted(s).tolist() == starts
    assert group_starts_sorted(np.array([-big, big])).tolist() == [True, True]  # b - a overflows
    assert snap(np.array([INF, 1.0, INF, -INF])).tolist() == [INF, 1.0, INF, -INF]


def test_rows_of_weight_zero_link_no_two_values():
    # 0.5 and 0.5 + 8e-13 are 1.6e-12 relative apart; a value between them ties with both
    s = np.array([0.5, 0.5 + 4e-13, 0.5 + 8e-13])
    assert group_starts_sorted(s).tolist() == [True, False, False]
    w = np.array([1.0, 0.0, 2.0])
    assert group_starts_sorted(s, w).tolist() == [True, False, True]
    assert group_ids_sorted(s, w).tolist() == [0, 0, 1]
    # rows of weight 0 before the first row of positive weight form a group of their own
    assert group_starts_sorted(s, np.array([0.0, 1.0, 1.0])).tolist() == [True, True, False]
    # snap and rank_order: the positive rows keep their groups whatever the rows of weight 0
    v = np.array([0.5 + 8e-13, 0.5 + 4e-13, 0.5])
    wv = np.array([2.0, 0.0, 1.0])
    snapped = snap(v, wv)
    assert snapped[[0, 2]].tolist() == [0.5 + 8e-13, 0.5]
    assert rank_order(v).tolist() == [0, 1, 2]  # one group: by position
    assert rank_order(v, wv).tolist() == [1, 2, 0]  # two: {0.5, 0.5 + 4e-13}, {0.5 + 8e-13}


def test_groups_do_not_depend_on_the_row_order(rng):
    v = np.concatenate([1e-14 * rng.integers(1, 6, 50), 0.3 + 1e-13 * rng.integers(0, 4, 50)])
    w = rng.integers(0, 2, v.size).astype(np.float64)
    ref = snap(v, w)
    for _ in range(5):
        p = rng.permutation(v.size)
        got = snap(v[p], w[p])
        np.testing.assert_array_equal(got[w[p] > 0], ref[p][w[p] > 0])


# --------------------------------------------------------------------------------------------
# CORP: tiny forecasts orders of magnitude apart are distinct values
# --------------------------------------------------------------------------------------------


def _isotonic_mcb(x, o, w=None):
    """MCB from scikit-learn's isotonic regression (exact ties): S(x) - S(r)."""
    from sklearn.isotonic import IsotonicRegression

    w = np.ones(x.size) if w is None else w
    r = IsotonicRegression(increasing=True).fit_transform(x, o, sample_weight=w)
    s = lambda f: float(np.sum(w * (f - o) ** 2) / np.sum(w))  # noqa: E731
    return s(x) - s(r)


TINY = np.array([1e-16, 3e-16, 2e-15, 1e-14, 5e-14, 4e-13, 2e-12, 0.4, 0.7])
TINY_EVENT = np.array([0, 0, 0, 1, 0, 1, 1, 0, 1.0])


def test_corp_of_tiny_cumulative_forecasts_equals_exact_tie_isotonic_regression():
    # K = 2: the cumulative forecast F_0 = p_0, computed, so grouped by the tie rule
    y = np.where(TINY_EVENT == 1, 0, 1)
    P = np.column_stack([TINY, 1.0 - TINY])
    curve = corp_reliability(y, P, event="cumulative").curves[0]
    assert curve.x.size == TINY.size  # every forecast its own value
    want = _isotonic_mcb(TINY, TINY_EVENT)
    assert curve.mcb == pytest.approx(want, rel=1e-12, abs=1e-15)  # was 0.157 for 0.231
    d = corp_decomposition(y, P, score="rps")
    assert d.mcb == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_k2_cumulative_event_is_the_class_event_of_class_0(rng):
    # 90 distinct forecasts from 1.75e-16 to 8.1e-12, then ordinary ones
    tiny = np.geomspace(1.75e-16, 8.1e-12, 90)
    p0 = np.concatenate([tiny, rng.uniform(0.05, 0.95, 110)])
    y = (rng.random(p0.size) >= np.clip(p0 * 3, 0.0, 1.0)).astype(int)
    P = np.column_stack([p0, 1.0 - p0])
    w = rng.uniform(0.5, 2.0, p0.size)
    cum = corp_reliability(y, P, event="cumulative", sample_weight=w).curves[0]
    cls = corp_reliability(y, P, event="class", sample_weight=w).curves[0]
    np.testing.assert_array_equal(cum.x, cls.x)
    np.testing.assert_allclose(cum.recalibrated, cls.recalibrated, rtol=1e-13, atol=1e-15)
    assert cum.mcb == pytest.approx(cls.mcb, rel=1e-12, abs=1e-15)
    assert cum.mcb == pytest.approx(_isotonic_mcb(p0, (y == 0).astype(float), w), abs=1e-12)


# --------------------------------------------------------------------------------------------
# Rows of weight 0 are absent
# --------------------------------------------------------------------------------------------


def test_a_weight_zero_forecast_does_not_chain_two_decomposition_bins():
    a = 0.3
    b = a + 1.8e-12  # 6e-12 relative: distinct
    mid = a + 0.9e-12  # tied with both
    P = np.array([[1 - a, a], [1 - b, b], [1 - mid, mid], [0.5, 0.5]])
    y = np.array([0, 1, 0, 1])
    w = np.array([1.0, 1.0, 0.0, 1.0])
    keep = w > 0
    for func in (om.brier_decomposition, om.rps_decomposition):
        got = dataclasses.astuple(func(y, P, n_bins=None, sample_weight=w))
        want = dataclasses.astuple(func(y[keep], P[keep], n_bins=None))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # reliability 0.58 (was 0.22 with the row of weight 0 joining the two forecasts)
    rel = om.brier_decomposition(y, P, n_bins=None, sample_weight=w).reliability
    assert rel == pytest.approx(0.5533333333316534, rel=1e-9)


def test_the_binning_module_forms_groups_from_rows_of_positive_weight():
    f = np.array([[0.3], [0.3 + 1.8e-12], [0.3 + 0.9e-12], [0.1]])
    w = np.array([1.0, 1.0, 0.0, 0.0])
    index, table, b = CB._bin_index(f, w, None, "uniform")
    assert b == 2 and table[0].tolist() == [0.3, 0.3 + 1.8e-12]
    assert index[:2, 0].tolist() == [0, 1]


def _near_tie_data(draw_seed: int, n: int):
    rng = np.random.default_rng(draw_seed)
    anchors = np.array([3e-15, 2e-13, 0.3, 0.7])
    step = anchors * 1.4e-12  # neighbours 1.4e-12 relative apart: distinct
    a = rng.integers(0, anchors.size, n)
    f = anchors[a] + rng.integers(0, 3, n) * 2 * step[a]
    mids = anchors[a] + (2 * rng.integers(0, 2, n) + 1) * step[a]  # between two of them
    y = rng.integers(0, 2, n)
    w = rng.uniform(0.5, 2.0, n)
    return f, mids, y, w


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 60), m=st.integers(1, 30))
def test_weight_zero_rows_between_near_ties_change_nothing(seed, n, m):
    f, mids, y, w = _near_tie_data(seed, n)
    rng = np.random.default_rng(seed + 1)
    at = rng.integers(0, n + 1, m)
    f0 = np.insert(f, at, mids[rng.integers(0, n, m)])
    y0 = np.insert(y, at, rng.integers(0, 2, m))
    w0 = np.insert(w, at, 0.0)
    P, P0 = np.column_stack([f, 1.0 - f]), np.column_stack([f0, 1.0 - f0])
    # CORP (the cumulative event: computed forecasts)
    for ev in ("cumulative", "class"):
        a = corp_reliability(y, P, event=ev, sample_weight=w)
        b = corp_reliability(y0, P0, event=ev, sample_weight=w0)
        for ca, cb in zip(a.curves, b.curves, strict=True):
            np.testing.assert_array_equal(ca.x, cb.x)
            np.testing.assert_allclose(ca.recalibrated, cb.recalibrated, rtol=1e-13, atol=1e-15)
            assert ca.mcb == pytest.approx(cb.mcb, rel=1e-12, abs=1e-15)
    # the decompositions with one bin per distinct value, and with quantile bins
    for func in (om.brier_decomposition, om.rps_decomposition):
        for n_bins, strategy in ((None, "uniform"), (3, "quantile")):
            da = dataclasses.astuple(func(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w))
            db = dataclasses.astuple(
                func(y0, P0, n_bins=n_bins, strategy=strategy, sample_weight=w0)
            )
            np.testing.assert_allclose(da, db, rtol=1e-12, atol=1e-15)
    # the C-index of an expected grade (K = 3: computed)
    Q = np.column_stack([f / 2, f / 2, 1.0 - f])
    Q0 = np.column_stack([f0 / 2, f0 / 2, 1.0 - f0])
    y3 = rng.integers(0, 3, n)
    y30 = np.insert(y3, at, rng.integers(0, 3, m))
    for func in (om.c_index, om.kendall_tau, om.spearman):
        ra, rb = func(y3, Q, sample_weight=w), func(y30, Q0, sample_weight=w0)
        assert ra == pytest.approx(rb, rel=1e-12, abs=1e-15, nan_ok=True)
