"""Tests for the packaged diamonds ``cut`` example data."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ordmetrics.datasets import (
    CUT_LABELS,
    MODELS,
    ExampleData,
    example_path,
    load_diamonds_cut,
    load_diamonds_cut_frame,
)

N_ROWS = 53_940
SOURCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "diamonds.csv"
PROBA_COLUMNS = [f"{m}_{label.replace(' ', '_')}" for m in MODELS for label in CUT_LABELS]


@pytest.fixture(scope="module", params=MODELS)
def example(request: pytest.FixtureRequest) -> ExampleData:
    return load_diamonds_cut(request.param)


def test_constants() -> None:
    assert CUT_LABELS == ("Fair", "Good", "Very Good", "Premium", "Ideal")
    assert MODELS == ("hgb", "logit")


def test_example_path_exists() -> None:
    path = example_path()
    assert path.name == "diamonds_cut_oof.csv.gz"
    assert path.is_file()


def test_shapes_and_dtypes(example: ExampleData) -> None:
    assert example.y_proba.shape == (N_ROWS, len(CUT_LABELS))
    assert example.y_proba.dtype == np.float64
    assert example.y_true.shape == (N_ROWS,)
    assert example.y_true.dtype.kind == "U"
    assert example.fold.shape == example.row.shape == (N_ROWS,)
    assert example.labels == CUT_LABELS
    assert example.model in MODELS


def test_rows_and_folds(example: ExampleData) -> None:
    np.testing.assert_array_equal(example.row, np.arange(N_ROWS))
    assert set(np.unique(example.fold).tolist()) == set(range(5))


def test_probabilities_are_valid(example: ExampleData) -> None:
    np.testing.assert_allclose(example.y_proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert (example.y_proba > 0).all()
    assert (example.y_proba <= 1).all()


def test_true_grades_are_known(example: ExampleData) -> None:
    assert set(np.unique(example.y_true).tolist()) <= set(CUT_LABELS)


def test_both_models_share_truth_and_folds() -> None:
    hgb, logit = load_diamonds_cut("hgb"), load_diamonds_cut("logit")
    np.testing.assert_array_equal(hgb.y_true, logit.y_true)
    np.testing.assert_array_equal(hgb.fold, logit.fold)
    assert not np.array_equal(hgb.y_proba, logit.y_proba)


def test_folds_are_stratified(example: ExampleData) -> None:
    for label in CUT_LABELS:
        counts = np.bincount(example.fold[example.y_true == label], minlength=5)
        assert counts.max() - counts.min() <= 1


def test_repr_is_short(example: ExampleData) -> None:
    text = repr(example)
    assert text == f"ExampleData(model={example.model!r}, n_samples={N_ROWS}, n_classes=5)"


def test_class_counts_match_source() -> None:
    if not SOURCE.is_file():
        pytest.skip(f"{SOURCE} is not available")
    with SOURCE.open(newline="") as handle:
        source = [record["cut"] for record in csv.DictReader(handle)]
    example = load_diamonds_cut()
    assert Counter(example.y_true.tolist()) == Counter(source)
    np.testing.assert_array_equal(example.y_true, np.asarray(source))


def test_unknown_model_raises() -> None:
    with pytest.raises(ValueError, match=r"model must be one of \('hgb', 'logit'\); got 'rf'"):
        load_diamonds_cut("rf")


def test_unknown_backend_raises() -> None:
    with pytest.raises(ValueError, match=r"backend must be one of .*; got 'arrow'"):
        load_diamonds_cut_frame("arrow")


def test_hgb_beats_logit() -> None:
    accuracy = {}
    for model in MODELS:
        example = load_diamonds_cut(model)
        predicted = np.asarray(example.labels)[example.y_proba.argmax(axis=1)]
        accuracy[model] = float(np.mean(predicted == example.y_true))
    assert accuracy["hgb"] > 0.6
    assert accuracy["hgb"] > accuracy["logit"]


def test_pandas_frame() -> None:
    pd = pytest.importorskip("pandas")
    df = load_diamonds_cut_frame("pandas")
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["row", "fold", "cut", *PROBA_COLUMNS]
    assert df.shape == (N_ROWS, 3 + len(PROBA_COLUMNS))
    assert isinstance(df["cut"].dtype, pd.CategoricalDtype)
    assert df["cut"].cat.ordered
    assert tuple(df["cut"].cat.categories) == CUT_LABELS
    assert not df["cut"].isna().any()
    for model in MODELS:
        example = load_diamonds_cut(model)
        columns = [f"{model}_{label.replace(' ', '_')}" for label in CUT_LABELS]
        np.testing.assert_array_equal(df[columns].to_numpy(), example.y_proba)
        np.testing.assert_array_equal(df["cut"].astype(str).to_numpy(), example.y_true)


def test_polars_frame() -> None:
    pl = pytest.importorskip("polars")
    df = load_diamonds_cut_frame("polars")
    assert isinstance(df, pl.DataFrame)
    assert df.columns == ["row", "fold", "cut", *PROBA_COLUMNS]
    assert df.shape == (N_ROWS, 3 + len(PROBA_COLUMNS))
    assert df.schema["cut"] == pl.Enum(list(CUT_LABELS))
    assert df["cut"].null_count() == 0
    example = load_diamonds_cut("hgb")
    columns = [f"hgb_{label.replace(' ', '_')}" for label in CUT_LABELS]
    np.testing.assert_array_equal(df.select(columns).to_numpy(), example.y_proba)
    np.testing.assert_array_equal(df["cut"].cast(pl.String).to_numpy(), example.y_true)


def test_pyarrow_frame() -> None:
    pa = pytest.importorskip("pyarrow")
    table = load_diamonds_cut_frame("pyarrow")
    assert isinstance(table, pa.Table)
    assert table.column_names == ["row", "fold", "cut", *PROBA_COLUMNS]
    assert table.shape == (N_ROWS, 3 + len(PROBA_COLUMNS))
    cut = table["cut"].combine_chunks()
    assert cut.type == pa.dictionary(pa.int8(), pa.string(), ordered=True)
    assert tuple(cut.dictionary.to_pylist()) == CUT_LABELS
    assert cut.null_count == 0
    for model in MODELS:
        example = load_diamonds_cut(model)
        columns = [f"{model}_{label.replace(' ', '_')}" for label in CUT_LABELS]
        got = np.column_stack([table[c].to_numpy() for c in columns])
        np.testing.assert_array_equal(got, example.y_proba)
        np.testing.assert_array_equal(np.asarray(cut.to_pylist()), example.y_true)
        np.testing.assert_array_equal(table["row"].to_numpy(), example.row)
        np.testing.assert_array_equal(table["fold"].to_numpy(), example.fold)


def test_pyarrow_frame_evaluates_like_the_arrays() -> None:
    pytest.importorskip("pyarrow")
    import ordmetrics

    table = load_diamonds_cut_frame("pyarrow")
    out = ordmetrics.evaluate(
        table, truth="cut", proba="hgb_", labels=list(CUT_LABELS), metrics=["rps", "qwk"]
    )
    example = load_diamonds_cut("hgb")
    want_rps = ordmetrics.rps(example.y_true, example.y_proba, labels=CUT_LABELS)
    assert out["estimate"][0].as_py() == pytest.approx(want_rps, rel=1e-12)
    pred = np.asarray(CUT_LABELS)[example.y_proba.argmax(axis=1)]
    want_qwk = ordmetrics.qwk(example.y_true, pred, labels=CUT_LABELS)
    assert out["estimate"][1].as_py() == pytest.approx(want_qwk, rel=1e-12)
