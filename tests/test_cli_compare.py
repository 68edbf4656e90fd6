"""The command line: ``ordmetrics compare``, input from standard input (``-``), the progress
bar's resample count and time left, and the notice when the kernels compile.

The numbers of ``compare`` are checked against the Python API (:func:`ordmetrics.compare` and
:func:`ordmetrics.bootstrap` with the same seed), against ``ordmetrics evaluate`` (the
per-model estimates and intervals), and the p-values and intervals of the differences against
a brute-force recomputation from the resampled differences. The bundled example (53,940 rows)
is past every internal block and chunk size (1,024 rows; 2^22 row indices per chunk of
resamples, 77 resamples at this size, so 100 resamples take two chunks).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
from ordmetrics._core import jit as _jit
from ordmetrics._core import progress as _progress
from ordmetrics.datasets import CUT_LABELS, example_path, load_diamonds_cut
from ordmetrics.report import cli, cli_compare
from ordmetrics.report.cli import main

LABELS = list(CUT_LABELS)
LABEL_ARG = ",".join(LABELS)
COLS = {m: [f"{m}_{c.replace(' ', '_')}" for c in LABELS] for m in ("hgb", "logit")}
GOLDEN = Path(__file__).resolve().parent / "golden" / "predictions.csv"
_T = ["--truth", "cut", "--labels", LABEL_ARG]
REL = 1e-12  # the same computation in the same order: equal up to the last bits at most


class _Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _rows(n: int) -> list[list[str]]:
    """The header and the first ``n`` rows of the bundled example, as text."""
    with gzip.open(example_path(), "rt", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        return [next(reader) for _ in range(n + 1)]


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """The first 300 rows of the example, both models, with a weight column."""
    rows = _rows(300)
    rows[0].append("w")
    for i, r in enumerate(rows[1:]):
        r.append(str(1 + i % 3))
    return _write(tmp_path_factory.mktemp("cmp") / "small.csv", rows)


def _arrays(path: Path):
    """truth, {model: P}, weight of a file written by ``_write`` (exact decimal parsing)."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    col = {c: i for i, c in enumerate(head)}
    y = np.array([r[col["cut"]] for r in body])
    P = {m: np.array([[float(r[col[c]]) for c in cols] for r in body]) for m, cols in COLS.items()}
    w = np.array([float(r[col["w"]]) for r in body]) if "w" in col else None
    return y, P, w


