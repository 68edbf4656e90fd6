"""Calibration: ECE family, reliability diagram data, Brier/RPS decompositions, skill scores.

The references below are plain Python loops written from docs/definitions.md section 4 and the
module notes (uniform bins: min(floor(f B), B - 1); quantile bins: min(floor(B W_{<v} / W), B - 1)
with W_{<v} the weight strictly below v). They use nothing from ``ordmetrics``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics
from conftest import make_data, on_one_and_two_threads
from ordmetrics._core.registry import MetricSpec
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.metrics.calibration import (
    ReliabilityDiagram,
    ScoreDecomposition,
    brier_decomposition,
    classwise_ece,
    cumulative_ece,
    ece,
    reliability,
    rps_decomposition,
    skill_score,
)

ECES = {"top_label": ece, "classwise": classwise_ece, "cumulative": cumulative_ece}

# --------------------------------------------------------------------------------------------
# Literal references
# --------------------------------------------------------------------------------------------


def ref_bins(f, w, n_bins, strategy):
    """Bin of every forecast, one row at a time."""
    n = len(f)
    total = math.fsum(w)
    out = []
    for i in range(n):
        if strategy == "uniform":
            out.append(min(math.floor(f[i] * n_bins), n_bins - 1))
        else:
            below = math.fsum(w[j] for j in range(n) if f[j] < f[i])
            out.append(min(math.floor(n_bins * below / total), n_bins - 1))
    return out


def ref_binary_ece(f, o, w, n_bins, strategy):
    """sum_b (W_b / W) |mean o_b - mean f_b| for one binary event."""
    bins = ref_bins(f, w, n_bins, strategy)
    total = math.fsum(w)
    ece_value = 0.0
    for b in range(n_bins):
        wb = math.fsum(w[i] for i in range(len(f)) if bins[i] == b)
        if wb > 0:
            fb = math.fsum(w[i] * f[i] for i in range(len(f)) if bins[i] == b) / wb
            ob = math.fsum(w[i] * o[i] for i in range(len(f)) if bins[i] == b) / wb
            ece_value += wb / total * abs(ob - fb)
    return ece_value


def ref_events(y, P, view):
    """List of (forecasts, outcomes) per event, row by row."""
    P = [list(map(float, row)) for row in P]
    n, k = len(P), len(P[0])
    if view == "top_label":
        f, o = [], []
        for i in range(n):
            best = 0
            for j in range(1, k):
                if P[i][j] > P[i][best]:
                    best = j
            f.append(P[i][best])
            o.append(1.0 if best == y[i] else 0.0)
        return [(f, o)]
    if view == "classwise":
        return [
            ([P[i][j] for i in range(n)], [1.0 if y[i] == j else 0.0 for i in range(n)])
            for j in range(k)
        ]
    events = []
    for j in range(k - 1):
        f = []
        for i in range(n):
            c = 0.0
            for m in range(j + 1):
                c = c + P[i][m]
            f.append(c)
        events.append((f, [1.0 if y[i] <= j else 0.0 for i in range(n)]))
    return events


def ref_ece(view, y, P, w=None, n_bins=15, strategy="uniform"):
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    values = [ref_binary_ece(f, o, w, n_bins, strategy) for f, o in ref_events(y, P, view)]
    return sum(values) / len(values)


def ref_binary_decomposition(f, o, w, bins):
    """(score, REL, RES, UNC, WBV, WBC) of one binary event, bins given per row."""
    n = len(f)
    total = math.fsum(w)
    base = math.fsum(w[i] * o[i] for i in range(n)) / total
    score = math.fsum(w[i] * (f[i] - o[i]) ** 2 for i in range(n)) / total
    rel = res = wbv = wbc = 0.0
    for b in set(bins):
        rows = [i for i in range(n) if bins[i] == b]
        wb = math.fsum(w[i] for i in rows)
        if wb == 0:
            continue
        fb = math.fsum(w[i] * f[i] for i in rows) / wb
        ob = math.fsum(w[i] * o[i] for i in rows) / wb
        rel += wb * (fb - ob) ** 2 / total
        res += wb * (ob - base) ** 2 / total
        for i in rows:
            wbv += w[i] * (f[i] - fb) ** 2 / total
            wbc += 2 * w[i] * (o[i] - ob) * (f[i] - fb) / total
    return score, rel, res, base * (1 - base), wbv, wbc


def ref_decomposition(rule, y, P, w=None, n_bins=None, strategy="uniform"):
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    events = ref_events(y, P, "classwise" if rule == "brier" else "cumulative")
    parts = []
    for f, o in events:
        bins = list(f) if n_bins is None else ref_bins(f, w, n_bins, strategy)
        parts.append(ref_binary_decomposition(f, o, w, bins))
    sums = [math.fsum(p[j] for p in parts) for j in range(6)]
    return [s / len(events) for s in sums] if rule == "rps" else sums


def calibrated_data(rng, n, k):
    """Rows p from a Dirichlet and y drawn from p: perfectly calibrated in every view."""
    P = rng.dirichlet(np.full(k, 0.7), size=n)
    u = rng.random(n)
    y = (u[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    return np.minimum(y, k - 1), P


# --------------------------------------------------------------------------------------------
# ECE against the loop references
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("view", list(ECES))
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ece_matches_loop_reference(rng, view, k, strategy, weighted):
    y, P = make_data(rng, 120, k, alpha=0.8)
    w = rng.uniform(0, 3, 120) if weighted else None
    if weighted:
        w[:5] = 0.0
    for n_bins in (1, 4, 10):
        got = ECES[view](y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
        expected = ref_ece(view, y, P, w, n_bins, strategy)
        assert isinstance(got, float)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("view", list(ECES))
def test_ece_quantile_with_ties_and_integer_weights_matches_reference(rng, view):
    # few distinct values: many ties, which must never be split across bins
    k = 4
    P = rng.dirichlet(np.ones(k), size=6)[rng.integers(0, 6, 90)]
    y = rng.integers(0, k, 90)
    w = rng.integers(0, 4, 90).astype(float)
    for n_bins in (2, 3, 7, 20):
        got = ECES[view](y, P, n_bins=n_bins, strategy="quantile", sample_weight=w)
        assert got == pytest.approx(ref_ece(view, y, P, w, n_bins, "quantile"), rel=1e-12)


def test_ece_default_is_15_uniform_bins(rng):
    y, P = make_data(rng, 200, 4)
    assert ece(y, P) == pytest.approx(ref_ece("top_label", y, P), rel=1e-12)
    assert ece(y, P) == ece(y, P, n_bins=15, strategy="uniform")


def test_top_label_ties_go_to_the_lowest_class():
    P = [[0.4, 0.4, 0.2], [0.4, 0.4, 0.2]]
    # argmax is class 0: row 0 correct, row 1 wrong -> acc 0.5, conf 0.4 in one bin
    assert ece([0, 1], P, n_bins=1) == pytest.approx(0.1, abs=1e-15)
    assert ece([1, 1], P, n_bins=1) == pytest.approx(0.4, abs=1e-15)


# --------------------------------------------------------------------------------------------
# Worked examples by hand
# --------------------------------------------------------------------------------------------

# K = 3, four rows, n_bins = 2 (edges 0, 0.5, 1)
Y_W = [0, 1, 2, 2]
P_W = [
    [0.7, 0.2, 0.1],  # conf 0.7 (bin 1), argmax 0 = y: correct
    [0.6, 0.3, 0.1],  # conf 0.6 (bin 1), argmax 0 != 1: wrong
    [0.2, 0.4, 0.4],  # conf 0.4 (bin 0), argmax 1 (tie 1/2 -> 1) != 2: wrong
    [0.1, 0.2, 0.7],  # conf 0.7 (bin 1), correct
]


def test_worked_example_top_label():
    # bin 0: one wrong row, conf 0.4 -> |0 - 0.4| = 0.4, weight 1/4
    # bin 1: acc 2/3, conf (0.7 + 0.6 + 0.7)/3 = 2/3 -> 0, weight 3/4
    assert ece(Y_W, P_W, n_bins=2) == pytest.approx(0.1, abs=1e-15)
    r = reliability(Y_W, P_W, n_bins=2)
    np.testing.assert_allclose(r.mean_confidence, [0.4, 2 / 3], rtol=1e-15)
    np.testing.assert_allclose(r.observed_frequency, [0.0, 2 / 3], rtol=1e-15)
    np.testing.assert_array_equal(r.weight, [1.0, 3.0])
    # weight 2 on the last row: bin 1 acc 3/4, conf (0.7 + 0.6 + 1.4)/4 = 0.675
    got = ece(Y_W, P_W, n_bins=2, sample_weight=[1, 1, 1, 2])
    assert got == pytest.approx(1 / 5 * 0.4 + 4 / 5 * abs(0.75 - 0.675), abs=1e-15)


def test_worked_example_classwise():
    # class 0: p = .7 .6 (bin 1, events 1 0), .2 .1 (bin 0, events 0 0)
    #   bin 0: |0 - .15| * 2/4, bin 1: |.5 - .65| * 2/4 -> .075 + .075 = .15
    # class 1: p = .2 .3 .4 .2 all bin 0, events 0 1 0 0: |.25 - .275| = .025
    # class 2: p = .1 .1 .4 (bin 0, events 0 0 1), .7 (bin 1, event 1)
    #   bin 0: |1/3 - .2| * 3/4 = .1, bin 1: |1 - .7| * 1/4 = .075 -> .175
    expected = (0.15 + 0.025 + 0.175) / 3
    assert classwise_ece(Y_W, P_W, n_bins=2) == pytest.approx(expected, abs=1e-15)
    r = reliability(Y_W, P_W, view="classwise", n_bins=2)
    np.testing.assert_allclose(r.ece, [0.15, 0.025, 0.175], atol=1e-15)
    assert r.events == ("y = 0", "y = 1", "y = 2")


def test_worked_example_cumulative():
    # F_1 = .7 .6 .2 .1, events y <= 0: 1 0 0 0 -> same as class 0 above: .15
    # F_2 = .9 .9 .6 .3, events y <= 1: 1 1 0 0
    #   bin 0: F .3, event 0 -> |0 - .3| * 1/4 = .075
    #   bin 1: F .9 .9 .6 (mean .8), events 1 1 0 (2/3) -> |2/3 - .8| * 3/4 = .1
    expected = (0.15 + 0.175) / 2
    assert cumulative_ece(Y_W, P_W, n_bins=2) == pytest.approx(expected, abs=1e-15)
    r = reliability(Y_W, P_W, view="cumulative", n_bins=2)
    np.testing.assert_allclose(r.ece, [0.15, 0.175], atol=1e-15)
    np.testing.assert_allclose(r.mean_confidence, [[0.15, 0.65], [0.3, 0.8]], rtol=1e-15)
    np.testing.assert_allclose(r.observed_frequency, [[0.0, 0.5], [0.0, 2 / 3]], rtol=1e-15)
    assert r.events == ("y <= 0", "y <= 1")


def test_worked_example_quantile_bins_keep_ties_together():
    # F_1 values .5 .5 .5 .6 .7 .8 (K = 2, forecast of y <= 0 is p_0); 3 bins of mass 2:
    # W_{<v}: .5 -> 0 (bin 0), .6 -> 3 (bin floor(9/6) = 1), .7 -> 4 (bin 2), .8 -> 5 (bin 2)
    p0 = np.array([0.5, 0.5, 0.5, 0.6, 0.7, 0.8])
    P = np.column_stack([p0, 1 - p0])
    y = [0, 1, 0, 0, 1, 0]
    r = reliability(y, P, view="cumulative", n_bins=3, strategy="quantile")
    np.testing.assert_array_equal(r.weight, [[3.0, 1.0, 2.0]])
    np.testing.assert_allclose(r.bin_edges, [[0.5, 0.5, 0.6, 0.8]])
    np.testing.assert_allclose(r.mean_confidence, [[0.5, 0.6, 0.75]], rtol=1e-15)
    np.testing.assert_allclose(r.observed_frequency, [[2 / 3, 1.0, 0.5]], rtol=1e-15)
    expected = 0.5 * abs(2 / 3 - 0.5) + 1 / 6 * 0.4 + 1 / 3 * 0.25
    assert cumulative_ece(y, P, n_bins=3, strategy="quantile") == pytest.approx(expected)


def test_quantile_bins_have_equal_mass_without_ties(rng):
    for n, n_bins in [(12, 4), (100, 10), (90, 15)]:
        P = rng.dirichlet(np.ones(3), size=n)
        y = rng.integers(0, 3, n)
        r = reliability(y, P, n_bins=n_bins, strategy="quantile")
        np.testing.assert_array_equal(r.weight, np.full(n_bins, n / n_bins))
        conf = P.max(axis=1)
        assert r.bin_edges[0] == conf.min() and r.bin_edges[-1] == conf.max()
        # integer weights: the mass of each bin is the repeated-row count
        w = np.full(n, 2.0)
        r2 = reliability(y, P, n_bins=n_bins, strategy="quantile", sample_weight=w)
        np.testing.assert_array_equal(r2.weight, np.full(n_bins, 2 * n / n_bins))


def test_quantile_edges_ignore_rows_of_weight_zero():
    P = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.6, 0.4], [0.55, 0.45]])
    y = [0, 0, 1, 0, 1]
    w = [1, 1, 1, 1, 0]
    r = reliability(y, P, n_bins=2, strategy="quantile", sample_weight=w)
    r_drop = reliability(y[:4], P[:4], n_bins=2, strategy="quantile")
    np.testing.assert_array_equal(r.bin_edges, r_drop.bin_edges)
    np.testing.assert_array_equal(r.weight, r_drop.weight)
    assert r.bin_edges[0] == 0.6


# --------------------------------------------------------------------------------------------
# Weights, invariances, special cases
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("view", list(ECES))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_integer_weights_equal_repeated_rows(rng, view, strategy):
    y, P = make_data(rng, 60, 4)
    w = rng.integers(0, 4, 60)
    rep = np.repeat(np.arange(60), w)
    func = ECES[view]
    a = func(y, P, sample_weight=w, n_bins=6, strategy=strategy)
    b = func(y[rep], P[rep], n_bins=6, strategy=strategy)
    assert a == pytest.approx(b, rel=1e-12, abs=1e-15)
    ra = reliability(y, P, view=view, sample_weight=w, n_bins=6, strategy=strategy)
    rb = reliability(y[rep], P[rep], view=view, n_bins=6, strategy=strategy)
    np.testing.assert_array_equal(ra.bin_edges, rb.bin_edges)
    np.testing.assert_allclose(ra.weight, rb.weight, rtol=1e-15)
    np.testing.assert_allclose(ra.mean_confidence, rb.mean_confidence, rtol=1e-12)
    np.testing.assert_allclose(ra.observed_frequency, rb.observed_frequency, rtol=1e-12)


def test_string_labels_pandas_and_float32(rng):
    pd = pytest.importorskip("pandas")
    y, P = make_data(rng, 50, 3)
    names = np.array(["low", "mid", "high"])
    for func in ECES.values():
        base = func(y, P, n_bins=5)
        assert func(names[y], P, labels=["low", "mid", "high"], n_bins=5) == base
        frame = pd.DataFrame(P, columns=list(names))
        assert func(pd.Series(y), frame, n_bins=5) == base
    r = reliability(names[y], P, view="cumulative", labels=["low", "mid", "high"])
    assert r.events == ("y <= low", "y <= mid")
    P32 = P.astype(np.float32)
    assert ece(y, P32) == pytest.approx(ref_ece("top_label", y, P32.astype(np.float64)))


@pytest.mark.parametrize("view", list(ECES))
def test_calibrated_data_gives_small_ece_that_shrinks_with_n(view):
    func = ECES[view]
    values = []
    for n in (1_000, 100_000):
        y, P = calibrated_data(np.random.default_rng(7), n, 4)
        values.append(func(y, P, n_bins=10))
    assert values[1] < 0.01
    assert values[1] < values[0] / 3
    # a miscalibrated (over-confident) version of the same forecasts is clearly worse
    y, P = calibrated_data(np.random.default_rng(7), 100_000, 4)
    sharp = P**3 / (P**3).sum(axis=1, keepdims=True)
    assert func(y, sharp, n_bins=10) > 5 * values[1]


def test_classwise_on_two_classes_is_the_binary_ece(rng):
    n_bins = 8
    # forecasts at bin centres: p_1 and 1 - p_1 fall in mirrored bins, so both classes agree
    p1 = (rng.integers(0, n_bins, 200) + 0.5) / n_bins
    y = (rng.random(200) < p1 * 0.8).astype(int)
    P = np.column_stack([1 - p1, p1])
    binary = ref_binary_ece(p1.tolist(), y.astype(float).tolist(), [1.0] * 200, n_bins, "uniform")
    assert classwise_ece(y, P, n_bins=n_bins) == pytest.approx(binary, rel=1e-12)
    # in general: the mean of the two binary ECEs
    y, P = make_data(rng, 150, 2)
    w = rng.uniform(0, 2, 150)
    for strategy in ("uniform", "quantile"):
        per_class = [
            ref_binary_ece(
                P[:, j].tolist(), (y == j).astype(float).tolist(), w.tolist(), 7, strategy
            )
            for j in range(2)
        ]
        got = classwise_ece(y, P, n_bins=7, strategy=strategy, sample_weight=w)
        assert got == pytest.approx(sum(per_class) / 2, rel=1e-12)


def test_cumulative_on_two_classes_is_the_class_0_event(rng):
    y, P = make_data(rng, 150, 2)
    w = rng.uniform(0, 2, 150)
    for strategy in ("uniform", "quantile"):
        for n_bins in (3, 15):
            cw = reliability(
                y, P, view="classwise", n_bins=n_bins, strategy=strategy, sample_weight=w
            )
            got = cumulative_ece(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
            assert got == cw.ece[0]


def test_a_perfect_prediction_has_zero_ece(rng):
    y = rng.integers(0, 4, 50)
    P = np.eye(4)[y]
    for func in ECES.values():
        for strategy in ("uniform", "quantile"):
            assert func(y, P, strategy=strategy) == 0.0


def test_one_bin_is_the_gap_of_the_means(rng):
    y, P = make_data(rng, 100, 3)
    w = rng.uniform(0, 1, 100)
    conf = P.max(axis=1)
    correct = P.argmax(axis=1) == y
    expected = abs(np.average(correct, weights=w) - np.average(conf, weights=w))
    assert ece(y, P, n_bins=1, sample_weight=w) == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Reliability diagram data
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_matches_direct_computation(rng, view, strategy):
    k, n, n_bins = 4, 200, 6
    y, P = make_data(rng, n, k)
    w = rng.uniform(0, 2, n)
    r = reliability(y, P, view=view, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert isinstance(r, ReliabilityDiagram)
    assert (r.view, r.strategy, r.n_bins) == (view, strategy, n_bins)
    assert r.total_weight == pytest.approx(w.sum(), rel=1e-14)
    events = ref_events(y.tolist(), P.tolist(), view)
    n_events = len(events)
    shape = (n_bins,) if view == "top_label" else (n_events, n_bins)
    assert r.weight.shape == r.mean_confidence.shape == r.observed_frequency.shape == shape
    assert r.bin_edges.shape == (*shape[:-1], n_bins + 1)
    assert len(r.events) == n_events
    weight = np.atleast_2d(r.weight)
    mean_f = np.atleast_2d(r.mean_confidence)
    mean_o = np.atleast_2d(r.observed_frequency)
    edges = np.atleast_2d(r.bin_edges)
    np.testing.assert_allclose(weight.sum(axis=1), w.sum(), rtol=1e-13)
    for e, (f, o) in enumerate(events):
        f, o = np.array(f), np.array(o)
        b = np.array(ref_bins(f.tolist(), w.tolist(), n_bins, strategy))
        for j in range(n_bins):  # loop over bins
            m = b == j
            assert weight[e, j] == pytest.approx(w[m].sum(), rel=1e-13, abs=1e-15)
            if w[m].sum() > 0:
                assert mean_f[e, j] == pytest.approx(np.average(f[m], weights=w[m]), rel=1e-13)
                assert mean_o[e, j] == pytest.approx(np.average(o[m], weights=w[m]), rel=1e-13)
                assert edges[e, j] <= f[m].min() and f[m].max() <= edges[e, j + 1]
            else:
                assert np.isnan(mean_f[e, j]) and np.isnan(mean_o[e, j])
    assert np.all(np.diff(edges, axis=1) >= 0)


def test_reliability_empty_bins_and_read_only_arrays():
    r = reliability([0, 1], [[0.9, 0.1], [0.8, 0.2]], n_bins=10)
    np.testing.assert_allclose(r.bin_edges, np.linspace(0, 1, 11))
    assert r.weight.tolist() == [0.0] * 8 + [1.0, 1.0]
    assert np.isnan(r.mean_confidence[:8]).all() and np.isnan(r.observed_frequency[:8]).all()
    np.testing.assert_allclose(r.mean_confidence[8:], [0.8, 0.9])
    np.testing.assert_allclose(r.observed_frequency[8:], [0.0, 1.0])
    assert r.events == ("top_label",)
    with pytest.raises(ValueError, match="read-only"):
        r.weight[0] = 1.0
    with pytest.raises(AttributeError):
        r.n_bins = 3  # type: ignore[misc]


@pytest.mark.parametrize("view", list(ECES))
def test_reliability_ece_property_equals_the_ece_functions(rng, view):
    y, P = make_data(rng, 120, 5)
    w = rng.uniform(0, 2, 120)
    for strategy in ("uniform", "quantile"):
        r = reliability(y, P, view=view, n_bins=7, strategy=strategy, sample_weight=w)
        got = ECES[view](y, P, n_bins=7, strategy=strategy, sample_weight=w)
        assert float(np.mean(r.ece)) == got


def test_uniform_bin_boundaries_follow_the_floor_rule():
    # c * 5 = 3.0 exactly for c = 0.6: bin 3; c = 1 goes to the last bin
    r = reliability([0, 0, 0], [[0.6, 0.4], [1.0, 0.0], [0.5, 0.5]], n_bins=5)
    assert r.weight.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]


# --------------------------------------------------------------------------------------------
# Decompositions
# --------------------------------------------------------------------------------------------

DECOMPOSITIONS = {"brier": brier_decomposition, "rps": rps_decomposition}
FIELDS = (
    "score",
    "reliability",
    "resolution",
    "uncertainty",
    "within_bin_variance",
    "within_bin_covariance",
)


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize("k", [2, 3, 4, 6])
@pytest.mark.parametrize(
    ("n_bins", "strategy"), [(None, "uniform"), (1, "uniform"), (5, "uniform"), (4, "quantile")]
)
@pytest.mark.parametrize("weighted", [False, True])
def test_decomposition_adds_up_to_the_score(rng, rule, k, n_bins, strategy, weighted):
    y, P = make_data(rng, 300, k)
    P[:40] = P[rng.integers(0, 10, 40)]  # repeated forecasts: multi-row bins also without binning
    w = rng.uniform(0, 3, 300) if weighted else None
    d = DECOMPOSITIONS[rule](y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert isinstance(d, ScoreDecomposition)
    score = getattr(ordmetrics, rule)(y, P, sample_weight=w)
    assert d.score == pytest.approx(score, abs=1e-12)
    total = (
        d.reliability
        - d.resolution
        + d.uncertainty
        + d.within_bin_variance
        - d.within_bin_covariance
    )
    assert abs(total - score) <= 1e-12
    assert d.components_sum == total and d.check()
    assert d.reliability >= 0 and d.resolution >= 0 and d.within_bin_variance >= 0
    if n_bins is None:
        assert d.within_bin_variance == 0.0 and d.within_bin_covariance == 0.0
    if n_bins == 1:
        assert d.resolution == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize(
    ("n_bins", "strategy"), [(None, "uniform"), (3, "uniform"), (4, "quantile")]
)
def test_decomposition_matches_loop_reference(rng, rule, n_bins, strategy):
    y, P = make_data(rng, 80, 4)
    P[:30] = P[rng.integers(0, 6, 30)]
    w = rng.uniform(0, 2, 80)
    w[:3] = 0.0
    d = DECOMPOSITIONS[rule](y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
    expected = ref_decomposition(rule, y.tolist(), P.tolist(), w.tolist(), n_bins, strategy)
    for field, value in zip(FIELDS, expected, strict=True):
        assert getattr(d, field) == pytest.approx(value, rel=1e-11, abs=1e-14), field


def test_murphy_decomposition_by_hand():
    # K = 2; forecast p_1 = .5 (y = 0, 1) and .2 (y = 1, 1). Event y = 0, forecast p_0:
    # bins .5 (o = 1/2) and .8 (o = 0); base rate 1/4.
    # REL = (2 (.5 - .5)^2 + 2 (.8 - 0)^2) / 4 = .32; RES = 2 (2 (1/4)^2) / 4 = .0625
    # UNC = 3/16; binary Brier = .32 - .0625 + .1875 = .445; the event y = 1 is the mirror
    P = [[0.5, 0.5], [0.5, 0.5], [0.8, 0.2], [0.8, 0.2]]
    y = [0, 1, 1, 1]
    d = brier_decomposition(y, P)
    assert d.reliability == pytest.approx(0.64, abs=1e-15)
    assert d.resolution == pytest.approx(0.125, abs=1e-15)
    assert d.uncertainty == pytest.approx(0.375, abs=1e-15)
    assert d.score == pytest.approx(0.89, abs=1e-15)
    r = rps_decomposition(y, P)
    for field in FIELDS:
        assert getattr(r, field) == pytest.approx(getattr(d, field) / 2, abs=1e-15)


def test_two_class_brier_decomposition_is_twice_the_rps_one(rng):
    y, P = make_data(rng, 200, 2)
    P[:100] = P[rng.integers(0, 20, 100)]
    w = rng.uniform(0, 2, 200)
    b = brier_decomposition(y, P, sample_weight=w)
    r = rps_decomposition(y, P, sample_weight=w)
    for field in FIELDS:
        assert getattr(b, field) == pytest.approx(2 * getattr(r, field), rel=1e-12, abs=1e-15)


def test_uncertainty_depends_only_on_class_frequencies(rng):
    y, P = make_data(rng, 300, 5)
    w = rng.uniform(0, 2, 300)
    pi = np.bincount(y, weights=w, minlength=5) / w.sum()
    c = np.cumsum(pi)[:-1]
    b = brier_decomposition(y, P, sample_weight=w, n_bins=4)
    r = rps_decomposition(y, P, sample_weight=w, n_bins=4)
    assert b.uncertainty == pytest.approx(np.sum(pi * (1 - pi)), rel=1e-13)
    assert r.uncertainty == pytest.approx(np.mean(c * (1 - c)), rel=1e-13)
    clim = np.tile(pi, (300, 1))
    assert ordmetrics.rps(y, clim, sample_weight=w) == pytest.approx(r.uncertainty, rel=1e-12)
    assert ordmetrics.brier(y, clim, sample_weight=w) == pytest.approx(b.uncertainty, rel=1e-12)


def test_rps_decomposition_unnormalized(rng):
    y, P = make_data(rng, 100, 5)
    d = rps_decomposition(y, P, normalize=False, n_bins=6)
    assert d.score == pytest.approx(ordmetrics.rps(y, P, normalize=False), abs=1e-12)
    assert d.check()
    dn = rps_decomposition(y, P, n_bins=6)
    for field in FIELDS:
        assert getattr(d, field) == pytest.approx(4 * getattr(dn, field), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_decomposition_integer_weights_equal_repeated_rows(rng, rule):
    y, P = make_data(rng, 60, 4)
    P[:20] = P[rng.integers(0, 5, 20)]
    w = rng.integers(0, 4, 60)
    rep = np.repeat(np.arange(60), w)
    for n_bins, strategy in [(None, "uniform"), (5, "uniform"), (3, "quantile")]:
        a = DECOMPOSITIONS[rule](y, P, sample_weight=w, n_bins=n_bins, strategy=strategy)
        b = DECOMPOSITIONS[rule](y[rep], P[rep], n_bins=n_bins, strategy=strategy)
        for field in FIELDS:
            assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    k=st.integers(2, 6),
    n_bins=st.one_of(st.none(), st.integers(1, 12)),
    strategy=st.sampled_from(["uniform", "quantile"]),
)
def test_decomposition_identity_property(seed, n, k, n_bins, strategy):
    rng = np.random.default_rng(seed)
    y, P = make_data(rng, n, k, alpha=0.5)
    w = rng.integers(1, 5, n).astype(float)
    for rule, func in DECOMPOSITIONS.items():
        d = func(y, P, sample_weight=w, n_bins=n_bins, strategy=strategy)
        score = getattr(ordmetrics, rule)(y, P, sample_weight=w)
        assert abs(d.components_sum - score) <= 1e-12
        assert abs(d.score - score) <= 1e-12


# --------------------------------------------------------------------------------------------
# Skill score
# --------------------------------------------------------------------------------------------


def test_skill_of_climatology_is_zero_and_of_a_perfect_forecast_is_one(rng):
    y = rng.integers(0, 4, 200)
    w = rng.uniform(0, 2, 200)
    pi = np.bincount(y, weights=w, minlength=4) / w.sum()
    clim = np.tile(pi, (200, 1))
    for name in ("rps", "brier", "log_loss", "pbs", "pll", "sa_rps"):
        assert skill_score(name, y, clim, sample_weight=w) == pytest.approx(0.0, abs=1e-14)
        assert skill_score(name, y, np.eye(4)[y], sample_weight=w) == 1.0


def test_skill_score_by_hand_and_against_the_score_functions(rng):
    # docs/definitions.md worked values: RPS of the doctest rows .085 .04 .085 .085, climatology
    # [.25, .25, .5] scores .21875 -> RPSS = 1 - .07375 / .21875
    y = [0, 1, 2, 2]
    P = [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6], [0.1, 0.3, 0.6]]
    assert skill_score("rps", y, P) == pytest.approx(1 - 0.07375 / 0.21875, abs=1e-14)
    y, P = make_data(rng, 150, 5)
    w = rng.uniform(0, 2, 150)
    pi = np.bincount(y, weights=w, minlength=5) / w.sum()
    for name in ("rps", "brier", "log_loss"):
        f = getattr(ordmetrics, name)
        expected = 1 - f(y, P, sample_weight=w) / f(y, np.tile(pi, (150, 1)), sample_weight=w)
        assert skill_score(name, y, P, sample_weight=w) == pytest.approx(expected, rel=1e-13)


def test_rpss_is_resolution_minus_reliability_over_uncertainty(rng):
    y, P = make_data(rng, 200, 4)
    P[:100] = P[rng.integers(0, 10, 100)]
    for func, name in ((rps_decomposition, "rps"), (brier_decomposition, "brier")):
        d = func(y, P)
        expected = (d.resolution - d.reliability) / d.uncertainty
        assert skill_score(name, y, P) == pytest.approx(expected, rel=1e-11)


def test_skill_score_reference_forms(rng):
    y, P = make_data(rng, 100, 3)
    _, Q = make_data(rng, 100, 3)
    pi = np.bincount(y, minlength=3) / 100
    base = skill_score("rps", y, P)
    assert skill_score("rps", y, P, reference=pi) == pytest.approx(base, rel=1e-14)
    assert skill_score("rps", y, P, reference=pi.tolist()) == pytest.approx(base, rel=1e-14)
    assert skill_score("rps", y, P, reference=np.tile(pi, (100, 1))) == pytest.approx(base)
    expected = 1 - ordmetrics.rps(y, P) / ordmetrics.rps(y, Q)
    assert skill_score("rps", y, P, reference=Q) == pytest.approx(expected, rel=1e-14)
    uniform = np.full(3, 1 / 3)
    expected = 1 - ordmetrics.brier(y, P) / ordmetrics.brier(y, np.tile(uniform, (100, 1)))
    assert skill_score("brier", y, P, reference=uniform) == pytest.approx(expected, rel=1e-14)
    pd = pytest.importorskip("pandas")
    assert skill_score("rps", y, P, reference=pd.DataFrame(Q)) == pytest.approx(
        1 - ordmetrics.rps(y, P) / ordmetrics.rps(y, Q), rel=1e-14
    )


def test_skill_score_accepts_name_spec_or_function_and_score_options(rng):
    y, P = make_data(rng, 100, 4)
    a = skill_score("rps", y, P)
    assert skill_score(ordmetrics.rps, y, P) == a
    assert skill_score(ordmetrics.get_metric("rps"), y, P) == a
    assert skill_score("rps", y, P, normalize=False) == pytest.approx(a, rel=1e-13)
    assert skill_score("rps", y, P, reduction="mean") == a
    q = make_data(rng, 100, 4)[1]
    expected = 1 - ece(y, P, n_bins=5) / ece(y, q, n_bins=5)
    assert skill_score("ece", y, P, reference=q, n_bins=5) == pytest.approx(expected)
    assert skill_score(cumulative_ece, y, P, reference=q) == pytest.approx(
        1 - cumulative_ece(y, P) / cumulative_ece(y, q)
    )
    y3, P3 = make_data(rng, 20, 3)
    P3[0] = [0.5, 0.5, 0.5]  # renormalize: rows of y_proba and of the reference
    Pn = P3 / P3.sum(axis=1, keepdims=True)
    assert skill_score("rps", y3, P3, renormalize=True, reference=[1, 1, 2]) == pytest.approx(
        skill_score("rps", y3, Pn, reference=[0.25, 0.25, 0.5])
    )


def test_skill_score_with_labels_and_weights(rng):
    y, P = make_data(rng, 90, 3)
    w = rng.integers(0, 4, 90)
    rep = np.repeat(np.arange(90), w)
    names = np.array(["a", "b", "c"])
    a = skill_score("rps", names[y], P, labels=["a", "b", "c"], sample_weight=w)
    assert a == pytest.approx(skill_score("rps", y[rep], P[rep]), rel=1e-12)


def test_skill_score_undefined_reference_gives_nan_with_warning():
    y = [0, 0, 0]
    P = [[0.9, 0.1], [0.8, 0.2], [1.0, 0.0]]
    with pytest.warns(UndefinedMetricWarning, match="skill_score is undefined"):
        assert math.isnan(skill_score("rps", y, P))  # climatology [1, 0] is perfect
    with pytest.warns(UndefinedMetricWarning, match="infinite"):
        certain = [[1.0, 0.0], [1.0, 0.0]]
        assert math.isnan(skill_score("log_loss", [1, 1], certain, reference=[1.0, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert skill_score("log_loss", [0, 0], P[:2], reference=[0.0, 1.0]) == 1.0


# --------------------------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------------------------


def _all_calls(y, P, **kw):
    out = {name: func(y, P, n_bins=4, **kw) for name, func in ECES.items()}
    for name, func in DECOMPOSITIONS.items():
        out[name] = func(y, P, n_bins=4, **kw)
    out["skill"] = skill_score("rps", y, P, **kw)
    return out


def test_nan_policies(rng):
    y, P = make_data(rng, 60, 4)
    w = rng.uniform(0.5, 2, 60)
    Pn, yn, wn = P.copy(), y.astype(float), w.copy()
    Pn[3, 1] = np.nan
    yn[7] = np.nan
    wn[11] = np.nan
    keep = np.ones(60, bool)
    keep[[3, 7, 11]] = False
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 3.*nan_policy='omit'"):
        ece(yn, Pn, sample_weight=wn)
    with pytest.raises(ValueError, match="y_true is missing in row 7"):
        reliability(yn, P)
    with pytest.raises(ValueError, match="sample_weight is NaN in row 11"):
        brier_decomposition(y, P, sample_weight=wn)
    with pytest.raises(ValueError, match="y_proba has NaN"):
        skill_score("rps", y, Pn)

    omitted = _all_calls(yn, Pn, sample_weight=wn, nan_policy="omit")
    dropped = _all_calls(y[keep], P[keep], sample_weight=w[keep])
    for name, value in dropped.items():
        assert omitted[name] == value, name
    r_omit = reliability(yn, Pn, sample_weight=wn, nan_policy="omit", view="classwise")
    r_drop = reliability(y[keep], P[keep], sample_weight=w[keep], view="classwise")
    np.testing.assert_array_equal(r_omit.weight, r_drop.weight)

    propagated = _all_calls(yn, Pn, sample_weight=wn, nan_policy="propagate")
    for name, value in propagated.items():
        if isinstance(value, ScoreDecomposition):
            assert all(math.isnan(getattr(value, f)) for f in FIELDS), name
        else:
            assert math.isnan(value), name
    for view in ("top_label", "cumulative"):
        for strategy in ("uniform", "quantile"):
            r = reliability(yn, Pn, nan_policy="propagate", view=view, strategy=strategy, n_bins=3)
            assert np.isnan(r.weight).all() and np.isnan(r.mean_confidence).all()
            assert np.isnan(r.observed_frequency).all() and math.isnan(r.total_weight)
            assert np.all(np.isnan(r.ece))
            if strategy == "uniform":
                np.testing.assert_allclose(r.bin_edges[..., 1], 1 / 3)
            else:
                assert np.isnan(r.bin_edges).all()
    # complete data: propagate is the normal result
    assert ece(y, P, nan_policy="propagate") == ece(y, P)


def test_skill_score_omit_drops_the_same_rows_of_a_reference_matrix(rng):
    y, P = make_data(rng, 50, 3)
    _, Q = make_data(rng, 50, 3)
    Pn = P.copy()
    Pn[[2, 9], 0] = np.nan
    keep = np.ones(50, bool)
    keep[[2, 9]] = False
    got = skill_score("rps", y, Pn, reference=Q, nan_policy="omit")
    assert got == skill_score("rps", y[keep], P[keep], reference=Q[keep])
    yo = y.astype(object)
    yo[4] = None
    keep[4] = False
    w = np.ones(50)
    w[5] = np.nan
    keep[5] = False
    got = skill_score("brier", yo, Pn, reference=Q, sample_weight=w, nan_policy="omit")
    assert got == skill_score("brier", y[keep], P[keep], reference=Q[keep])


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ece", "classwise_ece", "cumulative_ece"])
def test_ece_family_is_registered(name):
    spec = ordmetrics.get_metric(name)
    assert spec.kind == "calibration"
    assert spec.direction == "minimize"
    assert spec.range == (0.0, 1.0) and spec.perfect == 0.0
    assert spec.description
    assert spec.func is ECES[{"ece": "top_label"}.get(name, name.replace("_ece", ""))]
    assert name in ordmetrics.list_metrics("calibration")


def test_only_the_ece_family_is_registered_as_calibration():
    assert ordmetrics.list_metrics("calibration") == ["ece", "classwise_ece", "cumulative_ece"]


@pytest.mark.parametrize("name", ["ece", "classwise_ece", "cumulative_ece"])
def test_ece_stays_in_the_declared_range(rng, name):
    func = ordmetrics.get_metric(name).func
    for k in (2, 3, 7):
        y, P = make_data(rng, 300, k, alpha=0.2)
        P[:20] = np.eye(k)[(y[:20] + 1) % k]  # confidently wrong
        for strategy in ("uniform", "quantile"):
            assert 0.0 <= func(y, P, strategy=strategy) <= 1.0
    # worst case: every row certain and wrong
    assert func([0, 1], [[0.0, 1.0], [1.0, 0.0]]) == 1.0


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

Y2 = [0, 1]
P2 = [[0.7, 0.3], [0.4, 0.6]]


@pytest.mark.parametrize("func", [ece, classwise_ece, cumulative_ece, reliability])
def test_bad_n_bins_and_strategy(func):
    with pytest.raises(ValueError, match=r"n_bins must be a positive integer.*got 0"):
        func(Y2, P2, n_bins=0)
    with pytest.raises(ValueError, match=r"n_bins must be a positive integer.*got -3"):
        func(Y2, P2, n_bins=-3)
    with pytest.raises(TypeError, match=r"n_bins must be a positive integer.*got float 2.5"):
        func(Y2, P2, n_bins=2.5)
    with pytest.raises(TypeError, match=r"n_bins must be a positive integer.*got bool True"):
        func(Y2, P2, n_bins=True)
    with pytest.raises(TypeError, match=r"n_bins must be a positive integer.*got str '10'"):
        func(Y2, P2, n_bins="10")
    with pytest.raises(TypeError, match=r"n_bins must be a positive integer.*got NoneType"):
        func(Y2, P2, n_bins=None)
    with pytest.raises(ValueError, match=r"strategy must be one of 'uniform', 'quantile'"):
        func(Y2, P2, strategy="equal")
    assert func(Y2, P2, n_bins=np.int64(3)) is not None


def test_bad_view():
    with pytest.raises(
        ValueError, match=r"view must be one of 'top_label', 'classwise'.*'ordinal'"
    ):
        reliability(Y2, P2, view="ordinal")


@pytest.mark.parametrize("func", [brier_decomposition, rps_decomposition])
def test_decomposition_bad_options(func):
    with pytest.raises(ValueError, match=r"n_bins must be a positive integer or None.*got 0"):
        func(Y2, P2, n_bins=0)
    with pytest.raises(TypeError, match=r"n_bins must be a positive integer or None.*float"):
        func(Y2, P2, n_bins=4.0)
    with pytest.raises(ValueError, match="strategy must be one of"):
        func(Y2, P2, n_bins=3, strategy="kmeans")


@pytest.mark.parametrize(
    "func", [ece, classwise_ece, cumulative_ece, reliability, brier_decomposition]
)
def test_bad_data_is_reported_by_the_shared_validation(func):
    with pytest.raises(ValueError, match=r"must sum to 1.*renormalize=True"):
        func(Y2, [[0.7, 0.4], [0.4, 0.6]])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        func(Y2, [[1.2, -0.2], [0.4, 0.6]])
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0\.\.1"):
        func([0, 2], P2)
    with pytest.raises(ValueError, match="y_true has 3 rows but y_proba has 2"):
        func([0, 1, 1], P2)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        func(Y2, P2, sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        func(Y2, P2, sample_weight=[0, 0])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        func(Y2, P2, sample_weight=[0, 0], nan_policy="propagate")
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        func(Y2, P2, nan_policy="ignore")
    assert func(Y2, [[0.7, 0.4], [0.4, 0.6]], renormalize=True) is not None


def test_skill_score_bad_score():
    with pytest.raises(ValueError, match=r"unknown metric 'rsp'.*Did you mean 'rps'"):
        skill_score("rsp", Y2, P2)
    with pytest.raises(TypeError, match="unregistered callable 'my_score'"):

        def my_score(y_true, y_proba):
            return 0.5

        skill_score(my_score, Y2, P2)
    with pytest.raises(TypeError, match=r"score must be the name of a registered metric.*int 3"):
        skill_score(3, Y2, P2)
    accuracy = MetricSpec(
        name="accuracy_tmp",
        func=lambda y, p, **kw: 0.5,
        direction="maximize",
        range=(0, 1),
        kind="hard_label",
    )
    with pytest.raises(ValueError, match=r"lower is better.*'accuracy_tmp' has direction"):
        skill_score(accuracy, Y2, P2)
    mae = MetricSpec(
        name="mae_tmp",
        func=lambda y, p, **kw: 0.5,
        direction="minimize",
        range=(0, 1),
        kind="hard_label",
    )
    with pytest.raises(ValueError, match=r"probabilistic predictions.*'mae_tmp' is of kind"):
        skill_score(mae, Y2, P2)
    with pytest.raises(ValueError, match=r"reduction must be 'mean'.*'none'"):
        skill_score("rps", Y2, P2, reduction="none")
    with pytest.raises(TypeError, match="unexpected keyword argument 'normalise'"):
        skill_score("rps", Y2, P2, normalise=False)


def test_skill_score_bad_reference():
    with pytest.raises(
        ValueError, match=r"vector must have one probability per class.*got length 3"
    ):
        skill_score("rps", Y2, P2, reference=[0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"shape of y_proba, \(2, 2\); got shape \(3, 2\)"):
        skill_score("rps", Y2, P2, reference=[[0.5, 0.5]] * 3)
    with pytest.raises(ValueError, match=r"got shape \(1, 2, 2\)"):
        skill_score("rps", Y2, P2, reference=[P2])
    with pytest.raises(TypeError, match=r"reference must be None.*not numeric"):
        skill_score("rps", Y2, P2, reference=["a", "b"])
    with pytest.raises(ValueError, match=r"complete finite probabilities.*row\(s\) \[1\]"):
        skill_score("rps", Y2, P2, reference=[[0.5, 0.5], [np.nan, 0.5]])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\].*reference vector"):
        skill_score("rps", Y2, P2, reference=[1.5, -0.5])
    with pytest.raises(ValueError, match=r"must sum to 1.*sums to 0.9 in row 0.*renormalize=True"):
        skill_score("rps", Y2, P2, reference=[0.5, 0.4])
    with pytest.raises(
        ValueError, match=r"reference must be non-negative with positive row sums.*reference vector"
    ):
        skill_score("rps", Y2, P2, reference=[0.0, 0.0], renormalize=True)


# --------------------------------------------------------------------------------------------
# Compiled kernels (ordmetrics.metrics.calibration.fused) against the binning module's sorts
# --------------------------------------------------------------------------------------------


def _kernel_data(rng, kind, n, k):
    """Probabilities with continuous forecasts, coarse ties or near-ties (1e-13 apart)."""
    if kind == "continuous":
        P = rng.dirichlet(np.ones(k), size=n)
    elif kind == "rounded":
        P = np.round(rng.dirichlet(np.ones(k), size=n), 1)
        P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0.0, 1.0)
        P /= P.sum(axis=1, keepdims=True)
    else:  # near-ties: a few hundred distinct rows, each repeated with shifts of 1e-13
        base = rng.dirichlet(np.ones(k), size=n // 3 + 1)
        P = base[rng.integers(0, base.shape[0], n)]
        shift = rng.integers(-2, 3, n) * rng.choice([1e-13, 4e-13, 3e-12])
        P[:, 0] += shift
        P[:, -1] -= shift
        P = np.clip(P, 0.0, 1.0)
    return rng.integers(0, k, n), P


def _sorted_path_ece(view, y, P, w, n_bins, strategy):
    """The binning module's per-column path (argsort of every column), as before the kernels."""
    from ordmetrics._core.numerics import scale_weights
    from ordmetrics.metrics.calibration import binning as CB

    ws = np.ones(y.size) if w is None else scale_weights(w)[0]
    if view == "top_label":
        f, o = CB.event_forecasts(P, y, view)
        b = CB.bin_sums(f, o, ws, n_bins, strategy)
        return float(CB.ece_from_sums(b.weight, b.sum_forecast, b.sum_event, b.total_weight)[0])
    return float(np.mean(CB._ece_columns(P, y, ws, view, n_bins, strategy)))


