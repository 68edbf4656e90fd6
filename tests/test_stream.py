"""Tests for ordmetrics.stream: the Evaluator's updates, merges, state and bounds.

The central property: feeding the rows in any chunks, in any order, merged in any tree, gives
the numbers of the in-memory evaluation (``ordmetrics.evaluate``) to 1e-12 for every exact
metric, and within the stated bound for the ranking metrics on the grid.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import pickle
import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import ordmetrics as om
from ordmetrics import UndefinedMetricWarning
from ordmetrics.stream import STATE_VERSION, Evaluator, StreamResult

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Every metric kind, with options, for the property tests.
METRICS = om.metric_set(
    *om.DEFAULT_METRICS,
    "spearman",
    "kendall_tau",
    "classwise_ece",
    ("cumulative_ece", {"n_bins": 4}),
    ("ece", {"n_bins": 3}),
    ("kappa", {"weights": "linear", "decision": "median"}),
    ("expected_cost", {"costs": "squared", "normalize": True, "decision": "expected"}),
    "accuracy",
    ("within_k_accuracy", {"k": 1}),
    "macro_f1",
    "amae",
    "mmae",
    ("rps", {"normalize": False}, "rps_raw"),
    ("log_loss", {"eps": 1e-6}, "log_loss_eps"),
    ("brier", {"reduction": "sum"}, "brier_sum"),
)
RANKING = ("c_index", "spearman", "kendall_tau")


def in_memory(y, P, w=None, *, metrics=METRICS, labels=None, nan_policy="raise", **kw):
    """The numbers of ordmetrics.evaluate on all rows, by display name."""
    K = P.shape[1]
    cols = {f"p{j}": P[:, j] for j in range(K)}
    cols["y"] = y
    if w is not None:
        cols["w"] = w
    out = om.evaluate(
        pd.DataFrame(cols),
        truth="y",
        proba=[f"p{j}" for j in range(K)],
        metrics=metrics,
        labels=labels,
        sample_weight=None if w is None else "w",
        nan_policy=nan_policy,
        **kw,
    )
    return dict(zip(out["metric"], out["estimate"], strict=True))


def close(a: float, b: float, tol: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_matches(result: StreamResult, expected: dict, exact: bool = True) -> None:
    assert list(result.values) == list(expected)
    for name, value in expected.items():
        got, bound = result[name], result.bounds[name]
        if exact or bound == 0.0:
            assert bound == 0.0 or not exact, name
            assert close(got, value), (name, got, value)
        elif math.isfinite(bound):
            assert abs(got - value) <= bound + 1e-12, (name, got, value, bound)


def data(seed: int = 0, n: int = 500, k: int = 5, weights: bool = True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    logits = rng.normal(size=(n, k)) + 1.5 * (np.arange(k)[None, :] == y[:, None])
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    w = rng.uniform(0.0, 2.0, size=n) if weights else None
    return y, P, w


def chunks(n: int, size: int):
    return [slice(s, s + size) for s in range(0, n, size)]


def fed(y, P, w=None, size=97, **kwargs) -> Evaluator:
    ev = Evaluator(METRICS if "metrics" not in kwargs else kwargs.pop("metrics"), **kwargs)
    for s in chunks(len(y), size):
        ev.update(y[s], P[s], None if w is None else w[s])
    return ev


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        yield


# --------------------------------------------------------------------------------------------
# Equality with the in-memory evaluation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("weights", [False, True])
def test_chunks_equal_in_memory(weights):
    y, P, w = data(weights=weights)
    ev = fed(y, P, w, max_exact=10_000)
    assert_matches(ev.compute(), in_memory(y, P, w))
    assert ev.n_rows == len(y)
    assert ev.total_weight == pytest.approx(len(y) if w is None else w.sum(), rel=1e-12)


def test_default_metrics_and_directions():
    y, P, _ = data(n=200)
    ev = Evaluator()
    ev.update(y, P)
    r = ev.compute()
    assert tuple(r.values) == om.DEFAULT_METRICS
    assert r.directions["qwk"] == "maximize" and r.directions["rps"] == "minimize"
    assert r.exact and r["qwk"] == r.values["qwk"]
    assert "rps" in repr(r) and "200 rows" in repr(r)


def test_grid_values_are_within_their_bounds():
    y, P, w = data(n=3000, seed=3)
    ev = fed(y, P, w, size=500, max_exact=50, n_grid=64)
    r = ev.compute()
    exact = in_memory(y, P, w)
    for name in RANKING:
        assert r.bounds[name] > 0.0
        assert abs(r[name] - exact[name]) <= r.bounds[name]
    assert not r.exact
    assert "+-" in repr(r)
    # the default grid is fine: the bounds are small
    r = fed(y, P, w, size=500, max_exact=1000).compute()
    assert 0.0 < max(r.bounds[m] for m in RANKING) < 1e-3
    for name in RANKING:
        assert abs(r[name] - exact[name]) <= r.bounds[name]


def test_c_index_bound_is_the_tied_pair_fraction():
    # two cells: grades 0.1 and 0.15 share cell 0 of a 2-cell grid over [0, 1] (K = 2)
    y = np.array([0, 1, 0, 1])
    P = np.array([[0.9, 0.1], [0.85, 0.15], [0.2, 0.8], [0.1, 0.9]])
    ev = Evaluator(["c_index"], max_exact=0, n_grid=2)
    ev.update(y, P)
    r = ev.compute()
    # cross-class pairs: 4, of which 1 (rows 0 and 1) share cell 0 and 1 (rows 2, 3) cell 1
    assert r.bounds["c_index"] == pytest.approx(2 / 4 / 2)
    # both in-cell pairs are ordered correctly by the grades but tied in the cells: the bound
    # is attained
    assert r["c_index"] == pytest.approx(0.5)
    assert om.c_index(y, P) == pytest.approx(0.75)


@st.composite
def datasets(draw, nan: bool = False):
    k = draw(st.integers(2, 5))
    n = draw(st.integers(1, 40))
    # probabilities from small integer vectors: many ties in the grades and in decisions
    raw = np.array(
        draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n)),
        dtype=np.float64,
    )
    raw[raw.sum(axis=1) == 0] = 1.0
    P = raw / raw.sum(axis=1, keepdims=True)
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.int64)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.float64)
    missing = np.zeros(n, dtype=bool)
    if nan:
        missing = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        P[missing, 0] = np.nan
    ok = ~missing if w is None else (~missing & (w > 0))
    assume(ok.any())
    return y, P, w


def _split(draw, n: int) -> list[slice]:
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=6))))
    edges = [0, *cuts, n]
    return [slice(a, b) for a, b in itertools.pairwise(edges)]


def _merge_tree(draw, parts: list[Evaluator]) -> Evaluator:
    parts = list(parts)
    while len(parts) > 1:
        i = draw(st.integers(0, len(parts) - 1))
        a = parts.pop(i)
        j = draw(st.integers(0, len(parts) - 1))
        b = parts.pop(j)
        parts.append(a + b if draw(st.booleans()) else b.merge(a))
    return parts[0]


@SETTINGS
@given(case=datasets(), data=st.data())
def test_any_chunking_order_and_merge_tree_equals_in_memory(case, data):
    y, P, w = case
    with quiet():
        expected = in_memory(y, P, w)
        slices = _split(data.draw, len(y))
        order = data.draw(st.permutations(range(len(slices))))
        one = Evaluator(METRICS)
        parts = []
        for i in order:
            s = slices[i]
            one.update(y[s], P[s], None if w is None else w[s])
            part = Evaluator(METRICS)
            part.update(y[s], P[s], None if w is None else w[s])
            parts.append(part)
        merged = _merge_tree(data.draw, parts)
        assert_matches(one.compute(), expected)
        assert_matches(merged.compute(), expected)


@SETTINGS
@given(case=datasets(nan=True), data=st.data())
def test_omit_drops_the_incomplete_rows_in_any_chunking(case, data):
    y, P, w = case
    with quiet():
        expected = in_memory(y, P, w, nan_policy="omit")
        parts = []
        for s in _split(data.draw, len(y)):
            part = Evaluator(METRICS, nan_policy="omit")
            part.update(y[s], P[s], None if w is None else w[s])
            parts.append(part)
        assert_matches(_merge_tree(data.draw, parts).compute(), expected)


@SETTINGS
@given(case=datasets(), data=st.data())
def test_grid_merges_agree_and_stay_within_the_bound(case, data):
    y, P, w = case
    metrics = list(RANKING)
    options = {"max_exact": data.draw(st.integers(0, 4)), "n_grid": data.draw(st.integers(1, 9))}
    with quiet():
        expected = in_memory(y, P, w, metrics=metrics)
        whole = Evaluator(metrics, **options)
        whole.update(y, P, w)
        parts = []
        for s in _split(data.draw, len(y)):
            part = Evaluator(metrics, **options)
            part.update(y[s], P[s], None if w is None else w[s])
            parts.append(part)
        merged = _merge_tree(data.draw, parts).compute()
        r = whole.compute()
    for name in metrics:
        assert close(merged[name], r[name]), name
        assert close(merged.bounds[name], r.bounds[name]), name
        if not math.isnan(expected[name]) and math.isfinite(r.bounds[name]):
            assert abs(r[name] - expected[name]) <= r.bounds[name] + 1e-12, name


def test_rank_table_switches_to_the_grid_in_any_order():
    y, P, w = data(n=400, seed=5)
    a = Evaluator(list(RANKING), max_exact=300)
    b = Evaluator(list(RANKING), max_exact=300)
    a.update(y[:250], P[:250], w[:250])  # exact
    b.update(y[250:], P[250:], w[250:])  # exact
    assert a.state_dict()["ranking"]["mode"] == "exact"
    ab, ba = (a + b).compute(), (b + a).compute()
    assert (a + b).state_dict()["ranking"]["mode"] == "grid"
    whole = Evaluator(list(RANKING), max_exact=300)
    whole.update(y, P, w)
    for name in RANKING:
        assert close(ab[name], ba[name]) and close(ab[name], whole.compute()[name])
    # merging a grid table into an exact one and the other way round
    g = Evaluator(list(RANKING), max_exact=0)
    g.update(y[:10], P[:10])
    e = Evaluator(list(RANKING), max_exact=0)
    assert close((g + e).compute()["c_index"], (e + g).compute()["c_index"])


# --------------------------------------------------------------------------------------------
# Labels, categoricals, dtypes, options
# --------------------------------------------------------------------------------------------


GRADES = ["none", "mild", "moderate", "severe", "critical"]


def test_string_labels_and_ordered_categoricals():
    y, P, w = data(n=300)
    names = np.array(GRADES)[y]
    expected = in_memory(names, P, w, labels=GRADES)
    ev = fed(names, P, w, labels=GRADES, max_exact=10_000)
    assert ev.labels == tuple(GRADES) and ev.n_classes == 5
    assert_matches(ev.compute(), expected)
    # the categories of the first batch give the labels of all later batches
    cat = pd.Series(pd.Categorical(names, categories=GRADES, ordered=True))
    ev = Evaluator(METRICS, max_exact=10_000)
    ev.update(cat[:100], P[:100], w[:100])
    ev.update(names[100:], P[100:], w[100:])
    assert ev.labels == tuple(GRADES)
    assert_matches(ev.compute(), expected)
    enum = pl.Series(names, dtype=pl.Enum(GRADES))
    ev = Evaluator(METRICS, max_exact=10_000)
    ev.update(enum, P, w)
    assert_matches(ev.compute(), expected)


def test_frames_float32_and_renormalize():
    y, P, _ = data(n=200)
    frame = pd.DataFrame(P)
    ev = Evaluator(["rps", "brier"])
    ev.update(pd.Series(y[:100]), frame.iloc[:100])
    ev.update(pl.Series(y[100:]), pl.DataFrame(P[100:]))
    assert close(ev.compute()["rps"], om.rps(y, P))
    P32 = P.astype(np.float32)
    ev = Evaluator(["rps", "c_index"])
    ev.update(y, P32)
    assert close(ev.compute()["rps"], om.rps(y, P32))
    assert close(ev.compute()["c_index"], om.c_index(y, P32))
    scaled = 0.5 * P
    metrics = [("rps", {"renormalize": True}), ("ece", {"renormalize": True})]
    ev = Evaluator(metrics)
    ev.update(y[:50], scaled[:50])
    ev.update(y[50:], scaled[50:])
    r = ev.compute()
    assert close(r["rps(renormalize=True)"], om.rps(y, scaled, renormalize=True))
    assert close(r["ece(renormalize=True)"], om.ece(y, scaled, renormalize=True))
    with pytest.raises(ValueError, match="must sum to 1"):
        Evaluator(["rps", ("brier", {"renormalize": True})]).update(y, scaled)


def test_decision_option_and_evaluator_default_decision():
    y, P, _ = data(n=300)
    ev = Evaluator(["qwk", ("qwk", {"decision": "argmax"}, "qwk_argmax")], decision="median")
    ev.update(y, P)
    r = ev.compute()
    assert close(r["qwk"], om.qwk(y, om.decide(P, "median"), labels=range(5)))
    assert close(r["qwk_argmax"], om.qwk(y, om.decide(P), labels=range(5)))


def test_reduction_sum_scales_with_the_weights():
    y, P, w = data(n=100)
    ev = Evaluator([("rps", {"reduction": "sum"})])
    ev.update(y, P, w)
    assert close(ev.compute()["rps(reduction=sum)"], om.rps(y, P, sample_weight=w, reduction="sum"))


# --------------------------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------------------------


def test_nan_policies():
    y, P, w = data(n=100)
    P = P.copy()
    P[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 7.*nan_policy='omit'"):
        Evaluator().update(y, P)
    omit = Evaluator(nan_policy="omit")
    omit.update(y, P, w)
    omit.update(y[:5], np.full((5, 5), np.nan))  # a batch of nothing but missing rows
    keep = np.arange(100) != 7
    r = omit.compute()
    assert r.n_rows == 99
    expected = in_memory(y[keep], P[keep], w[keep], metrics=om.DEFAULT_METRICS)
    assert_matches(r, expected)
    prop = Evaluator(nan_policy="propagate")
    prop.update(y, P)
    assert all(math.isnan(v) for v in prop.compute().values.values())
    clean = Evaluator(nan_policy="propagate")
    clean.update(y[keep], P[keep])
    assert not math.isnan(clean.compute()["rps"])
    # NaN stays NaN forever: after more batches and after merging
    prop.update(y[keep], P[keep])
    assert math.isnan((clean + prop).compute()["rps"])
    assert math.isnan((prop + clean).compute()["qwk"])


def test_missing_truth_and_weight():
    y, P, w = data(n=50)
    yf = y.astype(float)
    yf[3] = np.nan
    w = w.copy()
    w[4] = np.nan
    with pytest.raises(ValueError, match=r"y_true is missing in row 3.*sample_weight is NaN"):
        Evaluator(["rps"]).update(yf, P, w)
    ev = Evaluator(["rps", "qwk"], nan_policy="omit")
    ev.update(yf, P, w)
    keep = ~np.isin(np.arange(50), [3, 4])
    assert close(ev.compute()["rps"], om.rps(y[keep], P[keep], sample_weight=w[keep]))


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_batches_are_validated_like_the_functions():
    y, P, _ = data(n=20)
    ev = Evaluator()
    ev.update(y[:10], P[:10])
    before = ev.state_dict()
    bad = P[10:].copy()
    bad[2] = [0.5, 0.6, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"rows of y_proba must sum to 1.*row 2"):
        ev.update(y[10:], bad)
    with pytest.raises(ValueError, match=r"y_proba has 3 columns in this batch, but .* K = 5"):
        ev.update(y[10:13], np.full((3, 3), 1 / 3))
    with pytest.raises(ValueError, match=r"y_true must hold class indices 0\.\.4"):
        ev.update(np.full(10, 7), P[10:])
    with pytest.raises(ValueError, match="y_true has 10 rows but y_proba has 9"):
        ev.update(y[10:], P[11:])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        ev.update(y[10:], P[10:], -np.ones(10))
    with pytest.raises(TypeError, match="labels= was not given"):
        ev.update(np.array(GRADES * 2), P[10:])
    with pytest.raises(ValueError, match="must lie in \\[0, 1\\]"):
        ev.update(y[10:], P[10:] * 2 - 0.2)
    after = ev.state_dict()  # the failed batches changed nothing
    assert after["n_rows"] == before["n_rows"] == 10
    assert np.array_equal(after["confusion"]["argmax"], before["confusion"]["argmax"])
    assert after["scoring"] == before["scoring"]
    with pytest.raises(ValueError, match=r"has K = 5 classes \(fixed by labels=\)"):
        Evaluator(labels=GRADES).update(["mild", "none"], np.full((2, 3), 1 / 3))


def test_bad_configurations():
    with pytest.raises(ValueError, match="strategy='quantile' cannot be computed in a stream"):
        Evaluator([("ece", {"strategy": "quantile"})])
    with pytest.raises(ValueError, match="unknown metric 'rpss'"):
        Evaluator(["rpss"])
    with pytest.raises(ValueError, match="max_exact must be an integer >= 0"):
        Evaluator(max_exact=-1)
    with pytest.raises(ValueError, match="n_grid must be an integer >= 1"):
        Evaluator(n_grid=0)
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        Evaluator(nan_policy="drop")
    with pytest.raises(ValueError, match="decision must be one of"):
        Evaluator(decision="mode")
    with pytest.raises(ValueError, match="eps must be None"):
        Evaluator([("log_loss", {"eps": 2.0})])
    with pytest.raises(TypeError, match="n_bins must be a positive integer"):
        Evaluator([("ece", {"n_bins": 2.5})])
    with pytest.raises(ValueError, match="costs must be a 5 x 5 matrix"):
        Evaluator([("expected_cost", {"costs": np.ones((3, 3))})], labels=GRADES)
    ev = Evaluator([("expected_cost", {"costs": np.ones((3, 3))})])
    with pytest.raises(ValueError, match="costs must be a 5 x 5 matrix"):
        ev.update([0, 1], np.full((2, 5), 0.2))  # K known only now
    with pytest.raises(TypeError, match="option 'weights' of metric 'kappa"):
        Evaluator([("expected_cost", {"costs": "squared"}), ("kappa", {"weights": object()})])


def test_compute_needs_rows_of_positive_weight():
    with pytest.raises(ValueError, match="nothing to compute: no rows have been added"):
        Evaluator().compute()
    ev = Evaluator(["rps"])
    ev.update([0, 1], [[1.0, 0.0], [0.0, 1.0]], [0.0, 0.0])  # a batch of weight 0 is fine
    with pytest.raises(ValueError, match="every row has weight 0"):
        ev.compute()
    ev.update([0], [[0.5, 0.5]], [2.0])
    assert ev.compute()["rps"] == 0.25
    ev.update(np.empty(0, dtype=int), np.empty((0, 2)))  # an empty batch changes nothing
    assert ev.n_rows == 3


def test_undefined_metrics_warn_like_the_functions():
    ev = Evaluator(["qwk", "c_index", "rps"])
    ev.update([1, 1], [[0.2, 0.8], [0.1, 0.9]])
    with pytest.warns(UndefinedMetricWarning) as record:
        r = ev.compute()
    messages = sorted(str(w.message).split(" is undefined")[0] for w in record)
    assert messages == ["c_index", "qwk"]
    assert math.isnan(r["qwk"]) and math.isnan(r["c_index"]) and not math.isnan(r["rps"])


# --------------------------------------------------------------------------------------------
# Merging and state
# --------------------------------------------------------------------------------------------


def test_sum_and_plus_return_a_new_evaluator_and_leave_the_operands():
    y, P, w = data(n=300)
    parts = [fed(y[s], P[s], w[s]) for s in chunks(300, 100)]
    before = [p.state_dict()["n_rows"] for p in parts]
    total = sum(parts)
    assert isinstance(total, Evaluator) and total.n_rows == 300
    assert [p.n_rows for p in parts] == before  # operands unchanged
    assert_matches(total.compute(), dict(fed(y, P, w).compute().values))
    ab = parts[0] + parts[1]
    assert ab is not parts[0] and ab is not parts[1]
    assert [p.n_rows for p in parts] == before
    assert Evaluator().merge(Evaluator()).n_classes is None
    with pytest.raises(TypeError, match="can only merge an Evaluator"):
        parts[0].merge("state")
    with pytest.raises(TypeError):
        parts[0] + 1


def test_merge_updates_in_place_and_returns_self():
    """a.merge(b) adds b's rows to a (torchmetrics' merge_state convention): the natural call
    that ignores the return value must not silently discard b."""
    y, P, w = data(n=300)
    a = fed(y[:100], P[:100], w[:100])
    b = fed(y[100:], P[100:], w[100:])
    b_state = b.state_dict()
    out = a.merge(b)
    assert out is a
    assert a.n_rows == 300
    assert_matches(a.compute(), dict(fed(y, P, w).compute().values))
    assert b.n_rows == 200 and b.state_dict()["scoring"] == b_state["scoring"]  # b unchanged
    # chaining, and a merge into an empty evaluator
    parts = [fed(y[s], P[s], w[s]) for s in chunks(300, 100)]
    empty = Evaluator(METRICS)
    assert empty.merge(parts[0]).merge(parts[1]).merge(parts[2]) is empty
    assert_matches(empty.compute(), dict(fed(y, P, w).compute().values))


def test_a_failed_merge_leaves_the_evaluator_unchanged():
    y, P, _ = data(n=20)
    a = Evaluator(["rps", "qwk"])
    a.update(y, P)
    state = a.state_dict()
    b = Evaluator(["rps", "qwk"])
    b.update([0, 1], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="K = 5 classes here but K = 2"):
        a.merge(b)
    assert a.n_rows == 20 and a.state_dict()["scoring"] == state["scoring"]


def test_mismatched_merges_are_refused():
    y, P, _ = data(n=20)
    a = Evaluator(["rps", "qwk"])
    with pytest.raises(ValueError, match="the metrics differ"):
        a.merge(Evaluator(["rps"]))
    with pytest.raises(ValueError, match="the options of metric 'x' differ"):
        Evaluator([("rps", {}, "x")]).merge(Evaluator([("rps", {"normalize": False}, "x")]))
    with pytest.raises(ValueError, match="nan_policy differs"):
        a.merge(Evaluator(["rps", "qwk"], nan_policy="omit"))
    with pytest.raises(ValueError, match="n_grid differs"):
        a.merge(Evaluator(["rps", "qwk"], n_grid=10))
    a.update(y, P)
    b = Evaluator(["rps", "qwk"])
    b.update([0, 1], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="K = 5 classes here but K = 2"):
        a.merge(b)
    c = Evaluator(["rps", "qwk"])
    c.update(pd.Categorical(np.array(GRADES)[y], categories=GRADES, ordered=True), P)
    with pytest.raises(ValueError, match="the class labels differ"):
        a.merge(c)
    x = Evaluator(["rps"], labels=[0, 1])
    with pytest.raises(ValueError, match="labels differs"):
        x.merge(Evaluator(["rps"], labels=[1, 2]))


def test_state_dict_round_trip_pickle_and_plain_values():
    y, P, w = data(n=400, seed=2)
    metrics = [*om.DEFAULT_METRICS, ("expected_cost", {"costs": np.eye(5)}, "ec_eye")]
    for max_exact in (10_000, 10):  # an exact and a grid ranking table
        ev = fed(y, P, w, metrics=metrics, max_exact=max_exact, labels=list(range(5)))
        state = ev.state_dict()
        assert state["version"] == STATE_VERSION and state["n_classes"] == 5
        _assert_plain(state)
        again = Evaluator.from_state_dict(pickle.loads(pickle.dumps(state)))
        for name, value in ev.compute().values.items():
            assert close(again.compute()[name], value)
        clone = pickle.loads(pickle.dumps(ev))
        assert clone.compute().values == ev.compute().values
        fresh = Evaluator(metrics, max_exact=max_exact, labels=list(range(5)))
        fresh.load_state_dict(state)
        assert fresh.compute().values == ev.compute().values
        assert fresh.state_dict()["ranking"]["mode"] == ("exact" if max_exact > 400 else "grid")


def _assert_plain(value):
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str)
            _assert_plain(v)
    elif isinstance(value, list):
        for v in value:
            _assert_plain(v)
    else:
        assert value is None or isinstance(value, str | bool | int | float | np.ndarray), value


def test_bad_states_are_refused():
    y, P, _ = data(n=30)
    ev = Evaluator(["rps", "c_index"])
    ev.update(y, P)
    state = ev.state_dict()
    with pytest.raises(ValueError, match="has version 99"):
        Evaluator.from_state_dict({**state, "version": 99})
    with pytest.raises(ValueError, match=r"made by Evaluator\.state_dict"):
        Evaluator.from_state_dict({"scoring": {}})
    with pytest.raises(ValueError, match="configured differently: the metrics differ"):
        Evaluator(["rps"]).load_state_dict(state)
    with pytest.raises(ValueError, match=r"field 'ranking\.mode' is missing"):
        Evaluator(["rps", "c_index"]).load_state_dict({**state, "confusion": {}, "ranking": {}})
    damaged = {**state, "ranking": {**state["ranking"], "counts": np.zeros((3, 3))}}
    target = Evaluator(["rps", "c_index"])
    with pytest.raises(ValueError, match=r"field 'ranking.counts' must have shape \(30, 5\)"):
        target.load_state_dict(damaged)
    assert target.n_rows == 0  # unchanged by the failed load
    with pytest.raises(ValueError, match="its labels"):
        Evaluator(["rps", "c_index"], labels=list(range(5))).load_state_dict(
            {**state, "config": {**state["config"], "labels": list(range(5))}, "labels": None}
        )


def test_state_size_does_not_grow_with_the_rows():
    def size(ev):
        s = ev.state_dict()
        arrays = [s["ranking"]["values"], s["ranking"]["counts"], *s["confusion"].values()]
        arrays += [a for c in s["calibration"].values() for a in c.values()]
        return sum(a.size for a in arrays)

    ev = Evaluator()
    y, P, _ = data(n=20_000, weights=False)
    ev.update(y[:10_000], P[:10_000])
    first = size(ev)
    ev.update(y[10_000:], P[10_000:])
    assert size(ev) == first


def test_repr_and_properties():
    ev = Evaluator(["rps", "qwk"])
    assert repr(ev) == "Evaluator(rps, qwk; K unknown, 0 rows)"
    assert ev.metrics.names == ("rps", "qwk") and ev.labels is None
    ev.update([0, 1], [[0.5, 0.5], [0.2, 0.8]])
    assert repr(ev) == "Evaluator(rps, qwk; K = 2, 2 rows)"


# --------------------------------------------------------------------------------------------
# Every field of a state is validated
# --------------------------------------------------------------------------------------------

_FULL = ["rps", "log_loss", "qwk", "ece", "cumulative_ece", "c_index"]


def _full_state(n: int = 40, **kw):
    y, P, _ = data(n=n)
    ev = Evaluator(_FULL, **kw)
    ev.update(y, P)
    return ev.state_dict()


def _edit(state, path, value):
    """A deep copy of ``state`` with the field at ``path`` (keys joined by '.') replaced, or
    deleted when ``value`` is _DELETE."""
    out = pickle.loads(pickle.dumps(state))
    *head, last = path.split(".")
    node = out
    for key in head:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value(node[last]) if callable(value) else value
    return out


_DELETE = object()


def _neg(a):
    a = np.array(a, dtype=float)
    a.flat[0] = -1.0
    return a


def _nan(a):
    a = np.array(a, dtype=float)
    a.flat[0] = np.nan
    return a


def _inf(a):
    a = np.array(a, dtype=float)
    a.flat[0] = np.inf
    return a


_BAD_FIELDS = [
    # (field, new value, message)
    ("n_classes", _DELETE, "field 'n_classes' is missing"),
    ("n_rows", _DELETE, "field 'n_rows' is missing"),
    ("total_weight", _DELETE, "field 'total_weight' is missing"),
    ("propagated", _DELETE, "field 'propagated' is missing"),
    ("scoring", _DELETE, "field 'scoring' is missing"),
    ("scoring.rps", _DELETE, "field 'scoring.rps' is missing"),
    ("confusion.argmax", _DELETE, "field 'confusion.argmax' is missing"),
    ("calibration.ece.sum_event", _DELETE, "field 'calibration.ece.sum_event' is missing"),
    ("ranking.values", _DELETE, "field 'ranking.values' is missing"),
    ("n_classes", 1, "field 'n_classes' must be an integer >= 2"),
    ("n_classes", 5.0, "field 'n_classes' must be an integer >= 2"),
    ("n_classes", True, "field 'n_classes' must be an integer >= 2"),
    ("n_rows", -3, "field 'n_rows' must be an integer >= 0"),
    ("n_rows", 40.5, "field 'n_rows' must be an integer >= 0"),
    ("n_missing", -1, "field 'n_missing' must be an integer >= 0"),
    ("total_weight", math.inf, "field 'total_weight' must be a finite number >= 0; got inf"),
    ("total_weight", math.nan, "field 'total_weight' must be a finite number >= 0; got nan"),
    ("total_weight", -1.0, "field 'total_weight' must be a finite number >= 0"),
    ("total_weight", "40", "field 'total_weight' must be a number"),
    ("total_weight", 41.0, "field 'confusion.argmax' must add up to total_weight"),
    ("propagated", "no", "field 'propagated' must be True or False"),
    ("propagated", 0, "field 'propagated' must be True or False"),
    ("propagated", True, "field 'propagated' is True, but only an evaluator"),
    ("labels", [0, 1], "field 'labels' must have n_classes = 5 entries"),
    ("labels", "abcde", "field 'labels' must be a list or None"),
    ("scoring.rps", math.nan, "field 'scoring.rps' must be a finite number >= 0"),
    ("scoring.rps", math.inf, "field 'scoring.rps' must be a finite number >= 0"),
    ("scoring.rps", -0.5, "field 'scoring.rps' must be a finite number >= 0"),
    ("scoring.log_loss", math.nan, r"field 'scoring.log_loss' must be a number >= 0 \(or inf\)"),
    ("scoring.extra", 1.0, "field 'scoring' has entries \\['extra'\\]"),
    ("confusion.argmax", _neg, "field 'confusion.argmax' must hold numbers >= 0"),
    ("confusion.argmax", _nan, "field 'confusion.argmax' must hold finite numbers only"),
    ("confusion.argmax", _inf, "field 'confusion.argmax' must hold finite numbers only"),
    ("confusion.argmax", np.zeros((4, 4)), r"'confusion.argmax' must have shape \(5, 5\)"),
    ("confusion.argmax", lambda a: a.astype(complex), "must be an array of real numbers"),
    ("confusion.argmax", lambda a: a.astype(str), "must be an array of real numbers"),
    ("confusion.argmax", lambda a: a * 2, "field 'confusion.argmax' must add up to total_weight"),
    ("calibration.ece.weight", _nan, "field 'calibration.ece.weight' must hold finite"),
    ("calibration.ece.weight", lambda a: a * 2, "'calibration.ece.weight' must add up to"),
    ("calibration.ece.sum_event", lambda a: a + 100.0, "exceeds the weight of its bin"),
    ("calibration.ece.sum_forecast", _neg, "field 'calibration.ece.sum_forecast' must hold"),
    ("calibration.cumulative_ece.weight", np.zeros((4, 3)), "must have shape \\(4, 15\\)"),
    ("ranking.mode", "sorted", "field 'ranking.mode' must be 'exact' or 'grid'"),
    ("ranking.values", lambda a: a[::-1], "field 'ranking.values' must be sorted in increasing"),
    ("ranking.values", lambda a: np.r_[a[:1], a[:-1]], "must be sorted in increasing order"),
    ("ranking.values", _nan, "field 'ranking.values' must hold finite numbers only"),
    ("ranking.values", _neg, "field 'ranking.values' must hold numbers >= 0"),
    ("ranking.values", lambda a: a + 10.0, r"must lie in \[0, K - 1\] = \[0, 4\]"),
    ("ranking.values", lambda a: a[:, None], "field 'ranking.values' must be 1-dimensional"),
    ("ranking.counts", _inf, "field 'ranking.counts' must hold finite numbers only"),
    ("ranking.counts", lambda a: a[:-1], "field 'ranking.counts' must have shape"),
    ("ranking.counts", lambda a: a * 3, "field 'ranking.counts' must add up to total_weight"),
]


@pytest.mark.parametrize(
    ("field", "value", "message"), _BAD_FIELDS, ids=[f[0] for f in _BAD_FIELDS]
)
def test_every_damaged_field_is_refused_by_name(field, value, message):
    state = _full_state()
    target = Evaluator(_FULL)
    with pytest.raises(ValueError, match=message):
        target.load_state_dict(_edit(state, field, value))
    assert target.n_rows == 0 and target.n_classes is None  # unchanged by the failed load
    with pytest.raises(ValueError, match=message):
        Evaluator.from_state_dict(_edit(state, field, value))


def test_a_valid_state_still_loads_with_numpy_scalars_and_lists():
    state = _full_state()
    state["n_rows"] = np.int64(state["n_rows"])
    state["total_weight"] = np.float64(state["total_weight"])
    state["propagated"] = np.bool_(False)
    state["confusion"]["argmax"] = state["confusion"]["argmax"].tolist()
    ev = Evaluator.from_state_dict(state)
    y, P, _ = data(n=40)
    ref = Evaluator(_FULL)
    ref.update(y, P)
    assert_matches(ev.compute(), dict(ref.compute().values))


def test_a_state_in_grid_mode_is_validated():
    y, P, _ = data(n=300)
    ev = Evaluator(["c_index"], max_exact=10, n_grid=64)
    ev.update(y, P)
    state = ev.state_dict()
    assert state["ranking"]["mode"] == "grid"
    Evaluator.from_state_dict(state)  # valid
    with pytest.raises(ValueError, match=r"field 'ranking\.values' must be empty in mode 'grid'"):
        Evaluator.from_state_dict(_edit(state, "ranking.values", np.array([0.5])))
    with pytest.raises(ValueError, match=r"field 'ranking\.counts' must add up to total_weight"):
        Evaluator.from_state_dict(_edit(state, "ranking.counts", lambda a: a + 1.0))
    exact = _edit(state, "ranking.mode", "exact")
    with pytest.raises(ValueError, match=r"field 'ranking\.counts' must have shape"):
        Evaluator.from_state_dict(exact)


def test_an_empty_state_loads_and_a_rowless_state_with_weight_is_refused():
    state = Evaluator(_FULL).state_dict()
    assert Evaluator.from_state_dict(state).n_classes is None
    with pytest.raises(ValueError, match="field 'n_classes' is None"):
        Evaluator.from_state_dict({**state, "n_rows": 3})
    with pytest.raises(ValueError, match="field 'total_weight' must be 0 when n_rows is 0"):
        Evaluator.from_state_dict({**state, "total_weight": 2.0})


def test_n_grid_and_max_exact_have_a_documented_maximum():
    from ordmetrics.stream import MAX_TABLE

    with pytest.raises(ValueError, match=r"n_grid must be at most 16777216 \(2\^24, MAX_TABLE\)"):
        Evaluator(n_grid=2**40)
    with pytest.raises(ValueError, match="max_exact must be at most 16777216"):
        Evaluator(max_exact=2**40)
    with pytest.raises(TypeError, match="n_grid must be an integer"):
        Evaluator(n_grid=2.0**10)
    assert Evaluator(n_grid=MAX_TABLE).state_dict()["config"]["n_grid"] == MAX_TABLE


@pytest.mark.parametrize("scale", [1.0, 1e200, 1e-300])
def test_weighted_states_at_any_scale_pass_the_validation(scale):
    rng = np.random.default_rng(0)
    y, P = rng.integers(0, 4, 500), rng.dirichlet(np.ones(4), 500)
    w = rng.uniform(0.0, 2.0, 500) * scale
    ev = Evaluator(_FULL, max_exact=100, n_grid=64)  # the ranking table on the grid
    ev.update(y[:250], P[:250], w[:250])
    ev.update(y[250:], P[250:], w[250:])
    state = ev.state_dict()
    assert state["ranking"]["mode"] == "grid"
    again = Evaluator.from_state_dict(state)
    assert dict(again.compute().values) == dict(ev.compute().values)


# --------------------------------------------------------------------------------------------
# Accumulator families: a registered metric of an existing family streams as it is
# --------------------------------------------------------------------------------------------


def tmp_stream_score(
    y_true, y_proba, *, labels=None, sample_weight=None, nan_policy="raise", reduction="mean"
):
    """Twice the RPS: a scoring rule that the stream has never heard of."""
    return 2.0 * om.rps(
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
    )


def tmp_stream_ece(
    y_true,
    y_proba,
    *,
    n_bins=15,
    strategy="uniform",
    labels=None,
    sample_weight=None,
    nan_policy="raise",
):
    """The classwise ECE under another name: its view comes from its spec."""
    return om.classwise_ece(
        y_true,
        y_proba,
        n_bins=n_bins,
        strategy=strategy,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
    )


def tmp_stream_rank(y_true, y_score, *, labels=None, sample_weight=None, nan_policy="raise"):
    """The C-index under another name, without a grid bound in its spec."""
    return om.c_index(
        y_true, y_score, labels=labels, sample_weight=sample_weight, nan_policy=nan_policy
    )


def tmp_stream_whole(y_true, y_proba, *, labels=None, sample_weight=None, nan_policy="raise"):
    """A metric of a new kind that needs every row at once."""
    return 0.0


def tmp_stream_viewless(
    y_true, y_proba, *, n_bins=15, labels=None, sample_weight=None, nan_policy="raise"
):
    """A calibration metric whose spec names no calibration view."""
    return 0.0


@pytest.fixture
def throwaway_metrics() -> Iterator[None]:
    from ordmetrics._core.registry import register, unregister

    flags = dict.fromkeys(("proper", "strictly_proper", "local", "distance_sensitive"), True)
    flags["superior"] = False
    register(
        tmp_stream_score, direction="minimize", range=(0, 2), kind="scoring_rule", properties=flags
    )
    register(
        tmp_stream_ece,
        direction="minimize",
        range=(0, 1),
        kind="calibration",
        accumulate_options={"view": "classwise"},
    )
    register(tmp_stream_rank, direction="maximize", range=(0, 1), kind="ranking", perfect=1.0)
    register(
        tmp_stream_whole,
        direction="minimize",
        range=(0, 1),
        kind="tmp_stream_kind",
        input="probabilities",
    )
    register(tmp_stream_viewless, direction="minimize", range=(0, 1), kind="calibration")
    try:
        yield
    finally:
        for name in (
            "tmp_stream_score",
            "tmp_stream_ece",
            "tmp_stream_rank",
            "tmp_stream_whole",
            "tmp_stream_viewless",
        ):
            unregister(name)


def test_a_registered_metric_of_an_existing_family_streams(throwaway_metrics):
    rng = np.random.default_rng(11)
    y, P, w = rng.integers(0, 4, 900), rng.dirichlet(np.ones(4), 900), rng.uniform(0, 2, 900)
    names = ["tmp_stream_score", ("tmp_stream_score", {"reduction": "sum"}),
             ("tmp_stream_ece", {"n_bins": 7}), "tmp_stream_rank"]  # fmt: skip
    ev = Evaluator(names)
    for start in range(0, 900, 250):
        ev.update(y[start : start + 250], P[start : start + 250], w[start : start + 250])
    r = ev.compute()
    assert r["tmp_stream_score"] == pytest.approx(tmp_stream_score(y, P, sample_weight=w),
                                                  rel=1e-13, abs=1e-15)  # fmt: skip
    assert r["tmp_stream_score(reduction=sum)"] == pytest.approx(
        tmp_stream_score(y, P, sample_weight=w, reduction="sum"), rel=1e-13
    )
    assert r["tmp_stream_ece(n_bins=7)"] == pytest.approx(
        om.classwise_ece(y, P, n_bins=7, sample_weight=w), rel=1e-12, abs=1e-15
    )
    assert r["tmp_stream_rank"] == pytest.approx(om.c_index(y, P, sample_weight=w), abs=1e-13)
    assert r.exact
    # merged and reloaded like every other metric
    again = Evaluator.from_state_dict(pickle.loads(pickle.dumps(ev.state_dict())))
    assert dict(again.compute().values) == dict(r.values)
    # on the grid, a ranking metric without a grid bound in its spec is bounded by inf
    grid = Evaluator(["tmp_stream_rank", "c_index"], max_exact=10, n_grid=64)
    grid.update(y, P, w)
    bounds = grid.compute().bounds
    assert bounds["tmp_stream_rank"] == math.inf
    assert 0.0 < bounds["c_index"] < math.inf


def test_metrics_of_one_table_share_one_accumulator(throwaway_metrics):
    rng = np.random.default_rng(12)
    y, P = rng.integers(0, 3, 300), rng.dirichlet(np.ones(3), 300)
    ev = Evaluator(["classwise_ece", "tmp_stream_ece", ("ece", {"n_bins": 15}), "qwk", "mae",
                    ("accuracy", {"decision": "median"}), "c_index", "spearman"])  # fmt: skip
    ev.update(y, P)
    # one bin table per (view, bin count), one confusion matrix per rule, one rank table
    assert len(ev._accs) == 5
    state = ev.state_dict()
    assert set(state["calibration"]) == {"classwise_ece", "tmp_stream_ece", "ece(n_bins=15)"}
    assert set(state["confusion"]) == {"argmax", "median"}
    r = ev.compute()
    assert r["tmp_stream_ece"] == r["classwise_ece"]
    assert r["classwise_ece"] == pytest.approx(om.classwise_ece(y, P), rel=1e-13, abs=1e-15)
    assert Evaluator.from_state_dict(state).compute()["tmp_stream_ece"] == r["tmp_stream_ece"]
    # the copies of one table in the state must agree
    damaged = ev.state_dict()
    damaged["calibration"]["tmp_stream_ece"]["sum_event"] = (
        damaged["calibration"]["tmp_stream_ece"]["sum_event"] * 0.5
    )
    shared = (
        r"field 'calibration.tmp_stream_ece' differs from field 'calibration.classwise_ece', "
        r"which holds the same table"
    )
    with pytest.raises(ValueError, match=shared):
        Evaluator.from_state_dict(damaged)


def test_a_metric_without_an_accumulator_family_is_refused(throwaway_metrics):
    whole = (
        r"metric 'tmp_stream_whole' cannot be computed in a stream: it needs every row at "
        r"once.*ordmetrics.tmp_stream_whole"
    )
    with pytest.raises(ValueError, match=whole):
        Evaluator(["rps", "tmp_stream_whole"])
    viewless = (
        r"'tmp_stream_viewless' accumulates 'calibration_bins' but its spec names no "
        r"calibration view"
    )
    with pytest.raises(ValueError, match=viewless):
        Evaluator(["tmp_stream_viewless"])
