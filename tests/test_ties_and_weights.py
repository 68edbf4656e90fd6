"""Near-ties of computed values and weights at the extremes of the float64 range.

Two classes of bug, each with the reproducers that found it and tests that would have found
the whole class:

* ties of computed values decided by rounding noise (expected grades, per-sample scores,
  cumulative forecasts, bin positions): inputs with exact ties in real numbers that float64
  computes unequally (leaf-count probabilities of tree models) must give the answer of the
  exact ties, whatever the row order;
* results that depend on the scale of the weights: every registered metric must give the same
  value for w and c w for c from 1e-300 to 1e300 and for subnormal weights (bitwise for powers
  of two); for every registered metric that is checked in ``test_common.py``, here for the
  other functions (retention curves, confusion matrices).

The references here use exact rational arithmetic (``fractions.Fraction``) or pair loops, never
ordmetrics' own tie rule.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics as om
from ordmetrics._core import numerics as _numerics
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.stream import Evaluator

METRICS = om.list_metrics()

#: Rows just past the scoring kernels' block of 1024 rows.
N = 1100
K = 4


def _data(seed: int = 7, n: int = N, k: int = K):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = rng.dirichlet(np.ones(k), size=n)
    y_pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, size=n))
    w = rng.uniform(0.05, 1.0, size=n)
    return y, P, y_pred, w


def _call(name: str, y, P, y_pred, w):
    spec = om.get_metric(name)
    second = y_pred if spec.kind == "agreement" else P
    return spec.func(y, second, sample_weight=w)


def _same(a: float, b: float, rel: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(abs(a), abs(b))


# --------------------------------------------------------------------------------------------
# Section 2 reproducers: near-ties decided by floating-point noise
# --------------------------------------------------------------------------------------------

TIED = [[0.4, 0.0, 0.6], [0.2, 0.4, 0.4]]  # expected grades 1.2 and 1.2000000000000002


def test_tied_expected_grades_differ_in_float64():
    g = np.array(TIED) @ np.arange(3.0)
    assert g[0] != g[1]  # the premise: equal in real numbers, unequal in float64


@pytest.mark.parametrize("rows", [[0, 1], [1, 0]])
def test_c_index_near_tie_reproducer(rows):
    P = np.array(TIED)[rows]
    y = np.array([0, 1])[rows]
    assert om.c_index(y, P) == 0.5


@pytest.mark.parametrize("metric", ["kendall_tau", "spearman"])
@pytest.mark.parametrize("rows", [[0, 1], [1, 0]])
def test_kendall_spearman_near_tie_is_undefined(metric, rows):
    P = np.array(TIED)[rows]
    y = np.array([0, 1])[rows]
    with pytest.warns(UndefinedMetricWarning, match="y_score is constant"):
        assert math.isnan(getattr(om, metric)(y, P))


@pytest.mark.parametrize("rows", [[0, 1], [1, 0]])
def test_stream_exact_rank_table_near_tie(rows):
    ev = Evaluator(["c_index", "kendall_tau"])
    ev.update(np.array([0, 1])[rows], np.array(TIED)[rows])
    with pytest.warns(UndefinedMetricWarning):
        out = ev.compute()
    assert out.values["c_index"] == 0.5
    assert math.isnan(out.values["kendall_tau"])


def test_retention_near_tie_reproducer():
    P = np.array([[0.4, 0.3, 0.3], [0.3, 0.1, 0.6]])
    y = [0, 1]
    s = om.rps(y, P, reduction="none")
    assert s[0] != s[1]  # 0.225 and 0.22499999999999998, both 9/40 in real numbers
    curve = om.retention_curve(y, P, by="rps", metric="expected_cost", fractions=[1.0, 0.5])
    # tie: the original order decides, row 0 (cost 0) is kept
    np.testing.assert_array_equal(curve.values, [0.5, 0.0])
    # the same as the exact tie passed by the caller
    exact = om.retention_curve(y, P, by=[0.225, 0.225], metric="expected_cost", fractions=[1, 0.5])
    np.testing.assert_array_equal(curve.values, exact.values)


def test_retention_scores_passed_by_the_caller_are_compared_exactly():
    P = np.array([[0.4, 0.3, 0.3], [0.3, 0.1, 0.6]])
    by = [0.225, 0.22499999999999998]
    curve = om.retention_curve([0, 1], P, by=by, metric="expected_cost", fractions=[1, 0.5])
    np.testing.assert_array_equal(curve.values, [0.5, 1.0])


def test_ranking_one_d_scores_of_the_caller_are_compared_exactly():
    assert om.c_index([0, 1], [1e-20, 2e-20]) == 1.0
    assert om.c_index([0, 1], [1.2, 1.2000000000000002]) == 1.0


def test_uniform_bin_edge_reproducer():
    # 0.57 * 100 = 56.99999999999999 in float64; 0.57 lies on the edge 57/100
    r = om.reliability([1], [[0.43, 0.57]], n_bins=100)
    assert r.weight[57] == 1.0


# --------------------------------------------------------------------------------------------
# Section 3 reproducers: weights at the extremes
# --------------------------------------------------------------------------------------------

P3 = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6]])
Y3 = np.array([0, 2, 1])


def test_rps_with_weights_near_the_float_maximum():
    expected = om.rps(Y3, P3)
    assert expected > 0.08
    assert om.rps(Y3, P3, sample_weight=[1e308] * 3) == pytest.approx(expected, rel=1e-15)
    assert om.rps(Y3, P3, sample_weight=[1e308] * 3, reduction="sum") == pytest.approx(
        3e308 * expected if 3e308 * expected < 1.8e308 else expected * 3 * 1e308, rel=1e-15
    )


def test_huge_weights_in_rank_and_agreement_metrics():
    y, P, y_pred, _ = _data(1, n=40, k=3)
    w = np.full(y.size, 1e200)
    assert om.spearman(y, P, sample_weight=w) == pytest.approx(om.spearman(y, P), rel=1e-13)
    assert om.c_index(y, P, sample_weight=w) == pytest.approx(om.c_index(y, P), rel=1e-13)
    assert om.kendall_tau(y, P, sample_weight=w) == pytest.approx(om.kendall_tau(y, P), rel=1e-13)
    assert om.qwk(y, y_pred, sample_weight=w) == pytest.approx(om.qwk(y, y_pred), rel=1e-13)


def test_subnormal_weights():
    y, P, y_pred, _ = _data(2, n=40, k=3)
    w = np.full(y.size, 1e-320)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no false warning, no ZeroDivisionError
        for name in METRICS:
            got = _call(name, y, P, y_pred, w)
            want = _call(name, y, P, y_pred, None)
            assert _same(got, want, 1e-13), name
        assert om.rps(Y3, P3, sample_weight=[1e-320] * 3) == pytest.approx(om.rps(Y3, P3))


def test_quantile_ece_is_scale_free():
    y = [0, 0, 1]
    P = [[0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]
    w = np.array([1.0, 3.0, 2.0])
    # confidences 0.8 (w 1), 0.6 (w 3), 0.7 (w 2); W = 6, B = 2: W_{<0.7} / W = 1/2 exactly,
    # so 0.7 goes to bin 1 (docs/definitions.md: bin min(floor(B W_{<v} / W), B - 1)).
    # Bin 0 = {0.6}: correct, gap 0.4; bin 1 = {0.7, 0.8}: both wrong, mean confidence 2.2 / 3.
    expected = 3 / 6 * 0.4 + 3 / 6 * (2.2 / 3)
    for scale in (1.0, 0.3, 1e-300, 1e300, 3e-320):
        got = om.ece(y, P, n_bins=2, strategy="quantile", sample_weight=scale * w)
        assert got == pytest.approx(expected, rel=1e-12), scale


def test_weight_valued_outputs_stay_in_the_callers_units():
    y, P, _, w = _data(3, n=50, k=3)
    r = om.reliability(y, P, n_bins=5, sample_weight=w * 1e250)
    assert r.total_weight == pytest.approx(w.sum() * 1e250, rel=1e-14)
    np.testing.assert_allclose(
        r.weight, om.reliability(y, P, n_bins=5, sample_weight=w).weight * 1e250, rtol=1e-14
    )
    c = om.retention_curve(y, P, sample_weight=w * 1e-250, n_random=0)
    c0 = om.retention_curve(y, P, sample_weight=w, n_random=0)
    np.testing.assert_allclose(c.n_retained, c0.n_retained * 1e-250, rtol=1e-14)
    assert om.rps(y, P, sample_weight=w * 1e250, reduction="sum") == pytest.approx(
        om.rps(y, P, sample_weight=w, reduction="sum") * 1e250, rel=1e-14
    )


# --------------------------------------------------------------------------------------------
# Class (a): the weights' scale (every registered metric: test_common.py)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-300, 0.3, 1e300, "subnormal"])
def test_retention_curve_is_free_of_the_weight_scale(scale):
    y, P, _, w = _data(4, n=300, k=3)
    if scale == "subnormal":  # exact subnormal weights m 2^-1074 against m 2^-20
        m = np.random.default_rng(4).integers(1, 1000, size=y.size) * 2.0 + 1.0
        w, scale = m * 2.0**-20, 2.0**-1054
    for metric in ("qwk", "expected_cost"):
        base = om.retention_curve(y, P, metric=metric, sample_weight=w, random_state=1, n_random=3)
        got = om.retention_curve(
            y, P, metric=metric, sample_weight=w * scale, random_state=1, n_random=3
        )
        np.testing.assert_allclose(got.values, base.values, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got.random, base.random, rtol=1e-12, atol=1e-14)
        if base.oracle is not None:
            np.testing.assert_allclose(got.oracle, base.oracle, rtol=1e-12, atol=1e-14)


def test_retention_curve_with_weights_near_the_float_maximum():
    y, P, _, w = _data(4, n=300, k=3)
    base = om.retention_curve(y, P, sample_weight=w, n_random=0)
    big = om.retention_curve(y, P, sample_weight=w / w.sum() * 1.5e308, n_random=0)
    np.testing.assert_allclose(big.values, base.values, rtol=1e-12)


def test_confusion_matrix_keeps_weighted_counts():
    y, _, y_pred, w = _data(6, n=30, k=3)
    M = om.confusion_matrix(y, y_pred, sample_weight=w * 1e200)
    np.testing.assert_allclose(
        M, om.confusion_matrix(y, y_pred, sample_weight=w) * 1e200, rtol=1e-14
    )


# --------------------------------------------------------------------------------------------
# Class (b): exact ties in real numbers that float64 computes unequally (tree-model leaves)
# --------------------------------------------------------------------------------------------


def _leaf_rows(seed: int, n: int, k: int = 4, leaf: int = 10):
    """Probabilities that are leaf counts / leaf size, as a tree model gives: many rows with
    equal expected grades, RPS and cumulative forecasts in real numbers."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(leaf, rng.dirichlet(np.ones(k) * 0.7, size=n))
    P = counts / leaf
    y = rng.integers(0, k, size=n)
    return y, P, counts


