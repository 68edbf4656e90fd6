"""Weights at the extremes on the paths outside the metric functions: the streaming evaluator,
the bootstrap and the paired comparison, and the device (array API) path.

Frequency weights count only through their ratios: ``w`` and ``c * w`` must give the same
values for any c, with the largest weight up to the float maximum (1.7e308) and down to
subnormals. Every value here is compared with the in-memory functions, or with the same
weights scaled to 1 by an exact power of two, to 1e-12.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import ordmetrics
from ordmetrics.evaluation.resampling import bootstrap, compare
from ordmetrics.stream import Evaluator

TOL = 1e-12
N = 700  # above the 300-row batches below and the bootstrap's blocks of rows
METRICS = ["rps", "brier", "qwk", "ece", "c_index", "spearman", "kendall_tau"]


def _data(seed: int = 0, n: int = N) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=n)
    P = rng.dirichlet(np.ones(4), size=n)
    w = rng.uniform(0.05, 1.0, size=n)
    return y, P, w


def _to_top(w: np.ndarray, top: float) -> np.ndarray:
    """``w`` times a constant so that its largest weight is ``top`` (rounded once)."""
    return w * (top / w.max())


def _unit(w: np.ndarray) -> np.ndarray:
    """``w`` scaled by an exact power of two so that its largest weight is in [0.5, 1)."""
    return np.ldexp(w, -int(np.frexp(w.max())[1]))


#: Largest weights: tiny, huge, near the float maximum, subnormal (down to ~1e-320).
SCALES = {
    "1e-300": 1e-300,
    "1e300": 1e300,
    "1.7e308": 1.7e308,
    "subnormal": 1e-318,
}


def _in_memory(y: np.ndarray, P: np.ndarray, w: np.ndarray) -> dict[str, float]:
    out = {}
    for m in METRICS:
        x = P.argmax(axis=1) if m == "qwk" else P
        out[m] = float(getattr(ordmetrics, m)(y, x, sample_weight=w))
    return out


def _close(got: Any, expected: dict[str, float]) -> None:
    for m, v in expected.items():
        assert math.isfinite(got[m]), m
        assert abs(got[m] - v) <= TOL, (m, got[m], v)


# --------------------------------------------------------------------------------------------
# Streaming evaluator
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", list(SCALES), ids=list(SCALES))
def test_stream_weights_at_any_scale_one_and_many_batches(scale: str) -> None:
    y, P, w = _data(1)
    ww = _to_top(w, SCALES[scale])
    expected = _in_memory(y, P, ww)
    _close(expected, _in_memory(y, P, _unit(ww)))  # the functions are scale-free too
    one = Evaluator(METRICS)
    one.update(y, P, ww)
    _close(one.compute(), expected)
    many = Evaluator(METRICS)
    for start in range(0, N, 300):
        many.update(y[start : start + 300], P[start : start + 300], ww[start : start + 300])
    _close(many.compute(), expected)


def test_stream_total_weight_beyond_the_float_maximum() -> None:
    y, P, _ = _data(2, 10)
    ev = Evaluator(["rps", ("rps", {"reduction": "sum"})])
    ev.update(y, P, np.full(10, 1.7e308))
    r = ev.compute()
    assert abs(r["rps"] - ordmetrics.rps(y, P)) <= TOL
    assert ev.total_weight == math.inf and r.total_weight == math.inf  # 1.7e309: not a float
    ev = Evaluator(["rps"])
    ev.update(y, P, np.full(10, 1e300))
    assert ev.total_weight == pytest.approx(1e301, rel=1e-15)


def test_stream_mixed_scales_in_any_order_equal_the_in_memory_value() -> None:
    """Batches of weights 1e-300 and 1e300: the small ones are 2^-1000 of the largest and
    vanish in float64, in memory (one scaling of all the rows) and in the stream alike."""
    y, P, w = _data(3)
    ww = w.copy()
    ww[: N // 2] *= 1e-300
    ww[N // 2 :] *= 1e300
    expected = _in_memory(y, P, ww)
    starts = list(range(0, N, 100))
    for order in (starts, starts[::-1], starts[1::2] + starts[::2]):
        ev = Evaluator(METRICS)
        for s in order:
            ev.update(y[s : s + 100], P[s : s + 100], ww[s : s + 100])
        _close(ev.compute(), expected)


def test_stream_unit_weights_after_extreme_ones() -> None:
    """Unweighted batches (weight 1) mixed with subnormal and huge weighted ones."""
    y, P, w = _data(4)
    for scale in (1e-310, 1e300):
        ev = Evaluator(METRICS)
        ev.update(y[:300], P[:300], w[:300] * scale)
        ev.update(y[300:], P[300:])
        full = np.r_[w[:300] * scale, np.ones(N - 300)]
        _close(ev.compute(), _in_memory(y, P, full))


def test_stream_merge_of_states_of_different_scales() -> None:
    y, P, w = _data(5)
    parts = [(slice(0, 250), 1e-300), (slice(250, 500), 1.7e308), (slice(500, N), 1e-310)]
    evs = []
    ww = np.empty(N)
    for sl, top in parts:
        ww[sl] = _to_top(w[sl], top)
        ev = Evaluator(METRICS)
        ev.update(y[sl], P[sl], ww[sl])
        evs.append(ev)
    expected = _in_memory(y, P, ww)
    a, b, c = evs
    _close((a + b + c).compute(), expected)
    _close((c + (b + a)).compute(), expected)
    _close(sum(evs).compute(), expected)
    before = a.state_dict()["weight_exponent"]
    merged = a.merge(c).merge(b)
    assert merged is a
    _close(a.compute(), expected)
    assert b.state_dict()["weight_exponent"] == 1023  # the merged-in one is unchanged
    assert a.state_dict()["weight_exponent"] == 1023 > before
    # two tiny-weight parts without the huge one keep their digits (no underflow)
    small = Evaluator(METRICS)
    small.update(y[:250], P[:250], ww[:250])
    other = Evaluator(METRICS)
    other.update(y[500:], P[500:], ww[500:])
    keep = np.r_[np.arange(250), np.arange(500, N)]
    _close((small + other).compute(), _in_memory(y[keep], P[keep], ww[keep]))


def test_stream_state_dict_round_trip_keeps_the_scale() -> None:
    y, P, w = _data(6)
    ev = Evaluator(METRICS)
    ev.update(y, P, _to_top(w, 1.7e308))
    state = ev.state_dict()
    assert state["weight_exponent"] == 1023
    assert 0.0 < state["total_weight"] < 2.0 * N  # held in units of 2^1023: finite
    back = Evaluator.from_state_dict(state)
    assert back.compute().values == ev.compute().values
    assert back.state_dict()["weight_exponent"] == 1023
    fresh = Evaluator(METRICS)
    fresh.load_state_dict(state)
    assert fresh.compute().values == ev.compute().values
    # pickling goes through the state
    import pickle

    assert pickle.loads(pickle.dumps(ev)).compute().values == ev.compute().values


def test_stream_state_without_exponent_reads_as_caller_units() -> None:
    """States written before the field existed hold sums in the caller's units."""
    y, P, _ = _data(7, 50)
    ev = Evaluator(["rps", "qwk"])
    ev.update(y, P)
    state = ev.state_dict()
    assert state["weight_exponent"] == 0  # unit weights: sums in the caller's units
    assert state["total_weight"] == 50.0
    del state["weight_exponent"]
    assert Evaluator.from_state_dict(state).compute().values == ev.compute().values


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "must be an integer"),
        (1.5, "must be an integer"),
        ("3", "must be an integer"),
        (1024, r"must be an integer in \[-1074, 1023\]"),
        (-1075, r"must be an integer in \[-1074, 1023\]"),
    ],
)
def test_stream_state_with_a_bad_exponent_is_refused(value: Any, message: str) -> None:
    y, P, w = _data(8, 30)
    ev = Evaluator(["rps"])
    ev.update(y, P, w)
    state = ev.state_dict()
    state["weight_exponent"] = value
    fresh = Evaluator(["rps"])
    with pytest.raises(ValueError, match=r"field 'weight_exponent' " + message):
        fresh.load_state_dict(state)
    assert fresh.n_rows == 0  # unchanged


