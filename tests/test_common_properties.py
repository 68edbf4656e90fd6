"""Properties every registered metric must have, over valid input drawn by hypothesis.

For every metric of ``ordmetrics.list_metrics()`` (its inputs chosen by its registered kind):

* the result does not depend on the order of the rows;
* frequency weights ``w`` and ``c * w`` give the same result for any c in [1e-300, 1e300];
* integer weights give the result of repeating each row that many times;
* float32 probabilities give the float64 result up to float32 rounding (on probabilities that
  are exact in float32, so that both compute the same mathematical value);
* the caller's arrays are never written to (they are passed read-only and compared after);
* 8 threads computing the metric at once get the sequential result, bit for bit.

Probabilities come in three flavours: Dirichlet rows (generic floats), rows of tenths (many
exact mathematical ties that floating point may or may not see as ties: the near-tie edge
case) and rows of 64ths (exact in float32 and float64). All tests are derandomized.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordmetrics as om

METRICS = om.list_metrics()
FLOAT_METRICS = [n for n in METRICS if om.get_metric(n).kind != "agreement"]
#: Every metric with its defaults, plus the options that take another code path.
VARIANTS = [pytest.param(n, {}, id=n) for n in METRICS] + [
    pytest.param(n, {"strategy": "quantile", "n_bins": 3}, id=f"{n}-quantile")
    for n in METRICS
    if om.get_metric(n).kind == "calibration"
]

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

pytestmark = pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def make_proba(rng: np.random.Generator, n: int, k: int, flavour: str) -> np.ndarray:
    """``n`` probability rows of ``k`` classes, every entry positive."""
    if flavour == "dirichlet":
        return rng.dirichlet(np.ones(k), size=n)
    total = 10 if flavour == "tenths" else 64
    total = max(total, k)
    # k positive integer parts of ``total`` per row: sorted distinct cut points
    cuts = np.sort(
        np.array([rng.choice(np.arange(1, total), size=k - 1, replace=False) for _ in range(n)]),
        axis=1,
    )
    edges = np.concatenate([np.zeros((n, 1)), cuts, np.full((n, 1), total)], axis=1)
    return np.diff(edges, axis=1) / total


@st.composite
def datasets(draw: Callable[..., Any], flavours=("dirichlet", "tenths", "dyadic")) -> dict:
    n = draw(st.integers(2, 40))
    k = draw(st.integers(2, 5))
    flavour = draw(st.sampled_from(flavours))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = make_proba(rng, n, k, flavour)
    w = rng.uniform(0.1, 10.0, size=n)
    return {"y": y, "P": P, "w": w, "k": k, "rng": rng}


def arguments(name: str, y: np.ndarray, P: np.ndarray, k: int) -> tuple[tuple, dict]:
    """The positional and keyword arguments of metric ``name`` for truth ``y`` and ``P``."""
    kind = om.get_metric(name).kind
    if kind == "agreement":
        yp = np.argmax(P, axis=1)
        return (y, yp), {"labels": list(range(k))}
    return (y, P), {}


def compute(name: str, y, P, k, w=None, options=None) -> Any:
    args, kwargs = arguments(name, y, P, k)
    kwargs.update(options or {})
    if w is not None:
        kwargs["sample_weight"] = w
    return om.get_metric(name)(*args, **kwargs)


def assert_close(got: Any, expected: Any, rel: float, abs_: float = 0.0, what: str = "") -> None:
    got, expected = float(got), float(expected)
    if math.isnan(expected) or math.isnan(got):
        assert math.isnan(expected) and math.isnan(got), f"{what}: {got!r} vs {expected!r}"
        return
    assert got == pytest.approx(expected, rel=rel, abs=abs_), f"{what}: {got!r} vs {expected!r}"


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets())
def test_row_permutation_invariance(name, options, data):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    perm = data["rng"].permutation(y.size)
    for weights in (None, w):
        base = compute(name, y, P, k, weights, options)
        moved = compute(
            name, y[perm], P[perm], k, None if weights is None else weights[perm], options
        )
        assert_close(moved, base, rel=1e-12, abs_=1e-12, what=f"{name} permuted")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets(), exponent=st.floats(-300.0, 300.0))
def test_weight_scale_invariance(name, options, data, exponent):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    c = 10.0**exponent
    base = compute(name, y, P, k, w, options)
    got = compute(name, y, P, k, w * c, options)
    assert_close(got, base, rel=1e-12, abs_=1e-12, what=f"c={c:g}")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@pytest.mark.parametrize("c", [1e-300, 1e-200, 0.3, 1e200, 1e300])
def test_weight_scale_extremes(name, options, c):
    """The ends of the range, on one fixed data set (hypothesis may not reach them)."""
    rng = np.random.default_rng(7)
    y, P = rng.integers(0, 4, size=30), make_proba(rng, 30, 4, "dirichlet")
    w = rng.uniform(0.5, 2.0, size=30)
    base = compute(name, y, P, 4, w, options)
    got = compute(name, y, P, 4, w * c, options)
    assert_close(got, base, rel=1e-12, abs_=1e-12, what=f"c={c:g}")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets(), counts=st.lists(st.integers(0, 3), min_size=40, max_size=40))
def test_integer_weights_equal_repeated_rows(name, options, data, counts):
    y, P, k = data["y"], data["P"], data["k"]
    w = np.array(counts[: y.size])
    if not w.any():
        w[0] = 1
    repeated = compute(name, np.repeat(y, w), np.repeat(P, w, axis=0), k, None, options)
    got = compute(name, y, P, k, w, options)
    assert_close(got, repeated, rel=1e-12, abs_=1e-12, what="repeat")


@pytest.mark.parametrize("name", FLOAT_METRICS)
@SETTINGS
@given(data=datasets(flavours=("dyadic",)))
def test_float32_close_to_float64(name, data):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    P32 = P.astype(np.float32)
    assert np.array_equal(P32.astype(np.float64), P)  # 64ths are exact in float32
    for weights in (None, w):
        expected = compute(name, y, P, k, weights)
        assert_close(compute(name, y, P32, k, weights), expected, rel=1e-5, abs_=1e-6, what="f32")


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


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("value", [1.7e308, 1e308, 1e-310, 5e-324])
def test_equal_weights_at_the_float_limits(name, value):
    """All weights equal to the largest or a subnormal float: the unweighted result."""
    rng = np.random.default_rng(11)
    y, P = rng.integers(0, 3, size=25), make_proba(rng, 25, 3, "dirichlet")
    expected = compute(name, y, P, 3)
    got = compute(name, y, P, 3, np.full(25, value))
    assert_close(got, expected, rel=1e-12, abs_=1e-12, what=f"w={value:g}")


RANKING = [n for n in METRICS if om.get_metric(n).kind == "ranking"]


@pytest.mark.parametrize("name", RANKING)
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


@pytest.mark.parametrize(("name", "options"), VARIANTS)
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
