"""The core evaluation of a metric set on arrays, and the registry as the one source of how
every front computes a metric.

:meth:`ordmetrics.MetricSet.compute` gives each metric the input its registry entry names
(``spec.input``): the probabilities, the expected-grade scores (the probabilities, which the
ranking functions reduce), or the decisions of a rule, computed once per rule. Metrics
registered here for the length of a test, of an existing kind and of a new one, must be
computed by every front (``evaluate``, metric sets, the callbacks, the scikit-learn scorers,
Dask) without any front knowing them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordmetrics as om
from ordmetrics._core.registry import INPUTS, PROPERTY_NAMES, register, unregister
from ordmetrics.evaluation import metric_entry
from ordmetrics.evaluation.metric_set import (
    DEFAULT_METRICS,
    MetricSet,
    as_metric_set,
    check_options,
    decide_rows,
    metric_set,
)
from ordmetrics.integrations import callbacks

SRC = Path(__file__).resolve().parents[1] / "src" / "ordmetrics"
K = 4
N = 120


def _data(seed: int = 11) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=N)
    logits = rng.normal(size=(N, K)) + 1.5 * (np.arange(K)[None, :] == y[:, None])
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    w = rng.integers(1, 4, size=N).astype(np.float64)
    return y, P, w


Y, P, W = _data()


# --------------------------------------------------------------------------------------------
# Throw-away metrics: registered for one test, removed after it
# --------------------------------------------------------------------------------------------


def _codes(y_true, labels) -> np.ndarray:
    if labels is None:
        return np.asarray(y_true, dtype=np.int64)
    index = {label: i for i, label in enumerate(labels)}
    return np.array([index[v] for v in np.asarray(y_true).tolist()], dtype=np.int64)


def _mean(values: np.ndarray, sample_weight, reduction: str = "mean") -> float:
    w = np.ones(values.size) if sample_weight is None else np.asarray(sample_weight, float)
    total = float(np.sum(w * values))
    return total if reduction == "sum" else total / float(np.sum(w))


def _complete(P: np.ndarray, sample_weight, nan_policy: str):
    """The rows without NaN, as a front-agnostic metric would take them."""
    bad = np.isnan(P).any(axis=1)
    if not bad.any():
        return np.ones(P.shape[0], bool)
    if nan_policy == "raise":
        raise ValueError("tmp metric: y_proba is missing (NaN)")
    return ~bad


def tmp_truth_gap(
    y_true, y_proba, *, labels=None, sample_weight=None, nan_policy="raise", power=1.0
) -> float:
    """A metric of a new kind, from probabilities: mean (1 - p_true) ** power."""
    P = np.asarray(y_proba, dtype=np.float64)
    keep = _complete(P, sample_weight, nan_policy)
    if nan_policy == "propagate" and not keep.all():
        return float("nan")
    y = _codes(y_true, labels)[keep]
    w = None if sample_weight is None else np.asarray(sample_weight, float)[keep]
    return _mean((1.0 - P[keep][np.arange(y.size), y]) ** power, w)


def tmp_grade_gap(y_true, y_score, *, labels=None, sample_weight=None, nan_policy="raise"):
    """A metric of a new kind, from scores: mean |expected grade - true class|."""
    P = np.asarray(y_score, dtype=np.float64)
    grade = P @ np.arange(P.shape[1])
    return _mean(np.abs(grade - _codes(y_true, labels)), sample_weight)


def tmp_miss_rate(y_true, y_pred, *, labels=None, sample_weight=None, nan_policy="raise"):
    """An agreement metric (decisions): the weighted share of wrong decisions."""
    wrong = np.asarray(y_true).astype(object) != np.asarray(y_pred).astype(object)
    return _mean(wrong.astype(np.float64), sample_weight)


def tmp_sq_score(
    y_true, y_proba, *, labels=None, sample_weight=None, nan_policy="raise", reduction="mean"
):
    """A scoring rule (probabilities, mean_score accumulator): mean (1 - p_true)^2."""
    P = np.asarray(y_proba, dtype=np.float64)
    y = _codes(y_true, labels)
    return _mean((1.0 - P[np.arange(y.size), y]) ** 2, sample_weight, reduction)


def tmp_no_policy(y_true, y_proba, *, labels=None, sample_weight=None):
    """A metric whose function takes no nan_policy."""
    return tmp_truth_gap(y_true, y_proba, labels=labels, sample_weight=sample_weight)


def tmp_own_decision(y_true, y_proba, *, labels=None, sample_weight=None, decision="argmax"):
    """A metric of probabilities whose function has its own ``decision`` option."""
    pred = om.decide(y_proba, decision)
    return tmp_miss_rate(y_true, pred, sample_weight=sample_weight)


@pytest.fixture
def tmp_metrics():
    """Register the throw-away metrics; remove them again after the test."""
    flags = dict.fromkeys(PROPERTY_NAMES, False)
    specs = [
        register(tmp_truth_gap, direction="minimize", range=(0, 1), kind="tmp_family",
                 input="probabilities"),
        register(tmp_grade_gap, direction="minimize", range=(0, np.inf), kind="tmp_family",
                 input="scores"),
        register(tmp_miss_rate, direction="minimize", range=(0, 1), kind="agreement",
                 accumulates=None),
        register(tmp_sq_score, direction="minimize", range=(0, 1), kind="scoring_rule",
                 properties=flags),
        register(tmp_no_policy, direction="minimize", range=(0, 1), kind="tmp_family",
                 input="probabilities"),
        register(tmp_own_decision, direction="minimize", range=(0, 1), kind="tmp_family",
                 input="probabilities"),
    ]  # fmt: skip
    try:
        yield [s.name for s in specs]
    finally:
        for s in specs:
            unregister(s.name)


NEW = ["tmp_truth_gap", "tmp_grade_gap", "tmp_miss_rate", "tmp_sq_score"]


def _direct(name: str, y, P, w=None, *, labels=None, decision="argmax", **options) -> float:
    """The metric's own function, fed as its registry input says (written out by hand)."""
    func = om.get_metric(name).func
    if name == "tmp_miss_rate":
        return func(y, om.decide(P, decision, labels=labels), sample_weight=w)
    return func(y, P, labels=labels, sample_weight=w, **options)