def test_stream_weights_all_zero_in_a_batch_keep_the_scale() -> None:
    y, P, w = _data(9, 40)
    ev = Evaluator(["rps"])
    ev.update(y[:20], P[:20], w[:20] * 1e-310)
    e = ev.state_dict()["weight_exponent"]
    ev.update(y[20:], P[20:], np.zeros(20))
    assert ev.state_dict()["weight_exponent"] == e
    expected = ordmetrics.rps(y, P, sample_weight=np.r_[w[:20] * 1e-310, np.zeros(20)])
    assert abs(ev.compute()["rps"] - expected) <= TOL


# --------------------------------------------------------------------------------------------
# Bootstrap and comparison
# --------------------------------------------------------------------------------------------

BOOT_METRICS = ["rps", "qwk", "c_index", "ece"]


def _x(metric: str, P: np.ndarray) -> np.ndarray:
    return P.argmax(axis=1) if metric == "qwk" else P


@pytest.mark.parametrize("scale", list(SCALES), ids=list(SCALES))
@pytest.mark.parametrize("metric", BOOT_METRICS)
def test_bootstrap_and_compare_at_any_weight_scale(metric: str, scale: str) -> None:
    y, P, w = _data(10, 200)
    Q = np.random.default_rng(11).dirichlet(np.ones(4), size=200)
    ww = _to_top(w, SCALES[scale])
    ref_w = _unit(ww)  # the same weights, scaled to 1 exactly
    n_res = 40 if metric in ("c_index", "ece") else 200  # one call per resample there
    for method in ("percentile", "bca"):
        got = bootstrap(
            metric,
            y,
            _x(metric, P),
            n_resamples=n_res,
            random_state=3,
            method=method,
            sample_weight=ww,
        )
        ref = bootstrap(
            metric,
            y,
            _x(metric, P),
            n_resamples=n_res,
            random_state=3,
            method=method,
            sample_weight=ref_w,
        )
        assert np.isfinite(got.distribution).all()
        np.testing.assert_allclose(got.distribution, ref.distribution, rtol=0, atol=TOL)
        for field in ("estimate", "low", "high", "mean", "std"):
            assert abs(getattr(got, field) - getattr(ref, field)) <= TOL, field
    got_c = compare(
        metric,
        y,
        _x(metric, P),
        _x(metric, Q),
        n_resamples=n_res,
        random_state=4,
        sample_weight=ww,
    )
    ref_c = compare(
        metric,
        y,
        _x(metric, P),
        _x(metric, Q),
        n_resamples=n_res,
        random_state=4,
        sample_weight=ref_w,
    )
    np.testing.assert_allclose(got_c.distribution, ref_c.distribution, rtol=0, atol=TOL)
    assert np.isfinite(got_c.distribution).all()
    assert abs(got_c.low - ref_c.low) <= TOL and abs(got_c.high - ref_c.high) <= TOL


