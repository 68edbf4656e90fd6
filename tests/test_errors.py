"""Bad input: every mistake raises a clear error naming the argument, the problem and the fix."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import ordmetrics
from conftest import SCORING_RULES

Y = [0, 1, 2]
P = [[0.2, 0.5, 0.3], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4]]


@pytest.fixture(params=SCORING_RULES)
def rule(request):
    return ordmetrics.get_metric(request.param).func


def assert_mentions(excinfo: pytest.ExceptionInfo, *patterns: str) -> None:
    message = str(excinfo.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not found in: {message}"


def with_row(row, index: int = 1):
    out = [list(r) for r in P]
    out[index] = row
    return out


# --------------------------------------------------------------------------------------------
# y_proba
# --------------------------------------------------------------------------------------------


def test_rows_not_summing_to_one(rule):
    with pytest.raises(ValueError, match=r"rows of y_proba must sum to 1") as excinfo:
        rule(Y, with_row([0.3, 0.3, 0.3]))
    assert_mentions(excinfo, r"\brow 1\b", r"tolerance 1e-0?6", r"renormalize=True", r"0\.9\b")


@pytest.mark.parametrize("nan_policy", ["omit", "propagate"])
def test_rows_not_summing_to_one_raise_under_every_nan_policy(rule, nan_policy):
    with pytest.raises(ValueError, match=r"must sum to 1"):
        rule(Y, with_row([0.3, 0.3, 0.3]), nan_policy=nan_policy)


def test_probabilities_outside_unit_interval(rule):
    with pytest.raises(ValueError, match=r"y_proba must lie in \[0, 1\]") as excinfo:
        rule(Y, with_row([1.2, -0.2, 0.0]))
    assert_mentions(excinfo, r"\brow 1\b", r"softmax", r"never clips")


def test_nan_in_proba_with_default_policy(rule):
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 1\b") as excinfo:
        rule(Y, with_row([math.nan, 0.5, 0.5]))
    assert_mentions(excinfo, r"nan_policy='omit'", r"nan_policy='propagate'")


def test_nan_in_float_truth_with_default_policy(rule):
    with pytest.raises(ValueError, match=r"y_true is missing in row 1\b") as excinfo:
        rule([0.0, math.nan, 2.0], P)
    assert_mentions(excinfo, r"nan_policy='omit'")


def test_none_in_truth_with_labels_and_default_policy(rule):
    with pytest.raises(ValueError, match=r"y_true is missing in row 2\b") as excinfo:
        rule(["a", "b", None], P, labels=["a", "b", "c"])
    assert_mentions(excinfo, r"nan_policy='omit'")


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinite_proba(rule, value):
    with pytest.raises(ValueError, match=r"y_proba has infinite values in row 1\b") as excinfo:
        rule(Y, with_row([value, 0.0, 0.0]))
    assert_mentions(excinfo, r"finite")


def test_infinite_proba_raises_under_omit(rule):
    with pytest.raises(ValueError, match=r"infinite"):
        rule(Y, with_row([math.inf, 0.0, 0.0]), nan_policy="omit")


def test_one_dimensional_proba(rule):
    with pytest.raises(ValueError, match=r"y_proba must be 2-D") as excinfo:
        rule([0, 1, 1], [0.2, 0.7, 0.9])
    assert_mentions(excinfo, r"1-D", r"column_stack")


def test_three_dimensional_proba(rule):
    with pytest.raises(ValueError, match=r"y_proba must be 2-D"):
        rule(Y, np.full((3, 2, 2), 0.25))


def test_single_column_proba(rule):
    with pytest.raises(ValueError, match=r"at least 2 columns") as excinfo:
        rule([0, 0, 0], [[1.0], [1.0], [1.0]])
    assert_mentions(excinfo, r"y_proba", r"got 1\b")


def test_empty_input(rule):
    with pytest.raises(ValueError, match=r"empty"):
        rule([], np.empty((0, 3)))


def test_non_numeric_proba(rule):
    with pytest.raises(TypeError, match=r"y_proba must hold numbers"):
        rule(Y, [["a", "b", "c"]] * 3)


def test_renormalize_rejects_negative_values(rule):
    with pytest.raises(ValueError, match=r"negative values in row 1\b") as excinfo:
        rule(Y, with_row([1.2, -0.2, 0.0]), renormalize=True)
    assert_mentions(excinfo, r"renormalize=True")


def test_renormalize_rejects_all_zero_rows(rule):
    with pytest.raises(ValueError, match=r"sums to 0 in row 1\b"):
        rule(Y, with_row([0.0, 0.0, 0.0]), renormalize=True)


# --------------------------------------------------------------------------------------------
# y_true and labels
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [3, -1])
def test_truth_outside_class_range(rule, bad):
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0\.\.2") as excinfo:
        rule([0, bad, 2], P)
    assert_mentions(excinfo, rf"got {bad}\b", r"\brow 1\b", r"3 columns", r"labels=")


@pytest.mark.parametrize(("bad", "shown"), [(math.inf, r"inf"), (1e20, r"1e\+20")])
def test_truth_with_huge_float_value_names_that_value(rule, bad, shown):
    with pytest.raises(ValueError, match=r"y_true") as excinfo:
        rule([0.0, bad, 2.0], P)
    assert_mentions(excinfo, shown, r"\brow 1\b")
    assert "4611686018427387904" not in str(excinfo.value)


def test_non_integer_numeric_truth(rule):
    with pytest.raises(ValueError, match=r"y_true must hold integer class indices") as excinfo:
        rule([0, 1.5, 2], P)
    assert_mentions(excinfo, r"1\.5", r"\brow 1\b", r"labels=")


def test_truth_not_in_labels(rule):
    with pytest.raises(ValueError, match=r"y_true has values not in labels: 'x'") as excinfo:
        rule(["a", "x", "c"], P, labels=["a", "b", "c"])
    assert_mentions(excinfo, r"\brow 1\b", r"\['a', 'b', 'c'\]")


def test_numeric_truth_not_in_numeric_labels(rule):
    with pytest.raises(ValueError, match=r"y_true has values not in labels: 7") as excinfo:
        rule([1, 7, 3], P, labels=[1, 2, 3])
    assert_mentions(excinfo, r"\brow 1\b")


def test_duplicate_labels(rule):
    with pytest.raises(ValueError, match=r"labels must be distinct") as excinfo:
        rule(["a", "b", "a"], P, labels=["a", "b", "a"])
    assert_mentions(excinfo, r"'a'")


@pytest.mark.parametrize("labels", [["a", "b"], ["a", "b", "c", "d"]])
def test_labels_length_differs_from_number_of_columns(rule, labels):
    with pytest.raises(ValueError, match=rf"labels has {len(labels)} entries") as excinfo:
        rule(["a", "b", "a"], P, labels=labels)
    assert_mentions(excinfo, r"y_proba has 3 columns")


def test_labels_given_as_a_string(rule):
    with pytest.raises(TypeError, match=r"labels must be a list"):
        rule(["a", "b", "c"], P, labels="abc")


def test_length_mismatch(rule):
    with pytest.raises(ValueError, match=r"y_true has 2 rows but y_proba has 3"):
        rule([0, 1], P)


def test_string_truth_without_labels(rule):
    with pytest.raises(TypeError, match=r"labels= was not given") as excinfo:
        rule(["low", "high", "mid"], P)
    assert_mentions(excinfo, r"'low'", r"never sorted", r"pass labels=\[")


def test_object_string_truth_without_labels(rule):
    with pytest.raises(TypeError, match=r"labels= was not given"):
        rule(np.array(["low", "high", "mid"], dtype=object), P)


def test_boolean_truth(rule):
    with pytest.raises(TypeError, match=r"y_true is boolean") as excinfo:
        rule([True, False, True], P)
    assert_mentions(excinfo, r"labels=\[False, True\]", r"astype\(int\)")


def test_one_hot_truth(rule):
    with pytest.raises(ValueError, match=r"y_true must be 1-D") as excinfo:
        rule(np.eye(3, dtype=int), P)
    assert_mentions(excinfo, r"One-hot")


def test_ordered_categorical_contradicting_labels(rule):
    pd = pytest.importorskip("pandas")
    truth = pd.Categorical(["low", "mid", "high"], categories=["low", "mid", "high"], ordered=True)
    with pytest.raises(ValueError, match=r"ordered categorical whose order") as excinfo:
        rule(truth, P, labels=["high", "mid", "low"])
    assert_mentions(excinfo, r"contradicts labels=", r"labels=None")


def test_polars_enum_contradicting_labels(rule):
    pl = pytest.importorskip("polars")
    truth = pl.Series(["low", "mid", "high"], dtype=pl.Enum(["low", "mid", "high"]))
    with pytest.raises(ValueError, match=r"contradicts labels="):
        rule(truth, P, labels=["mid", "low", "high"])


def test_ordered_categorical_with_wrong_number_of_categories(rule):
    pd = pytest.importorskip("pandas")
    truth = pd.Categorical(["a", "b", "c"], categories=["a", "b", "c", "d"], ordered=True)
    with pytest.raises(ValueError, match=r"ordered categorical with 4 categories") as excinfo:
        rule(truth, P)
    assert_mentions(excinfo, r"3 columns", r"labels=")


def test_pandas_unordered_categorical_without_labels(rule):
    pd = pytest.importorskip("pandas")
    truth = pd.Categorical(["low", "mid", "high"], ordered=False)
    with pytest.raises(TypeError, match=r"labels= was not given"):
        rule(truth, P)


def test_polars_categorical_without_labels(rule):
    pl = pytest.importorskip("polars")
    truth = pl.Series(["low", "mid", "high"], dtype=pl.Categorical)
    with pytest.raises(TypeError, match=r"labels= was not given"):
        rule(truth, P)


def test_multi_column_pandas_frame_as_truth(rule):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"grade": Y, "other": Y})
    with pytest.raises(ValueError, match=r"y_true must be one column") as excinfo:
        rule(frame, P)
    assert_mentions(excinfo, r"2 columns", r"df\['grade'\]")


def test_multi_column_polars_frame_as_truth(rule):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"grade": Y, "other": Y})
    with pytest.raises(ValueError, match=r"y_true must be one column"):
        rule(frame, P)


# --------------------------------------------------------------------------------------------
# sample_weight
# --------------------------------------------------------------------------------------------


def test_negative_weights(rule):
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative") as excinfo:
        rule(Y, P, sample_weight=[1.0, -2.0, 1.0])
    assert_mentions(excinfo, r"\brow 1\b", r"-2\.0")


def test_nan_weights_with_default_policy(rule):
    with pytest.raises(ValueError, match=r"sample_weight is NaN in row 1\b") as excinfo:
        rule(Y, P, sample_weight=[1.0, math.nan, 1.0])
    assert_mentions(excinfo, r"nan_policy='omit'")


def test_infinite_weights(rule):
    with pytest.raises(ValueError, match=r"sample_weight must be finite") as excinfo:
        rule(Y, P, sample_weight=[1.0, math.inf, 1.0])
    assert_mentions(excinfo, r"\brow 1\b")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("nan_policy", ["raise", "omit", "propagate"])
def test_all_zero_weights(rule, nan_policy, reduction):
    with pytest.raises(ValueError, match=r"sample_weight sums to 0") as excinfo:
        rule(Y, P, sample_weight=[0.0, 0.0, 0.0], nan_policy=nan_policy, reduction=reduction)
    assert_mentions(excinfo, r"positive weight")


def test_zero_weights_left_after_omit(rule):
    with pytest.raises(ValueError, match=r"sample_weight sums to 0"):
        rule(Y, with_row([math.nan, 0.5, 0.5]), sample_weight=[0.0, 1.0, 0.0], nan_policy="omit")


@pytest.mark.parametrize("weights", [[1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
def test_wrongly_sized_weights(rule, weights):
    with pytest.raises(ValueError, match=rf"sample_weight has {len(weights)} entries") as excinfo:
        rule(Y, P, sample_weight=weights)
    assert_mentions(excinfo, r"3 rows", r"one weight per row")


def test_two_dimensional_weights(rule):
    with pytest.raises(ValueError, match=r"sample_weight must be 1-D"):
        rule(Y, P, sample_weight=[[1.0, 1.0, 1.0]])


def test_non_numeric_weights(rule):
    with pytest.raises(TypeError, match=r"sample_weight must be numbers"):
        rule(Y, P, sample_weight=["a", "b", "c"])


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["avg", "MEAN", None])
def test_unknown_reduction(rule, reduction):
    with pytest.raises(ValueError, match=r"reduction must be one of 'mean', 'sum', 'none'"):
        rule(Y, P, reduction=reduction)


@pytest.mark.parametrize("nan_policy", ["ignore", "drop", None])
def test_unknown_nan_policy(rule, nan_policy):
    with pytest.raises(
        ValueError, match=r"nan_policy must be one of 'raise', 'omit', 'propagate'"
    ) as excinfo:
        rule(Y, P, nan_policy=nan_policy)
    assert_mentions(excinfo, re.escape(repr(nan_policy)))


@pytest.mark.parametrize("eps", [0, 0.0, -1e-3, 0.5, 1.0, math.nan, True, "1e-15"])
def test_log_loss_eps_out_of_range(eps):
    with pytest.raises(ValueError, match=r"eps must be None") as excinfo:
        ordmetrics.log_loss(Y, P, eps=eps)
    assert_mentions(excinfo, r"\(0, 0\.5\)")


def test_every_row_missing_under_omit(rule):
    with pytest.raises(ValueError, match=r"leaves nothing to score"):
        rule(Y, [[math.nan] * 3] * 3, nan_policy="omit")


def test_every_weight_missing_under_omit(rule):
    with pytest.raises(ValueError, match=r"leaves nothing to score"):
        rule(Y, P, sample_weight=[math.nan] * 3, nan_policy="omit")


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("typo", "suggestion"), [("rsp", "rps"), ("brir", "brier")])
def test_get_metric_with_unknown_name_suggests_close_match(typo, suggestion):
    with pytest.raises(ValueError, match=rf"unknown metric '{typo}'") as excinfo:
        ordmetrics.get_metric(typo)
    assert_mentions(excinfo, rf"Did you mean '{suggestion}'", r"Available: .*\brps\b")


def test_get_metric_with_non_string():
    with pytest.raises(TypeError, match=r"metric name must be a string"):
        ordmetrics.get_metric(3)


# --------------------------------------------------------------------------------------------
# Many bad rows: at most 5 row numbers, then "and N more"
# --------------------------------------------------------------------------------------------

N_MANY = 12
GOOD_ROW = [0.2, 0.5, 0.3]


def many_bad(kind: str):
    """(y_true, y_proba, kwargs) with rows 0, 2, 4, ..., 20 invalid (11 bad rows of 22)."""
    n = 2 * N_MANY - 2
    y = [1] * n
    proba = [list(GOOD_ROW) for _ in range(n)]
    kwargs: dict = {}
    bad = range(0, n, 2)
    for i in bad:
        if kind == "sum":
            proba[i] = [0.3, 0.3, 0.3]
        elif kind == "range":
            proba[i] = [1.2, -0.2, 0.0]
        elif kind == "nan":
            proba[i] = [math.nan, 0.5, 0.5]
        elif kind == "inf":
            proba[i] = [math.inf, 0.0, 0.0]
        elif kind == "class":
            y[i] = 5
        elif kind == "label":
            kwargs["labels"] = ["a", "b", "c"]
        elif kind == "weight":
            kwargs.setdefault("sample_weight", [1.0] * n)[i] = -1.0
    if kind == "label":
        y = ["x" if i % 2 == 0 else "b" for i in range(n)]
    return y, proba, kwargs


@pytest.mark.parametrize("kind", ["sum", "range", "nan", "inf", "class", "label", "weight"])
def test_many_bad_rows_are_listed_briefly(rule, kind):
    y, proba, kwargs = many_bad(kind)
    with pytest.raises(ValueError) as excinfo:
        rule(y, proba, **kwargs)
    assert_mentions(excinfo, r"\brows 0, 2, 4, 6, 8 and 6 more\b")
    assert "10," not in str(excinfo.value)
