"""Hostile variants of the messages about probabilities passed as decisions and about
probabilities in percent: missing values, data frames, lists, empty and odd arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ordmetrics as om

RNG = np.random.default_rng(7)
Y = RNG.integers(0, 3, 12)
P = RNG.dirichlet(np.ones(3), 12)


@pytest.mark.parametrize(
    "y_pred",
    [P.tolist(), P.astype(np.float32), np.eye(3)[Y]],
    ids=["list", "float32", "one-hot"],
)
def test_probability_like_y_pred_in_any_form(y_pred) -> None:
    with pytest.raises(
        ValueError, match=r"which looks like probabilities\. Pass ordmetrics\.decide"
    ):
        om.qwk(Y, y_pred)


@pytest.mark.parametrize(
    "y_pred",
    [
        np.where(P > 0.5, np.nan, P),  # NaN: not called probabilities
        np.zeros((0, 3)),  # empty
        np.array([["a", "b", "c"]] * 12),  # strings
        P[:, :, None],  # 3-D
        -P,  # negative
    ],
    ids=["nan", "empty", "strings", "3-D", "negative"],
)
def test_other_2d_y_pred_gets_the_plain_message(y_pred) -> None:
    with pytest.raises(ValueError, match=r"y_pred must be 1-D class predictions") as excinfo:
        om.qwk(Y, y_pred)
    assert "looks like probabilities" not in str(excinfo.value)
    assert "ordmetrics.decide(P)" in str(excinfo.value)


def test_percentages_with_a_missing_row_under_omit() -> None:
    Q = P * 100
    Q[3, 1] = math.nan
    with pytest.raises(ValueError, match=r"divide y_proba by 100"):
        om.rps(Y, Q, nan_policy="omit")


def test_percentages_in_a_data_frame() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(P * 100, columns=["p0", "p1", "p2"])
    with pytest.raises(ValueError, match=r"divide y_proba by 100"):
        om.brier(Y, df)


def test_percentages_of_a_metric_without_renormalize_do_not_offer_it() -> None:
    with pytest.raises(ValueError, match=r"divide y_score by 100") as excinfo:
        om.c_index(Y, P * 100)  # a 2-D y_score is read as probabilities
    assert "renormalize=True" not in str(excinfo.value)


def test_percentages_with_renormalize_true_are_scored() -> None:
    assert om.rps(Y, P * 100, renormalize=True) == pytest.approx(om.rps(Y, P), rel=1e-12)


def test_a_mix_of_percent_and_unit_rows_is_not_called_percentages() -> None:
    Q = P.copy()
    Q[0] *= 100
    with pytest.raises(ValueError, match=r"Apply a softmax first") as excinfo:
        om.rps(Y, Q)
    assert "percentages" not in str(excinfo.value)


def test_values_above_100_are_not_percentages() -> None:
    Q = P * 100
    Q[0] = [150.0, -25.0, -25.0]  # sums to 100, but outside [0, 100]
    with pytest.raises(ValueError, match=r"Apply a softmax first"):
        om.rps(Y, Q)


def test_infinite_percentages_are_reported_as_infinite() -> None:
    Q = P * 100
    Q[2, 0] = math.inf
    with pytest.raises(ValueError, match=r"y_proba has infinite values in row 2"):
        om.rps(Y, Q)