def _exact_grade(counts, leaf=10):
    return [Fraction(int(c @ np.arange(c.size)), leaf) for c in counts]


def _dense_rank(values) -> np.ndarray:
    order = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([float(order[v]) for v in values])


def test_leaf_rows_have_float_unequal_real_ties():
    _, P, counts = _leaf_rows(0, 200)
    g = P @ np.arange(4.0)
    exact = _exact_grade(counts)
    unequal = [
        (i, j) for i in range(40) for j in range(40) if exact[i] == exact[j] and g[i] != g[j]
    ]
    assert unequal  # the class of input this section is about


def _c_index_pairs(y, exact, w):
    num = den = Fraction(0)
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] < y[j]:
                ww = Fraction(w[i]) * Fraction(w[j])
                den += ww
                num += ww * (
                    1 if exact[i] < exact[j] else Fraction(1, 2) if exact[i] == exact[j] else 0
                )
    return float(num / den)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranking_of_leaf_probabilities_equals_the_exact_ties(seed):
    y, P, counts = _leaf_rows(seed, 150)
    exact = _exact_grade(counts)
    w = np.random.default_rng(seed).integers(1, 5, size=y.size).astype(float)
    want = _c_index_pairs(y, exact, w)
    rank = _dense_rank(exact)  # the exact ties as a 1-D score (compared exactly)
    perm = np.random.default_rng(seed + 10).permutation(y.size)
    for rows in (np.arange(y.size), perm, perm[::-1]):
        assert om.c_index(y[rows], P[rows], sample_weight=w[rows]) == pytest.approx(want, rel=1e-13)
        for name in ("spearman", "kendall_tau"):
            f = getattr(om, name)
            assert f(y[rows], P[rows], sample_weight=w[rows]) == pytest.approx(
                f(y, rank, sample_weight=w), rel=1e-13, abs=1e-15
            )


