"""Probability columns paired with the classes by name, on every front, never by file order.

A model trained on string targets (scikit-learn orders ``predict_proba``'s columns as
``classes_``, alphabetically) saved as ``p_independent, p_lean_dem, ...`` for the labels
``"Strong Dem", "Weak Dem", ...``: the names differ from the labels in case, spaces and
underscores only, and the columns must still be read in the order of the labels, not the file's.
Every value is compared with the one of the columns in the labels' order, relative 1e-12 (the
same numbers in another column order; only the summation's rounding may differ).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordmetrics as om
from ordmetrics.io.table_columns import NORMALISATION, match_label_columns, name_key
from ordmetrics.report.cli import main

REL = 1e-12
METRICS = ["rps", "log_loss", "qwk"]
PARTY = ["Strong Dem", "Weak Dem", "Lean Dem", "Independent", "Lean Rep", "Weak Rep", "Strong Rep"]
#: The spellings of a label in a column name that must all name it.
SPELLINGS = {
    "snake": lambda s: s.lower().replace(" ", "_"),
    "upper": str.upper,
    "hyphen": lambda s: s.replace(" ", "-"),
    "dotted": lambda s: s.replace(" ", ".").lower(),
    "squeezed": lambda s: s.replace(" ", ""),
}


def _party(n: int = 400, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Party-ID truth and sharp predictions in the labels' order (a wrong order shows)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(PARTY), n)
    logits = -0.8 * (np.arange(len(PARTY))[None, :] - idx[:, None]) ** 2
    P = np.exp(logits + rng.normal(0.0, 1.0, logits.shape))
    return np.array(PARTY)[idx], P / P.sum(axis=1, keepdims=True)


def _alphabetical_frame(spell, y: np.ndarray, P: np.ndarray) -> pd.DataFrame:
    """The columns as scikit-learn's ``classes_`` orders them: alphabetically."""
    cols = {f"p_{spell(label)}": P[:, PARTY.index(label)] for label in sorted(PARTY)}
    return pd.DataFrame({"grade": y, **cols})


def _want(y: np.ndarray, P: np.ndarray) -> list[float]:
    pred = om.decide(P, labels=PARTY)
    return [
        om.rps(y, P, labels=PARTY),
        om.log_loss(y, P, labels=PARTY),
        om.qwk(y, pred, labels=PARTY),
    ]


def _as(backend: str, df: pd.DataFrame):
    if backend == "pandas":
        return df
    if backend == "polars":
        return pytest.importorskip("polars").from_pandas(df)
    return pytest.importorskip("pyarrow").Table.from_pandas(df, preserve_index=False)


def _estimates(out) -> list[float]:
    if hasattr(out, "column_names") and not hasattr(out, "columns"):  # a pyarrow table
        return out.column("estimate").to_pylist()
    return [float(v) for v in out["estimate"]]


# --------------------------------------------------------------------------------------------
# The normalisation and the pairing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_spelling_names_its_label(spelling: str) -> None:
    spell = SPELLINGS[spelling]
    cols = [f"p_{spell(label)}" for label in sorted(PARTY)]
    got = match_label_columns(cols, PARTY, prefix="p_")
    assert got == [f"p_{spell(label)}" for label in PARTY]


def test_the_normalisation_is_the_one_stated() -> None:
    assert name_key("  Strong-Dem. ") == name_key("strong_dem") == "strongdem"
    assert name_key("Tre\u0300s bien") == name_key("Très Bien") == "trèsbien"  # NFKC
    assert name_key("\uff33trong Dem") == "strongdem"  # a full-width letter, NFKC
    assert name_key("STRASSE") == name_key("straße")  # casefold, not lower
    doc = match_label_columns.__doc__ or ""
    assert "NFKC" in doc and "casefolded" in doc and "punctuation" in doc
    assert "NFKC" in NORMALISATION and "casefolded" in NORMALISATION


# --------------------------------------------------------------------------------------------
# Data frames: pandas, polars, pyarrow
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("spelling", ["snake", "upper", "hyphen"])
def test_evaluate_pairs_alphabetical_columns_by_name(backend: str, spelling: str) -> None:
    y, P = _party()
    data = _as(backend, _alphabetical_frame(SPELLINGS[spelling], y, P))
    out = om.evaluate(data, truth="grade", proba="p_", labels=PARTY, metrics=METRICS)
    assert _estimates(out) == pytest.approx(_want(y, P), rel=REL)


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
def test_reversed_columns_with_exact_names(backend: str) -> None:
    y, P = _party(seed=8)
    df = pd.DataFrame({"grade": y, **{f"p_{lab}": P[:, j] for j, lab in enumerate(PARTY)}})
    reversed_df = df[["grade", *(f"p_{lab}" for lab in reversed(PARTY))]]
    out = om.evaluate(
        _as(backend, reversed_df), truth="grade", proba="p_", labels=PARTY, metrics=METRICS
    )
    assert _estimates(out) == pytest.approx(_want(y, P), rel=REL)


