"""The HTML report and the metric table with intervals (ordmetrics.report)."""

from __future__ import annotations

import html
import re
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
from ordmetrics._io import MissingDependencyError
from ordmetrics.cli import main
from ordmetrics.report import build_report, metric_table, write_report

pytest.importorskip("matplotlib")
pd = pytest.importorskip("pandas")

GOLDEN = Path(__file__).resolve().parent / "golden"
DATA = GOLDEN / "predictions.csv"
LABELS = ["Fair", "Good", "Very Good", "Premium", "Ideal"]
PROBA = [f"hgb_{c.replace(' ', '_')}" for c in LABELS]
IMG = '<img src="data:image/png;base64,'
SECTIONS = ("summary", "metrics", "retention", "reliability", "confusion", "worst")

#: Elements without an end tag.
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "area", "base", "source", "wbr"}


@pytest.fixture(scope="module")
def df():
    return pd.read_csv(DATA)


@pytest.fixture(scope="module")
def page(df):
    with warnings.catch_warnings():  # small groups: some resamples are undefined
        warnings.simplefilter("ignore", ordmetrics.UndefinedMetricWarning)
        return build_report(
            df, truth="cut", proba=PROBA, labels=LABELS, by="fold", n_resamples=20, source="p.csv"
        )


class _Structure(HTMLParser):
    """Checks that every element is closed in order; collects tags, ids and resources."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.resources: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        for key in ("src", "href"):
            if key in attrs:
                self.resources.append(attrs[key])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(text: str) -> _Structure:
    p = _Structure()
    p.feed(text)
    p.close()
    return p


# --------------------------------------------------------------------------------------------
# The metric table
# --------------------------------------------------------------------------------------------


def test_metric_table_estimates_are_evaluates(df):
    opts = {"truth": "cut", "proba": PROBA, "labels": LABELS, "by": "fold"}
    records = metric_table(df, sample_weight="weight", **opts)
    want = ordmetrics.evaluate(df, sample_weight="weight", **opts)
    assert [r["estimate"] for r in records] == want["estimate"].tolist()
    assert [r["fold"] for r in records] == want["fold"].tolist()
    assert all(type(r["fold"]) is int for r in records)
    assert all(r["low"] is None and r["high"] is None for r in records)


def test_metric_table_intervals_are_bootstraps(df):
    records = metric_table(
        df,
        truth="cut",
        proba=PROBA,
        labels=LABELS,
        metrics=["rps", "c_index", ("qwk", {"decision": "median"})],
        n_resamples=25,
        random_state=7,
    )
    y, P = df["cut"], df[PROBA].to_numpy()
    rps = ordmetrics.bootstrap("rps", y, P, n_resamples=25, random_state=7, labels=LABELS)
    c = ordmetrics.bootstrap("c_index", y, P, n_resamples=25, random_state=7, labels=LABELS)
    pred = ordmetrics.decide(P, "median", labels=LABELS)
    qwk = ordmetrics.bootstrap("qwk", y, pred, n_resamples=25, random_state=7, labels=LABELS)
    got = [(r["low"], r["high"]) for r in records]
    assert got == [(b.low, b.high) for b in (rps, c, qwk)]
    assert [r["estimate"] for r in records] == [rps.estimate, c.estimate, qwk.estimate]


def test_metric_table_on_a_polars_enum(df):
    pl = pytest.importorskip("polars")
    lf = pl.from_pandas(df).with_columns(pl.col("cut").cast(pl.Enum(LABELS)))
    got = metric_table(lf, truth="cut", proba="hgb_", metrics=["rps", "qwk"], n_resamples=10)
    want = metric_table(
        df, truth="cut", proba="hgb_", labels=LABELS, metrics=["rps", "qwk"], n_resamples=10
    )
    assert got == want


def test_metric_table_rejects_bad_arguments(df):
    with pytest.raises(ValueError, match="at least 2"):
        metric_table(df, truth="cut", proba="hgb_", labels=LABELS, n_resamples=1)
    renamed = df.rename(columns={"fold": "low"})
    with pytest.raises(ValueError, match="interval column"):
        metric_table(renamed, truth="cut", proba="hgb_", labels=LABELS, by="low")


# --------------------------------------------------------------------------------------------
# The HTML document
# --------------------------------------------------------------------------------------------


def test_report_is_balanced_html_with_every_section(page):
    p = parse(page)
    assert p.errors == []
    assert p.stack == []
    assert page.startswith("<!DOCTYPE html>")
    assert p.tags[:3] == ["html", "head", "meta"]
    for tag in ("html", "head", "title", "style", "body", "main", "header", "footer"):
        assert p.tags.count(tag) == 1, tag
    assert [i for i in p.ids if i in SECTIONS] == list(SECTIONS)
    assert page.count(IMG) == 1 + 3 + 1
    assert p.tags.count("img") == 5
    assert p.tags.count("table") == 2  # the metrics and the worst predictions


def test_report_is_self_contained(page):
    p = parse(page)
    assert all(r.startswith("data:image/png;base64,") for r in p.resources)
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert "url(" not in page


def test_report_figures_are_pngs(page):
    import base64

    for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page):
        png = base64.b64decode(data, validate=True)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_report_content(page):
    text = " ".join(parse(page).text)
    assert "Fair < Good < Very Good < Premium < Ideal" in text
    assert "figures below are of the whole data" in text
    assert "95% bootstrap percentile intervals, 20 resamples, seed 0" in text
    assert "The 10 rows with the highest (worst) RPS" in text
    metrics_part = page[page.index('id="metrics"') : page.index('id="retention"')]
    assert metrics_part.count("<tr>") == 1 + 5 * len(ordmetrics.DEFAULT_METRICS)
    worst_part = page[page.index('id="worst"') :]
    assert worst_part.count("<tr>") == 1 + 10
    assert worst_part.count("<strong>") == 10  # the probability of the true class


def test_report_worst_rows_are_worst_predictions(df, page):
    worst = ordmetrics.worst_predictions(df["cut"], df[PROBA].to_numpy(), k=10, labels=LABELS)
    worst_part = page[page.index('id="worst"') :]
    rows = re.findall(r'<tr><td class="num">(\d+)</td>', worst_part)
    assert [int(r) for r in rows] == worst.index.tolist()


def test_write_report_from_python(tmp_path, df):
    pl = pytest.importorskip("polars")
    path = write_report(
        tmp_path / "r.html",
        pl.from_pandas(df),
        truth="cut",
        proba="hgb_",
        labels=LABELS,
        n_resamples=0,
        title="Plain",
    )
    text = path.read_text(encoding="utf-8")
    assert "<title>Plain</title>" in text and text.count(IMG) == 5
    assert "95% low" not in text  # no intervals


def test_report_nan_policy_omit_leaves_incomplete_rows_out_of_the_figures(df):
    holes = df.copy()
    holes.loc[3, "hgb_Good"] = np.nan
    page = build_report(
        holes, truth="cut", proba=PROBA, labels=LABELS, nan_policy="omit", n_resamples=0
    )
    assert "1 of 40 rows have a missing value and are left out of the figures" in page


def test_report_with_a_given_table(df):
    table = [
        {
            "model": "a",
            "metric": "rps",
            "estimate": 0.1,
            "direction": "minimize",
            "low": 0.05,
            "high": 0.2,
        },
    ]
    page = build_report(df, truth="cut", proba=PROBA, labels=LABELS, table=table)
    metrics_part = page[page.index('id="metrics"') : page.index('id="retention"')]
    assert "<th>model</th>" in metrics_part and "0.0500" in metrics_part
    assert metrics_part.count("<tr>") == 2


def test_report_needs_matplotlib(df, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"pip install ordmetrics\[plot\]"):
        build_report(df, truth="cut", proba=PROBA, labels=LABELS)


# --------------------------------------------------------------------------------------------
# Escaping
# --------------------------------------------------------------------------------------------

HOSTILE = ["<script>alert(1)</script>", "a & b", '"quoted"', "it's", "<b>bold</b>"]
HOSTILE_COLUMN = "<i>grade</i> & 'more'"
HOSTILE_GROUP = '<g id="x">'


def test_no_data_string_is_left_unescaped(tmp_path, df):
    hostile = df.copy()
    hostile["cut"] = hostile["cut"].map(dict(zip(LABELS, HOSTILE, strict=True)))
    hostile["site"] = np.where(np.arange(len(df)) % 2, "<x>&amp;", "\"y\" 'z'")
    hostile = hostile.rename(columns={"cut": HOSTILE_COLUMN, "site": HOSTILE_GROUP})
    proba = [f"p <{c}>" for c in HOSTILE]
    hostile = hostile.rename(columns=dict(zip(PROBA, proba, strict=True)))
    path = tmp_path / "<data> & 'x'.csv"
    hostile.to_csv(path, index=False)
    out = tmp_path / "r.html"
    title = "<title>T</title> & <em>"
    args = [
        *("report", str(path), "--truth", HOSTILE_COLUMN, "--proba", ",".join(proba)),
        *("--labels", ",".join(HOSTILE), "--by", HOSTILE_GROUP, "--bootstrap", "5"),
        *("--title", title, "--out", str(out), "--metrics", "rps,qwk"),
    ]
    assert main(args) == 0
    page = out.read_text(encoding="utf-8")

    p = parse(page)
    assert p.errors == [] and p.stack == []
    assert "script" not in p.tags and "b" not in p.tags and "g" not in p.tags
    assert "em" not in p.tags and "i" not in p.tags
    assert p.tags.count("title") == 1
    raw = [*HOSTILE, HOSTILE_COLUMN, HOSTILE_GROUP, title, "<x>&amp;", "\"y\" 'z'", str(path)]
    for s in raw:
        assert s not in page, s
        assert html.escape(s, quote=True) in page, s
    # the strings are shown as they are
    text = "".join(p.text)
    for s in [*HOSTILE, HOSTILE_COLUMN, HOSTILE_GROUP, title, "<x>&amp;"]:
        assert s in text, s