def test_ranking_of_leaf_probabilities_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    y, P, counts = _leaf_rows(3, 300)
    rank = _dense_rank(_exact_grade(counts))
    assert om.kendall_tau(y, P) == pytest.approx(stats.kendalltau(y, rank).statistic, rel=1e-12)
    assert om.spearman(y, P) == pytest.approx(stats.spearmanr(y, rank).statistic, rel=1e-12)


def test_stream_ranking_of_leaf_probabilities_equals_memory():
    y, P, _ = _leaf_rows(4, 2000)
    ev = Evaluator(["c_index", "spearman", "kendall_tau"])
    for start in range(0, y.size, 300):
        ev.update(y[start : start + 300][::-1], P[start : start + 300][::-1])
    out = ev.compute()
    for name in ("c_index", "spearman", "kendall_tau"):
        assert out.values[name] == pytest.approx(getattr(om, name)(y, P), rel=1e-12)


def _exact_rps(counts, y, leaf=10):
    k = counts.shape[1]
    out = []
    for c, yi in zip(counts, y, strict=True):
        F = Fraction(0)
        s = Fraction(0)
        for j in range(k - 1):
            F += Fraction(int(c[j]), leaf)
            d = F - (1 if yi <= j else 0)
            s += d * d
        out.append(s / (k - 1))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_retention_of_leaf_probabilities_equals_the_exact_ties(seed):
    y, P, counts = _leaf_rows(seed, 1200, k=3)
    exact = _dense_rank(_exact_rps(counts, y))
    s = om.rps(y, P, reduction="none")
    assert len(set(s.tolist())) > len(set(exact.tolist()))  # float64 splits real ties
    w = np.random.default_rng(seed).uniform(0.5, 2.0, size=y.size)
    for metric in ("qwk", "expected_cost", "macro_f1"):
        for sw in (None, w):
            got = om.retention_curve(y, P, by="rps", metric=metric, sample_weight=sw, n_random=0)
            want = om.retention_curve(y, P, by=exact, metric=metric, sample_weight=sw, n_random=0)
            np.testing.assert_array_equal(got.values, want.values)


