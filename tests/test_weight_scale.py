"""The weights' power-of-two scale applied inside the scoring kernels (no scaled copy).

``weight_scale`` gives the factor 2^-e that the kernels multiply every weight by as they read
it; the product rounds the same exact value as ``scale_weights``' scaled copy, so every rule
gives the same bits as with that copy, whatever the scale of the weights.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics as om
from ordmetrics._core import kernels
from ordmetrics._core.numerics import scale_weights, weight_exponent, weight_scale
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.scoring import get_rule

N = 5_000  # several blocks of kernels.BLOCK rows
K = 5
SCALES = [1e-310, 2.0**-1021, 1e-300, 1e-5, 1.0, 3.0, 1e10, 1e300, 1.7e308]


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261124)
    P = rng.dirichlet(np.ones(K), N)
    y = rng.integers(0, K, N)
    w = rng.uniform(0.0, 1.0, N)
    w[::7] = 0.0
    return y, P, w


def _same(a: float | np.ndarray, b: float | np.ndarray) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.parametrize("scale", SCALES)
def test_factor_times_weight_is_the_scaled_copy(data, scale: float) -> None:
    w = data[2] * scale
    copy, e_copy = scale_weights(w)
    same, ws, e = weight_scale(w)
    assert e == e_copy == weight_exponent(w)
    assert np.array_equal(same * ws, copy)
    if e > -1022:
        assert same is w  # no copy
    else:
        assert ws == 1.0


def test_weight_exponent_fast_and_slow_paths_agree() -> None:
    w = np.array([0.25, 3.0, 0.0])
    assert weight_exponent(w) == 2
    # negative, NaN and infinite weights: the largest finite |w| (validation reports them)
    assert weight_exponent(np.array([0.25, -12.0, np.nan])) == 4
    assert weight_exponent(np.array([np.inf, 0.75])) == 0
    assert weight_exponent(np.array([0.0, 0.0])) == 0
    assert weight_exponent(np.array([5e-324])) == -1073


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
@pytest.mark.parametrize("rows", [False, True])
def test_rules_give_the_bits_of_the_scaled_copy(data, scale: float, name: str, rows: bool) -> None:
    y, P, w0 = data
    w = w0 * scale
    rule = get_rule(name)
    tol = sum_tolerance(P.dtype, K)
    copy, _ = scale_weights(w)
    same, ws, _ = weight_scale(w)
    want = kernels.score_rows(P, y, copy, 1.0, rule, rule.pack(), tol, rows)
    got = kernels.score_rows(P, y, same, ws, rule, rule.pack(), tol, rows)
    assert got[:3] == want[:3]
    assert (got[3] is None and want[3] is None) or _same(got[3], want[3])


@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
def test_weighted_mean_does_not_depend_on_the_scale(data, name: str) -> None:
    """Scaling the weights by a power of two changes no bit of the weighted mean."""
    y, P, w = data
    f = om.get_metric(name).func
    ref = f(y, P, sample_weight=w)
    for e in (-1000, -40, 1, 3, 900):
        assert f(y, P, sample_weight=np.ldexp(w, e)) == ref


@pytest.mark.parametrize("scale", [3.0, 1e300])
@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
def test_the_threaded_chunks_give_the_bits_of_the_scaled_copy(scale: float, name: str) -> None:
    """Above the parallel threshold (2^20 entries) and over several chunks of blocks, the last
    one short: the in-kernel factor still gives the bits of the scaled copy."""
    from ordmetrics._core.parallel import PARALLEL_MIN_WORK

    n = 220_003
    assert n * K > PARALLEL_MIN_WORK and n % (kernels.BLOCK * kernels.CHUNK_BLOCKS) != 0
    rng = np.random.default_rng(11)
    P = rng.dirichlet(np.ones(K), n)
    y = rng.integers(0, K, n)
    w = rng.uniform(0.0, 1.0, n) * scale
    w[::5] = 0.0
    rule = get_rule(name)
    tol = sum_tolerance(P.dtype, K)
    copy, _ = scale_weights(w)
    same, ws, _ = weight_scale(w)
    assert ws != 1.0 and same is w
    for rows in (False, True):
        want = kernels.score_rows(P, y, copy, 1.0, rule, rule.pack(), tol, rows)
        got = kernels.score_rows(P, y, same, ws, rule, rule.pack(), tol, rows)
        assert got[:3] == want[:3]
        assert (got[3] is None and want[3] is None) or _same(got[3], want[3])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.floats(min_value=0.0, max_value=1.7e308, allow_subnormal=True), min_size=1, max_size=40
    )
)
def test_one_pass_exponent_is_that_of_weight_exponent_for_valid_weights(ws: list[float]) -> None:
    """For finite non-negative weights, the one-pass exponent of ``weight_scale`` (the largest
    weight) is the exponent of ``weight_exponent`` (max and min)."""
    w = np.array(ws)
    _, _, e = weight_scale(w)
    assert e == weight_exponent(w)


@pytest.mark.parametrize(
    "w",
    [
        np.array([0.5, -12.0, 1.0]),  # a negative weight larger in magnitude than the largest
        np.array([0.5, -np.inf, 1.0]),
        np.array([0.5, np.nan, -3.0]),
        np.array([np.inf, 0.75, 1.0]),
    ],
)
@pytest.mark.parametrize("name", ["rps", "log_loss", "pll"])
def test_invalid_weights_still_raise_whatever_the_exponent(w: np.ndarray, name: str) -> None:
    P = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    y = np.array([0, 1, 2])
    with pytest.raises(ValueError, match="sample_weight"):
        om.get_metric(name).func(y, P, sample_weight=w)
