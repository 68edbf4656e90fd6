"""Decision rules: exact rational references, known Bayes-decision facts, labels and errors.

The references use :class:`fractions.Fraction`, so ties and halves are exact: a row such as
``[0.3, 0.2, 0.5]`` is the decimal row, not its binary approximation. They use nothing from
``ordmetrics``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import direct_min_cost
from ordmetrics.metrics.decisions import decide, decision_tolerance

RULES = ["argmax", "median", "expected", "min_cost"]


# --------------------------------------------------------------------------------------------
# Exact references (one row at a time)
# --------------------------------------------------------------------------------------------


def ref_argmax(p):
    best = 0
    for k in range(len(p)):
        if p[k] > p[best]:
            best = k
    return best


def ref_median(p):
    F = Fraction(0)
    for k in range(len(p)):
        F += p[k]
        if F >= Fraction(1, 2):
            return k
    raise AssertionError("a probability row reaches F = 1")


def ref_expected(p):
    grade = sum(k * p[k] for k in range(len(p)))
    return int(grade + Fraction(1, 2)) if grade >= 0 else None  # floor for grade >= 0


def ref_min_cost(p, C):
    K = len(p)
    costs = [sum(p[j] * C[j][k] for j in range(K)) for k in range(K)]
    best = 0
    for k in range(K):
        if costs[k] < costs[best]:
            best = k
    return best


def absolute(K):
    return [[abs(i - j) for j in range(K)] for i in range(K)]


def squared(K):
    return [[(i - j) ** 2 for j in range(K)] for i in range(K)]


def zero_one(K):
    return [[int(i != j) for j in range(K)] for i in range(K)]


def rational_rows(seed, n=150):
    """Rows c / d with small denominators: full of exact ties, halves and F_k = 1/2."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 9))
    d = int(rng.choice([2, 4, 10, 20]))
    counts = rng.multinomial(d, rng.dirichlet(np.ones(K)), size=n)
    exact = [[Fraction(int(c), d) for c in row] for row in counts]
    floats = counts / d
    return exact, floats, K


def dirichlet_rows(seed, n=150):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 9))
    P = rng.dirichlet(np.full(K, 0.7), size=n)
    exact = [[Fraction(float(v)) for v in row] for row in P]  # the binary values exactly
    return exact, P, K


def check_rows(exact, floats, K, rule, ref, **kw):
    got = decide(floats, rule, **kw)
    assert got.dtype == np.int64
    assert got.shape == (len(exact),)
    expected = [ref(p) for p in exact]
    mismatch = [(i, floats[i].tolist(), got[i], expected[i]) for i in range(len(exact))]
    mismatch = [m for m in mismatch if m[2] != m[3]]
    assert not mismatch, mismatch[:3]


SEEDS = list(range(25))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rows", [rational_rows, dirichlet_rows])
def test_rules_match_exact_references(seed, rows):
    exact, floats, K = rows(seed)
    check_rows(exact, floats, K, "argmax", ref_argmax)
    check_rows(exact, floats, K, "median", ref_median)
    check_rows(exact, floats, K, "expected", ref_expected)
    for name, C in (("absolute", absolute(K)), ("squared", squared(K)), ("zero_one", zero_one(K))):
        check_rows(exact, floats, K, "min_cost", lambda p, C=C: ref_min_cost(p, C), costs=name)
    rng = np.random.default_rng(seed)
    C = rng.integers(0, 6, size=(K, K))
    check_rows(
        exact, floats, K, "min_cost", lambda p: ref_min_cost(p, C.tolist()), costs=C.tolist()
    )


# --------------------------------------------------------------------------------------------
# Ties, halves and the decimal rows of the docs
# --------------------------------------------------------------------------------------------


