"""Every reader path on files larger than every internal head, batch and block size.

The files hold the bundled example in long form (both models stacked: 107,880 rows, ~6 MB of
CSV), written as CSV, gzip-compressed CSV and Parquet (in several row groups). Each reader path
must give the numbers of the metric functions called on the arrays in memory:

* ``ordmetrics evaluate`` (read whole), ``evaluate --stream`` (batches), ``evaluate
  --bootstrap``, ``ordmetrics report`` (its "Rows" count and metric table; on the 53,940 rows
  of one model, past the head and block sizes of the whole-file readers);
* :func:`ordmetrics.evaluate_file` (batches);
* :func:`ordmetrics.io.readers.read_table` and the frame reader
  (:func:`ordmetrics.io.frames.read_frame`,
  :func:`ordmetrics.evaluate` on the table read).

A Parquet file used to be cut to its first batch of 10,000 rows by every path that reads it
whole; files smaller than the batch could not show it, hence the sizes checked here.
"""

from __future__ import annotations

import gzip
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics import files
from ordmetrics.datasets import CUT_LABELS, MODELS, load_diamonds_cut
from ordmetrics.io import file_batches
from ordmetrics.io import readers as _io
from ordmetrics.io.frames import DEFAULT_METRICS, read_frame
from ordmetrics.report import html as report_html
from ordmetrics.report.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pc = pytest.importorskip("pyarrow.compute")
pd = pytest.importorskip("pandas")

PROBA = [f"p_{c.replace(' ', '_')}" for c in CUT_LABELS]
LABELS_OPTION = ",".join(CUT_LABELS)
FORMATS = ("csv", "csv.gz", "parquet")
#: Rows per Parquet row group: several row groups, none a multiple of the batch size.
ROW_GROUP = 40_000
#: The streaming ranking metrics are exact up to this many distinct values, then bounded.
RANKING = {"c_index"}
RTOL = 1e-12


# --------------------------------------------------------------------------------------------
# The data, its files and the in-memory reference
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data() -> dict:
    """The example, both models stacked, as arrays."""
    parts = {m: load_diamonds_cut(m) for m in MODELS}
    y = np.concatenate([parts[m].y_true for m in MODELS]).astype(object)
    P = np.concatenate([parts[m].y_proba for m in MODELS])
    model = np.repeat(np.array(MODELS, dtype=object), [parts[m].y_true.size for m in MODELS])
    return {"y": y, "P": P, "model": model}


