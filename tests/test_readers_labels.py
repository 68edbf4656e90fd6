"""The file readers and the labels: one list of null markers, ordered Parquet dictionaries,
files too large for memory, repeated column names, text in a Dask partition.

* A CSV field is missing when it is one of ``NULL_VALUES``, whichever library reads it, unless
  it is one of the labels: a class named ``NA`` is a class (it used to be dropped by pyarrow,
  pandas and the standard library's reader, and kept by polars).
* The order an ordered dictionary column of a Parquet file stores (a pandas ordered
  Categorical) gives the labels on the command line, as in ``evaluate_file``; ``--labels``
  that disagree with it are an error.
* A file larger than a share of the available memory is refused before it is read, with how
  to stream it.
* A repeated column name is refused by every reader (pandas and polars renamed it).
* ``ordmetrics.dask.evaluate`` refuses a partition holding text probabilities as
  :func:`ordmetrics.evaluate` refuses the frame.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.files import evaluate_file
from ordmetrics.io import delimited, readers, sources
from ordmetrics.io.readers import InputError, read_table
from ordmetrics.report.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

RTOL = 1e-12
P = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6], [0.5, 0.3, 0.2]])
#: The readers of a CSV file: the data-frame libraries, and the standard library's.
READERS = ("pyarrow", "pandas", "polars", "stdlib")


def csv_text(truth: list[str]) -> str:
    """A CSV file of the truth and the rows of P (repeated as often as the truth needs)."""
    probs = np.tile(P, (len(truth) // len(P), 1))
    rows = [f"{t},{','.join(map(str, p))}" for t, p in zip(truth, probs, strict=True)]
    return "g,p0,p1,p2\n" + "\n".join(rows) + "\n"


def use_reader(monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    """Make ``read_table`` (and the command line) read CSV with ``reader`` only."""
    if reader == "stdlib":  # no data-frame library: the standard library's reader
        monkeypatch.setattr(readers, "CSV_BACKENDS", ())
        return
    pytest.importorskip(reader)
    monkeypatch.setattr(readers, "CSV_BACKENDS", (reader,))
    monkeypatch.setattr(sources, "CSV_BACKENDS", (reader,))


def truth_values(table) -> list:
    if isinstance(table, delimited.ColumnTable):
        return table["g"].tolist()
    if hasattr(table, "column_names"):
        return table.column("g").to_pylist()
    values = table["g"].to_list()
    return [None if isinstance(v, float) and v != v else v for v in values]


def cli_rps(capsys, path: Path, *extra: str) -> float:
    args = ["evaluate", str(path), "--truth", "g", "--proba", "p0,p1,p2", "--metrics", "rps"]
    assert main([*args, *extra, "--format", "csv"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out.splitlines()
    return float(out[1].split(",")[1])


# --------------------------------------------------------------------------------------------
# One list of null markers; a label is never one
# --------------------------------------------------------------------------------------------


def test_one_list_of_null_markers():
    assert readers.NULL_VALUES is sources.NULL_VALUES
    assert {"", "NA", "NaN", "null", "None", "N/A", "<NA>"} <= sources.NULL_VALUES
    assert "NA" not in sources.null_markers(["NA", "b", "c"])
    assert sorted(sources.NULL_VALUES) == sources.null_markers()


@pytest.mark.parametrize("reader", READERS)
def test_class_named_na_is_a_class_with_every_reader(reader, tmp_path, monkeypatch, capsys):
    path = tmp_path / "na.csv"
    path.write_text(csv_text(["NA", "b", "c", "NA"]))
    use_reader(monkeypatch, reader)
    table = read_table(path, labels=["NA", "b", "c"])
    assert truth_values(table) == ["NA", "b", "c", "NA"]
    want = om.rps(["NA", "b", "c", "NA"], P, labels=["NA", "b", "c"])
    # all four rows, with or without --nan-policy omit (which dropped rows 0 and 3)
    for extra in ([], ["--nan-policy", "omit"]):
        got = cli_rps(capsys, path, "--labels", "NA,b,c", *extra)
        assert got == pytest.approx(want, rel=RTOL)


@pytest.mark.parametrize("reader", READERS)
def test_null_marker_that_is_no_label_is_missing_with_every_reader(
    reader, tmp_path, monkeypatch, capsys
):
    # "None" was text for pyarrow, polars and the standard library, missing for pandas
    path = tmp_path / "none.csv"
    path.write_text(csv_text(["None", "b", "c", "NA"]))
    use_reader(monkeypatch, reader)
    assert truth_values(read_table(path, labels=["a", "b", "c"])) == [None, "b", "c", None]
    want = om.rps(["b", "c"], P[1:3], labels=["a", "b", "c"])
    got = cli_rps(capsys, path, "--labels", "a,b,c", "--nan-policy", "omit")
    assert got == pytest.approx(want, rel=RTOL)


def test_evaluate_file_reads_a_class_named_na(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text(csv_text(["NA", "b", "c", "NA"]))
    got = evaluate_file(path, truth="g", proba="p", metrics=["rps"], labels=["NA", "b", "c"])
    want = om.rps(["NA", "b", "c", "NA"], P, labels=["NA", "b", "c"])
    assert got.values["rps"] == pytest.approx(want, rel=RTOL)


def test_streamed_cli_reads_a_class_named_na(tmp_path, capsys):
    path = tmp_path / "na.csv"
    path.write_text(csv_text(["NA", "b", "c", "NA"]))
    want = om.rps(["NA", "b", "c", "NA"], P, labels=["NA", "b", "c"])
    assert cli_rps(capsys, path, "--labels", "NA,b,c", "--stream") == pytest.approx(want, rel=RTOL)


# --------------------------------------------------------------------------------------------
# The order stored in Parquet
# --------------------------------------------------------------------------------------------

ORDER = ["lo", "mid", "hi"]


def ordered_parquet(tmp_path: Path, categories: list = ORDER, **kwargs) -> tuple[Path, object]:
    df = pd.DataFrame(
        {
            "g": pd.Categorical(["lo", "hi", "mid", "lo"], categories=categories, ordered=True),
            "p_lo": P[:, 0],
            "p_mid": P[:, 1],
            "p_hi": P[:, 2],
        }
    )
    path = tmp_path / "ordered.parquet"
    df.to_parquet(path, **kwargs)
    return path, df


def parquet_rps(capsys, path: Path, *extra: str) -> float:
    args = ["evaluate", str(path), "--truth", "g", "--proba-prefix", "p_", "--metrics", "rps"]
    assert main([*args, *extra, "--format", "csv"]) == 0, capsys.readouterr().err
    return float(capsys.readouterr().out.splitlines()[1].split(",")[1])


def test_schema_of_a_pandas_ordered_categorical_is_an_ordered_dictionary(tmp_path):
    path, _ = ordered_parquet(tmp_path)
    t = pq.read_schema(path).field("g").type
    assert pa.types.is_dictionary(t) and t.ordered


@pytest.mark.parametrize("extra", [[], ["--stream"], ["--labels", "lo,mid,hi"]])
def test_cli_reads_the_order_stored_in_parquet(extra, tmp_path, capsys):
    path, df = ordered_parquet(tmp_path)
    want = om.evaluate(df, truth="g", proba="p_", metrics=["rps"])["estimate"][0]
    assert parquet_rps(capsys, path, *extra) == pytest.approx(want, rel=RTOL)


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_cli_labels_that_disagree_with_the_stored_order_are_an_error(stream, tmp_path, capsys):
    path, _ = ordered_parquet(tmp_path)
    args = ["evaluate", str(path), "--truth", "g", "--proba-prefix", "p_", "--labels"]
    assert main([*args, "mid,lo,hi", *stream]) == 2
    err = capsys.readouterr().err
    assert "--labels gives the classes mid, lo, hi" in err
    assert "stores the order lo, mid, hi" in err and "drop --labels" in err


def test_evaluate_file_labels_that_disagree_with_the_stored_order_are_an_error(tmp_path):
    path, df = ordered_parquet(tmp_path)
    with pytest.raises(ValueError, match=r"labels gives the classes mid, lo, hi .* stores the"):
        evaluate_file(path, truth="g", proba="p_", metrics=["rps"], labels=["mid", "lo", "hi"])
    got = evaluate_file(path, truth="g", proba="p_", metrics=["rps"], labels=ORDER)
    want = om.evaluate(df, truth="g", proba="p_", metrics=["rps"])["estimate"][0]
    assert got.values["rps"] == pytest.approx(want, rel=RTOL)


def test_cli_unordered_dictionary_still_needs_labels(tmp_path, capsys):
    df = pd.DataFrame({"g": pd.Categorical(["lo", "hi", "mid", "lo"]), "p_0": P[:, 0]})
    df = df.assign(p_1=P[:, 1], p_2=P[:, 2])
    path = tmp_path / "unordered.parquet"
    df.to_parquet(path)
    assert main(["evaluate", str(path), "--truth", "g", "--proba-prefix", "p_"]) == 2
    assert "give their ordinal order with --labels" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Files too large for memory
# --------------------------------------------------------------------------------------------


def small_memory(monkeypatch: pytest.MonkeyPatch, n_bytes: int = 1000) -> None:
    monkeypatch.setattr(sources, "available_memory", lambda: n_bytes)


def test_available_memory_is_a_positive_number():
    avail = sources.available_memory()
    assert avail is None or avail > 0


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_file_too_large_for_memory_is_refused_before_reading(suffix, tmp_path, monkeypatch):
    text = csv_text(["a", "b", "c", "a"] * 50)
    path = tmp_path / f"big{suffix}"
    if suffix == ".parquet":
        pd.read_csv(io.StringIO(text)).to_parquet(path)
    elif suffix == ".csv.gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    small_memory(monkeypatch)
    with pytest.raises(InputError, match=r"too large to read into memory.*--stream.*--bootstrap"):
        read_table(path)
    read_table(path, head=True)  # the first rows are read: the streaming path checks with them


def test_cli_file_too_large_says_how_to_stream_it(tmp_path, monkeypatch, capsys):
    path = tmp_path / "big.csv"
    path.write_text(csv_text(["0", "1", "2", "0"] * 50))
    small_memory(monkeypatch)
    args = ["evaluate", str(path), "--truth", "g", "--proba", "p0,p1,p2", "--metrics", "rps"]
    assert main([*args, "--bootstrap", "10"]) == 2
    err = capsys.readouterr().err
    assert "too large to read into memory" in err and "drop --bootstrap to stream it" in err
    # streamed, the file is read in batches: no check of its size
    want = om.rps(np.tile([0, 1, 2, 0], 50), np.tile(P, (50, 1)))
    assert cli_rps(capsys, path, "--stream") == pytest.approx(want, rel=RTOL)


def test_gzip_file_counts_uncompressed(tmp_path, monkeypatch):
    text = csv_text(["0", "1", "2", "0"] * 2000).encode()
    path = tmp_path / "big.csv.gz"
    path.write_bytes(gzip.compress(text))
    compressed = path.stat().st_size
    assert compressed < len(text) / 10
    # room for the compressed bytes, not for the text
    small_memory(monkeypatch, 4 * compressed)
    with pytest.raises(InputError, match="too large"):
        read_table(path)


def test_memory_error_while_reading_says_the_file_is_too_large(tmp_path, monkeypatch):
    path, _ = ordered_parquet(tmp_path)

    def fail(*args, **kwargs):
        raise pa.ArrowMemoryError("malloc of size 1234 failed")

    monkeypatch.setattr(pq, "read_table", fail)
    with pytest.raises(InputError, match="too large to read into memory") as exc:
        read_table(path)
    assert "could not read" not in str(exc.value)


# --------------------------------------------------------------------------------------------
# Repeated column names
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", READERS)
def test_repeated_column_name_is_refused_by_every_reader(reader, tmp_path, monkeypatch, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("y,p0,p1,p1\n0,0.7,0.2,0.1\n1,0.2,0.6,0.2\n")
    use_reader(monkeypatch, reader)
    with pytest.raises(InputError, match=r"has the column 'p1' more than once"):
        read_table(path)
    assert main(["evaluate", str(path), "--truth", "y", "--proba", "p0,p1,p1"]) == 2
    assert "has the column 'p1' more than once" in capsys.readouterr().err


def test_repeated_column_name_is_refused_by_evaluate_file(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("y,p0,p1,p1\n0,0.7,0.2,0.1\n1,0.2,0.6,0.2\n")
    with pytest.raises(ValueError, match=r"'dup.csv' has the column 'p1' more than once"):
        evaluate_file(path, truth="y", proba="p", metrics=["rps"])
    table = pa.table(
        [pa.array([0, 1]), pa.array([0.5, 0.5]), pa.array([0.5, 0.5])], ["y", "p", "p"]
    )
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match=r"'dup.parquet' has the column 'p' more than once"):
        evaluate_file(tmp_path / "dup.parquet", truth="y", proba=["p"], metrics=["rps"])
    with pytest.raises(InputError, match=r"has the column 'p' more than once"):
        read_table(tmp_path / "dup.parquet")


# --------------------------------------------------------------------------------------------
# Dask: text probabilities in a partition
# --------------------------------------------------------------------------------------------


def test_dask_refuses_text_probabilities_in_a_partition_as_evaluate_does():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import ordmetrics.dask

    good = pd.DataFrame({"y": [0, 1, 2], "p0": P[:3, 0], "p1": P[:3, 1], "p2": P[:3, 2]})
    bad = good.assign(p1=good["p1"].astype(str).astype(object))
    with pytest.raises(TypeError) as in_memory:
        om.evaluate(bad, truth="y", proba="p", metrics=["rps"])
    # the metadata (from the first partition) says float64; the second partition holds text
    parts = [dask.delayed(lambda f=f: f)() for f in (good, bad)]
    ddf = dd.from_delayed(parts, meta=good.iloc[:0], verify_meta=False)
    with pytest.raises(TypeError) as exc:
        ordmetrics.dask.evaluate(ddf, truth="y", proba="p", metrics=["rps"])
    assert str(exc.value) == str(in_memory.value)
    assert "proba column 'p1' must be numeric" in str(exc.value)
    assert any("partition 1" in n for n in getattr(exc.value, "__notes__", ["partition 1"]))