def test_ordered_categorical_truth_names_the_columns_too() -> None:
    y, P = _party(seed=9)
    df = _alphabetical_frame(SPELLINGS["snake"], y, P)
    df["grade"] = pd.Categorical(df["grade"], categories=PARTY, ordered=True)
    out = om.evaluate(df, truth="grade", proba="p_", metrics=METRICS)
    assert _estimates(out) == pytest.approx(_want(y, P), rel=REL)


def test_metric_set_and_group_rows_pair_by_name() -> None:
    y, P = _party(seed=10)
    df = _alphabetical_frame(SPELLINGS["upper"], y, P)
    site = np.array(["a", "b"])[np.arange(len(y)) % 2]
    df["site"] = site
    out = om.metric_set("rps")(df, truth="grade", proba="p_", labels=PARTY, by="site")
    for key, value in zip(out["site"], out["estimate"], strict=True):
        rows = site == key
        assert value == pytest.approx(om.rps(y[rows], P[rows], labels=PARTY), rel=REL)


# --------------------------------------------------------------------------------------------
# Numbered columns: positions, in the order of their numbers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "order"),
    [
        (["p_0", "p_1", "p_2", "p_3", "p_4", "p_5", "p_6"], [3, 0, 6, 2, 5, 1, 4]),
        (["p1", "p2", "p3", "p4", "p5", "p6", "p7"], [6, 5, 4, 3, 2, 1, 0]),
        (["p_00", "p_01", "p_02", "p_03", "p_04", "p_05", "p_06"], [0, 1, 2, 3, 4, 5, 6]),
    ],
)
def test_numbered_columns_are_positions(names: list[str], order: list[int]) -> None:
    """``p_0..p_{K-1}`` and ``p1..pK`` carry no class names: column k is the k-th label."""
    y, P = _party(seed=11)
    df = pd.DataFrame({"grade": y, **{names[j]: P[:, j] for j in order}})
    prefix = names[0].rstrip("0123456789")
    out = om.evaluate(df, truth="grade", proba=prefix, labels=PARTY, metrics=METRICS)
    assert _estimates(out) == pytest.approx(_want(y, P), rel=REL)


def test_integer_suffixes_naming_integer_labels_follow_the_labels() -> None:
    """``p_3`` is the class 3 when the labels are the numbers, in whatever ordinal order."""
    labels = [3, 2, 1]
    cols = ["p_1", "p_2", "p_3"]
    assert match_label_columns(cols, labels, prefix="p_") == ["p_3", "p_2", "p_1"]
    assert match_label_columns(["p_2", "p_0", "p_1"], None, prefix="p_") == ["p_0", "p_1", "p_2"]
    assert match_label_columns(["p3", "p1", "p2"], None, prefix="p") == ["p1", "p2", "p3"]


def test_named_columns_without_labels_are_an_error() -> None:
    """Integer truth, no labels and named columns: nothing tells which class each name is,
    so they are refused rather than taken in file order; a list of them is taken as given."""
    cols = ["p_low", "p_mid", "p_high"]
    with pytest.raises(ValueError, match=r"'p_low', 'p_mid', 'p_high' are named after classes"):
        match_label_columns(cols, None, prefix="p_")
    with pytest.raises(ValueError, match="never paired with classes by their place"):
        om.evaluate(
            pd.DataFrame(
                {"y": [0, 1, 2], "p_low": [1.0, 0, 0], "p_mid": [0, 1.0, 0], "p_high": [0, 0, 1.0]}
            ),
            truth="y",
            proba="p_",
        )
    assert match_label_columns(cols, None) == cols


# --------------------------------------------------------------------------------------------
# Lists of columns: their order
# --------------------------------------------------------------------------------------------


def test_a_list_is_taken_in_its_order() -> None:
    y, P = _party(seed=12)
    df = _alphabetical_frame(SPELLINGS["snake"], y, P)
    listed = [f"p_{SPELLINGS['snake'](label)}" for label in PARTY]
    out = om.evaluate(df, truth="grade", proba=listed, labels=PARTY, metrics=METRICS)
    assert _estimates(out) == pytest.approx(_want(y, P), rel=REL)
    # names that are not labels: the list's order is all there is
    assert match_label_columns(["a", "b", "c"], ["x", "y", "z"]) == ["a", "b", "c"]
    assert match_label_columns(["p1", "p2", "p3"], None) == ["p1", "p2", "p3"]


