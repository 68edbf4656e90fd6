"""Values of the scoring rules: worked examples, errata, and random data against literal loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ordmetrics
from conftest import SCORING_RULES, make_data, ref_mean, ref_score, ref_scores, ref_sum

RTOL = 1e-12
ATOL = 1e-14


def rule_func(name: str):
    return ordmetrics.get_metric(name).func


# --------------------------------------------------------------------------------------------
# (a) The worked-values table of docs/definitions.md section 1
# --------------------------------------------------------------------------------------------

# p, y, rps, sa_rps, brier, pbs, pll, log_loss. PBS and PLL under the default tie rule
# (ties="argmax"); every row gives the same values under ties="unpenalized" (row 0 is a tie
# decided for class 0 = y, so neither rule penalizes it): see test_worked_rows_under_both_rules.
WORKED = [
    ([0.5, 0.5, 0.0], 0, 0.125, 0.0625, 0.5, 0.5, 0.693147181, 0.693147181),
    ([0.5, 0.0, 0.5], 0, 0.25, 0.25, 0.5, 0.5, 0.693147181, 0.693147181),
    ([0.25, 0.75, 0.0], 0, 0.28125, 0.140625, 1.125, 1.791666667, 2.48490665, 1.386294361),
    ([0.3, 0.4, 0.3], 1, 0.09, 0.09, 0.54, 0.54, 0.916290732, 0.916290732),
    ([0.45, 0.5, 0.05], 1, 0.1025, 0.0625, 0.455, 0.455, 0.693147181, 0.693147181),
    ([0.33, 0.34, 0.33], 1, 0.1089, 0.1089, 0.6534, 0.6534, 1.078809661, 1.078809661),
    ([0.51, 0.49, 0.0], 1, 0.13005, 0.065025, 0.5202, 1.186866667, 1.811962177, 0.713349888),
]
WORKED_COLUMNS = ("rps", "sa_rps", "brier", "pbs", "pll", "log_loss")
WORKED_CASES = [
    pytest.param(row[0], row[1], name, row[2 + j], id=f"{name}-row{i}")
    for i, row in enumerate(WORKED)
    for j, name in enumerate(WORKED_COLUMNS)
]


@pytest.mark.parametrize(("p", "y", "name", "expected"), WORKED_CASES)
def test_worked_value(p, y, name, expected):
    func = rule_func(name)
    assert func([y], [p]) == pytest.approx(expected, abs=1e-9)
    per_sample = func([y], [p], reduction="none")
    assert per_sample.shape == (1,)
    assert per_sample[0] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("name", WORKED_COLUMNS)
def test_worked_values_as_one_batch(name):
    j = WORKED_COLUMNS.index(name)
    y = [row[1] for row in WORKED]
    P = [row[0] for row in WORKED]
    expected = [row[2 + j] for row in WORKED]
    func = rule_func(name)
    assert func(y, P, reduction="none") == pytest.approx(expected, abs=1e-9)
    assert func(y, P) == pytest.approx(sum(expected) / len(expected), abs=1e-9)
    assert func(y, P, reduction="sum") == pytest.approx(sum(expected), abs=len(expected) * 1e-9)


@pytest.mark.parametrize("name", WORKED_COLUMNS)
def test_reference_loops_reproduce_worked_values(name):
    j = WORKED_COLUMNS.index(name)
    for row in WORKED:
        assert ref_score(name, row[0], row[1], 3) == pytest.approx(row[2 + j], abs=1e-9)


@pytest.mark.parametrize("ties", ["argmax", "unpenalized"])
@pytest.mark.parametrize("name", ["pbs", "pll"])
def test_worked_rows_under_both_rules(name, ties):
    j = WORKED_COLUMNS.index(name)
    y = [row[1] for row in WORKED]
    P = [row[0] for row in WORKED]
    got = rule_func(name)(y, P, reduction="none", ties=ties)
    np.testing.assert_allclose(got, [row[2 + j] for row in WORKED], atol=1e-9)
    np.testing.assert_allclose(got, ref_scores(name, y, P, ties=ties), rtol=RTOL, atol=ATOL)


# rows whose PBS/PLL differ between the tie rules: (p, y, pbs argmax, pbs unpenalized,
# pll argmax, pll unpenalized), by hand: Brier of [1/2, 1/2, 0] for y = 1 is 1/4 + 1/4 = 1/2
TIE_ROWS = [
    ([0.5, 0.5, 0.0], 1, 0.5 + 2 / 3, 0.5, math.log(2) + math.log(3), math.log(2)),
    (
        [0.4, 0.4, 0.2],
        1,
        0.36 + 0.16 + 0.04 + 2 / 3,
        0.56,
        -math.log(0.4) + math.log(3),
        -math.log(0.4),
    ),
    ([0.25, 0.25, 0.25, 0.25], 3, 0.75 + 0.75, 0.75, math.log(4) * 2, math.log(4)),
    ([0.25, 0.25, 0.25, 0.25], 0, 0.75, 0.75, math.log(4), math.log(4)),
]


@pytest.mark.parametrize("row", TIE_ROWS)
def test_tied_rows_under_both_rules(row):
    p, y, pbs_a, pbs_u, pll_a, pll_u = row
    assert ordmetrics.pbs([y], [p]) == pytest.approx(pbs_a, rel=1e-13)
    assert ordmetrics.pbs([y], [p], ties="unpenalized") == pytest.approx(pbs_u, rel=1e-13)
    assert ordmetrics.pll([y], [p]) == pytest.approx(pll_a, rel=1e-13)
    assert ordmetrics.pll([y], [p], ties="unpenalized") == pytest.approx(pll_u, rel=1e-13)
    wrong = ordmetrics.decide([p], "argmax")[0] != y
    assert (pbs_a > pbs_u) == wrong


# the new rules on the worked rows, computed independently with exact fractions (spherical
# and pseudospherical: the square of the ratio in fractions, one square root at the end)
def _spherical_exact(p, y, alpha):
    from fractions import Fraction

    q = [Fraction(v).limit_denominator(10**6) for v in p]
    if alpha == 2:
        return 1.0 - math.sqrt(q[y] ** 2 / sum(v * v for v in q))
    ratio_alpha = q[y] ** 3 / sum(v**3 for v in q)  # alpha = 3: (p_y/||p||_3)^3
    return 1.0 - float(ratio_alpha) ** (2 / 3)


def _cdf_l1_exact(p, y):
    from fractions import Fraction

    q = [Fraction(v).limit_denominator(10**6) for v in p]
    k = len(q)
    total = sum(abs(sum(q[: j + 1]) - (1 if y <= j else 0)) for j in range(k - 1))
    return total / (k - 1)


@pytest.mark.parametrize("row", WORKED, ids=[f"row{i}" for i in range(len(WORKED))])
def test_new_rules_on_worked_rows(row):
    p, y = row[0], row[1]
    assert ordmetrics.spherical([y], [p]) == pytest.approx(_spherical_exact(p, y, 2), rel=1e-13)
    assert ordmetrics.pseudospherical([y], [p], alpha=3) == pytest.approx(
        _spherical_exact(p, y, 3), rel=1e-12
    )
    exact = _cdf_l1_exact(p, y)
    assert ordmetrics.cdf_l1([y], [p]) == pytest.approx(float(exact), rel=1e-13, abs=1e-15)
    assert ordmetrics.cdf_l1([y], [p], normalize=False) == pytest.approx(2 * float(exact))
    # the sa-RPS is the square of cdf_l1 (the worked sa-RPS column)
    assert float(exact) ** 2 == pytest.approx(row[3], abs=1e-12)


def test_spherical_known_values():
    """Hand values: 1 - 1/sqrt(K) for the uniform forecast, 0 for the point mass on y, 1 when
    p_y = 0; [0.6, 0.8] is not a probability, [0.36, 0.64] gives 1 - 0.36/sqrt(0.5392)."""
    for k in (2, 3, 7):
        u = np.full((1, k), 1 / k)
        assert ordmetrics.spherical([0], u) == pytest.approx(1 - 1 / math.sqrt(k), rel=1e-14)
    assert ordmetrics.spherical([1], [[0.0, 1.0, 0.0]]) == 0.0
    assert ordmetrics.spherical([0], [[0.0, 1.0, 0.0]]) == 1.0
    assert ordmetrics.pseudospherical([0], [[0.0, 0.3, 0.7]], alpha=1.5) == 1.0
    assert ordmetrics.spherical([0], [[0.36, 0.64]]) == pytest.approx(
        1 - 0.36 / math.sqrt(0.36**2 + 0.64**2), rel=1e-14
    )
    assert ordmetrics.pseudospherical([0], [[0.6, 0.4, 0.0]], alpha=3) == pytest.approx(
        1 - 0.36 / 0.28 ** (2 / 3), rel=1e-14
    )


def test_pseudospherical_large_alpha_does_not_underflow():
    """p_k^alpha underflows for alpha = 2000; the score must not (regression)."""
    P = [[0.6, 0.4], [0.6, 0.4], [0.5, 0.5]]
    got = ordmetrics.pseudospherical([0, 1, 1], P, alpha=2000.0, reduction="none")
    # y = 0: ||p||_alpha = 0.6 (1 + (2/3)^2000)^(1/2000) = 0.6 to double precision: score 0;
    # y = 1: (0.4 / 0.6)^1999 ~ 1e-352 underflows to 0: score 1; the tie: 1 - 2^(-1999/2000)
    np.testing.assert_allclose(got, [0.0, 1.0, 1 - 2 ** (-1999 / 2000)], rtol=1e-12, atol=1e-15)


def test_pseudospherical_alpha_is_checked():
    for bad in (1, 1.0, 0.5, -2, math.inf, math.nan):
        with pytest.raises(ValueError, match="alpha must be a finite number greater than 1"):
            ordmetrics.pseudospherical([0], [[1.0, 0.0]], alpha=bad)
    for bad in ("2", None, True, [2]):
        with pytest.raises(TypeError, match="alpha must be a real number greater than 1"):
            ordmetrics.pseudospherical([0], [[1.0, 0.0]], alpha=bad)


@pytest.mark.parametrize("alpha", [1.5, 2.0, 3.0, 10.0])
@pytest.mark.parametrize("k", [2, 3, 9])
def test_pseudospherical_random_against_loops(alpha, k, rng):
    y, P = finite_case(rng, 1100, k)  # beyond one kernel block (1024 rows)
    w = rng.uniform(0.1, 3.0, size=y.size)
    got = ordmetrics.pseudospherical(y, P, alpha=alpha, reduction="none")
    want = ref_scores("pseudospherical", y, P, alpha=alpha)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert ordmetrics.pseudospherical(y, P, alpha=alpha, sample_weight=w) == pytest.approx(
        ref_mean("pseudospherical", y, P, w, alpha=alpha), rel=1e-12
    )
    if alpha == 2.0:
        np.testing.assert_allclose(got, ordmetrics.spherical(y, P, reduction="none"), rtol=0)


@pytest.mark.parametrize("k", [2, 3, 9])
def test_cdf_l1_random_against_loops(k, rng):
    y, P = finite_case(rng, 1100, k)
    for normalize in (True, False):
        got = ordmetrics.cdf_l1(y, P, reduction="none", normalize=normalize)
        want = ref_scores("cdf_l1", y, P, normalize=normalize)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # the expected absolute class error sum_k p_k |k - y|
    np.testing.assert_allclose(
        ordmetrics.cdf_l1(y, P, reduction="none", normalize=False),
        (P * np.abs(np.arange(k)[None, :] - y[:, None])).sum(axis=1),
        rtol=1e-12,
        atol=1e-14,
    )
    np.testing.assert_allclose(
        ordmetrics.cdf_l1(y, P, reduction="none") ** 2,
        ordmetrics.sa_rps(y, P, reduction="none"),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize("ties", ["argmax", "unpenalized"])
@pytest.mark.parametrize("name", ["pbs", "pll"])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_penalized_rules_with_ties_against_loops(name, ties, k, rng):
    y, P = finite_case(rng, 1100, k)
    P[:200] = np.round(P[:200] * 4) / 4  # many ties (rows re-normalised below)
    P[:200] /= P[:200].sum(axis=1, keepdims=True)
    P[:200][P[:200].sum(axis=1) == 0] = 1 / k
    y[:100] = np.argmax(P[:100], axis=1)
    P = P[np.isfinite(P).all(axis=1) & (P[np.arange(len(y)), y] > 0)]
    y = y[: len(P)]
    keep = P[np.arange(len(y)), y] > 0
    P, y = P[keep], y[keep]
    got = rule_func(name)(y, P, reduction="none", ties=ties)
    np.testing.assert_allclose(got, ref_scores(name, y, P, ties=ties), rtol=1e-12, atol=1e-14)
    penalized = got - rule_func("brier" if name == "pbs" else "log_loss")(y, P, reduction="none")
    if ties == "argmax":
        wrong = ordmetrics.decide(P, "argmax") != y
        np.testing.assert_allclose(penalized > 1e-9, wrong)


# --------------------------------------------------------------------------------------------
# (b) Seed errata and the sa-RPS counterexample of section 5
# --------------------------------------------------------------------------------------------


def test_galdran_printed_vectors_give_their_true_rps():
    y = [0, 0]
    P = [[0.25, 0.75, 0.0], [0.25, 0.0, 0.75]]
    values = ordmetrics.rps(y, P, reduction="none")
    assert values == pytest.approx([0.28125, 0.5625], abs=1e-12)
    assert values[0] != pytest.approx(1 / 8)
    assert values[1] != pytest.approx(1 / 4)


def test_galdran_printed_rps_values_belong_to_the_half_vectors():
    values = ordmetrics.rps([0, 0], [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]], reduction="none")
    assert values == pytest.approx([1 / 8, 1 / 4], abs=1e-12)


def expected_score(name: str, p, q) -> float:
    """Expected score of the forecast ``p`` when the truth is distributed as ``q``."""
    K = len(q)
    return rule_func(name)(list(range(K)), [p] * K, sample_weight=q)


Q_COUNTER = [0.4, 0.2, 0.4]
POINT_MASS = [0.0, 1.0, 0.0]


def test_sa_rps_counterexample_expected_scores():
    assert expected_score("sa_rps", Q_COUNTER, Q_COUNTER) == pytest.approx(0.232, abs=1e-12)
    assert expected_score("sa_rps", POINT_MASS, Q_COUNTER) == pytest.approx(0.2, abs=1e-12)


def test_sa_rps_rewards_the_point_mass_over_the_honest_forecast():
    honest = expected_score("sa_rps", Q_COUNTER, Q_COUNTER)
    point = expected_score("sa_rps", POINT_MASS, Q_COUNTER)
    assert point < honest


def test_rps_counterexample_expected_scores():
    honest = expected_score("rps", Q_COUNTER, Q_COUNTER)
    point = expected_score("rps", POINT_MASS, Q_COUNTER)
    assert honest == pytest.approx(0.24, abs=1e-12)
    assert point == pytest.approx(0.4, abs=1e-12)
    assert honest < point


# --------------------------------------------------------------------------------------------
# (c) Random data against the literal loops
# --------------------------------------------------------------------------------------------


def random_case(rng: np.random.Generator, n: int, k: int):
    """Random rows plus a few edge rows: a uniform row, one-hot rows, a tie at the top."""
    y, P = make_data(rng, n, k)
    uniform = np.full(k, 1.0 / k)
    one_hot = np.eye(k)[k - 1]
    tie = np.zeros(k)
    tie[0] = tie[1] = 0.5
    extra_P = np.vstack([uniform, uniform, one_hot, one_hot, tie, tie])
    extra_y = np.array([0, k - 1, k - 1, 0, 0, 1])
    # the log rules are infinite on row n + 3 (one-hot on the wrong class) only
    return np.concatenate([y, extra_y]), np.vstack([P, extra_P])


def finite_case(rng: np.random.Generator, n: int, k: int):
    """Like :func:`random_case` without the row whose log score is infinite."""
    y, P = random_case(rng, n, k)
    keep = np.ones(y.size, dtype=bool)
    keep[n + 3] = False
    return y[keep], P[keep]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("k", range(2, 11))
@pytest.mark.parametrize("name", SCORING_RULES)
def test_random_data_matches_reference_loops(name, k, weighted, rng):
    y, P = finite_case(rng, 60, k)
    w = rng.uniform(0.1, 3.0, size=y.size) if weighted else None
    func = rule_func(name)

    mean = func(y, P, sample_weight=w)
    total = func(y, P, sample_weight=w, reduction="sum")
    per_sample = func(y, P, sample_weight=w, reduction="none")

    assert mean == pytest.approx(ref_mean(name, y, P, w), rel=RTOL, abs=ATOL)
    assert total == pytest.approx(ref_sum(name, y, P, w), rel=RTOL, abs=ATOL)
    np.testing.assert_allclose(per_sample, ref_scores(name, y, P), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", SCORING_RULES)
def test_edge_rows_match_reference_including_infinite_log_scores(name, rng):
    y, P = random_case(rng, 10, 4)
    per_sample = rule_func(name)(y, P, reduction="none")
    np.testing.assert_allclose(per_sample, ref_scores(name, y, P), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("k", range(2, 11))
def test_rps_unnormalized_matches_reference(k, weighted, rng):
    y, P = random_case(rng, 50, k)
    w = rng.uniform(0.1, 3.0, size=y.size) if weighted else None
    mean = ordmetrics.rps(y, P, sample_weight=w, normalize=False)
    assert mean == pytest.approx(ref_mean("rps", y, P, w, normalize=False), rel=RTOL, abs=ATOL)
    per_sample = ordmetrics.rps(y, P, reduction="none", normalize=False)
    expected = ref_scores("rps", y, P, normalize=False)
    np.testing.assert_allclose(per_sample, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("k", range(2, 11))
def test_rps_unnormalized_is_k_minus_1_times_normalized(k, rng):
    y, P = make_data(rng, 40, k)
    raw = ordmetrics.rps(y, P, normalize=False, reduction="none")
    normalized = ordmetrics.rps(y, P, reduction="none")
    np.testing.assert_allclose(raw, (k - 1) * normalized, rtol=RTOL, atol=ATOL)
    assert ordmetrics.rps(y, P, normalize=False) == pytest.approx(
        (k - 1) * ordmetrics.rps(y, P), rel=RTOL
    )


def test_rps_with_two_classes_is_half_the_brier_score(rng):
    y, P = make_data(rng, 100, 2)
    np.testing.assert_allclose(
        ordmetrics.rps(y, P, reduction="none"),
        ordmetrics.brier(y, P, reduction="none") / 2,
        rtol=1e-12,
        atol=ATOL,
    )
    assert ordmetrics.rps(y, P) == pytest.approx(ordmetrics.brier(y, P) / 2, rel=1e-12)


@pytest.mark.parametrize("eps", [1e-15, 1e-6, 1e-3, 0.1, 0.49])
def test_log_loss_eps_clips_to_eps_and_one_minus_eps(eps, rng):
    y, P = make_data(rng, 30, 4, alpha=0.3)
    edge_P = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 0, 1.0]])
    edge_y = np.array([0, 0, 2, 3])
    y = np.concatenate([y, edge_y])
    P = np.vstack([P, edge_P])
    per_sample = ordmetrics.log_loss(y, P, eps=eps, reduction="none")
    expected = ref_scores("log_loss", y, P, eps=eps)
    np.testing.assert_allclose(per_sample, expected, rtol=RTOL, atol=ATOL)
    assert np.isfinite(per_sample).all()
    assert per_sample[-4] == pytest.approx(-math.log(1 - eps), rel=RTOL, abs=ATOL)
    assert per_sample[-3] == pytest.approx(-math.log(eps), rel=RTOL)
    assert ordmetrics.log_loss(y, P, eps=eps) == pytest.approx(
        ref_mean("log_loss", y, P, eps=eps), rel=RTOL
    )


@pytest.mark.parametrize("name", ["log_loss", "pll"])
def test_log_rules_are_infinite_when_the_true_class_has_probability_zero(name):
    y = [0, 2, 1]
    P = [[0.2, 0.5, 0.3], [0.6, 0.4, 0.0], [0.1, 0.8, 0.1]]
    func = rule_func(name)
    assert func(y, P) == math.inf
    assert func(y, P, reduction="sum") == math.inf
    per_sample = func(y, P, reduction="none")
    assert per_sample[1] == math.inf
    assert np.isfinite(per_sample[[0, 2]]).all()


@pytest.mark.parametrize("name", ["log_loss", "pll"])
def test_log_rules_are_finite_when_the_infinite_row_has_weight_zero(name):
    y = [0, 2, 1]
    P = [[0.2, 0.5, 0.3], [0.6, 0.4, 0.0], [0.1, 0.8, 0.1]]
    w = [1.0, 0.0, 3.0]
    func = rule_func(name)
    expected_mean = (ref_score(name, P[0], 0, 3) + 3 * ref_score(name, P[2], 1, 3)) / 4
    assert func(y, P, sample_weight=w) == pytest.approx(expected_mean, rel=RTOL)
    assert func(y, P, sample_weight=w, reduction="sum") == pytest.approx(
        4 * expected_mean, rel=RTOL
    )
    assert math.isfinite(func(y, P, sample_weight=w))


PERFECT_P = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
PERFECT_Y = [0, 1, 2]


@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 0.5], [0.0, 1.0, 0.0]])
@pytest.mark.parametrize("name", SCORING_RULES)
def test_perfect_prediction_scores_positive_zero(name, weights):
    func = rule_func(name)
    for reduction in ("mean", "sum"):
        value = func(PERFECT_Y, PERFECT_P, sample_weight=weights, reduction=reduction)
        assert value == 0.0
        assert math.copysign(1.0, value) == 1.0, f"{name} {reduction} returned -0.0"
    per_sample = func(PERFECT_Y, PERFECT_P, sample_weight=weights, reduction="none")
    assert (per_sample == 0.0).all()
    assert not np.signbit(per_sample).any(), f"{name} none returned -0.0"


def test_log_loss_of_a_perfect_prediction_is_positive_zero():
    value = ordmetrics.log_loss([1], [[0.0, 1.0]])
    assert math.copysign(1.0, value) == 1.0
    per_sample = ordmetrics.log_loss([1, 0], [[0.0, 1.0], [1.0, 0.0]], reduction="none")
    assert [math.copysign(1.0, v) for v in per_sample] == [1.0, 1.0]


@pytest.mark.parametrize("name", SCORING_RULES)
def test_registry_spec_calls_the_public_function(name, rng):
    spec = ordmetrics.get_metric(name)
    assert spec.name == name
    assert spec.kind == "scoring_rule"
    assert spec.direction == "minimize"
    assert spec.func is getattr(ordmetrics, name)
    y, P = finite_case(rng, 20, 4)
    assert spec.func(y, P) == getattr(ordmetrics, name)(y, P)


# --------------------------------------------------------------------------------------------
# (d) nan_policy semantics, compared with manually cleaned data
# --------------------------------------------------------------------------------------------

N_NAN = 30
K_NAN = 4
NAMES = np.array(["none", "mild", "moderate", "severe"], dtype=object)


def nan_case(where: str, rng: np.random.Generator):
    """(y_true, y_proba, weights, kwargs, clean y, clean P, clean w, bad-row mask)."""
    y, P = make_data(rng, N_NAN, K_NAN)
    w = rng.uniform(0.5, 2.0, size=N_NAN)
    bad = np.zeros(N_NAN, dtype=bool)
    bad[[3, 7, 20]] = True
    y_in, P_in, w_in, kwargs = y, P.copy(), w.copy(), {}
    if where == "proba":
        P_in[3, 1] = np.nan
        P_in[7, :] = np.nan
        P_in[20, 0] = np.nan
    elif where == "float_truth":
        y_in = y.astype(np.float64)
        y_in[bad] = np.nan
    elif where == "object_truth_with_labels":
        y_in = NAMES[y].copy()
        y_in[bad] = None
        kwargs = {"labels": list(NAMES)}
    elif where == "weight":
        w_in[bad] = np.nan
    else:
        raise KeyError(where)
    keep = ~bad
    return y_in, P_in, w_in, kwargs, y[keep], P[keep], w[keep], bad


NAN_CASES = [
    pytest.param(where, weighted, id=f"{where}-{'weighted' if weighted else 'unweighted'}")
    for where in ["proba", "float_truth", "object_truth_with_labels", "weight"]
    for weighted in [False, True]
    if weighted or where != "weight"
]


@pytest.mark.parametrize(("where", "weighted"), NAN_CASES)
@pytest.mark.parametrize("name", SCORING_RULES)
def test_nan_policy_omit_equals_scoring_the_cleaned_rows(name, where, weighted, rng):
    y_in, P_in, w_in, kwargs, y, P, w, _ = nan_case(where, rng)
    func = rule_func(name)
    w_in = w_in if weighted else None
    w = w if weighted else None
    for reduction in ("mean", "sum"):
        got = func(y_in, P_in, sample_weight=w_in, nan_policy="omit", reduction=reduction, **kwargs)
        assert got == pytest.approx(func(y, P, sample_weight=w, reduction=reduction), rel=RTOL)
    per_sample = func(y_in, P_in, sample_weight=w_in, nan_policy="omit", reduction="none", **kwargs)
    assert per_sample.shape == (N_NAN - 3,)
    np.testing.assert_allclose(per_sample, func(y, P, reduction="none"), rtol=RTOL, atol=ATOL)
    assert ref_mean(name, y, P, w) == pytest.approx(
        func(y_in, P_in, sample_weight=w_in, nan_policy="omit", **kwargs), rel=RTOL
    )


@pytest.mark.parametrize(("where", "weighted"), NAN_CASES)
@pytest.mark.parametrize("name", SCORING_RULES)
def test_nan_policy_propagate_gives_nan(name, where, weighted, rng):
    y_in, P_in, w_in, kwargs, y, P, _, bad = nan_case(where, rng)
    func = rule_func(name)
    w_in = w_in if weighted else None
    for reduction in ("mean", "sum"):
        got = func(
            y_in, P_in, sample_weight=w_in, nan_policy="propagate", reduction=reduction, **kwargs
        )
        assert isinstance(got, float)
        assert math.isnan(got)
    per_sample = func(
        y_in, P_in, sample_weight=w_in, nan_policy="propagate", reduction="none", **kwargs
    )
    assert per_sample.shape == (N_NAN,)
    assert np.isnan(per_sample[bad]).all()
    np.testing.assert_allclose(per_sample[~bad], func(y, P, reduction="none"), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", SCORING_RULES)
def test_nan_policy_omit_with_missing_values_in_a_pandas_categorical(name, rng):
    pd = pytest.importorskip("pandas")
    y, P = make_data(rng, 20, 3)
    cats = ["low", "mid", "high"]
    values = np.array(cats, dtype=object)[y]
    values[[2, 11]] = None
    truth = pd.Series(pd.Categorical(values, categories=cats, ordered=True))
    keep = np.ones(20, dtype=bool)
    keep[[2, 11]] = False
    func = rule_func(name)
    got = func(truth, P, nan_policy="omit")
    assert got == pytest.approx(func(y[keep], P[keep]), rel=RTOL)
    assert math.isnan(func(truth, P, nan_policy="propagate"))


@pytest.mark.parametrize("name", SCORING_RULES)
def test_nan_policy_omit_with_nulls_in_a_polars_enum(name, rng):
    pl = pytest.importorskip("polars")
    y, P = make_data(rng, 20, 3)
    cats = ["low", "mid", "high"]
    values = [cats[c] for c in y]
    values[5] = None
    truth = pl.Series(values, dtype=pl.Enum(cats))
    keep = np.ones(20, dtype=bool)
    keep[5] = False
    func = rule_func(name)
    assert func(truth, P, nan_policy="omit") == pytest.approx(func(y[keep], P[keep]), rel=RTOL)


# --------------------------------------------------------------------------------------------
# (e) renormalize
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCORING_RULES)
def test_renormalize_equals_scoring_normalised_rows(name, rng):
    y, P = make_data(rng, 40, 5)
    scale = rng.uniform(0.5, 3.0, size=(40, 1))
    raw = P * scale
    normalised = raw / raw.sum(axis=1, keepdims=True)
    func = rule_func(name)
    for reduction in ("mean", "sum"):
        assert func(y, raw, renormalize=True, reduction=reduction) == pytest.approx(
            func(y, normalised, reduction=reduction), rel=RTOL
        )
        assert func(y, raw, renormalize=True, reduction=reduction) == pytest.approx(
            ref_sum(name, y, normalised) / (40 if reduction == "mean" else 1), rel=RTOL
        )
    np.testing.assert_allclose(
        func(y, raw, renormalize=True, reduction="none"),
        func(y, normalised, reduction="none"),
        rtol=RTOL,
        atol=ATOL,
    )


@pytest.mark.parametrize("name", SCORING_RULES)
def test_renormalize_leaves_valid_rows_unchanged(name, rng):
    y, P = make_data(rng, 40, 5)
    func = rule_func(name)
    assert func(y, P, renormalize=True) == pytest.approx(func(y, P), rel=RTOL)


# --------------------------------------------------------------------------------------------
# (f) Large N: the compensated reduction against vectorised reference formulas
# --------------------------------------------------------------------------------------------


def vectorised_scores(name: str, y: np.ndarray, P: np.ndarray) -> np.ndarray:
    n, k = P.shape
    rows = np.arange(n)
    if name in ("rps", "sa_rps"):
        F = np.cumsum(P, axis=1)[:, :-1]
        H = (y[:, None] <= np.arange(k - 1)[None, :]).astype(np.float64)
        if name == "rps":
            return ((F - H) ** 2).sum(axis=1) / (k - 1)
        return (np.abs(F - H).sum(axis=1) / (k - 1)) ** 2
    onehot = np.eye(k)[y]
    brier = ((P - onehot) ** 2).sum(axis=1)
    py = P[rows, y]
    m = np.argmax(P, axis=1) != y
    if name == "cdf_l1":
        F = np.cumsum(P, axis=1)[:, :-1]
        H = (y[:, None] <= np.arange(k - 1)[None, :]).astype(np.float64)
        return np.abs(F - H).sum(axis=1) / (k - 1)
    if name == "spherical":
        return 1.0 - py / np.sqrt((P * P).sum(axis=1))
    if name == "brier":
        return brier
    if name == "pbs":
        return brier + (k - 1) / k * m
    if name == "log_loss":
        return -np.log(py)
    return -np.log(py) + np.log(k) * m


@pytest.fixture(scope="module")
def large_case():
    rng = np.random.default_rng(7)
    n, k = 300_000, 5
    y, P = make_data(rng, n, k)
    w = rng.uniform(0.0, 10.0, size=n)
    return y, P, w


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", SCORING_RULES)
def test_large_n_mean_is_accurate(name, weighted, large_case):
    y, P, w = large_case
    s = vectorised_scores(name, y, P)
    if weighted:
        expected = math.fsum(w * s) / math.fsum(w)
        got = rule_func(name)(y, P, sample_weight=w)
    else:
        expected = math.fsum(s) / s.size
        got = rule_func(name)(y, P)
    assert got == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------------------------
# (g) Return types
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", SCORING_RULES)
def test_return_types(name, weighted, rng):
    y, P = make_data(rng, 12, 3)
    w = rng.integers(1, 4, size=12) if weighted else None
    func = rule_func(name)
    for reduction in ("mean", "sum"):
        value = func(y, P, sample_weight=w, reduction=reduction)
        assert isinstance(value, float)
        assert type(value) is float
    per_sample = func(y, P, sample_weight=w, reduction="none")
    assert isinstance(per_sample, np.ndarray)
    assert per_sample.dtype == np.float64
    assert per_sample.shape == (12,)


@pytest.mark.parametrize("name", SCORING_RULES)
def test_none_output_is_unweighted(name, rng):
    y, P = make_data(rng, 12, 3)
    w = rng.uniform(0.5, 2.0, size=12)
    func = rule_func(name)
    np.testing.assert_array_equal(
        func(y, P, sample_weight=w, reduction="none"), func(y, P, reduction="none")
    )


@pytest.mark.parametrize("name", SCORING_RULES)
def test_float32_proba_returns_float64(name, rng):
    y, P = make_data(rng, 12, 3)
    func = rule_func(name)
    assert type(func(y, P.astype(np.float32))) is float
    assert func(y, P.astype(np.float32), reduction="none").dtype == np.float64
