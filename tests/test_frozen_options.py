"""A metric set keeps copies of its array options: editing the caller's cost matrix (or list)
afterwards does not change the set's results."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.evaluation.metric_entry import MetricEntry, frozen_option
from ordmetrics.stream import Evaluator

RNG = np.random.default_rng(5)
Y = RNG.integers(0, 3, 60)
P = RNG.dirichlet(np.ones(3), 60)
C = [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]]


def _expected_cost(costs: np.ndarray) -> float:
    """Mean cost of the arg-max decisions, by a plain loop."""
    d = P.argmax(axis=1)
    return float(np.mean([costs[t][p] for t, p in zip(Y, d, strict=True)]))


@pytest.mark.parametrize("as_list", [False, True], ids=["array", "list"])
def test_editing_the_cost_matrix_later_does_not_change_the_set(as_list: bool) -> None:
    costs = [row[:] for row in C] if as_list else np.array(C)
    ms = om.metric_set(("expected_cost", {"costs": costs}, "ec"))
    before = ms.compute(Y, P)["ec"]
    assert before == pytest.approx(_expected_cost(np.array(C)), rel=1e-12)
    costs[0][2] = 100.0  # the caller reuses the matrix
    assert ms.compute(Y, P)["ec"] == pytest.approx(before, rel=1e-12)


def test_an_array_option_is_a_read_only_copy() -> None:
    costs = np.array(C)
    entry = MetricEntry("expected_cost", {"costs": costs})
    kept = entry.options["costs"]
    assert kept is not costs and not np.shares_memory(kept, costs)
    assert not kept.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        kept[0, 0] = 1.0
    assert costs.flags.writeable  # the caller's array is left as it was


def test_a_streaming_evaluator_keeps_its_own_cost_matrix() -> None:
    costs = np.array(C)
    ev = Evaluator([("expected_cost", {"costs": costs}, "ec")])
    ev.update(Y[:30], P[:30])
    costs *= 10.0
    ev.update(Y[30:], P[30:])
    assert ev.compute()["ec"] == pytest.approx(_expected_cost(np.array(C)), rel=1e-12)


def test_scalars_and_strings_are_kept_as_they_are() -> None:
    for value in ("squared", 2, 1.5, True, None, (1, 2)):
        assert frozen_option(value) is value
