"""The HTML report and the metric table with intervals (ordmetrics.report.html)."""

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
from ordmetrics.io.readers import MissingDependencyError
from ordmetrics.report.cli import main
from ordmetrics.report.html import build_report, metric_table, write_report

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


def tmp_wrong_share(y_true, y_pred, *, labels=None, sample_weight=None, nan_policy="raise"):
    """A metric of decisions, of a kind no front knows: the weighted share of wrong classes."""
    wrong = np.asarray(y_true).astype(object) != np.asarray(y_pred).astype(object)
    w = np.ones(wrong.size) if sample_weight is None else np.asarray(sample_weight, float)
    return float(np.sum(w * wrong) / np.sum(w))


@pytest.fixture
def wrong_share():
    """``tmp_wrong_share`` registered (kind ``tmp_votes``, input ``decisions``) for one test."""
    from ordmetrics._core.registry import register, unregister

    spec = register(
        tmp_wrong_share, direction="minimize", range=(0, 1), kind="tmp_votes", input="decisions"
    )
    try:
        yield spec.name
    finally:
        unregister(spec.name)


def test_metric_table_gives_each_metric_the_input_its_spec_names(df, wrong_share):
    """A new kind stating ``input="decisions"`` is bootstrapped on the decisions of its rule."""
    metrics = [wrong_share, (wrong_share, {"decision": "median"}, "wrong_median"), "rps"]
    records = metric_table(
        df, truth="cut", proba=PROBA, labels=LABELS, metrics=metrics, n_resamples=25
    )
    y, P = df["cut"], df[PROBA].to_numpy()
    want = []
    for rule in ("argmax", "median"):
        pred = ordmetrics.decide(P, rule, labels=LABELS)
        want.append(
            ordmetrics.bootstrap(
                wrong_share, y, pred, n_resamples=25, random_state=0, labels=LABELS
            )
        )
    want.append(ordmetrics.bootstrap("rps", y, P, n_resamples=25, random_state=0, labels=LABELS))
    assert [r["metric"] for r in records] == [wrong_share, "wrong_median", "rps"]
    assert [r["estimate"] for r in records] == pytest.approx([b.estimate for b in want], rel=1e-12)
    assert [(r["low"], r["high"]) for r in records] == [(b.low, b.high) for b in want]


def test_several_models_differences_of_a_new_kind_are_compare(df2, wrong_share):
    from ordmetrics.report.tables import _differences, _read

    ds = [(m, _read(df2, "cut", c, None, LABELS, None)) for m, c in MODELS.items()]
    kw = {"nan_policy": "raise", "decision": "argmax", "confidence_level": 0.9}
    (rec,) = _differences(ds, [wrong_share], n_resamples=30, random_state=3, **kw)
    y = df2["cut"].to_numpy().astype(str)
    codes = np.array([LABELS.index(v) for v in y])
    preds = [ordmetrics.decide(df2[c].to_numpy(), "argmax") for c in (LOGIT, PROBA)]
    res = ordmetrics.compare(
        wrong_share, codes, *preds, n_resamples=30, confidence_level=0.9, random_state=3,
        labels=list(range(len(LABELS))),
    )  # fmt: skip
    assert (rec["a"], rec["b"]) == ("logit", "hgb")
    assert (rec["difference"], rec["low"], rec["high"], rec["p_value"]) == pytest.approx(
        (res.difference, res.low, res.high, res.p_value), rel=1e-12
    )


def test_metric_table_takes_a_table_read_without_a_frame_library(df):
    from ordmetrics.io.delimited import ColumnTable
    from ordmetrics.io.delimited import metric_table as column_metric_table

    table = ColumnTable({c: df[c].to_numpy() for c in df.columns})
    kw = {"truth": "cut", "proba": "hgb_", "labels": LABELS, "metrics": ["rps", "qwk"]}
    got = metric_table(table, by="fold", n_resamples=10, **kw)
    assert got == column_metric_table(table, by="fold", n_resamples=10, **kw)
    want = metric_table(df, by="fold", n_resamples=10, **kw)
    assert [r["estimate"] for r in got] == pytest.approx([r["estimate"] for r in want], rel=1e-12)


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
    assert page.count(IMG) == 2 + 3 + 1  # retention (QWK, cost), reliability, confusion
    assert p.tags.count("img") == 6
    assert p.tags.count("table") == 2  # the metrics and the worst predictions
    assert "differences" not in p.ids  # one model: no paired differences


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
    assert "<title>Plain</title>" in text and text.count(IMG) == 6
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


