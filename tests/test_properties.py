"""Property-based verification of the properties every scoring rule declares in the registry.

The tests read ``get_metric(name).properties`` for every rule of ``list_metrics("scoring_rule")``
and for every registered variant of a rule (``spec.variants``, e.g. PBS with
``ties="unpenalized"``), and the pseudospherical score at several alpha: for each property there
is one test over the cases that declare it True (a hypothesis search for a violation, which
must fail) and one over the cases that declare it False (an exhaustive search on a probability
grid, which must find a counterexample). The registry can therefore claim nothing false in
either direction. Properties declared for K = 2 (``spec.properties_by_k``) are verified the
same way at K = 2. Scores are lower-is-better and always come from the library
(``reduction="none"``).

Definitions (docs/definitions.md section 5, made precise):

* **proper**: for every true distribution q and every forecast p,
  E_{Y~q} S(p, Y) >= E_{Y~q} S(q, Y) - 1e-12. The expectation is computed exactly,
  sum_y q_y S(p, y), over the classes with q_y > 0 (so an infinite score of a class that
  cannot occur does not count, and an infinite expected score of p is allowed). Forecasts and
  truths with tied probabilities are drawn on purpose: ties are the edge case of the penalized
  rules.
* **strictly proper**: in addition E S(p) > E S(q) + 1e-12 whenever max_k |p_k - q_k| >= 1e-3,
  which keeps the gap (||p - q||^2 for brier, a Kullback-Leibler divergence for log_loss, ...)
  far above rounding.
* **local**: S(p, y) depends on p only through p_y: two forecasts with the same p_y score the
  same.
* **distance-sensitive**: moving mass delta > 0 from a class j to a class j2 farther from y on
  the same side of y, and not from y itself (y < j < j2 or j2 < j < y), strictly increases
  (worsens) the score.
* **superior** (Ahmadian et al.): for a fixed K, every correct prediction (the arg-max
  decision, ties to the lowest class as ``ordmetrics.decide(P, "argmax")``, equals y) scores
  strictly better than every incorrect prediction, whatever the true classes of the two.
* **superior_without_ties** (declared per K): the same among forecasts with a unique most
  probable class.

Probability vectors are integer weights 0..1000 normalised in float64, so every nonzero
probability is at least about 1e-4 and rows sum to 1 within 1e-15. All hypothesis tests are
derandomized, so a run is reproducible.

Explicit examples: the sa-RPS counterexample (q = [0.4, 0.2, 0.4]); a forecast that moves mass
away from the truth and improves PBS; and the tie caveat of the authors' rule
(``ties="unpenalized"``): because a tie escapes the penalty, that variant rewards a forecast
that ties several classes (with q = [0.5, 0.3, 0.2] the uniform forecast has a lower expected
PBS and PLL than q itself) and scores the correct [1/3, 1/3, 1/3] (y = 0) worse than the wrong
[0.5, 0.5, 0] (y = 1). The default (``ties="argmax"``) penalizes by the decision and is
strictly proper and superior.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ordmetrics
from ordmetrics._core.registry import PROPERTY_NAMES

RULES = ordmetrics.list_metrics("scoring_rule")
#: Alphas of the pseudospherical score checked beside the registered spherical score.
ALPHAS = (1.5, 3.0)


def _cases() -> dict[str, tuple[str, dict, dict]]:
    """Case id -> (rule name, options, declared properties): every rule and registered variant."""
    cases: dict[str, tuple[str, dict, dict]] = {}
    for name in RULES:
        spec = ordmetrics.get_metric(name)
        cases[name] = (name, {}, dict(spec.properties))
        for label, v in spec.variants.items():
            cases[f"{name}[{label}]"] = (name, dict(v.options), dict(v.properties))
    spherical = dict(ordmetrics.get_metric("spherical").properties)
    for a in ALPHAS:
        cases[f"pseudospherical[alpha={a}]"] = ("pseudospherical", {"alpha": a}, spherical)
    return cases


CASES = _cases()
TOL = 1e-12
MAX_WEIGHT = 1000
PROP_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)

Score = Callable[..., np.ndarray]


def declaring(prop: str, value: bool) -> list[str]:
    """Cases (rules and variants) that declare ``prop`` equal to ``value``."""
    assert prop in PROPERTY_NAMES
    return [c for c, (_, _, props) in CASES.items() if props[prop] is value]


def declaring_for_k2(prop: str, value: bool) -> list[str]:
    """Registered rules whose properties for K = 2 give ``prop`` equal to ``value``."""
    return [n for n in RULES if ordmetrics.get_metric(n).properties_for(2)[prop] is value]


def score_fn(case: str) -> Score:
    name, options, _ = CASES[case]
    func = getattr(ordmetrics, name)

    def f(y, P) -> np.ndarray:
        y = np.asarray(y, dtype=np.int64)
        P = np.atleast_2d(np.asarray(P, dtype=np.float64))
        if P.shape[0] == 1 and y.size > 1:
            P = np.repeat(P, y.size, axis=0)
        return np.asarray(func(y, P, reduction="none", **options), dtype=np.float64)

    return f


def expected(f: Score, p: np.ndarray, q: np.ndarray) -> float:
    """E_{Y~q} S(p, Y) = sum_y q_y S(p, y) over the classes with q_y > 0."""
    ys = np.flatnonzero(q > 0)
    return float(np.sum(q[ys] * f(ys, p)))


def normalise(w) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    return w / w.sum()


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

n_classes = st.integers(2, 8)


# The strategies of a given size are built once (functools.cache) and reused by every draw:
# hypothesis works out the properties of every new strategy object afresh, which took half the
# time of these tests when the strategies were built inside each draw. The examples drawn are
# the same (the draws do not depend on which object describes a strategy).


@cache
def weight_lists(k: int) -> st.SearchStrategy[list[int]]:
    """Non-negative integer weights of ``k`` classes, not all zero."""
    return st.lists(st.integers(0, MAX_WEIGHT), min_size=k, max_size=k).filter(lambda w: sum(w) > 0)


@cache
def distinct_classes(k: int, min_size: int, max_size: int) -> st.SearchStrategy[list[int]]:
    """Lists of distinct classes ``0..k-1``."""
    return st.lists(st.integers(0, k - 1), min_size=min_size, max_size=max_size, unique=True)


@cache
@st.composite
def tied_weight_lists(draw, k: int) -> list[int]:
    """Weights where at least two classes share the largest weight."""
    w = draw(weight_lists(k))
    top = max(w)
    tied = draw(distinct_classes(k, 2, k))
    for i in tied:
        w[i] = top
    return w


@cache
def forecast_weights(k: int) -> st.SearchStrategy[list[int]]:
    return st.one_of(weight_lists(k), tied_weight_lists(k))


@cache
@st.composite
def unique_argmax_weights(draw, k: int) -> list[int]:
    """Weights with one class ahead of all others by at least 10 units (margin > 1e-3)."""
    w = draw(weight_lists(k))
    i = draw(st.integers(0, k - 1))
    w[i] = max(w) + draw(st.integers(10, MAX_WEIGHT))
    return w


@st.composite
def truth_and_forecast(
    draw, forecast=forecast_weights, truth=forecast_weights, k_strategy=n_classes
):
    k = draw(k_strategy)
    q = normalise(draw(truth(k)))
    p = normalise(draw(forecast(k)))
    return q, p


@st.composite
def same_true_probability(draw):
    """(y, p, p2): two forecasts with the same probability of the true class y."""
    k = draw(n_classes)
    y = draw(st.integers(0, k - 1))
    p = normalise(draw(forecast_weights(k)))
    others = normalise(draw(weight_lists(k - 1)))
    p2 = np.insert((1.0 - p[y]) * others, y, p[y])
    return y, p, p2


@st.composite
def mass_moves(draw):
    """(y, p, p2): p2 moves mass from j to j2, with y < j < j2 or j2 < j < y."""
    k = draw(st.integers(3, 8))
    a, b, c = sorted(draw(distinct_classes(k, 3, 3)))
    y, j, j2 = draw(st.sampled_from([(a, b, c), (c, b, a)]))
    w = draw(weight_lists(k))
    w[j] = max(w[j], 1)
    d = draw(st.integers(1, w[j]))
    w2 = list(w)
    w2[j] -= d
    w2[j2] += d
    total = float(sum(w))
    return y, np.asarray(w, dtype=np.float64) / total, np.asarray(w2, dtype=np.float64) / total


def decision(w) -> int:
    """The arg-max decision, ties to the lowest class (``decide(P, "argmax")``)."""
    return int(np.argmax(w))


@cache
@st.composite
def correct_prediction(draw, k: int, forecast=forecast_weights) -> tuple[int, list[int]]:
    w = draw(forecast(k))
    return decision(w), w


@cache
@st.composite
def incorrect_prediction(draw, k: int, forecast=forecast_weights) -> tuple[int, list[int]]:
    w = draw(forecast(k))
    y = draw(st.sampled_from([i for i in range(k) if i != decision(w)]))
    return y, w


@cache
def prediction_lists(k: int, forecast, *, correct: bool) -> st.SearchStrategy[list]:
    """1 to 4 correct (or incorrect) predictions of ``k`` classes."""
    one = (correct_prediction if correct else incorrect_prediction)(k, forecast)
    return st.lists(one, min_size=1, max_size=4)


@st.composite
def correct_and_incorrect(draw, k_strategy=n_classes, forecast=forecast_weights):
    k = draw(k_strategy)
    good = draw(prediction_lists(k, forecast, correct=True))
    bad = draw(prediction_lists(k, forecast, correct=False))
    return good, bad


def as_rows(preds: list[tuple[int, list[int]]]) -> tuple[np.ndarray, np.ndarray]:
    y = np.array([t for t, _ in preds], dtype=np.int64)
    P = np.array([normalise(w) for _, w in preds])
    return y, P


# --------------------------------------------------------------------------------------------
# Exhaustive counterexample searches on a grid (for the properties declared False)
# --------------------------------------------------------------------------------------------

GRID_CLASSES = (3, 4)
GRID_STEPS = 10


@cache
def grid(k: int, n: int = GRID_STEPS) -> np.ndarray:
    """Integer weights of every probability vector with entries in multiples of 1/n."""
    rows = [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]
    return np.array(rows, dtype=np.int64)


def grid_scores(f: Score, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(W, S): grid weights and the scores S[i, y] of forecast i for every true class y."""
    W = grid(k)
    P = W / GRID_STEPS
    S = np.column_stack([f(np.full(len(W), y), P) for y in range(k)])
    return W, S