def test_registered_inputs_and_accumulators(tmp_metrics):
    spec = om.get_metric
    assert spec("tmp_truth_gap").input == "probabilities"
    assert spec("tmp_truth_gap").accumulates is None  # a new kind is not streamed by default
    assert spec("tmp_grade_gap").input == "scores"
    assert spec("tmp_miss_rate").input == "decisions"  # the kind's input
    assert spec("tmp_miss_rate").accumulates is None  # stated, not the kind's
    assert spec("tmp_sq_score").accumulates == "mean_score"
    assert "tmp_family" in {spec(n).kind for n in om.list_metrics()}
    assert om.list_metrics("tmp_family") == ["tmp_truth_gap", "tmp_grade_gap",
                                             "tmp_no_policy", "tmp_own_decision"]  # fmt: skip


def test_the_fixture_removes_them_again(tmp_metrics):
    assert set(tmp_metrics) <= set(om.list_metrics())


def test_after_the_fixture_they_are_gone():
    assert not [n for n in om.list_metrics() if n.startswith("tmp_")]
    with pytest.raises(ValueError, match="unknown metric 'tmp_truth_gap'"):
        unregister("tmp_truth_gap")


def test_register_needs_the_input_of_a_new_kind():
    with pytest.raises(ValueError, match=r"kind 'tmp_other' has no default input: pass input="):
        register(tmp_truth_gap, direction="minimize", range=(0, 1), kind="tmp_other")
    with pytest.raises(ValueError, match="input of 'tmp_truth_gap' must be one of"):
        register(tmp_truth_gap, direction="minimize", range=(0, 1), kind="tmp_other",
                 input="logits")  # fmt: skip
    assert "tmp_truth_gap" not in om.list_metrics()


# --------------------------------------------------------------------------------------------
# Every front computes them
# --------------------------------------------------------------------------------------------


def test_compute_gives_the_functions_values(tmp_metrics):
    ms = metric_set(
        *NEW, ("tmp_truth_gap", {"power": 2.0}), ("tmp_miss_rate", {"decision": "median"})
    )
    got = ms.compute(Y, P, W)
    assert list(got) == [*NEW, "tmp_truth_gap(power=2.0)", "tmp_miss_rate(decision=median)"]
    for name in NEW:
        assert got[name] == _direct(name, Y, P, W)
    assert got["tmp_truth_gap(power=2.0)"] == _direct("tmp_truth_gap", Y, P, W, power=2.0)
    assert got["tmp_miss_rate(decision=median)"] == _direct(
        "tmp_miss_rate", Y, P, W, decision="median"
    )


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_evaluate_and_metric_set_on_frames(tmp_metrics, backend):
    cols = {"y": Y, "w": W, "site": np.where(np.arange(N) % 3 == 0, "a", "b")}
    cols.update({f"p_{k}": P[:, k] for k in range(K)})
    if backend == "pandas":
        frame = pd.DataFrame(cols)
    else:
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame(cols)
    out = om.evaluate(frame, truth="y", proba="p_", metrics=NEW, sample_weight="w", by="site")
    out = out if isinstance(out, pd.DataFrame) else out.to_pandas()
    for site in ("a", "b"):
        rows = cols["site"] == site
        part = out[out["site"] == site]
        assert part["metric"].tolist() == NEW
        expected = [_direct(n, Y[rows], P[rows], W[rows]) for n in NEW]
        np.testing.assert_array_equal(part["estimate"].to_numpy(), expected)
        assert part["direction"].tolist() == ["minimize"] * len(NEW)
    ms = metric_set(*NEW)
    again = ms(frame, truth="y", proba="p_", sample_weight="w", by="site")
    again = again if isinstance(again, pd.DataFrame) else again.to_pandas()
    np.testing.assert_array_equal(again["estimate"].to_numpy(), out["estimate"].to_numpy())


