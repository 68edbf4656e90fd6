"""Weights of extreme dynamic range or size: the ranking metrics' normalisation, the reliability
diagram's ECE, and the CORP bands' draws for integer weights beyond int64."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.metrics.corp import corp_reliability
from ordmetrics.metrics.ranking import counts_evaluator


@pytest.mark.parametrize("exponent", [150, 160, 170, 200, 300])
def test_a_perfect_ranking_is_one_whatever_the_range_of_the_weights(exponent):
    # two classes, the second of weight 10^-exponent: the products of the two classes'
    # weights fall among the subnormals (0.998 from 1e160) and to 0 (ZeroDivisionError)
    y = np.array([0, 0, 1, 1])
    s = y.astype(np.float64)
    w = np.array([1.0, 1.0, 10.0**-exponent, 10.0**-exponent])
    for func in (om.spearman, om.kendall_tau, om.c_index):
        assert func(y, s, sample_weight=w) == pytest.approx(1.0, abs=1e-12), func.__name__
    P = np.array([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.2, 0.8]])  # an expected grade
    for name in ("spearman", "kendall_tau", "c_index"):
        evaluate, _ = counts_evaluator(name, y, P)
        assert evaluate(w) == pytest.approx(1.0, abs=1e-12), name


def test_spearman_with_weights_spanning_1e300_equals_the_rows_kept_alone(rng):
    y = rng.integers(0, 4, 200)
    s = y + rng.normal(0, 1.0, y.size)
    w = 10.0 ** rng.uniform(-300, 0, y.size)
    # the rows below 1e-30 of the largest weight move the result by about 1e-28 at most
    w_heavy = np.where(w > 1e-30, w, 0.0)
    for func in (om.spearman, om.kendall_tau, om.c_index):
        assert func(y, s, sample_weight=w) == pytest.approx(
            func(y, s, sample_weight=w_heavy), abs=1e-12
        )


def test_the_reliability_ece_survives_weights_whose_sum_overflows():
    y = np.array([1, 0, 0, 1])
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    want = om.ece(y, P)
    for views in ("top_label", "classwise", "cumulative"):
        r = om.reliability(y, P, view=views, sample_weight=[1e308] * 4)
        ref = om.reliability(y, P, view=views)
        np.testing.assert_allclose(r.ece, ref.ece, rtol=1e-12, atol=1e-15)
    r = om.reliability(y, P, sample_weight=[1e308] * 4)
    assert r.ece == pytest.approx(want, rel=1e-12)  # was 0.0
    assert om.ece(y, P, sample_weight=[1e308] * 4) == pytest.approx(want, rel=1e-12)
    assert np.isinf(r.total_weight)  # 4e308 in the caller's units: beyond the float range


@pytest.mark.parametrize("weight", [2.0**63, 2.0**64, 1e300])
def test_corp_bands_with_integer_weights_beyond_int64(weight):
    y = np.array([1, 0, 0, 1, 1, 0])
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7], [0.5, 0.5], [0.7, 0.3]])
    w = np.full(y.size, weight)
    r = corp_reliability(y, P, sample_weight=w, n_resamples=20, random_state=0)
    ref = corp_reliability(y, P, n_resamples=20, random_state=0)
    assert r.mcb == pytest.approx(ref.mcb, rel=1e-12)
    c = r.curves[0]
    assert c.band_lower is not None and c.band_upper is not None
    assert np.all(np.isfinite(c.band_lower)) and np.all(c.band_lower <= c.band_upper)


def test_corp_bands_with_integer_weights_below_int64_draw_binomials():
    y = np.array([1, 0, 0, 1])
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    r = corp_reliability(y, P, sample_weight=[2.0**62] * 4, n_resamples=20, random_state=0)
    c = r.curves[0]
    # Binomial(2^62, x) / 2^62 is x to within 1e-9: the band closes on the forecasts
    assert c.band_x is not None and c.band_lower is not None and c.band_upper is not None
    np.testing.assert_allclose(c.band_lower, c.band_x, atol=1e-6)
    np.testing.assert_allclose(c.band_upper, c.band_x, atol=1e-6)


def test_corp_bands_with_uint64_weights_above_2_63():
    y = [1, 0, 0, 1]
    P = [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]
    w = np.array([2**63 + 2**11, 2**64 - 2**12, 2**63, 2**63], dtype=np.uint64)
    r = corp_reliability(y, P, sample_weight=w, n_resamples=5, random_state=0)  # was "n < 0"
    assert r.curves[0].band_lower is not None
    assert np.all(np.isfinite(r.curves[0].band_lower))
