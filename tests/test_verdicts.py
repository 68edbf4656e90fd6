"""One verdict: the interval of a paired difference, its p-value and the better side agree.

:func:`ordmetrics.compare`, :func:`~ordmetrics.evaluation.resampling.paired_difference`, the
HTML report and ``ordmetrics compare`` / ``report`` / ``demo`` name a better model only when
the p-value is below alpha = 1 - confidence level, which is exactly when the interval of the
difference excludes 0; and they all resample ``DEFAULT_RESAMPLES`` times unless told
otherwise, so that they reach the same verdict on the same file.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.evaluation.resample_intervals import (
    BootstrapResult,
    _paired_test,
    significance_level,
)
from ordmetrics.evaluation.resampling import DEFAULT_RESAMPLES, paired_difference
from ordmetrics.report import cli
from ordmetrics.report.cli import main
from ordmetrics.report.markup import p_text as _p_text

LEVELS = (0.95, 0.9, 0.99, 0.8, 0.5, 0.999)


def _excludes(low: float, high: float) -> bool:
    return low > 0.0 or high < 0.0


def _random_differences(rng: np.random.Generator) -> np.ndarray:
    """A set of resampled differences of every shape that matters: any size, centred near 0
    or not, with ties, exact zeros and infinite values."""
    b = int(rng.choice([2, 5, 19, 39, 40, 41, 99, 200, 999, 1000, int(rng.integers(2, 3000))]))
    d = rng.normal(rng.normal(0.0, 2.5 / math.sqrt(b)), 1.0, size=b)
    kind = rng.integers(0, 4)
    if kind == 1:  # ties and exact zeros (identical sides on some resamples)
        d = np.round(d * 3.0) / 3.0
    elif kind == 2:  # infinite values (a log loss of 0 on some resamples)
        d[rng.random(b) < 0.05] = rng.choice([-np.inf, np.inf])
    elif kind == 3:  # every difference on one side
        d = np.abs(d) * rng.choice([-1.0, 1.0])
    return d


def _jackknife(rng: np.random.Generator) -> np.ndarray:
    return rng.normal(size=int(rng.integers(3, 60))) ** int(rng.integers(1, 4))


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_interval_and_p_value_agree_on_every_set_of_resamples(method):
    """The property: for every set of resampled differences and every level,
    (the interval excludes 0) == (p < alpha)."""
    rng = np.random.default_rng(20240601)
    checked = 0
    for _ in range(3000 if method == "percentile" else 1500):
        d = _random_differences(rng)
        estimate = float(np.median(d[np.isfinite(d)])) if np.isfinite(d).any() else 0.0
        jack = _jackknife(rng)
        for level in LEVELS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = _paired_test(d, estimate, method, level, lambda j=jack: j, "d")
            if math.isnan(t.p_value):  # BCa undefined: every value on one side of it
                assert method == "bca" and math.isnan(t.low) and math.isnan(t.high)
                continue
            alpha = significance_level(level)
            assert _excludes(t.low, t.high) == (t.p_value < alpha), (d.size, level, t)
            assert 0.0 <= t.p_value <= 1.0 and t.low <= t.high
            checked += 1
    assert checked > 5_000


def test_percentile_p_value_is_that_of_davison_and_hinkley():
    """p = min(1, 2 (1 + min(#(d <= 0), #(d >= 0))) / (B + 1)), and the interval excludes 0
    at every alpha just above p and not just below it."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        d = _random_differences(rng)
        b = d.size
        want = min(1.0, 2 * (1 + min(np.sum(d <= 0), np.sum(d >= 0))) / (b + 1))
        t = _paired_test(d, 0.0, "percentile", 0.95, None, "d")
        assert t.p_value == want  # the same float expression: bitwise equal
        if want < 1.0:
            just_above = _paired_test(d, 0.0, "percentile", 1.0 - want * 1.000001, None, "d")
            assert _excludes(just_above.low, just_above.high)
            just_below = _paired_test(d, 0.0, "percentile", 1.0 - want * 0.999999, None, "d")
            assert not _excludes(just_below.low, just_below.high)


def test_interval_ends_are_the_order_statistics_of_the_rule():
    """999 resamples at 95%: the 24th smallest and largest (2 (n + 1) / 1000 < 0.05 for
    n < 24); 1000 resamples: the 25th."""
    d = np.arange(1.0, 1000.0)
    t = _paired_test(d, 0.0, "percentile", 0.95, None, "d")
    assert (t.low, t.high) == (24.0, 976.0)
    d = np.arange(1.0, 1001.0)
    t = _paired_test(d, 0.0, "percentile", 0.95, None, "d")
    assert (t.low, t.high) == (25.0, 976.0)


def _pair(d: np.ndarray, metric: str = "rps") -> tuple[BootstrapResult, BootstrapResult]:
    """Two bootstrap results whose resampled differences are exactly ``d``."""
    zeros = np.zeros_like(d)

    def result(values: np.ndarray) -> BootstrapResult:
        return BootstrapResult(
            estimate=float(np.mean(values)),
            mean=float(np.mean(values)),
            std=float(np.std(values)),
            low=0.0,
            high=0.0,
            distribution=values,
            method="percentile",
            confidence_level=0.95,
            n_resamples=values.size,
            metric=metric,
        )

    return result(d), result(zeros)


def test_no_better_side_next_to_a_p_value_above_alpha():
    """1000 differences, 25 of them <= 0: p = 52 / 1001 = 0.0519 >= 0.05, while the
    linearly interpolated 2.5% quantile lies above 0; no side may be called better."""
    d = np.concatenate([np.linspace(-1.0, -0.1, 25), np.linspace(0.5, 2.0, 975)])
    assert np.quantile(d, 0.025) > 0  # what the interval used to be
    res = paired_difference(*_pair(d))
    assert res.p_value == pytest.approx(52 / 1001, rel=1e-15)
    assert res.better is None and res.low <= 0.0 <= res.high
    # one fewer on the other side: p = 0.0500 (not below 0.05 either) with 999 resamples
    res = paired_difference(*_pair(d[1:]))
    assert res.p_value == 0.05 and res.better is None and res.low < 0.0
    res = paired_difference(*_pair(d[2:]))  # 23 of 998 <= 0: p = 48 / 999 < 0.05
    assert res.p_value < 0.05 and res.better == "b" and res.low > 0.0


def test_too_few_resamples_warn_and_name_no_side():
    """With 20 resamples p >= 2/21 = 0.095: a warning, an unbounded interval, no verdict,
    even when every resampled difference favours one side."""
    y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1] * 6)
    good = np.eye(3)[y] * 0.7 + 0.1
    vague = np.full((y.size, 3), 1 / 3)
    with pytest.warns(UserWarning, match=r"20 resamples .* cannot fall below 0\.0952.* least 40"):
        res = om.compare("rps", y, good, vague, n_resamples=20, random_state=0)
    assert (res.distribution < 0).all()
    assert res.p_value == pytest.approx(2 / 21, rel=1e-15)
    assert res.better is None and (res.low, res.high) == (-math.inf, math.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 40 resamples: p can reach 2/41 < 0.05, no warning
        res = om.compare("rps", y, good, vague, n_resamples=40, random_state=0)
    assert res.better == "a" and res.p_value == pytest.approx(2 / 41, rel=1e-15)


def test_significance_level_is_the_decimal_alpha():
    assert significance_level(0.95) == 0.05
    assert significance_level(0.9) == 0.1
    assert significance_level(0.999) == 0.001


def test_p_value_text_is_never_rounded_across_alpha():
    assert _p_text(50 / 1001, 0.05) == "0.04995"  # below 0.05, would print as 0.0500
    assert _p_text(0.05, 0.05) == "0.0500"
    assert _p_text(48 / 1000, 0.05) == "0.0480"
    assert _p_text(math.nan, 0.05) == "nan"


# --------------------------------------------------------------------------------------------
# One default number of resamples
# --------------------------------------------------------------------------------------------


def test_one_default_number_of_resamples():
    from ordmetrics.report.html import build_report

    assert cli.DEFAULT_RESAMPLES == DEFAULT_RESAMPLES
    for func in (om.bootstrap, om.compare, build_report):
        default = inspect.signature(func).parameters["n_resamples"].default
        assert default == DEFAULT_RESAMPLES, func.__name__
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    for command in ("compare", "report", "demo"):
        boot = next(a for a in sub[command]._actions if a.dest == "bootstrap")
        assert boot.default == DEFAULT_RESAMPLES, command
        assert f"default {DEFAULT_RESAMPLES}" in boot.help, command


# --------------------------------------------------------------------------------------------
# report and compare on the same file
# --------------------------------------------------------------------------------------------


def _close_models(path: Path, n: int = 400) -> Path:
    """Two models of nearly the same quality, so that the verdicts are not foregone."""
    rng = np.random.default_rng(11)
    latent = rng.normal(size=n)
    y = np.digitize(latent + rng.normal(scale=0.8, size=n), [-1.0, 0.0, 1.0])

    def model(noise: float, seed: int) -> np.ndarray:
        z = latent + np.random.default_rng(seed).normal(scale=noise, size=n)
        cdf = 1.0 / (1.0 + np.exp(-2.0 * (np.array([-1.0, 0.0, 1.0])[None, :] - z[:, None])))
        return np.diff(np.column_stack([np.zeros(n), cdf, np.ones(n)]), axis=1)

    a, b = model(0.5, 1), model(0.7, 2)
    head = ["y", *(f"a_{k}" for k in range(4)), *(f"b_{k}" for k in range(4))]
    lines = [",".join(head)]
    for i in range(n):
        probs = [repr(float(v)) for v in (*a[i], *b[i])]
        lines.append(",".join([str(y[i]), *probs]))
    path.write_text("\n".join(lines) + "\n")
    return path


def _report_differences(page: str) -> dict[str, tuple[float, str]]:
    """metric -> (p-value, better) of the report's table of paired differences."""
    section = page[page.index('id="differences"') :]
    section = section[: section.index("</section>")]
    out = {}
    for row in re.findall(r"<tr>(.*?)</tr>", section, flags=re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        if cells:
            out[cells[0]] = (float(cells[5]), cells[6])
    return out


def test_report_and_compare_reach_one_verdict_by_default(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = _close_models(tmp_path / "close.csv")
    common = ["--truth", "y", "--metrics", "rps,brier,qwk,log_loss"]
    assert main(["compare", str(path), *common, "--models", "b_,a_", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["n_resamples"] == DEFAULT_RESAMPLES
    out = tmp_path / "r.html"
    assert main(["report", str(path), *common, "--models", "b_,a_", "--out", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert f"{DEFAULT_RESAMPLES} resamples" in page
    assert "lower for a metric to minimize, higher for one to maximize" in page
    shown = _report_differences(page)
    verdicts = set()
    for rec in got["comparisons"]:
        p, better = shown[rec["metric"]]
        assert p == pytest.approx(rec["p_value"], abs=5e-4)  # the report shows 3 decimals
        assert better == (rec["better"] or "no clear difference"), rec["metric"]
        assert (rec["better"] is not None) == (rec["p_value"] < 0.05), rec
        verdicts.add(rec["better"])
    assert len(verdicts) == 2, verdicts  # some metric names a model and some does not


def test_compare_table_states_the_rule(tmp_path, capsys):
    path = _close_models(tmp_path / "close.csv", n=200)
    args = ["compare", str(path), "--truth", "y", "--models", "a_,b_", "--metrics", "rps"]
    assert main([*args, "--bootstrap", "20"]) == 0
    captured = capsys.readouterr()
    assert "better: the model whose metric is better (lower for a minimize metric" in (captured.out)
    assert "named exactly when p_value < alpha" in captured.out
    row = [line for line in captured.out.splitlines() if line.startswith("rps ")][-1]
    assert row.split()[-1] == "-" and "[-inf, inf]" in row
    assert captured.err.count("cannot fall below 0.0952") == 1


def test_too_few_resamples_are_said_once_for_all_metrics(tmp_path, capsys):
    path = _close_models(tmp_path / "close.csv", n=200)
    args = ["compare", str(path), "--truth", "y", "--models", "a_,b_", "--bootstrap", "20"]
    assert main([*args, "--metrics", "rps,brier,log_loss"]) == 0
    assert capsys.readouterr().err.count("cannot fall below") == 1


def test_the_report_prints_p_values_that_agree_with_its_verdict():
    """The HTML table of paired differences prints p = 50/1001 as 0.04995 beside its verdict,
    not as 0.050 (three decimals put it on the other side of alpha)."""
    from ordmetrics.report.markup import _differences_html

    row = {"metric": "rps", "a": "x", "b": "y", "difference": -0.01, "low": -0.02}
    page = _differences_html([{**row, "high": -1e-4, "p_value": 50 / 1001, "better": "x"}], 0.95)
    assert ">0.04995<" in page and "0.050<" not in page