# --------------------------------------------------------------------------------------------
# Several models side by side
# --------------------------------------------------------------------------------------------

LOGIT = [c.replace("hgb_", "logit_") for c in PROBA]
MODELS = {"hgb": "hgb_", "logit": "logit_"}


@pytest.fixture(scope="module")
def df2(df):
    """The golden rows with a second, vaguer model: 0.6 of hgb plus 0.08 on every class."""
    out = df.copy()
    for a, b in zip(PROBA, LOGIT, strict=True):
        out[b] = 0.6 * out[a] + 0.08
    return out


@pytest.fixture(scope="module")
def page2(df2):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordmetrics.UndefinedMetricWarning)
        return build_report(
            df2, truth="cut", proba=MODELS, labels=LABELS, n_resamples=20, source="two.csv"
        )


def _section(page: str, name: str) -> str:
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def test_several_models_every_section_and_figure(page2):
    p = parse(page2)
    assert p.errors == [] and p.stack == []
    assert [i for i in p.ids if i in (*SECTIONS, "differences")] == [
        "summary",
        "metrics",
        "differences",
        "retention",
        "reliability",
        "confusion",
        "worst",
    ]
    # retention: QWK and cost with the models overlaid; per model 3 reliability + 1 confusion
    assert page2.count(IMG) == 2 + 2 * (3 + 1)
    assert _section(page2, "retention").count(IMG) == 2
    assert _section(page2, "reliability").count(IMG) == 6
    assert _section(page2, "confusion").count(IMG) == 2
    worst = _section(page2, "worst")
    assert worst.count("<table>") == 2 and "<h3>hgb</h3>" in worst and "<h3>logit</h3>" in worst
    assert worst.count("<strong>") == 20


