"""The command line: evaluate (golden outputs, formats, groups, weights, bootstrap, bad input),
report, demo, list, index, exit codes.

The golden files in ``tests/golden/`` hold the exact output of ``ordmetrics evaluate`` on
``tests/golden/predictions.csv`` (the first 40 rows of the bundled example, hgb model, with a
``weight`` column), grouped by ``fold`` and weighted by ``weight``, in the three formats
(``evaluate.table.txt``, ``evaluate.json``, ``evaluate.csv``). After an intended change of the
output, regenerate them with::

    ORDMETRICS_REGEN_GOLDEN=1 python -m pytest tests/test_cli.py -k golden

and review the diff.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
import ordmetrics.report.cli_input
from ordmetrics._core.progress import progress
from ordmetrics.io import readers as _io
from ordmetrics.report.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
DATA = GOLDEN / "predictions.csv"
LABELS = ("Fair", "Good", "Very Good", "Premium", "Ideal")
PROBA = [f"hgb_{c.replace(' ', '_')}" for c in LABELS]
BASE = ["--truth", "cut", "--proba-prefix", "hgb_", "--labels", ",".join(LABELS)]
REGEN = os.environ.get("ORDMETRICS_REGEN_GOLDEN") == "1"

_NUMBER = re.compile(r"(-?\d+\.\d+(?:e[-+]?\d+)?)")


def evaluate_args(path: Path | str = DATA, *extra: str) -> list[str]:
    return ["evaluate", str(path), *BASE, *extra]


#: The command whose output the golden files hold: groups, weights, the default metrics.
GOLDEN_ARGS = evaluate_args(DATA, "--by", "fold", "--weight", "weight")


def run_json(capsys, *args: str) -> list[dict]:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def same_output(got: str, want: str) -> bool:
    """Equal text; numbers may differ in the last bits (relative 1e-12) across platforms."""
    if got == want:
        return True
    a, b = _NUMBER.split(got), _NUMBER.split(want)
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if i % 2 == 0:
            if x != y:
                return False
        elif not math.isclose(float(x), float(y), rel_tol=1e-12, abs_tol=1e-15):
            return False
    return True


def frame():
    import pandas as pd

    # correctly rounded floats (the default from pandas 3 on)
    major = int(pd.__version__.split(".", 1)[0])
    return pd.read_csv(DATA, **({"float_precision": "round_trip"} if major < 3 else {}))


# --------------------------------------------------------------------------------------------
# Golden outputs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("table", "evaluate.table.txt"), ("json", "evaluate.json"), ("csv", "evaluate.csv")],
)
def test_evaluate_golden(fmt, name, capsys):
    assert main([*GOLDEN_ARGS, "--format", fmt]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    path = GOLDEN / name
    if REGEN:
        path.write_text(captured.out)
    want = path.read_text()
    assert same_output(captured.out, want), (
        f"output differs from {path}; if intended, regenerate: ORDMETRICS_REGEN_GOLDEN=1 "
        "python -m pytest tests/test_cli.py -k golden"
    )


def test_evaluate_default_format_is_the_table(capsys):
    assert main(GOLDEN_ARGS) == 0
    assert same_output(capsys.readouterr().out, (GOLDEN / "evaluate.table.txt").read_text())


def test_formats_hold_the_same_records(capsys):
    records = run_json(capsys, *evaluate_args())
    assert [r["metric"] for r in records] == list(ordmetrics.DEFAULT_METRICS)
    assert all(list(r) == ["metric", "estimate", "direction", "low", "high"] for r in records)
    assert all(r["low"] is None and r["high"] is None for r in records)
    assert main([*evaluate_args(), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric,estimate,direction,low,high"
    for line, rec in zip(lines[1:], records, strict=True):
        metric, estimate, direction, low, high = line.split(",")
        assert (metric, float(estimate), direction) == (
            rec["metric"],
            rec["estimate"],
            rec["direction"],
        )
        assert low == high == ""


def test_estimates_are_those_of_evaluate(capsys):
    records = run_json(capsys, *evaluate_args())
    want = ordmetrics.evaluate(frame(), truth="cut", proba=PROBA, labels=list(LABELS))
    assert [r["estimate"] for r in records] == want["estimate"].tolist()
    assert [r["direction"] for r in records] == want["direction"].tolist()


# --------------------------------------------------------------------------------------------
# Inputs: Parquet, gzip, readers, options
# --------------------------------------------------------------------------------------------


def test_parquet_and_gzip_give_the_same_result_as_csv(tmp_path, capsys):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    pq.write_table(pcsv.read_csv(DATA), tmp_path / "p.parquet")
    (tmp_path / "p.csv.gz").write_bytes(gzip.compress(DATA.read_bytes()))
    want = run_json(capsys, *evaluate_args())
    assert run_json(capsys, *evaluate_args(tmp_path / "p.parquet")) == want
    assert run_json(capsys, *evaluate_args(tmp_path / "p.csv.gz")) == want


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_every_csv_reader_gives_the_same_table(backend):
    from ordmetrics.report.html import metric_table

    opts = {"truth": "cut", "proba": PROBA, "labels": list(LABELS), "by": "fold"}
    want = metric_table(_io.read_table(DATA), sample_weight="weight", **opts)
    got = metric_table(_io.read_table(DATA, backend=backend), sample_weight="weight", **opts)
    assert got == want


def test_semicolon_and_tab_delimiters(tmp_path, capsys):
    text = DATA.read_text()
    (tmp_path / "p.csv").write_text(text.replace(",", ";"))
    (tmp_path / "p.tsv").write_text(text.replace(",", "\t"))
    want = run_json(capsys, *evaluate_args())
    assert run_json(capsys, *evaluate_args(tmp_path / "p.csv", "--delimiter", ";")) == want
    assert run_json(capsys, *evaluate_args(tmp_path / "p.tsv")) == want


def test_by_and_weight(capsys):
    records = run_json(
        capsys, *evaluate_args(DATA, "--by", "fold", "--weight", "weight", "--metrics", "rps,qwk")
    )
    want = ordmetrics.evaluate(
        frame(),
        truth="cut",
        proba=PROBA,
        labels=list(LABELS),
        by="fold",
        sample_weight="weight",
        metrics=["rps", "qwk"],
    )
    assert [r["fold"] for r in records] == want["fold"].tolist()
    assert [r["metric"] for r in records] == want["metric"].tolist()
    assert [r["estimate"] for r in records] == want["estimate"].tolist()
    assert list(records[0]) == ["fold", "metric", "estimate", "direction", "low", "high"]
    unweighted = run_json(capsys, *evaluate_args(DATA, "--by", "fold", "--metrics", "rps,qwk"))
    assert [r["estimate"] for r in unweighted] != [r["estimate"] for r in records]


def test_by_table_has_the_group_column_first(capsys):
    assert main([*evaluate_args(DATA, "--by", "fold", "--metrics", "rps")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["fold", "metric", "estimate", "direction"]
    assert [ln.split()[0] for ln in lines[2:]] == ["3", "4", "0", "2", "1"]  # first appearance


def test_integer_truth_needs_no_labels(tmp_path, capsys):
    df = frame()
    df["grade"] = df["cut"].map({c: i for i, c in enumerate(LABELS)})
    df.drop(columns="cut").to_csv(tmp_path / "int.csv", index=False)
    args = ["evaluate", str(tmp_path / "int.csv"), "--truth", "grade", "--proba", ",".join(PROBA)]
    assert run_json(capsys, *args) == run_json(capsys, *evaluate_args())
    assert run_json(capsys, *args, "--labels", "0,1,2,3,4") == run_json(capsys, *args)


def test_nan_policy_omit(tmp_path, capsys):
    lines = DATA.read_text().splitlines()
    cells = lines[3].split(",")
    cells[5] = ""  # a missing probability in row 2
    lines[3] = ",".join(cells)
    (tmp_path / "nan.csv").write_text("\n".join(lines) + "\n")
    assert main(evaluate_args(tmp_path / "nan.csv")) == 2
    assert "--nan-policy omit" in capsys.readouterr().err
    records = run_json(capsys, *evaluate_args(tmp_path / "nan.csv", "--nan-policy", "omit"))
    want = ordmetrics.evaluate(frame().drop(index=2), truth="cut", proba=PROBA, labels=list(LABELS))
    assert np.allclose([r["estimate"] for r in records], want["estimate"], rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Bootstrap intervals
# --------------------------------------------------------------------------------------------


def test_bootstrap_intervals_contain_the_estimate_and_are_deterministic(capsys):
    args = evaluate_args(DATA, "--by", "fold", "--bootstrap", "40", "--seed", "3")
    records = run_json(capsys, *args)
    assert records == run_json(capsys, *args)
    for r in records:
        assert r["low"] <= r["estimate"] <= r["high"], r
    other = run_json(capsys, *evaluate_args(DATA, "--by", "fold", "--bootstrap", "40"))
    assert [r["estimate"] for r in other] == [r["estimate"] for r in records]
    assert [r["low"] for r in other] != [r["low"] for r in records]


def test_bootstrap_intervals_are_those_of_ordmetrics_bootstrap(capsys):
    records = run_json(
        capsys,
        *evaluate_args(
            DATA,
            *("--by", "fold", "--weight", "weight", "--metrics", "rps,qwk"),
            *("--bootstrap", "30", "--seed", "5", "--confidence", "0.9"),
        ),
    )
    df = frame()
    rows = df["fold"] == 4
    y, P, w = df["cut"][rows], df[PROBA][rows].to_numpy(), df["weight"][rows].to_numpy()
    opts = {
        "n_resamples": 30,
        "random_state": 5,
        "confidence_level": 0.9,
        "labels": list(LABELS),
        "sample_weight": w,
    }
    rps = ordmetrics.bootstrap("rps", y, P, **opts)
    qwk = ordmetrics.bootstrap("qwk", y, ordmetrics.decide(P, labels=list(LABELS)), **opts)
    got = {r["metric"]: r for r in records if r["fold"] == 4}
    assert (got["rps"]["low"], got["rps"]["high"]) == (rps.low, rps.high)
    assert (got["qwk"]["low"], got["qwk"]["high"]) == (qwk.low, qwk.high)
    assert got["rps"]["estimate"] == rps.estimate


def test_bootstrap_table_and_warnings_name_the_group(capsys):
    assert main(evaluate_args(DATA, "--by", "fold", "--bootstrap", "30")) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["fold", "metric", "estimate", "direction", "low", "high"]
    assert "95% bootstrap percentile interval, 30 resamples (seed 0)" in captured.out
    warned = captured.err.splitlines()
    assert warned, "small groups make some resamples undefined"
    for line in warned:
        assert line.startswith("ordmetrics: warning: ")
        assert re.search(r"undefined \(NaN\) on \d+ of 30 resamples.*\(group fold=\d\)", line)


# --------------------------------------------------------------------------------------------
# Bad input: exit code 2 and one line on stderr
# --------------------------------------------------------------------------------------------


def _edit(row: int, column: str, value: str):
    def make(tmp_path: Path) -> Path:
        lines = DATA.read_text().splitlines()
        header = lines[0].split(",")
        cells = lines[row + 1].split(",")
        cells[header.index(column)] = value
        lines[row + 1] = ",".join(cells)
        path = tmp_path / "edited.csv"
        path.write_text("\n".join(lines) + "\n")
        return path

    return make


def _write(name: str, content: bytes | str):
    def make(tmp_path: Path) -> Path:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)
        return path

    return make


def _copy(name: str, transform=lambda s: s):
    return _write(name, transform(DATA.read_text()))


def _parquet_named_csv(tmp_path: Path) -> Path:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    path = tmp_path / "really_parquet.csv"
    pq.write_table(pcsv.read_csv(DATA), path)
    return path


BAD_INPUTS = {
    "missing column": (
        _copy("p.csv"),
        ["--truth", "grade"],
        r"--truth column 'grade' is not in the file; columns found in .*'cut'",
    ),
    "missing probability column": (
        _copy("p.csv"),
        ["--proba", "hgb_Fair,hgb_Good,hgb_Great"],
        r"--proba column 'hgb_Great' is not in the file",
    ),
    "prefix matching nothing": (
        _copy("p.csv"),
        ["--proba-prefix", "xgb_"],
        r"no column starts with the --proba-prefix 'xgb_'",
    ),
    "wrong delimiter": (
        _copy("p.csv", lambda s: s.replace(",", ";")),
        [],
        r"columns found in .*'row;fold;.*split on ';' rather than ',': pass --delimiter ';'",
    ),
    "empty file": (_write("p.csv", b""), [], r"'.*p\.csv' is empty"),
    "blank file": (_write("p.csv", "\n\n"), [], r"is empty \(no header line\)"),
    "header only": (
        _copy("p.csv", lambda s: s.splitlines()[0] + "\n"),
        [],
        r"has a header but no rows",
    ),
    "non-numeric probability": (
        _edit(4, "hgb_Premium", "abc"),
        [],
        r"probability column 'hgb_Premium' of .* is not numeric: row 4 .* holds 'abc'",
    ),
    "non-numeric weight": (
        _edit(7, "weight", "heavy"),
        ["--weight", "weight"],
        r"weight column 'weight' .* is not numeric: row 7 .* holds 'heavy'",
    ),
    "unseen class": (
        _edit(3, "cut", "Superb"),
        [],
        r"values not in --labels: 'Superb' \(in row 3\)",
    ),
    "rows not summing to 1": (
        _edit(1, "hgb_Fair", "0.300741"),
        [],
        r"probability rows must sum to 1 .*row 1 sums to 1\.3",
    ),
    "missing probability": (
        _edit(2, "hgb_Good", ""),
        [],
        r"NaN in row 2\. Pass --nan-policy omit",
    ),
    "unknown metric": (
        _copy("p.csv"),
        ["--metrics", "rps,qwq"],
        r"unknown metric 'qwq'\. Did you mean 'qwk'\?",
    ),
    "unknown file type": (_copy("p.xlsx"), [], r"unknown file type '\.xlsx'"),
    "binary file named csv": (
        _write("p.csv", bytes(range(256)) * 8),
        [],
        r"is not a CSV file: it holds NUL bytes",
    ),
    "parquet file named csv": (_parquet_named_csv, [], r"is a Parquet file, not CSV"),
    "text file named parquet": (
        _copy("p.parquet"),
        [],
        r"is not a Parquet file: it lacks the PAR1 signature and looks like text",
    ),
    "not gzip": (_copy("p.csv.gz"), [], r"ends in \.gz but is not gzip-compressed"),
    "ragged rows": (
        _copy("p.csv", lambda s: s.replace("\n2,0,3,", "\n2,0,3,7,", 1)),
        [],
        r"could not parse .* as CSV with delimiter ','",
    ),
    "repeated column": (
        _copy("p.csv", lambda s: s.replace("row,fold,", "fold,fold,", 1)),
        [],
        r"has the column 'fold' more than once",
    ),
    "nonexistent file": (
        lambda tmp_path: tmp_path / "nope.csv",
        [],
        r"no such file: '.*nope\.csv'",
    ),
    "bad bootstrap": (
        _copy("p.csv"),
        ["--bootstrap", "1"],
        r"--bootstrap must be 0 .* or at least 2",
    ),
    "bad confidence": (
        _copy("p.csv"),
        ["--bootstrap", "5", "--confidence", "95"],
        r"--confidence must lie strictly between 0 and 1; got 95\. Pass a fraction, e\.g\. 0\.95",
    ),
    "too few labels": (
        _copy("p.csv"),
        ["--labels", "Fair,Good"],
        r"--labels lists 2 classes but there are 5 probability columns",
    ),
    "truth is the group": (_copy("p.csv"), ["--by", "cut"], r"--by contains the truth column"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line(case, tmp_path, capsys):
    make, extra, pattern = BAD_INPUTS[case]
    path = make(tmp_path)
    args = evaluate_args(path)
    if "--proba" in extra:
        args.remove("--proba-prefix")
        args.remove("hgb_")
    assert main([*args, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("ordmetrics: error: ")
    assert re.search(pattern, lines[0]), lines[0]


def test_string_truth_without_labels_asks_for_them(capsys):
    assert main(["evaluate", str(DATA), "--truth", "cut", "--proba-prefix", "hgb_"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "truth column 'cut' holds class names ('Ideal', 'Premium', 'Good', ...)" in err
    assert "--labels" in err and "5: hgb_Fair, hgb_Good" in err


def test_missing_required_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(DATA), "--truth", "cut"])
    assert exc.value.code == 2
    assert "--proba" in capsys.readouterr().err


def test_bad_input_in_a_subprocess_has_no_traceback(tmp_path):
    bad = tmp_path / "semi.csv"
    bad.write_text(DATA.read_text().replace(",", ";"))
    done = subprocess.run(
        [sys.executable, "-m", "ordmetrics", *evaluate_args(bad)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("ordmetrics: error: ") and "--delimiter ';'" in done.stderr


def test_a_bug_is_not_swallowed(monkeypatch):
    import ordmetrics.report.html

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(ordmetrics.report.html, "metric_table", broken)
    with pytest.raises(RuntimeError, match="boom"):
        main(evaluate_args())


# --------------------------------------------------------------------------------------------
# Progress bar
# --------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_on_a_terminal_only():
    tty = _Terminal()
    with progress(4, "bootstrap", stream=tty, delay=0.0, interval=0.0) as step:
        for _ in range(4):
            step()
    text = tty.getvalue()
    assert "bootstrap [" in text and "4/4" in text
    assert text.endswith("\r")  # the line is cleared at the end
    pipe = io.StringIO()
    with progress(4, "bootstrap", stream=pipe, delay=0.0, interval=0.0) as step:
        for _ in range(4):
            step()
    assert pipe.getvalue() == ""


def test_progress_waits_before_drawing():
    tty = _Terminal()
    with progress(3, "quick", stream=tty, delay=60.0) as step:
        step(3)
    assert tty.getvalue() == ""


# --------------------------------------------------------------------------------------------
# report, demo and the other subcommands
# --------------------------------------------------------------------------------------------


def test_report_command_writes_the_file(tmp_path, capsys):
    out = tmp_path / "r.html"
    args = ["report", str(DATA), *BASE, "--bootstrap", "10", "--out", str(out)]
    assert main([*args, "--by", "fold", "--title", "Folds"]) == 0
    assert capsys.readouterr().out.strip() == f"Report written to {out}"
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<title>Folds</title>" in text
    assert text.count('<img src="data:image/png;base64,') == 6  # 2 + 3 + 1


def test_report_without_matplotlib_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "r.html"
    assert main(["report", str(DATA), *BASE, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install ordmetrics[plot]" in err
    assert not out.exists()


def test_demo_prints_both_models_and_writes_the_report(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    for name in ordmetrics.DEFAULT_METRICS:
        assert f"\n{name} " in out
    assert "53,940" in out
    # The demo table holds the same numbers as the library.
    from ordmetrics.datasets import load_diamonds_cut

    for model in ("hgb", "logit"):
        ex = load_diamonds_cut(model)
        assert f"{ordmetrics.rps(ex.y_true, ex.y_proba, labels=ex.labels):.6f}" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("rps "))
    assert re.search(r"\[\d\.\d{6}, \d\.\d{6}\]", line)
    report = tmp_path / "ordmetrics-demo-report.html"
    assert f"written to {report}" in out
    text = report.read_text()
    assert text.count('<img src="data:image/png;base64,') == 10  # 2 + 2 x (3 + 1)
    assert "logit" in text  # the table of both models


def test_demo_without_matplotlib_prints_the_table_and_the_hint(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["demo", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "\nrps " in out and "pip install ordmetrics[plot]" in out
    assert not (tmp_path / "ordmetrics-demo-report.html").exists()


def test_list_shows_properties(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("sa_rps"))
    assert "minimize" in line and "[0, 1]" in line
    assert main(["list", "--kind", "scoring_rule"]) == 0


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_unknown_command_exits_2():
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_python_dash_m_runs():
    done = subprocess.run(
        [sys.executable, "-m", "ordmetrics", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert ordmetrics.__version__ in done.stdout


def test_metric_index_document_is_current(capsys):
    assert main(["index"]) == 0
    printed = capsys.readouterr().out
    doc = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
    assert doc.read_text() == printed, "regenerate: python -m ordmetrics index > docs/metrics.md"
    for name in ordmetrics.list_metrics():
        assert f"| `{name}` |" in printed


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("table", "evaluate.table.txt"), ("json", "evaluate.json"), ("csv", "evaluate.csv")],
)
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_streamed_evaluation_gives_the_golden_output(fmt, name, suffix, tmp_path, capsys):
    """--stream reads the file in batches through ordmetrics.files.evaluate_file."""
    source = GOLDEN / "predictions.csv"
    if suffix == ".csv":
        path = source
    elif suffix == ".csv.gz":
        path = tmp_path / "p.csv.gz"
        path.write_bytes(gzip.compress(source.read_bytes()))
    else:
        pq = pytest.importorskip("pyarrow.parquet")
        pacsv = pytest.importorskip("pyarrow.csv")
        path = tmp_path / "p.parquet"
        pq.write_table(pacsv.read_csv(source), path)
    args = [str(path) if a == str(DATA) else a for a in GOLDEN_ARGS]
    assert main([*args, "--format", fmt, "--stream"]) == 0
    assert same_output(capsys.readouterr().out, (GOLDEN / name).read_text())


def test_stream_rejects_nothing_it_would_accept_in_memory(capsys):
    assert main([*GOLDEN_ARGS, "--stream", "--metrics", "rps,nope"]) == 2
    assert "nope" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Regressions: probability columns named after the labels, infinities in the outputs, row
# sums, empty truth cells, options that did not combine, unclear messages
# --------------------------------------------------------------------------------------------

SEVERITY = "grade,p_severe,p_mild,p_moderate\n" + "\n".join(
    [
        "mild,0.1,0.7,0.2",
        "moderate,0.2,0.1,0.7",
        "severe,0.6,0.1,0.3",
        "mild,0.1,0.6,0.3",
        "moderate,0.3,0.2,0.5",
    ]
)
SEVERITY_LABELS = ["mild", "moderate", "severe"]


def _severity(tmp_path: Path) -> Path:
    path = tmp_path / "severity.csv"
    path.write_text(SEVERITY + "\n")
    return path


def _severity_arrays() -> tuple[list[str], np.ndarray]:
    rows = [line.split(",") for line in SEVERITY.splitlines()[1:]]
    y = [r[0] for r in rows]
    # columns in the order of the labels: mild, moderate, severe
    P = np.array([[float(r[2]), float(r[3]), float(r[1])] for r in rows])
    return y, P


def test_prefix_columns_named_after_labels_are_taken_in_label_order(tmp_path, capsys):
    """Header p_severe,p_mild,p_moderate: the columns are put in the order of --labels."""
    path = _severity(tmp_path)
    args = ["evaluate", str(path), "--truth", "grade", "--proba-prefix", "p_"]
    records = run_json(capsys, *args, "--labels", ",".join(SEVERITY_LABELS), "--metrics", "rps,qwk")
    y, P = _severity_arrays()
    want_rps = ordmetrics.rps(y, P, labels=SEVERITY_LABELS)
    # by hand: the cumulative squared errors of the rows, over K - 1 = 2
    forecast = np.cumsum(P, axis=1)[:, :-1]
    observed = np.cumsum(np.eye(3)[[SEVERITY_LABELS.index(v) for v in y]], axis=1)[:, :-1]
    by_hand = ((forecast - observed) ** 2).sum(axis=1).mean() / 2
    assert want_rps == pytest.approx(by_hand, rel=1e-12)
    got = {r["metric"]: r["estimate"] for r in records}
    assert got["rps"] == pytest.approx(want_rps, rel=1e-12)
    assert got["qwk"] == 1.0  # every argmax is the true class
    # --stream reads the same columns in the same order
    records = run_json(
        capsys, *args, "--labels", ",".join(SEVERITY_LABELS), "--metrics", "rps", "--stream"
    )
    assert records[0]["estimate"] == pytest.approx(want_rps, rel=1e-12)


@pytest.mark.parametrize(
    ("proba", "labels", "pattern"),
    [
        (
            ["--proba", "p_severe,p_mild,p_moderate"],
            "mild,moderate,severe",
            r"--proba lists the columns 'p_severe', 'p_mild', 'p_moderate', named after the "
            r"classes in another order than --labels .*p_mild,p_moderate,p_severe",
        ),
        (
            ["--proba-prefix", "p_"],
            "mild,moderate,grave",
            r"'p_mild', 'p_moderate' are named after classes of --labels .* but 'p_severe' "
            r"are not",
        ),
    ],
)
def test_columns_naming_labels_in_another_order_exit_2(tmp_path, capsys, proba, labels, pattern):
    path = _severity(tmp_path)
    args = ["evaluate", str(path), "--truth", "grade", *proba, "--labels", labels]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert re.search(pattern, err), err


def test_integer_suffixes_are_ordered_and_one_based_names_left_alone(tmp_path, capsys):
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]])
    y = [0, 1, 2, 1]
    want = ordmetrics.rps(y, P)
    shuffled = tmp_path / "shuffled.csv"
    lines = ["y,p2,p0,p1", *(f"{t},{r[2]},{r[0]},{r[1]}" for t, r in zip(y, P, strict=True))]
    shuffled.write_text("\n".join(lines) + "\n")
    one_based = tmp_path / "one_based.csv"
    lines = ["y,p1,p2,p3", *(f"{t},{r[0]},{r[1]},{r[2]}" for t, r in zip(y, P, strict=True))]
    one_based.write_text("\n".join(lines) + "\n")
    for path in (shuffled, one_based):
        args = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p", "--metrics", "rps"]
        assert run_json(capsys, *args)[0]["estimate"] == pytest.approx(want, rel=1e-12)


def test_json_and_csv_keep_infinity_apart_from_nan(tmp_path, capsys):
    """log loss of a zero probability on the true class is +inf; c_index of one class NaN."""
    path = tmp_path / "inf.csv"
    path.write_text("y,p0,p1\n0,0.0,1.0\n0,0.3,0.7\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1"]
    args += ["--metrics", "log_loss,c_index,rps", "--labels", "0,1"]
    records = run_json(capsys, *args)
    got = {r["metric"]: r["estimate"] for r in records}
    assert got["log_loss"] == "inf"
    assert got["c_index"] is None
    assert got["rps"] == pytest.approx((1.0 + 0.7**2) / 2, rel=1e-12)
    assert records[0]["low"] is None and records[0]["high"] is None
    assert main([*args, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "log_loss,inf,minimize,,"
    assert lines[2] == "c_index,nan,maximize,,"


def test_format_helpers_write_minus_infinity():
    rec = {"metric": "m", "estimate": -math.inf, "direction": "maximize", "low": math.nan}
    rec["high"] = math.inf
    out = json.loads(ordmetrics.report.cli.format_json([rec], []))[0]
    assert (out["estimate"], out["low"], out["high"]) == ("-inf", None, "inf")
    assert ordmetrics.report.cli.format_csv([rec], []).splitlines()[1] == "m,-inf,maximize,nan,inf"


def _rounded(tmp_path: Path, decimals: int = 6) -> tuple[Path, np.ndarray, np.ndarray]:
    """Probabilities rounded to ``decimals``: some rows sum to 1 +- a few 10^-decimals."""
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(5), size=400).round(decimals)
    y = rng.integers(0, 5, size=400)
    path = tmp_path / "rounded.csv"
    lines = [
        "y,p0,p1,p2,p3,p4",
        *(f"{t}," + ",".join(f"{v:.{decimals}f}" for v in r) for t, r in zip(y, P, strict=True)),
    ]
    path.write_text("\n".join(lines) + "\n")
    assert (np.abs(P.sum(axis=1) - 1) > 10.0**-decimals).any()
    return path, y, P


def test_rounded_file_fails_with_a_message_offering_the_options(tmp_path, capsys):
    path, _, _ = _rounded(tmp_path, decimals=4)  # 6 decimals pass by default
    assert main(["evaluate", str(path), "--truth", "y", "--proba-prefix", "p"]) == 2
    err = capsys.readouterr().err
    assert re.search(
        r"Pass --renormalize to rescale every row to sum 1, or --sum-tolerance TOL", err
    )


@pytest.mark.parametrize("option", [["--renormalize"], ["--sum-tolerance", "1e-5"]])
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_renormalize_and_sum_tolerance(tmp_path, capsys, option, stream):
    path, y, P = _rounded(tmp_path)
    args = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p", "--metrics", "rps,brier"]
    records = run_json(capsys, *args, *option, *stream)
    Q = P / P.sum(axis=1, keepdims=True)
    assert records[0]["estimate"] == pytest.approx(ordmetrics.rps(y, Q), rel=1e-12)
    assert records[1]["estimate"] == pytest.approx(ordmetrics.brier(y, Q), rel=1e-12)


def test_sum_tolerance_rejects_rows_beyond_it(tmp_path, capsys):
    path, _, _ = _rounded(tmp_path)
    args = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p", "--sum-tolerance", "1e-7"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert re.search(
        r"the probabilities of row \d+ sum to .* farther from 1 than --sum-tolerance 1e-07; "
        r"pass --renormalize",
        err,
    ), err
    assert main([*args[:-1], "2"]) == 2
    assert "--sum-tolerance must be a number in [0, 1)" in capsys.readouterr().err


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_empty_truth_cell_is_a_missing_value(tmp_path, capsys, stream):
    path = tmp_path / "empty.csv"
    path.write_text("y,p0,p1\na,0.6,0.4\n,0.5,0.5\nb,0.2,0.8\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1", "--labels", "a,b"]
    args += ["--metrics", "rps", *stream]
    want = ordmetrics.rps(["a", "b"], [[0.6, 0.4], [0.2, 0.8]], labels=["a", "b"])
    assert run_json(capsys, *args, "--nan-policy", "omit")[0]["estimate"] == pytest.approx(
        want, rel=1e-12
    )
    assert main(args) == 2
    err = capsys.readouterr().err
    assert re.search(r"the truth column is missing in row 1\. Pass --nan-policy omit", err), err


def test_stream_with_bootstrap_exits_2(capsys):
    assert main([*GOLDEN_ARGS, "--stream", "--bootstrap", "10"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"--stream reads the file in batches and computes no bootstrap intervals", err)


def test_list_unknown_kind_exits_2_listing_the_kinds(capsys):
    assert main(["list", "--kind", "foo"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert re.search(
        r"--kind must be one of scoring_rule, agreement, calibration, ranking, retention; "
        r"got 'foo'",
        captured.err,
    )


def test_list_metrics_unknown_kind_raises():
    with pytest.raises(ValueError, match=r"kind must be one of 'scoring_rule', .*got 'nope'"):
        ordmetrics.list_metrics("nope")
    assert ordmetrics.list_metrics("ranking")


def test_boolean_truth_with_false_true_labels(tmp_path, capsys):
    path = tmp_path / "bool.csv"
    path.write_text("y,p_no,p_yes\nTrue,0.2,0.8\nFalse,0.7,0.3\nTrue,0.4,0.6\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p_no,p_yes", "--metrics", "rps"]
    want = ordmetrics.rps([1, 0, 1], [[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]])
    got = run_json(capsys, *args, "--labels", "False,True")[0]["estimate"]
    assert got == pytest.approx(want, rel=1e-12)
    assert main([*args, "--labels", "no,yes"]) == 2
    assert re.search(
        r"truth column 'y' holds True/False, so --labels must be False,True",
        capsys.readouterr().err,
    )


def test_unwritable_out_is_checked_before_the_work(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from ordmetrics.report import html as report

    def never(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("the report was computed before --out was checked")

    monkeypatch.setattr(report, "write_report", never)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    target = locked / "r.html"
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: use a path under a file
            target = DATA / "r.html"
        args = ["report", str(DATA), *BASE, "--bootstrap", "1000", "--out", str(target)]
        assert main(args) == 2
    finally:
        locked.chmod(0o700)
    err = capsys.readouterr().err
    assert re.search(r"cannot write the report to .*r\.html", err), err
    assert not target.exists()


def test_existing_out_is_left_as_it_is_by_the_check(tmp_path):
    out = tmp_path / "r.html"
    out.write_text("old")
    assert ordmetrics.report.cli_input._check_out(str(out)) == out
    assert out.read_text() == "old"
    new = tmp_path / "new.html"
    ordmetrics.report.cli_input._check_out(str(new))
    assert not new.exists()


def test_infinite_log_loss_bootstrap_gives_no_numpy_warning(tmp_path, capsys):
    path = tmp_path / "inf.csv"
    path.write_text("y,p0,p1\n0,0.0,1.0\n1,0.3,0.7\n0,0.6,0.4\n1,0.1,0.9\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1", "--metrics", "log_loss"]
    records = run_json(capsys, *args, "--bootstrap", "50")
    err = capsys.readouterr().err
    assert "invalid value" not in err
    assert records[0]["estimate"] == "inf"
    assert records[0]["high"] == "inf"


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--seed", "-3"], r"--seed must be a non-negative integer; got -3\."),
        (
            ["--confidence", "2"],
            r"--confidence must lie strictly between 0 and 1; got 2\. Pass a fraction, e\.g\. "
            r"0\.95 for 95% intervals\.",
        ),
        (["--confidence", "90"], r"got 90\. Pass a fraction, e\.g\. 0\.9 for 90%\."),
    ],
)
def test_messages_name_the_options(extra, pattern, capsys):
    assert main([*GOLDEN_ARGS, *extra]) == 2
    err = capsys.readouterr().err
    assert re.search(pattern, err), err
    assert "random_state" not in err and "n_resamples" not in err


def test_core_argument_names_are_worded_as_options():
    msg = ordmetrics.report.cli.error_message(
        ValueError("n_resamples must be at most 10; random_state must be None; confidence_level")
    )
    assert msg == "--bootstrap must be at most 10; --seed must be None; --confidence"


def test_two_megabyte_field_is_read(tmp_path, capsys):
    """A field longer than pyarrow's 1 MiB block: the file is read in one block."""
    path = tmp_path / "long.csv"
    note = "x" * (2 << 20)
    path.write_text(f"y,p0,p1,note\n0,0.6,0.4,{note}\n1,0.3,0.7,short\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1", "--metrics", "rps"]
    got = run_json(capsys, *args)[0]["estimate"]
    assert got == pytest.approx(ordmetrics.rps([0, 1], [[0.6, 0.4], [0.3, 0.7]]), rel=1e-12)


