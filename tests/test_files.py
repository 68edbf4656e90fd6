"""Tests for ordmetrics.files.evaluate_file: Parquet and CSV files read in batches."""

from __future__ import annotations

import builtins
import gzip
import io
import math
import sys
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import ordmetrics as om
from ordmetrics.files import evaluate_file
from ordmetrics.stream import StreamResult

K = 5
GRADES = ["none", "mild", "moderate", "severe", "critical"]
PROBA = [f"p{j}" for j in range(K)]


def frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=n)
    logits = rng.normal(size=(n, K)) + 1.5 * (np.arange(K)[None, :] == y[:, None])
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    df = pd.DataFrame(P, columns=PROBA)
    df.insert(0, "y", y)
    df["grade"] = np.array(GRADES)[y]
    df["w"] = rng.integers(0, 4, size=n).astype(np.float64)
    df["site"] = np.array(["b", "a", "c"])[rng.integers(0, 3, size=n)]
    return df


def expected(df: pd.DataFrame, **kwargs) -> dict[str, float]:
    out = om.evaluate(df, proba=PROBA, **kwargs)
    return dict(zip(out["metric"], out["estimate"], strict=True))


def check(result: StreamResult, reference: dict[str, float]) -> None:
    assert list(result.values) == list(reference)
    for name, value in reference.items():
        got, bound = result[name], result.bounds[name]
        if math.isnan(value):
            assert math.isnan(got), name
        elif bound == 0.0:
            assert math.isclose(got, value, rel_tol=1e-12, abs_tol=1e-12), (name, got, value)
        else:
            assert abs(got - value) <= bound + 1e-12, (name, got, value, bound)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """200,000 rows as Parquet (row groups of 30,000), CSV and gzip-compressed CSV."""
    df = frame(200_000)
    folder = tmp_path_factory.mktemp("files")
    paths = {
        "parquet": folder / "big.parquet",
        "csv": folder / "big.csv",
        "csv.gz": folder / "big.csv.gz",
    }
    df.to_parquet(paths["parquet"], row_group_size=30_000)
    df.to_csv(paths["csv"], index=False)
    df.iloc[:50_000].to_csv(paths["csv.gz"], index=False)
    return df, paths


def test_a_large_parquet_file_in_small_batches_equals_in_memory(big):
    df, paths = big
    calls: list[int] = []
    result = evaluate_file(
        paths["parquet"],
        truth="y",
        proba=PROBA,
        sample_weight="w",
        batch_size=1_000,
        progress=calls.append,
    )
    assert sum(calls) == len(df) and max(calls) == 1_000 and len(calls) >= 200
    assert result.n_rows == len(df)
    reference = expected(df, truth="y", sample_weight="w")
    check(result, reference)
    # the default grid leaves the ranking metrics within a small bound
    assert 0.0 < result.bounds["c_index"] < 1e-4
    # with a table large enough to stay exact, every metric is exact
    exact = evaluate_file(
        paths["parquet"], truth="y", proba="p", sample_weight="w", max_exact=250_000
    )
    assert exact.exact
    check(exact, reference)