def test_argmax_ties_go_to_the_lowest_class():
    P = [[0.4, 0.4, 0.2], [0.2, 0.4, 0.4], [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 1 / 3]]
    assert decide(P).tolist() == [0, 1, 1, 0]
    assert decide(P, "min_cost", costs="zero_one").tolist() == [0, 1, 1, 0]
    assert decide([[0.25] * 4, [0.0, 0.5, 0.0, 0.5]]).tolist() == [0, 1]


def test_median_at_exactly_one_half():
    # 0.03 + 0.29 + 0.18 = 0.49999999999999994 in float64: the median is still class 2
    assert np.cumsum([0.03, 0.29, 0.18, 0.5])[2] < 0.5
    P = [[0.03, 0.29, 0.18, 0.5], [0.1, 0.2, 0.2, 0.5], [0.5, 0.0, 0.0, 0.5], [0.0, 0.5, 0.5, 0]]
    assert decide(P, "median").tolist() == [2, 2, 0, 1]
    P = [[0.3, 0.2, 0.5], [0.5, 0.5, 0.0], [0.25, 0.25, 0.5]]
    assert decide(P, "median").tolist() == [1, 0, 1]
    P = [[0.49, 0.02, 0.49], [0.2, 0.29, 0.51], [0.0, 0.0, 1.0]]
    assert decide(P, "median").tolist() == [1, 2, 2]
    assert decide([[0.5, 0.5], [0.5 - 1e-9, 0.5 + 1e-9]], "median").tolist() == [0, 1]


def test_expected_rounds_halves_up():
    P = [
        [0.0, 0.5, 0.5],  # 1.5 -> 2
        [0.5, 0.0, 0.5],  # 1.0 -> 1
        [0.1, 0.3, 0.6],  # 1.5 in decimal -> 2
        [0.3, 0.3, 0.4],  # 1.1 -> 1
    ]
    assert decide(P, "expected").tolist() == [2, 1, 2, 1]
    P = [
        [0.15, 0.35, 0.35, 0.15],  # 1.5 -> 2
        [0.2, 0.15, 0.6, 0.05],  # 1.5 -> 2
        [0.3, 0.0, 0.0, 0.7],  # 2.1 -> 2
        [0.0, 0.0, 0.5, 0.5],  # 2.5 -> 3
    ]
    assert decide(P, "expected").tolist() == [2, 2, 2, 3]
    # One row at a time the product with (0, 1, 2, 3) may round the halves down to
    # 1.4999999999999998 (it does with OpenBLAS); the decision does not depend on it.
    for row in P[:2]:
        assert np.array([row]) @ np.arange(4.0) == pytest.approx([1.5], abs=1e-15)
        assert decide([row], "expected").tolist() == [2]
        assert decide([row, row, row], "expected").tolist() == [2, 2, 2]
    two = [[0.5, 0.5], [0.75, 0.25], [0.5 + 1e-9, 0.5 - 1e-9]]  # 0.5, 0.25, just below 0.5
    assert decide(two, "expected").tolist() == [1, 0, 0]


def test_squared_cost_takes_the_lower_class_at_a_half():
    # expected grade 1.5: equally far from 1 and 2; min_cost ties go to the lower class
    P = [[0.0, 0.5, 0.5], [0.1, 0.3, 0.6]]
    assert decide(P, "min_cost", costs="squared").tolist() == [1, 1]
    assert decide(P, "expected").tolist() == [2, 2]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rows", [rational_rows, dirichlet_rows])
def test_absolute_cost_decision_is_the_median(seed, rows):
    # The expected absolute cost of class k + 1 minus that of class k is 2 F_k - 1: it falls
    # while F_k < 1/2, so its lowest minimiser is the smallest k with F_k >= 1/2.
    _, floats, _ = rows(seed)
    np.testing.assert_array_equal(
        decide(floats, "min_cost", costs="absolute"), decide(floats, "median")
    )
    np.testing.assert_array_equal(decide(floats, "min_cost"), decide(floats, "median"))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rows", [rational_rows, dirichlet_rows])
