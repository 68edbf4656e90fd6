"""A base install (no pandas, polars or pyarrow): the standard-library CSV reader of
``ordmetrics.io.delimited`` and the metric table computed without a data-frame library.

The reader's columns are checked against pandas' reading of the same files, and the metric
table of a :class:`~ordmetrics.io.delimited.ColumnTable` against
:func:`ordmetrics.report.html.metric_table` of a pandas frame (the independent computation
through a data frame). The command line is run in a subprocess in which pandas, polars,
pyarrow (and matplotlib) cannot be imported
(``sys.modules[name] = None``), as on ``pip install ordmetrics`` without extras. A real
virtual environment with the base install only is built by ``make base-install-check``.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ordmetrics.datasets import example_path
from ordmetrics.io import delimited as _csv
from ordmetrics.io import readers as _io
from ordmetrics.io.delimited import ColumnTable, metric_table, read_csv

pd = pytest.importorskip("pandas")
report = pytest.importorskip("ordmetrics.report.html")

#: pandas' correctly rounded reading of decimals (the default from pandas 3 on)
ROUND_TRIP = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
GOLDEN = Path(__file__).resolve().parent / "golden"
LABELS = ("Fair", "Good", "Very Good", "Premium", "Ideal")
BASE = ["--truth", "cut", "--proba-prefix", "hgb_", "--labels", ",".join(LABELS)]

#: Run the command line with the data-frame libraries (and matplotlib) unimportable.
BLOCKED = """
import sys
for name in ("pandas", "polars", "pyarrow", "matplotlib"):
    sys.modules[name] = None
from ordmetrics.report.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_blocked(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKED, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def close(a: float | None, b: float | None, rel: float = 1e-12) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


def same_records(got: list[dict], want: list[dict]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert set(g) == set(w)
        for k in g:
            if k in ("estimate", "low", "high"):
                assert close(g[k], w[k]), (k, g, w)
            else:
                assert g[k] == w[k] or (_missing(g[k]) and _missing(w[k])), (k, g, w)


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# --------------------------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------------------------


def read(text: str, delimiter: str = ",") -> ColumnTable:
    return read_csv(io.BytesIO(text.encode()), delimiter, "t.csv")


def test_reader_types_and_missing_values():
    t = read('i,f,m,s,sm,e\n1,0.1,3,a,x,1e-3\n-2,2,,"b, c",,-inf\n3,.5,NA,"say ""hi""",NaN,1E+2\n')
    assert t.column_names == ["i", "f", "m", "s", "sm", "e"]
    assert t.num_rows == 3
    assert t["i"].dtype == np.int64 and t["i"].tolist() == [1, -2, 3]
    assert t["f"].dtype == np.float64 and t["f"].tolist() == [0.1, 2.0, 0.5]
    # an integer column with a missing value is float64 with NaN, as pandas reads it
    assert t["m"].dtype == np.float64 and t["m"][0] == 3 and np.isnan(t["m"][1:]).all()
    assert t["s"].tolist() == ["a", "b, c", 'say "hi"']
    assert t["sm"].tolist() == ["x", None, None]
    assert t["e"].tolist() == [1e-3, -math.inf, 100.0]


def test_reader_rejects_what_float_would_accept_but_csv_readers_do_not():
    # Python's float() takes "1_0" and " 1"; pyarrow and pandas read them as text
    t = read("a,b\n1_0,1\n2, 3\n")
    assert t["a"].dtype == object and t["a"].tolist() == ["1_0", "2"]
    assert t["b"].dtype == object


def test_reader_dates_signs_and_wide_integers():
    t = read("d,s,big\n2020-01-02,+1,1234567890123456789012\n2021-03-04,-2,1\n")
    assert t["d"].tolist() == ["2020-01-02", "2021-03-04"]  # digits and '-' but no number
    assert t["s"].dtype == np.int64 and t["s"].tolist() == [1, -2]
    # beyond int64: a float, as pyarrow reads it
    assert t["big"].dtype == np.float64 and t["big"].tolist() == [1.234567890123456789012e21, 1.0]


def test_reader_matches_pandas_on_the_example():
    data = gzip.decompress(example_path().read_bytes())
    t = read_csv(io.BytesIO(data), ",", example_path())
    df = pd.read_csv(io.BytesIO(data), **ROUND_TRIP)
    assert t.column_names == list(df.columns)
    assert t.num_rows == len(df) == 53940
    for c in df.columns:
        want = df[c].to_numpy()
        if want.dtype == object:
            assert t[c].tolist() == want.tolist()
        else:
            assert t[c].dtype == want.dtype
            np.testing.assert_array_equal(t[c], want)  # the same doubles, bit for bit


def test_reader_matches_pandas_on_random_decimals():
    rng = np.random.default_rng(3)
    x = rng.random(3000) * 10.0 ** rng.integers(-12, 12, 3000)
    text = "x,y\n" + "".join(f"{v!r},{v:.17g}\n" for v in x) + "1.7976931348623157e308,5e-324\n"
    t = read(text)
    df = pd.read_csv(io.StringIO(text), **ROUND_TRIP)
    np.testing.assert_array_equal(t["x"], df["x"].to_numpy())
    np.testing.assert_array_equal(t["y"], df["y"].to_numpy())


def test_reader_skips_blank_lines_and_reads_other_delimiters():
    t = read("a;b\n\n1;x\n\n2;y\n", ";")
    assert t["a"].tolist() == [1, 2] and t["b"].tolist() == ["x", "y"]
    t = read("a\tb\r\n1\t2\r\n", "\t")
    assert t["b"].tolist() == [2]


def test_reader_header_only_gives_empty_columns():
    t = read("a,b\n")
    assert t.num_rows == 0 and t.column_names == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("a,b\n1,2\n3\n", r"row 1 \(counted from 0 after the header\) has 1 fields, the header 2"),
        ("a,b\n1,2,3\n", r"row 0 \(counted from 0 after the header\) has 3 fields, the header 2"),
        ("", r"is empty \(no header line\)"),
    ],
)
def test_reader_errors(text, match):
    with pytest.raises(_io.InputError, match=match):
        read(text)