def find_not_proper(f: Score, strict: bool):
    """(q, p, E S(p), E S(q)) with q of unique argmax and E S(p) < E S(q) (or <= for strict)."""
    for k in GRID_CLASSES:
        W, S = grid_scores(f, k)
        for iq, wq in enumerate(W):
            top = np.sort(wq)[-2:]
            if top[1] == top[0]:
                continue
            q = wq / GRID_STEPS
            ys = np.flatnonzero(q > 0)
            E = S[:, ys] @ q[ys]
            others = np.arange(len(W)) != iq
            bad = others & ((E <= E[iq] + TOL) if strict else (E < E[iq] - 1e-9))
            if bad.any():
                ip = int(np.flatnonzero(bad)[np.argmin(E[bad])])
                return q, W[ip] / GRID_STEPS, E[ip], E[iq]
    return None


def find_not_local(f: Score):
    """(y, p, p2, S(p, y), S(p2, y)) with p_y == p2_y and different scores."""
    for k in GRID_CLASSES:
        W, S = grid_scores(f, k)
        for y in range(k):
            for v in range(GRID_STEPS + 1):
                idx = np.flatnonzero(W[:, y] == v)
                s = S[idx, y]
                finite = np.isfinite(s)
                if finite.any() and not finite.all():
                    i, j = idx[np.argmax(finite)], idx[np.argmin(finite)]
                elif finite.all() and s.max() - s.min() > 1e-9:
                    i, j = idx[np.argmin(s)], idx[np.argmax(s)]
                else:
                    continue
                return y, W[i] / GRID_STEPS, W[j] / GRID_STEPS, S[i, y], S[j, y]
    return None