def _exact_cumulative(counts, leaf=10):
    k = counts.shape[1]
    return [[Fraction(int(c[: j + 1].sum()), leaf) for j in range(k - 1)] for c in counts]


def _exact_cumulative_ece(y, counts, w, n_bins, strategy, leaf=10):
    """Binary ECE of every cumulative event from exact forecasts and the bin rule of
    docs/definitions.md (uniform: min(floor(f B), B - 1); quantile:
    min(floor(B W_{<v} / W), B - 1))."""
    F = _exact_cumulative(counts, leaf)
    k = counts.shape[1]
    W = sum(Fraction(x) for x in w)
    out = []
    for j in range(k - 1):
        f = [row[j] for row in F]
        o = [1 if yi <= j else 0 for yi in y]
        if strategy == "uniform":
            b = [min(math.floor(v * n_bins), n_bins - 1) for v in f]
        else:
            b = []
            for v in f:
                below = sum(Fraction(wi) for wi, u in zip(w, f, strict=True) if u < v)
                b.append(min(math.floor(n_bins * below / W), n_bins - 1))
        total = Fraction(0)
        for bb in set(b):
            rows = [i for i in range(len(f)) if b[i] == bb]
            wb = sum(Fraction(w[i]) for i in rows)
            fb = sum(Fraction(w[i]) * f[i] for i in rows) / wb
            ob = sum(Fraction(w[i]) * o[i] for i in rows) / wb
            total += wb / W * abs(ob - fb)
        out.append(total)
    return float(sum(out) / len(out))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cumulative_ece_of_leaf_probabilities_equals_the_exact_bins(strategy, seed):
    y, P, counts = _leaf_rows(seed, 120)
    w = np.random.default_rng(seed).integers(1, 4, size=y.size).astype(float)
    want = _exact_cumulative_ece(y, counts, w, 10, strategy)
    perm = np.random.default_rng(seed).permutation(y.size)
    for rows in (np.arange(y.size), perm):
        for scale in (1.0, 0.3):
            got = om.cumulative_ece(
                y[rows], P[rows], n_bins=10, strategy=strategy, sample_weight=scale * w[rows]
            )
            assert got == pytest.approx(want, rel=1e-12), (scale, rows[:3])


