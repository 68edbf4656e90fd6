"""Adversarial inputs for the two passes of the quantile bins
(:mod:`ordmetrics.metrics.calibration.fused_quantile`): constant columns, forecasts crowded
near 0 (K = 20), weights 0 and extreme, and the sorted path forced. Every case is checked
against the binning module's sorted path (ECEs) or exact arithmetic (decompositions)."""

from __future__ import annotations

import numpy as np
import pytest

from ordmetrics.metrics.calibration import fused as CF
from test_calibration_quantile import _check_against_reference
from test_calibration_quantile_moments import N_ROWS, _check, _moments_ran

VIEWS = ["top_label", "classwise", "cumulative"]


def _constant_column(rng, n, k):
    """Column 0 the same value in every row (an exact binary fraction), the rest Dirichlet."""
    P = rng.dirichlet(np.ones(k - 1), size=n) * 0.75
    return rng.integers(0, k, n), np.hstack([np.full((n, 1), 0.25), P])


def _crowded(rng, n, k):
    """Dirichlet(0.05): most forecasts within 1e-6 of 0, many exactly 0."""
    P = rng.dirichlet(np.full(k, 0.05), size=n)
    P[P < 1e-12] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    return rng.integers(0, k, n), P


@pytest.mark.parametrize("view", VIEWS)
def test_a_constant_column(rng, view):
    y, P = _constant_column(rng, N_ROWS, 4)
    _check_against_reference(view, y, P, None, 10)


def test_all_rows_equal(rng):
    y = rng.integers(0, 3, N_ROWS)
    P = np.tile([0.5, 0.25, 0.25], (N_ROWS, 1))
    for view in VIEWS:
        _check_against_reference(view, y, P, None, 7)


@pytest.mark.parametrize("n", [500, N_ROWS])
def test_forecasts_crowded_near_zero_classwise_k20(rng, n):
    y, P = _crowded(rng, n, 20)
    _check_against_reference("classwise", y, P, None, 15)
    _check_against_reference("cumulative", y, P, rng.uniform(0.5, 2.0, n), 15)


def test_zero_and_extreme_weights(rng):
    y, P = rng.integers(0, 5, N_ROWS), rng.dirichlet(np.ones(5), size=N_ROWS)
    w = rng.integers(0, 2, N_ROWS).astype(float)  # half the rows weigh nothing
    for view in VIEWS:
        _check_against_reference(view, y, P, w, 15)
    w = np.where(rng.random(N_ROWS) < 0.01, 1e200, 1e-200)  # a few rows weigh everything
    for view in VIEWS:
        _check_against_reference(view, y, P, w, 15)
    w = np.zeros(N_ROWS)
    w[rng.integers(0, N_ROWS, 3)] = 1.0  # three rows of weight
    for view in VIEWS:
        _check_against_reference(view, y, P, w, 15)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_decompositions_on_adversarial_inputs(rng, rule):
    y, P = _crowded(rng, N_ROWS, 6)
    _check(rule, y, P, None, 15, rtol=1e-11)
    y, P = _constant_column(rng, N_ROWS, 4)
    _check(rule, y, P, rng.integers(0, 3, N_ROWS) * 0.5, 8, rtol=1e-11)


def test_the_sorted_path_forced(rng, monkeypatch):
    """With nothing allowed to sort (``_MAX_SORTED_FRACTION`` 0, no slack) every call takes
    the binning module's sorted path and gives its values."""
    y, P = rng.integers(0, 4, N_ROWS), rng.dirichlet(np.ones(4), size=N_ROWS)
    w = rng.uniform(0.5, 2.0, N_ROWS)
    expected = {v: _check_against_reference(v, y, P, w, 9) for v in VIEWS}
    assert all(expected.values())  # the two passes ran
    monkeypatch.setattr(CF, "_MAX_SORTED_FRACTION", -1.0)
    for view in VIEWS:
        inp = CF.fast_input(y, P, None, w, "raise", False)
        assert CF.event_sums(inp, view, 9, "quantile") is None
        _check_against_reference(view, y, P, w, 9)
    for rule in ("brier", "rps"):
        assert not _moments_ran(rule, y, P, w, 9)
        _check(rule, y, P, w, 9, rtol=1e-11)