def find_not_distance_sensitive(f: Score):
    """(y, p, p2, S(p, y), S(p2, y)): a same-side move away from y that does not worsen S.

    Only forecasts with a finite score are moved, so that an example is never inf -> inf.
    """
    for k in GRID_CLASSES:
        W, S = grid_scores(f, k)
        index = {tuple(w): i for i, w in enumerate(W.tolist())}
        for i, w in enumerate(W.tolist()):
            for y, j, j2 in itertools.permutations(range(k), 3):
                if not (y < j < j2 or j2 < j < y) or not np.isfinite(S[i, y]):
                    continue
                for d in range(1, w[j] + 1):
                    w2 = list(w)
                    w2[j] -= d
                    w2[j2] += d
                    i2 = index[tuple(w2)]
                    if not S[i2, y] > S[i, y]:
                        return y, W[i] / GRID_STEPS, W[i2] / GRID_STEPS, S[i, y], S[i2, y]
    return None


def find_not_superior(f: Score, classes=GRID_CLASSES):
    """(y1, p1, y2, p2, S1, S2): a correct (y1, p1) scoring no better than an incorrect one.

    Correct: the arg-max decision (ties to the lowest class) is the true class.
    """
    for k in classes:
        W, S = grid_scores(f, k)
        correct = np.arange(k)[None, :] == np.argmax(W, axis=1)[:, None]
        worst_correct = np.where(correct, S, -np.inf)
        best_incorrect = np.where(correct, np.inf, S)
        i1, y1 = np.unravel_index(np.argmax(worst_correct), S.shape)
        i2, y2 = np.unravel_index(np.argmin(best_incorrect), S.shape)
        if S[i1, y1] >= S[i2, y2]:
            return y1, W[i1] / GRID_STEPS, y2, W[i2] / GRID_STEPS, S[i1, y1], S[i2, y2]
    return None