# --------------------------------------------------------------------------------------------
# The tie rule itself
# --------------------------------------------------------------------------------------------


def test_snap_is_order_independent_and_transitive():
    rng = np.random.default_rng(0)
    base = np.array([0.1, 0.5, 0.5 + 4e-13, 0.5 + 8e-13, 0.7, 0.7 + 2e-12, 3.0, 3.0 * (1 + 5e-13)])
    want = _numerics.snap(base)
    # a chain of neighbours within the tolerance is one group, wider gaps are not merged
    assert want[1] == want[2] == want[3] == 0.5
    assert want[4] != want[5]
    assert want[6] == want[7] == 3.0
    for _ in range(20):
        p = rng.permutation(base.size)
        np.testing.assert_array_equal(_numerics.snap(base[p]), want[p])


def test_rank_order_keeps_positions_within_a_group():
    v = np.array([0.3, 0.2 + 1e-13, 0.2, 0.1])
    np.testing.assert_array_equal(_numerics.rank_order(v), [3, 1, 2, 0])


def test_bin_of_fraction_edges():
    v = np.array([0.57, 0.0, 1.0, 1.0 + 1e-15, 0.5 - 2e-12, 0.5 - 5e-13])
    np.testing.assert_array_equal(_numerics.bin_of_fraction(v, 100), [57, 0, 99, 99, 49, 50])


def test_scale_weights_is_exact():
    w = np.array([3.0, 1e-320, 0.0, 7.5])
    ws, e = _numerics.scale_weights(w)
    assert 0.5 <= ws.max() < 1.0
    np.testing.assert_array_equal(np.ldexp(ws, e), w)
    ws, e = _numerics.scale_weights(np.array([5e-324, 1e-322]))
    assert 0.5 <= ws.max() < 1.0 and e < -1000


@pytest.mark.parametrize("rows", [[0, 1, 2], [1, 0, 2]])
def test_worst_predictions_near_tie_takes_the_later_row(rows):
    # rows 0 and 1 have RPS 9/40 (0.225 and 0.22499999999999998): a tie, the later row is worse
    P = np.array([[0.4, 0.3, 0.3], [0.3, 0.1, 0.6], [0.8, 0.1, 0.1]])[rows]
    y = np.array([0, 1, 0])[rows]
    assert om.worst_predictions(y, P, k=1).index.tolist() == [1]
    assert om.worst_predictions(y, P, k=2).index.tolist() == [1, 0]


def test_decomposition_with_one_bin_per_value_ties_leaf_forecasts():
    y, P, counts = _leaf_rows(5, 300)
    d = om.rps_decomposition(y, P, n_bins=None)
    assert d.check()
    assert abs(d.within_bin_variance) < 1e-20 and abs(d.within_bin_covariance) < 1e-12
    # the parts of the exact forecasts: one bin per distinct rational F_k
    F = _exact_cumulative(counts)
    k = counts.shape[1]
    rel = res = Fraction(0)
    n = len(y)
    for j in range(k - 1):
        o = [1 if yi <= j else 0 for yi in y]
        base = Fraction(sum(o), n)
        for v in {row[j] for row in F}:
            rows = [i for i in range(n) if F[i][j] == v]
            ob = Fraction(sum(o[i] for i in rows), len(rows))
            rel += Fraction(len(rows), n) * (v - ob) ** 2
            res += Fraction(len(rows), n) * (ob - base) ** 2
    assert d.reliability == pytest.approx(float(rel / (k - 1)), rel=1e-12)
    assert d.resolution == pytest.approx(float(res / (k - 1)), rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    leaf=st.integers(2, 12),
    k=st.integers(3, 6),
)
def test_ranking_of_leaf_probabilities_hypothesis(seed, leaf, k):
    y, P, counts = _leaf_rows(seed, 80, k=k, leaf=leaf)
    if len(set(y.tolist())) < 2:
        return
    rank = _dense_rank(_exact_grade(counts, leaf))
    perm = np.random.default_rng(seed).permutation(y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for name in ("c_index", "spearman", "kendall_tau"):
            f = getattr(om, name)
            want = f(y, rank)
            for rows in (np.arange(y.size), perm):
                got = f(y[rows], P[rows])
                assert _same(got, want, 1e-12) or abs(got - want) < 1e-15, (name, got, want)