def test_reader_rejects_text_that_is_not_utf8():
    with pytest.raises(_io.InputError, match=r"not UTF-8 text \(byte 0xe9 at offset 4\)"):
        read_csv(b"a,b\n\xe9,1\n", ",", "t.csv")


def test_read_table_falls_back_when_no_frame_library(tmp_path, monkeypatch):
    p = tmp_path / "f.csv.gz"
    p.write_bytes(gzip.compress(b"\xef\xbb\xbfa,b\n1,x\n2,y\n"))
    monkeypatch.setattr(_io.importlib.util, "find_spec", lambda name, *a: None)
    t = _io.read_table(p)
    assert isinstance(t, ColumnTable)
    assert t.column_names == ["a", "b"]  # the byte-order mark is not part of the name
    empty = tmp_path / "e.csv"
    empty.write_text("a,b\n")
    with pytest.raises(_io.InputError, match="has a header but no rows"):
        _io.read_table(empty)
    dup = tmp_path / "d.csv"
    dup.write_text("a,a\n1,2\n")
    with pytest.raises(_io.InputError, match="column 'a' more than once"):
        _io.read_table(dup)


def test_column_table_checks_its_columns():
    with pytest.raises(ValueError, match=r"equal lengths; got \[1, 2\] rows"):
        ColumnTable({"a": [1], "b": [1, 2]})
    with pytest.raises(ValueError, match=r"column 'a' must be one-dimensional"):
        ColumnTable({"a": [[1, 2]]})


def test_check_numeric_names_the_value():
    t = read("p,q\n0.5,x\n0.5,\n")
    _csv.check_numeric(t, ["p"], "probability", "f.csv")
    with pytest.raises(_io.InputError, match=r"column 'q' of 'f.csv' is not numeric: row 0"):
        _io.check_numeric(t, ["q"], "probability", "f.csv")


# --------------------------------------------------------------------------------------------
# The metric table without a data frame, against the data-frame path
# --------------------------------------------------------------------------------------------


