"""Ranking metrics (c_index, spearman, kendall_tau) against independent computations.

The references below are literal O(N^2) loops over pairs of rows written from docs/definitions.md
section 3 and the frequency-weight convention (a row of weight w forms w (w - 1) / 2 pairs with
itself); they use nothing from ``ordmetrics``. scipy and scikit-learn are used where they
compute the same quantity.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import ordmetrics
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.metrics.ranking import c_index, kendall_tau, spearman

METRICS = {"c_index": c_index, "spearman": spearman, "kendall_tau": kendall_tau}
RTOL = 1e-10


# --------------------------------------------------------------------------------------------
# Brute-force references
# --------------------------------------------------------------------------------------------


def _weights(n, w):
    return [1.0] * n if w is None else [float(v) for v in w]


def ref_c_index(y, s, w=None) -> float:
    n = len(y)
    w = _weights(n, w)
    num = den = 0.0
    for i in range(n):
        for j in range(n):
            if y[i] < y[j]:
                ww = w[i] * w[j]
                den += ww
                if s[i] < s[j]:
                    num += ww
                elif s[i] == s[j]:
                    num += 0.5 * ww
    return num / den


def ref_kendall_tau(y, s, w=None) -> float:
    n = len(y)
    w = _weights(n, w)
    n0 = n1 = n2 = conc = disc = 0.0
    for i in range(n):
        self_pairs = w[i] * (w[i] - 1) / 2  # a row of weight w is w tied copies
        n0 += self_pairs
        n1 += self_pairs
        n2 += self_pairs
        for j in range(i + 1, n):
            ww = w[i] * w[j]
            n0 += ww
            if y[i] == y[j]:
                n1 += ww
            if s[i] == s[j]:
                n2 += ww
            sign = (y[i] - y[j]) * (s[i] - s[j])
            if sign > 0:
                conc += ww
            elif sign < 0:
                disc += ww
    return (conc - disc) / math.sqrt((n0 - n1) * (n0 - n2))


def _midranks(x, w):
    n = len(x)
    out = []
    for i in range(n):
        below = sum(w[j] for j in range(n) if x[j] < x[i])
        tied = sum(w[j] for j in range(n) if x[j] == x[i])
        out.append(below + (tied + 1) / 2)
    return out


def ref_spearman(y, s, w=None) -> float:
    n = len(y)
    w = _weights(n, w)
    r, q = _midranks(s, w), _midranks(y, w)
    W = sum(w)
    mr = sum(w[i] * r[i] for i in range(n)) / W
    mq = sum(w[i] * q[i] for i in range(n)) / W
    cov = sum(w[i] * (r[i] - mr) * (q[i] - mq) for i in range(n))
    vr = sum(w[i] * (r[i] - mr) ** 2 for i in range(n))
    vq = sum(w[i] * (q[i] - mq) ** 2 for i in range(n))
    return cov / math.sqrt(vr * vq)


REFS = {"c_index": ref_c_index, "spearman": ref_spearman, "kendall_tau": ref_kendall_tau}


def tied_data(rng, n, k, n_levels=6, weights="none"):
    """Classes 0..k-1 and scores correlated with them, rounded to a few levels (ties)."""
    y = rng.integers(0, k, n)
    s = np.round((y + rng.normal(0, 1.2, n)) * n_levels / k) / n_levels
    if weights == "none":
        return y, s, None
    if weights == "int":
        return y, s, rng.integers(0, 4, n).astype(float)
    w = rng.uniform(0, 3, n)
    w[rng.random(n) < 0.15] = 0.0
    return y, s, w


# --------------------------------------------------------------------------------------------
# Values against the brute-force loops
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
@pytest.mark.parametrize("weights", ["none", "int", "float"])
@pytest.mark.parametrize("k", [2, 3, 5, 9])
def test_against_brute_force(name, weights, k):
    rng = np.random.default_rng(k * 31 + len(weights))
    for n in (7, 40, 90):
        y, s, w = tied_data(rng, n, k, weights=weights)
        got = METRICS[name](y, s, sample_weight=w)
        assert isinstance(got, float)
        assert got == pytest.approx(REFS[name](y.tolist(), s.tolist(), w), rel=RTOL, abs=1e-12)


@pytest.mark.parametrize("name", list(METRICS))
def test_against_brute_force_continuous_scores(name):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 60)
    s = y + rng.normal(0, 2, 60)
    w = rng.uniform(0.1, 2, 60)
    assert METRICS[name](y, s, sample_weight=w) == pytest.approx(
        REFS[name](y.tolist(), s.tolist(), w), rel=RTOL
    )


def test_worked_example():
    y, s = [0, 0, 1, 2], [0.1, 0.4, 0.35, 0.8]
    # pairs with y_i < y_j: (0.1, 0.35) (0.4, 0.35) (0.1, 0.8) (0.4, 0.8) (0.35, 0.8): 4 of 5
    assert c_index(y, s) == 0.8
    # C = 4, D = 1, n0 = 6, n1 = 1, n2 = 0: tau_b = 3 / sqrt(5 * 6)
    assert kendall_tau(y, s) == pytest.approx(3 / math.sqrt(30), rel=1e-15)
    # ranks y: 1.5 1.5 3 4, s: 1 3 2 4
    assert spearman(y, s) == pytest.approx(np.corrcoef([1.5, 1.5, 3, 4], [1, 3, 2, 4])[0, 1])


@pytest.mark.parametrize("name", list(METRICS))
def test_perfect_and_reversed_scores(name):
    y = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    assert METRICS[name](y, y * 2.5 + 1) == 1.0
    low = 0.0 if name == "c_index" else -1.0
    assert METRICS[name](y, -y.astype(float)) == low


def test_constant_score_gives_half_c_index_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert c_index([0, 1, 2, 2], [3.0, 3.0, 3.0, 3.0]) == 0.5


# --------------------------------------------------------------------------------------------
# Against scipy and scikit-learn
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_c_index_is_roc_auc_for_two_classes(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    y = rng.integers(0, 2, n)
    s = np.round(y + rng.normal(0, 1, n), 1)  # many ties
    w = rng.uniform(0, 2, n)
    assert c_index(y, s) == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert c_index(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12
    )


def test_c_index_of_binary_proba_is_roc_auc_of_positive_column():
    rng = np.random.default_rng(1)
    p1 = rng.uniform(0, 1, 500)
    y = (rng.uniform(0, 1, 500) < p1).astype(int)
    P = np.column_stack([1 - p1, p1])
    assert c_index(y, P) == pytest.approx(roc_auc_score(y, p1), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_spearman_and_kendall_equal_scipy_with_heavy_ties(seed):
    rng = np.random.default_rng(seed)
    n = 5000
    y = rng.integers(0, 5, n)
    s = np.round(y + rng.normal(0, 1.5, n))  # ~ a dozen score levels
    assert spearman(y, s) == pytest.approx(stats.spearmanr(y, s).statistic, rel=1e-12)
    assert kendall_tau(y, s) == pytest.approx(
        stats.kendalltau(y, s, variant="b").statistic, rel=1e-12
    )


def test_spearman_and_kendall_equal_scipy_continuous_large():
    rng = np.random.default_rng(11)
    n = 50_000
    y = rng.integers(0, 7, n)
    s = y + rng.normal(0, 3, n)
    assert spearman(y, s) == pytest.approx(stats.spearmanr(y, s).statistic, rel=1e-11)
    assert kendall_tau(y, s) == pytest.approx(
        stats.kendalltau(y, s, variant="b").statistic, rel=1e-11
    )


def test_seed_spearman_formula_is_wrong():
    # Without ties, rho = 1 - 6 sum d^2 / (N (N^2 - 1)); the seed's N (N - 1) is wrong.
    rng = np.random.default_rng(2)
    n = 30
    y = rng.permutation(n)
    s = y + rng.normal(0, 8, n)
    d = stats.rankdata(y) - stats.rankdata(s)
    textbook = 1 - 6 * np.sum(d**2) / (n * (n**2 - 1))
    seed = 1 - 6 * np.sum(d**2) / (n * (n - 1))
    rho = spearman(y, s)
    assert rho == pytest.approx(textbook, rel=1e-12)
    assert abs(rho - seed) > 0.5
    # With ties (ordinal truth) even the textbook formula is wrong: Pearson of mid-ranks is right.
    y5 = rng.integers(0, 3, 200)
    s5 = y5 + rng.normal(0, 1, 200)
    d5 = stats.rankdata(y5) - stats.rankdata(s5)
    textbook5 = 1 - 6 * np.sum(d5**2) / (200 * (200**2 - 1))
    rho5 = spearman(y5, s5)
    assert rho5 == pytest.approx(stats.spearmanr(y5, s5).statistic, rel=1e-12)
    assert abs(rho5 - textbook5) > 1e-3


# --------------------------------------------------------------------------------------------
# Input forms
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_probability_matrix_is_ranked_by_expected_grade(name):
    rng = np.random.default_rng(9)
    k = 4
    y = rng.integers(0, k, 400)
    P = rng.dirichlet(np.ones(k), 400)
    P[:50] = np.eye(k)[rng.integers(0, k, 50)]  # point masses: tied grades
    w = rng.uniform(0, 2, 400)
    P[50:100] = P[rng.integers(100, 400, 50)]  # duplicated rows must tie
    grade = sum(j * P[:, j] for j in range(k))  # summed over the classes in order
    assert np.unique(grade[50:]).size < 350
    f = METRICS[name]
    assert f(y, P) == f(y, grade)
    assert f(y, P, sample_weight=w) == f(y, grade, sample_weight=w)
    assert f(y, P) == pytest.approx(REFS[name](y.tolist(), grade.tolist()), rel=1e-10)
    assert f(y, P.astype(np.float32)) == pytest.approx(f(y, grade), abs=1e-3)
    assert f(y, pd.DataFrame(P)) == f(y, grade)
    assert f(y, pl.DataFrame(P)) == f(y, grade)


def test_string_labels_in_ordinal_not_alphabetical_order():
    order = ["none", "mild", "moderate", "severe"]
    rng = np.random.default_rng(10)
    codes = rng.integers(0, 4, 300)
    s = codes + rng.normal(0, 1, 300)
    y = np.array(order, dtype=object)[codes]
    for f in METRICS.values():
        assert f(y, s, labels=order) == f(codes, s)
        assert f(list(y), s, labels=order) == f(codes, s)
        # alphabetical order would be a different (wrong) answer
        assert f(y, s, labels=sorted(order)) != f(codes, s)
    P = rng.dirichlet(np.ones(4), 300)
    assert c_index(y, P, labels=order) == c_index(codes, P)


def test_integer_classes_need_not_be_consecutive():
    rng = np.random.default_rng(12)
    codes = rng.integers(0, 3, 200)
    s = np.round(codes + rng.normal(0, 1, 200))
    for values in ([0, 5, 9], [1, 2, 3], [0, 10**12, 10**15]):
        y = np.array(values)[codes]
        for f in METRICS.values():
            assert f(y, s) == f(codes, s)
            assert f(y.astype(float), s) == f(codes, s)


def test_pandas_and_polars_inputs():
    order = ["low", "mid", "high"]
    rng = np.random.default_rng(13)
    codes = rng.integers(0, 3, 100)
    s = codes + rng.normal(0, 1, 100)
    w = rng.uniform(0, 1, 100)
    y_cat = pd.Series(pd.Categorical.from_codes(codes, categories=order, ordered=True))
    y_enum = pl.Series(np.array(order)[codes]).cast(pl.Enum(order))
    for f in METRICS.values():
        expected = f(codes, s, sample_weight=w)
        assert f(pd.Series(codes), pd.Series(s), sample_weight=pd.Series(w)) == expected
        assert f(pl.Series(codes), pl.Series(s), sample_weight=pl.Series(w)) == expected
        assert f(pd.DataFrame({"y": codes}), pd.DataFrame({"s": s}), sample_weight=w) == expected
        assert f(y_cat, s, sample_weight=w) == expected
        assert f(y_enum, s, sample_weight=w) == expected
        assert f(pd.Series(np.array(order)[codes]), s, labels=order, sample_weight=w) == expected


def test_unordered_categorical_without_labels_is_an_error():
    y = pd.Series(pd.Categorical(["low", "high", "low"]))
    with pytest.raises(TypeError, match="labels= was not given"):
        c_index(y, [1.0, 2.0, 3.0])


# --------------------------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_nan_policies(name):
    f = METRICS[name]
    rng = np.random.default_rng(14)
    y, s, w = tied_data(rng, 100, 3, weights="float")
    s_nan, y_nan, w_nan = s.copy(), y.astype(float), w.copy()
    s_nan[3] = np.nan
    y_nan[10] = np.nan
    w_nan[20] = np.nan
    drop = np.ones(100, bool)
    drop[[3, 10, 20]] = False
    with pytest.raises(ValueError, match=r"y_score is missing \(NaN/None\) in row 3.*nan_policy"):
        f(y, s_nan)
    with pytest.raises(ValueError, match=r"y_true is missing \(NaN/None\) in row 10"):
        f(y_nan, s)
    with pytest.raises(ValueError, match=r"sample_weight is missing \(NaN/None\) in row 20"):
        f(y, s, sample_weight=w_nan)
    expected = f(y[drop], s[drop], sample_weight=w[drop])
    assert f(y_nan, s_nan, sample_weight=w_nan, nan_policy="omit") == expected
    assert math.isnan(f(y_nan, s_nan, sample_weight=w_nan, nan_policy="propagate"))
    assert math.isnan(f(y, s_nan, nan_policy="propagate"))
    # missing truth as None, pandas NA and polars null
    y_obj = y.astype(object)
    y_obj[10] = None
    keep = np.arange(100) != 10
    assert f(y_obj, s, nan_policy="omit") == f(y[keep], s[keep])
    y_pd = pd.Series(y, dtype="Int64")
    y_pd[10] = pd.NA
    assert f(y_pd, s, nan_policy="omit") == f(y[keep], s[keep])
    y_pl = pl.Series(y).scatter(10, None)
    assert f(y_pl, s, nan_policy="omit") == f(y[keep], s[keep])
    keep3 = np.arange(100) != 3
    assert f(y, pl.Series(s_nan), nan_policy="omit") == f(y[keep3], s[keep3])
    assert f(y, pd.Series(s_nan, dtype="Float64"), nan_policy="omit") == f(y[keep3], s[keep3])


def test_nan_in_probability_matrix():
    rng = np.random.default_rng(15)
    y = rng.integers(0, 3, 50)
    P = rng.dirichlet(np.ones(3), 50)
    Pn = P.copy()
    Pn[4, 1] = np.nan
    keep = np.arange(50) != 4
    with pytest.raises(ValueError, match=r"y_score has NaN in row 4"):
        spearman(y, Pn)
    assert spearman(y, Pn, nan_policy="omit") == spearman(y[keep], P[keep])
    assert math.isnan(kendall_tau(y, Pn, nan_policy="propagate"))


def test_omit_with_every_row_missing_is_an_error():
    with pytest.raises(ValueError, match="leaves nothing to score"):
        c_index([0, 1], [np.nan, np.nan], nan_policy="omit")
    assert math.isnan(c_index([0, 1], [np.nan, np.nan], nan_policy="propagate"))


def test_propagate_still_validates_the_other_rows():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        c_index([0, 1, 2], [np.nan, 1.0, 2.0], sample_weight=[1, -1, 1], nan_policy="propagate")


# --------------------------------------------------------------------------------------------
# Undefined cases
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_single_class_is_undefined(name):
    with pytest.warns(UndefinedMetricWarning, match=f"{name} is undefined: y_true has a single"):
        assert math.isnan(METRICS[name]([2, 2, 2], [0.1, 0.5, 0.3]))
    # one class left with positive weight
    with pytest.warns(UndefinedMetricWarning, match="single class"):
        assert math.isnan(METRICS[name]([0, 1, 1], [0.1, 0.5, 0.3], sample_weight=[0, 1, 2]))


@pytest.mark.parametrize("name", ["spearman", "kendall_tau"])
def test_constant_score_is_undefined_for_correlations(name):
    with pytest.warns(UndefinedMetricWarning, match=f"{name} is undefined: y_score is constant"):
        assert math.isnan(METRICS[name]([0, 1, 2], [0.5, 0.5, 0.5]))
    with pytest.warns(UndefinedMetricWarning, match="y_score is constant"):
        assert math.isnan(METRICS[name]([0, 1, 2], [0.5, 0.7, 0.5], sample_weight=[1, 0, 3]))


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_invalid_probability_matrix(name):
    f = METRICS[name]
    y = [0, 1, 2]
    bad_sum = [[0.5, 0.5, 0.5], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]
    with pytest.raises(ValueError, match=r"rows of y_score must sum to 1.*row 0") as info:
        f(y, bad_sum)
    assert "renormalize" not in str(info.value)
    assert "y_score.sum(axis=1, keepdims=True)" in str(info.value)
    assert "expected grade" in str(info.value)
    with pytest.raises(ValueError, match=r"y_score must lie in \[0, 1\].*logits"):
        f(y, [[1.5, -0.5, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="y_score has infinite values in row 1"):
        f(y, [[1.0, 0.0, 0.0], [np.inf, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0..2"):
        f([0, 1, 3], [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="labels has 2 entries but y_score has 3 columns"):
        f(["a", "b", "a"], [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], labels=["a", "b"])
    with pytest.raises(ValueError, match="y_true has 2 rows but y_score has 3"):
        f([0, 1], [[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(TypeError, match="y_score must hold numbers"):
        f([0, 1], [["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("name", list(METRICS))
def test_errors_for_scores_truth_and_weights(name):
    f = METRICS[name]
    with pytest.raises(ValueError, match="y_true has 3 rows but y_score has 2"):
        f([0, 1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"y_score must be 1-D \(one score per row\); got shape"):
        f([0, 1], np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"y_score must be 1-D.*shape \(2, 1\)"):
        f([0, 1], np.zeros((2, 1)))
    with pytest.raises(ValueError, match="y_score must be finite; got infinite values in row 1"):
        f([0, 1, 2], [0.1, np.inf, 0.3])
    with pytest.raises(ValueError, match="y_score is empty"):
        f([], [])
    with pytest.raises(TypeError, match="y_score must hold numbers"):
        f([0, 1], ["a", "b"])
    with pytest.raises(ValueError, match=r"y_true has values not in labels: 'severe'.*row 2"):
        f(["low", "high", "severe"], [1.0, 2.0, 3.0], labels=["low", "high"])
    with pytest.raises(TypeError, match=r"y_true holds labels such as 'low'.*labels="):
        f(["low", "high", "low"], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0, 1, 2.*-1.*row 0"):
        f([-1, 0, 1], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="y_true must hold integer class indices"):
        f([0.5, 1, 2], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="y_true is boolean"):
        f([True, False, True], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="labels must be distinct"):
        f([0, 1], [1.0, 2.0], labels=[0, 0])
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative.*row 1.*-2.0"):
        f([0, 1, 2], [1.0, 2.0, 3.0], sample_weight=[1, -2, 1])
    with pytest.raises(ValueError, match="sample_weight must be finite"):
        f([0, 1, 2], [1.0, 2.0, 3.0], sample_weight=[1, np.inf, 1])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        f([0, 1, 2], [1.0, 2.0, 3.0], sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="sample_weight has 2 entries but there are 3 rows"):
        f([0, 1, 2], [1.0, 2.0, 3.0], sample_weight=[1, 1])
    with pytest.raises(TypeError, match=r"sample_weight must (be|hold) numbers"):
        f([0, 1, 2], [1.0, 2.0, 3.0], sample_weight=["a", "b", "c"])
    with pytest.raises(ValueError, match="nan_policy must be one of 'raise', 'omit', 'propagate'"):
        f([0, 1], [1.0, 2.0], nan_policy="ignore")


def test_omitted_rows_are_not_checked_for_negative_classes():
    # the missing code -1 of an omitted row is not a negative class
    assert c_index([np.nan, 0, 1], [1.0, 2.0, 3.0], nan_policy="omit") == 1.0
    with pytest.raises(ValueError, match=r"negative values -3 in row 2"):
        c_index([np.nan, 0, -3], [1.0, 2.0, 3.0], nan_policy="omit")


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(METRICS))
def test_registry_entries(name):
    spec = ordmetrics.get_metric(name)
    assert spec.func is METRICS[name]
    assert spec.kind == "ranking"
    assert spec.direction == "maximize" and spec.greater_is_better
    assert spec.perfect == 1.0
    assert spec.range == ((0.0, 1.0) if name == "c_index" else (-1.0, 1.0))
    assert name in ordmetrics.list_metrics("ranking")
    rng = np.random.default_rng(16)
    lo, hi = spec.range
    for _ in range(20):
        y, s, w = tied_data(rng, 30, 3, weights="float")
        v = spec(y, s, sample_weight=w)
        assert lo <= v <= hi


# --------------------------------------------------------------------------------------------
# Properties (hypothesis)
# --------------------------------------------------------------------------------------------

_rows = st.integers(2, 40)


@st.composite
def ranked_data(draw):
    n = draw(_rows)
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    s = np.array(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), dtype=float)
    w = draw(st.none() | st.lists(st.integers(0, 4), min_size=n, max_size=n))
    w = None if w is None else np.array(w, dtype=float)
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    return y, s, w


def _defined(y, w) -> bool:
    present = y if w is None else y[w > 0]
    return np.unique(present).size > 1


@settings(max_examples=200, deadline=None)
@given(ranked_data(), st.lists(st.floats(1e-3, 1e3), min_size=11, max_size=11))
def test_c_index_invariant_under_increasing_transforms(data, steps):
    y, s, w = data
    if not _defined(y, w):
        return
    # a strictly increasing map of the 11 possible score values -5..5
    table = np.cumsum(steps) - 7.0
    t = table[(s + 5).astype(int)]
    base = c_index(y, s, sample_weight=w)
    assert c_index(y, t, sample_weight=w) == pytest.approx(base, rel=1e-12)
    assert c_index(y, np.exp(s / 3), sample_weight=w) == pytest.approx(base, rel=1e-12)
    assert base + c_index(y, -s, sample_weight=w) == pytest.approx(1.0, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(ranked_data())
def test_all_metrics_match_brute_force(data):
    y, s, w = data
    if not _defined(y, w):
        return
    assert c_index(y, s, sample_weight=w) == pytest.approx(
        ref_c_index(y.tolist(), s.tolist(), w), rel=1e-12
    )
    present = s if w is None else s[w > 0]
    if np.unique(present).size < 2:
        return
    for name in ("spearman", "kendall_tau"):
        assert METRICS[name](y, s, sample_weight=w) == pytest.approx(
            REFS[name](y.tolist(), s.tolist(), w), rel=1e-10, abs=1e-12
        )
