"""Messages that point the right way: probabilities passed where a metric takes decisions,
probabilities in percent, and the row-sum tolerance that accepts a 6-decimal export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.evaluation.resampling import bootstrap
from ordmetrics.report.cli import main

RNG = np.random.default_rng(11)
N, K = 40, 4
Y = RNG.integers(0, K, N)
P = RNG.dirichlet(np.ones(K), N)


# --------------------------------------------------------------------------------------------
# y_pred given probabilities
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: om.qwk(Y, P),
        lambda: om.mae(Y, P),
        lambda: om.expected_cost(Y, P),
        lambda: bootstrap("qwk", Y, P, n_resamples=10, random_state=0),
    ],
    ids=["qwk", "mae", "expected_cost", "bootstrap-qwk"],
)
def test_probabilities_as_y_pred_name_decide(call) -> None:
    with pytest.raises(ValueError) as excinfo:
        call()
    msg = str(excinfo.value)
    assert msg.startswith("y_pred must be 1-D class predictions")
    assert f"shape ({N}, {K}), which looks like probabilities" in msg
    assert "ordmetrics.decide(P)" in msg
    assert "decision='argmax'" in msg
    assert "truth" not in msg  # the old message spoke of one-hot truth


def test_the_named_fix_works_for_bootstrap() -> None:
    res = bootstrap("qwk", Y, om.decide(P), n_resamples=20, random_state=0)
    assert res.estimate == pytest.approx(om.qwk(Y, om.decide(P)), rel=1e-12)


def test_probabilities_as_y_pred_with_labels_name_decide_with_labels() -> None:
    labels = ["a", "b", "c", "d"]
    y = np.array(labels, dtype=object)[Y]
    with pytest.raises(ValueError, match=r"ordmetrics\.decide\(P, labels=labels\)"):
        om.qwk(y, P, labels=labels)


def test_a_2d_y_pred_that_is_not_probabilities_is_not_called_probabilities() -> None:
    with pytest.raises(ValueError, match=r"y_pred must be 1-D class predictions") as excinfo:
        om.qwk(Y, np.full((N, K), 3.0))
    assert "looks like probabilities" not in str(excinfo.value)


def test_a_one_hot_y_true_still_says_one_hot_truth() -> None:
    with pytest.raises(ValueError, match=r"y_true must be 1-D") as excinfo:
        om.qwk(np.eye(K)[Y], Y)
    assert "One-hot truth is not accepted" in str(excinfo.value)
    assert "y_true.argmax(axis=1)" in str(excinfo.value)


# --------------------------------------------------------------------------------------------
# percentages
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", [om.rps, om.brier, om.log_loss])
def test_percentages_are_told_to_divide_by_100(rule) -> None:
    with pytest.raises(ValueError, match=r"y_proba must lie in \[0, 1\]") as excinfo:
        rule(Y, P * 100)
    msg = str(excinfo.value)
    assert "look like percentages" in msg and "divide y_proba by 100" in msg
    assert "softmax" not in msg


def test_whole_percentages_summing_to_99_are_percentages() -> None:
    with pytest.raises(ValueError, match=r"divide y_proba by 100"):
        om.rps([0, 2], [[33, 33, 33], [20, 30, 50]])


@pytest.mark.parametrize(
    "values",
    [
        np.log(P),  # logits: negative values
        P * 7.0,  # non-negative scores whose rows sum to 7, not 100
    ],
    ids=["logits", "scores"],
)
def test_logits_and_scores_keep_the_softmax_message(values) -> None:
    with pytest.raises(ValueError, match=r"Are these logits or scores\? Apply a softmax") as e:
        om.rps(Y, values)
    assert "percentages" not in str(e.value)


# --------------------------------------------------------------------------------------------
# the row-sum tolerance accepts a 6-decimal export
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 5, 10, 50])
def test_sum_tolerance_covers_rounding_to_six_decimals(k: int) -> None:
    tol = sum_tolerance(np.dtype(np.float64), k)
    assert tol >= k * 5e-7 and tol == pytest.approx(max(1e-6, k * 5e-7), rel=1e-8)
    # float32: the rounding and four units of float32 roundoff per class
    tol32 = sum_tolerance(np.dtype(np.float32), k)
    assert tol32 == pytest.approx(max(1e-6, k * (5e-7 + 4 * 2.0**-23)), rel=1e-12)


def test_the_filed_row_summing_to_1_000001_is_scored_as_given() -> None:
    row = [0.333334, 0.333334, 0.333333]  # rounded thirds: sums to 1.000001
    got = om.rps([0], [row])
    # RPS by hand on the row as given: ((F_0 - 1)^2 + (F_1 - 1)^2) / (K - 1)
    f0, f1 = row[0], row[0] + row[1]
    assert got == pytest.approx(((f0 - 1) ** 2 + (f1 - 1) ** 2) / 2, rel=1e-12)


@pytest.mark.parametrize("k", [3, 5, 12])
def test_rows_rounded_to_six_decimals_pass_by_default(k: int) -> None:
    rng = np.random.default_rng(k)
    Q = rng.dirichlet(np.ones(k), 2000).round(6)
    y = rng.integers(0, k, 2000)
    assert (np.abs(Q.sum(axis=1) - 1) > 1e-6).any()  # the old tolerance refused these
    for rule in (om.rps, om.brier, om.log_loss, om.pbs):
        scores = rule(y, Q, reduction="none")
        assert np.isfinite(scores).all()


def test_a_row_just_beyond_the_tolerance_still_raises() -> None:
    # K = 3: tolerance 1.5e-6; a row off by 2e-6 is more than 6-decimal rounding can give
    with pytest.raises(ValueError, match=r"must sum to 1 \(tolerance 1\.5e-06\)"):
        om.rps([0], [[0.333334, 0.333334, 0.333334]])


def test_cli_accepts_a_csv_rounded_to_six_decimals(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(3)
    Q = rng.dirichlet(np.ones(5), size=400).round(6)
    y = rng.integers(0, 5, size=400)
    path = tmp_path / "rounded.csv"
    rows = (f"{t}," + ",".join(f"{v:.6f}" for v in r) for t, r in zip(y, Q, strict=True))
    path.write_text("y,p0,p1,p2,p3,p4\n" + "\n".join(rows) + "\n")
    assert (np.abs(Q.sum(axis=1) - 1) > 1e-6).any()
    args = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p"]
    assert main([*args, "--metrics", "rps,brier", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["estimate"] == pytest.approx(om.rps(y, Q), rel=1e-12)
    assert records[1]["estimate"] == pytest.approx(om.brier(y, Q), rel=1e-12)