def test_bootstrap_passes_a_callable_the_callers_weights() -> None:
    y, P, w = _data(12, 50)
    ww = w * 1e300
    seen: list[float] = []

    def mean_rps(y_true: Any, y_proba: Any, sample_weight: Any = None) -> float:
        seen.append(float(np.max(sample_weight)))
        return float(ordmetrics.rps(y_true, y_proba, sample_weight=sample_weight))

    bootstrap(mean_rps, y, P, n_resamples=5, random_state=0, sample_weight=ww)
    assert seen[0] == ww.max()  # the estimate: the caller's weights, unscaled
    assert all(v >= ww.min() for v in seen[1:])  # resamples: w * counts, unscaled


# --------------------------------------------------------------------------------------------
# Device path (torch)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", list(SCALES), ids=list(SCALES))
def test_device_path_at_any_weight_scale(scale: str) -> None:
    torch = pytest.importorskip("torch")
    y, P, w = _data(13)
    ww = _to_top(w, SCALES[scale])
    ref_w = _unit(ww)
    yt, Pt, wt = torch.asarray(y), torch.asarray(P), torch.asarray(ww)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("rps", "brier", "log_loss"):
            got = float(getattr(ordmetrics, name)(yt, Pt, sample_weight=wt))
            expected = getattr(ordmetrics, name)(y, P, sample_weight=ref_w)
            assert abs(got - expected) <= TOL, name
        pred = P.argmax(axis=1)
        for name in ("qwk", "kappa", "accuracy"):
            got = float(getattr(ordmetrics, name)(yt, torch.asarray(pred), sample_weight=wt))
            expected = getattr(ordmetrics, name)(y, pred, sample_weight=ref_w)
            assert abs(got - expected) <= TOL, name


def test_device_path_sum_is_in_the_callers_units() -> None:
    torch = pytest.importorskip("torch")
    y, P, w = _data(14)
    for c in (3.0, 1e-300, 1e200):
        got = float(
            ordmetrics.rps(
                torch.asarray(y),
                torch.asarray(P),
                sample_weight=torch.asarray(w * c),
                reduction="sum",
            )
        )
        expected = ordmetrics.rps(y, P, sample_weight=w * c, reduction="sum")
        assert got == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("normalize", ["true", "pred", "all"])
def test_device_confusion_matrix_normalized_at_any_weight_scale(normalize: str) -> None:
    torch = pytest.importorskip("torch")
    from ordmetrics.metrics.agreement import confusion_matrix

    y, P, w = _data(15)
    pred = P.argmax(axis=1)
    expected = confusion_matrix(y, pred, sample_weight=w, normalize=normalize)
    for scale in SCALES.values():
        ww = _to_top(w, scale)
        got = confusion_matrix(
            torch.asarray(y),
            torch.asarray(pred),
            sample_weight=torch.asarray(ww),
            normalize=normalize,
        ).numpy()
        ref = confusion_matrix(y, pred, sample_weight=_unit(ww), normalize=normalize)
        np.testing.assert_allclose(got, ref, rtol=0, atol=TOL)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-3 if scale < 1e-307 else TOL)


@pytest.mark.parametrize("normalize", ["all", "true", "pred"])
@pytest.mark.parametrize("scale", [1.7e308, 1e300, 1e-300, 5e-324])
def test_normalized_confusion_matrix_at_any_weight_scale(normalize: str, scale: float) -> None:
    y, p = [0, 1, 2, 1, 0, 2], [0, 1, 1, 1, 2, 2]
    w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    expected = ordmetrics.confusion_matrix(y, p, sample_weight=w, normalize=normalize)
    got = ordmetrics.confusion_matrix(y, p, sample_weight=w * scale, normalize=normalize)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