def test_csv_files_equal_in_memory(big):
    df, paths = big
    metrics = ["rps", "qwk", "c_index", ("ece", {"n_bins": 10}), "spearman"]
    result = evaluate_file(
        paths["csv"],
        truth="grade",
        proba="p",
        labels=GRADES,
        metrics=metrics,
        batch_size=5_000,
        max_exact=250_000,
    )
    check(result, expected(df, truth="grade", labels=GRADES, metrics=metrics))
    small = df.iloc[:50_000]
    result = evaluate_file(paths["csv.gz"], truth="y", proba=PROBA, batch_size=777)
    check(result, expected(small, truth="y"))


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_memory_does_not_grow_with_the_file(tmp_path, kind):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    peaks, arrow = [], []
    for n in (40_000, 320_000):
        path = tmp_path / f"rows{n}.{kind}"
        table = pa.Table.from_pandas(frame(n, seed=n)[["y", *PROBA]], preserve_index=False)
        if kind == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(table, path, row_group_size=5_000)
        else:
            pacsv.write_csv(table, path)
        most = [0]

        def watch(rows: int, most: list[int] = most) -> None:
            most[0] = max(most[0], pa.total_allocated_bytes())

        options = {"truth": "y", "proba": "p", "batch_size": 2_000, "n_grid": 1024}
        evaluate_file(path, **options)  # warm up
        tracemalloc.start()
        try:
            evaluate_file(path, progress=watch, **options)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        arrow.append(most[0])
    size = path.stat().st_size
    data = 320_000 * (K + 1) * 8  # the columns read, in memory
    # 8 times the rows, about the same peak: the state and one batch, never the whole file
    assert peaks[1] < 1.25 * peaks[0] + 1e6
    assert peaks[1] < data / 8
    # pyarrow's own memory (not seen by tracemalloc): a row group, or the blocks read ahead
    assert arrow[1] < (data if kind == "parquet" else size) / 2


def test_groups(tmp_path):
    df = frame(3_000, seed=4)
    df.loc[df.index[::50], "site"] = None
    path = tmp_path / "groups.parquet"
    df.to_parquet(path, row_group_size=700)
    metrics = ["rps", "qwk", "ece"]
    keep = {"nan_policy": "propagate"}  # a missing site forms a group of its own
    result = evaluate_file(
        path, truth="y", proba="p", by="site", metrics=metrics, batch_size=500, **keep
    )
    ref = om.evaluate(df, truth="y", proba=PROBA, by="site", metrics=metrics, **keep)
    keys = [None if isinstance(k, float) else k for k in dict.fromkeys(ref["site"])]
    assert list(result) == keys
    for key, r in result.items():
        rows = ref[ref["site"].isna()] if key is None else ref[ref["site"] == key]
        check(r, dict(zip(rows["metric"], rows["estimate"], strict=True)))
    df["fold"] = np.arange(len(df)) % 2
    path2 = tmp_path / "groups2.csv"
    df.to_csv(path2, index=False)
    two = evaluate_file(path2, truth="y", proba="p", by=["site", "fold"], metrics=metrics, **keep)
    assert ("b", 0) in two and (None, 0) in two and len(two) == 7  # missing sites: even rows
    rows = df[(df["site"] == "b") & (df["fold"] == 0)]
    check(two[("b", 0)], expected(rows, truth="y", metrics=metrics))


def test_ordered_categorical_truth_in_parquet(tmp_path):
    df = frame(2_000, seed=5)
    df["grade"] = pd.Categorical(df["grade"], categories=GRADES, ordered=True)
    path = tmp_path / "cat.parquet"
    df.to_parquet(path, row_group_size=300)
    result = evaluate_file(path, truth="grade", proba="p", batch_size=256)
    check(result, expected(df, truth="grade"))


def test_missing_values(tmp_path):
    df = frame(1_000, seed=6)
    df.loc[[3, 500], "p2"] = np.nan
    df.loc[10, "y"] = np.nan
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"y_proba has NaN in row 3") as info:
        evaluate_file(path, truth="y", proba="p", batch_size=100)
    if sys.version_info >= (3, 11):  # exception notes
        assert "in rows 0..99 of holes.csv" in "\n".join(info.value.__notes__)
    result = evaluate_file(path, truth="y", proba="p", batch_size=100, nan_policy="omit")
    assert result.n_rows == 997
    keep = df.drop(index=[3, 500, 10])
    check(result, expected(keep.astype({"y": int}), truth="y"))
    prop = evaluate_file(path, truth="y", proba="p", nan_policy="propagate")
    assert all(math.isnan(v) for v in prop.values.values())