# --------------------------------------------------------------------------------------------
# proper
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", declaring("proper", True))
@PROP_SETTINGS
@given(pair=truth_and_forecast())
def test_proper_holds(name: str, pair) -> None:
    q, p = pair
    f = score_fn(name)
    e_p, e_q = expected(f, p, q), expected(f, q, q)
    assert e_p >= e_q - TOL, f"{name}: q={q.tolist()} p={p.tolist()}: E S(p)={e_p} < {e_q}"


@pytest.mark.parametrize("name", declaring("proper", False))
def test_proper_refuted(name: str) -> None:
    found = find_not_proper(score_fn(name), strict=False)
    assert found is not None, f"{name} is declared not proper but no counterexample was found"
    _, _, e_p, e_q = found
    assert e_p < e_q - 1e-9


# --------------------------------------------------------------------------------------------
# strictly proper
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", declaring("strictly_proper", True))
@PROP_SETTINGS
@given(pair=truth_and_forecast())
def test_strictly_proper_holds(name: str, pair) -> None:
    q, p = pair
    assume(np.max(np.abs(p - q)) >= 1e-3)
    f = score_fn(name)
    e_p, e_q = expected(f, p, q), expected(f, q, q)
    assert e_p > e_q + TOL, f"{name}: q={q.tolist()} p={p.tolist()}: E S(p)={e_p} <= {e_q}"


@pytest.mark.parametrize("name", declaring("strictly_proper", False))
def test_strictly_proper_refuted(name: str) -> None:
    found = find_not_proper(score_fn(name), strict=True)
    assert found is not None, f"{name} is declared not strictly proper but no counterexample"
    q, p, e_p, e_q = found
    assert not np.array_equal(p, q) and e_p <= e_q + TOL