def test_squared_cost_decision_is_the_class_nearest_the_mean(seed, rows):
    # sum_j p_j (j - k)^2 = variance + (mean - k)^2
    exact, floats, K = rows(seed)
    got = decide(floats, "min_cost", costs="squared")
    for i, p in enumerate(exact):
        mean = sum(k * p[k] for k in range(K))
        distances = [abs(mean - k) for k in range(K)]
        nearest = min(range(K), key=lambda k: (distances[k], k))  # ties to the lower class
        assert got[i] == nearest
        if mean - int(mean) != Fraction(1, 2):
            assert decide(floats[i : i + 1], "expected")[0] == nearest


# --------------------------------------------------------------------------------------------
# Inputs and outputs
# --------------------------------------------------------------------------------------------


def test_labels_are_returned():
    P = [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1], [0.2, 0.5, 0.3]]
    grades = ["severe", "mild", "moderate"]  # ordinal order, not alphabetical
    got = decide(P, labels=grades)
    assert got.tolist() == ["moderate", "severe", "mild"]
    assert got.dtype.kind == "U"
    got = decide(P, "median", labels=[1, 2, 3])
    assert got.tolist() == [3, 1, 2]
    assert got.dtype == np.int64
    got = decide(P, labels=np.array([0.5, 1.5, 2.5]))
    assert got.tolist() == [2.5, 0.5, 1.5]
    mixed = decide(P, labels=[1, "two", 3.0])
    assert mixed.dtype == object
    assert mixed.tolist() == [3.0, 1, "two"]
    assert isinstance(mixed[1], int)
    pd = pytest.importorskip("pandas")
    assert decide(P, labels=pd.Index(grades)).tolist() == ["moderate", "severe", "mild"]


def test_containers_and_dtypes():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    _, P, K = rational_rows(3, n=50)
    expected = decide(P, "median")
    frame = pd.DataFrame(P, columns=[f"p{k}" for k in range(K)])
    np.testing.assert_array_equal(decide(frame, "median"), expected)
    np.testing.assert_array_equal(decide(pl.from_pandas(frame), "median"), expected)
    np.testing.assert_array_equal(decide(P.tolist(), "median"), expected)
    # float32 rows: the same decisions (the tolerance widens with the precision)
    for rule in RULES:
        np.testing.assert_array_equal(decide(P.astype(np.float32), rule), decide(P, rule))
    # non-contiguous input
    wide = np.repeat(P, 2, axis=1)[:, ::2]
    np.testing.assert_array_equal(decide(wide, "median"), expected)


def test_renormalize():
    P = np.array([[0.4, 0.2, 0.2], [0.2, 0.2, 0.4]])
    assert decide(P, "median", renormalize=True).tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"rows of y_proba must sum to 1.*renormalize=True"):
        decide(P)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_errors():
    P = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
    with pytest.raises(ValueError, match=r"rule must be one of 'argmax', 'median'.*got 'mode'"):
        decide(P, "mode")
    with pytest.raises(ValueError, match=r"costs is used only by rule='min_cost'.*'median'"):
        decide(P, "median", costs="squared")
    with pytest.raises(ValueError, match=r"costs must be one of 'absolute', 'squared', 'zero_one'"):
        decide(P, "min_cost", costs="quadratic")
    with pytest.raises(
        ValueError,
        match=r"costs must be a 3 x 3 matrix.*got shape \(2, 3\).*\(the columns of y_proba\)",
    ):
        decide(P, "min_cost", costs=[[0, 1, 2], [1, 0, 1]])
    with pytest.raises(ValueError, match=r"non-negative.*-2.0 at \[1, 0\].*changes no decision"):
        decide(P, "min_cost", costs=[[0, 1, 2], [-2, 0, 1], [2, 1, 0]])
    with pytest.raises(ValueError, match=r"costs must hold finite numbers; got nan at \[0, 0\]"):
        decide(P, "min_cost", costs=np.full((3, 3), np.nan))
    with pytest.raises(TypeError, match=r"costs must be one of .* matrix of numbers"):
        decide(P, "min_cost", costs={"a": 1})
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 1; a decision needs"):
        decide([[0.2, 0.8], [np.nan, 1.0]])
    with pytest.raises(ValueError, match=r"y_proba must lie in \[0, 1\]"):
        decide([[1.5, -0.5]])
    with pytest.raises(ValueError, match=r"y_proba has infinite values"):
        decide([[np.inf, 0.0]])
    with pytest.raises(ValueError, match=r"y_proba must be 2-D"):
        decide([0.2, 0.8])
    with pytest.raises(ValueError, match=r"y_proba must have at least 2 columns"):
        decide([[1.0], [1.0]])
    with pytest.raises(ValueError, match=r"labels has 2 entries but y_proba has 3 columns"):
        decide(P, labels=["a", "b"])
    with pytest.raises(TypeError, match=r"labels must be a list"):
        decide(P, labels="abc")
    with pytest.raises(ValueError, match=r"labels must be distinct"):
        decide(P, labels=["a", "b", "a"])
    with pytest.raises(TypeError, match=r"y_proba must hold numbers"):
        decide([["a", "b"]])