def test_column_errors(big, tmp_path):
    _, paths = big
    path = paths["parquet"]
    with pytest.raises(ValueError, match=r"truth column 'yy' is not in the file .*'y'.*Columns"):
        evaluate_file(path, truth="yy", proba="p")
    with pytest.raises(ValueError, match=r"proba prefix 'q' matches no column.*'p0'"):
        evaluate_file(path, truth="y", proba="q")
    with pytest.raises(ValueError, match="proba column 'p9' is not in"):
        evaluate_file(path, truth="y", proba=["p0", "p9"])
    with pytest.raises(ValueError, match="sample_weight column 'weight' is not in"):
        evaluate_file(path, truth="y", proba="p", sample_weight="weight")
    with pytest.raises(ValueError, match="by column 'region' is not in"):
        evaluate_file(path, truth="y", proba="p", by="region")
    with pytest.raises(TypeError, match=r"proba column 'grade' of the file .* must be numeric"):
        evaluate_file(path, truth="y", proba=["p0", "grade"])
    with pytest.raises(ValueError, match="proba includes the truth column 'y'"):
        evaluate_file(path, truth="y", proba=["y", "p1"])
    with pytest.raises(ValueError, match="proba lists column 'p0' more than once"):
        evaluate_file(path, truth="y", proba=["p0", "p0"])
    with pytest.raises(ValueError, match="cannot tell the type of"):
        evaluate_file(tmp_path / "data.xlsx", truth="y", proba="p")
    with pytest.raises(FileNotFoundError, match="no such file"):
        evaluate_file(tmp_path / "absent.csv", truth="y", proba="p")
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        evaluate_file(path, truth="y", proba="p", batch_size=0)
    with pytest.raises(ValueError, match="strategy='quantile' cannot be computed"):
        evaluate_file(path, truth="y", proba="p", metrics=[("ece", {"strategy": "quantile"})])
    with pytest.raises(TypeError, match="labels= was not given"):
        evaluate_file(path, truth="grade", proba="p")
    bad = tmp_path / "bad.csv"
    bad.write_text("y,p0,p1\n0,0.5,0.5\n1,high,0.5\n")
    with pytest.raises(ValueError, match=r"could not read 'bad\.csv'.*must hold numbers"):
        evaluate_file(bad, truth="y", proba="p")


def test_tsv_and_delimiters(tmp_path):
    df = frame(500, seed=7)
    tsv = tmp_path / "x.tsv.gz"
    with gzip.open(tsv, "wt") as f:
        df.to_csv(f, sep="\t", index=False)
    check(evaluate_file(tsv, truth="y", proba="p"), expected(df, truth="y"))
    semi = tmp_path / "x.csv"
    df.to_csv(semi, sep=";", index=False)
    check(evaluate_file(semi, truth="y", proba="p", delimiter=";"), expected(df, truth="y"))


def test_progress_bar_draws_only_on_a_terminal(big, monkeypatch, capsys):
    _, paths = big
    with pytest.raises(TypeError, match="progress must be True, False or a callable"):
        evaluate_file(paths["csv.gz"], truth="y", proba="p", progress="yes")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    import ordmetrics._core.progress as bar

    real = bar.progress
    monkeypatch.setattr(bar, "progress", lambda total, label: real(total, label, delay=0.0))
    evaluate_file(paths["csv.gz"], truth="y", proba="p", progress=True, batch_size=5_000)
    evaluate_file(paths["parquet"], truth="y", proba="p", progress=True, batch_size=50_000)
    drawn = terminal.getvalue()
    assert "big.csv.gz (bytes)" in drawn and "big.parquet (rows)" in drawn
    assert capsys.readouterr().out == ""


def test_pyarrow_is_named_when_missing(big, monkeypatch):
    _, paths = big
    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError("No module named 'pyarrow'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r"pip install ordmetrics\[parquet\]"):
        evaluate_file(paths["parquet"], truth="y", proba="p")


# --------------------------------------------------------------------------------------------
# Regressions: delimiter, label-named columns, row sums, long fields
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", ["", ";;", '"', 3])
def test_bad_delimiter_is_rejected(tmp_path, delimiter):
    path = tmp_path / "d.csv"
    frame(20).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"delimiter must be one character, e\.g\. ';'"):
        evaluate_file(path, truth="y", proba=PROBA, delimiter=delimiter)


SEVERITY = ["mild", "moderate", "severe"]