@pytest.mark.parametrize("kind", ["continuous", "rounded", "near_ties"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_the_kernels_give_the_values_of_the_sorted_path(rng, kind, strategy):
    funcs = {"top_label": ece, "classwise": classwise_ece, "cumulative": cumulative_ece}
    for n, k in ((1, 3), (37, 2), (2_500, 4)):
        y, P = _kernel_data(rng, kind, n, k)
        weights = (None, rng.uniform(0, 2, n) * (rng.random(n) > 0.2), rng.integers(0, 4, n) * 0.3)
        for w in weights:
            if w is not None and not w.sum() > 0:
                continue
            for view, func in funcs.items():
                for n_bins in (1, 4, 15, 40):
                    ref = _sorted_path_ece(view, y, P, w, n_bins, strategy)
                    got = func(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
                    assert got == pytest.approx(ref, rel=1e-13, abs=1e-15), (view, n_bins, w)


def test_the_quantile_kernels_sort_only_a_few_buckets(rng):
    """Continuous forecasts take the kernels' path; heavy ties the binning module's sort, with
    the same values."""
    from ordmetrics.metrics.calibration import fused as CF

    y, P = _kernel_data(rng, "continuous", 5_000, 5)
    inp = CF.fast_input(y, P, None, None, "raise", False)
    assert inp is not None
    found = CF.event_sums(inp, "cumulative", 10, "quantile")
    assert found is not None
    sums, (T, _lut) = found
    assert T.shape == (4, 9) and np.all(np.diff(T, axis=1) >= 0)
    assert np.all(sums[..., 0].sum(axis=1) == 5_000)
    tied = np.tile(P[:1], (5_000, 1))
    inp = CF.fast_input(y, tied, None, None, "raise", False)
    assert inp is not None
    assert CF.event_sums(inp, "cumulative", 10, "quantile") is None  # one group: sorted
    ref = _sorted_path_ece("cumulative", y, tied, None, 10, "quantile")
    assert cumulative_ece(y, tied, n_bins=10, strategy="quantile") == ref


def test_the_kernels_do_not_depend_on_the_number_of_threads(rng):
    """Several chunks of rows (N > 2 x 16,384): the same bits with 1 thread and with 2."""
    pytest.importorskip("numba")
    y, P = _kernel_data(rng, "continuous", 70_000, 5)
    w = rng.uniform(0.5, 2.0, y.size)

    def values():
        return [
            ece(y, P, strategy="quantile", sample_weight=w),
            cumulative_ece(y, P),
            classwise_ece(y, P, strategy="quantile"),
            *dataclasses.astuple(rps_decomposition(y, P, n_bins=10, strategy="quantile")),
            *dataclasses.astuple(brier_decomposition(y, P, n_bins=10, sample_weight=w)),
        ]

    one, two = on_one_and_two_threads(values)
    assert one == two
    ref = _sorted_path_ece("cumulative", y, P, None, 15, "uniform")
    assert one[1] == pytest.approx(ref, rel=1e-12)  # chunk sums agree with np.bincount


def test_the_kernels_read_float32_input_as_its_float64_values(rng):
    y, P = _kernel_data(rng, "continuous", 3_000, 5)
    P32 = P.astype(np.float32)
    P64 = P32.astype(np.float64)
    for strategy in ("uniform", "quantile"):
        assert cumulative_ece(y, P32, strategy=strategy) == cumulative_ece(
            y, P64, strategy=strategy
        )
        d32 = rps_decomposition(y, P32, n_bins=8, strategy=strategy)
        assert d32 == rps_decomposition(y, P64, n_bins=8, strategy=strategy)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_the_decomposition_kernels_give_the_values_of_the_per_event_path(rng, strategy):
    from ordmetrics._core.numerics import scale_weights
    from ordmetrics.metrics.calibration import binning as CB
    from ordmetrics.metrics.calibration import decomposition as CD

    for kind in ("continuous", "rounded"):
        y, P = _kernel_data(rng, kind, 2_000, 4)
        for w in (None, rng.uniform(0, 2, y.size) * (rng.random(y.size) > 0.2)):
            ws = np.ones(y.size) if w is None else scale_weights(w)[0]
            for rule, view, func in (
                ("brier", "classwise", brier_decomposition),
                ("rps", "cumulative", rps_decomposition),
            ):
                for n_bins in (1, 4, 15):
                    cols = CB._event_columns(P, y, view)
                    ref = CD._decompose_events(cols, ws, n_bins, strategy).sum(axis=1)
                    if rule == "rps":
                        ref = ref / 3
                    d = func(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
                    np.testing.assert_allclose(dataclasses.astuple(d), ref, rtol=1e-12, atol=1e-15)
                    assert d.check(1e-12)


@pytest.mark.parametrize("kind", ["continuous", "rounded", "near_ties"])
def test_the_kernels_on_several_chunks_give_the_values_of_the_sorted_path(rng, kind):
    """N > 2 x 16,384 rows: the quantile bins add the sums of the buckets outside the runs and
    then the rows of the runs (no third pass); the values are those of the sorted path."""
    y, P = _kernel_data(rng, kind, 40_000, 4)
    for w in (None, rng.uniform(0, 2, y.size) * (rng.random(y.size) > 0.2)):
        for view, func in ECES.items():
            for strategy in ("uniform", "quantile"):
                for n_bins in (1, 10, 15):
                    ref = _sorted_path_ece(view, y, P, w, n_bins, strategy)
                    got = func(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
                    # sums of 40,000 terms in another order; |o_b - f_b| cancels (n_bins=1)
                    assert got == pytest.approx(ref, rel=1e-12, abs=1e-13), (view, n_bins)


def test_the_decomposition_kernels_on_several_chunks(rng):
    from ordmetrics._core.numerics import scale_weights
    from ordmetrics.metrics.calibration import binning as CB
    from ordmetrics.metrics.calibration import decomposition as CD

    y, P = _kernel_data(rng, "continuous", 40_000, 3)
    for w in (None, rng.uniform(0, 2, y.size)):
        ws = np.ones(y.size) if w is None else scale_weights(w)[0]
        for rule, view, func in (
            ("brier", "classwise", brier_decomposition),
            ("rps", "cumulative", rps_decomposition),
        ):
            for strategy in ("uniform", "quantile"):
                cols = CB._event_columns(P, y, view)
                ref = CD._decompose_events(cols, ws, 10, strategy).sum(axis=1)
                if rule == "rps":
                    ref = ref / 2
                d = func(y, P, n_bins=10, strategy=strategy, sample_weight=w)
                np.testing.assert_allclose(dataclasses.astuple(d), ref, rtol=1e-12, atol=1e-15)


def test_the_kernels_scale_the_weights_without_a_copy(rng):
    """w_i 2^-e inside the kernels is scale_weights(w) bit for bit, and W is its sum."""
    from ordmetrics._core.numerics import scale_weights
    from ordmetrics.metrics.calibration.fused import scaled_weights

    w = rng.uniform(0.0, 3.0, 1_000)
    w[:10] = 0.0
    for c in (1.0, 2.0**-40, 2.0**300, 3e-200, 7e250):
        wc = w * c
        v, ws, total = scaled_weights(wc)
        ref = scale_weights(wc)[0]
        assert v is wc
        assert np.array_equal(v * ws, ref) and total == float(ref.sum())
    # subnormal, huge (the sum overflows) and invalid weights: scale_weights' copy
    for bad in (w * 1e-310, w * 1e307, np.r_[w[:-1], -1.0], np.r_[w[:-1], np.nan]):
        v, ws, _ = scaled_weights(bad)
        assert ws == 1.0
        assert np.array_equal(v, scale_weights(bad)[0], equal_nan=True)
    y, P = _kernel_data(rng, "continuous", 1_000, 3)
    for func in ECES.values():
        for strategy in ("uniform", "quantile"):
            a = func(y, P, strategy=strategy, sample_weight=w)
            assert a == func(y, P, strategy=strategy, sample_weight=w * 2.0**-700)
            assert a == func(y, P, strategy=strategy, sample_weight=scale_weights(w)[0])


@pytest.mark.parametrize("kind", ["continuous", "rounded", "near_ties"])
def test_quantile_kernels_beyond_the_chunk_size_give_the_values_of_the_sorted_path(
    rng, kind, monkeypatch
):
    """70,001 rows (several chunks, a short last one), tie groups within the tolerance and
    weights with ties: the thresholds from the stably sorted buckets give the sorted path's
    values."""
    from ordmetrics.metrics.calibration import fused_quantile as CQ

    calls = []
    thresholds = CQ._thresholds

    def counted(*args):
        calls.append(1)
        return thresholds(*args)

    monkeypatch.setattr(CQ, "_thresholds", counted)
    funcs = {"top_label": ece, "classwise": classwise_ece, "cumulative": cumulative_ece}
    y, P = _kernel_data(rng, kind, 70_001, 4)
    for w in (None, rng.integers(0, 4, y.size) * 0.5):
        for view, func in funcs.items():
            ref = _sorted_path_ece(view, y, P, w, 15, "quantile")
            got = func(y, P, n_bins=15, strategy="quantile", sample_weight=w)
            assert got == pytest.approx(ref, rel=1e-13, abs=1e-15), (view, kind, w is None)
    assert calls  # the kernels' path, not only the sorted one