@pytest.fixture(scope="module")
def paths(data, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("large")
    df = pd.DataFrame({"model": data["model"], "cut": data["y"].astype(str)})
    for j, c in enumerate(PROBA):
        df[c] = data["P"][:, j]
    out = {}
    out["csv"] = root / "preds.csv"
    df.to_csv(out["csv"], index=False)  # full precision: every float reads back exactly
    out["csv.gz"] = root / "preds.csv.gz"
    out["csv.gz"].write_bytes(gzip.compress(out["csv"].read_bytes(), compresslevel=1))
    out["parquet"] = root / "preds.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), out["parquet"], ROW_GROUP)
    return out


@pytest.fixture(scope="module")
def report_paths(data, paths, tmp_path_factory) -> dict[str, Path]:
    """The rows of the hgb model only (53,940): the report reads files whole, so they need
    only exceed the head and block sizes (checked below), and its figures take half the time."""
    root = tmp_path_factory.mktemp("report")
    table = _io.read_table(paths["parquet"])
    hgb = table.filter(pc.equal(table.column("model"), "hgb"))
    out = {"parquet": root / "hgb.parquet", "csv": root / "hgb.csv", "csv.gz": root / "hgb.csv.gz"}
    pq.write_table(hgb, out["parquet"], ROW_GROUP)
    hgb.to_pandas().to_csv(out["csv"], index=False)
    out["csv.gz"].write_bytes(gzip.compress(out["csv"].read_bytes(), compresslevel=1))
    assert hgb.num_rows > _io.HEAD_ROWS
    assert out["csv"].stat().st_size > 2 * max(_io.HEAD_BYTES, _io._CSV_BLOCK)
    return out


def _reference(y: np.ndarray, P: np.ndarray, metrics=DEFAULT_METRICS) -> dict[str, float]:
    """The metric functions on the arrays (agreement metrics on the argmax decision)."""
    out = {}
    for name in metrics:
        spec = om.get_metric(name)
        if spec.kind == "agreement":
            pred = om.decide(P, "argmax", labels=list(CUT_LABELS))
            out[name] = float(spec.func(y, pred, labels=list(CUT_LABELS)))
        else:
            out[name] = float(spec.func(y, P, labels=list(CUT_LABELS)))
    return out


@pytest.fixture(scope="module")
def reference(data) -> dict[str, float]:
    return _reference(data["y"], data["P"])


@pytest.fixture(scope="module")
def reference_by_model(data) -> dict[str, dict[str, float]]:
    out = {}
    for m in MODELS:
        rows = data["model"] == m
        out[m] = _reference(data["y"][rows], data["P"][rows], ("rps", "qwk"))
    return out


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= RTOL * max(1.0, abs(want))


def _check(values: dict[str, float], reference: dict[str, float], exact_ranking=True) -> None:
    assert set(values) == set(reference)
    for name, want in reference.items():
        if name in RANKING and not exact_ranking:
            continue
        assert _close(values[name], want), (name, values[name], want)


# --------------------------------------------------------------------------------------------
# The files are larger than every head, batch and block size of the readers
# --------------------------------------------------------------------------------------------


def test_files_exceed_every_internal_size(data, paths) -> None:
    n = data["y"].size
    batch = inspect.signature(files.evaluate_file).parameters["batch_size"].default
    assert n > max(_io.HEAD_ROWS, batch, ROW_GROUP)
    assert n % batch and n % ROW_GROUP  # a last, partial batch and row group
    text = gzip.decompress(paths["csv.gz"].read_bytes())
    sizes = (_io.HEAD_BYTES, _io._SNIFF, _io._CSV_BLOCK, file_batches.CSV_BLOCK, 1 << 18)
    assert len(text) > 2 * max(sizes)
    assert paths["csv.gz"].stat().st_size > _io._SNIFF
    assert pq.ParquetFile(paths["parquet"]).metadata.num_row_groups == -(-n // ROW_GROUP)


@pytest.mark.parametrize("fmt", FORMATS)
def test_read_table_reads_every_row(fmt, data, paths) -> None:
    table = _io.read_table(paths[fmt])
    assert table.num_rows == data["y"].size
    P = np.column_stack([table.column(c).to_numpy() for c in PROBA])
    np.testing.assert_array_equal(P, data["P"])  # every float read back exactly
    assert table.column("cut").to_pylist() == list(data["y"])
    head = _io.read_table(paths[fmt], head=True)
    assert 0 < head.num_rows < data["y"].size  # the head is a head, the table is whole
    if fmt == "parquet":
        assert head.num_rows == _io.HEAD_ROWS


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_read_table_other_csv_backends(backend, data, paths) -> None:
    pytest.importorskip(backend)
    for fmt in ("csv", "csv.gz"):
        table = _io.read_table(paths[fmt], backend=backend)
        assert len(table) == data["y"].size
        np.testing.assert_array_equal(table[PROBA[-1]].to_numpy(), data["P"][:, -1])


# --------------------------------------------------------------------------------------------
# The frame reader
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_frame_reader_on_large_files(fmt, data, paths, reference) -> None:
    table = _io.read_table(paths[fmt])
    read = read_frame(
        table, truth="cut", proba="p_", by=None, labels=list(CUT_LABELS), sample_weight=None
    )
    assert read.proba == PROBA
    np.testing.assert_array_equal(read.inputs.P, data["P"])
    out = om.evaluate(table, truth="cut", proba="p_", labels=list(CUT_LABELS))
    metrics, estimates = out.column("metric").to_pylist(), out.column("estimate").to_pylist()
    values = dict(zip(metrics, estimates, strict=True))
    _check(values, reference)


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def _cli_json(capsys, path: Path, *extra: str) -> list[dict]:
    args = ["evaluate", str(path), "--truth", "cut", "--proba-prefix", "p_"]
    assert main([*args, "--labels", LABELS_OPTION, *extra, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_evaluate_on_large_files(fmt, capsys, paths, reference) -> None:
    records = _cli_json(capsys, paths[fmt])
    _check({r["metric"]: r["estimate"] for r in records}, reference)


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_evaluate_stream_on_large_files(fmt, capsys, paths, reference) -> None:
    records = _cli_json(capsys, paths[fmt], "--stream")
    _check({r["metric"]: r["estimate"] for r in records}, reference, exact_ranking=False)
    # the ranking metric streams through a bounded table: its estimate is close
    c_index = next(r["estimate"] for r in records if r["metric"] == "c_index")
    assert abs(c_index - reference["c_index"]) < 1e-3


def test_cli_evaluate_by_group_on_large_parquet(capsys, paths, reference_by_model) -> None:
    """The reproducer: the example's logit model saved as Parquet has rps 0.100805."""
    for extra in ((), ("--stream",)):
        records = _cli_json(
            capsys, paths["parquet"], "--by", "model", "--metrics", "rps,qwk", *extra
        )
        got = {(r["model"], r["metric"]): r["estimate"] for r in records}
        for m in MODELS:
            for name, want in reference_by_model[m].items():
                assert _close(got[m, name], want), (m, name, got[m, name], want)
        assert round(got["logit", "rps"], 6) == 0.100805


def test_cli_evaluate_bootstrap_on_large_files(capsys, paths, reference) -> None:
    extra = ("--metrics", "rps,log_loss,qwk", "--bootstrap", "3", "--seed", "5")
    results = {fmt: _cli_json(capsys, paths[fmt], *extra) for fmt in FORMATS}
    for records in results.values():
        for r in records:
            assert _close(r["estimate"], reference[r["metric"]]), r
        # the same rows in every format: the same resamples, the same intervals
        assert records == results["csv"]
    # and the intervals of the table in memory
    df = pd.DataFrame({"cut": _io.read_table(paths["csv"]).column("cut").to_pylist()})
    table = _io.read_table(paths["csv"])
    for c in PROBA:
        df[c] = table.column(c).to_numpy()
    mem = report_html.metric_table(
        df,
        truth="cut",
        proba="p_",
        labels=list(CUT_LABELS),
        metrics=["rps", "log_loss", "qwk"],
        n_resamples=3,
        random_state=5,
    )
    for got, want in zip(results["parquet"], mem, strict=True):
        assert (got["low"], got["high"]) == (want["low"], want["high"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_report_on_large_files(fmt, tmp_path, capsys, report_paths, reference_by_model):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"report-{fmt.replace('.', '-')}.html"
    args = ["report", str(report_paths[fmt]), "--truth", "cut", "--proba-prefix", "p_"]
    args += ["--labels", LABELS_OPTION, "--metrics", "rps,qwk", "--bootstrap", "0"]
    assert main([*args, "--out", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert "<dt>Rows</dt><dd>53,940</dd>" in html
    for name in ("rps", "qwk"):
        cell = re.search(rf"<td>{name}</td>\s*<td[^>]*>([-0-9.]+)</td>", html)
        assert cell is not None, name
        assert cell.group(1) == f"{reference_by_model['hgb'][name]:.4f}"


# --------------------------------------------------------------------------------------------
# ordmetrics.evaluate_file
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_evaluate_file_on_large_files(fmt, data, paths, reference) -> None:
    res = om.evaluate_file(paths[fmt], truth="cut", proba="p_", labels=list(CUT_LABELS))
    _check(dict(res.values), reference, exact_ranking=False)
    # the ranking metric streams through a bounded table: within its stated error bound
    assert abs(res.values["c_index"] - reference["c_index"]) <= res.bounds["c_index"] + 1e-12


@pytest.mark.parametrize("fmt", FORMATS)
def test_evaluate_file_small_batches_and_groups(fmt, paths, reference_by_model) -> None:
    res = om.evaluate_file(
        paths[fmt],
        truth="cut",
        proba=PROBA,
        labels=list(CUT_LABELS),
        metrics=["rps", "qwk"],
        by="model",
        batch_size=7_777,
    )
    assert list(res) == list(MODELS)
    for m in MODELS:
        _check(dict(res[m].values), reference_by_model[m])


# --------------------------------------------------------------------------------------------
# A separate process, as a user runs it
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet"])
def test_subprocess_evaluate_large_file(fmt, paths, reference) -> None:
    cmd = [sys.executable, "-m", "ordmetrics", "evaluate", str(paths[fmt]), "--truth", "cut"]
    cmd += ["--proba-prefix", "p_", "--labels", LABELS_OPTION, "--metrics", "rps,log_loss"]
    done = subprocess.run([*cmd, "--format", "csv"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.strip().splitlines()[1:]]
    for metric, estimate, *_ in rows:
        assert _close(float(estimate), reference[metric]), (metric, estimate)