def test_several_models_table_is_each_models_metric_table(df2, page2):
    part = _section(page2, "metrics")
    assert "<th>hgb</th>" in part and "<th>logit</th>" in part
    assert "<th>hgb: 95% interval</th>" in part
    assert part.count("<tr>") == 1 + len(ordmetrics.DEFAULT_METRICS)
    rows = re.findall(r"<tr>(.*?)</tr>", part)[1:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordmetrics.UndefinedMetricWarning)
        tables = [
            metric_table(df2, truth="cut", proba=c, labels=LABELS, n_resamples=20)
            for c in (PROBA, LOGIT)
        ]
    for row, a, b in zip(rows, *tables, strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[0] == a["metric"] == b["metric"]
        assert cells[1:5] == [
            f"{a['estimate']:.4f}",
            f"[{a['low']:.4f}, {a['high']:.4f}]",
            f"{b['estimate']:.4f}",
            f"[{b['low']:.4f}, {b['high']:.4f}]",
        ]


def test_several_models_differences_are_compare(df2):
    """Every paired difference is ordmetrics.compare of the model and the first, on the class
    names as they are (the report codes them as positions once: same numbers, exactly)."""
    from ordmetrics.report.tables import _differences, _read

    ds = [(m, _read(df2, "cut", c, None, LABELS, "weight")) for m, c in MODELS.items()]
    metrics = ["rps", "c_index", "ece", ("qwk", {"decision": "median"}), "expected_cost"]
    got = _differences(
        ds,
        metrics,
        nan_policy="raise",
        decision="argmax",
        n_resamples=40,
        confidence_level=0.9,
        random_state=3,
    )
    y, w = df2["cut"].to_numpy(dtype=object), df2["weight"].to_numpy(dtype=float)
    Pa, Pb = df2[LOGIT].to_numpy(), df2[PROBA].to_numpy()
    # 40 resamples: with 30, 1 of them favours logit, so p = 4 / 31 = 0.129 >= 0.1 and no
    # model may be called better at the 90% level
    opts = {"n_resamples": 40, "confidence_level": 0.9, "random_state": 3}
    opts |= {"labels": LABELS, "sample_weight": w}
    want = [
        ordmetrics.compare("rps", y, Pa, Pb, **opts),
        ordmetrics.compare("c_index", y, Pa, Pb, **opts),
        ordmetrics.compare("ece", y, Pa, Pb, **opts),
        ordmetrics.compare(
            "qwk",
            y,
            ordmetrics.decide(Pa, "median", labels=LABELS),
            ordmetrics.decide(Pb, "median", labels=LABELS),
            **opts,
        ),
        ordmetrics.compare(  # an agreement metric: the argmax decisions
            "expected_cost",
            y,
            ordmetrics.decide(Pa, labels=LABELS),
            ordmetrics.decide(Pb, labels=LABELS),
            **opts,
        ),
    ]
    names = ["rps", "c_index", "ece", "qwk(decision=median)", "expected_cost"]
    assert [r["metric"] for r in got] == names
    for rec, res in zip(got, want, strict=True):
        assert (rec["a"], rec["b"]) == ("logit", "hgb")
        assert rec["difference"] == res.difference
        assert (rec["low"], rec["high"], rec["p_value"]) == (res.low, res.high, res.p_value)
        assert rec["better"] == {"a": "logit", "b": "hgb", None: None}[res.better]
    assert got[0]["better"] == "hgb"  # the vaguer model has the worse RPS


def test_several_models_differences_in_the_page(page2):
    part = _section(page2, "differences")
    assert "logit &minus; hgb" in part and "(hgb, the baseline)" in part
    assert part.count("<tr>") == 1 + len(ordmetrics.DEFAULT_METRICS)
    assert "0.095, the resolution of 20 resamples" in part  # 2 / 21


def test_several_models_summary_names_the_columns_of_each_model(page2):
    part = _section(page2, "summary")
    assert "<dd>hgb, logit</dd>" in part
    assert ", ".join(PROBA) in part and ", ".join(LOGIT) in part
    assert "p_" not in part


def test_several_models_from_a_given_table_of_a_model_column(df2, page2):
    """Records with a model column (as the demo's metric table) are shown side by side."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordmetrics.UndefinedMetricWarning)
        records = [
            {"model": m, **r}
            for m, c in MODELS.items()
            for r in metric_table(df2, truth="cut", proba=c, labels=LABELS, n_resamples=20)
        ]
        page = build_report(
            df2,
            truth="cut",
            proba=MODELS,
            labels=LABELS,
            n_resamples=20,
            table=records,
            source="two.csv",
        )
    assert _section(page, "metrics") == _section(page2, "metrics")
    assert _section(page, "differences") == _section(page2, "differences")
    with pytest.raises(ValueError, match="records of model 'hgb'"):
        build_report(df2, truth="cut", proba=MODELS, labels=LABELS, table=records[:3])


def test_several_models_without_resamples(df2):
    page = build_report(df2, truth="cut", proba=MODELS, labels=LABELS, n_resamples=0)
    assert "no paired differences" in _section(page, "differences")
    assert "interval" not in _section(page, "metrics")


def test_one_model_as_a_mapping_is_named(df):
    page = build_report(df, truth="cut", proba={"hgb": "hgb_"}, labels=LABELS, n_resamples=0)
    assert page.count(IMG) == 6 and "differences" not in parse(page).ids


def test_several_models_reject_bad_arguments(df2):
    with pytest.raises(ValueError, match="empty mapping"):
        build_report(df2, truth="cut", proba={}, labels=LABELS)
    with pytest.raises(TypeError, match="model names and must be non-empty strings"):
        build_report(df2, truth="cut", proba={1: "hgb_", "b": "logit_"}, labels=LABELS)
    renamed = df2.rename(columns={"fold": "model"})
    with pytest.raises(ValueError, match="by column 'model'"):
        build_report(renamed, truth="cut", proba=MODELS, labels=LABELS, by="model")


def test_report_command_with_models(tmp_path, df2, capsys):
    path = tmp_path / "two.csv"
    df2.to_csv(path, index=False)
    out = tmp_path / "r.html"
    base = ["report", str(path), "--truth", "cut", "--labels", ",".join(LABELS)]
    args = [*base, "--models", "hgb_,logit_", "--bootstrap", "10", "--out", str(out)]
    assert main(args) == 0
    page = out.read_text(encoding="utf-8")
    assert page.count(IMG) == 10 and "logit &minus; hgb" in page
    assert main([*base, "--models", "a=hgb_,b=logit_", "--bootstrap", "0", "--out", str(out)]) == 0
    assert "Probability columns of a</dt>" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*base, "--models", "hgb_", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two or more column prefixes" in err
    with pytest.raises(SystemExit) as exc:  # --models replaces --proba / --proba-prefix
        main([*base, "--models", "hgb_,logit_", "--proba-prefix", "hgb_", "--out", str(out)])
    assert exc.value.code == 2


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------

RETINOPATHY = [
    "No apparent retinopathy",
    "Mild non-proliferative retinopathy",
    "Moderate non-proliferative retinopathy",
    "Moderately severe non-proliferative retinopathy",
    "Proliferative retinopathy",
]


@pytest.fixture(scope="module")
def long_page(df2):
    long = df2.copy()
    long["cut"] = long["cut"].map(dict(zip(LABELS, RETINOPATHY, strict=True)))
    # the columns renamed with the classes: names that are not labels are an error
    long = long.rename(
        columns={f"{m}{a.replace(' ', '_')}": f"{m}{b}"
                 for a, b in zip(LABELS, RETINOPATHY, strict=True) for m in MODELS.values()}
    )  # fmt: skip
    return build_report(
        long, truth="cut", proba=MODELS, labels=RETINOPATHY, by="fold", n_resamples=0
    )


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.images: list[tuple[dict, list[tuple[str, str]]]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append((attrs, list(self.stack)))
        elif tag not in VOID:
            self.stack.append((tag, attrs.get("class") or ""))

    def handle_endtag(self, tag):
        if tag not in VOID:
            self.stack.pop()


@pytest.mark.parametrize("which", ["page", "page2", "long_page"])
def test_layout_is_a_responsive_grid(which, request):
    page = request.getfixturevalue(which)
    css = page[page.index("<style>") : page.index("</style>")]
    assert re.search(r"\.grid \{ display: grid;", css)
    assert "repeat(auto-fit, minmax(min(100%, 340px), 1fr))" in css
    assert "figure img { display: block; max-width: 100%; height: auto;" in css
    assert ".scroll { max-width: 100%; overflow-x: auto; }" in css
    # nothing is fixed wider than a small window: no width (only max-width) above 800 px
    for prop, value in re.findall(r"(?<![\w-])((?:min-)?width):\s*(\d+)px", page):
        assert int(value) <= 800, (prop, value)
    p = _Images()
    p.feed(page)
    assert p.images
    for attrs, stack in p.images:
        assert attrs["alt"].strip()
        assert "max-width:100%" in attrs["style"] and "width" not in attrs
        assert stack[-1][0] == "figure" and stack[-2] == ("div", stack[-2][1])
        assert stack[-2][1].split()[0] == "grid"
    # every table scrolls in its box rather than running off the page
    assert page.count("<table>") == page.count('<div class="scroll"><table>')


def test_long_labels_are_wrapped(long_page):
    from matplotlib.figure import Figure

    from ordmetrics.report.sections import _class_ticks, _short

    assert _short("Moderately severe non-proliferative retinopathy", 14) == (
        "Moderately\nsevere non-\nproliferative…"
    )
    assert all(len(line) <= 14 for line in _short("x" * 50, 14).split("\n"))
    fig = Figure()
    ax = fig.subplots()
    _class_ticks(ax, RETINOPATHY)
    xt = [t.get_text() for t in ax.get_xticklabels()]
    assert xt[3] == "Moderately\nsevere non-\nproliferative…"  # 3 lines at most
    assert xt[0] == "No apparent\nretinopathy"
    assert all(len(line) <= 17 for t in xt for line in t.split("\n"))  # 14 + a whole word
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    _class_ticks(ax, [f"{name} {i}" for i in range(3) for name in RETINOPATHY])  # 15 classes
    xt = [t.get_text() for t in ax.get_xticklabels()]
    assert all(len(t) <= 14 and "\n" not in t for t in xt)
    # the data strings themselves stay whole in the page's text
    text = " ".join(parse(long_page).text)
    assert " < ".join(RETINOPATHY) in text
    assert "Moderately severe non-proliferative retinopathy" in _section(long_page, "worst")


def test_legends_sit_below_the_axes():
    """The report moves legends under the Axes: they never cover the data."""
    from matplotlib.figure import Figure

    from ordmetrics.plot import reliability_diagram
    from ordmetrics.report.sections import _legend_below

    y = ["a", "b", "c"] * 20
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=60)
    fig = Figure(figsize=(5.0, 4.8), layout="constrained")
    ax = reliability_diagram(y, P, view="classwise", labels=["a", "b", "c"], ax=fig.subplots())
    before = fig.get_size_inches()[1]
    _legend_below(ax)
    assert fig.get_size_inches()[1] > before  # the figure grows to hold it
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.y1 < ax.get_window_extent(renderer).y0  # entirely under the Axes
    assert ax.get_legend().get_frame_on()


# --------------------------------------------------------------------------------------------
# In a real browser
# --------------------------------------------------------------------------------------------

CHROMIUM = next(
    (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).is_file()), None
)


def _screenshot(html_path: Path, png: Path, width: int, height: int) -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as profile:
        flags = [
            *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"),
            *("--no-first-run", "--disable-background-networking"),
            *("--disable-component-update", "--disable-sync"),
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
        ]
        subprocess.run(
            [CHROMIUM, *flags, html_path.resolve().as_uri()],
            check=True,
            timeout=120,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install -y chromium)")
@pytest.mark.parametrize("width", [1400, 800])
def test_report_renders_in_chromium(tmp_path, long_page, width):
    import matplotlib.image

    path = tmp_path / "report.html"
    path.write_text(long_page, encoding="utf-8")
    png = tmp_path / f"report-{width}.png"
    _screenshot(path, png, width, 2000)
    assert png.is_file() and png.stat().st_size > 50_000
    image = matplotlib.image.imread(png)
    assert image.shape[:2] == (2000, width)
    rgb = (image[..., :3].reshape(-1, 3) * 255).round().astype(np.int64)
    packed = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    assert len(values) > 200  # text and figures, not a blank or an error page
    assert counts.max() / packed.size < 0.95
    # the page fits its width: the right-most column is background, nothing runs off
    edge = image[:, -3:, :3].reshape(-1, 3)
    assert np.ptp(edge, axis=0).max() < 0.05


def test_several_models_with_a_missing_probability(df2):
    """nan_policy="omit": the figures leave out the rows incomplete in any model, and the
    differences are compare's on the rows complete in both."""
    from ordmetrics.report.tables import _differences, _read

    holes = df2.copy()
    holes.loc[7, LOGIT[2]] = np.nan
    page = build_report(
        holes, truth="cut", proba=MODELS, labels=LABELS, nan_policy="omit", n_resamples=10
    )
    assert "1 of 40 rows have a missing value and are left out of the figures" in page
    ds = [(m, _read(holes, "cut", c, None, LABELS, None, "omit")) for m, c in MODELS.items()]
    got = _differences(
        ds,
        ["rps", "qwk"],
        nan_policy="omit",
        decision="argmax",
        n_resamples=10,
        confidence_level=0.95,
        random_state=0,
    )
    y = holes["cut"].to_numpy(dtype=object)
    Pa, Pb = holes[LOGIT].to_numpy(), holes[PROBA].to_numpy()
    opts = {"n_resamples": 10, "random_state": 0, "labels": LABELS, "nan_policy": "omit"}
    rps = ordmetrics.compare("rps", y, Pa, Pb, **opts)
    assert (got[0]["difference"], got[0]["low"], got[0]["high"]) == (
        rps.difference,
        rps.low,
        rps.high,
    )
    keep = ~np.isnan(Pa).any(axis=1)
    pa = np.where(keep, ordmetrics.decide(np.where(keep[:, None], Pa, 0.2), labels=LABELS), None)
    qwk = ordmetrics.compare("qwk", y, pa, ordmetrics.decide(Pb, labels=LABELS), **opts)
    assert got[1]["difference"] == pytest.approx(qwk.difference, abs=1e-12)
    assert (got[1]["low"], got[1]["high"]) == pytest.approx((qwk.low, qwk.high), abs=1e-12)
