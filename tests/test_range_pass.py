"""The range of the probabilities, checked by a vectorised pass over each block of rows.

Where the class count has no unrolled loop (any K just in time; K outside ``UNROLLED_K`` at
install), most rules check that every entry lies in [0, 1] with one pass over each block
(``kernels.n_outside``) instead of a running minimum and maximum in each row's pass. An
entry just outside [0, 1], NaN or infinite, anywhere in the matrix (first or last row of a
block or of a chunk, first or last class), must still make the call raise (or, for NaN, follow
``nan_policy``); -0.0 is inside [0, 1].
"""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core import kernels

RULES = om.list_metrics("scoring_rule")
N = 70_001  # beyond the 1,024-row block and the 32-block chunk, the last ones short
ROWS = [0, kernels.BLOCK - 1, kernels.BLOCK, kernels.BLOCK * kernels.CHUNK_BLOCKS, N - 1]
OUTSIDE = [-1e-300, -5e-324, 1.0 + 2.0**-52, np.inf, -np.inf]


@pytest.fixture(scope="module", params=[2, 5, 7, 20])
def data(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray]:
    k = request.param
    rng = np.random.default_rng(20261124 + k)
    return rng.dirichlet(np.ones(k), N), rng.integers(0, k, N)


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("value", OUTSIDE)
def test_an_entry_outside_the_unit_interval_raises(data, name: str, value: float) -> None:
    P, y = data
    f = om.get_metric(name).func
    for j, row in enumerate(ROWS):  # first and last class, mean and per-sample, in turn
        Q = P.copy()
        Q[row, 0 if j % 2 else -1] = value
        with pytest.raises(ValueError, match=f"row {row}"):
            f(y, Q, reduction="none" if j % 2 else "mean")


@pytest.mark.parametrize("name", RULES)
def test_nan_follows_the_policy_at_every_place(data, name: str) -> None:
    P, y = data
    f = om.get_metric(name).func
    keep = np.ones(N, dtype=bool)
    Q = P.copy()
    for row in ROWS:
        Q[row, row % P.shape[1]] = np.nan
        keep[row] = False
    with pytest.raises(ValueError, match="NaN"):
        f(y, Q)
    assert f(y, Q, nan_policy="omit") == f(y[keep], P[keep])
    got = f(y, Q, nan_policy="propagate", reduction="none")
    assert np.isnan(got[~keep]).all()
    np.testing.assert_array_equal(got[keep], f(y[keep], P[keep], reduction="none"))


@pytest.mark.parametrize("name", RULES)
def test_negative_zero_is_inside_the_unit_interval(data, name: str) -> None:
    P, y = data
    f = om.get_metric(name).func
    Q = P.copy()
    Q[:, -1] = 0.0  # the last class's mass moved to the first: rows still sum to 1
    Q[:, 0] += P[:, -1]
    Q = Q / Q.sum(axis=1, keepdims=True)
    Z = Q.copy()
    Z[:, -1] = -0.0
    np.testing.assert_array_equal(f(y, Z, reduction="none"), f(y, Q, reduction="none"))
    assert f(y, Z) == f(y, Q)
