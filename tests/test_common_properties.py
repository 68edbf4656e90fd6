"""Properties every registered metric must have, over valid input drawn by hypothesis.

The companion of ``test_common.py`` (the common suite; its cases and data are
:mod:`metric_cases`). For every metric of ``ordmetrics.list_metrics()``:

* the caller's arrays are never written to (they are passed read-only and compared after);
* 8 threads computing the metric at once get the sequential result, bit for bit;
* equal weights at the float limits (the largest float, subnormals) give the unweighted result;
* weighted quantile bins on few tied rows do not depend on the scale of the weights;
* for the metrics of ``scores`` input: equal expected grades are ties.

Probabilities come in three flavours: Dirichlet rows (generic floats), rows of tenths (many
exact mathematical ties that floating point may or may not see as ties: the near-tie edge
case) and rows of 64ths (exact in float32 and float64). All tests are derandomized.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordmetrics as om
from metric_cases import (
    METRICS,
    ORDER_INVARIANT,
    SETTINGS,
    VARIANTS,
    arguments,
    assert_close,
    compute,
    datasets,
    make_proba,
    spec,
)

pytestmark = pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")

#: The metrics of one score per row (given probabilities, the expected grade).
SCORE_METRICS = [n for n in METRICS if spec(n).input == "scores"]


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name", METRICS)
@SETTINGS
@given(data=datasets())
def test_caller_arrays_are_not_modified(name, data):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    args, kwargs = arguments(name, y, P, k)
    frozen = tuple(_read_only(np.asarray(a)) for a in args)
    copies = tuple(a.copy() for a in frozen)
    wr, wc = _read_only(w), w.copy()
    got = om.get_metric(name)(*frozen, sample_weight=wr, **kwargs)
    for a, c in zip(frozen, copies, strict=True):
        assert np.array_equal(a, c)
    assert np.array_equal(wr, wc)
    # writable lists get the same result and are left alone too
    lists = tuple(np.asarray(a).tolist() for a in args)
    wl = w.tolist()
    again = om.get_metric(name)(*lists, sample_weight=wl, **kwargs)
    assert lists == tuple(np.asarray(a).tolist() for a in args) and wl == w.tolist()
    assert_close(again, got, rel=0, what="list input")


@pytest.mark.parametrize("name", METRICS)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=datasets())
def test_same_result_from_eight_threads(name, data):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    # a larger data set, beyond the kernels' blocks, shared by all threads
    rng = data["rng"]
    reps = 5000 // y.size + 1
    yy, PP, ww = np.tile(y, reps), np.tile(P, (reps, 1)), rng.permutation(np.tile(w, reps))
    expected = compute(name, yy, PP, k, ww)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: compute(name, yy, PP, k, ww), range(8)))
    for r in results:
        assert_close(r, expected, rel=0, what="thread")


@pytest.mark.parametrize("name", ORDER_INVARIANT)
@pytest.mark.parametrize("value", [1.7e308, 1e308, 1e-310, 5e-324])
def test_equal_weights_at_the_float_limits(name, value):
    """All weights equal to the largest or a subnormal float: the unweighted result."""
    rng = np.random.default_rng(11)
    y, P = rng.integers(0, 3, size=25), make_proba(rng, 25, 3, "dirichlet")
    expected = compute(name, y, P, 3)
    got = compute(name, y, P, 3, np.full(25, value))
    assert_close(got, expected, rel=1e-12, abs_=1e-12, what=f"w={value:g}")


@pytest.mark.parametrize("name", SCORE_METRICS)
@SETTINGS
@given(data=datasets(flavours=("tenths",)))
def test_equal_expected_grades_are_ties(name, data):
    """Rows of tenths whose expected grades are equal as numbers are tied, whatever the
    rounding of sum_k k p_k: the result equals that of the exact (integer) grades."""
    y, P, w = data["y"], data["P"], data["w"]
    exact = np.rint(P * 10).astype(np.int64) @ np.arange(P.shape[1])  # 10 x expected grade
    for weights in (None, w):
        expected = om.get_metric(name)(y, exact.astype(float), sample_weight=weights)
        got = om.get_metric(name)(y, P, sample_weight=weights)
        assert_close(got, expected, rel=1e-12, abs_=1e-12, what="ties")


@pytest.mark.parametrize(
    ("name", "options"), [v for v in VARIANTS if v.values[0] in ORDER_INVARIANT]
)
@pytest.mark.parametrize("c", [0.3, 1e-300, 1e300])
@SETTINGS
@given(
    n=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    counts=st.lists(st.integers(1, 4), min_size=6, max_size=6),
)
def test_weight_scale_invariance_small_tied_data(name, options, c, n, seed, counts):
    """Few rows of two classes with tied probabilities: quantile bin edges fall on ties, where
    a weighted quantile must not depend on the scale of the weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    p = rng.integers(1, 5, size=n) / 5
    P = np.column_stack([p, 1 - p])
    w = np.array(counts[:n], dtype=float)
    base = compute(name, y, P, 2, w, options)
    assert_close(compute(name, y, P, 2, w * c, options), base, rel=1e-12, abs_=1e-12, what="c")


def test_quantile_ece_weight_scale_reproducer():
    """ece was 0.5667 for w = [1, 3, 2] and 0.1667 for 0.3 * w."""
    y, P = [0, 0, 1], [[0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]
    w = np.array([1.0, 3.0, 2.0])
    a = om.ece(y, P, n_bins=2, strategy="quantile", sample_weight=w)
    b = om.ece(y, P, n_bins=2, strategy="quantile", sample_weight=0.3 * w)
    assert a == pytest.approx(b, rel=1e-12)
