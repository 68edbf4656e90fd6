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
    # K = 3: max(1e-6, 3 (5e-7 + 4 eps))
    assert_mentions(excinfo, r"\brow 1\b", r"tolerance 1\.5e-0?6", r"renormalize=True", r"0\.9\b")


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
    with pytest.raises(TypeError, match=r"sample_weight must (be|hold) numbers"):
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


# --------------------------------------------------------------------------------------------
# Labels and types (regressions: each was accepted and gave a number)
# --------------------------------------------------------------------------------------------

P3 = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]])


@pytest.mark.parametrize(
    "labels",
    [{0, 1, 2}, frozenset({0, 1, 2}), {0: "a", 1: "b", 2: "c"}, {0: 1, 1: 1, 2: 1}.keys()],
    ids=["set", "frozenset", "dict", "dict_keys"],
)
def test_unordered_labels_are_a_type_error(rule, labels):
    with pytest.raises(TypeError, match=r"labels must list the class labels in ordinal order"):
        rule([0, 1, 2], P3, labels=labels)


def test_set_labels_message_says_why():
    with pytest.raises(TypeError, match=r"which has no order.*Pass a list, tuple or array"):
        ordmetrics.rps(["a", "b", "c"], P3, labels={"a", "b", "c"})


@pytest.mark.parametrize("base", [2**53, 2**62, -(2**62)])
def test_integer_labels_beyond_2_53_are_matched_exactly(rule, base):
    labels = [base, base + 1, base + 2]  # base + 1 is not a float64
    y = [base + 0, base + 1, base + 2]
    expected = rule([0, 1, 2], P3, reduction="none")
    np.testing.assert_array_equal(rule(y, P3, labels=labels, reduction="none"), expected)
    np.testing.assert_array_equal(
        rule(np.array(y, dtype=np.int64), P3, labels=np.array(labels), reduction="none"),
        expected,
    )


def test_uint64_labels_beyond_2_63_are_matched_exactly(rule):
    labels = [2**63, 2**63 + 1, 2**64 - 1]
    y = np.array(labels, dtype=np.uint64)
    expected = rule([0, 1, 2], P3, reduction="none")
    np.testing.assert_array_equal(rule(y, P3, labels=labels, reduction="none"), expected)
    np.testing.assert_array_equal(
        rule(y[::-1], P3[::-1], labels=labels, reduction="none"), expected[::-1]
    )


def test_uint64_class_index_beyond_int64_is_reported_with_its_value(rule):
    y = np.array([0, 2**63, 1], dtype=np.uint64)
    with pytest.raises(
        ValueError, match=r"y_true must hold class indices 0\.\.2; got 9223372036854775808 in row 1"
    ):
        rule(y, P3)


@pytest.mark.parametrize("big", [2**63, 2**70, -(2**70)])
def test_python_int_beyond_int64_is_a_value_error_not_overflow(rule, big):
    with pytest.raises(
        ValueError, match=rf"y_true must hold class indices 0\.\.2; got {big} in row 1"
    ):
        rule([0, big, 1], P3)


@pytest.mark.parametrize("labels", [[0, math.nan, math.nan], [0, math.nan, 2], [0, 1, None]])
def test_missing_values_in_labels(rule, labels):
    with pytest.raises(ValueError, match=r"labels must not hold missing values"):
        rule([0, 0, 0], P3, labels=labels)


@pytest.mark.parametrize("y", [[0, True, 2], [False, 1, 2], np.array([0, True, 2], dtype=object)])
def test_booleans_mixed_with_integers_in_y_true(rule, y):
    with pytest.raises(TypeError, match=r"y_true mixes booleans with other values"):
        rule(y, P3)


def test_booleans_mixed_with_integers_in_labels(rule):
    with pytest.raises(TypeError, match=r"labels mixes booleans with other values"):
        rule([0, 1, 2], P3, labels=[0, True, 2])