def frame_and_table(df: pd.DataFrame) -> tuple[pd.DataFrame, ColumnTable]:
    """The frame and the table both read from the same CSV text."""
    text = df.to_csv(index=False)
    back = pd.read_csv(io.StringIO(text), **ROUND_TRIP)
    return back, read(text)


def random_predictions(n: int, k: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), n)
    df = pd.DataFrame({f"p{j}": P[:, j] for j in range(k)})
    df.insert(0, "grade", rng.integers(0, k, n))
    df["site"] = rng.choice(["north", "south", "east"], n)
    df["year"] = rng.integers(2020, 2023, n)
    df["w"] = rng.random(n) * 3
    return df


@pytest.mark.parametrize("n_resamples", [0, 30])
def test_metric_table_matches_the_frame_path_with_groups_and_weights(n_resamples):
    # 5,000 rows: beyond the kernels' blocks; two group columns
    df, table = frame_and_table(random_predictions(5000, 4, seed=1))
    kw = dict(
        truth="grade",
        proba="p",
        by=["site", "year"],
        sample_weight="w",
        n_resamples=n_resamples,
        random_state=7,
    )
    got = metric_table(table, **kw)
    want = report.metric_table(df, **kw)
    assert len(got) == 3 * 3 * 10
    same_records(got, want)


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")  # c_index, tiny group
def test_metric_table_string_truth_missing_values_and_missing_group():
    df = random_predictions(2600, 3, seed=2)
    names = np.array(["low", "mid", "high"])
    df["grade"] = names[df["grade"].to_numpy()]
    df.loc[[5, 17], "grade"] = None
    df.loc[[3, 40, 41], "p1"] = np.nan
    df.loc[[8, 9, 100], "site"] = None
    df, table = frame_and_table(df)
    assert table["site"][8] is None
    kw = dict(
        truth="grade",
        proba=["p0", "p1", "p2"],
        by="site",
        labels=["low", "mid", "high"],
        nan_policy="omit",
        metrics=["rps", "log_loss", ("qwk", {"decision": "median"}), "c_index"],
        n_resamples=20,
    )
    got = metric_table(table, **kw)
    want = report.metric_table(df, **kw)
    # groups in order of first appearance; omit drops the rows without a site
    assert None not in [r["site"] for r in got[::4]] and len(got) == 3 * 4
    kw["nan_policy"] = "propagate"  # keeps them as a group of their own
    got = metric_table(table, **kw)
    want = report.metric_table(df, **kw)
    assert None in [r["site"] for r in got[::4]] and len(got) == 4 * 4
    same_records(got, want)
    kw["nan_policy"] = "raise"
    with pytest.raises(ValueError, match=r"by column 'site' is missing \(NaN/None\) in row 8 "):
        metric_table(table, **kw)
    with pytest.raises(ValueError, match=r"by column 'site' is missing \(NaN/None\) in row 8 "):
        report.metric_table(df, **kw)
    kw["nan_policy"] = "omit"
    got = metric_table(table, **kw)
    want = report.metric_table(df, **kw)
    same_records(got, want)


def test_metric_table_delegates_data_frames():
    """The report's metric_table takes both: a ColumnTable goes to the base-install path here
    (io sits below report, so the dispatch lives in the report and a frame is refused here)."""
    df = random_predictions(50, 3, seed=4)
    frame, table = frame_and_table(df)
    same_records(
        report.metric_table(table, truth="grade", proba="p", metrics=["rps"]),
        report.metric_table(frame, truth="grade", proba="p", metrics=["rps"]),
    )
    same_records(
        report.metric_table(table, truth="grade", proba="p", metrics=["rps"]),
        metric_table(table, truth="grade", proba="p", metrics=["rps"]),
    )
    with pytest.raises(
        TypeError, match=r"Data frames go to ordmetrics\.report\.html\.metric_table"
    ):
        metric_table(df, truth="grade", proba="p", metrics=["rps"])


