"""The scikit-learn scorers: agreement with the metrics computed by hand, fold by fold.

Every reference below fits the same estimator on the same folds by hand and calls the
ordmetrics function directly, with the columns of ``predict_proba`` put in ordinal order by
hand, so the scorers are checked as adapters: right columns, right sign, right weights.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn
from sklearn.base import clone
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import ordmetrics
from ordmetrics.integrations.sklearn import _align_proba
from ordmetrics.sklearn import OrdinalScorer, get_scorer, get_scorer_names

WINE_CSV = Path(__file__).resolve().parents[2] / "shared" / "data" / "winequality.csv"
KINDS = ("scoring_rule", "agreement", "ranking", "calibration")
SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


# --------------------------------------------------------------------------------------------
# Data and models
# --------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small fits run fastest on one BLAS thread (and are not slowed by a busy machine)."""
    with threadpool_limits(limits=1):
        yield


def diabetes(n_classes: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The diabetes data, its progression measure binned by quantiles into ordered classes."""
    X, target = load_diabetes(return_X_y=True)
    edges = np.quantile(target, np.linspace(0, 1, n_classes + 1)[1:-1])
    return X, np.digitize(target, edges)


def wine() -> tuple[np.ndarray, np.ndarray]:
    """The wine quality data, quality 3..9 with the rare ends merged into 4..8."""
    if not WINE_CSV.exists():
        pytest.skip(f"real data file {WINE_CSV} not present")
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(WINE_CSV)
    y = frame["quality"].clip(4, 8).to_numpy()
    X = frame.drop(columns=["quality", "color"]).to_numpy(dtype=np.float64)
    X = np.column_stack([X, (frame["color"] == "red").to_numpy(dtype=np.float64)])
    return X, y


def logit(C: float = 1.0):
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=500))


def ordered_proba(model, X, labels) -> np.ndarray:
    """predict_proba with its columns put in the order of ``labels`` by hand (zeros if unseen)."""
    P = model.predict_proba(X)
    classes = list(model.classes_)
    out = np.zeros((len(X), len(labels)))
    for j, label in enumerate(labels):
        if label in classes:
            out[:, j] = P[:, classes.index(label)]
    return out


def manual_score(name, model, X, y, labels, sample_weight=None, **options) -> float:
    """The negated (if minimized) metric, computed directly from the model's predictions."""
    spec = ordmetrics.get_metric(name)
    if spec.input == "decisions":
        pred = model.predict(X)
    else:
        pred = ordered_proba(model, X, labels)
    value = spec.func(y, pred, labels=labels, sample_weight=sample_weight, **options)
    return value if spec.greater_is_better else -value


# --------------------------------------------------------------------------------------------
# Names and construction
# --------------------------------------------------------------------------------------------


def test_scorer_names_cover_every_registered_metric_of_the_four_kinds():
    assert set(get_scorer_names()) <= set(ordmetrics.list_metrics())
    for kind in KINDS:
        assert get_scorer_names(kind) == ordmetrics.list_metrics(kind)
    with pytest.raises(ValueError, match="kind must be one of"):
        get_scorer_names("ordinal")


@pytest.mark.parametrize("name", ordmetrics.list_metrics())
def test_sign_and_response_method_follow_the_registry(name):
    spec = ordmetrics.get_metric(name)
    scorer = get_scorer(name)
    assert isinstance(scorer, OrdinalScorer)
    assert scorer.sign == (1 if spec.direction == "maximize" else -1)
    expected = "predict" if spec.input == "decisions" else "predict_proba"
    assert scorer.response_method == expected
    assert f"metric={name!r}" in repr(scorer) and f"sign={scorer.sign}" in repr(scorer)


def test_repr_shows_labels_and_options():
    scorer = get_scorer("expected_cost", labels=["low", "mid", "high"], costs="squared")
    assert repr(scorer) == (
        "OrdinalScorer(metric='expected_cost', sign=-1, response_method='predict', "
        "labels=['low', 'mid', 'high'], costs='squared')"
    )


def test_module_imports_the_real_scikit_learn():
    from ordmetrics.integrations.sklearn import _require_sklearn

    assert _require_sklearn() is sklearn
    assert hasattr(_require_sklearn(), "__version__")


# --------------------------------------------------------------------------------------------
# cross_val_score, cross_validate, GridSearchCV
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [diabetes, wine], ids=["diabetes", "wine"])
def test_cross_val_score_reproduces_negated_rps(data):
    X, y = data()
    labels = sorted(np.unique(y).tolist())
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(logit(), X, y, scoring=get_scorer("rps"), cv=cv, error_score="raise")
    manual = []
    for train, test in cv.split(X, y):
        model = logit().fit(X[train], y[train])
        manual.append(-ordmetrics.rps(y[test], model.predict_proba(X[test]), labels=labels))
    np.testing.assert_allclose(scores, manual, rtol=0, atol=1e-12)
    assert (scores < 0).all()