def test_all_boolean_truth_needs_labels(rule):
    P2 = np.array([[0.8, 0.2], [0.3, 0.7], [0.4, 0.6]])
    with pytest.raises(TypeError, match=r"y_true is boolean.*labels=\[False, True\]"):
        rule([False, True, True], P2)
    assert rule([False, True, True], P2, labels=[False, True]) == rule([0, 1, 1], P2)
    assert rule([False, None, True], P2[[0, 2, 2]], labels=[False, True], nan_policy="omit") == (
        rule([0, 1], P2[[0, 2]])
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y_proba": P3.astype(str)}, r"y_proba must hold numbers; got text"),
        (
            {"y_proba": [["0.7", 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]]},
            r"y_proba must hold numbers",
        ),
        ({"y_proba": P3 + 0j}, r"y_proba must be real numbers; got complex"),
        ({"sample_weight": ["1", "2", "3"]}, r"sample_weight must hold numbers; got text"),
        ({"sample_weight": np.ones(3) * (1 + 1j)}, r"sample_weight must be real numbers"),
        (
            {"sample_weight": np.array([1, 2, 3], dtype=object).astype(str)},
            r"sample_weight must hold",
        ),
    ],
)
def test_text_and_complex_numbers_are_type_errors(rule, kwargs, match):
    args = {"y_proba": P3, **kwargs}
    with pytest.raises(TypeError, match=match):
        rule([0, 1, 2], args.pop("y_proba"), **args)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: ordmetrics.expected_cost([0, 1, 2], [0, 1, 1], costs=c),
        lambda c: ordmetrics.decide(P3, "min_cost", costs=c),
        lambda c: ordmetrics.kappa([0, 1, 2], [0, 1, 1], weights=c),
    ],
    ids=["expected_cost", "decide", "kappa"],
)
def test_complex_and_text_cost_matrices(call):
    with pytest.raises(TypeError, match=r"(costs|weights) must be real numbers; got complex"):
        call(np.ones((3, 3)) * 1j)  # was silently 0.0
    with pytest.raises(TypeError, match=r"(costs|weights) must hold numbers; got text"):
        call(np.ones((3, 3)).astype(str))


def test_masked_arrays_are_honoured_as_missing(rule):
    y = np.array([0, 1, 2, 1])
    P = np.vstack([P3, [0.2, 0.5, 0.3]])
    expected = rule(y[[0, 2, 3]], P[[0, 2, 3]])
    masked_p = np.ma.masked_array(P, mask=[[0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 0]])
    masked_y = np.ma.masked_array(y, mask=[0, 1, 0, 0])
    masked_w = np.ma.masked_array(np.ones(4), mask=[0, 1, 0, 0])
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 1"):
        rule(y, masked_p)
    with pytest.raises(ValueError, match=r"y_true is missing in row 1"):
        rule(masked_y, P)
    with pytest.raises(ValueError, match=r"sample_weight is NaN in row 1"):
        rule(y, P, sample_weight=masked_w)
    for kwargs in ({"y_proba": masked_p}, {"y_true": masked_y}, {"sample_weight": masked_w}):
        args = {"y_true": y, "y_proba": P, **kwargs}
        got = rule(args.pop("y_true"), args.pop("y_proba"), nan_policy="omit", **args)
        assert got == pytest.approx(expected, rel=1e-15)
    # nothing masked: the data as they are
    assert rule(np.ma.masked_array(y), np.ma.masked_array(P)) == rule(y, P)


def test_masked_entries_are_missing_for_hard_labels_and_scores():
    y = np.ma.masked_array([0, 1, 2, 1], mask=[0, 0, 1, 0])
    assert ordmetrics.qwk(y, [0, 1, 0, 1], nan_policy="omit") == ordmetrics.qwk(
        [0, 1, 1], [0, 1, 1]
    )
    s = np.ma.masked_array([0.1, 0.9, 0.5, 0.4], mask=[0, 0, 1, 0])
    assert ordmetrics.c_index([0, 2, 0, 1], s, nan_policy="omit") == ordmetrics.c_index(
        [0, 2, 1], [0.1, 0.9, 0.4]
    )


# --------------------------------------------------------------------------------------------
# Flags: only True or False, checked in one place (check_flag)
# --------------------------------------------------------------------------------------------