# --------------------------------------------------------------------------------------------
# local
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", declaring("local", True))
@PROP_SETTINGS
@given(case=same_true_probability())
def test_local_holds(name: str, case) -> None:
    y, p, p2 = case
    assert p2[y] == p[y]
    s = score_fn(name)([y, y], np.vstack([p, p2]))
    np.testing.assert_allclose(s[1], s[0], rtol=TOL, atol=TOL)


@pytest.mark.parametrize("name", declaring("local", False))
def test_local_refuted(name: str) -> None:
    found = find_not_local(score_fn(name))
    assert found is not None, f"{name} is declared not local but no counterexample was found"
    y, p, p2, s, s2 = found
    assert p[y] == p2[y] and s != s2


# --------------------------------------------------------------------------------------------
# distance-sensitive
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", declaring("distance_sensitive", True))
@PROP_SETTINGS
@given(case=mass_moves())
def test_distance_sensitive_holds(name: str, case) -> None:
    y, p, p2 = case
    before, after = score_fn(name)([y, y], np.vstack([p, p2]))
    assert after > before, f"{name}: y={y} p={p.tolist()} -> {p2.tolist()}: {before} -> {after}"


@pytest.mark.parametrize("name", declaring("distance_sensitive", False))
def test_distance_sensitive_refuted(name: str) -> None:
    found = find_not_distance_sensitive(score_fn(name))
    assert found is not None, f"{name} is declared not distance-sensitive but no counterexample"
    *_, before, after = found
    assert after <= before


# --------------------------------------------------------------------------------------------
# superior
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", declaring("superior", True))
@PROP_SETTINGS
@given(case=correct_and_incorrect())
def test_superior_holds(name: str, case) -> None:
    good, bad = case
    f = score_fn(name)
    s_good = f(*as_rows(good))
    s_bad = f(*as_rows(bad))
    assert s_good.max() < s_bad.min(), f"{name}: correct {good} vs incorrect {bad}"


@pytest.mark.parametrize("name", declaring("superior", False))
def test_superior_refuted(name: str) -> None:
    found = find_not_superior(score_fn(name))
    assert found is not None, f"{name} is declared not superior but no counterexample was found"
    y1, p1, y2, p2, s1, s2 = found
    assert decision(p1) == y1 and decision(p2) != y2 and s1 >= s2


# --------------------------------------------------------------------------------------------
# Explicit examples
# --------------------------------------------------------------------------------------------


def test_sa_rps_counterexample_of_definitions() -> None:
    """docs/definitions.md section 5: sa-RPS prefers the point mass on the median class to q."""
    q = np.array([0.4, 0.2, 0.4])
    point = np.array([0.0, 1.0, 0.0])
    sa, rps = score_fn("sa_rps"), score_fn("rps")
    assert expected(sa, q, q) == pytest.approx(0.232, abs=1e-12)
    assert expected(sa, point, q) == pytest.approx(0.2, abs=1e-12)
    assert expected(rps, q, q) == pytest.approx(0.24, abs=1e-12)
    assert expected(rps, point, q) == pytest.approx(0.4, abs=1e-12)
    assert ordmetrics.get_metric("sa_rps").properties["proper"] is False
    assert ordmetrics.get_metric("rps").properties["proper"] is True


def test_moving_mass_away_from_the_truth_can_improve_pbs() -> None:
    """y = 0, p = [0.3, 0.4, 0.2, 0.1]: moving 0.1 from class 1 to class 3 removes the penalty."""
    y = [0, 0]
    P = np.array([[0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.2, 0.2]])
    pbs = score_fn("pbs")(y, P)
    brier = score_fn("brier")(y, P)
    np.testing.assert_allclose(pbs, [0.70 + 0.75, 0.66], rtol=1e-12)
    np.testing.assert_allclose(brier, [0.70, 0.66], rtol=1e-12)  # brier improves as well
    assert score_fn("log_loss")(y, P)[0] == score_fn("log_loss")(y, P)[1]
    rps = score_fn("rps")(y, P)
    np.testing.assert_allclose(rps, [0.59 / 3, 0.69 / 3], rtol=1e-12)