def test_a_list_in_another_order_than_its_names_is_an_error() -> None:
    y, P = _party(seed=12)
    df = _alphabetical_frame(SPELLINGS["snake"], y, P)
    listed = [c for c in df.columns if c != "grade"]  # alphabetical, named after the labels
    with pytest.raises(ValueError, match=r"proba lists the columns 'p_independent', .* another "):
        om.evaluate(df, truth="grade", proba=listed, labels=PARTY)


# --------------------------------------------------------------------------------------------
# Files: the command line (evaluate, --stream, report's input, compare) and evaluate_file
# --------------------------------------------------------------------------------------------


def _party_csv(tmp_path: Path, spell, seed: int = 13) -> tuple[Path, np.ndarray, np.ndarray]:
    y, P = _party(seed=seed)
    path = tmp_path / "party.csv"
    _alphabetical_frame(spell, y, P).to_csv(path, index=False)
    return path, y, P


def _cli_json(capsys, *args: str) -> list[dict]:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("stream", [False, True])
def test_cli_evaluate_pairs_by_name(tmp_path, capsys, stream: bool) -> None:
    if stream:
        pytest.importorskip("pyarrow")
    path, y, P = _party_csv(tmp_path, SPELLINGS["snake"])
    args = ["evaluate", str(path), "--truth", "grade", "--proba-prefix", "p_"]
    args += ["--labels", ",".join(PARTY), "--metrics", ",".join(METRICS)]
    records = _cli_json(capsys, *args, *(["--stream"] if stream else []))
    assert [r["estimate"] for r in records] == pytest.approx(_want(y, P), rel=REL)


def test_cli_report_input_pairs_by_name(tmp_path) -> None:
    from ordmetrics.report.cli import build_parser
    from ordmetrics.report.cli_input import _read_input

    path, _, _ = _party_csv(tmp_path, SPELLINGS["upper"])
    args = build_parser().parse_args(
        ["report", str(path), "--truth", "grade", "--proba-prefix", "p_", "--labels",
         ",".join(PARTY), "--out", str(tmp_path / "r.html")]
    )  # fmt: skip
    assert _read_input(args).proba == [f"p_{label.upper()}" for label in PARTY]


def test_cli_compare_pairs_each_model_by_name(tmp_path, capsys) -> None:
    y, P = _party(seed=14)
    Q = np.roll(P, 1, axis=1)
    cols = {f"a_{label.lower()}": P[:, PARTY.index(label)] for label in sorted(PARTY)}
    cols.update({f"b_{label.upper()}": Q[:, PARTY.index(label)] for label in sorted(PARTY)})
    path = tmp_path / "two.csv"
    pd.DataFrame({"grade": y, **cols}).to_csv(path, index=False)
    args = ["compare", str(path), "--truth", "grade", "--models", "a_,b_", "--labels"]
    args += [",".join(PARTY), "--metrics", "rps", "--bootstrap", "20", "--format", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    got = {m["model"]: m["estimate"] for m in out["metrics"]}
    assert got["a"] == pytest.approx(om.rps(y, P, labels=PARTY), rel=REL)
    assert got["b"] == pytest.approx(om.rps(y, Q, labels=PARTY), rel=REL)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_evaluate_file_pairs_by_name(tmp_path, suffix: str) -> None:
    pytest.importorskip("pyarrow")
    y, P = _party(seed=15)
    df = _alphabetical_frame(SPELLINGS["hyphen"], y, P)
    path = tmp_path / f"party.{suffix}"
    df.to_csv(path, index=False) if suffix == "csv" else df.to_parquet(path)
    res = om.evaluate_file(path, truth="grade", proba="p_", labels=PARTY, metrics=METRICS)
    assert [res.values[m] for m in METRICS] == pytest.approx(_want(y, P), rel=REL)


@pytest.mark.parametrize("spelling", ["snake", "exact"])
def test_evaluate_file_reads_the_stored_classes_as_names(tmp_path, spelling: str) -> None:
    """An ordered dictionary truth (Parquet) and no labels: its classes name the columns."""
    pytest.importorskip("pyarrow")
    y, P = _party(seed=16)
    spell = SPELLINGS["snake"] if spelling == "snake" else str
    df = _alphabetical_frame(spell, y, P)
    df["grade"] = pd.Categorical(df["grade"], categories=PARTY, ordered=True)
    path = tmp_path / "party.parquet"
    df.to_parquet(path)
    res = om.evaluate_file(path, truth="grade", proba="p_", metrics=METRICS, batch_size=150)
    assert [res.values[m] for m in METRICS] == pytest.approx(_want(y, P), rel=REL)
