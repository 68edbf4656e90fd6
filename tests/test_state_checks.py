"""A streaming state's score sums are checked against the metric's range times the total
weight: an edited ``rps = 1e308`` is refused, while the largest honest sums still load."""

from __future__ import annotations

import numpy as np
import pytest

from ordmetrics.stream import Evaluator

K = 4
RULES = ["rps", "sa_rps", "brier", "pbs", "spherical", "cdf_l1"]


def _worst(n: int, k: int = K) -> tuple[np.ndarray, np.ndarray]:
    """Every row scored at its worst: truth 0, all mass on the last class."""
    P = np.zeros((n, k))
    P[:, k - 1] = 1.0
    return np.zeros(n, dtype=np.int64), P


def test_the_filed_rps_1e308_is_refused() -> None:
    ev = Evaluator(["rps"])
    ev.update([0, 1, 2], [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    state = ev.state_dict()
    state["scoring"]["rps"] = 1e308
    fresh = Evaluator(["rps"])
    with pytest.raises(
        ValueError, match=r"field 'scoring\.rps' must lie in \[0, 1 x total_weight\]"
    ):
        fresh.load_state_dict(state)
    assert fresh.n_rows == 0  # unchanged


@pytest.mark.parametrize("rule", RULES)
def test_the_largest_honest_sum_loads_and_a_larger_one_is_refused(rule: str) -> None:
    y, P = _worst(50)
    w = np.linspace(0.5, 3.0, 50)
    ev = Evaluator([rule])
    ev.update(y, P, sample_weight=w)
    state = ev.state_dict()
    assert Evaluator.from_state_dict(state).compute()[rule] == pytest.approx(
        ev.compute()[rule], rel=1e-12
    )
    state["scoring"][rule] = state["scoring"][rule] * 2.0 + 1.0  # beyond any honest sum
    with pytest.raises(ValueError, match=rf"field 'scoring\.{rule}' must lie in \[0, "):
        Evaluator([rule]).load_state_dict(state)


def test_rows_at_the_row_sum_tolerance_still_load() -> None:
    # truth K - 1, all mass on class 0 and K 5e-7 more on class 1: the row sums to 1 + K 5e-7
    # (accepted, scored as given) and its RPS is above the largest of a row summing to 1
    P = np.zeros((20, K))
    P[:, 0], P[:, 1] = 1.0, K * 5e-7
    y = np.full(20, K - 1)
    ev = Evaluator(["rps", "brier"])
    ev.update(y, P)
    state = ev.state_dict()
    assert state["scoring"]["rps"] > state["total_weight"]  # above range max x total weight
    assert Evaluator.from_state_dict(state).compute()["rps"] == pytest.approx(
        ev.compute()["rps"], rel=1e-12
    )


def test_the_bound_follows_the_options() -> None:
    # normalize=False: RPS in [0, K - 1]
    y, P = _worst(10)
    ev = Evaluator([("rps", {"normalize": False}, "raw")])
    ev.update(y, P)
    state = ev.state_dict()
    assert state["scoring"]["raw"] == pytest.approx((K - 1) * 10, rel=1e-12)
    Evaluator.from_state_dict(state)  # loads
    state["scoring"]["raw"] = K * 10.0
    with pytest.raises(ValueError, match=r"must lie in \[0, 3 x total_weight\] = \[0, 30\]"):
        Evaluator.from_state_dict(state)


def test_an_unbounded_rule_keeps_an_infinite_sum() -> None:
    ev = Evaluator(["log_loss"])
    ev.update([0, 1], [[0.0, 1.0], [0.5, 0.5]])  # p_y = 0: an infinite score
    state = ev.state_dict()
    assert state["scoring"]["log_loss"] == np.inf
    assert Evaluator.from_state_dict(state).compute()["log_loss"] == np.inf


def test_a_state_of_no_weight_must_hold_no_score() -> None:
    ev = Evaluator(["rps"])
    ev.update([0, 1], [[0.5, 0.5], [0.5, 0.5]], sample_weight=[0.0, 0.0])
    state = ev.state_dict()
    assert state["total_weight"] == 0.0
    Evaluator.from_state_dict(state)
    state["scoring"]["rps"] = 1.0
    with pytest.raises(ValueError, match=r"field 'scoring\.rps'"):
        Evaluator.from_state_dict(state)


def test_huge_weights_load() -> None:
    y, P = _worst(8)
    ev = Evaluator(["rps", "brier"])
    ev.update(y, P, sample_weight=np.full(8, 1e300))
    out = Evaluator.from_state_dict(ev.state_dict()).compute()
    assert out["rps"] == pytest.approx(1.0, rel=1e-12)
    assert out["brier"] == pytest.approx(2.0, rel=1e-12)