def test_metric_table_errors_name_the_argument_and_group():
    _, table = frame_and_table(random_predictions(30, 3, seed=5))
    with pytest.raises(ValueError, match=r"truth column 'grad' is not in data"):
        metric_table(table, truth="grad", proba="p")
    with pytest.raises(ValueError, match=r"n_resamples must be 0 \(no intervals\) or at least 2"):
        metric_table(table, truth="grade", proba="p", n_resamples=1)
    bad = ColumnTable({**{c: table[c] for c in table}, "p0": table["site"]})
    with pytest.raises(TypeError, match=r"proba column 'p0' must be numeric; it holds text"):
        metric_table(bad, truth="grade", proba="p")
    with pytest.raises(ValueError, match=r"labels") as info:
        metric_table(table, truth="grade", proba="p", by="site", labels=["a", "b", "c"])
    if sys.version_info >= (3, 11):  # exception notes
        assert any("in the group site=" in n for n in info.value.__notes__)


# --------------------------------------------------------------------------------------------
# The command line with pandas, polars and pyarrow unimportable
# --------------------------------------------------------------------------------------------


def test_cli_evaluate_without_frame_library_matches_golden():
    args = ["evaluate", str(GOLDEN / "predictions.csv"), *BASE, "--by", "fold"]
    args += ["--weight", "weight", "--format", "json"]
    proc = run_blocked(*args)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    want = json.loads((GOLDEN / "evaluate.json").read_text())
    same_records(got, want)


def test_cli_evaluate_without_frame_library_bad_input_exits_2(tmp_path):
    p = tmp_path / "p.csv"
    p.write_text("cut,hgb_a,hgb_b\nx,0.5,0.5\ny,0.5,oops\n")
    proc = run_blocked("evaluate", str(p), "--truth", "cut", "--proba-prefix", "hgb_")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"ordmetrics: error: probability column 'hgb_b' of {str(p)!r} is not numeric: row 1 "
        "(counted from 0 after the header) holds 'oops'."
    )
    p.write_text("cut,hgb_a,hgb_b\nx,0.5,0.5\n")
    proc = run_blocked("evaluate", str(p), "--truth", "cut", "--proba-prefix", "hgb_")
    assert proc.returncode == 2
    assert "holds class names ('x'); give their ordinal order with --labels" in proc.stderr


def test_cli_demo_without_frame_library_prints_the_table(tmp_path):
    proc = run_blocked("demo", "--bootstrap", "0", "--out", str(tmp_path / "r.html"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "metric         direction" in out and "c_index" in out
    assert out.strip().splitlines()[-1] == (
        "The HTML report needs matplotlib: install it with `pip install ordmetrics[plot]` and "
        "run `ordmetrics demo` again."
    )
    assert not (tmp_path / "r.html").exists()
    # the same numbers as the data-frame path
    frame = pd.read_csv(example_path())
    long = pd.concat(
        [
            frame[["cut", *(f"{m}_{c.replace(' ', '_')}" for c in LABELS)]]
            .set_axis(["cut", *(f"p_{j}" for j in range(5))], axis=1)
            .assign(model=m)
            for m in ("hgb", "logit")
        ]
    )
    want = report.metric_table(long, truth="cut", proba="p_", labels=list(LABELS), by="model")
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:1].islower()}
    for rec in want:
        cells = rows[rec["metric"]]
        column = 2 if rec["model"] == "hgb" else 3  # metric, direction, hgb, logit, best
        assert float(cells[column]) == pytest.approx(rec["estimate"], abs=5e-7)


def test_cli_stream_without_pyarrow_names_the_extra():
    proc = run_blocked("evaluate", str(GOLDEN / "predictions.csv"), *BASE, "--stream")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "ordmetrics: error: --stream reads the file in batches with pyarrow, which is not "
        "installed; install it with `pip install ordmetrics[parquet]`, or leave out --stream."
    )


def test_cli_report_without_frame_library_names_the_extra(tmp_path):
    script = BLOCKED.replace('"matplotlib"', '"_no_such_module"')
    proc = subprocess.run(
        [sys.executable, "-c", script, "report", str(GOLDEN / "predictions.csv"), *BASE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "ordmetrics: error: ordmetrics report needs a data-frame library (pyarrow, pandas or "
        "polars) and none is installed; install pyarrow with `pip install ordmetrics[parquet]`."
    )
