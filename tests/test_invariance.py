"""The input containers, dtypes and label forms every scoring rule accepts.

Every test runs for each rule the registry lists as a scoring rule. The properties common to
every registered metric (weights, row order, string labels, ordered categoricals, Enums) are
in ``test_common.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics
from conftest import SCORING_RULES, make_data

N = 40
K = 4
GRADES = ["grade_a", "grade_b", "grade_c", "grade_d"]


@pytest.fixture(params=SCORING_RULES)
def rule(request):
    return ordmetrics.get_metric(request.param).func


@pytest.fixture
def data(rng):
    return make_data(rng, N, K)


def assert_same(got, expected, rel=1e-15):
    """Equal as Python floats or float64 arrays, up to ``rel``."""
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, expected, rtol=rel, atol=0)
    else:
        assert isinstance(got, float)
        assert got == pytest.approx(expected, rel=rel, abs=0)


def test_scoring_rule_list_comes_from_the_registry():
    registered = [
        n for n in ordmetrics.list_metrics() if ordmetrics.get_metric(n).kind == "scoring_rule"
    ]
    assert SCORING_RULES == registered
    assert SCORING_RULES  # the tests below run on at least one rule
    for name in SCORING_RULES:
        assert ordmetrics.get_metric(name).kind == "scoring_rule"


# --------------------------------------------------------------------------------------------
# Order, labels, weights
# --------------------------------------------------------------------------------------------


def test_integer_labels_numbered_from_one(rule, data):
    y, P = data
    assert_same(rule(y + 1, P, labels=[1, 2, 3, 4]), rule(y, P))
    assert_same(
        rule(10 * y, P, labels=[0, 10, 20, 30], reduction="none"), rule(y, P, reduction="none")
    )


def test_labels_are_taken_in_the_given_order_not_sorted(rule, rng):
    y, P = make_data(rng, 30, 3)
    order = ["severe", "mild", "moderate"]
    names = np.array(order, dtype=object)[y]
    expected = rule(y, P)
    assert_same(rule(names, P, labels=order), expected)
    assert_same(rule(list(names), P, labels=order, reduction="none"), rule(y, P, reduction="none"))
    sorted_codes = np.array([sorted(order).index(v) for v in names])
    assert rule(sorted_codes, P) != pytest.approx(expected, rel=1e-6)


def test_descending_integer_labels_are_not_sorted(rule, data):
    y, P = data
    labels = [30, 20, 10, 0]
    values = np.array(labels)[y]
    assert_same(rule(values, P, labels=labels), rule(y, P))


def test_weights_in_containers(rule, data, rng):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    y, P = data
    w = rng.integers(1, 4, size=N)
    expected = rule(y, P, sample_weight=w)
    assert_same(rule(y, P, sample_weight=w.tolist()), expected)
    assert_same(rule(y, P, sample_weight=pd.Series(w)), expected)
    assert_same(rule(y, P, sample_weight=pl.Series(w)), expected)


# --------------------------------------------------------------------------------------------
# Containers and dtypes: all give the number of the canonical numpy call
# --------------------------------------------------------------------------------------------


def test_python_lists(rule, data):
    y, P = data
    assert_same(rule(y.tolist(), P.tolist()), rule(y, P))
    assert_same(rule(y.tolist(), P.tolist(), reduction="none"), rule(y, P, reduction="none"))


def test_tuples(rule, data):
    y, P = data
    assert_same(rule(tuple(y.tolist()), tuple(map(tuple, P.tolist()))), rule(y, P))


def test_pandas_series_and_dataframe(rule, data):
    pd = pytest.importorskip("pandas")
    y, P = data
    frame = pd.DataFrame(P, columns=GRADES, index=np.arange(100, 100 + N))
    truth = pd.Series(y, index=np.arange(500, 500 + N), name="grade")
    assert_same(rule(truth, frame), rule(y, P))
    assert_same(rule(truth, frame, reduction="none"), rule(y, P, reduction="none"))
    assert_same(rule(y, frame), rule(y, P))
    assert_same(rule(truth, P), rule(y, P))


def test_pandas_string_series_with_labels(rule, data):
    pd = pytest.importorskip("pandas")
    y, P = data
    truth = pd.Series(np.array(GRADES, dtype=object)[y])
    assert_same(rule(truth, pd.DataFrame(P), labels=GRADES), rule(y, P))
    assert_same(rule(truth.astype("string"), P, labels=GRADES), rule(y, P))


def test_polars_series_and_dataframe(rule, data):
    pl = pytest.importorskip("polars")
    y, P = data
    frame = pl.DataFrame({g: P[:, j] for j, g in enumerate(GRADES)})
    truth = pl.Series("grade", y)
    assert_same(rule(truth, frame), rule(y, P))
    assert_same(rule(truth, frame, reduction="none"), rule(y, P, reduction="none"))
    assert_same(rule(y, frame), rule(y, P))
    assert_same(rule(truth, P), rule(y, P))


def test_polars_string_series_with_labels(rule, data):
    pl = pytest.importorskip("polars")
    y, P = data
    truth = pl.Series("grade", [GRADES[c] for c in y])
    assert_same(rule(truth, P, labels=GRADES), rule(y, P))


def test_pandas_ordered_categorical_with_unused_category(rule, rng):
    pd = pytest.importorskip("pandas")
    y, P = make_data(rng, 30, 4)
    y = np.where(y == 2, 1, y)
    order = ["a", "b", "c", "d"]
    cat = pd.Categorical(np.array(order, dtype=object)[y], categories=order, ordered=True)
    assert_same(rule(cat, P), rule(y, P))


def test_pandas_unordered_categorical_truth_with_labels(rule, data):
    pd = pytest.importorskip("pandas")
    y, P = data
    order = ["severe", "mild", "moderate", "none"]
    cat = pd.Categorical(np.array(order, dtype=object)[y], ordered=False)
    assert_same(rule(cat, P, labels=order), rule(y, P))
    assert_same(rule(pd.Series(cat), P, labels=order), rule(y, P))


def test_polars_categorical_truth_with_labels(rule, data):
    pl = pytest.importorskip("polars")
    y, P = data
    order = ["severe", "mild", "moderate", "none"]
    truth = pl.Series("grade", [order[c] for c in y], dtype=pl.Categorical)
    assert_same(rule(truth, P, labels=order), rule(y, P))
    assert_same(rule(truth, P, labels=order, reduction="none"), rule(y, P, reduction="none"))


def test_one_column_dataframe_as_truth(rule, data):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    y, P = data
    assert_same(rule(pd.DataFrame({"grade": y}), P), rule(y, P))
    assert_same(rule(pl.DataFrame({"grade": y}), P), rule(y, P))


def test_column_vector_truth(rule, data):
    y, P = data
    assert_same(rule(y.reshape(-1, 1), P), rule(y, P))


def test_fortran_ordered_proba(rule, data):
    y, P = data
    F = np.asfortranarray(P)
    assert not F.flags.c_contiguous
    assert_same(rule(y, F), rule(y, P))
    assert_same(rule(y, F, reduction="none"), rule(y, P, reduction="none"))


def test_non_contiguous_proba(rule, data):
    y, P = data
    wide = np.zeros((2 * N, 2 * K))
    wide[::2, ::2] = P
    strided = wide[::2, ::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(strided, P)
    assert_same(rule(y, strided), rule(y, P))
    assert_same(rule(y, strided, reduction="none"), rule(y, P, reduction="none"))


def test_non_contiguous_truth_and_weights(rule, data, rng):
    y, P = data
    y_wide = np.repeat(y, 2)[::2]
    w = rng.uniform(0.5, 1.5, size=N)
    w_wide = np.repeat(w, 2)[::2]
    assert not y_wide.flags.c_contiguous
    assert_same(rule(y_wide, P, sample_weight=w_wide), rule(y, P, sample_weight=w))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint64])
def test_small_and_unsigned_integer_truth(rule, data, dtype):
    y, P = data
    assert_same(rule(y.astype(dtype), P), rule(y, P))
    assert_same(rule(y.astype(dtype), P, reduction="none"), rule(y, P, reduction="none"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_truth_with_integer_values(rule, data, dtype):
    y, P = data
    assert_same(rule(y.astype(dtype), P), rule(y, P))
    assert_same(rule(y.astype(float).tolist(), P), rule(y, P))


def test_float32_proba_is_close_to_float64(rule, data):
    y, P = data
    P32 = P.astype(np.float32)
    assert rule(y, P32) == pytest.approx(rule(y, P), rel=1e-6, abs=1e-6)
    np.testing.assert_allclose(
        rule(y, P32, reduction="none"), rule(y, P, reduction="none"), rtol=1e-6, atol=1e-6
    )


def test_float32_proba_equals_its_float64_upcast(rule, data):
    y, P = data
    P32 = P.astype(np.float32)
    assert rule(y, P32) == pytest.approx(rule(y, P32.astype(np.float64)), rel=1e-12)


def test_integer_proba_of_hard_predictions(rule):
    y = [0, 1, 2]
    P = np.eye(3, dtype=np.int64)
    assert_same(rule(y, P), rule(y, P.astype(float)))


@pytest.mark.parametrize("name", SCORING_RULES)
def test_read_only_inputs_give_the_same_result(name):
    rng = np.random.default_rng(5)
    y, P = make_data(rng, 50, 4)
    w = rng.uniform(0.5, 2, 50)
    expected = getattr(ordmetrics, name)(y, P, sample_weight=w)
    for a in (y, P, w):
        a.setflags(write=False)
    assert getattr(ordmetrics, name)(y, P, sample_weight=w) == expected
