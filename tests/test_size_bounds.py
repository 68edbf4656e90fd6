"""Size parameters with an upper bound (a ValueError naming the parameter and the memory, before
anything is allocated), and the memory of CORP: one event at a time, O(N) per event."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.metrics.calibration.binning import MAX_BINS
from ordmetrics.metrics.corp import corp_decomposition, corp_reliability
from ordmetrics.metrics.corp.reliability import MAX_BAND_RESAMPLES

Y = [0, 1, 1]
P = [[0.6, 0.4], [0.3, 0.7], [0.2, 0.8]]


@pytest.mark.parametrize(
    "func",
    [
        om.ece,
        om.classwise_ece,
        om.cumulative_ece,
        om.reliability,
        om.brier_decomposition,
        om.rps_decomposition,
    ],
)
def test_n_bins_is_bounded_before_any_allocation(func):
    with pytest.raises(ValueError, match=r"n_bins must be at most 65,536 \(2\^16, MAX_BINS\)"):
        func(Y, P, n_bins=10**8)
    with pytest.raises(ValueError, match=r"71\.5 GiB per event"):
        func(Y, P, n_bins=10**8)
    func(Y, P, n_bins=MAX_BINS)  # the bound itself is accepted
    with pytest.raises(ValueError, match="got 65,537"):
        func(Y, P, n_bins=MAX_BINS + 1)


def test_corp_n_resamples_is_bounded_before_any_allocation():
    with pytest.raises(
        ValueError, match=r"n_resamples must be at most 65,536 \(2\^16, MAX_BAND_RESAMPLES\)"
    ):
        corp_reliability(Y, P, n_resamples=10**7)
    with pytest.raises(ValueError, match=r"153 GiB per event"):
        corp_reliability(Y, P, n_resamples=10**7)
    with pytest.raises(ValueError, match="got 65,537"):
        corp_reliability(Y, P, n_resamples=MAX_BAND_RESAMPLES + 1)
    assert corp_reliability(Y, P, n_resamples=5, random_state=0).n_resamples == 5


def _peak(func):
    tracemalloc.start()
    try:
        result = func()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, current, peak


@pytest.fixture(scope="module")
def large():
    n, k = 200_000, 20
    rng = np.random.default_rng(0)
    Pl = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    w = rng.random(n)
    corp_decomposition(y[:50], Pl[:50])  # compiled kernels loaded outside the measurement
    return y, Pl, w


def test_corp_decomposition_memory_is_o_n_per_event(large):
    y, Pl, w = large
    cells = Pl.size
    # measured 7.7 bytes per probability cell at N = 2e5, K = 20 (was 70): a few vectors of N
    for score, weight in (("rps", None), ("brier", w)):
        _, _, peak = _peak(
            lambda s=score, wt=weight: corp_decomposition(y, Pl, score=s, sample_weight=wt)
        )
        assert peak < 16 * cells, (score, peak / cells)


def test_corp_reliability_memory_is_its_curves_and_o_n(large):
    y, Pl, w = large
    cells = Pl.size
    # measured: the curves kept 32 bytes per cell (four values per distinct forecast, every
    # forecast distinct here), the peak 5 bytes per cell above them (was 85 in all)
    for event, weight in (("cumulative", None), ("class", w)):
        r, kept, peak = _peak(
            lambda e=event, wt=weight: corp_reliability(y, Pl, event=e, sample_weight=wt)
        )
        assert len(r.curves) == (19 if event == "cumulative" else 20)
        assert peak - kept < 12 * cells, (event, (peak - kept) / cells)