def test_cross_validate_with_several_scorers_matches_each_metric():
    X, y = diabetes()
    labels = list(range(5))
    scoring = {
        "rps": get_scorer("rps", normalize=False),
        "log_loss": get_scorer("log_loss"),
        "qwk": get_scorer("qwk"),
        "kappa": get_scorer("kappa", weights="linear"),
        "expected_cost": get_scorer("expected_cost", costs="squared"),
        "c_index": get_scorer("c_index"),
        "spearman": get_scorer("spearman"),
        "ece": get_scorer("ece", n_bins=10),
    }
    options = {
        "rps": {"normalize": False},
        "kappa": {"weights": "linear"},
        "expected_cost": {"costs": "squared"},
        "ece": {"n_bins": 10},
    }
    cv = KFold(n_splits=3, shuffle=True, random_state=1)
    result = cross_validate(
        logit(),
        X,
        y,
        scoring=scoring,
        cv=cv,
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    for fold, (model, test) in enumerate(
        zip(result["estimator"], result["indices"]["test"], strict=True)
    ):
        for name in scoring:
            expected = manual_score(name, model, X[test], y[test], labels, **options.get(name, {}))
            assert result[f"test_{name}"][fold] == pytest.approx(expected, abs=1e-12), name


def test_grid_search_picks_the_best_negated_rps():
    X, y = diabetes()
    cv = KFold(n_splits=3, shuffle=True, random_state=2)
    grid = [1e-4, 1e-2, 1.0]
    search = GridSearchCV(
        logit(), {"logisticregression__C": grid}, scoring=get_scorer("rps"), cv=cv
    ).fit(X, y)
    mean = search.cv_results_["mean_test_score"]
    assert search.best_index_ == int(np.argmax(mean))
    # The mean RPS of each candidate, computed by hand, negated.
    for i, C in enumerate(grid):
        folds = [
            manual_score("rps", logit(C).fit(X[tr], y[tr]), X[te], y[te], list(range(5)))
            for tr, te in cv.split(X, y)
        ]
        assert mean[i] == pytest.approx(np.mean(folds), abs=1e-12)
    # A tiny C predicts nearly the class frequencies: worse than a fitted model.
    assert search.best_params_["logisticregression__C"] != 1e-4


def test_grid_search_with_several_scorers_refits_on_one():
    X, y = diabetes()
    search = GridSearchCV(
        logit(),
        {"logisticregression__C": [1e-3, 1.0]},
        scoring={"rps": get_scorer("rps"), "qwk": get_scorer("qwk"), "mae": get_scorer("mae")},
        refit="qwk",
        cv=KFold(3),
        error_score="raise",
    ).fit(X, y)
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_qwk"]))
    assert (search.cv_results_["mean_test_mae"] < 0).all()


# --------------------------------------------------------------------------------------------
# Column alignment
# --------------------------------------------------------------------------------------------


def test_align_proba_puts_zero_columns_for_unseen_classes():
    P = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    out = _align_proba(P, ["c", "a", "d"], ("a", "b", "c", "d"))
    np.testing.assert_array_equal(out, [[0.3, 0.0, 0.2, 0.5], [0.3, 0.0, 0.6, 0.1]])
    with pytest.raises(ValueError, match="one column per class"):
        _align_proba(P[:, :2], ["c", "a", "d"], ("a", "b", "c", "d"))


def _fold_missing_class_2():
    """Diabetes in 4 classes; one split whose training part has no class 2 but whose test does."""
    X, y = diabetes(4)
    idx = np.arange(len(y))
    test = idx[idx % 4 == 0]
    train = idx[(idx % 4 != 0) & (y != 2)]
    assert 2 not in y[train] and 2 in y[test]
    return X, y, [(train, test)]


@pytest.mark.parametrize("labels", [[0, 1, 2, 3], None])
@pytest.mark.parametrize("name", ["rps", "brier", "c_index", "cumulative_ece"])
def test_fold_missing_a_class_gets_a_zero_column_in_its_place(name, labels):
    X, y, cv = _fold_missing_class_2()
    scores = cross_val_score(
        logit(), X, y, scoring=get_scorer(name, labels=labels), cv=cv, error_score="raise"
    )
    (train, test) = cv[0]
    model = logit().fit(X[train], y[train])
    assert model.classes_.tolist() == [0, 1, 3]
    P = np.insert(model.predict_proba(X[test]), 2, 0.0, axis=1)  # class 2 between 1 and 3
    expected = ordmetrics.get_metric(name).func(y[test], P, labels=[0, 1, 2, 3])
    sign = get_scorer(name).sign
    assert scores[0] == pytest.approx(sign * expected, abs=1e-12)
    # The zero column at the end instead (the classes_ order taken as 0, 1, 3, 2) differs.
    misplaced = np.insert(model.predict_proba(X[test]), 3, 0.0, axis=1)
    wrong = ordmetrics.get_metric(name).func(y[test], misplaced, labels=[0, 1, 2, 3])
    assert scores[0] != pytest.approx(sign * wrong, abs=1e-9)


def test_fold_missing_a_class_makes_log_loss_infinite():
    X, y, cv = _fold_missing_class_2()
    scores = cross_val_score(
        logit(), X, y, scoring=get_scorer("log_loss", labels=[0, 1, 2, 3]), cv=cv
    )
    assert scores[0] == -np.inf


def test_string_classes_use_the_given_ordinal_order():
    X, y = diabetes(4)
    names = ["low", "mid", "high", "top"]  # ordinal order, not alphabetical
    grades = np.array(names)[y]
    model = logit().fit(X, grades)
    assert model.classes_.tolist() == ["high", "low", "mid", "top"]
    for name in ("rps", "c_index", "qwk", "ece"):
        got = get_scorer(name, labels=names)(model, X, grades)
        assert got == pytest.approx(manual_score(name, model, X, grades, names), abs=1e-12)
    # The alphabetical order (what predict_proba returns) is another, wrong, number.
    alphabetical = -ordmetrics.rps(grades, model.predict_proba(X), labels=sorted(names))
    assert get_scorer("rps", labels=names)(model, X, grades) != pytest.approx(alphabetical)


def test_string_classes_in_cross_validation():
    X, y = diabetes(4)
    grades = np.array(["low", "mid", "high", "top"], dtype=object)[y]
    labels = ["low", "mid", "high", "top"]
    cv = StratifiedKFold(3, shuffle=True, random_state=3)
    scores = cross_val_score(
        logit(), X, grades, scoring=get_scorer("rps", labels=labels), cv=cv, error_score="raise"
    )
    for score, (train, test) in zip(scores, cv.split(X, grades), strict=True):
        model = logit().fit(X[train], grades[train])
        assert score == pytest.approx(
            manual_score("rps", model, X[test], grades[test], labels), abs=1e-12
        )


def test_integer_classes_without_labels_are_taken_in_increasing_order():
    X, y = diabetes(5)
    y = np.array([10, 20, 30, 45, 70])[y]  # integers, not 0..K-1
    model = logit().fit(X, y)
    labels = [10, 20, 30, 45, 70]
    for name in ("rps", "mae", "kendall_tau", "classwise_ece"):
        default = get_scorer(name)(model, X, y)
        assert default == get_scorer(name, labels=labels)(model, X, y)
        assert default == pytest.approx(manual_score(name, model, X, y, labels), abs=1e-12)


# --------------------------------------------------------------------------------------------
# Sign: greater is better for every metric
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def good_and_bad():
    X, y = diabetes(5)
    idx = np.random.default_rng(0).permutation(len(y))
    train, test = idx[:300], idx[300:]
    good = logit().fit(X[train], y[train])
    # Random one-hot predictions drawn from the class frequencies: confident and useless.
    bad = DummyClassifier(strategy="stratified", random_state=0).fit(X[train], y[train])
    return good, bad, X[test], y[test]


@pytest.mark.parametrize("name", ordmetrics.list_metrics())
def test_a_better_model_scores_higher(name, good_and_bad):
    good, bad, X, y = good_and_bad
    scorer = get_scorer(name)
    good_score, bad_score = scorer(good, X, y), scorer(bad, X, y)
    assert good_score > bad_score
    labels = list(range(5))
    assert good_score == pytest.approx(manual_score(name, good, X, y, labels), abs=1e-12)
    spec = ordmetrics.get_metric(name)
    if not spec.greater_is_better:
        assert good_score <= 0  # a loss, negated


# --------------------------------------------------------------------------------------------
# sample_weight
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rps", "qwk", "spearman", "cumulative_ece", "mmae"])
def test_sample_weight_passed_to_the_metric(name, good_and_bad):
    good, _, X, y = good_and_bad
    w = np.random.default_rng(1).integers(0, 4, size=len(y)).astype(float)
    scorer = get_scorer(name)
    weighted = scorer(good, X, y, sample_weight=w)
    labels = list(range(5))
    assert weighted == pytest.approx(
        manual_score(name, good, X, y, labels, sample_weight=w), abs=1e-12
    )
    assert weighted != pytest.approx(scorer(good, X, y), abs=1e-9)
    # Integer weights are frequency weights: the same as repeating rows.
    rows = np.repeat(np.arange(len(y)), w.astype(int))
    assert weighted == pytest.approx(scorer(good, X[rows], y[rows]), abs=1e-9)


def _weighted_manual_folds(X, y, w, cv, fit_weighted=True):
    out = []
    for train, test in cv.split(X, y):
        model = logit()
        fit_params = {"logisticregression__sample_weight": w[train]} if fit_weighted else {}
        model.fit(X[train], y[train], **fit_params)
        out.append(manual_score("rps", model, X[test], y[test], list(range(5)), w[test]))
    return out


@pytest.mark.skipif(SKLEARN_VERSION < (1, 7), reason="searches forward weights from 1.7 on")
def test_grid_search_passes_sample_weight_to_the_scorer():
    X, y = diabetes(5)
    w = np.random.default_rng(2).uniform(0.2, 3.0, size=len(y))
    cv = KFold(3, shuffle=True, random_state=4)
    search = GridSearchCV(
        LogisticRegression(max_iter=500),
        {"C": [1.0]},
        scoring=get_scorer("rps"),
        cv=cv,
        error_score="raise",
    )
    search.fit(X, y, sample_weight=w)
    expected = []
    for train, test in cv.split(X, y):
        model = LogisticRegression(max_iter=500).fit(X[train], y[train], sample_weight=w[train])
        expected.append(manual_score("rps", model, X[test], y[test], list(range(5)), w[test]))
    got = [search.cv_results_[f"split{i}_test_score"][0] for i in range(3)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_cross_validate_routes_sample_weight_when_requested():
    X, y = diabetes(5)
    w = np.random.default_rng(3).uniform(0.2, 3.0, size=len(y))
    cv = KFold(3, shuffle=True, random_state=5)
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = LogisticRegression(max_iter=500).set_fit_request(sample_weight=True)
        scoring = {
            "rps": get_scorer("rps").set_score_request(sample_weight=True),
            "qwk": get_scorer("qwk").set_score_request(sample_weight=True),
        }
        result = cross_validate(
            estimator,
            X,
            y,
            scoring=scoring,
            cv=cv,
            params={"sample_weight": w},
            return_estimator=True,
            error_score="raise",
        )
        single = cross_val_score(
            estimator,
            X,
            y,
            scoring=scoring["rps"],
            cv=cv,
            params={"sample_weight": w},
            error_score="raise",
        )
    np.testing.assert_array_equal(single, result["test_rps"])
    for fold, (model, (train, test)) in enumerate(
        zip(result["estimator"], cv.split(X, y), strict=True)
    ):
        np.testing.assert_allclose(
            model.coef_, clone(estimator).fit(X[train], y[train], sample_weight=w[train]).coef_
        )
        for name in ("rps", "qwk"):
            expected = manual_score(name, model, X[test], y[test], list(range(5)), w[test])
            assert result[f"test_{name}"][fold] == pytest.approx(expected, abs=1e-12)


def test_routing_unrequested_sample_weight_is_an_error_naming_the_scorer():
    X, y = diabetes(5)
    w = np.ones(len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = LogisticRegression(max_iter=500).set_fit_request(sample_weight=True)
        with pytest.raises(Exception, match=r"OrdinalScorer\(metric='rps'.*set_score_request"):
            cross_validate(estimator, X, y, scoring=get_scorer("rps"), params={"sample_weight": w})
        # Declining the weights scores unweighted.
        scorer = get_scorer("rps").set_score_request(sample_weight=False)
        result = cross_validate(
            estimator, X, y, scoring=scorer, cv=KFold(3), params={"sample_weight": w}
        )
    assert np.isfinite(result["test_score"]).all()


def test_set_score_request_checks_its_value():
    with pytest.raises(TypeError, match="sample_weight must be True, False, None or an alias"):
        get_scorer("rps").set_score_request(sample_weight=1.5)


# --------------------------------------------------------------------------------------------
# Pickling and parallel jobs
# --------------------------------------------------------------------------------------------


def test_scorer_pickles_and_runs_in_parallel_jobs():
    X, y = diabetes(4)
    labels = [0, 1, 2, 3]
    scorer = get_scorer(
        "expected_cost", labels=labels, costs=np.abs(np.subtract.outer(labels, labels))
    )
    scorer.set_score_request(sample_weight=True)
    clone_ = pickle.loads(pickle.dumps(scorer))
    assert repr(clone_) == repr(scorer)
    assert clone_._sample_weight_request is True
    model = logit().fit(X, y)
    assert clone_(model, X, y) == scorer(model, X, y)
    cv = KFold(2)
    serial = cross_val_score(logit(), X, y, scoring=get_scorer("rps"), cv=cv)
    # Worker processes receive the scorer pickled (multiprocessing: forked, quick to start).
    with joblib.parallel_config(backend="multiprocessing"):
        parallel = cross_val_score(logit(), X, y, scoring=get_scorer("rps"), cv=cv, n_jobs=2)
    np.testing.assert_allclose(parallel, serial, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_unknown_metric_name():
    with pytest.raises(ValueError, match=r"unknown metric 'rsp'.*Did you mean 'rps'"):
        get_scorer("rsp")
    with pytest.raises(TypeError, match="metric name must be a string"):
        get_scorer(3)


def test_unknown_or_supplied_options():
    with pytest.raises(TypeError, match=r"unknown option 'normalise'.*options of rps are"):
        get_scorer("rps", normalise=False)
    with pytest.raises(TypeError, match="pass it when the scorer is called"):
        get_scorer("rps", sample_weight=np.ones(3))
    with pytest.raises(TypeError, match="unknown option 'y_pred'"):
        get_scorer("qwk", y_pred=[1, 2])
    with pytest.raises(ValueError, match="reduction='none' gives one score per row"):
        get_scorer("brier", reduction="none")


def test_invalid_labels():
    with pytest.raises(ValueError, match="labels must be distinct"):
        get_scorer("rps", labels=["a", "b", "a"])
    with pytest.raises(TypeError, match="labels must be a list"):
        get_scorer("rps", labels="abc")


def test_option_values_are_checked_by_the_metric():
    X, y = diabetes(4)
    model = logit().fit(X, y)
    with pytest.raises(ValueError, match="costs"):
        get_scorer("expected_cost", costs="cubic")(model, X, y)


def test_string_classes_without_labels():
    X, y = diabetes(3)
    grades = np.array(["low", "mid", "high"])[y]
    model = logit().fit(X, grades)
    for name in ("rps", "qwk"):
        with pytest.raises(ValueError, match=r"not integers, and labels= was not given.*never"):
            get_scorer(name)(model, X, grades)


def test_class_not_in_labels():
    X, y = diabetes(4)
    grades = np.array(["low", "mid", "high", "top"])[y]
    model = logit().fit(X, grades)
    for name in ("rps", "accuracy"):
        with pytest.raises(ValueError, match=r"classes_ holds 'top', not in labels="):
            get_scorer(name, labels=["low", "mid", "high"])(model, X, grades)


def test_float_classes_without_labels():
    X, y = diabetes(3)
    model = logit().fit(X, y.astype(float))
    with pytest.raises(ValueError, match="not integers"):
        get_scorer("rps")(model, X, y.astype(float))


def test_estimator_without_predict_proba():
    X, y = diabetes(3)
    model = LinearSVC().fit(X, y)
    with pytest.raises(TypeError, match=r"needs a predict_proba method; LinearSVC has none"):
        get_scorer("rps")(model, X, y)
    with pytest.raises(TypeError, match="needs a predict_proba"):
        cross_val_score(LinearSVC(), X, y, scoring=get_scorer("c_index"), error_score="raise")
    # Agreement metrics need only predict.
    assert get_scorer("qwk")(model, X, y) == pytest.approx(
        ordmetrics.qwk(y, model.predict(X), labels=[0, 1, 2])
    )


def test_estimator_without_classes():
    class ProbaOnly:
        def predict_proba(self, X):
            return np.full((len(X), 2), 0.5)

    with pytest.raises(TypeError, match="has no classes_ attribute"):
        get_scorer("rps")(ProbaOnly(), np.zeros((3, 1)), [0, 1, 1])


def test_module_imports_without_scikit_learn():
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import ordmetrics.sklearn as s\n"
        "print(s.get_scorer_names('ranking'))\n"
        "try:\n    s.get_scorer('rps')\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "['c_index', 'spearman', 'kendall_tau']" in out
    assert "pip install ordmetrics[sklearn]" in out


def test_missing_scikit_learn_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match=r"pip install ordmetrics\[sklearn\]"):
        get_scorer("rps")