# --------------------------------------------------------------------------------------------
# The compiled kernels against a straightforward NumPy reference
# --------------------------------------------------------------------------------------------


def numpy_decide(P, rule, C=None):
    """Whole-array NumPy: argmax, a cumulative sum, a matrix-vector and a matrix product."""
    P = np.asarray(P)
    k = P.shape[1]
    tol = decision_tolerance(P.dtype, k)
    if rule == "argmax":
        return np.argmax(P, axis=1)
    if rule == "median":
        F = np.cumsum(P.astype(np.float64), axis=1)[:, :-1]
        return (F < 0.5 - tol).sum(axis=1)
    if rule == "expected":
        grade = P.astype(np.float64) @ np.arange(k, dtype=np.float64)
        return np.floor(grade + (0.5 + tol * (k - 1))).astype(np.int64)
    cost = P.astype(np.float64) @ C
    limit = cost.min(axis=1, keepdims=True) + tol * C.max()
    return np.argmax(cost <= limit, axis=1)  # the first class within the tolerance


@st.composite
def proba_matrices(draw):
    """Dirichlet rows (some with small-denominator entries: ties, halves, F_k = 1/2), past the
    sizes where a vectorised loop would change its path."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 1100))
    k = draw(st.integers(2, 21))
    P = rng.dirichlet(np.full(k, draw(st.sampled_from([0.3, 1.0, 3.0]))), size=n)
    d = draw(st.sampled_from([2, 4, 10]))
    rational = rng.random(n) < 0.3
    P[rational] = rng.multinomial(d, np.full(k, 1.0 / k), size=int(rational.sum())) / d
    if draw(st.booleans()):
        P = P.astype(np.float32)
    C = rng.choice([0.0, 1.0, 2.5, 4.0], size=(k, k))
    return P, C


@settings(max_examples=60, deadline=None)
@given(proba_matrices())
def test_kernels_match_numpy_reference(case):
    P, C = case
    for rule in ("argmax", "median", "expected"):
        got = decide(P, rule)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, numpy_decide(P, rule), err_msg=rule)
    for costs in (C, np.abs(np.subtract.outer(np.arange(P.shape[1]), np.arange(P.shape[1])))):
        got = decide(P, "min_cost", costs=costs)
        np.testing.assert_array_equal(got, numpy_decide(P, "min_cost", costs.astype(float)))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("bad", [np.nan, -0.1, 1.5, np.inf])
def test_invalid_values_raise_at_any_row(rule, bad):
    P = np.full((2000, 4), 0.25)
    P[1999, 1] = bad
    with pytest.raises(ValueError, match="y_proba"):
        decide(P, rule)


@pytest.mark.parametrize("rule", RULES)
def test_row_sums_near_the_tolerance_are_accepted_as_before(rule):
    # sums 1 + 1.8e-6 fail the kernels' screen (0.75 x the tolerance) but pass the row-sum
    # tolerance, max(1e-6, 4 x 5e-7) = 2e-6 for K = 4
    P = np.full((3000, 4), 0.25)
    P[:, 3] += 1.8e-6
    C = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    np.testing.assert_array_equal(decide(P, rule), numpy_decide(P, rule, C))
    P[5, 3] += 1e-5
    with pytest.raises(ValueError, match="sum"):
        decide(P, rule)


def test_y_proba_errors_come_before_costs_errors():
    P = [[0.5, 0.6], [0.5, 0.5]]
    with pytest.raises(ValueError, match="y_proba"):
        decide(P, "min_cost", costs=[[0, -1], [1, 0]])
    with pytest.raises(ValueError, match="costs must be non-negative"):
        decide([[0.5, 0.5]], "min_cost", costs=[[0, -1], [1, 0]])


# --------------------------------------------------------------------------------------------
# min_cost with structured costs: the O(K) path decides as the K x K expected costs do
# --------------------------------------------------------------------------------------------


def tie_heavy(n, k, seed, dtype=np.float64):
    """Rows with exact and near ties of the expected costs: small-denominator rows (F_k = 1/2,
    halves of the mean), two-point rows, uniform rows and Dirichlet rows."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    quarter = n // 4
    for d, rows in ((2, slice(0, quarter)), (10, slice(quarter, 2 * quarter))):
        m = rows.stop - rows.start
        P[rows] = rng.multinomial(d, np.full(k, 1.0 / k), size=m) / d
    two = slice(2 * quarter, 2 * quarter + n // 8)
    P[two] = 0.0
    lo = rng.integers(0, k, size=two.stop - two.start)
    hi = rng.integers(0, k, size=two.stop - two.start)
    r = np.arange(two.start, two.stop)
    P[r, lo] += 0.5
    P[r, hi] += 0.5
    P[-10:] = 1.0 / k
    return P.astype(dtype)


@pytest.mark.parametrize("k", [2, 3, 5, 7, 20])
@pytest.mark.parametrize("costs", ["absolute", "squared", "zero_one"])
@pytest.mark.parametrize("size", ["serial", "parallel"])
def test_structured_costs_decide_as_the_direct_costs(k, costs, size):
    from ordmetrics._core.parallel import PARALLEL_MIN_WORK

    n = 1000 if size == "serial" else PARALLEL_MIN_WORK // k + 1000
    P = tie_heavy(n, k, seed=k)
    names = {"absolute": "absolute", "squared": "squared", "zero_one": "zero_one"}
    i = np.arange(k, dtype=np.float64)
    C = {
        "absolute": np.abs(i[:, None] - i[None, :]),
        "squared": (i[:, None] - i[None, :]) ** 2,
        "zero_one": (i[:, None] != i[None, :]).astype(np.float64),
    }[costs]
    want = direct_min_cost(P, C)
    np.testing.assert_array_equal(decide(P, "min_cost", costs=names[costs]), want)
    np.testing.assert_array_equal(decide(P, "min_cost", costs=C), want)  # the same matrix
    P32 = tie_heavy(min(n, 5000), k, seed=k + 1, dtype=np.float32)
    np.testing.assert_array_equal(decide(P32, "min_cost", costs=C), direct_min_cost(P32, C))


def test_structured_costs_fall_back_to_the_general_path():
    """A matrix that is almost, but not exactly, a built-in one takes the K x K path."""
    P = tie_heavy(3000, 5, seed=3)
    i = np.arange(5, dtype=np.float64)
    C = np.abs(i[:, None] - i[None, :])
    C[0, 4] += 1e-9
    np.testing.assert_array_equal(decide(P, "min_cost", costs=C), direct_min_cost(P, C))
