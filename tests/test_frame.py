"""Tests for the data-frame front: evaluate, metric_set, MetricSet, MetricEntry.

Every estimate must be the number the functional API gives for the same rows: the front only
adapts frames to the core.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import ordmetrics as om
from ordmetrics.datasets import CUT_LABELS, load_diamonds_cut, load_diamonds_cut_frame
from ordmetrics.io.frames import DEFAULT_METRICS, MetricEntry, MetricSet, evaluate, metric_set

K = 4
N = 240
PROBA = [f"p_{k}" for k in range(K)]
GRADES = ["none", "mild", "moderate", "severe"]
BACKENDS = ["pandas", "polars"]


def _columns(seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=N)
    # informative predictions, so that every metric is defined in every group
    logits = rng.normal(size=(N, K)) + 2.0 * (np.arange(K)[None, :] == y[:, None])
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    cols: dict[str, np.ndarray] = {"y": y}
    cols["site"] = np.array(["c", "a", "b"])[rng.integers(0, 3, size=N)]
    cols["fold"] = rng.integers(0, 2, size=N)
    for k in range(K):
        cols[f"p_{k}"] = P[:, k]
    cols["w"] = rng.integers(0, 4, size=N).astype(np.float64) + 0.5
    cols["grade"] = np.array(GRADES)[y]
    return cols


COLS = _columns()
Y = COLS["y"]
P = np.column_stack([COLS[c] for c in PROBA])
W = COLS["w"]


def _frame(backend: str, cols: dict[str, np.ndarray] | None = None):
    cols = COLS if cols is None else cols
    if backend == "pandas":
        return pd.DataFrame(cols)
    return pl.DataFrame(cols)


def _estimates(out) -> np.ndarray:
    if isinstance(out, pl.DataFrame):
        return out["estimate"].to_numpy()
    return out["estimate"].to_numpy()


def _metric_names(out) -> list[str]:
    return [str(v) for v in out["metric"].to_list()]


def _expected(name: str, y, P, *, labels=None, w=None, decision="argmax", **options) -> float:
    """The functional API, fed the way the front documents it."""
    spec = om.get_metric(name)
    if spec.input == "decisions":
        agree = labels if labels is not None else list(range(P.shape[1]))
        pred = om.decide(P, decision, labels=labels)
        return spec(y, pred, labels=agree, sample_weight=w, **options)
    return spec(y, P, labels=labels, sample_weight=w, **options)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


# --------------------------------------------------------------------------------------------
# Same numbers as the functional API
# --------------------------------------------------------------------------------------------


def test_default_metrics_match_functional_api(backend: str) -> None:
    out = evaluate(_frame(backend), truth="y", proba=PROBA)
    assert _metric_names(out) == list(DEFAULT_METRICS)
    rules = ["rps", "sa_rps", "brier", "log_loss", "pbs", "pll"]
    assert set(rules) <= set(om.list_metrics("scoring_rule"))
    assert list(DEFAULT_METRICS) == [*rules, "qwk", "expected_cost", "c_index", "ece"]
    expected = [_expected(name, Y, P) for name in DEFAULT_METRICS]
    np.testing.assert_array_equal(_estimates(out), expected)
    assert out["direction"].to_list() == [om.get_metric(n).direction for n in DEFAULT_METRICS]


def test_every_registered_metric_matches_functional_api() -> None:
    names = om.list_metrics()
    out = evaluate(_frame("polars"), truth="y", proba=PROBA, metrics=names, sample_weight="w")
    assert _metric_names(out) == names
    expected = [_expected(name, Y, P, w=W) for name in names]
    np.testing.assert_array_equal(_estimates(out), expected)


def test_pandas_and_polars_give_identical_tables() -> None:
    kwargs = {"truth": "y", "proba": "p_", "by": ["site", "fold"], "sample_weight": "w"}
    a = evaluate(_frame("pandas"), **kwargs)
    b = evaluate(_frame("polars"), **kwargs)
    np.testing.assert_array_equal(_estimates(a), _estimates(b))
    assert a["metric"].to_list() == b["metric"].to_list()
    assert a["site"].to_list() == b["site"].to_list()
    assert a["fold"].to_list() == b["fold"].to_list()


def test_metric_set_with_options_matches_functional_api(backend: str) -> None:
    ms = metric_set(
        "rps",
        ("expected_cost", {"costs": "squared"}),
        ("kappa", {"weights": "linear"}),
        ("qwk", {"decision": "median"}, "qwk_median"),
        ("ece", {"n_bins": 5, "strategy": "quantile"}),
        ("rps", {"normalize": False}),
    )
    out = ms(_frame(backend), truth="y", proba=PROBA)
    assert _metric_names(out) == [
        "rps",
        "expected_cost(costs=squared)",
        "kappa(weights=linear)",
        "qwk_median",
        "ece(n_bins=5, strategy=quantile)",
        "rps(normalize=False)",
    ]
    expected = [
        _expected("rps", Y, P),
        _expected("expected_cost", Y, P, costs="squared"),
        _expected("kappa", Y, P, weights="linear"),
        _expected("qwk", Y, P, decision="median"),
        _expected("ece", Y, P, n_bins=5, strategy="quantile"),
        _expected("rps", Y, P, normalize=False),
    ]
    np.testing.assert_array_equal(_estimates(out), expected)
    same = evaluate(_frame(backend), truth="y", proba=PROBA, metrics=ms)
    np.testing.assert_array_equal(_estimates(same), expected)


def test_mix_of_names_and_metric_set_entries() -> None:
    ms = metric_set(("expected_cost", {"costs": "squared"}))
    entry = MetricEntry("within_k_accuracy", {"k": 0}, name="exact")
    out = evaluate(_frame("pandas"), truth="y", proba=PROBA, metrics=["rps", ms, entry, "qwk"])
    assert _metric_names(out) == ["rps", "expected_cost(costs=squared)", "exact", "qwk"]
    np.testing.assert_array_equal(
        _estimates(out),
        [
            _expected("rps", Y, P),
            _expected("expected_cost", Y, P, costs="squared"),
            om.accuracy(Y, om.decide(P), labels=range(K)),
            _expected("qwk", Y, P),
        ],
    )


def test_decision_keyword_feeds_agreement_metrics() -> None:
    out = evaluate(
        _frame("pandas"),
        truth="y",
        proba=PROBA,
        metrics=["qwk", ("mae", {"decision": "expected"}), "rps"],
        decision="median",
    )
    np.testing.assert_array_equal(
        _estimates(out),
        [
            _expected("qwk", Y, P, decision="median"),
            _expected("mae", Y, P, decision="expected"),
            _expected("rps", Y, P),
        ],
    )


# --------------------------------------------------------------------------------------------
# Groups
# --------------------------------------------------------------------------------------------


def test_group_by_equals_per_group_calls(backend: str) -> None:
    names = ["rps", "log_loss", "qwk", "expected_cost", "c_index", "ece"]
    out = evaluate(_frame(backend), truth="y", proba="p_", by="site", metrics=names)
    # groups in order of first appearance, metrics in the given order
    first_seen = list(dict.fromkeys(COLS["site"].tolist()))
    assert first_seen != sorted(first_seen)
    assert out["site"].to_list() == [s for s in first_seen for _ in names]
    assert _metric_names(out) == names * len(first_seen)
    expected = []
    for s in first_seen:
        rows = COLS["site"] == s
        expected.extend(_expected(n, Y[rows], P[rows]) for n in names)
    np.testing.assert_array_equal(_estimates(out), expected)


def test_group_by_several_columns_with_weights(backend: str) -> None:
    names = ["rps", "qwk", "c_index"]
    out = evaluate(
        _frame(backend),
        truth="y",
        proba=PROBA,
        by=["fold", "site"],
        metrics=names,
        sample_weight="w",
    )
    keys = list(dict.fromkeys(zip(COLS["fold"].tolist(), COLS["site"].tolist(), strict=True)))
    assert len(keys) == 6
    got_keys = list(zip(out["fold"].to_list(), out["site"].to_list(), strict=True))
    assert got_keys == [k for k in keys for _ in names]
    expected = []
    for f, s in keys:
        rows = (COLS["fold"] == f) & (COLS["site"] == s)
        expected.extend(_expected(n, Y[rows], P[rows], w=W[rows]) for n in names)
    np.testing.assert_array_equal(_estimates(out), expected)


def test_group_with_absent_classes_uses_all_k_classes() -> None:
    # group "b" holds only classes 0 and 1 (truth and decisions): it is scored on labels 0..3
    y = np.array([0, 1, 0, 1, 2, 3, 0, 3])
    P4 = np.eye(K)[[0, 1, 1, 1, 2, 3, 0, 2]] * 0.7 + 0.075
    df = pd.DataFrame({"y": y, "g": list("bbbbaaaa"), **{c: P4[:, j] for j, c in enumerate(PROBA)}})
    out = evaluate(df, truth="y", proba=PROBA, by="g", metrics=["qwk", "macro_f1"])
    pred = om.decide(P4[:4])
    assert out["estimate"][0] == om.qwk(y[:4], pred, labels=range(K))
    assert out["estimate"][1] == om.macro_f1(y[:4], pred, labels=range(K))


def test_missing_group_key_is_its_own_group(backend: str) -> None:
    cols = dict(COLS)
    site = cols["site"].astype(object)
    site[::7] = None
    cols["site"] = site
    out = evaluate(
        _frame(backend, cols),
        truth="y",
        proba=PROBA,
        by="site",
        metrics=["rps"],
        nan_policy="propagate",
    )
    assert out.shape[0] == 4
    keys = out["site"].to_list()
    assert sum(k is None or (isinstance(k, float) and math.isnan(k)) for k in keys) == 1
    missing = pd.isna(pd.Series(site, dtype=object)).to_numpy()
    got = dict(zip([None if pd.isna(k) else k for k in keys], _estimates(out), strict=True))
    assert got[None] == om.rps(Y[missing], P[missing])


def test_group_values_keep_their_dtype() -> None:
    df = pd.DataFrame(COLS).assign(
        site=lambda d: pd.Categorical(d["site"], categories=["a", "b", "c"])
    )
    out = evaluate(df, truth="y", proba=PROBA, by=["site", "fold"], metrics=["rps"])
    assert isinstance(out["site"].dtype, pd.CategoricalDtype)
    assert out["fold"].dtype == df["fold"].dtype
    pf = pl.DataFrame(COLS).with_columns(pl.col("site").cast(pl.Enum(["c", "b", "a"])))
    outp = evaluate(pf, truth="y", proba=PROBA, by=["site", "fold"], metrics=["rps"])
    assert outp.schema["site"] == pl.Enum(["c", "b", "a"])
    assert outp.schema["fold"] == pf.schema["fold"]


# --------------------------------------------------------------------------------------------
# Columns: prefix, labels, categorical truth, output frame
# --------------------------------------------------------------------------------------------


def test_prefix_equals_explicit_list_in_frame_order(backend: str) -> None:
    a = evaluate(_frame(backend), truth="y", proba="p_")
    b = evaluate(_frame(backend), truth="y", proba=PROBA)
    np.testing.assert_array_equal(_estimates(a), _estimates(b))
    # a prefix takes the columns in frame order, other columns between them are skipped
    cols = {"y": Y, "p_0": P[:, 0], "x": Y * 2.0, "p_1": P[:, 1], "p_2": P[:, 2], "p_3": P[:, 3]}
    c = evaluate(_frame(backend, cols), truth="y", proba="p_")
    np.testing.assert_array_equal(_estimates(c), _estimates(b))


def test_string_truth_with_labels_equals_integer_truth(backend: str) -> None:
    by_int = evaluate(_frame(backend), truth="y", proba=PROBA, by="site")
    by_str = evaluate(_frame(backend), truth="grade", proba=PROBA, by="site", labels=GRADES)
    np.testing.assert_array_equal(_estimates(by_str), _estimates(by_int))
    first = COLS["site"] == COLS["site"][0]
    assert DEFAULT_METRICS[7] == "expected_cost"
    assert _estimates(by_str)[7] == _expected(
        "expected_cost", COLS["grade"][first], P[first], labels=GRADES
    )


def test_ordered_categorical_and_enum_truth_need_no_labels() -> None:
    ref = _estimates(evaluate(_frame("pandas"), truth="y", proba=PROBA, by="fold"))
    df = pd.DataFrame(COLS).assign(
        grade=lambda d: pd.Categorical(d["grade"], categories=GRADES, ordered=True)
    )
    np.testing.assert_array_equal(
        _estimates(evaluate(df, truth="grade", proba=PROBA, by="fold")), ref
    )
    pf = pl.DataFrame(COLS).with_columns(pl.col("grade").cast(pl.Enum(GRADES)))
    np.testing.assert_array_equal(
        _estimates(evaluate(pf, truth="grade", proba=PROBA, by="fold")), ref
    )


def test_string_truth_without_labels_is_the_core_error(backend: str) -> None:
    with pytest.raises(TypeError) as caught:
        om.rps(COLS["grade"], P)
    with pytest.raises(TypeError, match="labels= was not given") as got:
        evaluate(_frame(backend), truth="grade", proba=PROBA, metrics=["qwk", "rps"])
    assert str(got.value) == str(caught.value)
    # an unordered categorical has no order either
    df = pd.DataFrame(COLS).assign(grade=lambda d: pd.Categorical(d["grade"]))
    with pytest.raises(TypeError, match="labels= was not given"):
        evaluate(df, truth="grade", proba=PROBA, metrics=["rps"])


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="exception notes need 3.11")
def test_errors_in_a_group_carry_a_note() -> None:
    with pytest.raises(TypeError) as got:
        evaluate(_frame("pandas"), truth="grade", proba=PROBA, by="site", metrics=["qwk"])
    site = str(COLS["site"][0])
    assert got.value.__notes__ == [f"(raised by metric 'qwk' in the group site={site!r})"]


def test_output_frame_library_columns_and_dtypes() -> None:
    out = evaluate(_frame("pandas"), truth="y", proba=PROBA, by="site", metrics=["rps", "qwk"])
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["site", "metric", "estimator", "estimate", "direction"]
    assert out["estimate"].dtype == np.float64
    assert pd.api.types.is_string_dtype(out["metric"])
    assert pd.api.types.is_string_dtype(out["estimator"])
    assert pd.api.types.is_string_dtype(out["direction"])
    assert out.index.equals(pd.RangeIndex(6))
    assert set(out["direction"]) == {"minimize", "maximize"}

    outp = evaluate(_frame("polars"), truth="y", proba=PROBA, metrics=["rps", "qwk"])
    assert isinstance(outp, pl.DataFrame)
    assert outp.schema == pl.Schema(
        {
            "metric": pl.String,
            "estimator": pl.String,
            "estimate": pl.Float64,
            "direction": pl.String,
        }
    )


def test_other_eager_frames_round_trip() -> None:
    table = pa.table({c: COLS[c] for c in ["y", "site", *PROBA]})
    out = evaluate(table, truth="y", proba="p_", by="site", metrics=["rps", "qwk"])
    assert isinstance(out, pa.Table)
    ref = evaluate(_frame("polars"), truth="y", proba="p_", by="site", metrics=["rps", "qwk"])
    np.testing.assert_array_equal(out["estimate"].to_numpy(), _estimates(ref))


def test_no_rows_with_groups_gives_an_empty_table() -> None:
    out = evaluate(_frame("polars").head(0), truth="y", proba=PROBA, by="site")
    assert out.shape == (0, 5)
    assert out.columns == ["site", "metric", "estimator", "estimate", "direction"]


# --------------------------------------------------------------------------------------------
# Missing values
# --------------------------------------------------------------------------------------------


def _with_missing() -> tuple[dict[str, np.ndarray], np.ndarray]:
    cols = dict(COLS)
    cols["p_1"] = cols["p_1"].copy()
    cols["p_1"][[3, 50]] = np.nan
    cols["y"] = cols["y"].astype(np.float64)
    cols["y"][[10]] = np.nan
    cols["w"] = cols["w"].copy()
    cols["w"][[20]] = np.nan
    missing = np.zeros(N, dtype=bool)
    missing[[3, 50, 10, 20]] = True
    return cols, missing


def test_nan_policy_omit_drops_rows(backend: str) -> None:
    cols, missing = _with_missing()
    frame = _frame(backend, cols)
    out = evaluate(frame, truth="y", proba=PROBA, by="site", sample_weight="w", nan_policy="omit")
    kept = {c: v[~missing] for c, v in cols.items()}
    kept["y"] = kept["y"].astype(np.int64)
    ref = evaluate(_frame(backend, kept), truth="y", proba=PROBA, by="site", sample_weight="w")
    np.testing.assert_allclose(_estimates(out), _estimates(ref), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(out["metric"].to_list(), ref["metric"].to_list())


def test_nan_policy_propagate_gives_nan_in_affected_groups(backend: str) -> None:
    cols, missing = _with_missing()
    names = ["rps", "qwk", "c_index", "ece"]
    kwargs = {"by": "fold", "metrics": names, "nan_policy": "propagate", "sample_weight": "w"}
    out = evaluate(_frame(backend, cols), truth="y", proba=PROBA, **kwargs)
    folds = out["fold"].to_list()
    est = _estimates(out)
    for f in (0, 1):
        rows = cols["fold"] == f
        vals = est[[i for i, g in enumerate(folds) if g == f]]
        if missing[rows].any():
            assert np.isnan(vals).all()
        else:
            assert not np.isnan(vals).any()
    assert np.isnan(est).any()


def test_pandas_nullable_integer_truth() -> None:
    cols, _ = _with_missing()
    df = pd.DataFrame(cols).astype({"y": "Int64"})
    assert df["y"].isna().sum() == 1
    out = evaluate(df, truth="y", proba=PROBA, by="site", nan_policy="omit")
    ref = evaluate(pd.DataFrame(cols), truth="y", proba=PROBA, by="site", nan_policy="omit")
    np.testing.assert_array_equal(_estimates(out), _estimates(ref))


def test_polars_nulls_are_missing_values() -> None:
    cols, _ = _with_missing()
    pf = pl.DataFrame(cols).with_columns(pl.col(c).fill_nan(None) for c in ["y", "p_1", "w"])
    assert pf["p_1"].null_count() == 2
    out = evaluate(pf, truth="y", proba=PROBA, sample_weight="w", nan_policy="omit")
    ref = evaluate(pl.DataFrame(cols), truth="y", proba=PROBA, sample_weight="w", nan_policy="omit")
    np.testing.assert_array_equal(_estimates(out), _estimates(ref))


def test_nan_policy_raise(backend: str) -> None:
    cols, _ = _with_missing()
    with pytest.raises(ValueError, match="nan_policy='omit'"):
        evaluate(_frame(backend, cols), truth="y", proba=PROBA)
    with pytest.raises(ValueError, match=r"proba is missing \(NaN/None\) in rows 3, 50"):
        evaluate(_frame(backend, cols), truth="y", proba=PROBA, metrics=["qwk"])


# --------------------------------------------------------------------------------------------
# The real example: diamonds cut grades
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diamonds():
    return load_diamonds_cut("hgb")


def test_diamonds_frame_by_derived_split(backend: str, diamonds) -> None:
    df = load_diamonds_cut_frame(backend)
    if backend == "pandas":
        df = df.assign(split=np.where(df["fold"] % 2 == 0, "even", "odd"))
    else:
        df = df.with_columns(
            split=pl.when(pl.col("fold") % 2 == 0).then(pl.lit("even")).otherwise(pl.lit("odd"))
        )
    out = evaluate(df, truth="cut", proba="hgb_", by="split")
    split = np.where(diamonds.fold % 2 == 0, "even", "odd")
    order = list(dict.fromkeys(split.tolist()))
    assert out["split"].to_list() == [s for s in order for _ in DEFAULT_METRICS]
    expected = []
    for s in order:
        rows = split == s
        yt, Pg = diamonds.y_true[rows], diamonds.y_proba[rows]
        expected.extend(_expected(n, yt, Pg, labels=CUT_LABELS) for n in DEFAULT_METRICS)
    np.testing.assert_allclose(_estimates(out), expected, rtol=1e-12, atol=1e-15)
    assert out["direction"].to_list()[:2] == ["minimize", "minimize"]


def test_diamonds_models_side_by_side() -> None:
    df = load_diamonds_cut_frame("polars")
    ms = metric_set("rps", "qwk")
    hgb = _estimates(ms(df, truth="cut", proba="hgb_"))
    logit = _estimates(ms(df, truth="cut", proba="logit_"))
    assert hgb[0] < logit[0] and hgb[1] > logit[1]  # the boosted trees are better on both


# --------------------------------------------------------------------------------------------
# MetricEntry and MetricSet
# --------------------------------------------------------------------------------------------


def test_display_names() -> None:
    assert MetricEntry("rps").name == "rps"
    assert MetricEntry("rps", {}).name == "rps"
    assert (
        MetricEntry("expected_cost", {"normalize": True, "costs": "squared"}).name
        == "expected_cost(costs=squared, normalize=True)"
    )
    assert (
        MetricEntry("expected_cost", {"costs": np.ones((K, K))}).name == "expected_cost(costs=...)"
    )
    assert MetricEntry("log_loss", {"eps": 1e-6}).name == "log_loss(eps=1e-06)"
    assert MetricEntry("within_k_accuracy", {"k": 2}).name == "within_k_accuracy(k=2)"
    assert MetricEntry(om.get_metric("qwk"), name="QWK").name == "QWK"


def test_metric_set_is_frozen_and_flattens() -> None:
    inner = metric_set("rps", ("kappa", {"weights": "linear"}))
    ms = metric_set(inner, "qwk")
    assert isinstance(ms, MetricSet)
    assert ms.names == ("rps", "kappa(weights=linear)", "qwk")
    assert ms.directions == ("minimize", "maximize", "maximize")
    assert len(ms) == 3 and [e.metric for e in ms] == ["rps", "kappa", "qwk"]
    assert repr(ms) == "MetricSet('rps', 'kappa(weights=linear)', 'qwk')"
    assert repr(ms.entries[1]) == "MetricEntry('kappa', options={'weights': 'linear'}, name=" + (
        "'kappa(weights=linear)')"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        ms.entries = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ms.entries[0].name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ms.entries[1].options["weights"] = "quadratic"  # type: ignore[index]
    options = {"costs": "squared"}
    entry = MetricEntry("expected_cost", options)
    options["costs"] = "absolute"
    assert entry.options["costs"] == "squared"
    assert entry.kind == "agreement" and entry.direction == "minimize"


@pytest.mark.parametrize(
    ("items", "error", "match"),
    [
        (("rsp",), ValueError, r"unknown metric 'rsp'\. Did you mean 'rps'"),
        (("rps", "rps"), ValueError, "two metrics of the set are named 'rps'"),
        ((["rps", "qwk"],), TypeError, r"Unpack it: metric_set\(\*metrics\)"),
        ((("rps", {"cost": 1}),), ValueError, "'cost' is not an option of metric 'rps'"),
        ((("expected_cost", {"cost": 1}),), ValueError, "Did you mean 'costs'"),
        ((("rps", {"labels": GRADES}),), ValueError, r"pass evaluate\(\.\.\., labels=\.\.\.\)"),
        ((("qwk", {"sample_weight": 1}),), ValueError, "sample_weight cannot be fixed"),
        ((("rps", {"decision": "median"}),), ValueError, "agreement metrics only"),
        ((("qwk", {"decision": "mode"}),), ValueError, "decision must be one of 'argmax'"),
        ((("rps", {"reduction": "none"}),), ValueError, "one number per group"),
        ((("rps", "normalize"),), TypeError, "options of metric 'rps' must be a dict"),
        ((("rps", {}, ""),), TypeError, "non-empty string"),
        ((("rps", {}, "x", "y"),), TypeError, r"must be \(name, options\)"),
        ((3,), TypeError, "each metric must be a registered name"),
        ((), ValueError, "at least one metric"),
    ],
)
def test_metric_set_errors(items, error, match) -> None:
    with pytest.raises(error, match=match):
        metric_set(*items)


# --------------------------------------------------------------------------------------------
# Errors of evaluate
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"truth": "yy"}, ValueError, r"truth column 'yy' is not in data\. Did you mean 'y'"),
        ({"proba": "q_"}, ValueError, "proba prefix 'q_' matches no column of data"),
        ({"proba": ["p_0", "p1"]}, ValueError, r"proba column 'p1' is not in data\. Did you mean"),
        ({"proba": ["p_0", "p_0"]}, ValueError, "more than once"),
        ({"proba": []}, ValueError, "proba is an empty list"),
        ({"proba": {"p_0", "p_1"}}, TypeError, "proba must be a list of column names"),
        ({"proba": ["p_0", "site"]}, TypeError, "proba column 'site' must be numeric"),
        ({"proba": ["y", "p_1"]}, ValueError, "proba lists the truth column 'y'"),
        ({"by": "y"}, ValueError, "by contains the truth column 'y'"),
        ({"by": "p_0"}, ValueError, "also a probability column"),
        ({"by": ["site", "stie"]}, ValueError, r"by column 'stie' is not in data\. Did you mean"),
        ({"sample_weight": "wt"}, ValueError, "sample_weight column 'wt' is not in data"),
        ({"sample_weight": "grade"}, TypeError, "sample_weight column 'grade' must be numeric"),
        ({"sample_weight": W}, TypeError, "sample_weight must be the name of a column"),
        ({"truth": Y}, TypeError, "truth must be the name of a column"),
        ({"metrics": ["rps", "rsp"]}, ValueError, r"unknown metric 'rsp'\. Did you mean 'rps'"),
        ({"metrics": ("expected_cost", {"costs": "squared"})}, TypeError, "put the pair in"),
        ({"metrics": {"rps"}}, TypeError, "metrics must be None"),
        ({"nan_policy": "skip"}, ValueError, "nan_policy must be one of 'raise'"),
        ({"decision": "mode"}, ValueError, "decision must be one of 'argmax'"),
        (
            {"metrics": [("expected_cost", {"costs": "cubic"})]},
            ValueError,
            "costs must be one of 'absolute', 'squared', 'zero_one'",
        ),
        ({"labels": ["a", "b"]}, ValueError, "labels has 2 entries but y_proba has 4 columns"),
    ],
)
def test_evaluate_errors(kwargs, error, match) -> None:
    args = {"truth": "y", "proba": PROBA, **kwargs}
    with pytest.raises(error, match=match):
        evaluate(_frame("pandas"), **args)


def test_prefix_matching_the_truth_column_is_an_error() -> None:
    df = pd.DataFrame({"p_true": Y, **{c: COLS[c] for c in PROBA}})
    with pytest.raises(ValueError, match="proba prefix 'p_' matches the truth column 'p_true'"):
        evaluate(df, truth="p_true", proba="p_")


def test_by_column_named_like_an_output_column_is_an_error() -> None:
    df = pd.DataFrame(COLS).rename(columns={"site": "metric"})
    with pytest.raises(ValueError, match="has the name of an output column"):
        evaluate(df, truth="y", proba=PROBA, by="metric")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (dict(COLS), "got dict. Build a frame first"),
        (pd.Series(Y), "got pandas.Series"),
        (pl.DataFrame(COLS).lazy(), "got a lazy frame. Collect it first"),
        (P, "got numpy.ndarray"),
    ],
)
def test_data_must_be_an_eager_frame(data, match) -> None:
    with pytest.raises(TypeError, match=f"data must be a pandas or polars DataFrame.*{match}"):
        evaluate(data, truth="y", proba=PROBA)


# --------------------------------------------------------------------------------------------
# Regressions: integer column names, columns named after the labels
# --------------------------------------------------------------------------------------------


def test_integer_column_names() -> None:
    rng = np.random.default_rng(11)
    P = rng.dirichlet(np.ones(3), size=50)
    y = rng.integers(0, 3, size=50)
    site = np.array(["a", "b"])[rng.integers(0, 2, size=50)]
    df = pd.DataFrame({0: y, 1: P[:, 0], 2: P[:, 1], 3: P[:, 2], 4: site})
    out = evaluate(df, truth=0, proba=[1, 2, 3], metrics=["rps", "qwk"])
    assert out["estimate"][0] == pytest.approx(om.rps(y, P), rel=1e-12)
    assert out["estimate"][1] == pytest.approx(om.qwk(y, P.argmax(axis=1), labels=[0, 1, 2]))
    grouped = evaluate(df, truth=0, proba=[1, 2, 3], metrics=["rps"], by=4)
    assert list(grouped[4]) == (["a", "b"] if site[0] == "a" else ["b", "a"])
    for key, value in zip(grouped[4], grouped["estimate"], strict=True):
        rows = site == key
        assert value == pytest.approx(om.rps(y[rows], P[rows]), rel=1e-12)


SEVERITY = ["mild", "moderate", "severe"]


def _severity(backend: str):
    rng = np.random.default_rng(12)
    P = rng.dirichlet(np.ones(3), size=60)
    y = np.array(SEVERITY)[rng.integers(0, 3, size=60)]
    cols = {"g": y, "p_severe": P[:, 2], "p_mild": P[:, 0], "p_moderate": P[:, 1]}
    df = pd.DataFrame(cols) if backend == "pandas" else pl.DataFrame(cols)
    return df, y, P


@pytest.mark.parametrize("backend", BACKENDS)
def test_prefix_columns_named_after_labels_follow_the_labels(backend: str) -> None:
    df, y, P = _severity(backend)
    out = evaluate(df, truth="g", proba="p_", labels=SEVERITY, metrics=["rps", "qwk"])
    estimates = list(out["estimate"])
    assert estimates[0] == pytest.approx(om.rps(y, P, labels=SEVERITY), rel=1e-12)
    pred = om.decide(P, labels=SEVERITY)
    assert estimates[1] == pytest.approx(om.qwk(y, pred, labels=SEVERITY), rel=1e-12)


def test_ordered_categories_name_the_columns_too() -> None:
    df, y, P = _severity("pandas")
    df["g"] = pd.Categorical(df["g"], categories=SEVERITY, ordered=True)
    out = evaluate(df, truth="g", proba="p_", metrics=["rps"])
    assert out["estimate"][0] == pytest.approx(om.rps(y, P, labels=SEVERITY), rel=1e-12)


def test_columns_naming_labels_in_another_order_are_an_error() -> None:
    df, _, _ = _severity("pandas")
    with pytest.raises(ValueError, match=r"proba lists the columns 'p_severe', 'p_mild', "):
        evaluate(df, truth="g", proba=["p_severe", "p_mild", "p_moderate"], labels=SEVERITY)
    with pytest.raises(ValueError, match=r"named after classes of labels .* 'p_severe' are not"):
        evaluate(df, truth="g", proba="p_", labels=["mild", "moderate", "grave"])
    # the columns in the order of the labels, as listed: accepted
    out = evaluate(
        df, truth="g", proba=["p_mild", "p_moderate", "p_severe"], labels=SEVERITY, metrics="rps"
    )
    assert out["estimate"][0] == pytest.approx(
        evaluate(df, truth="g", proba="p_", labels=SEVERITY, metrics="rps")["estimate"][0]
    )


# --------------------------------------------------------------------------------------------
# The estimator column (yardstick's .estimator)
# --------------------------------------------------------------------------------------------

#: Every registered metric that evaluate computes (all of them today), from the registry.
FRAME_METRICS = [
    n
    for n in om.list_metrics()
    if om.get_metric(n).input in ("probabilities", "decisions", "scores")
]


def _two_class_columns(seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=N)
    p1 = np.clip(0.5 + 0.4 * (2 * y - 1) * rng.random(N), 0.01, 0.99)
    return {"y": y, "p_0": 1 - p1, "p_1": p1, "site": COLS["site"]}


@pytest.mark.parametrize("n_classes", [2, K])
def test_estimator_column_of_every_registered_metric(n_classes: int) -> None:
    from ordmetrics._core.registry import BINARY_ESTIMATORS, ESTIMATORS

    assert set(FRAME_METRICS) == set(om.list_metrics())  # no registered metric is left out
    cols = _two_class_columns() if n_classes == 2 else COLS
    proba = [f"p_{k}" for k in range(n_classes)]
    out = evaluate(pd.DataFrame(cols), truth="y", proba=proba, metrics=FRAME_METRICS, by="site")
    assert list(out.columns) == ["site", "metric", "estimator", "estimate", "direction"]
    n_groups = len(set(cols["site"]))
    for name, estimator in zip(out["metric"], out["estimator"], strict=True):
        spec = om.get_metric(name)
        assert spec.estimator in ESTIMATORS
        binary = n_classes == 2 and spec.estimator in BINARY_ESTIMATORS
        assert estimator == ("binary" if binary else spec.estimator), name
    assert len(out) == n_groups * len(FRAME_METRICS)
    # one value per metric, whatever the group
    assert out.groupby("metric")["estimator"].nunique().eq(1).all()


def test_estimators_follow_yardstick_where_it_has_the_metric() -> None:
    # yardstick: accuracy, kap, mn_log_loss, brier_class, ranked_prob_score, classification_cost
    # are "multiclass" (K > 2) or "binary" (K = 2); f_meas, precision, recall default to
    # "macro" for K > 2; mae (numeric) is "standard"
    spec = om.get_metric
    for name in ["accuracy", "kappa", "qwk", "log_loss", "brier", "rps", "expected_cost"]:
        assert (spec(name).estimator_for(5), spec(name).estimator_for(2)) == (
            "multiclass",
            "binary",
        )
    for name in ["macro_f1", "macro_precision", "macro_recall", "classwise_ece", "amae"]:
        assert spec(name).estimator_for(5) == spec(name).estimator_for(2) == "macro"
    assert spec("mae").estimator == "standard"
    assert spec("ece").estimator == "top_label"
    assert spec("cumulative_ece").estimator == "cumulative"
    assert (spec("c_index").estimator_for(4), spec("c_index").estimator_for(2)) == (
        "ordinal",
        "binary",
    )
    assert metric_set("rps", "macro_f1").estimators(2) == ("binary", "macro")


def test_estimator_column_in_polars_and_pyarrow() -> None:
    ref = evaluate(_frame("pandas"), truth="y", proba=PROBA, metrics=["rps", "ece"])
    outp = evaluate(_frame("polars"), truth="y", proba=PROBA, metrics=["rps", "ece"])
    table = pa.table({c: COLS[c] for c in ["y", *PROBA]})
    outa = evaluate(table, truth="y", proba=PROBA, metrics=["rps", "ece"])
    assert outp["estimator"].to_list() == ["multiclass", "top_label"]
    assert outa.column_names == ["metric", "estimator", "estimate", "direction"]
    assert outa.schema.field("estimator").type in (pa.string(), pa.large_string())
    assert outa["estimator"].to_pylist() == list(ref["estimator"])


def test_register_checks_the_estimator() -> None:
    from ordmetrics._core.registry import register

    with pytest.raises(ValueError, match="estimator of 'tmp_metric' must be one of multiclass"):
        register(om.rps, name="tmp_metric", direction="minimize", range=(0, 1), kind="x",
                 estimator="micro")  # fmt: skip
    assert "tmp_metric" not in om.list_metrics()


def test_by_column_named_estimator_is_an_error() -> None:
    df = pd.DataFrame(COLS).rename(columns={"site": "estimator"})
    with pytest.raises(ValueError, match="has the name of an output column"):
        evaluate(df, truth="y", proba=PROBA, by="estimator")


# --------------------------------------------------------------------------------------------
# Several group columns; missing group keys
# --------------------------------------------------------------------------------------------

ALL_BACKENDS = ["pandas", "polars", "pyarrow"]


def _native(backend: str, cols: dict[str, np.ndarray]):
    if backend == "pandas":
        return pd.DataFrame(cols)
    if backend == "polars":
        return pl.DataFrame(cols, strict=False, nan_to_null=False)
    return pa.table(cols)


def _rows(out) -> list[dict]:
    if isinstance(out, pa.Table):
        return out.to_pylist()
    if isinstance(out, pl.DataFrame):
        return out.to_dicts()
    return out.to_dict("records")


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


METRICS_BY = ["rps", "log_loss", "qwk", ("kappa", {"weights": "linear"}), "c_index", "ece"]


def _by_function_calls(cols, mask_of_rows) -> list[float]:
    """Each metric of METRICS_BY called on the rows of ``mask_of_rows``."""
    y, Pm, w = cols["y"][mask_of_rows], P[mask_of_rows], cols["w"][mask_of_rows]
    out = []
    for m in METRICS_BY:
        name, options = (m, {}) if isinstance(m, str) else m
        out.append(_expected(name, y, Pm, w=w, **options))
    return out


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_several_by_columns_equal_per_group_function_calls(backend: str) -> None:
    cols = dict(COLS)
    cols["fold"] = (np.arange(N) * 7 % 3).astype(np.int64)
    cols["shift"] = np.array(["day", "night"])[np.arange(N) % 2]
    data = _native(backend, cols)
    out = evaluate(
        data, truth="y", proba=PROBA, metrics=METRICS_BY, by=["site", "fold", "shift"],
        sample_weight="w",
    )  # fmt: skip
    rows = _rows(out)
    assert list(rows[0])[:3] == ["site", "fold", "shift"]
    keys = list(
        zip(cols["site"].tolist(), cols["fold"].tolist(), cols["shift"].tolist(), strict=True)
    )
    order = list(dict.fromkeys(keys))  # first appearance
    assert len(order) == 3 * 3 * 2
    assert len(rows) == len(order) * len(METRICS_BY)
    for g, key in enumerate(order):
        mask = np.array([k == key for k in keys])
        want = _by_function_calls(cols, mask)
        got = rows[g * len(METRICS_BY) : (g + 1) * len(METRICS_BY)]
        assert [(r["site"], r["fold"], r["shift"]) for r in got] == [key] * len(METRICS_BY)
        np.testing.assert_allclose([r["estimate"] for r in got], want, rtol=1e-12, atol=0)


def _cols_with_missing_keys() -> dict[str, np.ndarray]:
    cols = dict(COLS)
    site = cols["site"].astype(object)
    site[[5, 50, 51, 130]] = None
    fold = cols["fold"].astype(np.float64)
    fold[[7, 51, 200]] = np.nan
    cols["site"], cols["fold"] = site, fold
    return cols


def _missing_key_mask(cols) -> np.ndarray:
    return np.array([_is_missing(s) for s in cols["site"]]) | np.isnan(cols["fold"])


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_missing_group_keys_raise_by_default(backend: str) -> None:
    data = _native(backend, _cols_with_missing_keys())
    with pytest.raises(
        ValueError,
        match=r"^by column 'site' is missing \(NaN/None\) in row 5 \(the first of 6 rows with a "
        r"missing group key\); .* Pass nan_policy='omit' to drop those rows, or "
        r"nan_policy='propagate'",
    ):
        evaluate(data, truth="y", proba=PROBA, metrics=["rps"], by=["site", "fold"])
    with pytest.raises(ValueError, match=r"^by column 'fold' is missing \(NaN/None\) in row 7 "):
        evaluate(data, truth="y", proba=PROBA, metrics=["rps"], by="fold")


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # one-row groups
@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_missing_group_keys_omit_drops_those_rows(backend: str) -> None:
    cols = _cols_with_missing_keys()
    out = evaluate(
        _native(backend, cols), truth="y", proba=PROBA, metrics=METRICS_BY, by=["site", "fold"],
        sample_weight="w", nan_policy="omit",
    )  # fmt: skip
    rows = _rows(out)
    assert not any(_is_missing(r["site"]) or _is_missing(r["fold"]) for r in rows)
    kept = ~_missing_key_mask(cols)
    keys = list(zip(cols["site"][kept].tolist(), cols["fold"][kept].tolist(), strict=True))
    order = list(dict.fromkeys(keys))
    assert len(rows) == len(order) * len(METRICS_BY)
    for g, key in enumerate(order):
        mask = kept & np.array(
            [(s, f) == key for s, f in zip(cols["site"], cols["fold"], strict=True)]
        )
        got = [r["estimate"] for r in rows[g * len(METRICS_BY) : (g + 1) * len(METRICS_BY)]]
        np.testing.assert_allclose(got, _by_function_calls(cols, mask), rtol=1e-12, atol=0)


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # one-row groups
@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_missing_group_keys_propagate_keep_a_group(backend: str) -> None:
    cols = _cols_with_missing_keys()
    out = evaluate(
        _native(backend, cols), truth="y", proba=PROBA, metrics=METRICS_BY, by=["site", "fold"],
        sample_weight="w", nan_policy="propagate",
    )  # fmt: skip
    rows = _rows(out)
    site = [None if _is_missing(s) else s for s in cols["site"]]
    fold = [None if math.isnan(f) else f for f in cols["fold"]]
    keys = list(zip(site, fold, strict=True))
    order = list(dict.fromkeys(keys))  # a missing value of a column: one group
    assert sum(k[0] is None for k in order) >= 2 and sum(k[1] is None for k in order) >= 2
    assert len(rows) == len(order) * len(METRICS_BY)
    for g, key in enumerate(order):
        mask = np.array([k == key for k in keys])
        block = rows[g * len(METRICS_BY) : (g + 1) * len(METRICS_BY)]
        for r in block:
            got_key = tuple(None if _is_missing(r[c]) else r[c] for c in ("site", "fold"))
            assert got_key == key
        got = [r["estimate"] for r in block]
        np.testing.assert_allclose(got, _by_function_calls(cols, mask), rtol=1e-12, atol=0)


def test_polars_nan_and_null_keys_form_one_group() -> None:
    df = pl.DataFrame(COLS).with_columns(
        fold=pl.when(pl.int_range(pl.len()) % 11 == 0)
        .then(None)
        .when(pl.int_range(pl.len()) % 13 == 0)
        .then(float("nan"))
        .otherwise(pl.col("fold").cast(pl.Float64))
    )
    out = evaluate(df, truth="y", proba=PROBA, metrics=["rps"], by="fold", nan_policy="propagate")
    assert len(out) == 3  # 0.0, 1.0 and one group of the missing folds
    idx = np.arange(N)
    missing = (idx % 11 == 0) | (idx % 13 == 0)
    est = out.filter(pl.col("fold").is_null() | pl.col("fold").is_nan())["estimate"]
    assert est.len() == 1
    assert est[0] == pytest.approx(om.rps(Y[missing], P[missing]), rel=1e-12)


def test_every_group_key_missing_under_omit_gives_an_empty_table() -> None:
    cols = dict(COLS)
    cols["site"] = np.full(N, None, dtype=object)
    out = evaluate(pd.DataFrame(cols), truth="y", proba=PROBA, by="site", nan_policy="omit")
    assert out.shape == (0, 5)
    assert list(out.columns) == ["site", "metric", "estimator", "estimate", "direction"]


def test_group_key_rows_messages_and_masks() -> None:
    from ordmetrics.io.frames import group_key_rows

    miss = [np.zeros(4, bool), np.array([False, False, True, False])]
    with pytest.raises(ValueError, match=r"by column 'b' is missing .* in row 12 of f\.csv "):
        group_key_rows(["a", "b"], miss, "raise", " of f.csv", 10)
    np.testing.assert_array_equal(group_key_rows(["a", "b"], miss, "omit"), [1, 1, 0, 1])
    assert group_key_rows(["a", "b"], [np.zeros(4, bool)] * 2, "raise") is None
    assert group_key_rows(["a", "b"], miss, "propagate") is None


# --------------------------------------------------------------------------------------------
# Other fronts: the CSV table of the base install, evaluate_file, the command line
# --------------------------------------------------------------------------------------------


def test_csv_metric_table_matches_columns_named_after_labels() -> None:
    from ordmetrics.io.delimited import ColumnTable, metric_table

    df, y, Pm = _severity("pandas")
    table = ColumnTable({c: np.asarray(df[c]) for c in df.columns})
    for proba in ["p_", ["p_mild", "p_moderate", "p_severe"]]:
        rec = metric_table(table, truth="g", proba=proba, labels=SEVERITY, metrics=["rps"])
        assert rec[0]["estimate"] == pytest.approx(om.rps(y, Pm, labels=SEVERITY), rel=1e-12)
    with pytest.raises(ValueError, match=r"proba lists the columns 'p_severe', 'p_mild', "):
        metric_table(table, truth="g", proba=list(df.columns[1:]), labels=SEVERITY)


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # one-row groups
def test_csv_metric_table_missing_group_keys_follow_nan_policy() -> None:
    from ordmetrics.io.delimited import ColumnTable, metric_table
    from ordmetrics.report.html import metric_table as frame_table

    cols = _cols_with_missing_keys()
    cols = {c: cols[c] for c in ["y", "site", "fold", *PROBA]}
    table = ColumnTable({c: np.asarray(v) for c, v in cols.items()})
    df = pd.DataFrame(cols)
    kw = {"truth": "y", "proba": PROBA, "metrics": ["rps", "qwk"], "by": ["site", "fold"]}
    with pytest.raises(ValueError, match=r"by column 'site' is missing \(NaN/None\) in row 5 "):
        metric_table(table, **kw)
    for policy in ["omit", "propagate"]:
        got = metric_table(table, nan_policy=policy, **kw)
        want = frame_table(df, nan_policy=policy, **kw)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g["metric"] == w["metric"]
            assert g["estimate"] == pytest.approx(w["estimate"], rel=1e-12, nan_ok=True)
            for c in ("site", "fold"):
                assert g[c] == w[c] or (_is_missing(g[c]) and _is_missing(w[c]))
    n_groups = {p: len(metric_table(table, nan_policy=p, **kw)) // 2 for p in ["omit", "propagate"]}
    assert n_groups["propagate"] > n_groups["omit"]


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # one-row groups
def test_evaluate_file_missing_group_keys_follow_nan_policy(tmp_path) -> None:
    pytest.importorskip("pyarrow.parquet")
    from ordmetrics.files import evaluate_file

    cols = _cols_with_missing_keys()
    cols = {c: cols[c] for c in ["y", "site", "fold", *PROBA]}
    df = pd.DataFrame(cols)
    path = tmp_path / "keys.parquet"
    df.to_parquet(path)
    kw = {"truth": "y", "proba": "p_", "metrics": ["rps", "qwk"], "by": ["site", "fold"]}
    with pytest.raises(ValueError, match=r"by column 'site' is missing \(NaN/None\) in row 5 "):
        evaluate_file(path, batch_size=64, **kw)
    late = tmp_path / "late.parquet"  # the first missing key in the third batch: row 130
    df.assign(site=df["site"].fillna("z").where(df.index != 130, None)).to_parquet(late)
    with pytest.raises(ValueError, match=r"'site' is missing \(NaN/None\) in row 2 ") as info:
        evaluate_file(late, batch_size=64, **{**kw, "by": "site"})
    assert "(in rows 128..191 of late.parquet" in info.value.__notes__[0]
    for policy in ["omit", "propagate"]:
        got = evaluate_file(path, batch_size=64, nan_policy=policy, **kw)
        ref = _rows(evaluate(df, nan_policy=policy, **{**kw, "proba": PROBA}))
        keys = list(dict.fromkeys(
            tuple(None if _is_missing(r[c]) else r[c] for c in ("site", "fold")) for r in ref
        ))  # fmt: skip
        assert list(got) == keys
        for i, key in enumerate(keys):
            for j, name in enumerate(["rps", "qwk"]):
                want = ref[2 * i + j]["estimate"]
                assert got[key].values[name] == pytest.approx(want, rel=1e-12, nan_ok=True)


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # one-row groups
def test_cli_several_by_columns_and_a_missing_key(tmp_path, capsys) -> None:
    import json

    from ordmetrics.report.cli import main

    cols = _cols_with_missing_keys()
    cols = {c: cols[c] for c in ["y", "site", "fold", *PROBA]}
    path = tmp_path / "keys.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    base = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p_", "--metrics", "rps"]
    assert main([*base, "--by", "site,fold"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--by column 'site' is missing (NaN/None) in row 5" in err[0]
    assert "--nan-policy omit" in err[0]
    assert main([*base, "--by", "site,fold", "--nan-policy", "omit", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    want = _rows(evaluate(pd.DataFrame(cols), truth="y", proba=PROBA, metrics=["rps"],
                          by=["site", "fold"], nan_policy="omit"))  # fmt: skip
    assert [(r["site"], r["fold"]) for r in records] == [(w["site"], w["fold"]) for w in want]
    np.testing.assert_allclose(
        [r["estimate"] for r in records], [w["estimate"] for w in want], rtol=1e-12
    )


def test_list_command_and_metric_index_show_the_estimator(capsys) -> None:
    from ordmetrics._core.index import metric_index
    from ordmetrics.report.cli import main

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[:5] == ["metric", "kind", "direction", "estimator", "range"]
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert list(rows) == om.list_metrics()
    for name, row in rows.items():
        assert row[3] == om.get_metric(name).estimator
    index = metric_index()
    for name in om.list_metrics():
        assert f"| `{om.get_metric(name).estimator}` |" in next(
            line for line in index.splitlines() if line.startswith(f"| `{name}` |")
        )
