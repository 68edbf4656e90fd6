"""Retention curves and AURSC (docs/definitions.md, section 6) against a from-scratch
computation.

The reference below ranks the rows with a plain Python sort on (score, position), walks the
ranking accumulating weight up to the retained weight T(f) of docs/definitions.md section 6,
and calls the public agreement metric on the retained rows: no cumulative counts, nothing
shared with the implementation but the public metric functions.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.evaluation.retention import (
    DEFAULT_FRACTIONS,
    RetentionCurve,
    _area,
    aursc,
    rank_best_first,
    retention_curve,
)
from ordmetrics.evaluation.retention_sampler import hypergeometric_counts
from ordmetrics.metrics.agreement import AGREEMENT_METRICS
from ordmetrics.metrics.decisions import decide

TOL = 1e-12

#: Options of each metric exercised by the from-scratch comparison.
OPTIONS = {
    "kappa": [{}, {"weights": "linear"}],
    "expected_cost": [{}, {"costs": "squared"}, {"costs": "squared", "normalize": True}],
    "within_k_accuracy": [{"k": 0}, {"k": 1}],
}
CASES = [(m, o) for m in AGREEMENT_METRICS for o in OPTIONS.get(m, [{}])]
FRACTIONS = [1.0, 0.9, 0.77, 0.5, 0.33, 0.1, 0.02]


# --------------------------------------------------------------------------------------------
# From-scratch reference
# --------------------------------------------------------------------------------------------


def ref_retained(scores, weight, f):
    """(rows, weights) retained at fraction f, by a literal walk down the ranking."""
    n = len(scores)
    w = [1.0] * n if weight is None else [float(v) for v in weight]
    total = sum(w)
    integer = all(v == int(v) for v in w)
    target = max(1, math.floor(f * total + 0.5)) if integer else f * total
    ranking = sorted(range(n), key=lambda i: (float(scores[i]), i))
    rows, taken, acc = [], [], 0.0
    for i in ranking:
        if acc >= target:
            break
        take = min(w[i], target - acc)
        if take > 0:
            rows.append(i)
            taken.append(take)
            acc += take
    return rows, taken, target


def ref_value(metric, y, yhat, rows, taken, k, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return getattr(ordmetrics, metric)(
            np.asarray(y)[rows],
            np.asarray(yhat)[rows],
            labels=list(range(k)),
            sample_weight=taken,
            **options,
        )


def ref_curve(metric, y, yhat, scores, weight, fractions, k, options):
    out = []
    for f in fractions:
        rows, taken, _ = ref_retained(scores, weight, f)
        out.append(ref_value(metric, y, yhat, rows, taken, k, options))
    return np.array(out)


def data(seed=0, n=61, k=4):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = np.minimum((np.cumsum(P, axis=1) < rng.random((n, 1))).sum(axis=1), k - 1)
    return y, P


def quiet(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return retention_curve(**kwargs)


# --------------------------------------------------------------------------------------------
# Equality with the from-scratch computation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("metric", "options"), CASES)
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_matches_from_scratch_for_every_metric(metric, options, weights):
    y, P = data(seed=1)
    n, k = P.shape
    rng = np.random.default_rng(2)
    w = {
        "none": None,
        "integer": rng.integers(0, 4, n).astype(float),
        "real": rng.uniform(0, 2, n),
    }[weights]
    scores = np.round(ordmetrics.rps(y, P, reduction="none"), 1)  # many ties
    assert np.unique(scores).size < n / 4
    for fractions in (FRACTIONS, None):
        curve = quiet(
            y_true=y,
            y_proba=P,
            by=scores,
            metric=metric,
            fractions=fractions,
            sample_weight=w,
            metric_kwargs=options,
        )
        fr = DEFAULT_FRACTIONS if fractions is None else fractions
        ref = ref_curve(metric, y, P.argmax(axis=1), scores, w, fr, k, options)
        np.testing.assert_allclose(curve.values, ref, rtol=TOL, atol=TOL)
        targets = [ref_retained(scores, w, f)[2] for f in fr]
        np.testing.assert_allclose(curve.n_retained, targets, rtol=TOL)


@pytest.mark.parametrize("rule", ordmetrics.list_metrics("scoring_rule"))
def test_every_scoring_rule_as_by(rule):
    y, P = data(seed=3, n=80, k=5)
    P[5] = [0.0, 0.0, 0.0, 0.0, 1.0]  # an infinite log score ranks last
    y[5] = 0
    curve = retention_curve(y, P, by=rule, metric="qwk")
    scores = ordmetrics.get_metric(rule)(y, P, reduction="none")
    ref = ref_curve("qwk", y, P.argmax(axis=1), scores, None, DEFAULT_FRACTIONS, 5, {})
    np.testing.assert_allclose(curve.values, ref, rtol=TOL, atol=TOL)
    assert curve.by == rule and curve.metric == "qwk" and curve.decision == "argmax"


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    k=st.integers(2, 5),
    metric=st.sampled_from(AGREEMENT_METRICS),
    integer=st.booleans(),
)
def test_matches_from_scratch_property(seed, n, k, metric, integer):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    scores = rng.integers(0, 4, n).astype(float)  # heavy ties
    w = rng.integers(0, 3, n).astype(float) if integer else rng.uniform(0, 1, n)
    w[0] = max(w[0], 1.0)
    fractions = np.sort(rng.uniform(0.01, 1.0, 5))[::-1]
    fractions = np.unique(fractions)[::-1]
    curve = quiet(
        y_true=y, y_proba=P, by=scores, metric=metric, fractions=fractions, sample_weight=w
    )
    ref = ref_curve(metric, y, P.argmax(axis=1), scores, w, fractions, k, {})
    np.testing.assert_allclose(curve.values, ref, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------------------------
# Fractions and the rounding of n(f)
# --------------------------------------------------------------------------------------------


def test_default_fractions_exactly():
    expected = [1.0, 0.975, 0.95, 0.925, 0.9, 0.875, 0.85, 0.825, 0.8, 0.775, 0.75]
    expected += [0.725, 0.7, 0.675, 0.65, 0.625, 0.6, 0.575, 0.55, 0.525, 0.5]
    assert DEFAULT_FRACTIONS.tolist() == expected
    assert DEFAULT_FRACTIONS.tolist() == np.round(np.linspace(1, 0.5, 21), 10).tolist()
    y, P = data()
    curve = retention_curve(y, P)
    assert curve.fractions.tolist() == expected
    assert curve.values.shape == curve.n_retained.shape == (21,)


@pytest.mark.parametrize(
    ("f", "n_kept"),
    [
        (0.25, 3),  # floor(2.5 + 0.5) = 3: f N + 1/2 exactly an integer
        (0.45, 5),  # floor(4.5 + 0.5) = 5
        (0.35, 4),  # floor(3.5 + 0.5) = 4
        (0.24, 2),  # floor(2.9) = 2
        (0.26, 3),  # floor(3.1) = 3
        (0.05, 1),  # floor(1.0) = 1
        (0.04, 1),  # floor(0.9) = 0, at least one row
        (1.0, 10),
    ],
)
def test_rounding_of_n(f, n_kept):
    # ten rows ranked 0..9 by score; only row 2 is predicted right, so accuracy tells n(f)
    y = np.zeros(10, dtype=int)
    pred = np.ones(10, dtype=int)
    pred[2] = 0
    P = np.full((10, 2), 0.5)
    curve = retention_curve(
        y, P, by=np.arange(10.0), metric="accuracy", fractions=[f], decision=pred
    )
    assert curve.n_retained.tolist() == [n_kept]
    assert curve.n_retained.dtype == np.int64
    assert curve.values[0] == (1 / n_kept if n_kept >= 3 else 0.0)


def test_ties_are_broken_by_original_position():
    # scores tie in pairs; the earlier row of a tie is retained first
    scores = np.array([0.5, 0.1, 0.5, 0.1, 0.5])  # ranking: 1, 3, 0, 2, 4
    y = np.zeros(5, dtype=int)
    pred = np.array([0, 1, 1, 1, 1])  # only row 0 right
    P = np.full((5, 2), 0.5)
    curve = retention_curve(
        y, P, by=scores, metric="accuracy", fractions=[1.0, 0.8, 0.6, 0.4], decision=pred
    )
    # kept: all; {1, 3, 0, 2}; {1, 3, 0}; {1, 3}
    np.testing.assert_allclose(curve.values, [1 / 5, 1 / 4, 1 / 3, 0.0], rtol=TOL)
    pred = np.array([1, 1, 1, 1, 0])  # only row 4 right: it is the last of the ties
    curve = retention_curve(
        y, P, by=scores, metric="accuracy", fractions=[1.0, 0.8, 0.6], decision=pred
    )
    np.testing.assert_allclose(curve.values, [1 / 5, 0.0, 0.0], rtol=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_rank_best_first_with_and_without_head(seed):
    rng = np.random.default_rng(seed)
    for scores in (rng.random(50), rng.integers(0, 6, 50).astype(float), np.zeros(50)):
        stable = np.argsort(scores, kind="stable")
        assert rank_best_first(scores).tolist() == stable.tolist()
        for head in (1, 10, 25, 49):
            got = rank_best_first(scores, head=head)
            assert sorted(got[:head].tolist()) == sorted(stable[:head].tolist())
            assert got[head:].tolist() == stable[head:].tolist()


# --------------------------------------------------------------------------------------------
# by, decision, labels
# --------------------------------------------------------------------------------------------


def test_by_as_name_callable_and_array_agree():
    y, P = data(seed=4)
    scores = ordmetrics.sa_rps(y, P, reduction="none")
    named = retention_curve(y, P, by="sa_rps")
    library = retention_curve(y, P, by=ordmetrics.sa_rps)  # gets reduction="none"
    spec = retention_curve(y, P, by=ordmetrics.get_metric("sa_rps"))

    def my_score(y_true, y_proba):
        return ordmetrics.sa_rps(y_true, y_proba, reduction="none")

    custom = retention_curve(y, P, by=my_score)
    anonymous = retention_curve(y, P, by=lambda t, p: ordmetrics.sa_rps(t, p, reduction="none"))
    array = retention_curve(y, P, by=scores)
    for c in (library, spec, custom, anonymous, array):
        np.testing.assert_array_equal(c.values, named.values)
    names = [c.by for c in (named, library, spec, custom, anonymous, array)]
    assert names == ["sa_rps", "sa_rps", "sa_rps", "my_score", "custom", "custom"]


def test_callable_gets_labels_when_it_takes_them():
    labels = ["none", "mild", "severe"]
    y = np.array(["mild", "none", "severe", "severe", "mild", "none"])
    P = np.array(
        [
            [0.2, 0.7, 0.1],
            [0.6, 0.3, 0.1],
            [0.1, 0.2, 0.7],
            [0.5, 0.4, 0.1],
            [0.3, 0.3, 0.4],
            [0.8, 0.1, 0.1],
        ]
    )
    seen = {}

    def score(y_true, y_proba, labels=None):
        seen["labels"] = labels
        return ordmetrics.rps(y_true, y_proba, labels=labels, reduction="none")

    curve = retention_curve(y, P, by=score, labels=labels, fractions=[1.0, 0.5])
    assert seen["labels"] == labels
    codes = np.array([labels.index(v) for v in y])
    ref = retention_curve(codes, P, by="rps", fractions=[1.0, 0.5])
    np.testing.assert_array_equal(curve.values, ref.values)


@pytest.mark.parametrize("rule", ["argmax", "median", "expected", "min_cost"])
def test_decision_rules(rule):
    y, P = data(seed=5, n=90, k=5)
    curve = retention_curve(y, P, decision=rule, metric="mae", fractions=FRACTIONS)
    scores = ordmetrics.rps(y, P, reduction="none")
    ref = ref_curve("mae", y, decide(P, rule), scores, None, FRACTIONS, 5, {})
    np.testing.assert_allclose(curve.values, ref, rtol=TOL, atol=TOL)
    assert curve.decision == rule


def test_hard_prediction_array_indices_and_labels():
    y, P = data(seed=6, n=50, k=3)
    rng = np.random.default_rng(0)
    pred = rng.integers(0, 3, 50)
    with pytest.warns(UndefinedMetricWarning, match="fractions 0.02"):  # one row kept
        curve = retention_curve(y, P, decision=pred, metric="qwk", fractions=FRACTIONS)
    scores = ordmetrics.rps(y, P, reduction="none")
    ref = ref_curve("qwk", y, pred, scores, None, FRACTIONS, 3, {})
    np.testing.assert_allclose(curve.values, ref, rtol=TOL, atol=TOL)
    assert curve.decision == "custom"
    names = np.array(["low", "mid", "high"])
    with_labels = quiet(
        y_true=names[y],
        y_proba=P,
        decision=list(names[pred]),
        labels=list(names),
        metric="qwk",
        fractions=FRACTIONS,
    )
    np.testing.assert_array_equal(with_labels.values, curve.values)  # NaN == NaN here


def test_string_labels_and_frames_equal_integer_codes():
    pd = pytest.importorskip("pandas")
    y, P = data(seed=7, n=40, k=3)
    names = ["low", "mid", "high"]
    ref = retention_curve(y, P, metric="amae")
    strings = retention_curve(np.array(names, dtype=object)[y], P, labels=names, metric="amae")
    cat = pd.Series(pd.Categorical.from_codes(y, categories=names, ordered=True))
    frame = retention_curve(cat, pd.DataFrame(P, columns=names), metric="amae")
    np.testing.assert_array_equal(strings.values, ref.values)
    np.testing.assert_array_equal(frame.values, ref.values)


def test_float32_probabilities():
    y, P = data(seed=8)
    curve = retention_curve(y, P.astype(np.float32), metric="qwk")
    scores = ordmetrics.rps(y, P.astype(np.float32), reduction="none")
    ref = ref_curve(
        "qwk", y, P.astype(np.float32).argmax(1), scores, None, DEFAULT_FRACTIONS, 4, {}
    )
    np.testing.assert_allclose(curve.values, ref, rtol=TOL, atol=TOL)


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["qwk", "mae", "macro_f1"])
def test_integer_weights_equal_repeated_rows(metric):
    y, P = data(seed=9, n=45, k=4)
    rng = np.random.default_rng(1)
    w = rng.integers(0, 5, 45)
    scores = np.round(ordmetrics.rps(y, P, reduction="none"), 2)
    weighted = quiet(y_true=y, y_proba=P, by=scores, metric=metric, sample_weight=w, n_random=30)
    repeated = quiet(
        y_true=np.repeat(y, w),
        y_proba=np.repeat(P, w, axis=0),
        by=np.repeat(scores, w),
        metric=metric,
        n_random=30,
    )
    for field in ("values", "n_retained", "random", "oracle"):
        a, b = getattr(weighted, field), getattr(repeated, field)
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)
    assert weighted.area == pytest.approx(repeated.area, rel=1e-14)


def test_cut_inside_a_repeated_row():
    # weights 3, 1, 2, 1 (W = 7), rows ranked 0, 1, 2, 3; f = 0.3 keeps T = floor(2.6) = 2
    # units: two of the three copies of row 0
    y = np.array([0, 1, 2, 0])
    pred = np.array([0, 2, 2, 1])
    P = np.full((4, 3), 1 / 3)
    w = np.array([3, 1, 2, 1])
    fractions = [1.0, 0.8, 0.5, 0.3]  # T = 7, 6, 4, 2
    curve = retention_curve(
        y, P, by=np.arange(4.0), metric="mae", decision=pred, sample_weight=w, fractions=fractions
    )
    assert curve.n_retained.tolist() == [7, 6, 4, 2]
    # T = 6 keeps rows 0, 1 and 2 of the 2 copies of row 2 (errors 0, 1, 0); T = 4 keeps
    # row 0, row 1; T = 2 keeps 2 copies of row 0
    np.testing.assert_allclose(curve.values, [2 / 7, 1 / 6, 1 / 4, 0.0], rtol=TOL)
    repeated = retention_curve(
        np.repeat(y, w),
        np.repeat(P, w, axis=0),
        by=np.repeat(np.arange(4.0), w),
        metric="mae",
        decision=np.repeat(pred, w),
        fractions=fractions,
    )
    np.testing.assert_array_equal(curve.values, repeated.values)


def test_partial_boundary_row_with_real_weights():
    y = np.array([0, 1, 2])
    pred = np.array([0, 2, 2])
    P = np.full((3, 3), 1 / 3)
    w = np.array([0.5, 1.5, 2.0])  # W = 4, f = 0.5 keeps 2: row 0 and 1.5 of row 1
    curve = retention_curve(
        y, P, by=np.arange(3.0), metric="mae", decision=pred, sample_weight=w, fractions=[0.5]
    )
    assert curve.n_retained.dtype == np.float64 and curve.n_retained.tolist() == [2.0]
    assert curve.values[0] == pytest.approx(1.5 / 2.0, rel=TOL)


@pytest.mark.parametrize("metric", ["qwk", "amae", "macro_f1", "accuracy"])
def test_weight_zero_rows_never_count(metric):
    y, P = data(seed=10, n=40, k=4)
    scores = ordmetrics.rps(y, P, reduction="none")
    base = retention_curve(y, P, metric=metric, by=scores)
    # add rows of weight 0 with the best, the worst and middling scores, of every class
    rng = np.random.default_rng(3)
    extra_y = np.array([0, 3, 1, 2, 3, 0])
    extra_P = rng.dirichlet(np.ones(4), size=6)
    extra_s = np.array([-1.0, 99.0, np.median(scores), -5.0, 99.0, scores[0]])
    y2 = np.concatenate([extra_y[:3], y, extra_y[3:]])
    P2 = np.concatenate([extra_P[:3], P, extra_P[3:]])
    s2 = np.concatenate([extra_s[:3], scores, extra_s[3:]])
    w2 = np.concatenate([np.zeros(3), np.ones(40), np.zeros(3)])
    curve = retention_curve(y2, P2, metric=metric, by=s2, sample_weight=w2)
    np.testing.assert_allclose(curve.values, base.values, rtol=TOL, atol=TOL)
    assert curve.n_retained.tolist() == base.n_retained.tolist()


def test_scaling_real_weights_does_not_change_the_curve():
    y, P = data(seed=11)
    w = np.random.default_rng(4).uniform(0.1, 3, y.size)
    a = retention_curve(y, P, sample_weight=w, metric="qwk", n_random=0)
    b = retention_curve(y, P, sample_weight=w * 7.3, metric="qwk", n_random=0)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-10)


# --------------------------------------------------------------------------------------------
# AURSC
# --------------------------------------------------------------------------------------------


def test_area_of_a_constant_curve_is_the_constant():
    for m in (0.7, -0.123456789, 1.0, 1e-300):
        assert _area(DEFAULT_FRACTIONS, np.full(21, m)) == m
        assert _area(np.array([1.0, 0.9, 0.33, 0.2]), np.full(4, m)) == m
    # every prediction one class off: MAE 1 at every fraction
    y, P = data(seed=12, k=4)
    pred = np.where(y == 0, 1, y - 1)
    curve = retention_curve(y, P, metric="mae", decision=pred)
    assert curve.values.tolist() == [1.0] * 21
    assert curve.area == 1.0
    assert aursc(y, P, metric="mae", decision=pred) == 1.0


def test_area_by_hand():
    # five rows ranked 0..4; only rows 0 and 3 right
    y = np.zeros(5, dtype=int)
    pred = np.array([0, 1, 1, 0, 1])
    P = np.full((5, 2), 0.5)
    kwargs = dict(by=np.arange(5.0), metric="accuracy", decision=pred, fractions=[1.0, 0.8, 0.4])
    curve = retention_curve(y, P, **kwargs)
    # n = 5, 4, 2: accuracies 2/5, 2/4, 1/2
    np.testing.assert_allclose(curve.values, [0.4, 0.5, 0.5], rtol=TOL)
    by_hand = (0.2 * (0.4 + 0.5) / 2 + 0.4 * (0.5 + 0.5) / 2) / 0.6
    assert curve.area == pytest.approx(by_hand, rel=TOL)
    assert aursc(y, P, **kwargs) == pytest.approx(by_hand, rel=TOL)


def test_single_fraction_area_is_its_value():
    y, P = data(seed=13)
    curve = retention_curve(y, P, fractions=[0.6])
    assert curve.area == curve.values[0]


def test_aursc_equals_the_curve_area():
    y, P = data(seed=14, n=200, k=5)
    for metric in ("qwk", "expected_cost"):
        curve = retention_curve(y, P, by="brier", metric=metric)
        assert aursc(y, P, by="brier", metric=metric) == curve.area


def test_aursc_is_registered_by_its_spec():
    spec = ordmetrics.get_metric("aursc")
    assert spec.func is aursc and spec.kind == "retention"
    assert spec.input == "probabilities" and spec.accumulates is None
    assert spec.direction == "maximize" and spec.range == (-1.0, 1.0) and spec.perfect == 1.0
    assert ordmetrics.list_metrics("retention") == ["aursc"]
    assert ordmetrics.list_metrics()[-1] == "aursc"  # after the kinds with an accumulator
    y = np.array([0, 1, 2, 2, 1, 0, 2])
    assert aursc(y, np.eye(3)[y]) == spec.perfect
    assert spec(y, np.eye(3)[y], metric="mae") == 0.0  # the set metric's perfect value


def test_aursc_without_ties_does_not_depend_on_the_row_order():
    """Ties are cut by position (the common property tests leave the kind out for that);
    with distinct scores the order of the rows does not matter, weighted or not."""
    y, P = data(seed=15, n=120, k=4)
    perm = np.random.default_rng(1).permutation(y.size)
    w = np.random.default_rng(2).uniform(0.1, 5.0, size=y.size)
    for metric in ("qwk", "mae"):
        for weights in (None, w):
            base = aursc(y, P, metric=metric, sample_weight=weights)
            moved = aursc(
                y[perm],
                P[perm],
                metric=metric,
                sample_weight=None if weights is None else weights[perm],
            )
            assert moved == pytest.approx(base, rel=TOL, abs=TOL)


# --------------------------------------------------------------------------------------------
# Oracle and random baselines
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_oracle_bounds_the_curve(seed):
    y, P = data(seed=seed, n=150, k=5)
    w = np.random.default_rng(seed).integers(0, 3, 150) if seed % 2 else None
    fr = np.linspace(1, 0.05, 30)
    for by in ordmetrics.list_metrics("scoring_rule"):
        acc = retention_curve(y, P, by=by, metric="accuracy", fractions=fr, sample_weight=w)
        assert (acc.oracle >= acc.values - TOL).all()
        for metric, opts in (("mae", None), ("expected_cost", {"costs": "squared"})):
            c = retention_curve(
                y, P, by=by, metric=metric, fractions=fr, sample_weight=w, metric_kwargs=opts
            )
            assert (c.oracle <= c.values + TOL).all()


def test_oracle_from_scratch():
    y, P = data(seed=15, n=70, k=4)
    pred = P.argmax(axis=1)
    w = np.random.default_rng(5).uniform(0, 2, 70)
    for metric, opts, loss in [
        ("expected_cost", {"costs": "squared"}, (y - pred) ** 2),
        ("mae", {}, np.abs(y - pred)),
        ("accuracy", {}, (y != pred).astype(float)),
        ("within_k_accuracy", {"k": 1}, (np.abs(y - pred) > 1).astype(float)),
    ]:
        for weight in (None, w):
            curve = retention_curve(
                y, P, metric=metric, metric_kwargs=opts, sample_weight=weight, fractions=FRACTIONS
            )
            ref = ref_curve(metric, y, pred, loss, weight, FRACTIONS, 4, opts)
            np.testing.assert_allclose(curve.oracle, ref, rtol=TOL, atol=TOL)


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("qwk", {}),
        ("kappa", {}),
        ("amae", {}),
        ("mmae", {}),
        ("macro_f1", {}),
        ("expected_cost", {"normalize": True}),
    ],
)
def test_no_oracle_for_metrics_that_are_not_means(metric, options):
    y, P = data(seed=16)
    assert retention_curve(y, P, metric=metric, metric_kwargs=options).oracle is None


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("mae", {}),
        ("accuracy", {}),
        ("within_k_accuracy", {"k": 1}),
        ("expected_cost", {"costs": "squared"}),
    ],
)
def test_random_expectation_is_the_full_value_for_means(metric, options):
    y, P = data(seed=17, n=100, k=5)
    w = np.random.default_rng(0).integers(0, 4, 100)
    for weight in (None, w):
        curve = retention_curve(y, P, metric=metric, metric_kwargs=options, sample_weight=weight)
        full = getattr(ordmetrics, metric)(
            y, P.argmax(axis=1), labels=range(5), sample_weight=weight, **options
        )
        assert curve.random.tolist() == [full] * 21
        assert curve.values[0] == pytest.approx(full, rel=TOL)


def test_monte_carlo_is_deterministic():
    y, P = data(seed=18, n=300, k=5)
    a = retention_curve(y, P, metric="qwk")
    b = retention_curve(y, P, metric="qwk")
    c = retention_curve(y, P, metric="qwk", random_state=1)
    np.testing.assert_array_equal(a.random, b.random)
    assert not np.array_equal(a.random, c.random)
    assert a.random[0] == pytest.approx(a.values[0], rel=TOL)  # f = 1 keeps everything
    np.testing.assert_allclose(a.random, a.values[0], atol=0.1)
    gen = retention_curve(y, P, metric="qwk", random_state=np.random.default_rng(0))
    assert gen.random.shape == (21,)
    assert retention_curve(y, P, metric="qwk", n_random=0).random is None
    w = np.random.default_rng(1).uniform(0.5, 2, 300)
    d = retention_curve(y, P, metric="qwk", sample_weight=w, n_random=20)
    e = retention_curve(y, P, metric="qwk", sample_weight=w, n_random=20)
    np.testing.assert_array_equal(d.random, e.random)


def _exact_random_units(y, pred, k, n_keep, metric):
    """Mean of the metric over all subsets of n_keep rows (unit weights), and its sd."""
    vals = []
    for rows in itertools.combinations(range(len(y)), n_keep):
        v = ref_value(metric, y, pred, list(rows), [1.0] * n_keep, k, {})
        if not math.isnan(v):
            vals.append(v)
    return np.mean(vals), np.std(vals)


def test_monte_carlo_estimates_the_expectation_unit_weights():
    y = np.array([0, 1, 2, 2, 1, 0, 2, 1, 0])
    pred = np.array([0, 2, 2, 1, 1, 0, 0, 1, 1])
    P = np.full((9, 3), 1 / 3)
    fractions = [1.0, 0.8, 0.6, 0.4]
    curve = retention_curve(
        y, P, metric="qwk", decision=pred, fractions=fractions, n_random=20_000, random_state=3
    )
    for f, est in zip(fractions, curve.random, strict=True):
        mean, sd = _exact_random_units(y, pred, 3, max(1, math.floor(f * 9 + 0.5)), "qwk")
        assert abs(est - mean) <= 5 * sd / math.sqrt(20_000) + 1e-12


def test_monte_carlo_estimates_the_expectation_real_weights():
    y = np.array([0, 1, 2, 2, 1, 0])
    pred = np.array([0, 2, 2, 1, 1, 1])
    w = np.array([0.5, 1.25, 0.75, 2.0, 1.0, 0.5])
    P = np.full((6, 3), 1 / 3)
    fractions = [0.9, 0.6, 0.45]
    for metric in ("qwk", "mae"):
        curve = retention_curve(
            y,
            P,
            metric=metric,
            decision=pred,
            sample_weight=w,
            fractions=fractions,
            n_random=20_000,
            random_state=4,
        )
        for f, est in zip(fractions, curve.random, strict=True):
            vals = []
            for perm in itertools.permutations(range(6)):
                rank = np.empty(6)
                rank[list(perm)] = np.arange(6)
                rows, taken, _ = ref_retained(rank, w, f)
                vals.append(ref_value(metric, y, pred, rows, taken, 3, {}))
            vals = np.array(vals)
            vals = vals[~np.isnan(vals)]
            assert abs(est - vals.mean()) <= 5 * vals.std() / math.sqrt(20_000) + 1e-12


def _hypergeometric_pmf(good, bad, sample):
    total = good + bad
    ks = np.arange(max(0, sample - bad), min(good, sample) + 1)
    pmf = np.array([math.comb(good, k) * math.comb(bad, sample - k) for k in ks], dtype=float)
    return ks, pmf / math.comb(total, sample)


@pytest.mark.parametrize(
    ("good", "bad", "sample"),
    [
        (30, 70, 40),
        (70, 30, 40),
        (30, 70, 85),
        (3, 97, 50),
        (40, 60, 5),
        (40, 60, 96),
        (500, 400, 450),
    ],
)
def test_compiled_sampler_draws_the_hypergeometric_distribution(good, bad, sample):
    """Both cells of a 2-cell population: the count of the first is hypergeometric (the
    unit-by-unit path for samples under 10 from either end, HRUA otherwise); a chi-square
    test of the frequencies against the exact pmf."""
    n = 40_000
    out = hypergeometric_counts(np.array([good, bad]), np.array([sample]), 0, n, 11)
    x = out[:, 0, 0].astype(np.int64)
    assert (out[:, 0].sum(axis=1) == sample).all()
    ks, pmf = _hypergeometric_pmf(good, bad, sample)
    assert x.min() >= ks[0] and x.max() <= ks[-1]
    expected = n * pmf
    big = expected >= 5  # pool the tails
    observed = np.bincount(x - ks[0], minlength=ks.size)
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    keep = exp > 0
    chi2 = float((((obs - exp) ** 2)[keep] / exp[keep]).sum())
    dof = int(keep.sum()) - 1
    # 5 standard deviations of the chi-square above its mean
    assert chi2 <= dof + 5 * math.sqrt(2 * dof), (chi2, dof)


def test_compiled_sampler_many_cells_moments_and_edges():
    colors = np.array([120, 0, 35, 7, 300, 1, 0, 60])
    total = int(colors.sum())
    targets = np.array([total + 5, total, 400, 200, 9, 1])
    out = hypergeometric_counts(colors, targets, 0, 20_000, 3)
    assert out.shape == (20_000, 6, 8)
    np.testing.assert_array_equal(out[:, 0], np.broadcast_to(colors, (20_000, 8)))
    np.testing.assert_array_equal(out[:, 1], np.broadcast_to(colors, (20_000, 8)))
    for j, t in enumerate(targets[2:].tolist(), start=2):
        assert (out[:, j].sum(axis=1) == t).all()
        assert (out[:, j] <= colors).all() and (out[:, j] >= 0).all()
        assert (out[:, j, colors == 0] == 0).all()
        p = colors / total
        mean = t * p
        var = t * p * (1 - p) * (total - t) / (total - 1)
        ok = var > 0
        z = (out[:, j].mean(axis=0) - mean)[ok] / np.sqrt(var[ok] / 20_000)
        assert np.abs(z).max() <= 5, (t, z)
        np.testing.assert_allclose(out[:, j].var(axis=0)[ok], var[ok], rtol=0.1)


def test_compiled_sampler_draws_do_not_depend_on_chunks_or_threads(monkeypatch):
    from ordmetrics.evaluation import retention_sampler as S

    colors = np.array([500, 20, 3, 400, 77, 0, 1000])
    targets = np.array([1900, 1000, 37, 5])
    whole = hypergeometric_counts(colors, targets, 0, 300, 2**63 - 1)
    parts = [hypergeometric_counts(colors, targets, lo, 100, 2**63 - 1) for lo in (0, 100, 200)]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    for threads in (1, 3, 8):
        monkeypatch.setattr(S, "usable_cpus", lambda t=threads: t)
        monkeypatch.setattr(S, "_MIN_PER_THREAD", 1)
        np.testing.assert_array_equal(
            hypergeometric_counts(colors, targets, 0, 300, 2**63 - 1), whole
        )
        background = S.hypergeometric_counts_background(colors, targets, 0, 300, 2**63 - 1)
        np.testing.assert_array_equal(background(), whole)
    other = hypergeometric_counts(colors, targets, 0, 300, 2**63 - 2)
    assert not np.array_equal(other, whole)


@pytest.mark.parametrize(
    ("metric", "options", "k"),
    [
        ("qwk", {}, 2),
        ("qwk", {}, 3),
        ("qwk", {}, 5),
        ("qwk", {}, 9),
        ("kappa", {}, 4),
        ("kappa", {}, 6),
        ("kappa", {"weights": "linear"}, 5),
        ("kappa", {"weights": "quadratic"}, 3),
    ],
)
def test_kappa_draws_equal_the_batched_evaluator_bit_for_bit(metric, options, k):
    """The compiled kappa of each random subset is the value of counts_evaluator on the
    counts hypergeometric_counts draws with the same seed, bit for bit (NaN included)."""
    from ordmetrics.evaluation.retention_kappa import integer_kappa_weights, kappa_draws
    from ordmetrics.metrics.agreement import counts_evaluator

    rng = np.random.default_rng(k)
    colors = rng.integers(0, 400, k * k)
    colors[rng.random(k * k) < 0.3] = 0
    colors[0] = 0 if k > 2 else colors[0]
    total = int(colors.sum())
    targets = np.array([total + 3, total, total - 1, total // 2, 40, 9, 2, 1])
    v = integer_kappa_weights(metric, options, k, total)
    assert v is not None
    values = kappa_draws(colors, targets, v, 60, 2**40 + k)
    counts = hypergeometric_counts(colors, targets, 0, 60, 2**40 + k)
    ref = counts_evaluator(metric, k, **options)(counts.reshape(-1, k, k)).reshape(60, -1)
    np.testing.assert_array_equal(values.view(np.uint64), ref.view(np.uint64))
    assert np.isnan(values).any() or k > 2  # small subsets of a single class: undefined


def test_integer_kappa_weights_only_where_every_intermediate_is_exact():
    from ordmetrics.evaluation.retention_kappa import integer_kappa_weights

    assert integer_kappa_weights("qwk", {}, 5, 53_576).tolist()[0] == [0, 1, 4, 9, 16]
    assert integer_kappa_weights("kappa", {}, 7, 10).tolist()[1] == [1, 0, 1, 1, 1, 1, 1]
    assert integer_kappa_weights("kappa", {"weights": "linear"}, 5, 10)[0, 4] == 4
    assert integer_kappa_weights("qwk", {}, 4, 100) is None  # (i - j)^2 / 9
    assert integer_kappa_weights("qwk", {}, 6, 100) is None  # / 25
    assert integer_kappa_weights("kappa", {"weights": np.ones((5, 5))}, 5, 10) is None
    assert integer_kappa_weights("mae", {}, 5, 10) is None
    assert integer_kappa_weights("macro_f1", {}, 5, 10) is None
    # 16 T^2 <= 2^53 for T up to 2^24.5: beyond, the batched evaluator
    assert integer_kappa_weights("qwk", {}, 5, 2**24) is not None
    assert integer_kappa_weights("qwk", {}, 5, 2**25) is None


def test_kappa_draws_do_not_depend_on_helpers_or_their_scheduling(monkeypatch):
    """Any number of helper threads, helpers that never start, and the caller drawing what
    they have not finished: the same values."""
    from ordmetrics.evaluation import retention_kappa as RK

    colors = np.array([500, 20, 3, 40, 77, 0, 100, 9, 1])
    targets = np.array([750, 700, 400, 37, 5])
    v = RK.integer_kappa_weights("qwk", {}, 3, int(colors.sum()))
    whole = RK.kappa_draws_background(colors, targets, v, 300, 2**63 - 1, threads=0)()
    for threads in (1, 2, 5):
        monkeypatch.setattr(RK, "_MIN_PAIRS", 1)
        got = RK.kappa_draws_background(colors, targets, v, 300, 2**63 - 1, threads=threads)()
        np.testing.assert_array_equal(got.view(np.uint64), whole.view(np.uint64))

    class Idle:  # a pool whose threads are never scheduled: the caller draws everything
        def submit(self, fn, *args):
            from concurrent.futures import Future

            return Future()

    monkeypatch.setattr(RK, "thread_pool", lambda: Idle())
    got = RK.kappa_draws_background(colors, targets, v, 300, 2**63 - 1, threads=3)()
    np.testing.assert_array_equal(got.view(np.uint64), whole.view(np.uint64))
    assert not (got.view(np.uint64) == RK._PENDING_BITS).any()


def test_random_baseline_of_kappa_is_the_same_with_or_without_the_compiled_kappa(monkeypatch):
    """The random baseline of QWK with integer weights, evaluated as drawn, equals the one
    of the batched evaluator on the drawn counts, bit for bit."""
    from ordmetrics.evaluation import retention as R

    y, P = data(seed=40, n=1200, k=5)
    w = np.random.default_rng(3).integers(0, 3, 1200)
    for kwargs in ({}, {"sample_weight": w}, {"metric": "kappa"}):
        kwargs = {"metric": "qwk", **kwargs}
        fused = retention_curve(y, P, n_random=130, random_state=5, **kwargs)
        monkeypatch.setattr(R, "integer_kappa_weights", lambda *a: None)
        plain = retention_curve(y, P, n_random=130, random_state=5, **kwargs)
        monkeypatch.undo()
        np.testing.assert_array_equal(fused.random, plain.random)
        np.testing.assert_array_equal(fused.values, plain.values)
    # in chunks of 7 draws (bounded memory): the same chunks and sums either way
    from ordmetrics.evaluation import retention_baselines as B

    monkeypatch.setattr(B, "_CHUNK_ELEMENTS", 7 * 21 * 25)
    fused = retention_curve(y, P, metric="qwk", n_random=30, random_state=6)
    with monkeypatch.context() as m:
        m.setattr(R, "integer_kappa_weights", lambda *a: None)
        plain = retention_curve(y, P, metric="qwk", n_random=30, random_state=6)
    np.testing.assert_array_equal(fused.random, plain.random)
    monkeypatch.undo()
    whole = retention_curve(y, P, metric="qwk", n_random=30, random_state=6)
    np.testing.assert_allclose(fused.random, whole.random, rtol=1e-14)


def test_sorted_values_at_equals_a_sort():
    """The bucketed selection of the scores at the cuts gives np.sort(s)[ranks], for spread,
    tied, constant, clustered, huge-range, subnormal and non-finite scores."""
    from ordmetrics.evaluation.retention_inputs import sorted_values_at

    rng = np.random.default_rng(12)
    for trial in range(700):
        n = int(rng.integers(1, 300))
        s = [
            rng.random(n),
            rng.integers(0, 4, n).astype(float),
            np.full(n, -2.5),
            np.concatenate([np.zeros(n), [1e6]]),  # all but one in the first bucket
            rng.standard_cauchy(n) * 1e300,  # max - min overflows
            1.0 + rng.random(n) * 1e-300,
            rng.integers(0, 3, n) * 5e-324 - 0.0,
            np.concatenate([rng.random(n), [np.inf, -np.inf]]),
        ][trial % 8]
        ranks = np.unique(rng.integers(0, s.size, int(rng.integers(1, 9))))
        got = sorted_values_at(s, ranks)
        np.testing.assert_array_equal(got, np.sort(s)[ranks])


@pytest.mark.parametrize(("n", "k"), [(60, 4), (2000, 3), (300, 20)])
def test_random_baseline_depends_on_the_confusion_counts_only(n, k):
    """Permuting the rows changes nothing in the random baseline, whether it is drawn by
    hypergeometric counts (many units) or by shuffles of the units sorted by cell (W at most
    the number of (fraction, non-empty cell) pairs)."""
    y, P = data(seed=n + k, n=n, k=k)
    perm = np.random.default_rng(5).permutation(n)
    for metric in ("qwk", "amae"):
        a = quiet(y_true=y, y_proba=P, metric=metric, n_random=25, random_state=9)
        b = quiet(y_true=y[perm], y_proba=P[perm], metric=metric, n_random=25, random_state=9)
        np.testing.assert_array_equal(a.random, b.random)


def test_few_units_are_shuffled_many_cells_are_not_drawn_cell_by_cell(monkeypatch):
    """K = 20 and N = 300: 300 units, far fewer than the 20 x 20 x 20 hypergeometric variates
    of a draw, so the units are shuffled (and the estimate is still the expectation)."""
    from ordmetrics.evaluation import retention_baselines as B

    used = []
    monkeypatch.setattr(B, "hypergeometric_counts", lambda *a, **kw: used.append("hyper") or None)
    real = B.row_ordering_counts

    def rows(*args, **kwargs):
        used.append("shuffle")
        return real(*args, **kwargs)

    monkeypatch.setattr(B, "row_ordering_counts", rows)
    y, P = data(seed=3, n=300, k=20)
    curve = quiet(y_true=y, y_proba=P, metric="qwk", n_random=10)
    assert set(used) == {"shuffle"}
    assert curve.random[0] == pytest.approx(curve.values[0], rel=TOL)


def test_row_orderings_cut_like_the_curve(monkeypatch):
    """Each random ordering keeps exactly T weight (the boundary row in part), every row's
    weight at most once, and the draws do not depend on chunks or threads."""
    from ordmetrics.evaluation import retention_sampler as S

    rng = np.random.default_rng(8)
    cells = rng.integers(0, 9, 57)
    w = rng.uniform(0.1, 3.0, 57)
    full = np.bincount(cells, weights=w, minlength=9)
    targets = np.array([w.sum() * 2, 0.05, 10.0, w.sum() * 0.6, 3.3])
    out = S.row_ordering_counts(cells, w, targets, 0.0, 9, 0, 400, 21)
    np.testing.assert_allclose(out[:, 0], np.broadcast_to(full, (400, 9)), rtol=1e-12)
    np.testing.assert_allclose(out[:, 1:].sum(axis=2), np.broadcast_to(targets[1:], (400, 4)))
    assert (out <= full * (1 + 1e-12)).all() and (out >= 0).all()
    # nested: a larger target keeps at least the counts of a smaller one, draw by draw
    assert (out[:, 2] >= out[:, 4] - 1e-12).all() and (out[:, 3] >= out[:, 2] - 1e-12).all()
    parts = [
        S.row_ordering_counts(cells, w, targets, 0.0, 9, lo, 100, 21) for lo in range(0, 400, 100)
    ]
    np.testing.assert_array_equal(np.concatenate(parts), out)
    monkeypatch.setattr(S, "usable_cpus", lambda: 3)
    monkeypatch.setattr(S, "_MIN_PER_THREAD", 1)
    np.testing.assert_array_equal(S.row_ordering_counts(cells, w, targets, 0.0, 9, 0, 400, 21), out)


@pytest.mark.parametrize("computed", [False, True])
def test_segments_at_cuts_keep_the_rows_of_the_ranking(computed):
    """The sets of rows kept at every cut, found without a sort, are those of the ranking;
    a cut inside a tie (exact, or within the tolerance for computed scores) gives None."""
    from ordmetrics.evaluation.retention_inputs import rank_best_first, segments_at_cuts

    rng = np.random.default_rng(30)
    found = 0
    for trial in range(120):
        n = int(rng.integers(2, 800))
        kind = trial % 4
        if kind == 0:
            s = rng.random(n)
        elif kind == 1:
            s = rng.integers(0, 5, n).astype(float)
        elif kind == 2:
            s = np.sort(rng.random(n))[::-1].copy()
        else:
            s = 0.5 + rng.random(n) * 1e-13  # all tied for computed scores
        cuts = np.unique(rng.integers(1, n, size=int(rng.integers(1, 25))))
        seg = segments_at_cuts(s, cuts, computed=computed)
        order = rank_best_first(s, computed=computed)
        if seg is None:
            ordered = np.sort(s)
            lo, hi = ordered[cuts - 1], ordered[cuts]
            tied = hi - lo <= 1e-12 * np.maximum(1, np.abs(hi)) if computed else lo == hi
            assert tied.any()
            continue
        found += 1
        for j, c in enumerate(cuts.tolist()):
            assert set(np.flatnonzero(seg <= j).tolist()) == set(order[:c].tolist())
    assert found >= 50


@pytest.mark.parametrize("metric", ["qwk", "mae", "macro_f1", "amae"])
def test_curve_from_segments_equals_the_ranked_curve(monkeypatch, metric):
    """Without weights the counts come from the segments (no sort); forcing the ranking
    gives the very same values, bit for bit, oracle included."""
    from ordmetrics.evaluation import retention as R

    y, P = data(seed=31, n=2000, k=5)
    real = R.segments_at_cuts
    found = []

    def spy(*args, **kwargs):
        found.append(real(*args, **kwargs))
        return found[-1]

    monkeypatch.setattr(R, "segments_at_cuts", spy)
    fast = retention_curve(y, P, metric=metric, n_random=0)
    assert found and found[0] is not None  # the segments were used
    monkeypatch.setattr(R, "segments_at_cuts", lambda *a, **k: None)
    ranked = retention_curve(y, P, metric=metric, n_random=0)
    np.testing.assert_array_equal(fast.values, ranked.values)
    np.testing.assert_array_equal(fast.n_retained, ranked.n_retained)
    assert fast.area == ranked.area
    if fast.oracle is not None:
        np.testing.assert_array_equal(fast.oracle, ranked.oracle)


def test_log_factorial_table_is_exact_and_shared():
    from ordmetrics.evaluation import retention_sampler as S

    table = S.log_factorials(1000)
    assert table.size >= 1001 and not table.flags.writeable
    ks = [0, 1, 2, 10, 170, 1000]
    np.testing.assert_allclose(table[ks], [math.lgamma(k + 1) for k in ks], rtol=1e-15)
    assert S.log_factorials(500) is table


def test_undefined_values_warn_and_give_nan_area():
    # the two best rows are class 0 predicted 0: kappa is undefined on them
    y = np.array([0, 0, 1, 2])
    pred = np.array([0, 0, 2, 1])
    P = np.full((4, 3), 1 / 3)
    with pytest.warns(UndefinedMetricWarning, match=r"qwk is undefined .* fractions 0\.5"):
        curve = retention_curve(
            y, P, by=np.arange(4.0), decision=pred, fractions=[1.0, 0.5], n_random=10
        )
    assert math.isnan(curve.values[1]) and math.isnan(curve.area)
    assert not math.isnan(curve.values[0])


def test_result_is_frozen_and_read_only():
    y, P = data()
    curve = retention_curve(y, P, metric="mae")
    assert isinstance(curve, RetentionCurve)
    with pytest.raises(AttributeError):
        curve.area = 0.0  # type: ignore[misc]
    for arr in (curve.fractions, curve.values, curve.n_retained, curve.oracle, curve.random):
        with pytest.raises(ValueError):
            arr[0] = 0
    text = repr(curve)
    assert "by='rps'" in text and "metric='mae'" in text and "21 fractions" in text


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_errors_for_by():
    y, P = data()
    with pytest.raises(ValueError, match=r"by must be a scoring rule .*rps.*got 'rsp'"):
        retention_curve(y, P, by="rsp")
    with pytest.raises(ValueError, match=r"got 'qwk' \('qwk' is a metric of kind 'agreement'\)"):
        retention_curve(y, P, by="qwk")
    with pytest.raises(ValueError, match=r"y_true has 61 rows but by has 60"):
        retention_curve(y, P, by=np.zeros(60))
    with pytest.raises(ValueError, match=r"by must be finite; got infinite values in row 3"):
        retention_curve(y, P, by=np.where(np.arange(61) == 3, np.inf, 0.0))
    with pytest.raises(ValueError, match=r"by must hold finite per-row scores; got NaN in rows 2"):
        retention_curve(y, P, by=np.where(np.arange(61) == 2, np.nan, 0.0))
    with pytest.raises(ValueError, match=r"by must be 1-D"):
        retention_curve(y, P, by=np.zeros((61, 2)))
    with pytest.raises(ValueError, match=r"by=mean_rps must return one score per row \(61"):
        retention_curve(y, P, by=make_mean_rps())
    with pytest.raises(ValueError, match=r"by=custom returned NaN for rows 0"):
        retention_curve(y, P, by=lambda t, p: np.full(61, np.nan))
    with pytest.raises(TypeError, match=r"by=custom must return one number per row"):
        retention_curve(y, P, by=lambda t, p: ["a"] * 61)


def make_mean_rps():
    def mean_rps(y_true, y_proba):
        return ordmetrics.rps(y_true, y_proba)

    return mean_rps


def test_errors_for_metric_and_options():
    y, P = data()
    with pytest.raises(ValueError, match=r"metric must be an agreement metric .* got 'rps'\. "):
        retention_curve(y, P, metric="rps")
    with pytest.raises(ValueError, match=r"one of kappa, qwk, expected_cost.*got 'f1'"):
        retention_curve(y, P, metric="f1")
    with pytest.raises(TypeError, match=r"metric must be the name of an agreement metric"):
        retention_curve(y, P, metric=ordmetrics.qwk)
    with pytest.raises(TypeError, match=r"metric_kwargs has 'costs', which qwk does not accept"):
        retention_curve(y, P, metric="qwk", metric_kwargs={"costs": "squared"})
    with pytest.raises(TypeError, match=r"expected_cost takes costs, normalize"):
        retention_curve(y, P, metric="expected_cost", metric_kwargs={"cost": "squared"})
    with pytest.raises(ValueError, match=r"metric_kwargs of expected_cost: costs must be one of"):
        retention_curve(y, P, metric="expected_cost", metric_kwargs={"costs": "cubic"})
    with pytest.raises(TypeError, match=r"metric_kwargs of within_k_accuracy: k must be"):
        retention_curve(y, P, metric="within_k_accuracy", metric_kwargs={"k": 1.5})
    with pytest.raises(TypeError, match=r"metric_kwargs must be a dict"):
        retention_curve(y, P, metric="kappa", metric_kwargs=["weights", "linear"])


@pytest.mark.parametrize(
    ("fractions", "match"),
    [
        ([1.0, 0.0], r"fractions must lie in \(0, 1\].*got 0\.0"),
        ([1.5, 0.5], r"fractions must lie in \(0, 1\].*got 1\.5"),
        ([1.0, -0.1], r"got -0\.1"),
        ([1.0, float("nan")], r"got nan"),
        ([], r"fractions is empty"),
        ([0.5, 1.0], r"fractions must be strictly decreasing"),
        ([1.0, 0.5, 0.5], r"fractions must be strictly decreasing"),
        ([[1.0, 0.5]], r"fractions must be a 1-D sequence"),
    ],
)
def test_errors_for_fractions(fractions, match):
    y, P = data()
    with pytest.raises(ValueError, match=match):
        retention_curve(y, P, fractions=fractions)
    with pytest.raises(ValueError, match=match):
        aursc(y, P, fractions=fractions)


def test_errors_for_fraction_types_and_n_random():
    y, P = data()
    with pytest.raises(TypeError, match=r"fractions must be a 1-D sequence .* got the string"):
        retention_curve(y, P, fractions="1, 0.5")
    with pytest.raises(TypeError, match=r"fractions must be a 1-D sequence of numbers"):
        retention_curve(y, P, fractions=[1.0, "half"])
    with pytest.raises(ValueError, match=r"n_random must be a non-negative integer; got -1"):
        retention_curve(y, P, n_random=-1)
    with pytest.raises(TypeError, match=r"n_random must be a non-negative integer"):
        retention_curve(y, P, n_random=10.0)


def test_errors_for_decision():
    y, P = data()
    with pytest.raises(ValueError, match=r"decision must be one of 'argmax', 'median'.*'mode'"):
        retention_curve(y, P, decision="mode")
    with pytest.raises(TypeError, match=r"decision must be one of .* or an array of hard"):
        retention_curve(y, P, decision=None)
    with pytest.raises(ValueError, match=r"y_true has 61 rows but decision has 3"):
        retention_curve(y, P, decision=[0, 1, 2])
    with pytest.raises(ValueError, match=r"decision must hold class indices 0\.\.3 .* got 7"):
        retention_curve(y, P, decision=np.full(61, 7))
    with pytest.raises(TypeError, match=r"decision holds labels such as 'a'"):
        retention_curve(y, P, decision=np.array(["a"] * 61))
    with pytest.raises(ValueError, match=r"decision is missing in rows 0"):
        retention_curve(y, P, decision=np.array([np.nan] + [0.0] * 60))


def test_errors_for_inputs_come_from_validation():
    y, P = data()
    bad = P.copy()
    bad[4] *= 0.5
    with pytest.raises(ValueError, match=r"rows of y_proba must sum to 1 .* row 4"):
        retention_curve(y, bad)
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0\.\.3"):
        retention_curve(np.where(np.arange(61) == 0, 9, y), P)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        retention_curve(y, P, sample_weight=np.full(61, -1.0))
    with pytest.raises(ValueError, match=r"sample_weight sums to 0"):
        retention_curve(y, P, sample_weight=np.zeros(61))
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 2"):
        retention_curve(y, np.where(np.arange(61)[:, None] == 2, np.nan, P))
    with pytest.raises(ValueError, match=r"y_true has 61 rows but y_proba has 60"):
        retention_curve(y, P[:60])


@pytest.mark.parametrize("c", [0.1, 0.3, 1 / 3, 7.0])
@pytest.mark.parametrize("metric", ["amae", "macro_f1", "mmae"])
def test_equal_real_weights_cut_at_row_boundaries(c, metric):
    # fractions k / N keep whole rows whatever the rounding of the cumulative weights: no row
    # may slip in with a tiny part of its weight (class presence changes these metrics)
    y, P = data(seed=20, n=20, k=5)
    fractions = np.arange(20, 0, -1) / 20
    unit = quiet(y_true=y, y_proba=P, metric=metric, fractions=fractions)
    weighted = quiet(
        y_true=y, y_proba=P, metric=metric, fractions=fractions, sample_weight=np.full(20, c)
    )
    np.testing.assert_allclose(weighted.values, unit.values, rtol=1e-12, atol=1e-12)


def test_huge_integer_weights_use_row_orderings():
    # total weight above the hypergeometric sampler's limit: random orderings of the rows
    y, P = data(seed=21, n=30, k=3)
    w = np.full(30, 10.0**9)
    a = retention_curve(y, P, metric="qwk", sample_weight=w, n_random=50)
    b = retention_curve(y, P, metric="qwk", sample_weight=w, n_random=50)
    np.testing.assert_array_equal(a.random, b.random)
    assert a.n_retained.dtype == np.int64 and a.n_retained[0] == 30 * 10**9
    assert np.all(np.abs(a.random) <= 1)
    unit = retention_curve(y, P, metric="qwk", fractions=np.arange(30, 14, -1) / 30)
    same = retention_curve(
        y, P, metric="qwk", fractions=np.arange(30, 14, -1) / 30, sample_weight=w
    )
    np.testing.assert_allclose(same.values, unit.values, rtol=1e-12)


def test_one_batched_evaluation_of_every_matrix(monkeypatch):
    from ordmetrics.evaluation import retention as R

    calls = []
    real = R.counts_evaluator

    def counting(name, n_classes, **options):
        f = real(name, n_classes, **options)

        def g(M):
            calls.append(M.shape)
            return f(M)

        return g

    monkeypatch.setattr(R, "counts_evaluator", counting)
    y, P = data(seed=22, n=600, k=5)
    retention_curve(y, P, metric="qwk", n_random=40)
    # full data and the curve at once; QWK with K = 5 has integer weights (times 2^-4), so
    # the random draws are evaluated as they are drawn (retention_kappa), not here
    assert calls == [(1 + 21, 5, 5)]
    calls.clear()
    y4, P4 = data(seed=22, n=600, k=4)
    retention_curve(y4, P4, metric="qwk", n_random=40)
    # K = 4: weights (i - j)^2 / 9, the random draws (in chunks of bounded memory) evaluated
    # here, then full data and the curve at once
    assert calls == [(40 * 21, 4, 4), (1 + 21, 4, 4)]
    calls.clear()
    retention_curve(y, P, metric="mae")
    # full data, curve and oracle at once (the oracle's per-cell losses are not evaluated:
    # K^2 one-row matrices would take K^4 memory)
    assert calls == [(1 + 21 + 21, 5, 5)]


@pytest.mark.parametrize("k", [4, 6, 7, 10, 20, 50, 100])
def test_no_integer_kappa_weights_from_floats_beyond_the_exact_integers(k: int) -> None:
    """Weights that are not dyadic fractions of small integers have no exact integer matrix:
    scaling them until they look integral (every float beyond 2^53 does) must not count."""
    from ordmetrics.evaluation.retention_kappa import integer_kappa_weights

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflowing cast to int64 would warn
        assert integer_kappa_weights("qwk", {}, k, 10) is None
