"""CORP reliability curves and decompositions: PAV against a literal quadratic pool loop and
scikit-learn, the decomposition identity against ordmetrics' own Brier score and RPS, and the
properties of the parts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics as om
from conftest import make_data
from ordmetrics._core import pav as _pav
from ordmetrics.metrics.calibration import brier_decomposition
from ordmetrics.metrics.corp import (
    BAND_POINTS,
    CorpDecomposition,
    CorpReliability,
    computed_forecasts,
    corp_decomposition,
    corp_reliability,
)

# --------------------------------------------------------------------------------------------
# Independent references
# --------------------------------------------------------------------------------------------


def literal_pav(x, o, w):
    """Isotonic fit by the textbook quadratic loop, written independently of the library.

    Rows with equal x are first merged into one point (CORP's tie rule); then, while two
    adjacent blocks violate the order, the first such pair is pooled, and the scan restarts.
    Returns the distinct x values and the fitted value at each.
    """
    values = sorted(set(float(v) for v in x))
    blocks = []  # [weight, weighted event sum, number of distinct values]
    for v in values:
        ww = sum(float(wi) for xi, wi in zip(x, w, strict=True) if xi == v)
        ss = sum(float(wi) * float(oi) for xi, oi, wi in zip(x, o, w, strict=True) if xi == v)
        blocks.append([ww, ss, 1])
    changed = True
    while changed:
        changed = False
        for j in range(len(blocks) - 1):
            a, b = blocks[j], blocks[j + 1]
            if a[1] / a[0] > b[1] / b[0]:
                blocks[j : j + 2] = [[a[0] + b[0], a[1] + b[1], a[2] + b[2]]]
                changed = True
                break
    fitted = []
    for ww, ss, m in blocks:
        fitted += [ss / ww] * m
    return np.array(values), np.array(fitted)


def literal_parts(x, o, w):
    """Binary Brier score, MCB, DSC, UNC from the literal PAV, by loops over rows."""
    values, fitted = literal_pav(x, o, w)
    r = {v: f for v, f in zip(values, fitted, strict=True)}
    total = sum(w)
    s = sum(wi * (xi - oi) ** 2 for xi, oi, wi in zip(x, o, w, strict=True)) / total
    s_rc = sum(wi * (r[xi] - oi) ** 2 for xi, oi, wi in zip(x, o, w, strict=True)) / total
    base = sum(wi * oi for oi, wi in zip(o, w, strict=True)) / total
    s_cl = sum(wi * (base - oi) ** 2 for oi, wi in zip(o, w, strict=True)) / total
    return s, s - s_rc, s_cl - s_rc, s_cl


def rounded_data(rng, n, k, decimals=1, weights=False):
    """Rows with many exact ties: probabilities on a grid of 10^-decimals."""
    y, P = make_data(rng, n, k)
    P = np.round(P, decimals)
    P[:, -1] = np.round(1.0 - P[:, :-1].sum(axis=1), 10)
    bad = P[:, -1] < 0
    P[bad] = np.eye(k)[0]
    w = rng.integers(0, 4, n).astype(float) if weights else None
    if w is not None:
        w[0] = 1.0
    return y, P, w


# --------------------------------------------------------------------------------------------
# PAV
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 2, 7, 60])
def test_pav_kernel_matches_the_literal_pool_loop(rng, n, weighted):
    for _ in range(20):
        x = np.round(rng.random(n), 1)  # heavy ties
        o = (rng.random(n) < 0.5).astype(float)
        w = rng.random(n) + 0.1 if weighted else np.ones(n)
        values, want = literal_pav(x.tolist(), o.tolist(), w.tolist())
        order = np.argsort(x)
        starts = _pav.tie_starts(x[order])
        got = _pav.pav(_pav.group_sums((w * o)[order], starts), _pav.group_sums(w[order], starts))
        np.testing.assert_allclose(x[order][starts[:-1]], values, rtol=0, atol=0)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)


def test_pav_matches_scikit_learn_on_tie_aggregated_data(rng):
    from sklearn.isotonic import IsotonicRegression

    for n, weighted in [(50, False), (500, True), (3000, True)]:
        x = np.round(rng.random(n), 2)
        o = (rng.random(n) < x).astype(float)
        w = rng.random(n) + 0.01 if weighted else np.ones(n)
        y = np.zeros(n, dtype=int) + (o == 1)  # class 1 = the event
        P = np.column_stack([1 - x, x])
        c = corp_reliability(y, P, event="class", sample_weight=w).curves[1]
        # sklearn separates tied X by a secondary order: compare on one point per value
        values, inv = np.unique(x, return_inverse=True)
        wa = np.bincount(inv, weights=w)
        oa = np.bincount(inv, weights=w * o) / wa
        iso = IsotonicRegression(increasing=True, y_min=0.0, y_max=1.0)
        want = iso.fit(values, oa, sample_weight=wa).predict(values)
        np.testing.assert_array_equal(c.x, values)
        np.testing.assert_allclose(c.recalibrated, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(c.weight, wa, rtol=1e-13)
        np.testing.assert_allclose(c.observed, oa, rtol=0, atol=1e-13)


def test_pav_output_is_non_decreasing_in_unit_interval_and_constant_on_ties(rng):
    y, P, w = rounded_data(rng, 4000, 4, weights=True)
    for event in ("top_label", "class", "cumulative"):
        for c in corp_reliability(y, P, event=event, sample_weight=w).curves:
            assert np.all(np.diff(c.recalibrated) >= 0)
            assert np.all(np.diff(c.x) > 0)  # one value per tie group
            assert c.recalibrated.min() >= 0 and c.recalibrated.max() <= 1
            assert c.weight.sum() == pytest.approx(w.sum(), rel=1e-13)


def test_tie_starts_exact_for_given_values_and_the_shared_rule_for_computed_ones():
    x = np.array([0.1, 0.1 + 8e-14, 0.1 + 1.6e-13, 0.3, 0.3, 0.5, 0.5 + 2e-12])
    assert _pav.tie_starts(x).tolist() == [0, 1, 2, 3, 5, 6, 7]
    # chains of gaps <= 1e-12 times the larger value
    assert _pav.tie_starts(x, computed=True).tolist() == [0, 3, 5, 6, 7]
    assert _pav.tie_starts(np.array([0.7])).tolist() == [0, 1]
    assert computed_forecasts("cumulative")
    assert not computed_forecasts("class") and not computed_forecasts("top_label")


def test_cumulative_forecasts_equal_in_exact_arithmetic_share_one_value():
    # F_1 of rows 0, 1, 3 is 0.3 in real numbers; the float sums differ in the last bit
    P = np.array([[0.1, 0.2, 0.7], [0.2, 0.1, 0.7], [0.3, 0.3, 0.4], [0.25, 0.05, 0.7]])
    F = np.cumsum(P, axis=1)[:, 1]
    assert len(set(F[[0, 1, 3]].tolist())) > 1  # the rounding this test is about
    c = corp_reliability([0, 2, 1, 2], P, event="cumulative").curves[1]
    assert c.x.size == 2  # 0.3 (three rows) and 0.6
    assert c.x[0] == F[[0, 1, 3]].min()  # a group shows as its smallest value
    assert c.weight.tolist() == [3.0, 1.0]
    assert c.recalibrated[0] == pytest.approx(1 / 3, abs=1e-15)
    # the same probabilities given directly as a class forecast are compared exactly
    Q = np.column_stack([F, 1 - F])
    assert corp_reliability([0, 1, 0, 1], Q, event="class").curves[0].x.size == len(set(F))


# --------------------------------------------------------------------------------------------
# Values: worked example, literal parts, the binned decomposition, the library's scores
# --------------------------------------------------------------------------------------------


def test_worked_example_by_hand():
    # x = 0.2, 0.4, 0.6, 0.8 with outcomes 0, 1, 0, 1: PAV pools 0.4 and 0.6 to 1/2
    P = [[0.8, 0.2], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8]]
    c = corp_reliability([0, 1, 0, 1], P, event="class").curves[1]
    assert c.recalibrated.tolist() == [0.0, 0.5, 0.5, 1.0]
    # S = (0.04 + 0.36 + 0.36 + 0.04) / 4, S(r) = (0 + 0.25 + 0.25 + 0) / 4, UNC = 1/4
    assert c.score == pytest.approx(0.2, abs=1e-15)
    assert c.mcb == pytest.approx(0.2 - 0.125, abs=1e-15)
    assert c.dsc == pytest.approx(0.25 - 0.125, abs=1e-15)
    assert c.unc == 0.25


@pytest.mark.parametrize("event", ["top_label", "class", "cumulative"])
def test_every_event_matches_the_literal_parts(rng, event):
    y, P, w = rounded_data(rng, 150, 4, weights=True)
    r = corp_reliability(y, P, event=event, sample_weight=w)
    F = np.cumsum(P, axis=1)
    for j, c in enumerate(r.curves):
        if event == "top_label":
            x, o = P.max(axis=1), (P.argmax(axis=1) == y)
        elif event == "class":
            x, o = P[:, j], (y == j)
        else:  # round the float sums so that the literal loop sees the same ties
            x, o = np.round(F[:, j], 12), (y <= j)
        keep = w > 0
        want = literal_parts(x[keep].tolist(), o[keep].astype(float).tolist(), w[keep].tolist())
        got = (c.score, c.mcb, c.dsc, c.unc)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)


def test_top_label_event_counts_ties_to_the_lowest_class():
    P = [[0.4, 0.4, 0.2], [0.5, 0.25, 0.25]]
    c = corp_reliability([1, 0], P).curves[0]
    assert c.x.tolist() == [0.4, 0.5]
    assert c.observed.tolist() == [0.0, 1.0]  # row 0: argmax is class 0, the truth 1


def test_without_pooling_corp_equals_murphys_decomposition(rng):
    # Event frequencies increasing in the forecast: PAV pools nothing, so MCB = REL, DSC = RES
    x = np.repeat([0.1, 0.3, 0.5, 0.7, 0.9], 20)
    o = np.concatenate([rng.permutation(np.arange(20) < m) for m in (1, 5, 9, 15, 19)])
    y = (~o).astype(int)  # class 0 = the event
    P = np.column_stack([x, 1 - x])
    d = corp_decomposition(y, P, score="brier")
    b = brier_decomposition(y, P, n_bins=None)
    assert d.score == pytest.approx(b.score, abs=1e-14)
    assert d.mcb == pytest.approx(b.reliability, abs=1e-14)
    assert d.dsc == pytest.approx(b.resolution, abs=1e-14)
    assert d.unc == pytest.approx(b.uncertainty, abs=1e-14)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
@pytest.mark.parametrize("weighted", [False, True])
def test_parts_add_up_to_the_library_scores(rng, k, weighted):
    y, P = make_data(rng, 3000, k, alpha=0.5)
    w = rng.random(3000) * 3 if weighted else None
    for score, func in [("brier", om.brier), ("rps", om.rps)]:
        d = corp_decomposition(y, P, score=score, sample_weight=w)
        want = float(func(y, P, sample_weight=w))
        assert abs(d.score - want) <= 1e-12
        assert abs(d.mcb - d.dsc + d.unc - want) <= 1e-12
        assert d.check()
    raw = corp_decomposition(y, P, score="rps", normalize=False, sample_weight=w)
    assert abs(raw.components_sum - float(om.rps(y, P, normalize=False, sample_weight=w))) < 1e-12
    assert raw.normalize is False


def test_decomposition_parts_are_sums_of_the_event_curves(rng):
    y, P, _ = rounded_data(rng, 500, 4)
    for score, event, div in [("brier", "class", 1), ("rps", "cumulative", 3)]:
        d = corp_decomposition(y, P, score=score)
        r = corp_reliability(y, P, event=event)
        assert d.events == r.events
        np.testing.assert_array_equal(d.event_mcb, r.mcb)
        np.testing.assert_array_equal(d.event_dsc, r.dsc)
        np.testing.assert_array_equal(d.event_unc, r.unc)
        assert d.mcb == pytest.approx(r.mcb.sum() / div, abs=1e-15)


def test_a_calibrated_forecast_has_no_miscalibration():
    # at every value x the event happens a fraction x of the time, increasing in x
    x = np.repeat([0.25, 0.5, 0.75, 1.0], 4)
    o = np.array([1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1])
    P = np.column_stack([1 - x, x])
    c = corp_reliability(o, P, event="class").curves[1]
    assert c.mcb == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(c.recalibrated, c.x, atol=1e-15)
    # the recalibrated forecast of any data is calibrated in turn
    rng = np.random.default_rng(1)
    y, P2 = make_data(rng, 400, 2)
    c = corp_reliability(y, P2, event="class").curves[1]
    r_rows = np.interp(P2[:, 1], c.x, c.recalibrated)
    again = corp_reliability(y, np.column_stack([1 - r_rows, r_rows]), event="class").curves[1]
    assert again.mcb == pytest.approx(0.0, abs=1e-14)
    assert again.dsc == pytest.approx(c.dsc, abs=1e-14)


def test_climatological_forecast_has_no_discrimination(rng):
    y = rng.integers(0, 3, 300)
    clim = np.bincount(y, minlength=3) / 300
    d = corp_decomposition(y, np.tile(clim, (300, 1)), score="rps")
    assert d.dsc == pytest.approx(0.0, abs=1e-15)
    assert d.mcb == pytest.approx(0.0, abs=1e-15)
    assert d.score == pytest.approx(d.unc, abs=1e-15)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

_rows = st.integers(min_value=2, max_value=40)


@st.composite
def _cases(draw):
    n = draw(_rows)
    k = draw(st.integers(min_value=2, max_value=5))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    r = np.random.default_rng(seed)
    y, P = make_data(r, n, k)
    if draw(st.booleans()):
        P = np.round(P, 1)
        P[:, -1] = np.round(1 - P[:, :-1].sum(axis=1), 12)
        P[P[:, -1] < 0] = np.eye(k)[0]
    w = r.integers(1, 4, n).astype(float)
    return y, P, w, r


@settings(max_examples=40, deadline=None)
@given(_cases())
def test_parts_are_non_negative_and_dsc_at_most_unc(case):
    y, P, w, _ = case
    for score in ("brier", "rps"):
        d = corp_decomposition(y, P, score=score, sample_weight=w)
        assert np.all(d.event_mcb >= -1e-14) and np.all(d.event_dsc >= -1e-14)
        assert np.all(d.event_unc >= 0) and np.all(d.event_dsc <= d.event_unc + 1e-14)
        assert d.check()


@settings(max_examples=30, deadline=None)
@given(_cases())
def test_row_order_weights_and_repetition_invariance(case):
    y, P, w, r = case
    perm = r.permutation(y.size)
    rep = np.repeat(np.arange(y.size), w.astype(int))
    for score in ("brier", "rps"):
        base = corp_decomposition(y, P, score=score, sample_weight=w)
        for other in (
            corp_decomposition(y[perm], P[perm], score=score, sample_weight=w[perm]),
            corp_decomposition(y[rep], P[rep], score=score),
            corp_decomposition(y, P, score=score, sample_weight=w * 0.37),
        ):
            for a, b in [(base.mcb, other.mcb), (base.dsc, other.dsc), (base.unc, other.unc)]:
                assert a == pytest.approx(b, abs=1e-13)
    for event in ("top_label", "class", "cumulative"):
        a = corp_reliability(y, P, event=event, sample_weight=w)
        b = corp_reliability(y[rep], P[rep], event=event)
        for ca, cb in zip(a.curves, b.curves, strict=True):
            np.testing.assert_allclose(ca.x, cb.x, atol=1e-15)
            np.testing.assert_allclose(ca.recalibrated, cb.recalibrated, atol=1e-14)
            np.testing.assert_allclose(ca.weight, cb.weight)


def test_rows_of_weight_zero_take_no_part(rng):
    y, P = make_data(rng, 200, 3)
    w = np.ones(200)
    w[:50] = 0
    a = corp_reliability(y, P, event="cumulative", sample_weight=w)
    b = corp_reliability(y[50:], P[50:], event="cumulative")
    for ca, cb in zip(a.curves, b.curves, strict=True):
        np.testing.assert_array_equal(ca.x, cb.x)
        np.testing.assert_allclose(ca.recalibrated, cb.recalibrated, atol=1e-15)
    assert a.total_weight == 150.0


# --------------------------------------------------------------------------------------------
# Consistency bands
# --------------------------------------------------------------------------------------------


def test_bands_are_reproducible_ordered_and_cover_a_calibrated_forecast():
    rng = np.random.default_rng(7)
    n = 3000  # more distinct values than BAND_POINTS
    x = rng.random(n)
    o = rng.random(n) < x  # calibrated
    P = np.column_stack([x, 1 - x])
    y = (~o).astype(int)
    a = corp_reliability(y, P, event="class", n_resamples=60, level=0.9, random_state=3)
    b = corp_reliability(y, P, event="class", n_resamples=60, level=0.9, random_state=3)
    c = a.curves[0]
    assert a.level == 0.9 and a.n_resamples == 60
    assert c.x.size == n > BAND_POINTS and c.band_x.size == BAND_POINTS
    assert c.band_x[0] == c.x[0] and c.band_x[-1] == c.x[-1]
    np.testing.assert_array_equal(c.band_lower, b.curves[0].band_lower)
    assert np.all(c.band_lower <= c.band_upper)
    assert np.all((c.band_lower >= 0) & (c.band_upper <= 1))
    inside = (c.band_lower <= c.band_x) & (c.band_x <= c.band_upper)
    assert inside.mean() > 0.8  # the diagonal lies in the band almost everywhere


def test_bands_flag_a_miscalibrated_forecast():
    rng = np.random.default_rng(8)
    x = np.round(rng.random(2000), 2)
    o = rng.random(2000) < x**3  # overconfident in the event
    P = np.column_stack([1 - x, x])
    c = corp_reliability(o.astype(int), P, event="class", n_resamples=50, random_state=0)
    c = c.curves[1]
    at = np.searchsorted(c.x, c.band_x)
    outside = c.recalibrated[at] < c.band_lower
    assert outside.mean() > 0.5
    assert c.band_x.size == c.x.size <= BAND_POINTS


def test_bands_with_weights_and_without():
    y, P = make_data(np.random.default_rng(2), 300, 3)
    r = corp_reliability(y, P, event="cumulative")
    assert r.level is None and r.n_resamples == 0
    assert all(c.band_x is None and c.band_lower is None for c in r.curves)
    for w in (np.full(300, 2.0), np.linspace(0.1, 2, 300)):
        r = corp_reliability(
            y, P, event="cumulative", sample_weight=w, n_resamples=10, random_state=0
        )
        for c in r.curves:
            assert c.band_lower.shape == c.band_upper.shape == c.x.shape


# --------------------------------------------------------------------------------------------
# Labels, missing values, results
# --------------------------------------------------------------------------------------------


def test_labels_name_the_events_and_classwise_is_accepted():
    y = ["lo", "hi", "mid", "lo"]
    P = [[0.6, 0.3, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]]
    lab = ["lo", "mid", "hi"]
    r = corp_reliability(y, P, event="cumulative", labels=lab)
    assert r.events == ("y <= lo", "y <= mid")
    assert corp_reliability(y, P, event="classwise", labels=lab).events == (
        "y = lo",
        "y = mid",
        "y = hi",
    )
    d = corp_decomposition(y, P, labels=lab)
    assert d.events == ("y = lo", "y = mid", "y = hi")
    assert abs(d.score - om.brier(y, P, labels=lab)) < 1e-12
    assert isinstance(d, CorpDecomposition) and "rule='brier'" in repr(d)
    assert isinstance(r, CorpReliability) and "events=2" in repr(r)
    assert "y <= lo" in repr(r.curves[0])
    with pytest.raises(ValueError, match="read-only"):
        r.curves[0].x[0] = 1.0


def test_nan_policies():
    y = np.array([0, 1, 2, 1, 0])
    P = np.array([[0.6, 0.3, 0.1], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3], [1, 0, 0.0]])
    Pn = P.copy()
    Pn[4] = np.nan
    with pytest.raises(ValueError, match="nan_policy='omit'"):
        corp_decomposition(y, Pn)
    omit = corp_decomposition(y, Pn, score="rps", nan_policy="omit")
    want = corp_decomposition(y[:4], P[:4], score="rps")
    assert omit.score == want.score and omit.mcb == want.mcb
    prop = corp_decomposition(y, Pn, nan_policy="propagate")
    assert math.isnan(prop.score) and math.isnan(prop.mcb) and np.isnan(prop.event_dsc).all()
    r = corp_reliability(y, Pn, event="class", nan_policy="propagate", n_resamples=5)
    assert len(r.curves) == 3 and math.isnan(r.total_weight)
    assert r.curves[0].x.size == 0 and math.isnan(r.curves[0].mcb)
    r = corp_reliability(y, Pn, nan_policy="omit")
    assert r.total_weight == 4.0


def test_errors_name_the_argument():
    y, P = [0, 1], [[0.7, 0.3], [0.2, 0.8]]
    with pytest.raises(ValueError, match="event must be one of"):
        corp_reliability(y, P, event="classes")
    with pytest.raises(ValueError, match="score must be one of"):
        corp_decomposition(y, P, score="log_loss")
    with pytest.raises(TypeError, match="n_resamples must be a non-negative integer"):
        corp_reliability(y, P, n_resamples=1.5)
    with pytest.raises(ValueError, match="n_resamples must be a non-negative integer"):
        corp_reliability(y, P, n_resamples=-1)
    with pytest.raises(ValueError, match=r"level must lie in \(0, 1\)"):
        corp_reliability(y, P, level=1.0)
    with pytest.raises(TypeError, match="level must be a number"):
        corp_reliability(y, P, level="90%")
    with pytest.raises(TypeError, match="random_state must be None"):
        corp_reliability(y, P, random_state="x")
    with pytest.raises(TypeError, match="normalize must be True or False"):
        corp_decomposition(y, P, normalize="yes")
    with pytest.raises(ValueError, match="sample_weight"):
        corp_decomposition(y, P, sample_weight=[0, 0])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        corp_reliability(y, P, sample_weight=[1, -1])
    with pytest.raises(ValueError, match="must sum to 1"):
        corp_decomposition(y, [[0.7, 0.7], [0.2, 0.8]])
    assert corp_decomposition(y, [[0.7, 0.7], [0.2, 0.8]], renormalize=True).check()
    with pytest.raises(ValueError, match="y_true"):
        corp_decomposition([0, 5], P)


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------


def _result(n_resamples=0):
    y, P = make_data(np.random.default_rng(4), 400, 4)
    return corp_reliability(y, P, event="cumulative", n_resamples=n_resamples, random_state=0)


def test_diagram_data_holds_the_curves_and_labels():
    from ordmetrics.plot import corp_reliability_diagram_data

    r = _result(n_resamples=5)
    data = corp_reliability_diagram_data(r)
    assert data.curves == r.curves and data.event == "cumulative"
    c = r.curves[0]
    assert data.labels[0] == f"y <= 0: MCB {c.mcb:.4f}, DSC {c.dsc:.4f}, UNC {c.unc:.4f}"
    assert (
        data.title == "CORP reliability diagram (cumulative), 90% consistency bands (5 resamples)"
    )
    picked = corp_reliability_diagram_data(r, events=["y <= 2", 0, -2])
    assert [c.event for c in picked.curves] == ["y <= 2", "y <= 0", "y <= 1"]
    assert corp_reliability_diagram_data(r, events=1).curves == (r.curves[1],)
    assert "bands" not in corp_reliability_diagram_data(_result()).title
    assert "curves=3" in repr(data)
    with pytest.raises(ValueError, match="events must name events of the result"):
        corp_reliability_diagram_data(r, events=["y <= 3"])
    with pytest.raises(ValueError, match=r"positions 0\.\.2; got 3"):
        corp_reliability_diagram_data(r, events=[3])
    with pytest.raises(TypeError, match="result must be a CorpReliability"):
        corp_reliability_diagram_data(corp_decomposition([0, 1], [[0.6, 0.4], [0.3, 0.7]]))


def test_diagram_draws_the_curves_bands_and_legend():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ordmetrics.plot import corp_reliability_diagram, corp_reliability_diagram_data

    r = _result(n_resamples=5)
    _, ax = plt.subplots()
    try:
        assert corp_reliability_diagram(r, ax) is ax
        lines = ax.get_lines()
        assert len(lines) == 4 and len(ax.collections) == 3  # diagonal, curves; bands
        np.testing.assert_array_equal(lines[1].get_xdata(), r.curves[0].x)
        np.testing.assert_array_equal(lines[1].get_ydata(), r.curves[0].recalibrated)
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert texts == ["calibration", *corp_reliability_diagram_data(r).labels]
        ax2 = corp_reliability_diagram(_result(), events=[0])
        assert len(ax2.get_lines()) == 2 and len(ax2.collections) == 0
        top = corp_reliability(*make_data(np.random.default_rng(0), 50, 3))
        assert corp_reliability_diagram(top).get_xlabel() == "confidence"
        with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
            corp_reliability_diagram(r, ax="left")
    finally:
        plt.close("all")


def test_weights_at_extreme_scales_give_the_same_result(rng):
    y, P, _ = rounded_data(rng, 300, 3)
    w = rng.integers(1, 5, 300).astype(float)
    base = corp_decomposition(y, P, score="rps", sample_weight=w)
    for c in (1e-300, 2.0**-40, 1e300):
        d = corp_decomposition(y, P, score="rps", sample_weight=w * c)
        assert d.mcb == pytest.approx(base.mcb, rel=1e-13)
        assert d.dsc == pytest.approx(base.dsc, rel=1e-13)
        assert d.unc == pytest.approx(base.unc, rel=1e-13)
        r = corp_reliability(y, P, event="class", sample_weight=w * c)
        assert r.total_weight == pytest.approx(w.sum() * c, rel=1e-15)
        assert r.curves[0].weight.sum() == pytest.approx(w.sum() * c, rel=1e-13)
    # a power of two scales exactly, also the bands of integer weights (drawn as binomials)
    a = corp_reliability(y, P, event="class", sample_weight=w, n_resamples=5, random_state=1)
    b = corp_reliability(
        y, P, event="class", sample_weight=w * 2.0**-30, n_resamples=5, random_state=1
    )
    assert a.mcb.tolist() == b.mcb.tolist()
    assert a.curves[1].recalibrated.tolist() == b.curves[1].recalibrated.tolist()