UNPENALIZED = {"pbs": "pbs[ties='unpenalized']", "pll": "pll[ties='unpenalized']"}


@pytest.mark.parametrize("name", ["pbs", "pll"])
@pytest.mark.parametrize("q", [[0.7, 0.3], [0.5, 0.3, 0.2], [0.4, 0.3, 0.2, 0.1]])
def test_unpenalized_rules_reward_a_tied_forecast(name: str, q: list[float]) -> None:
    """ties="unpenalized": a tie escapes, so the uniform forecast beats q (unique argmax)."""
    q = np.array(q)
    k = q.size
    uniform = np.full(k, 1 / k)
    f = score_fn(UNPENALIZED[name])
    if name == "pbs":
        uncertainty, penalty = 1 - float(q @ q), (k - 1) / k
    else:
        uncertainty, penalty = -float(q @ np.log(q)), math.log(k)
    assert expected(f, q, q) == pytest.approx(uncertainty + penalty * (1 - q.max()), rel=1e-12)
    assert expected(f, uniform, q) == pytest.approx(penalty, rel=1e-12)
    assert expected(f, uniform, q) < expected(f, q, q) - 1e-3
    # the default penalizes the uniform forecast's decision (class 0) unless y = 0
    g = score_fn(name)
    assert expected(g, uniform, q) == pytest.approx(penalty + penalty * (1 - q[0]), rel=1e-12)
    assert expected(g, uniform, q) > expected(g, q, q) + 1e-3


@pytest.mark.parametrize("name", ["pbs", "pll"])
def test_issue_counterexample_q_8_11(name: str) -> None:
    """q = [8/11, 3/11]: p = [1/2, 1/2] beats p = q under the authors' rule, not the default."""
    q = np.array([8 / 11, 3 / 11])
    half = np.array([0.5, 0.5])
    f, g = score_fn(UNPENALIZED[name]), score_fn(name)
    if name == "pbs":  # E Brier(q) = 1 - q.q = 48/121; penalty 1/2 with probability 3/11
        e_q, e_half = 48 / 121 + 0.5 * 3 / 11, 0.5
    else:
        e_q = -(8 / 11) * math.log(8 / 11) - (3 / 11) * math.log(3 / 11) + math.log(2) * 3 / 11
        e_half = math.log(2)
    assert expected(f, q, q) == pytest.approx(e_q, rel=1e-12)
    assert expected(f, half, q) == pytest.approx(e_half, rel=1e-12)
    assert round(expected(f, q, q), 3) == {"pbs": 0.533, "pll": 0.775}[name]
    assert expected(f, half, q) < expected(f, q, q)
    # default: [1/2, 1/2] is decided for class 0, so y = 1 (probability 3/11) pays the penalty
    assert expected(g, q, q) == pytest.approx(e_q, rel=1e-12)
    assert expected(g, half, q) == pytest.approx(
        e_half + {"pbs": 0.5, "pll": math.log(2)}[name] * 3 / 11
    )
    assert expected(g, half, q) > expected(g, q, q)


@pytest.mark.parametrize("name", ["pbs", "pll"])
def test_issue_counterexample_superiority(name: str) -> None:
    """[1/3, 1/3, 1/3], y = 0 (correct) against [0.5, 0.5, 0], y = 1 (wrong by arg-max)."""
    P = np.array([[1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0.0]])
    y = [0, 1]
    s_unp = score_fn(UNPENALIZED[name])(y, P)
    s_def = score_fn(name)(y, P)
    if name == "pbs":
        np.testing.assert_allclose(s_unp, [2 / 3, 0.5], rtol=1e-12)
        np.testing.assert_allclose(s_def, [2 / 3, 0.5 + 2 / 3], rtol=1e-12)
    else:
        np.testing.assert_allclose(s_unp, [math.log(3), math.log(2)], rtol=1e-12)
        np.testing.assert_allclose(s_def, [math.log(3), math.log(2) + math.log(3)], rtol=1e-12)
    assert s_unp[0] > s_unp[1]  # the correct prediction scores worse: not superior
    assert s_def[0] < s_def[1]
    assert ordmetrics.decide(P, "argmax").tolist() == [0, 0]