def test_callbacks_compute_them(tmp_metrics):
    m = callbacks._Metrics(NEW, None, "val_", "argmax")
    got = m.compute(Y, P, W, " at epoch 0")
    assert got == {f"val_{n}": _direct(n, Y, P, W) for n in NEW}
    assert m.modes == {f"val_{n}": "min" for n in NEW}


def test_sklearn_scorers_ask_for_the_input(tmp_metrics):
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    from ordmetrics.sklearn import get_scorer, get_scorer_names

    assert set(NEW) <= set(get_scorer_names())
    assert get_scorer_names("tmp_family") == om.list_metrics("tmp_family")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 3)) + Y[:, None]
    model = LogisticRegression(max_iter=500).fit(X, Y)
    for name in NEW:
        scorer = get_scorer(name)
        spec = om.get_metric(name)
        method = "predict" if spec.input == "decisions" else "predict_proba"
        assert scorer.response_method == method
        pred = getattr(model, method)(X)
        expected = spec.func(Y, pred, labels=None, sample_weight=W)
        assert scorer(model, X, Y, sample_weight=W) == pytest.approx(-expected, rel=1e-12)


def test_dask_streams_a_new_scoring_rule(tmp_metrics):
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    import ordmetrics.dask

    cols = {"y": Y, "w": W}
    cols.update({f"p_{k}": P[:, k] for k in range(K)})
    ddf = dd.from_pandas(pd.DataFrame(cols), npartitions=3)
    out = ordmetrics.dask.evaluate(
        ddf, truth="y", proba="p_", metrics=["tmp_sq_score", "rps"], sample_weight="w"
    )
    assert out["metric"].tolist() == ["tmp_sq_score", "rps"]
    expected = [tmp_sq_score(Y, P, sample_weight=W), om.rps(Y, P, sample_weight=W)]
    np.testing.assert_allclose(out["estimate"].to_numpy(), expected, rtol=1e-12, atol=0)


# --------------------------------------------------------------------------------------------
# The core: inputs, shared decisions, missing values, errors
# --------------------------------------------------------------------------------------------


def test_every_registered_metric_has_an_input_the_core_gives():
    for name in om.list_metrics():
        assert om.get_metric(name).input in INPUTS, name


def test_compute_matches_the_functional_api_for_the_default_set():
    ms = as_metric_set(None)
    got = ms.compute(Y, P, W)
    for entry in ms:
        spec = entry.spec
        if spec.input == "decisions":
            x = om.decide(P, labels=list(range(K)))
            expected = spec.func(Y, x, labels=list(range(K)), sample_weight=W)
        else:
            expected = spec.func(Y, P, sample_weight=W)
        assert got[entry.name] == expected, entry.name


def test_decisions_are_computed_once_per_rule(monkeypatch):
    calls: list[str] = []
    real = metric_entry.decide

    def counting(P, rule="argmax", **kwargs):
        calls.append(rule)
        return real(P, rule, **kwargs)

    monkeypatch.setattr(metric_entry, "decide", counting)
    ms = metric_set(
        "qwk",
        "kappa",
        "accuracy",
        ("qwk", {"decision": "median"}, "qwk_m"),
        ("mae", {"decision": "median"}),
    )
    got = ms.compute(Y, P)
    assert sorted(calls) == ["argmax", "median"]
    assert got["qwk_m"] == om.qwk(Y, real(P, "median"), labels=list(range(K)))
    calls.clear()
    ms.compute(Y, P, decision="expected")  # the default rule of the call
    assert sorted(calls) == ["expected", "median"]


def test_string_labels_and_decision_labels():
    labels = ["none", "mild", "moderate", "severe"]
    ys = np.array(labels, dtype=object)[Y]
    ms = metric_set("rps", "qwk", "c_index")
    got = ms.compute(ys, P, labels=labels)
    assert got["rps"] == om.rps(ys, P, labels=labels)
    assert got["qwk"] == om.qwk(ys, om.decide(P, labels=labels), labels=labels)
    assert got["c_index"] == om.c_index(ys, P, labels=labels)
    # numeric truth without labels: decisions compared over all K classes, even absent ones
    y3 = np.minimum(Y, 2)
    assert ms.compute(y3, P)["qwk"] == om.qwk(y3, om.decide(P), labels=list(range(K)))