def run(capsys, *args: str) -> dict:
    assert main(["compare", *args, "--format", "json"]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def base(path: Path | str, *extra: str) -> list[str]:
    return [str(path), "--truth", "cut", "--labels", LABEL_ARG, "--models", "hgb_,logit_", *extra]


def _check_difference(rec: dict, res, B: int) -> None:
    assert rec["difference"] == pytest.approx(res.difference, rel=REL, abs=1e-15)
    assert rec["low"] == pytest.approx(res.low, rel=REL, abs=1e-15)
    assert rec["high"] == pytest.approx(res.high, rel=REL, abs=1e-15)
    assert rec["p_value"] == res.p_value
    # brute force from the resampled differences: the interval that inverts the p-value (the
    # m-th smallest and largest, m = #{n : 2 (n + 1) / (B + 1) < 0.05}) and the p-value
    d = res.distribution
    m = sum(1 for n in range(B + 1) if 2 * (n + 1) / (B + 1) < 0.05)
    lo, hi = np.sort(d)[m - 1], np.sort(d)[B - m]
    assert rec["low"] == pytest.approx(lo, rel=1e-9, abs=1e-12)
    assert rec["high"] == pytest.approx(hi, rel=1e-9, abs=1e-12)
    below = sum(1 for v in d if v <= 0)
    above = sum(1 for v in d if v >= 0)
    assert rec["p_value"] == pytest.approx(min(1.0, 2 * (1 + min(below, above)) / (B + 1)))


# --------------------------------------------------------------------------------------------
# compare: the numbers
# --------------------------------------------------------------------------------------------


def test_compare_equals_the_python_api(small, capsys):
    B, seed = 200, 7
    out = run(
        capsys,
        *base(
            small,
            "--metrics",
            "rps,log_loss,qwk",
            "--bootstrap",
            str(B),
            "--seed",
            str(seed),
            "--weight",
            "w",
        ),
    )
    y, P, w = _arrays(small)
    assert out["rows"] == 300 and out["rows_left_out"] == 0 and out["baseline"] == "hgb"
    assert out["models"] == [{"model": m, "columns": COLS[m]} for m in ("hgb", "logit")]
    assert (out["n_resamples"], out["seed"], out["confidence_level"]) == (B, seed, 0.95)
    x = dict(P)
    for rec in out["comparisons"]:
        name = rec["metric"]
        if name == "qwk":
            x = {m: ordmetrics.decide(P[m], "argmax", labels=LABELS) for m in P}
        else:
            x = P
        res = ordmetrics.compare(
            name,
            y,
            x["logit"],
            x["hgb"],
            n_resamples=B,
            random_state=seed,
            labels=LABELS,
            sample_weight=w,
        )
        assert (rec["model"], rec["baseline"]) == ("logit", "hgb")
        assert rec["estimate"] == pytest.approx(res.estimate_a, rel=REL)
        assert rec["baseline_estimate"] == pytest.approx(res.estimate_b, rel=REL)
        _check_difference(rec, res, B)
        want = {"a": "logit", "b": "hgb", None: None}[res.better]
        assert rec["better"] == want
    for rec in out["metrics"]:
        x = P
        if rec["metric"] == "qwk":
            x = {m: ordmetrics.decide(P[m], "argmax", labels=LABELS) for m in P}
        res = ordmetrics.bootstrap(
            rec["metric"],
            y,
            x[rec["model"]],
            n_resamples=B,
            random_state=seed,
            labels=LABELS,
            sample_weight=w,
        )
        assert rec["estimate"] == pytest.approx(res.estimate, rel=REL)
        assert rec["low"] == pytest.approx(res.low, rel=REL)
        assert rec["high"] == pytest.approx(res.high, rel=REL)


def tmp_wrong_share(y_true, y_pred, *, labels=None, sample_weight=None, nan_policy="raise"):
    """A metric of decisions, of a kind no front knows: the weighted share of wrong classes."""
    wrong = np.asarray(y_true).astype(object) != np.asarray(y_pred).astype(object)
    w = np.ones(wrong.size) if sample_weight is None else np.asarray(sample_weight, float)
    return float(np.sum(w * wrong) / np.sum(w))


def test_compare_gives_a_new_kind_the_input_its_spec_names(small, capsys):
    """A metric of a new kind with ``input="decisions"`` is compared on the decided classes."""
    from ordmetrics._core.registry import register, unregister

    spec = register(
        tmp_wrong_share, direction="minimize", range=(0, 1), kind="tmp_votes", input="decisions"
    )
    try:
        B, seed = 60, 4
        args = ["--metrics", spec.name, "--bootstrap", str(B), "--seed", str(seed)]
        out = run(capsys, *base(small, *args, "--decision", "median"))
        y, P, _ = _arrays(small)
        x = {m: ordmetrics.decide(P[m], "median", labels=LABELS) for m in P}
        kw = {"n_resamples": B, "random_state": seed, "labels": LABELS}
        (rec,) = out["comparisons"]
        res = ordmetrics.compare(spec.name, y, x["logit"], x["hgb"], **kw)
        _check_difference(rec, res, B)
        for rec in out["metrics"]:
            one = ordmetrics.bootstrap(spec.name, y, x[rec["model"]], **kw)
            assert (rec["estimate"], rec["low"], rec["high"]) == pytest.approx(
                (one.estimate, one.low, one.high), rel=REL
            )
    finally:
        unregister(spec.name)


def test_every_default_metric_of_each_model_is_that_of_evaluate(small, capsys):
    """The per-model records (all default metrics, intervals) are those of `evaluate`."""
    out = run(capsys, *base(small, "--bootstrap", "50", "--seed", "3"))
    for model in ("hgb", "logit"):
        assert (
            main(
                [
                    "evaluate",
                    str(small),
                    "--truth",
                    "cut",
                    "--labels",
                    LABEL_ARG,
                    "--proba-prefix",
                    f"{model}_",
                    "--bootstrap",
                    "50",
                    "--seed",
                    "3",
                    "--format",
                    "json",
                ]
            )
            == 0
        )
        want = json.loads(capsys.readouterr().out)
        got = [r for r in out["metrics"] if r["model"] == model]
        assert [r["metric"] for r in got] == [r["metric"] for r in want]
        assert len(got) == 10
        for g, e in zip(got, want, strict=True):
            assert g["direction"] == e["direction"]
            for key in ("estimate", "low", "high"):
                assert g[key] == pytest.approx(e[key], rel=1e-12, abs=1e-15), (g, key)
    pairs = out["comparisons"]
    assert len(pairs) == 10
    for p in pairs:  # the difference is the model's estimate minus the baseline's
        assert p["difference"] == pytest.approx(p["estimate"] - p["baseline_estimate"], rel=1e-12)


def test_compare_on_the_whole_example_past_every_chunk(capsys):
    """53,940 rows, 100 resamples (two chunks of resamples), against the Python API."""
    B = 100
    out = run(capsys, *base(example_path(), "--metrics", "rps,qwk", "--bootstrap", str(B)))
    assert out["rows"] == 53_940
    a, b = load_diamonds_cut("logit"), load_diamonds_cut("hgb")
    for rec in out["comparisons"]:
        xa, xb = a.y_proba, b.y_proba
        if rec["metric"] == "qwk":
            xa = ordmetrics.decide(xa, "argmax", labels=LABELS)
            xb = ordmetrics.decide(xb, "argmax", labels=LABELS)
        res = ordmetrics.compare(
            rec["metric"], b.y_true, xa, xb, n_resamples=B, random_state=0, labels=LABELS
        )
        _check_difference(rec, res, B)
        assert rec["better"] == "hgb"  # the trees are better on both metrics
        assert rec["p_value"] == pytest.approx(2 / (B + 1))  # no resample the other way


def test_the_three_formats_hold_the_same_numbers(small, capsys, tmp_path):
    args = base(small, "--metrics", "rps,qwk", "--bootstrap", "30")
    out = run(capsys, *args)
    assert main(["compare", *args, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == list(cli.COMPARE_CSV_COLUMNS)
    metric_rows = [r for r in rows if r["kind"] == "metric"]
    diff_rows = [r for r in rows if r["kind"] == "difference"]
    assert len(metric_rows) == 4 and len(diff_rows) == 2
    for r, j in zip(metric_rows, out["metrics"], strict=True):
        assert (r["model"], r["metric"]) == (j["model"], j["metric"])
        assert float(r["estimate"]) == j["estimate"] and float(r["low"]) == j["low"]
    for r, j in zip(diff_rows, out["comparisons"], strict=True):
        assert float(r["estimate"]) == j["difference"] and float(r["p_value"]) == j["p_value"]
        assert r["better"] == (j["better"] or "") and r["baseline"] == "hgb"
    assert main(["compare", *args]) == 0
    table = capsys.readouterr().out
    assert "Paired differences (model - baseline" in table
    for j in out["comparisons"]:
        assert f"{j['difference']:.6f}" in table and f"{j['p_value']:.4f}" in table
    # --out writes the same text to a file, nothing on stdout
    target = tmp_path / "cmp.json"
    assert main(["compare", *args, "--format", "json", "--out", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text()) == out


def test_column_lists_and_names_equal_the_prefixes(small, capsys):
    by_prefix = run(capsys, *base(small, "--metrics", "rps", "--bootstrap", "20"))
    named = run(
        capsys,
        str(small),
        "--truth",
        "cut",
        "--labels",
        LABEL_ARG,
        "--metrics",
        "rps",
        "--bootstrap",
        "20",
        "--model",
        "hgb=" + ",".join(COLS["hgb"]),
        "--model",
        "logit=" + ",".join(COLS["logit"]),
    )
    assert named == by_prefix
    unnamed = run(
        capsys,
        str(small),
        "--truth",
        "cut",
        "--labels",
        LABEL_ARG,
        "--metrics",
        "rps",
        "--bootstrap",
        "20",
        "--model",
        ",".join(COLS["hgb"]),
        "--model",
        ",".join(COLS["logit"]),
    )
    assert [m["model"] for m in unnamed["models"]] == ["model1", "model2"]
    assert unnamed["comparisons"][0]["difference"] == by_prefix["comparisons"][0]["difference"]
    renamed = run(
        capsys,
        str(small),
        *_T,
        "--models",
        "trees=hgb_,linear=logit_",
        "--metrics",
        "rps",
        "--bootstrap",
        "20",
    )
    assert [m["model"] for m in renamed["models"]] == ["trees", "linear"]


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    """200 rows, three models: hgb, logit and a uniform one (u_)."""
    rows = _rows(200)
    rows[0] += [f"u_{c.replace(' ', '_')}" for c in LABELS]
    for r in rows[1:]:
        r += ["0.2"] * 5
    return _write(tmp_path_factory.mktemp("three") / "three.csv", rows)


def test_baseline_and_all_pairs(three, capsys):
    common = [
        str(three),
        "--truth",
        "cut",
        "--labels",
        LABEL_ARG,
        "--models",
        "hgb_,logit_,u_",
        "--metrics",
        "rps",
        "--bootstrap",
        "40",
    ]
    first = run(capsys, *common)
    assert [(p["model"], p["baseline"]) for p in first["comparisons"]] == [
        ("logit", "hgb"),
        ("u", "hgb"),
    ]
    chosen = run(capsys, *common, "--baseline", "u")
    assert [(p["model"], p["baseline"]) for p in chosen["comparisons"]] == [
        ("hgb", "u"),
        ("logit", "u"),
    ]
    assert chosen["baseline"] == "u"
    every = run(capsys, *common, "--pairs", "all")
    assert [(p["model"], p["baseline"]) for p in every["comparisons"]] == [
        ("logit", "hgb"),
        ("u", "hgb"),
        ("u", "logit"),
    ]
    assert every["baseline"] is None
    by_pair = {(p["model"], p["baseline"]): p for p in every["comparisons"]}
    # hgb - u = -(u - hgb): the same resamples for every pair
    assert chosen["comparisons"][0]["difference"] == pytest.approx(
        -by_pair[("u", "hgb")]["difference"], rel=1e-12
    )
    assert by_pair[("u", "hgb")]["better"] == "hgb"
    y, P, _ = _arrays(three)
    U = np.full((200, 5), 0.2)
    for (model, ref), (x, z) in {
        ("u", "logit"): (U, P["logit"]),
        ("logit", "hgb"): (P["logit"], P["hgb"]),
    }.items():
        res = ordmetrics.compare("rps", y, x, z, n_resamples=40, random_state=0, labels=LABELS)
        _check_difference(by_pair[(model, ref)], res, 40)


def _with_gaps(tmp_path: Path) -> Path:
    """100 rows; a missing hgb value in row 3, a missing logit value in row 7, a missing
    truth in row 11."""
    rows = _rows(100)
    head = rows[0]
    rows[1 + 3][head.index("hgb_Good")] = ""
    rows[1 + 7][head.index("logit_Ideal")] = ""
    rows[1 + 11][head.index("cut")] = ""
    return _write(tmp_path / "gaps.csv", rows)


def test_nan_policy_omit_leaves_out_the_union_of_missing_rows(tmp_path, capsys):
    path = _with_gaps(tmp_path)
    out = run(
        capsys, *base(path, "--metrics", "rps,qwk", "--bootstrap", "30", "--nan-policy", "omit")
    )
    assert out["rows"] == 97 and out["rows_left_out"] == 3
    full = _rows(100)
    keep = [r for i, r in enumerate(full) if i - 1 not in (3, 7, 11)]
    same = _write(tmp_path / "complete.csv", keep)
    want = run(capsys, *base(same, "--metrics", "rps,qwk", "--bootstrap", "30"))
    assert out["comparisons"] == want["comparisons"] and out["metrics"] == want["metrics"]


def test_nan_policy_raise_names_the_row_and_column(tmp_path, capsys):
    path = _with_gaps(tmp_path)
    assert main(["compare", *base(path, "--metrics", "rps")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "row 3" in err and "'hgb_Good'" in err and "--nan-policy omit" in err


def test_nan_policy_propagate_gives_nan_as_null(tmp_path, capsys):
    path = _with_gaps(tmp_path)
    args = base(path, "--metrics", "rps", "--bootstrap", "20", "--nan-policy", "propagate")
    assert main(["compare", *args, "--format", "json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "ordmetrics: warning:" in captured.err  # every resampled value is undefined
    assert out["metrics"][0]["estimate"] is None
    assert out["comparisons"][0]["difference"] is None
    assert out["comparisons"][0]["better"] is None


def test_renormalize_and_sum_tolerance(tmp_path, capsys):
    rows = _rows(120)
    head = rows[0]
    j = head.index("logit_Fair")
    for r in rows[1:]:
        r[j] = f"{float(r[j]) + 0.01:.6f}"  # logit rows now sum to 1.01
    path = _write(tmp_path / "off.csv", rows)
    assert main(["compare", *base(path, "--metrics", "rps", "--bootstrap", "40")]) == 2
    err = capsys.readouterr().err
    assert "--renormalize" in err and err.count("\n") == 1
    out = run(capsys, *base(path, "--metrics", "rps", "--bootstrap", "40", "--renormalize"))
    y, P, _ = _arrays(path)
    Q = P["logit"] / P["logit"].sum(axis=1, keepdims=True)
    res = ordmetrics.compare("rps", y, Q, P["hgb"], n_resamples=40, random_state=0, labels=LABELS)
    _check_difference(out["comparisons"][0], res, 40)
    assert main(["compare", *base(path, "--metrics", "rps", "--sum-tolerance", "1e-3")]) == 2
    assert "--sum-tolerance" in capsys.readouterr().err


def test_json_writes_inf_as_a_string(tmp_path, capsys):
    rows = _rows(50)
    head = rows[0]
    r = rows[1]  # row 0 is Ideal: give it probability 0 under logit
    r[head.index("logit_Ideal")] = "0"
    r[head.index("logit_Premium")] = f"{float(r[head.index('logit_Premium')]) + 0.835635:.6f}"
    path = _write(tmp_path / "zero.csv", rows)
    out = run(
        capsys, *base(path, "--metrics", "log_loss", "--bootstrap", "10", "--sum-tolerance", "1e-5")
    )
    logit = next(m for m in out["metrics"] if m["model"] == "logit")
    assert logit["estimate"] == "inf"
    assert out["comparisons"][0]["difference"] == "inf"


# --------------------------------------------------------------------------------------------
# compare: bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--models", "hgb_"], "two or more models; got one model"),
        ([], "two or more models; got no model"),
        (["--models", "hgb_,xgb_"], "no column starts with the --models prefix 'xgb_'"),
        (
            ["--models", "hgb_,logit_", "--model", "hgb_Fair,hgb_Good"],
            "different numbers of probability columns",
        ),
        (
            ["--models", "hgb_", "--model", "a=" + ",".join(COLS["hgb"])],
            "column 'hgb_Fair' belongs to both model 'hgb' and model 'a'",
        ),
        (["--models", "a=hgb_,a=logit_"], "two models are named 'a'"),
        (["--models", "hgb_,logit_", "--baseline", "xgb"], "--baseline 'xgb' is not one of"),
        (["--models", "hgb_,logit_", "--bootstrap", "0"], "--bootstrap of at least 2"),
        (["--models", "hgb_,logit_", "--bootstrap", "1"], "--bootstrap must be 0"),
        (["--models", "hgb_,logit_", "--metrics", "nope"], "nope"),
        (["--models", "hgb_,logit_", "--confidence", "95"], "--confidence must lie"),
        (
            ["--model", "hgb_Fair,hgb_Good,nope", "--model", "a,b,c"],
            "--model column 'nope' is not in the file",
        ),
        (["--models", "=hgb_,logit_"], "must be PREFIX or NAME=PREFIX"),
        (
            ["--models", "hgb_,logit_", "--out", "/no/such/dir/x.json"],
            "cannot write the comparison",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(small, args, message, capsys):
    argv = ["compare", str(small), *_T, *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ordmetrics: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_truth_among_the_model_columns_is_refused(tmp_path, capsys):
    path = _write(
        tmp_path / "y.csv",
        [["p_y", "p_0", "p_1", "q_0", "q_1", "q_2"], ["0", "0.5", "0.5", "0.4", "0.6", "0"]],
    )
    assert main(["compare", str(path), "--truth", "p_y", "--models", "p_,q_"]) == 2
    assert "is also a probability column of model 'p'" in capsys.readouterr().err


def test_labels_that_do_not_match_a_models_columns(small, capsys):
    assert (
        main(
            [
                "compare",
                str(small),
                "--truth",
                "cut",
                "--labels",
                "Fair,Good,Very Good,Premium,Best",
                "--models",
                "hgb_,logit_",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model 'hgb'" in err


# --------------------------------------------------------------------------------------------
# standard input
# --------------------------------------------------------------------------------------------


def _stdin(monkeypatch, data: bytes, text: bool = False) -> None:
    if text:
        monkeypatch.setattr(sys, "stdin", io.StringIO(data.decode("utf-8")))
    else:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


@pytest.mark.parametrize("text", [False, True], ids=["bytes", "text"])
def test_evaluate_reads_standard_input(small, monkeypatch, capsys, text):
    args = [
        "--truth",
        "cut",
        "--labels",
        LABEL_ARG,
        "--proba-prefix",
        "hgb_",
        "--format",
        "json",
        "--bootstrap",
        "20",
    ]
    assert main(["evaluate", str(small), *args]) == 0
    want = capsys.readouterr().out
    _stdin(monkeypatch, small.read_bytes(), text)
    assert main(["evaluate", "-", *args]) == 0
    assert capsys.readouterr().out == want


def test_compare_reads_standard_input_plain_and_gzip(small, monkeypatch, capsys):
    want = run(capsys, *base(small, "--metrics", "rps", "--bootstrap", "20"))
    for data in (small.read_bytes(), gzip.compress(small.read_bytes())):
        _stdin(monkeypatch, data)
        assert run(capsys, *base("-", "--metrics", "rps", "--bootstrap", "20")) == want


def test_standard_input_of_the_whole_example(monkeypatch, capsys):
    """53,940 rows (gzip) piped in: the same table as from the file."""
    args = ["--truth", "cut", "--labels", LABEL_ARG, "--proba-prefix", "logit_", "--format", "csv"]
    assert main(["evaluate", str(example_path()), *args]) == 0
    want = capsys.readouterr().out
    _stdin(monkeypatch, example_path().read_bytes())
    assert main(["evaluate", "-", *args]) == 0
    assert capsys.readouterr().out == want


def test_report_reads_standard_input(small, monkeypatch, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    _stdin(monkeypatch, small.read_bytes())
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                "-",
                "--truth",
                "cut",
                "--labels",
                LABEL_ARG,
                "--proba-prefix",
                "hgb_",
                "--bootstrap",
                "10",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert out.stat().st_size > 1000
    assert "standard input" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("data", "extra", "message"),
    [
        (b"", [], "nothing was piped into standard input"),
        (b"y,p0,p1\n", [], "has a header but no rows"),
        (b"\x1f\x8b broken", [], "gzip-compressed but cannot be decompressed"),
        (b"y,p0,p1\n0,0.5,0.5\n", ["--stream"], "--stream reads a file in batches"),
    ],
)
def test_bad_standard_input_exits_2(monkeypatch, capsys, data, extra, message):
    _stdin(monkeypatch, data)
    assert main(["evaluate", "-", "--truth", "y", "--proba", "p0,p1", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_standard_input_from_a_terminal_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _Terminal("y,p0,p1\n0,0.5,0.5\n"))
    assert main(["evaluate", "-", "--truth", "y", "--proba", "p0,p1"]) == 2
    assert "standard input is a terminal" in capsys.readouterr().err


def test_a_file_piped_into_a_subprocess(small):
    args = [
        "--truth",
        "cut",
        "--labels",
        LABEL_ARG,
        "--models",
        "hgb_,logit_",
        "--metrics",
        "rps,qwk",
        "--bootstrap",
        "40",
        "--format",
        "json",
    ]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    with small.open("rb") as fh:
        piped = subprocess.run(
            [sys.executable, "-m", "ordmetrics.report.cli", "compare", "-", *args],
            stdin=fh,
            capture_output=True,
            env=env,
            timeout=300,
            check=False,
        )
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr == b""  # no bar, no notice: stderr is not a terminal
    direct = subprocess.run(
        [sys.executable, "-m", "ordmetrics.report.cli", "compare", str(small), *args],
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert json.loads(piped.stdout) == json.loads(direct.stdout)


# --------------------------------------------------------------------------------------------
# progress and the compile notice
# --------------------------------------------------------------------------------------------


def test_progress_line_counts_resamples_and_shows_the_time_left():
    assert _progress._line("bootstrap", 250, 1000, 2.0, "resamples") == (
        "bootstrap [#######.....................] 250/1,000 resamples 2.0s, ~6s left"
    )
    assert _progress._line("bootstrap", 1000, 1000, 8.0, "resamples").endswith("8.0s")
    assert _progress._line("b", 1, 100, 10.0).endswith("~16m30s left")
    assert _progress._line("b", 1, 1000, 10.0).endswith("~2h46m left")
    assert _progress._line("b", 0, 10, 1.0).endswith("1.0s")  # no estimate before a step


def test_progress_pads_a_shorter_line():
    tty = _Terminal()
    with _progress.progress(100, "x", stream=tty, delay=0.0, interval=0.0, unit="u") as step:
        step(1)
        step(98)
    first, second = tty.getvalue().split("\r")[1:3]
    assert len(second) >= len(first)  # no rest of the longer line left on screen


def _instant_bar(monkeypatch) -> None:
    defaults = _progress.progress.__wrapped__.__kwdefaults__
    monkeypatch.setitem(defaults, "delay", 0.0)
    monkeypatch.setitem(defaults, "interval", 0.0)


def test_compare_shows_resamples_on_a_terminal_only(small, monkeypatch, capsys):
    _instant_bar(monkeypatch)
    args = base(small, "--metrics", "rps,qwk", "--bootstrap", "40", "--format", "json")
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["compare", *args]) == 0
    json.loads(capsys.readouterr().out)  # stdout is only the JSON
    drawn = tty.getvalue()
    # 2 metrics x 2 models x 40 resamples
    assert "/160 resamples" in drawn
    assert "left" in drawn and drawn.endswith("\r")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["compare", *args]) == 0
    assert sys.stderr.getvalue() == ""


def test_evaluate_bar_counts_resamples(small, monkeypatch, capsys):
    _instant_bar(monkeypatch)
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert (
        main(
            [
                "evaluate",
                str(small),
                "--truth",
                "cut",
                "--labels",
                LABEL_ARG,
                "--proba-prefix",
                "hgb_",
                "--metrics",
                "rps,brier",
                "--bootstrap",
                "30",
            ]
        )
        == 0
    )
    assert "/60 resamples" in tty.getvalue()


def test_compile_notice_once_and_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(cli, "_NOTICED", [])
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    cli._compile_notice("ordmetrics._core.kernels.k")
    assert pipe.getvalue() == ""
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    cli._compile_notice("ordmetrics._core.kernels.k")
    cli._compile_notice("ordmetrics._core.kernels.j")
    assert tty.getvalue() == cli.COMPILE_NOTICE + "\n"


def test_the_jit_hook_is_called_when_a_kernel_compiles():
    namespace: dict = {"__name__": "ordmetrics._hook_probe"}
    exec("def probe(x):\n    return x + 1\n", namespace)
    kernel = _jit.njit(cache=False)(namespace["probe"])
    seen: list[str] = []
    previous = _jit.set_compile_hook(seen.append)
    try:
        assert kernel(1) == 2
        assert kernel(2) == 3  # compiled once
    finally:
        _jit.set_compile_hook(previous)
    assert seen == ["ordmetrics._hook_probe.probe"]


def test_main_restores_the_hook(small, capsys):
    previous = _jit.set_compile_hook(None)
    try:
        assert main(["list"]) == 0
        assert _jit._HOOK[0] is None
    finally:
        _jit.set_compile_hook(previous)
    capsys.readouterr()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_compile_notice_in_a_fresh_process_on_a_terminal(tmp_path):
    """A fresh numba cache: the first run compiles and says so on the terminal (stderr),
    while stdout (a pipe) holds only the JSON. (``ORDMETRICS_AOT=0``: the scoring kernels
    compiled at install would leave nothing to compile for ``rps``.)"""
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "ORDMETRICS_AOT": "0"}
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "ordmetrics.report.cli",
                "evaluate",
                str(GOLDEN),
                "--truth",
                "cut",
                "--labels",
                LABEL_ARG,
                "--proba-prefix",
                "hgb_",
                "--metrics",
                "rps",
                "--format",
                "json",
            ],
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            timeout=300,
            check=False,
        )
        os.close(follower)
        err = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
    finally:
        os.close(leader)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)[0]["metric"] == "rps"
    assert err.decode().count("compiling kernels (first run only") == 1


# --------------------------------------------------------------------------------------------
# compare: every reader, the base install, integer truth, the help
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_every_csv_reader_gives_the_same_comparison(backend, tmp_path, monkeypatch, capsys):
    pytest.importorskip(backend)
    from ordmetrics.io import readers as _io

    path = _with_gaps(tmp_path)
    args = base(path, "--metrics", "rps,qwk,ece", "--bootstrap", "30", "--nan-policy", "omit")
    want = run(capsys, *args)

    def read(file, **kwargs):
        return _io.read_table(file, backend=backend, **kwargs)

    monkeypatch.setattr(cli_compare, "read_table", read)
    got = run(capsys, *args)
    assert got["rows"] == 97
    assert got == want


#: The command line with the data-frame libraries unimportable (a base install).
BLOCKED = """
import sys
for name in ("pandas", "polars", "pyarrow", "matplotlib"):
    sys.modules[name] = None
from ordmetrics.report.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_base_install_compares_files_and_standard_input(small, capsys):
    args = base(small, "--metrics", "rps,qwk", "--bootstrap", "30", "--weight", "w")
    want = run(capsys, *args)
    argv = [sys.executable, "-c", BLOCKED, "compare", *args, "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == want
    argv[4] = "-"  # the file, now from standard input
    with small.open("rb") as fh:
        piped = subprocess.run(argv, stdin=fh, capture_output=True, timeout=300, check=False)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == want


def test_integer_truth_needs_no_labels(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 1500  # past the 1,024-row blocks
    y = rng.integers(0, 3, size=n)
    A = rng.dirichlet([2, 2, 2], size=n)
    B = np.full((n, 3), 1 / 3)
    rows = [["y", "a0", "a1", "a2", "b0", "b1", "b2"]]
    rows += [
        [str(t), *(repr(float(v)) for v in a), *(repr(float(v)) for v in b)]
        for t, a, b in zip(y, A, B, strict=True)
    ]
    path = _write(tmp_path / "int.csv", rows)
    out = run(
        capsys,
        str(path),
        "--truth",
        "y",
        "--model",
        "a0,a1,a2",
        "--model",
        "b0,b1,b2",
        "--metrics",
        "rps,qwk",
        "--bootstrap",
        "50",
        "--seed",
        "11",
    )
    for rec in out["comparisons"]:
        xa, xb = A, B
        if rec["metric"] == "qwk":
            xa, xb = ordmetrics.decide(A, "argmax"), ordmetrics.decide(B, "argmax")
        res = ordmetrics.compare(rec["metric"], y, xb, xa, n_resamples=50, random_state=11)
        assert (rec["model"], rec["baseline"]) == ("model2", "model1")  # model2 - model1
        _check_difference(rec, res, 50)


def test_help_documents_compare_and_standard_input(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in (
        "--models",
        "--model",
        "--baseline",
        "--pairs",
        "--bootstrap",
        "--seed",
        "--confidence",
        "--labels",
        "--weight",
        "--nan-policy",
        "--renormalize",
        "--sum-tolerance",
        "--format",
        "--out",
        f"default {cli.DEFAULT_RESAMPLES}",
        "model minus baseline",
        "standard input",
    ):
        assert option in text, option
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "- reads a CSV" in " ".join(capsys.readouterr().out.split())


def test_parquet_file_and_parquet_on_standard_input(small, tmp_path, monkeypatch, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    from ordmetrics.io import readers as _io

    path = tmp_path / "small.parquet"
    pq.write_table(_io.read_table(small), path)
    args = ("--metrics", "rps,qwk", "--bootstrap", "20", "--weight", "w")
    want = run(capsys, *base(small, *args))
    assert run(capsys, *base(path, *args)) == want
    _stdin(monkeypatch, path.read_bytes())
    assert run(capsys, *base("-", *args)) == want