Y3, YP3 = [0, 1, 2], [0, 1, 1]
FLAG_CALLS = {
    **{
        f"{name}(renormalize)": (lambda f: lambda v: f(Y3, P3, renormalize=v))(
            ordmetrics.get_metric(name).func
        )
        for name in SCORING_RULES
    },
    "rps(normalize)": lambda v: ordmetrics.rps(Y3, P3, normalize=v),
    "cdf_l1(normalize)": lambda v: ordmetrics.cdf_l1(Y3, P3, normalize=v),
    "pseudospherical(renormalize)": lambda v: ordmetrics.pseudospherical(
        Y3, P3, alpha=3.0, renormalize=v
    ),
    "expected_cost(normalize)": lambda v: ordmetrics.expected_cost(Y3, YP3, normalize=v),
    "rps_decomposition(normalize)": lambda v: ordmetrics.rps_decomposition(Y3, P3, normalize=v),
    "rps_decomposition(renormalize)": lambda v: ordmetrics.rps_decomposition(Y3, P3, renormalize=v),
    "brier_decomposition(renormalize)": lambda v: ordmetrics.brier_decomposition(
        Y3, P3, renormalize=v
    ),
    "ece(renormalize)": lambda v: ordmetrics.ece(Y3, P3, renormalize=v),
    "classwise_ece(renormalize)": lambda v: ordmetrics.classwise_ece(Y3, P3, renormalize=v),
    "cumulative_ece(renormalize)": lambda v: ordmetrics.cumulative_ece(Y3, P3, renormalize=v),
    "reliability(renormalize)": lambda v: ordmetrics.reliability(Y3, P3, renormalize=v),
    "decide(renormalize)": lambda v: ordmetrics.decide(P3, renormalize=v),
    "skill_score(renormalize)": lambda v: ordmetrics.skill_score("rps", Y3, P3, renormalize=v),
    "skill_score(normalize)": lambda v: ordmetrics.skill_score("rps", Y3, P3, normalize=v),
    "corp_decomposition(normalize)": lambda v: ordmetrics.corp_decomposition(Y3, P3, normalize=v),
    "corp_decomposition(renormalize)": lambda v: ordmetrics.corp_decomposition(
        Y3, P3, renormalize=v
    ),
    "corp_reliability(renormalize)": lambda v: ordmetrics.corp_reliability(Y3, P3, renormalize=v),
    "evaluate_file(renormalize)": lambda v: ordmetrics.evaluate_file(
        _flag_csv(), truth="y", proba="p", renormalize=v
    ),
}
#: Public bool-default parameters that are not yes/no flags.
NOT_FLAGS = {"evaluate_file(progress)"}  # True/False or a callable that receives the row count


def _flag_csv() -> str:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.gettempdir()) / f"ordmetrics-flags-{id(FLAG_CALLS)}.csv"
    if not path.exists():
        rows = "\n".join(f"{y},{p[0]},{p[1]},{p[2]}" for y, p in zip(Y3, P3.tolist(), strict=True))
        path.write_text("y,p0,p1,p2\n" + rows + "\n")
    return str(path)


@pytest.mark.parametrize("call", list(FLAG_CALLS.values()), ids=list(FLAG_CALLS))
@pytest.mark.parametrize("value", [None, "no", "False", 0, 1, 1.0, [True]])
def test_flags_must_be_true_or_false(call, value):
    """``rps(normalize=None)`` gave the raw sum and ``renormalize="no"`` rescaled."""
    with pytest.raises(TypeError, match=r"must be True or False; got .*Flags are not read by"):
        call(value)


@pytest.mark.parametrize("call", list(FLAG_CALLS.values()), ids=list(FLAG_CALLS))
def test_flags_accept_python_and_numpy_booleans(call):
    for value in (True, False, np.True_, np.False_):
        call(value)


def test_every_public_flag_is_covered():
    """Every public function's bool-default parameter appears in FLAG_CALLS (or is listed)."""
    import inspect

    public = {n: getattr(ordmetrics, n) for n in ordmetrics.__all__}
    flags = {
        f"{n}({p.name})"
        for n, f in public.items()
        if inspect.isfunction(f)
        for p in inspect.signature(f).parameters.values()
        if isinstance(p.default, bool)
    }
    covered = set(FLAG_CALLS) | NOT_FLAGS
    assert flags <= covered, sorted(flags - covered)