def test_missing_probabilities_follow_nan_policy():
    Pn = P.copy()
    Pn[[3, 7]] = np.nan
    ms = metric_set("rps", "qwk")
    with pytest.raises(ValueError, match=r"NaN") as info:
        ms.compute(Y, Pn)
    if sys.version_info >= (3, 11):
        assert info.value.__notes__ == ["(raised by metric 'rps')"]
    with pytest.raises(ValueError, match=r"proba is missing \(NaN/None\) in rows 13, 17"):
        metric_set("qwk").compute(Y, Pn, rows=np.arange(N) + 10)
    got = ms.compute(Y, Pn, nan_policy="omit")
    keep = ~np.isnan(Pn).any(axis=1)
    assert got["rps"] == om.rps(Y[keep], P[keep])
    assert got["qwk"] == om.qwk(Y[keep], om.decide(P[keep]), labels=list(range(K)))
    assert all(np.isnan(v) for v in ms.compute(Y, Pn, nan_policy="propagate").values())


def test_decide_rows_marks_incomplete_rows():
    Pn = np.array([[0.7, 0.3], [np.nan, 0.5], [0.2, 0.8]])
    assert decide_rows(Pn, "argmax", ["lo", "hi"], "omit").tolist() == ["lo", None, "hi"]
    with pytest.raises(ValueError, match="row 1"):
        decide_rows(Pn, "argmax", None, "raise")
    assert decide_rows(np.full((2, 2), np.nan), "argmax", None, "omit").tolist() == [None, None]


def test_errors_carry_the_note_of_the_caller():
    ms = metric_set("rps")
    with pytest.raises(ValueError) as info:
        ms.compute(Y, P[:, :3], note=lambda e: f"(metric {e.name!r} of fold 2)")
    if sys.version_info >= (3, 11):
        assert info.value.__notes__ == ["(metric 'rps' of fold 2)"]
    with pytest.raises(ValueError, match=r"y_proba must have shape \(n_samples, n_classes\)"):
        ms.compute(Y, P[:, 0])
    with pytest.raises(ValueError, match="nan_policy"):
        ms.compute(Y, P, nan_policy="drop")
    with pytest.raises(ValueError, match="decision"):
        ms.compute(Y, P, decision="mode")


def test_a_metric_without_a_per_call_parameter(tmp_metrics):
    ms = metric_set("tmp_no_policy")
    assert ms.compute(Y, P, W)["tmp_no_policy"] == tmp_truth_gap(Y, P, sample_weight=W)
    with pytest.raises(ValueError, match="'tmp_no_policy' does not take nan_policy"):
        ms.compute(Y, P, nan_policy="omit")


def test_a_function_with_its_own_decision_option(tmp_metrics):
    spec = om.get_metric("tmp_own_decision")
    assert check_options(spec, {"decision": "median"}) == {"decision": "median"}
    got = metric_set(("tmp_own_decision", {"decision": "median"})).compute(Y, P)
    assert list(got.values()) == [tmp_own_decision(Y, P, decision="median")]
    with pytest.raises(ValueError, match="decision is an option of the agreement metrics only"):
        check_options(om.get_metric("tmp_truth_gap"), {"decision": "median"})


def test_metric_set_is_the_public_home():
    assert om.MetricSet is MetricSet and om.metric_set is metric_set
    assert om.DEFAULT_METRICS == DEFAULT_METRICS
    from ordmetrics.io import frames

    assert frames.MetricSet is MetricSet and frames.DEFAULT_METRICS is DEFAULT_METRICS


# --------------------------------------------------------------------------------------------
# The fronts dispatch on the registry's input, never on the kind
# --------------------------------------------------------------------------------------------

FRONTS = [
    "evaluation/metric_set.py",
    "evaluation/metric_entry.py",
    "io/frames.py",
    "io/frame_columns.py",
    "integrations/callbacks.py",
    "integrations/dask.py",
    "integrations/sklearn.py",
]


@pytest.mark.parametrize("path", FRONTS)
def test_fronts_do_not_test_the_kind(path):
    text = (SRC / path).read_text()
    kind_of_metric = r"\b(?:spec|entry|e|self)\.kind\s*(?:==|!=|in\b|not in\b)"
    tests = re.findall(
        kind_of_metric + r"|_DECISION_KINDS\b(?!\s*=)|_RESPONSE_METHOD\[spec\.kind", text
    )
    assert not tests, f"{path} decides by the metric kind: {tests}"