@pytest.mark.parametrize("name", ["pbs", "pll"])
def test_tied_truth(name: str) -> None:
    """q = [0.5, 0.5, 0] (tied): p = q is decided for class 0, a mode; it is the unique optimum."""
    q = np.array([0.5, 0.5, 0.0])
    f = score_fn(name)
    c = {"pbs": 2 / 3, "pll": math.log(3)}[name]
    base = {"pbs": 0.5, "pll": math.log(2)}[name]
    assert expected(f, q, q) == pytest.approx(base + c / 2, rel=1e-12)
    for p in ([0.51, 0.49, 0.0], [0.49, 0.51, 0.0], [0.5, 0.49, 0.01]):
        assert expected(f, np.array(p), q) > expected(f, q, q) + 1e-5


@pytest.mark.parametrize("name", ["pbs", "pll"])
@PROP_SETTINGS
@given(pair=truth_and_forecast(forecast=unique_argmax_weights, truth=forecast_weights))
def test_unpenalized_proper_against_forecasts_with_a_unique_argmax(name: str, pair) -> None:
    """The authors' rule is strictly proper against forecasts with a unique most probable class
    whenever q has one too (the statement their Theorem 5 can support)."""
    q, p = pair
    f = score_fn(UNPENALIZED[name])
    assert expected(f, p, q) >= expected(f, q, q) - TOL or q.max() == np.sort(q)[-2]
    if np.max(np.abs(p - q)) >= 1e-3 and q.max() > np.sort(q)[-2]:
        assert expected(f, p, q) > expected(f, q, q) + TOL


@pytest.mark.parametrize("scale", ["eq4", "algorithm2", "authors_code"])
@pytest.mark.parametrize("ties", ["argmax", "unpenalized"])
def test_pbs_scales(scale: str, ties: str) -> None:
    """The scales against the paper's formulas, written out (Eq. 4; Algorithm 2; the code)."""
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        P = rng.dirichlet(np.ones(k), size=40)
        P[:5] = 1 / k  # ties
        P[5:10, :2] = (P[5:10, :2].sum(axis=1) / 2)[:, None]
        y = rng.integers(0, k, size=40)
        brier = ((P - np.eye(k)[y]) ** 2).sum(axis=1)
        if ties == "argmax":
            wrong = P.argmax(axis=1) != y
        else:
            wrong = (P > P[np.arange(40), y][:, None]).any(axis=1)
        if scale == "eq4":
            want = brier + (k - 1) / k * wrong
        elif scale == "algorithm2":
            want = brier / k + (k - 1) / k**2 * wrong
        else:
            want = brier / k + (k - 1) / k * wrong
        got = ordmetrics.pbs(y, P, reduction="none", ties=ties, scale=scale)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_penalty_options_are_checked() -> None:
    with pytest.raises(ValueError, match="ties must be one of 'argmax', 'unpenalized'"):
        ordmetrics.pbs([0], [[1.0, 0.0]], ties="strict")
    with pytest.raises(ValueError, match="scale must be one of 'eq4', 'algorithm2'"):
        ordmetrics.pbs([0], [[1.0, 0.0]], scale="alg2")
    with pytest.raises(ValueError, match="ties must be one of"):
        ordmetrics.pll([0], [[1.0, 0.0]], ties=None)
    with pytest.raises(TypeError, match="scale"):
        ordmetrics.pll([0], [[1.0, 0.0]], scale="eq4")  # PLL has one scale only


