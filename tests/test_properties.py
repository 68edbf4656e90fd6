"""Property-based verification of the properties every scoring rule declares in the registry.

The tests read ``get_metric(name).properties`` for every rule of ``list_metrics("scoring_rule")``:
for each property there is one test over the rules that declare it True (a hypothesis search
for a violation, which must fail) and one over the rules that declare it False (an exhaustive
search on a probability grid, which must find a counterexample). The registry can therefore
claim nothing false in either direction. Scores are lower-is-better and always come from the
library (``reduction="none"``).

Definitions (DEFINITIONS.md section 5, made precise):

* **proper**: for every true distribution q with a unique most probable class (margin at least
  1e-3) and every forecast p, E_{Y~q} S(p, Y) >= E_{Y~q} S(q, Y) - 1e-12. The expectation is
  computed exactly, sum_y q_y S(p, y), over the classes with q_y > 0 (so an infinite score of a
  class that cannot occur does not count, and an infinite expected score of p is allowed).
  Forecasts with tied probabilities are drawn on purpose: ties are the edge case of the
  penalized rules, which do not penalize a tie.
* **strictly proper**: in addition E S(p) > E S(q) + 1e-12 whenever max_k |p_k - q_k| >= 1e-3,
  which keeps the gap (||p - q||^2 for brier, a Kullback-Leibler divergence for log_loss, ...)
  far above rounding.
* **local**: S(p, y) depends on p only through p_y: two forecasts with the same p_y score the
  same.
* **distance-sensitive**: moving mass delta > 0 from a class j to a class j2 farther from y on
  the same side of y, and not from y itself (y < j < j2 or j2 < j < y), strictly increases
  (worsens) the score.
* **superior** (Ahmadian et al.): for a fixed K, every correct prediction (no class strictly
  more probable than the true class; ties count as correct) scores strictly better than every
  incorrect prediction (some class strictly more probable than the true class), whatever the
  true classes of the two.

Probability vectors are integer weights 0..1000 normalised in float64, so every nonzero
probability is at least about 1e-4 and rows sum to 1 within 1e-15. All hypothesis tests are
derandomized, so a run is reproducible.

Explicit examples: the sa-RPS counterexample of DEFINITIONS section 5 (q = [0.4, 0.2, 0.4]);
a forecast that moves mass away from the truth and improves PBS; and the tie caveat of the
penalized rules. Because a tie is never penalized, PBS and PLL reward a forecast that ties
several classes: with q = [0.5, 0.3, 0.2] (unique argmax) the uniform forecast has a lower
expected PBS and PLL than q itself. A true distribution with a tied argmax is, on the contrary,
harmless (breaking its tie only adds a penalty). The registry therefore declares PBS and PLL
not proper. Their properness does hold whenever the forecast has a unique most probable class,
for any q; that restricted statement is tested for PBS, PLL and every rule declared proper.
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
from ordmetrics._registry import PROPERTY_NAMES

RULES = ordmetrics.list_metrics("scoring_rule")
TOL = 1e-12
MAX_WEIGHT = 1000
PROP_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)

Score = Callable[..., np.ndarray]


def declaring(prop: str, value: bool) -> list[str]:
    """Rules whose registry entry declares ``prop`` equal to ``value``."""
    assert prop in PROPERTY_NAMES
    return [n for n in RULES if ordmetrics.get_metric(n).properties[prop] is value]


def score_fn(name: str) -> Score:
    spec = ordmetrics.get_metric(name)

    def f(y, P) -> np.ndarray:
        y = np.asarray(y, dtype=np.int64)
        P = np.atleast_2d(np.asarray(P, dtype=np.float64))
        if P.shape[0] == 1 and y.size > 1:
            P = np.repeat(P, y.size, axis=0)
        return np.asarray(spec(y, P, reduction="none"), dtype=np.float64)

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


def weight_lists(k: int) -> st.SearchStrategy[list[int]]:
    """Non-negative integer weights of ``k`` classes, not all zero."""
    return st.lists(st.integers(0, MAX_WEIGHT), min_size=k, max_size=k).filter(lambda w: sum(w) > 0)


@st.composite
def tied_weight_lists(draw, k: int) -> list[int]:
    """Weights where at least two classes share the largest weight."""
    w = draw(weight_lists(k))
    top = max(w)
    tied = draw(st.lists(st.integers(0, k - 1), min_size=2, max_size=k, unique=True))
    for i in tied:
        w[i] = top
    return w


def forecast_weights(k: int) -> st.SearchStrategy[list[int]]:
    return st.one_of(weight_lists(k), tied_weight_lists(k))


@st.composite
def unique_argmax_weights(draw, k: int) -> list[int]:
    """Weights with one class ahead of all others by at least 10 units (margin > 1e-3)."""
    w = draw(weight_lists(k))
    i = draw(st.integers(0, k - 1))
    w[i] = max(w) + draw(st.integers(10, MAX_WEIGHT))
    return w


@st.composite
def truth_and_forecast(draw, forecast=forecast_weights, truth=unique_argmax_weights):
    k = draw(n_classes)
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
    a, b, c = sorted(draw(st.lists(st.integers(0, k - 1), min_size=3, max_size=3, unique=True)))
    y, j, j2 = draw(st.sampled_from([(a, b, c), (c, b, a)]))
    w = draw(weight_lists(k))
    w[j] = max(w[j], 1)
    d = draw(st.integers(1, w[j]))
    w2 = list(w)
    w2[j] -= d
    w2[j2] += d
    total = float(sum(w))
    return y, np.asarray(w, dtype=np.float64) / total, np.asarray(w2, dtype=np.float64) / total


@st.composite
def correct_prediction(draw, k: int) -> tuple[int, list[int]]:
    w = draw(forecast_weights(k))
    y = draw(st.sampled_from([i for i in range(k) if w[i] == max(w)]))
    return y, w


@st.composite
def incorrect_prediction(draw, k: int) -> tuple[int, list[int]]:
    w = draw(forecast_weights(k).filter(lambda w: min(w) < max(w)))
    y = draw(st.sampled_from([i for i in range(k) if w[i] < max(w)]))
    return y, w


@st.composite
def correct_and_incorrect(draw):
    k = draw(n_classes)
    good = draw(st.lists(correct_prediction(k), min_size=1, max_size=4))
    bad = draw(st.lists(incorrect_prediction(k), min_size=1, max_size=4))
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


def find_not_superior(f: Score):
    """(y1, p1, y2, p2, S1, S2): a correct (y1, p1) scoring no better than an incorrect one."""
    for k in GRID_CLASSES:
        W, S = grid_scores(f, k)
        correct = W == W.max(axis=1, keepdims=True)
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
    assert p1[y1] == p1.max() and p2[y2] < p2.max() and s1 >= s2


# --------------------------------------------------------------------------------------------
# Explicit examples
# --------------------------------------------------------------------------------------------


def test_sa_rps_counterexample_of_definitions() -> None:
    """DEFINITIONS section 5: sa-RPS prefers the point mass on the median class to q."""
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


@pytest.mark.parametrize("name", ["pbs", "pll"])
@pytest.mark.parametrize("q", [[0.7, 0.3], [0.5, 0.3, 0.2], [0.4, 0.3, 0.2, 0.1]])
def test_penalized_rules_reward_a_tied_forecast(name: str, q: list[float]) -> None:
    """A tie is never penalized, so the uniform forecast beats a q with a unique argmax."""
    q = np.array(q)
    k = q.size
    uniform = np.full(k, 1 / k)
    f = score_fn(name)
    if name == "pbs":
        uncertainty, penalty = 1 - float(q @ q), (k - 1) / k
    else:
        uncertainty, penalty = -float(q @ np.log(q)), math.log(k)
    assert expected(f, q, q) == pytest.approx(uncertainty + penalty * (1 - q.max()), rel=1e-12)
    assert expected(f, uniform, q) == pytest.approx(penalty, rel=1e-12)
    assert expected(f, uniform, q) < expected(f, q, q) - 1e-3


@pytest.mark.parametrize("name", ["pbs", "pll"])
def test_breaking_a_tied_truth_is_penalized(name: str) -> None:
    """q = [0.5, 0.5, 0] (tied argmax) pays no penalty; a forecast breaking the tie does."""
    q = np.array([0.5, 0.5, 0.0])
    p = np.array([0.51, 0.49, 0.0])
    f = score_fn(name)
    base = {"pbs": 0.5, "pll": math.log(2)}[name]
    assert expected(f, q, q) == pytest.approx(base, rel=1e-12)
    assert expected(f, p, q) - expected(f, q, q) > {"pbs": 1 / 3, "pll": math.log(3) / 2}[name]


@pytest.mark.parametrize("name", sorted({*declaring("proper", True), "pbs", "pll"}))
@PROP_SETTINGS
@given(pair=truth_and_forecast(forecast=unique_argmax_weights, truth=forecast_weights))
def test_proper_against_forecasts_with_a_unique_argmax(name: str, pair) -> None:
    """Any q, ties included, against forecasts p with a unique most probable class.

    For PBS and PLL this is the strict statement: a forecast p != q loses by more than TOL.
    """
    q, p = pair
    f = score_fn(name)
    assert expected(f, p, q) >= expected(f, q, q) - TOL
    if name in ("pbs", "pll") and np.max(np.abs(p - q)) >= 1e-3 and q.max() > np.sort(q)[-2]:
        assert expected(f, p, q) > expected(f, q, q) + TOL
