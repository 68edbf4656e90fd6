"""Bootstrap of agreement metrics at many classes: bounded memory, and blocks that change no bit."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.evaluation import resample_counts as RC


def _data(k: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y_pred = np.clip(y + rng.integers(-2, 3, n), 0, k - 1)
    return y, y_pred


@pytest.mark.parametrize("metric", ["qwk", "mae", "expected_cost"])
def test_blocks_of_resamples_change_no_bit(monkeypatch, metric) -> None:
    """The agreement path evaluates the confusion counts of a few resamples at a time."""
    y, y_pred = _data(40, 300)
    whole = om.bootstrap(metric, y, y_pred, n_resamples=57, random_state=3, labels=range(40))
    monkeypatch.setattr(RC, "COUNTS_PER_BLOCK", 3 * 40 * 40 + 5)  # blocks of 3 resamples
    pieces = om.bootstrap(metric, y, y_pred, n_resamples=57, random_state=3, labels=range(40))
    np.testing.assert_array_equal(
        whole.distribution.view(np.int64), pieces.distribution.view(np.int64)
    )


def test_memory_does_not_grow_with_resamples_times_k_squared() -> None:
    """K = 400 and 999 resamples: 1.3 GB of confusion counts at once before, a block now."""
    y, y_pred = _data(400, 200)
    tracemalloc.start()
    try:
        om.bootstrap("qwk", y, y_pred, n_resamples=999, random_state=0, labels=range(400))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"peak {peak / 1e6:.0f} MB"