def test_huge_bootstrap_is_rejected_before_reading(capsys, monkeypatch):
    from ordmetrics.report import cli_input

    def never(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("the file was read before --bootstrap was checked")

    monkeypatch.setattr(cli_input, "read_table", never)
    assert main([*GOLDEN_ARGS, "--bootstrap", str(10**12)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"--bootstrap must be at most [\d,]+ resamples; got 1,000,000,000,000\.", err)


def test_renormalize_leaves_missing_and_infinite_rows_to_the_metrics(tmp_path, capsys):
    path = tmp_path / "odd.csv"
    path.write_text("y,p0,p1\n0,0.5,0.6\n1,,0.5\n0,inf,0.1\n")
    args = ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1", "--metrics", "rps"]
    assert main([*args, "--renormalize", "--nan-policy", "omit"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"(?i)\binf", err), err
    path.write_text("y,p0,p1\n0,0.5,0.6\n1,,0.5\n0,0.0,0.0\n")
    assert main([*args, "--renormalize", "--nan-policy", "omit"]) == 2
    err = capsys.readouterr().err
    assert "the probabilities of row 2 sum to 0, which cannot be rescaled to sum 1" in err
    path.write_text("y,p0,p1\n0,0.5,0.6\n1,,0.5\n")
    got = run_json(capsys, *args, "--renormalize", "--nan-policy", "omit")[0]["estimate"]
    assert got == pytest.approx(ordmetrics.rps([0], [[0.5 / 1.1, 0.6 / 1.1]]), rel=1e-12)


def test_the_parsers_static_choices_are_the_cores():
    """The parser is built without importing the core (``--help`` starts at once): its
    choices of --nan-policy and --decision are the core's own."""
    from ordmetrics._core.options import NAN_POLICIES
    from ordmetrics.metrics.decisions import RULES
    from ordmetrics.report import cli

    assert cli.NAN_POLICIES == NAN_POLICIES
    assert cli.DECISION_RULES == RULES
    parser = cli.build_parser()
    evaluate = parser._subparsers._group_actions[0].choices["evaluate"]
    choices = {a.dest: a.choices for a in evaluate._actions if a.choices}
    assert choices["nan_policy"] == NAN_POLICIES and choices["decision"] == RULES
