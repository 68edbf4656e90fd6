"""Hostile input to the file readers: classes named like missing values, with every reader;
ordered Parquet dictionaries of every shape.

A class named ``NA``, ``None``, ``null``, ``NaN``, ... is a class when it is listed in the
labels, with the standard library's reader, pyarrow, pandas and polars alike (the same rows,
the same numbers); the empty string cannot be a class of a CSV file and says so. An ordered
dictionary column gives its stored order, whatever its values, row groups or source.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.files import evaluate_file
from ordmetrics.io import readers, sources
from ordmetrics.io.readers import InputError, read_table, stored_order
from ordmetrics.report.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

RTOL = 1e-12
P = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6], [0.5, 0.3, 0.2]])
READERS = ("pyarrow", "pandas", "polars", "stdlib")
#: Class names that are null markers of some CSV reader.
MARKERS = ("NA", "None", "null", "NaN", "n/a", "<NA>", "#N/A", "nan")


def use_reader(monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    if reader == "stdlib":
        monkeypatch.setattr(readers, "CSV_BACKENDS", ())
        return
    pytest.importorskip(reader)
    monkeypatch.setattr(readers, "CSV_BACKENDS", (reader,))
    monkeypatch.setattr(sources, "CSV_BACKENDS", (reader,))


def write_csv(path: Path, truth: list[str], probs: np.ndarray = P) -> Path:
    rows = [f"{t},{','.join(map(str, p))}" for t, p in zip(truth, probs, strict=True)]
    path.write_text("g,p0,p1,p2\n" + "\n".join(rows) + "\n")
    return path


def cli_rps(capsys, path: Path, *extra: str) -> float:
    args = ["evaluate", str(path), "--truth", "g", "--proba", "p0,p1,p2", "--metrics", "rps"]
    assert main([*args, *extra, "--format", "csv"]) == 0, capsys.readouterr().err
    return float(capsys.readouterr().out.splitlines()[1].split(",")[1])


# --------------------------------------------------------------------------------------------
# Classes named like missing values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("marker", MARKERS)
def test_class_named_like_a_null_marker(marker, reader, tmp_path, monkeypatch, capsys):
    truth = [marker, "b", "c", marker]
    labels = [marker, "b", "c"]
    path = write_csv(tmp_path / "t.csv", truth)
    use_reader(monkeypatch, reader)
    want = om.rps(truth, P, labels=labels)
    got = cli_rps(capsys, path, "--labels", ",".join(labels), "--nan-policy", "omit")
    assert got == pytest.approx(want, rel=RTOL)


@pytest.mark.parametrize("reader", READERS)
def test_class_named_na_and_missing_truth_side_by_side(reader, tmp_path, monkeypatch, capsys):
    # "NA" is the class, "null" and the empty field are missing: rows 1 and 2 are dropped
    path = write_csv(tmp_path / "t.csv", ["NA", "null", "", "c"])
    use_reader(monkeypatch, reader)
    want = om.rps(["NA", "c"], P[[0, 3]], labels=["NA", "b", "c"])
    got = cli_rps(capsys, path, "--labels", "NA,b,c", "--nan-policy", "omit")
    assert got == pytest.approx(want, rel=RTOL)


@pytest.mark.parametrize("reader", READERS)
def test_label_written_as_a_missing_probability_is_loud(reader, tmp_path, monkeypatch, capsys):
    # a label is text in every column: "NA" in a probability column is then no number
    probs = P.astype(object)
    probs[1, 1] = "NA"
    path = write_csv(tmp_path / "t.csv", ["NA", "b", "c", "NA"], probs)
    use_reader(monkeypatch, reader)
    args = ["evaluate", str(path), "--truth", "g", "--proba", "p0,p1,p2", "--labels", "NA,b,c"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "'p1'" in err and "not numeric" in err


def test_empty_string_cannot_be_a_class_of_a_csv_file(tmp_path, capsys):
    path = write_csv(tmp_path / "t.csv", ["", "b", "c", ""])
    with pytest.raises(ValueError, match="labels holds the empty string"):
        evaluate_file(path, truth="g", proba="p", metrics=["rps"], labels=["", "b", "c"])
    with pytest.raises(InputError, match="labels holds the empty string"):
        read_table(path, labels=["", "b", "c"])
    args = ["evaluate", str(path), "--truth", "g", "--proba", "p0,p1,p2", "--labels", ",b,c"]
    assert main(args) == 2
    assert "--labels has an empty name" in capsys.readouterr().err


def test_labels_as_one_string_are_refused(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["NA", "b", "c", "NA"])
    with pytest.raises(TypeError, match=r"labels must be a list .* got the string 'NA,b,c'"):
        read_table(path, labels="NA,b,c")


def test_class_named_na_read_from_standard_input(tmp_path, monkeypatch, capsys):
    text = write_csv(tmp_path / "t.csv", ["NA", "b", "c", "NA"]).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    want = om.rps(["NA", "b", "c", "NA"], P, labels=["NA", "b", "c"])
    args = ["evaluate", "-", "--truth", "g", "--proba", "p0,p1,p2", "--metrics", "rps"]
    assert main([*args, "--labels", "NA,b,c", "--format", "csv"]) == 0
    got = float(capsys.readouterr().out.splitlines()[1].split(",")[1])
    assert got == pytest.approx(want, rel=RTOL)


def test_streamed_file_reads_every_marker_but_the_labels(tmp_path):
    path = write_csv(tmp_path / "t.csv", ["None", "b", "<NA>", "NA"])
    got = evaluate_file(
        path, truth="g", proba="p", metrics=["rps"], labels=["None", "b", "c"], nan_policy="omit"
    )
    want = om.rps(["None", "b"], P[:2], labels=["None", "b", "c"])
    assert got.values["rps"] == pytest.approx(want, rel=RTOL)


# --------------------------------------------------------------------------------------------
# Ordered Parquet dictionaries
# --------------------------------------------------------------------------------------------


def ordered_frame(values: list, categories: list) -> object:
    return pd.DataFrame(
        {
            "g": pd.Categorical(values, categories=categories, ordered=True),
            **{f"q{j}": P[:, j] for j in range(3)},
        }
    )


def parquet_rps(capsys, path: Path | str, *extra: str) -> float:
    args = ["evaluate", str(path), "--truth", "g", "--proba-prefix", "q", "--metrics", "rps"]
    assert main([*args, *extra, "--format", "csv"]) == 0, capsys.readouterr().err
    return float(capsys.readouterr().out.splitlines()[1].split(",")[1])


@pytest.mark.parametrize(
    "values, categories",
    [
        (["c", "a", "b", "c"], ["c", "b", "a"]),  # the order is not the sorted one
        (["NA", "None", "b", "NA"], ["NA", "None", "b"]),  # names of missing values
        (["Very Good", "Fair", "Good", "Fair"], ["Fair", "Good", "Very Good"]),
    ],
)
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_ordered_dictionary_gives_its_order(values, categories, stream, tmp_path, capsys):
    df = ordered_frame(values, categories)
    path = tmp_path / "o.parquet"
    df.to_parquet(path, row_group_size=2)  # two row groups
    want = om.rps(np.asarray(values, dtype=object), P, labels=categories)
    assert parquet_rps(capsys, path, *stream) == pytest.approx(want, rel=RTOL)
    same = ",".join(map(str, categories))
    assert parquet_rps(capsys, path, "--labels", same, *stream) == pytest.approx(want, rel=RTOL)


def test_ordered_dictionary_written_by_pyarrow(tmp_path, capsys):
    # no pandas metadata: the order is the dictionary's, as the schema declares it ordered
    kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
    codes = pa.array([2, 0, 1, 2], pa.int8())
    truth = pa.DictionaryArray.from_arrays(codes, pa.array(["hi", "lo", "mid"])).cast(kind)
    table = pa.table({"g": truth, **{f"q{j}": P[:, j] for j in range(3)}})
    pq.write_table(table, tmp_path / "o.parquet")
    want = om.rps(["mid", "hi", "lo", "mid"], P, labels=["hi", "lo", "mid"])
    assert parquet_rps(capsys, tmp_path / "o.parquet") == pytest.approx(want, rel=RTOL)


def test_ordered_dictionary_of_another_number_of_classes(tmp_path, capsys):
    df = ordered_frame(["a", "b", "c", "a"], ["a", "b", "c", "d"])  # an unused fourth class
    path = tmp_path / "o.parquet"
    df.to_parquet(path)
    assert main(["evaluate", str(path), "--truth", "g", "--proba-prefix", "q"]) == 2
    err = capsys.readouterr().err
    assert "ordered dictionary of 4 classes (a, b, c, d) but there are 3 probability" in err


def test_ordered_dictionary_from_standard_input(tmp_path, monkeypatch, capsys):
    df = ordered_frame(["c", "a", "b", "c"], ["c", "b", "a"])
    buffer = io.BytesIO()
    df.to_parquet(buffer)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.getvalue())))
    want = om.rps(["c", "a", "b", "c"], P, labels=["c", "b", "a"])
    assert parquet_rps(capsys, "-") == pytest.approx(want, rel=RTOL)


def test_chunks_storing_different_orders():
    kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
    chunks = [
        pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), pa.array(["a", "b"])),
        pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), pa.array(["b", "a"])),
    ]
    table = pa.table({"g": pa.chunked_array([c.cast(kind) for c in chunks], type=kind)})
    with pytest.raises(InputError, match="parts store different orders"):
        stored_order(table, "g", None, ["p0", "p1"])
    assert stored_order(table, "g", ["a", "b"], ["p0", "p1"]) is None  # the given one rules


def test_no_stored_order_for_other_columns():
    assert stored_order(pa.table({"g": ["a", "b"]}), "g", None, ["p0", "p1"]) is None
    unordered = pa.table({"g": pa.array(["a", "b"]).dictionary_encode()})
    assert stored_order(unordered, "g", None, ["p0", "p1"]) is None
    assert stored_order(pd.DataFrame({"g": ["a", "b"]}), "g", None, ["p0", "p1"]) is None