# --------------------------------------------------------------------------------------------
# Properties declared for K = 2 (spec.properties_for(2))
# --------------------------------------------------------------------------------------------

K2 = st.just(2)


@pytest.mark.parametrize("name", declaring_for_k2("superior_without_ties", True))
@PROP_SETTINGS
@given(case=correct_and_incorrect(k_strategy=K2, forecast=unique_argmax_weights))
def test_k2_superior_without_ties_holds(name: str, case) -> None:
    good, bad = case
    f = score_fn(name)
    assert f(*as_rows(good)).max() < f(*as_rows(bad)).min(), f"{name}: {good} vs {bad}"


@pytest.mark.parametrize("name", declaring_for_k2("superior", False))
def test_k2_superior_refuted_by_the_tie(name: str) -> None:
    """[1/2, 1/2] is correct for y = 0 and wrong for y = 1: the same score for both."""
    s = score_fn(name)([0, 1], np.array([[0.5, 0.5], [0.5, 0.5]]))
    assert s[0] >= s[1]


@pytest.mark.parametrize("name", declaring_for_k2("proper", True))
@PROP_SETTINGS
@given(pair=truth_and_forecast(k_strategy=K2))
def test_k2_proper_holds(name: str, pair) -> None:
    q, p = pair
    f = score_fn(name)
    assert expected(f, p, q) >= expected(f, q, q) - TOL
    if ordmetrics.get_metric(name).properties_for(2)["strictly_proper"] and (
        np.max(np.abs(p - q)) >= 1e-3
    ):
        assert expected(f, p, q) > expected(f, q, q) + TOL


@pytest.mark.parametrize("name", declaring_for_k2("proper", False))
def test_k2_proper_refuted(name: str) -> None:
    f = score_fn(name)
    q = np.array([0.7, 0.3])
    assert expected(f, np.array([1.0, 0.0]), q) < expected(f, q, q) - 1e-9


def test_properties_for_k() -> None:
    brier = ordmetrics.get_metric("brier")
    assert brier.properties_for(2)["superior_without_ties"] is True
    assert brier.properties_for(2)["superior"] is False
    assert brier.properties_for(3)["superior_without_ties"] is False
    sa = ordmetrics.get_metric("sa_rps")
    assert sa.properties_for(2)["strictly_proper"] is True
    assert sa.properties_for(3)["proper"] is False
    pbs = ordmetrics.get_metric("pbs")
    assert pbs.properties_for(2)["superior"] is True
    assert pbs.properties["strictly_proper"] is True
    assert pbs.variants["ties='unpenalized'"].options == {"ties": "unpenalized"}
    assert not any(pbs.variants["ties='unpenalized'"].properties.values())


# --------------------------------------------------------------------------------------------
# New rules: explicit counterexamples
# --------------------------------------------------------------------------------------------


def test_cdf_l1_is_not_proper() -> None:
    """E |F - H| is linear in F: q = [0.4, 0.2, 0.4] prefers the point mass on the median."""
    q = np.array([0.4, 0.2, 0.4])
    f = score_fn("cdf_l1")
    assert expected(f, q, q) == pytest.approx(0.48, abs=1e-12)
    assert expected(f, np.array([0.0, 1.0, 0.0]), q) == pytest.approx(0.4, abs=1e-12)


def test_spherical_is_not_superior() -> None:
    """[0.34, 0.33, 0.33], y = 0 (correct) scores worse than [0.5, 0.49, 0.01], y = 1 (wrong)."""
    P = np.array([[0.34, 0.33, 0.33], [0.5, 0.49, 0.01]])
    s = score_fn("spherical")([0, 1], P)
    want = [
        1 - 0.34 / math.sqrt(0.34**2 + 2 * 0.33**2),
        1 - 0.49 / math.sqrt(0.5**2 + 0.49**2 + 0.01**2),
    ]
    np.testing.assert_allclose(s, want, rtol=1e-13)
    assert s[0] > s[1]