def _severity_file(tmp_path, suffix=".csv"):
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(3), size=300)
    y = np.array(SEVERITY)[rng.integers(0, 3, size=300)]
    df = pd.DataFrame({"g": y, "p_severe": P[:, 2], "p_mild": P[:, 0], "p_moderate": P[:, 1]})
    path = tmp_path / f"sev{suffix}"
    df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
    return path, y, P


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_prefix_columns_named_after_labels_follow_the_labels(tmp_path, suffix):
    path, y, P = _severity_file(tmp_path, suffix)
    res = evaluate_file(path, truth="g", proba="p_", labels=SEVERITY, metrics=["rps", "qwk"])
    assert res.values["rps"] == pytest.approx(om.rps(y, P, labels=SEVERITY), rel=1e-12)
    pred = om.decide(P, labels=SEVERITY)
    assert res.values["qwk"] == pytest.approx(om.qwk(y, pred, labels=SEVERITY), rel=1e-12)


def test_list_naming_labels_in_another_order_is_an_error(tmp_path):
    path, _, _ = _severity_file(tmp_path)
    with pytest.raises(
        ValueError, match=r"proba lists the columns .* in another order than labels"
    ):
        evaluate_file(path, truth="g", proba=["p_severe", "p_mild", "p_moderate"], labels=SEVERITY)
    with pytest.raises(ValueError, match=r"'p_severe' are not, so which column holds which"):
        evaluate_file(path, truth="g", proba="p_", labels=["mild", "moderate", "grave"])


@pytest.mark.parametrize("option", [{"renormalize": True}, {"sum_tolerance": 1e-3}])
def test_renormalize_and_sum_tolerance(tmp_path, option):
    df = frame(5000, seed=2)
    df[PROBA] = df[PROBA].round(4)  # 6 decimals pass by default (tolerance K x 5e-7)
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    P = df[PROBA].to_numpy()
    assert (np.abs(P.sum(axis=1) - 1) > 1e-4).any()
    with pytest.raises(ValueError, match=r"must sum to 1"):
        evaluate_file(path, truth="y", proba=PROBA, metrics=["rps"], batch_size=700)
    res = evaluate_file(path, truth="y", proba=PROBA, metrics=["rps"], batch_size=700, **option)
    Q = P / P.sum(axis=1, keepdims=True)
    assert res.values["rps"] == pytest.approx(om.rps(df["y"], Q), rel=1e-12)
    with pytest.raises(ValueError, match=r"farther from 1 than sum_tolerance 1e-09"):
        evaluate_file(path, truth="y", proba=PROBA, sum_tolerance=1e-9)
    with pytest.raises(ValueError, match=r"sum_tolerance must be None or a number in \[0, 1\)"):
        evaluate_file(path, truth="y", proba=PROBA, sum_tolerance=-1)


@pytest.mark.parametrize("where", ["first", "last"])
def test_field_longer_than_a_block_is_read(tmp_path, where):
    """A 2 MiB field: larger blocks, the rows already read skipped, the same numbers."""
    df = frame(30_000, seed=5)
    df["note"] = "n"
    df.loc[0 if where == "first" else len(df) - 1, "note"] = "x" * (2 << 20)
    path = tmp_path / "long.csv"
    df.to_csv(path, index=False)
    res = evaluate_file(path, truth="y", proba=PROBA, metrics=["rps", "brier"], batch_size=4096)
    want = expected(df, truth="y", metrics=["rps", "brier"])
    for name, value in want.items():
        assert res.values[name] == pytest.approx(value, rel=1e-12)


def test_empty_truth_cell_is_missing(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("g,p0,p1\na,0.6,0.4\n,0.5,0.5\nb,0.2,0.8\n")
    res = evaluate_file(path, truth="g", proba="p", labels=["a", "b"], nan_policy="omit")
    want = om.rps(["a", "b"], [[0.6, 0.4], [0.2, 0.8]], labels=["a", "b"])
    assert res.values["rps"] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match=r"missing in row 1"):
        evaluate_file(path, truth="g", proba="p", labels=["a", "b"])
