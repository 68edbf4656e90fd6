"""The log rules' weights, added after the logarithm (``kernels.block_sums``) while their
kernel runs without them: the counts and sums of the weighted kernel, in every chunk."""

from __future__ import annotations

import numpy as np
import pytest

from ordmetrics._core import kernels
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.scoring import get_rule

N = 3 * kernels.BLOCK * kernels.CHUNK_BLOCKS + 517  # chunks on threads, a short last one
K = 5


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(13)
    P = rng.dirichlet(np.ones(K), N)
    y = rng.integers(0, K, N)
    w = rng.uniform(0.0, 2.0, N)
    zero = np.arange(0, N, 977)
    P[zero] = 0.0
    P[zero, (y[zero] + 1) % K] = 1.0  # p_y = 0 ...
    w[zero] = 0.0  # ... on rows of weight 0: they add nothing, the mean stays finite
    return P, y, w


@pytest.mark.parametrize("name", ["log_loss", "pll"])
@pytest.mark.parametrize("rows", [False, True])
def test_weighted_kernel_counts_and_sums(name: str, rows: bool) -> None:
    P, y, w = _data()
    rule = get_rule(name)
    tol = sum_tolerance(P.dtype, K)
    total, wsum, n_bad, out = kernels.score_rows(P, y, w, 0.5, rule, rule.pack(), tol, rows)
    assert n_bad == 0 and wsum == pytest.approx(0.5 * w.sum(), rel=1e-14)
    ref = kernels.score_rows(P, y, None, 1.0, rule, rule.pack(), tol, True)[3]
    assert ref is not None
    if rows:
        assert out is not None and np.array_equal(out, ref)  # weights only validated
    else:
        keep = w > 0
        assert np.isfinite(total)
        assert total == pytest.approx(float(np.sum(0.5 * w[keep] * ref[keep])), rel=1e-13)
    # invalid weights in a chunk of valid rows, and in a chunk with invalid rows (counted once)
    wb = w.copy()
    wb[[5, 40_000, 70_000]] = [-1.0, np.nan, np.inf]
    Pb = P.copy()
    Pb[70_000, 0] = np.nan  # the same row as the infinite weight
    Pb[70_001, 0] = -0.5
    for rows_ in (False, True):
        res = kernels.score_rows(Pb, y, wb, 0.5, rule, rule.pack(), tol, rows_)
        # 4 invalid rows; log_loss's loop for any K (its range pass) also counts the 2
        # entries outside [0, 1], the unrolled loop at install does not
        assert res[2] in ((4, 6) if name == "log_loss" else (4,)) and res[3] is None
