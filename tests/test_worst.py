"""worst_predictions: the k worst rows by a per-sample score (Galdran, Fig. 3 error analysis)."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

import ordmetrics
from ordmetrics.evaluation.retention import retention_curve
from ordmetrics.evaluation.worst import WorstPredictions, worst_predictions

LABELS = ["mild", "moderate", "severe"]
Y = ["mild", "severe", "moderate", "mild", "severe"]
P = [
    [1.0, 0.0, 0.0],  # rps 0
    [0.75, 0.25, 0.0],  # rps (0.75^2 + 1) / 2 = 0.78125
    [0.25, 0.5, 0.25],  # rps (0.25^2 + 0.25^2) / 2 = 0.0625
    [0.0, 0.25, 0.75],  # rps (1 + 0.75^2) / 2 = 0.78125: ties with row 1
    [0.0, 0.5, 0.5],  # rps (0 + 0.5^2) / 2 = 0.125
]


def ref_worst(scores, k):
    """Literal: highest score first, among equal scores the later row first."""
    rows = sorted(range(len(scores)), key=lambda i: (-scores[i], -i))
    return rows[:k]


def test_hand_example_with_ties():
    worst = worst_predictions(Y, P, k=3, labels=LABELS)
    assert isinstance(worst, WorstPredictions)
    assert worst.index.tolist() == [3, 1, 4]
    assert worst.score.tolist() == [0.78125, 0.78125, 0.125]
    assert worst.y_true.tolist() == ["mild", "severe", "severe"]
    np.testing.assert_array_equal(worst.y_proba, np.array(P)[[3, 1, 4]])
    assert worst.labels == tuple(LABELS)
    assert worst.by == "rps" and worst.n_rows == 5 and len(worst) == 3


def test_k_larger_than_n_gives_every_row():
    worst = worst_predictions(Y, P, k=100, labels=LABELS)
    assert worst.index.tolist() == [3, 1, 4, 2, 0]
    assert len(worst) == 5


@pytest.mark.parametrize(
    ("k", "error", "match"),
    [
        (0, ValueError, r"k must be a positive integer .* got 0\. Pass k >= 1"),
        (-3, ValueError, r"got -3"),
        (2.0, TypeError, r"k must be a positive integer .* got float 2\.0"),
        (True, TypeError, r"got bool True"),
        ("5", TypeError, r"got str '5'"),
    ],
)
def test_bad_k(k, error, match):
    with pytest.raises(error, match=match):
        worst_predictions(Y, P, k=k, labels=LABELS)


def test_without_labels_gives_class_indices():
    y = [0, 2, 1, 0, 2]
    worst = worst_predictions(y, P, k=2)
    assert worst.y_true.tolist() == [0, 2]
    assert worst.y_true.dtype == np.int64
    assert worst.labels is None


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rule", ordmetrics.list_metrics("scoring_rule"))
def test_random_data_against_literal_ranking(seed, rule):
    rng = np.random.default_rng(seed)
    n, k = 200, 4
    proba = rng.dirichlet(np.full(k, 0.3), size=n)
    y = rng.integers(0, k, n)
    scores = ordmetrics.get_metric(rule)(y, proba, reduction="none")
    for top in (1, 7, 50, 200, 500):
        worst = worst_predictions(y, proba, by=rule, k=top)
        assert worst.index.tolist() == ref_worst(scores.tolist(), top)
        np.testing.assert_array_equal(worst.score, scores[worst.index])


def test_heavy_ties_in_an_array_score():
    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0, 1.0, 2.0])
    y = np.zeros(7, dtype=int)
    proba = np.full((7, 2), 0.5)
    for top in range(1, 8):
        worst = worst_predictions(y, proba, by=scores, k=top)
        assert worst.index.tolist() == ref_worst(scores.tolist(), top)
        assert worst.by == "custom"


def test_worst_row_is_the_first_a_retention_curve_removes():
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(3), size=10)
    y = rng.integers(0, 3, 10)
    scores = np.round(ordmetrics.rps(y, proba, reduction="none"), 1)  # ties
    first = worst_predictions(y, proba, by=scores, k=1).index[0]
    # only the worst row is predicted wrong: removing one row (f = 0.9) gives accuracy 1
    pred = y.copy()
    pred[first] = (y[first] + 1) % 3
    curve = retention_curve(
        y, proba, by=scores, decision=pred, metric="accuracy", fractions=[1.0, 0.9]
    )
    assert curve.values.tolist() == [0.9, 1.0]


def test_by_callable_with_labels():
    seen = {}

    def score(y_true, y_proba, labels=None):
        seen["labels"] = labels
        return ordmetrics.brier(y_true, y_proba, labels=labels, reduction="none")

    worst = worst_predictions(Y, P, by=score, k=2, labels=LABELS)
    assert seen["labels"] == LABELS
    assert worst.by == "score"
    ref = worst_predictions(Y, P, by="brier", k=2, labels=LABELS)
    assert worst.index.tolist() == ref.index.tolist()


def test_table_shows_class_names():
    worst = worst_predictions(Y, P, k=2, labels=LABELS)
    text = str(worst)
    lines = text.splitlines()
    assert lines[0].startswith("2 worst of 5 rows by rps")
    assert lines[1].split() == ["row", "y_true", "score", "mild", "moderate", "severe"]
    assert lines[2].split() == ["3", "mild", "0.7812", "0.000", "0.250", "0.750"]
    assert repr(worst) == text
    plain = str(worst_predictions([0, 2, 1, 0, 2], P, k=1))
    assert plain.splitlines()[1].split() == ["row", "y_true", "score", "0", "1", "2"]


def test_arrays_are_read_only_and_frozen():
    worst = worst_predictions(Y, P, k=2, labels=LABELS)
    for arr in (worst.index, worst.score, worst.y_true, worst.y_proba):
        with pytest.raises(ValueError):
            arr[0] = arr[1]
    with pytest.raises(AttributeError):
        worst.by = "x"  # type: ignore[misc]


def test_to_frame_pandas_and_polars():
    worst = worst_predictions(Y, P, k=3, labels=LABELS)
    pd = pytest.importorskip("pandas")
    df = worst.to_frame()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["row", "y_true", "score", "mild", "moderate", "severe"]
    assert df["row"].tolist() == [3, 1, 4]
    assert df["y_true"].tolist() == ["mild", "severe", "severe"]
    assert df["severe"].tolist() == [0.75, 0.0, 0.5]
    pl = pytest.importorskip("polars")
    frame = worst.to_frame("polars")
    assert isinstance(frame, pl.DataFrame)
    assert frame.columns == ["row", "y_true", "score", "mild", "moderate", "severe"]
    assert frame["y_true"].to_list() == ["mild", "severe", "severe"]


def test_to_frame_renames_clashing_class_names():
    pytest.importorskip("pandas")
    worst = worst_predictions(["row", "score"], [[0.5, 0.5]] * 2, labels=["score", "row"])
    assert list(worst.to_frame().columns) == ["row", "y_true", "score", "p_score", "p_row"]


def test_to_frame_errors(monkeypatch):
    worst = worst_predictions(Y, P, k=2, labels=LABELS)
    with pytest.raises(ValueError, match=r"backend must be one of 'pandas', 'polars'; got 'x'"):
        worst.to_frame("x")
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "polars":
            raise ImportError("No module named 'polars'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"needs polars, which is not installed.*pip install"):
        worst.to_frame("polars")


def test_input_errors():
    with pytest.raises(ValueError, match=r"by must be a scoring rule"):
        worst_predictions(Y, P, by="qwk", labels=LABELS)
    with pytest.raises(ValueError, match=r"y_true has 5 rows but by has 2"):
        worst_predictions(Y, P, by=[1.0, 2.0], labels=LABELS)
    with pytest.raises(TypeError, match=r"y_true holds labels such as 'mild'"):
        worst_predictions(Y, P)
    with pytest.raises(ValueError, match=r"rows of y_proba must sum to 1"):
        worst_predictions([0, 1], [[0.5, 0.4, 0.0], [0.2, 0.3, 0.5]])
