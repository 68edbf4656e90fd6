"""Tests of ordmetrics.evaluation.resampling: bootstrap intervals and paired comparisons.

The independent computations are plain loops: draw the row indices of each resample with
``rng.integers(0, N, size=N, dtype=np.int32)``, take those rows by fancy indexing and call the
public metric on them; delete one row at a time for the jackknife; scipy.stats.bootstrap for
the intervals of a mean.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings

import numpy as np
import pytest
from scipy import special, stats

import ordmetrics as om
from ordmetrics import UndefinedMetricWarning
from ordmetrics.evaluation import resample_counts as counts_module
from ordmetrics.evaluation import resampling as bs
from ordmetrics.evaluation.resampling import (
    BootstrapResult,
    ComparisonResult,
    bootstrap,
    compare,
)

SEED = 7


# --------------------------------------------------------------------------------------------
# Data and independent references
# --------------------------------------------------------------------------------------------


def make(n: int = 120, k: int = 4, seed: int = 0):
    """Truth, probabilities, a noisy hard prediction and positive weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = rng.dirichlet(np.ones(k), size=n)
    yp = np.clip(y + rng.integers(-1, 2, size=n), 0, k - 1)
    w = rng.uniform(0.2, 3.0, size=n)
    return y, P, yp, w


def plain(func):
    """The metric as an unregistered callable: bootstrap takes its per-resample loop."""

    def f(y_true, x, **kwargs):
        return func(y_true, x, **kwargs)

    return f


def drawn_indices(seed, n: int, n_resamples: int) -> list[np.ndarray]:
    """The documented draws: N row indices per resample, one resample after the other."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n, size=n, dtype=np.int32) for _ in range(n_resamples)]


def literal(func, y, x, idx_list, w=None, **kwargs) -> np.ndarray:
    """The metric on literally resampled rows (fancy indexing), one call per resample."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for idx in idx_list:
            sw = None if w is None else w[idx]
            out.append(func(y[idx], x[idx], sample_weight=sw, **kwargs))
    return np.asarray(out, dtype=float)


def direct_bca(distribution, estimate, jack, level, order=False):
    """BCa interval written out with scipy's normal distribution (Efron & Tibshirani 14.3);
    ``order``: the order statistics of compare's rule instead of interpolated quantiles."""
    d = distribution[~np.isnan(distribution)]
    p0 = (np.sum(d < estimate) + 0.5 * np.sum(d == estimate)) / d.size
    z0 = special.ndtri(p0)
    u = np.mean(jack) - jack
    a = np.sum(u**3) / (6.0 * np.sum(u**2) ** 1.5)
    alpha = 1 - level
    lv = []
    for q in (alpha / 2, 1 - alpha / 2):
        z = z0 + special.ndtri(q)
        lv.append(special.ndtr(z0 + z / (1 - a * z)))
    if order:
        return order_statistics(d, lv)
    return np.quantile(d, lv)


def order_statistics(d, levels):
    """compare's interval at quantile levels (lo, hi): d_(m_lo) and d_(B + 1 - m_hi) with
    m_lo = ceil(lo (B + 1)) - 1 and m_hi = ceil((1 - hi) (B + 1)) - 1 (an end with m = 0 is
    infinite)."""
    d = np.sort(d)
    b = d.size
    m_lo = int(np.ceil(levels[0] * (b + 1))) - 1
    m_hi = int(np.ceil((1 - levels[1]) * (b + 1))) - 1
    low = d[m_lo - 1] if m_lo >= 1 else -np.inf
    high = d[b - m_hi] if m_hi >= 1 else np.inf
    return np.array([low, high])


def leave_one_out(func, y, x, w=None, **kwargs) -> np.ndarray:
    """Jackknife values by deleting each row in turn."""
    out = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        sw = None if w is None else w[keep]
        out.append(func(y[keep], x[keep], sample_weight=sw, **kwargs))
    return np.asarray(out)


# --------------------------------------------------------------------------------------------
# Fast paths equal the per-resample loop, which equals literal resampling
# --------------------------------------------------------------------------------------------

FAST_CASES = [
    ("rps", om.rps, "P", {}),
    ("rps", om.rps, "P", {"normalize": False}),
    ("brier", om.brier, "P", {}),
    ("log_loss", om.log_loss, "P", {}),
    ("pll", om.pll, "P", {}),
    ("qwk", om.qwk, "yp", {}),
    ("kappa", om.kappa, "yp", {"weights": "linear"}),
    ("expected_cost", om.expected_cost, "yp", {"costs": "squared", "normalize": True}),
    ("amae", om.amae, "yp", {}),
    ("mmae", om.mmae, "yp", {}),
    ("macro_f1", om.macro_f1, "yp", {}),
    ("within_k_accuracy", om.within_k_accuracy, "yp", {"k": 0}),
]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("name", "func", "which", "opts"), FAST_CASES)
def test_fast_path_equals_generic_loop(name, func, which, opts, weighted):
    y, P, yp, w = make(90, 4, seed=1)
    x = P if which == "P" else yp
    sw = w if weighted else None
    fast = bootstrap(name, y, x, n_resamples=60, random_state=SEED, sample_weight=sw, **opts)
    slow = bootstrap(plain(func), y, x, n_resamples=60, random_state=SEED, sample_weight=sw, **opts)
    assert fast.estimate == slow.estimate == func(y, x, sample_weight=sw, **opts)
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_fast_paths_with_string_labels_and_pandas(weighted):
    pd = pytest.importorskip("pandas")
    names = ["none", "mild", "moderate", "severe"]
    y, P, yp, w = make(80, 4, seed=2)
    ys = pd.Series(np.array(names, dtype=object)[y])
    yps = pd.Series(np.array(names, dtype=object)[yp])
    sw = w if weighted else None
    for name, func, x, xs in [("rps", om.rps, P, P), ("qwk", om.qwk, yp, yps)]:
        fast = bootstrap(
            name, ys, xs, n_resamples=40, random_state=1, labels=names, sample_weight=sw
        )
        slow = bootstrap(
            plain(func), ys, xs, n_resamples=40, random_state=1, labels=names, sample_weight=sw
        )
        codes = bootstrap(name, y, x, n_resamples=40, random_state=1, sample_weight=sw)
        np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(fast.distribution, codes.distribution, rtol=1e-12, atol=0)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    ("func", "which", "opts"),
    [
        (om.rps, "P", {}),
        (om.qwk, "yp", {"labels": [0, 1, 2, 3]}),
        (om.amae, "yp", {"labels": [0, 1, 2, 3]}),
        (om.c_index, "P", {}),
        (om.spearman, "yp", {}),
        (om.kendall_tau, "P", {}),
        (om.ece, "P", {"n_bins": 5}),
        (om.cumulative_ece, "P", {"n_bins": 5}),
        (om.classwise_ece, "P", {"n_bins": 5}),
    ],
)
def test_resamples_equal_literally_resampled_rows(func, which, opts, weighted):
    n, b = 70, 25
    y, P, yp, w = make(n, 4, seed=3)
    x = P if which == "P" else yp
    sw = w if weighted else None
    res = bootstrap(func, y, x, n_resamples=b, random_state=SEED, sample_weight=sw, **opts)
    ref = literal(func, y, x, drawn_indices(SEED, n, b), w=sw, **opts)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12, atol=1e-12)


def test_resamples_do_not_depend_on_chunking(monkeypatch):
    y, P, yp, _ = make(50, 3, seed=4)
    monkeypatch.setattr(counts_module, "CHUNK_INDICES", 3 * 50)  # three resamples per chunk
    idx = drawn_indices(SEED, 50, 10)
    for func, x in [(om.rps, P), (om.qwk, yp), (plain(om.brier), P)]:
        res = bootstrap(func, y, x, n_resamples=10, random_state=SEED)
        kw = {"labels": [0, 1, 2]} if func is om.qwk else {}
        np.testing.assert_allclose(res.distribution, literal(func, y, x, idx, **kw), rtol=1e-12)


def test_same_resamples_for_every_metric():
    """Two metrics with one seed see the same resamples: their values are paired."""
    y, P, yp, _ = make(60, 3, seed=5)
    idx = drawn_indices(11, 60, 30)
    for func, x in [(om.rps, P), (om.qwk, yp), (om.c_index, P)]:
        res = bootstrap(func, y, x, n_resamples=30, random_state=11)
        kw = {"labels": [0, 1, 2]} if func is om.qwk else {}
        np.testing.assert_allclose(res.distribution, literal(func, y, x, idx, **kw), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Determinism and the summary statistics
# --------------------------------------------------------------------------------------------


def test_determinism_and_generators():
    y, P, _, _ = make(50, 3)
    a = bootstrap("rps", y, P, n_resamples=30, random_state=3)
    b = bootstrap("rps", y, P, n_resamples=30, random_state=3)
    c = bootstrap("rps", y, P, n_resamples=30, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(a.distribution, b.distribution)
    np.testing.assert_array_equal(a.distribution, c.distribution)
    assert a == b  # the scalar fields
    g = np.random.default_rng(3)
    first = bootstrap("rps", y, P, n_resamples=30, random_state=g)
    second = bootstrap("rps", y, P, n_resamples=30, random_state=g)  # g has advanced
    np.testing.assert_array_equal(first.distribution, a.distribution)
    assert not np.array_equal(first.distribution, second.distribution)
    longer = bootstrap("rps", y, P, n_resamples=70, random_state=3)
    np.testing.assert_array_equal(longer.distribution[:30], a.distribution)
    fresh = [bootstrap("rps", y, P, n_resamples=30).distribution for _ in range(2)]
    assert not np.array_equal(*fresh)


def test_summary_statistics_and_percentile_interval():
    y, P, yp, _ = make(100, 4)
    for name, x in [("rps", P), ("qwk", yp)]:
        for level in (0.95, 0.8):
            res = bootstrap(name, y, x, n_resamples=150, random_state=1, confidence_level=level)
            d = res.distribution
            assert res.estimate == om.get_metric(name)(y, x)
            assert res.mean == pytest.approx(np.mean(d), rel=1e-14)
            assert res.std == pytest.approx(np.std(d, ddof=1), rel=1e-14)
            lo, hi = np.quantile(d, [(1 - level) / 2, 1 - (1 - level) / 2])
            assert (res.low, res.high) == (lo, hi)
            assert (res.method, res.confidence_level, res.n_resamples, res.metric) == (
                "percentile",
                level,
                150,
                name,
            )


def test_result_is_frozen_and_read_only():
    y, P, _, _ = make(30, 3)
    res = bootstrap("rps", y, P, n_resamples=10, random_state=0)
    assert isinstance(res, BootstrapResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.low = 0.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        res.distribution[0] = 1.0
    assert "distribution" not in repr(res)


def test_metric_spec_and_function_take_the_fast_path():
    y, _, yp, _ = make(40, 3)
    by_name = bootstrap("qwk", y, yp, n_resamples=20, random_state=0)
    by_spec = bootstrap(om.get_metric("qwk"), y, yp, n_resamples=20, random_state=0)
    by_func = bootstrap(om.qwk, y, yp, n_resamples=20, random_state=0)
    assert by_name.metric == by_spec.metric == by_func.metric == "qwk"
    np.testing.assert_array_equal(by_name.distribution, by_spec.distribution)
    np.testing.assert_array_equal(by_name.distribution, by_func.distribution)


# --------------------------------------------------------------------------------------------
# BCa
# --------------------------------------------------------------------------------------------


def test_bca_levels_against_a_direct_formula_with_ties():
    rng = np.random.default_rng(0)
    d = np.round(rng.normal(size=400), 1)  # many ties, some at the estimate
    est = 0.1
    for accel in (0.0, 0.07, -0.05):
        for level in (0.95, 0.9):
            lo_q, hi_q = bs._bca_levels(d, est, accel, level)
            p0 = (np.sum(d < est) + 0.5 * np.sum(d == est)) / d.size
            z0 = special.ndtri(p0)
            alpha = 1 - level
            ref = []
            for q in (alpha / 2, 1 - alpha / 2):
                z = z0 + special.ndtri(q)
                ref.append(special.ndtr(z0 + z / (1 - accel * z)))
            np.testing.assert_allclose([lo_q, hi_q], ref, rtol=1e-12)
    jack = rng.gamma(2.0, size=50)
    u = jack.mean() - jack
    assert bs._acceleration(jack) == pytest.approx(np.sum(u**3) / (6 * np.sum(u**2) ** 1.5))
    assert bs._acceleration(np.full(5, 2.0)) == 0.0


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    ("func", "which", "opts"),
    [
        (om.rps, "P", {}),
        (om.log_loss, "P", {}),
        (om.qwk, "yp", {"labels": [0, 1, 2, 3]}),
        (om.expected_cost, "yp", {"labels": [0, 1, 2, 3], "costs": "squared"}),
        (om.c_index, "P", {}),
    ],
)
def test_bca_against_direct_computation_with_exact_jackknife(func, which, opts, weighted):
    n = 80  # <= 200: the generic path's groups are single rows, so all paths are exact
    y, P, yp, w = make(n, 4, seed=6)
    x = P if which == "P" else yp
    sw = w if weighted else None
    res = bootstrap(
        func, y, x, n_resamples=300, random_state=2, method="bca", sample_weight=sw, **opts
    )
    jack = leave_one_out(func, y, x, w=sw, **opts)
    ref = direct_bca(res.distribution, res.estimate, jack, 0.95)
    np.testing.assert_allclose([res.low, res.high], ref, rtol=1e-10, atol=1e-12)
    slow = bootstrap(
        plain(func),
        y,
        x,
        n_resamples=300,
        random_state=2,
        method="bca",
        sample_weight=sw,
        **opts,
    )
    np.testing.assert_allclose([slow.low, slow.high], ref, rtol=1e-10, atol=1e-12)


def test_bca_generic_path_uses_a_grouped_jackknife():
    n, b, seed = 450, 200, 4
    y, P, _, _ = make(n, 3, seed=8)
    res = bootstrap(plain(om.rps), y, P, n_resamples=b, random_state=seed, method="bca")
    rng = np.random.default_rng(seed)
    for _ in range(b):  # the resamples come first ...
        rng.integers(0, n, size=n, dtype=np.int32)
    groups = np.array_split(rng.permutation(n), 200)  # ... then the random groups
    jack = []
    for g in groups:
        keep = np.ones(n, dtype=bool)
        keep[g] = False
        jack.append(om.rps(y[keep], P[keep]))
    ref = direct_bca(res.distribution, res.estimate, np.asarray(jack), 0.95)
    np.testing.assert_allclose([res.low, res.high], ref, rtol=1e-10)
    exact = bootstrap("rps", y, P, n_resamples=b, random_state=seed, method="bca")
    np.testing.assert_allclose(exact.distribution, res.distribution, rtol=1e-12)
    assert abs(exact.low - res.low) < 0.1 * res.std  # the approximation is close


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_intervals_agree_with_scipy_bootstrap(method, scipy_method):
    y, P, _, _ = make(400, 5, seed=9)
    s = om.rps(y, P, reduction="none")
    b = 4000
    ours = bootstrap("rps", y, P, n_resamples=b, random_state=0, method=method)
    ref = stats.bootstrap(
        (s,),
        np.mean,
        n_resamples=b,
        method=scipy_method,
        random_state=np.random.default_rng(1),
        vectorized=True,
    )
    se = ref.standard_error
    assert ours.std == pytest.approx(se, rel=0.1)
    assert abs(ours.low - ref.confidence_interval.low) < 0.15 * se
    assert abs(ours.high - ref.confidence_interval.high) < 0.15 * se


def test_bca_constant_metric_and_one_sided_distribution():
    y = np.array([0, 1] * 10)
    P = np.tile([0.5, 0.5], (20, 1))
    res = bootstrap("rps", y, P, n_resamples=30, random_state=0, method="bca")
    assert res.low == res.high == res.estimate == 0.25  # every resample equals the estimate

    def max_weight(t, p, sample_weight=None):  # >= its value on every resample
        return float(np.max(sample_weight)) if sample_weight is not None else 1.0

    with pytest.warns(UndefinedMetricWarning, match="one side of the estimate"):
        res = bootstrap(max_weight, y, P, n_resamples=30, random_state=0, method="bca")
    assert np.isnan(res.low) and np.isnan(res.high)


# --------------------------------------------------------------------------------------------
# Missing values and undefined resamples
# --------------------------------------------------------------------------------------------


def test_nan_resamples_are_left_out_with_a_warning():
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1])
    yp = np.array([0, 0, 0, 0, 0, 0, 0, 1])
    with pytest.warns(UndefinedMetricWarning, match=r"undefined \(NaN\) on (\d+) of 200"):
        res = bootstrap("kappa", y, yp, n_resamples=200, random_state=0)
    nan = np.isnan(res.distribution)
    assert 0 < nan.sum() < 200
    with pytest.warns(UndefinedMetricWarning, match=rf"on {nan.sum()} of 200 resamples"):
        slow = bootstrap(plain(om.kappa), y, yp, n_resamples=200, random_state=0)
    np.testing.assert_array_equal(res.distribution, slow.distribution)
    valid = res.distribution[~nan]
    assert res.mean == pytest.approx(valid.mean())
    assert res.std == pytest.approx(valid.std(ddof=1))
    assert (res.low, res.high) == tuple(np.quantile(valid, [0.025, 0.975]))


def test_all_nan_resamples_give_nan_interval():
    y = np.zeros(10, dtype=int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert np.isnan(om.kappa(y, y))
    with pytest.warns(UndefinedMetricWarning) as record:
        res = bootstrap("kappa", y, y, n_resamples=30, random_state=0, labels=[0, 1])
    messages = [str(r.message) for r in record]
    assert len(messages) == 2  # the metric on the full data, then the summary
    assert messages[0].startswith("kappa is undefined")
    assert "undefined (NaN) on every one of the 30 resamples" in messages[1]
    assert np.isnan([res.estimate, res.mean, res.std, res.low, res.high]).all()


@pytest.mark.parametrize(("func", "which"), [(om.rps, "P"), (om.qwk, "yp"), (om.c_index, "P")])
def test_nan_policy_omit_resamples_the_complete_rows(func, which):
    y, P, yp, w = make(60, 3, seed=12)
    y = y.astype(float)
    P = P.copy()
    x = P if which == "P" else yp.astype(float)
    y[[3, 17]] = np.nan
    if which == "P":
        P[[5, 40], 0] = np.nan
    else:
        x[[5, 40]] = np.nan
    w[8] = np.nan
    keep = ~np.isin(np.arange(60), [3, 17, 5, 40, 8])
    kw = {"labels": [0, 1, 2]} if func is om.qwk else {}
    res = bootstrap(
        func, y, x, n_resamples=30, random_state=1, sample_weight=w, nan_policy="omit", **kw
    )
    slow = bootstrap(
        plain(func), y, x, n_resamples=30, random_state=1, sample_weight=w, nan_policy="omit", **kw
    )
    yk, xk, wk = y[keep].astype(int), x[keep], w[keep]
    if which == "yp":
        xk = xk.astype(int)
    ref = literal(func, yk, xk, drawn_indices(1, int(keep.sum()), 30), w=wk, **kw)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12)
    np.testing.assert_allclose(slow.distribution, ref, rtol=1e-12)
    assert res.estimate == func(yk, xk, sample_weight=wk, **kw)


def test_nan_policy_propagate_gives_nan_everywhere():
    y, P, _, _ = make(20, 3)
    P = P.copy()
    P[4, 1] = np.nan
    with pytest.warns(UndefinedMetricWarning, match="every one of the 10"):
        res = bootstrap("rps", y, P, n_resamples=10, random_state=0, nan_policy="propagate")
    assert np.isnan(res.estimate) and np.isnan(res.distribution).all()


def test_zero_weight_resamples_are_nan():
    y, P, _, _ = make(6, 3)
    w = np.array([0.0, 0, 0, 0, 0, 1])  # resamples without row 5 weigh nothing
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        fast = bootstrap("rps", y, P, n_resamples=40, random_state=0, sample_weight=w)
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        slow = bootstrap(plain(om.rps), y, P, n_resamples=40, random_state=0, sample_weight=w)
    np.testing.assert_array_equal(fast.distribution, slow.distribution)
    assert np.isnan(fast.distribution).any()


def test_infinite_scores_with_zero_weight_are_absent():
    y = np.array([0, 1, 2, 0])
    P = np.array([[1.0, 0, 0], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.0, 1.0, 0.0]])
    w = np.array([1.0, 1.0, 1.0, 0.0])  # the last row has log loss inf but weight 0
    fast = bootstrap("log_loss", y, P, n_resamples=30, random_state=0, sample_weight=w)
    slow = bootstrap(plain(om.log_loss), y, P, n_resamples=30, random_state=0, sample_weight=w)
    assert np.isfinite(fast.distribution).all()
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------------


def models(n=300, k=4, seed=13):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    good = 0.6 * np.eye(k)[y] + 0.4 * rng.dirichlet(np.ones(k), size=n)
    bad = rng.dirichlet(np.ones(k), size=n)
    return y, good, bad


def test_compare_difference_and_pairing():
    y, good, bad = models()
    res = compare("rps", y, good, bad, n_resamples=100, random_state=4)
    assert isinstance(res, ComparisonResult)
    assert res.estimate_a == om.rps(y, good) and res.estimate_b == om.rps(y, bad)
    assert res.difference == res.estimate_a - res.estimate_b
    ra = bootstrap("rps", y, good, n_resamples=100, random_state=4)
    rb = bootstrap("rps", y, bad, n_resamples=100, random_state=4)
    np.testing.assert_allclose(res.distribution, ra.distribution - rb.distribution, rtol=1e-12)
    # the order statistics of the interval that inverts the p-value (see compare's Notes)
    assert (res.low, res.high) == tuple(order_statistics(res.distribution, [0.025, 0.975]))


@pytest.mark.parametrize(("name", "x"), [("rps", "P"), ("qwk", "yp"), ("c_index", "P")])
def test_compare_identical_sides_is_exactly_zero(name, x):
    y, P, yp, w = make(80, 4)
    data = P if x == "P" else yp
    res = compare(name, y, data, data, n_resamples=50, random_state=0, sample_weight=w)
    assert res.difference == 0.0
    assert (res.distribution == 0.0).all()
    assert res.p_value == 1.0 and res.better is None
    assert res.low == res.high == 0.0


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_compare_finds_the_better_model(method):
    y, good, bad = models()
    decide = om.decide
    # rps: lower is better
    res = compare("rps", y, good, bad, n_resamples=300, random_state=1, method=method)
    assert res.p_value < 0.05 and res.high < 0 and res.better == "a"
    res = compare("rps", y, bad, good, n_resamples=300, random_state=1, method=method)
    assert res.p_value < 0.05 and res.low > 0 and res.better == "b"
    # qwk: higher is better
    res = compare(
        "qwk",
        y,
        decide(good),
        decide(bad),
        n_resamples=300,
        random_state=1,
        method=method,
        labels=[0, 1, 2, 3],
    )
    assert res.p_value < 0.05 and res.low > 0 and res.better == "a"
    res = compare(
        "qwk",
        y,
        decide(bad),
        decide(good),
        n_resamples=300,
        random_state=1,
        method=method,
        labels=[0, 1, 2, 3],
    )
    assert res.p_value < 0.05 and res.high < 0 and res.better == "b"


def test_compare_p_value_definition():
    y, good, bad = models(n=60, seed=3)
    near = 0.98 * good + 0.02 * bad
    res = compare("brier", y, good, near, n_resamples=200, random_state=0)
    d = res.distribution
    extreme = min(np.sum(d <= 0), np.sum(d >= 0))
    assert res.p_value == min(1.0, 2 * (1 + extreme) / (d.size + 1))
    assert res.p_value >= 2 / (d.size + 1)  # never 0: the resolution is 2 / (B + 1)


def test_compare_bca_uses_paired_jackknife():
    y, good, bad = models(n=70, seed=5)
    res = compare("rps", y, good, bad, n_resamples=300, random_state=3, method="bca")
    jack = leave_one_out(om.rps, y, good) - leave_one_out(om.rps, y, bad)
    ref = direct_bca(res.distribution, res.difference, jack, 0.95, order=True)
    np.testing.assert_allclose([res.low, res.high], ref, rtol=1e-10)
    slow = compare(plain(om.rps), y, good, bad, n_resamples=300, random_state=3, method="bca")
    np.testing.assert_allclose([slow.low, slow.high], ref, rtol=1e-10)
    assert slow.better is None  # an unregistered callable has no known direction


def test_compare_omit_uses_rows_complete_on_both_sides():
    y, good, bad = models(n=50, seed=6)
    good, bad = good.copy(), bad.copy()
    good[[2, 9], 0] = np.nan
    bad[[9, 30], 1] = np.nan
    keep = ~np.isin(np.arange(50), [2, 9, 30])
    res = compare("rps", y, good, bad, n_resamples=40, random_state=0, nan_policy="omit")
    assert res.estimate_a == pytest.approx(om.rps(y[keep], good[keep]), rel=1e-14)
    assert res.estimate_b == pytest.approx(om.rps(y[keep], bad[keep]), rel=1e-14)
    idx = drawn_indices(0, int(keep.sum()), 40)
    ref = literal(om.rps, y[keep], good[keep], idx) - literal(om.rps, y[keep], bad[keep], idx)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------------------------
# AURSC and other callables (generic path)
# --------------------------------------------------------------------------------------------


def aursc(y_true, y_proba, *, by="rps", metric="qwk", labels=None, sample_weight=None):
    """A stand-in with the signature of AURSC that honours frequency weights exactly."""
    set_metric = om.get_metric(metric)
    pred = np.argmax(np.asarray(y_proba), axis=1)
    value = set_metric(y_true, pred, labels=labels, sample_weight=sample_weight)
    return value - 0.1 * om.get_metric(by)(
        y_true, y_proba, labels=labels, sample_weight=sample_weight
    )


def test_aursc_like_callable_generic_path_and_compare():
    y, good, bad = models(n=120, seed=8)
    lab = [0, 1, 2, 3]
    res = bootstrap(aursc, y, good, n_resamples=30, random_state=2, by="brier", labels=lab)
    assert res.metric == "aursc"
    assert res.estimate == aursc(y, good, by="brier", labels=lab)
    ref = literal(aursc, y, good, drawn_indices(2, 120, 30), by="brier", labels=lab)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12)

    cmp = compare(
        aursc,
        y,
        good,
        good,
        n_resamples=40,
        random_state=2,
        labels=lab,
        kwargs_a={"by": "rps"},
        kwargs_b={"by": "brier"},
    )
    ra = bootstrap(aursc, y, good, n_resamples=40, random_state=2, labels=lab, by="rps")
    rb = bootstrap(aursc, y, good, n_resamples=40, random_state=2, labels=lab, by="brier")
    np.testing.assert_allclose(cmp.distribution, ra.distribution - rb.distribution, rtol=1e-12)
    assert cmp.difference == ra.estimate - rb.estimate
    # the direction is that of the set metric: qwk (default) is maximised, mae minimised
    up = compare(aursc, y, good, bad, n_resamples=100, random_state=0, labels=lab)
    down = compare(aursc, y, good, bad, n_resamples=100, random_state=0, labels=lab, metric="mae")
    assert up.better == "a" and up.low > 0
    assert down.better == "a" and down.high < 0


def test_callable_with_direction_attribute():
    y, good, bad = models(n=100, seed=2)

    def score(t, p, sample_weight=None):
        return om.rps(t, p, sample_weight=sample_weight)

    score.direction = "minimize"  # type: ignore[attr-defined]
    res = compare(score, y, good, bad, n_resamples=100, random_state=0)
    assert res.better == "a"


@pytest.mark.skipif(
    importlib.util.find_spec("ordmetrics.evaluation.retention") is None,
    reason="ordmetrics.evaluation.retention is not available",
)
def test_real_aursc():
    from ordmetrics.evaluation import retention

    y, good, bad = models(n=80, seed=4)
    res = bootstrap(retention.aursc, y, good, n_resamples=12, random_state=0, by="rps")
    assert res.estimate == retention.aursc(y, good, by="rps")
    ref = literal(retention.aursc, y, good, drawn_indices(0, 80, 12), by="rps")
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-9, atol=1e-12)
    by_name = compare(
        "aursc",
        y,
        good,
        good,
        n_resamples=12,
        random_state=0,
        kwargs_a={"by": "rps"},
        kwargs_b={"by": "brier"},
    )
    ra = bootstrap(retention.aursc, y, good, n_resamples=12, random_state=0, by="rps")
    rb = bootstrap(retention.aursc, y, good, n_resamples=12, random_state=0, by="brier")
    np.testing.assert_allclose(
        by_name.distribution, ra.distribution - rb.distribution, rtol=1e-12, atol=1e-12
    )
    # AURSC is better when higher for its default set metric (qwk), lower for "mae"
    # 40 resamples: the fewest whose p-value can fall below 0.05 (2 / 41)
    up = compare("aursc", y, good, bad, n_resamples=40, random_state=0)
    down = compare("aursc", y, good, bad, n_resamples=40, random_state=0, metric="mae")
    assert up.low > 0 and up.better == "a"
    assert down.high < 0 and down.better == "a"
    assert up.estimate_a == retention.aursc(y, good)
    assert down.estimate_b == retention.aursc(y, bad, metric="mae")


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.fixture
def data():
    y, P, _, _ = make(20, 3)
    return y, P


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_resamples": 1.5}, TypeError, "n_resamples must be an integer.*got float 1.5"),
        ({"n_resamples": True}, TypeError, "n_resamples must be an integer"),
        ({"n_resamples": 1}, ValueError, "n_resamples must be at least 2.*got 1"),
        ({"confidence_level": 95}, ValueError, "strictly between 0 and 1.*0.95 rather"),
        ({"confidence_level": 0.0}, ValueError, "strictly between 0 and 1; got 0.0"),
        ({"confidence_level": "95%"}, TypeError, "confidence_level must be a number"),
        ({"method": "BCa"}, ValueError, "method must be one of.*got 'BCa'.*method='bca'"),
        ({"method": "basic"}, ValueError, "method must be one of 'percentile', 'bca'"),
        (
            {"random_state": -1},
            ValueError,
            "random_state must be None, a non-negative integer seed",
        ),
        ({"random_state": 1.5}, TypeError, "random_state must be None.*default_rng"),
        (
            {"random_state": np.random.RandomState(0)},
            TypeError,
            "numpy.random.Generator; got numpy.random.mtrand.RandomState",
        ),
        ({"reduction": "none"}, ValueError, "reduction must be 'mean'.*got reduction='none'"),
    ],
)
def test_bad_options(data, kwargs, exc, match):
    y, P = data
    with pytest.raises(exc, match=match):
        bootstrap("rps", y, P, **kwargs)
    with pytest.raises(exc, match=match):
        compare("rps", y, P, P, **kwargs)


def test_bad_metric(data):
    y, P = data
    with pytest.raises(ValueError, match=r"metric: unknown metric 'rsp'. Did you mean 'rps'"):
        bootstrap("rsp", y, P)
    with pytest.raises(TypeError, match=r"metric must be a registered metric name.*got int 3"):
        bootstrap(3, y, P)
    with pytest.raises(TypeError, match=r"returned numpy.ndarray, not one number"):
        bootstrap(lambda t, p, sample_weight=None: np.zeros(3), y, P, n_resamples=5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        bootstrap("rps", y, P, n_resamples=5, colour="red")


def test_bad_side_kwargs(data):
    y, P = data
    with pytest.raises(TypeError, match=r"kwargs_a must be a dict.*got list"):
        compare("rps", y, P, P, kwargs_a=[("normalize", False)])
    with pytest.raises(ValueError, match=r"kwargs_b sets 'sample_weight'.*sample_weight=... to"):
        compare("rps", y, P, P, kwargs_b={"sample_weight": np.ones(20)})
    with pytest.raises(
        ValueError, match="kwargs_a and the shared keyword arguments both set 'normalize'"
    ):
        compare("rps", y, P, P, kwargs_a={"normalize": False}, normalize=True)
    with pytest.raises(TypeError, match="string keys"):
        compare("rps", y, P, P, kwargs_a={1: 2})


def test_compare_nothing_complete_on_both_sides():
    y = np.array([0, 1, 2, 1])
    a = np.tile([0.2, 0.5, 0.3], (4, 1))
    b = a.copy()
    a[[0, 1], 0] = np.nan
    b[[2, 3], 0] = np.nan
    with pytest.raises(ValueError, match="no row is complete on both sides"):
        compare("rps", y, a, b, n_resamples=5, nan_policy="omit")


def test_metric_errors_surface_unchanged(data):
    y, P = data
    with pytest.raises(ValueError, match="must lie in"):
        bootstrap("rps", y, P * 2, n_resamples=5)
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        bootstrap("rps", y, P, n_resamples=5, nan_policy="drop")


# --------------------------------------------------------------------------------------------
# Ranking and calibration metrics: prepared once, evaluated on the resample counts
# --------------------------------------------------------------------------------------------

COUNTS_CASES = [
    ("c_index", om.c_index, {}),
    ("kendall_tau", om.kendall_tau, {}),
    ("spearman", om.spearman, {}),
    ("ece", om.ece, {}),
    ("ece", om.ece, {"n_bins": 4, "renormalize": True}),
    ("classwise_ece", om.classwise_ece, {"n_bins": 6}),
    ("cumulative_ece", om.cumulative_ece, {}),
]


def tied(n: int, k: int, seed: int):
    """make() with exact ties, near-ties of the expected grade chained across 1e-12 steps,
    and integer weights."""
    y, P, _, w = make(n, k, seed)
    P = P.copy()
    P[::5] = P[1]  # exact ties
    base = np.array([0.3, 0.3, 0.4] + [0.0] * (k - 3))
    for j in range(8):  # expected grades 1.1 + j * 0.6e-12: a chain of near-ties
        row = base.copy()
        row[2] += j * 0.3e-12
        row[0] -= j * 0.3e-12
        P[7 + 11 * j] = row
    return y, P, np.round(w * 3)


@pytest.mark.parametrize("labels", ["codes", "strings"])
@pytest.mark.parametrize("weights", [None, "integer", "real"])
@pytest.mark.parametrize(("name", "func", "opts"), COUNTS_CASES)
def test_counts_path_equals_generic_loop(monkeypatch, name, func, opts, weights, labels):
    """Bitwise equal to one metric call per resample with integer weights, to 1e-12 with real
    ones (rounding of the sums within a tie group), over several chunks of resamples."""
    n, b = 130, 12
    y, P, wi = tied(n, 4, seed=21)
    _, _, _, wr = make(n, 4, seed=21)
    sw = {None: None, "integer": wi, "real": wr}[weights]
    kw = dict(opts)
    yy = y
    if labels == "strings":
        names = ["d", "c", "b", "a"]  # ordinal order differs from sorted order
        yy = np.array(names, dtype=object)[y]
        kw["labels"] = names
    monkeypatch.setattr(counts_module, "CHUNK_INDICES", 5 * n)  # three chunks, the last one partial
    res = bootstrap(name, yy, P, n_resamples=b, random_state=SEED, sample_weight=sw, **kw)
    slow = bootstrap(plain(func), yy, P, n_resamples=b, random_state=SEED, sample_weight=sw, **kw)
    assert res.estimate == slow.estimate == func(yy, P, sample_weight=sw, **kw)
    if weights == "real" and name in ("c_index", "kendall_tau", "spearman"):
        np.testing.assert_allclose(res.distribution, slow.distribution, rtol=0, atol=1e-12)
    else:
        np.testing.assert_array_equal(res.distribution, slow.distribution)
    ref = literal(func, yy, P, drawn_indices(SEED, n, b), w=sw, **kw)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("name", "func", "opts"), COUNTS_CASES)
def test_counts_path_is_taken_and_large_sizes(name, func, opts):
    """The registered metric takes the counts path; sizes past the kernel's blocks and the
    chunk of resample indices (CHUNK_INDICES // N = 1 resample per chunk)."""
    n = 3000
    y, P, wi = tied(n, 5, seed=22)
    side = bs._Side(bs._resolve_metric(name), y, P, dict(opts))
    assert side.path == "counts"
    old = counts_module.CHUNK_INDICES
    try:
        counts_module.CHUNK_INDICES = n  # one resample per chunk
        fast = bootstrap(name, y, P, n_resamples=3, random_state=3, sample_weight=wi, **opts)
        slow = bootstrap(plain(func), y, P, n_resamples=3, random_state=3, sample_weight=wi, **opts)
    finally:
        counts_module.CHUNK_INDICES = old
    np.testing.assert_array_equal(fast.distribution, slow.distribution)


def test_quantile_bins_and_propagate_keep_the_generic_path():
    y, P, _, _ = make(60, 3, seed=23)
    side = bs._Side(bs._resolve_metric("ece"), y, P, {"strategy": "quantile"})
    assert side.path == "generic"
    P = P.copy()
    P[4, 0] = np.nan
    side = bs._Side(bs._resolve_metric("c_index"), y, P, {"nan_policy": "propagate"})
    assert side.path == "generic"
    fast = bootstrap("ece", y, P, n_resamples=20, random_state=0, nan_policy="omit")
    quant = bootstrap(
        "ece", y, P, n_resamples=20, random_state=0, strategy="quantile", nan_policy="omit"
    )
    slow = bootstrap(
        plain(om.ece), y, P, n_resamples=20, random_state=0, strategy="quantile", nan_policy="omit"
    )
    np.testing.assert_array_equal(quant.distribution, slow.distribution)
    assert not np.array_equal(fast.distribution, quant.distribution)


@pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")
@pytest.mark.parametrize(("name", "func", "opts"), COUNTS_CASES)
def test_counts_path_nan_policy_omit_and_compare(name, func, opts):
    y, P, _, w = make(80, 4, seed=24)
    y = y.astype(float)
    P = P.copy()
    Q = np.roll(P, 1, axis=1)
    y[[3, 17]] = np.nan
    P[[5, 40], 0] = np.nan
    Q[[6], 1] = np.nan
    w[8] = np.nan
    kw = {"sample_weight": w, "nan_policy": "omit", **opts}
    res = bootstrap(name, y, P, n_resamples=15, random_state=2, method="bca", **kw)
    slow = bootstrap(plain(func), y, P, n_resamples=15, random_state=2, method="bca", **kw)
    np.testing.assert_allclose(res.distribution, slow.distribution, rtol=0, atol=1e-12)
    np.testing.assert_allclose([res.low, res.high], [slow.low, slow.high], rtol=0, atol=1e-12)
    cmp = compare(name, y, P, Q, n_resamples=15, random_state=2, method="bca", **kw)
    cslow = compare(plain(func), y, P, Q, n_resamples=15, random_state=2, method="bca", **kw)
    assert cmp.estimate_a == cslow.estimate_a and cmp.estimate_b == cslow.estimate_b
    np.testing.assert_allclose(cmp.distribution, cslow.distribution, rtol=0, atol=1e-12)
    np.testing.assert_allclose([cmp.low, cmp.high], [cslow.low, cslow.high], rtol=0, atol=1e-12)


def test_counts_path_undefined_resamples_are_nan():
    """A resample of one class: c_index NaN on the counts path too (and no positive weight)."""
    y = np.array([0] * 30 + [1])
    P = np.random.default_rng(0).dirichlet([1, 1], size=31)
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        res = bootstrap("c_index", y, P, n_resamples=40, random_state=0)
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        slow = bootstrap(plain(om.c_index), y, P, n_resamples=40, random_state=0)
    assert np.isnan(res.distribution).any()
    np.testing.assert_array_equal(res.distribution, slow.distribution)


def test_counts_evaluators_directly():
    from ordmetrics.metrics import calibration, ranking

    y, P, _, w = make(50, 3, seed=25)
    c = np.random.default_rng(1).integers(0, 3, size=50).astype(float)
    for module, name in [(ranking, "spearman"), (calibration, "cumulative_ece")]:
        evaluate, n = module.counts_evaluator(name, y, P, sample_weight=w)
        assert n == 50
        assert evaluate(c) == getattr(om, name)(y, P, sample_weight=w * c)
    with pytest.raises(ValueError, match="name must be 'c_index'"):
        ranking.counts_evaluator("qwk", y, P)
    with pytest.raises(ValueError, match="name must be 'ece'"):
        calibration.counts_evaluator("rps", y, P)
    P = P.copy()
    P[0, 0] = np.nan
    assert ranking.counts_evaluator("c_index", y, P, nan_policy="propagate") is None
    assert calibration.counts_evaluator("ece", y, P, nan_policy="propagate") is None
    assert calibration.counts_evaluator("ece", y, P, strategy="quantile", nan_policy="omit") is None


# --------------------------------------------------------------------------------------------
# The path follows the registry spec; the report's helpers
# --------------------------------------------------------------------------------------------

#: The path of each accumulator family (``spec.accumulates``); None: one call per resample.
PATHS = {
    "mean_score": "scoring",
    "confusion_matrix": "agreement",
    "rank_table": "counts",
    "calibration_bins": "counts",
    None: "generic",
}


@pytest.mark.parametrize("name", om.list_metrics())
def test_path_follows_the_accumulator_family_of_the_spec(name):
    spec = om.get_metric(name)
    y, P, yp, w = make(60, 3, seed=31)
    x = yp if spec.input == "decisions" else P
    lab = [0, 1, 2]
    side = bs._Side(bs._resolve_metric(name), y, x, {"sample_weight": w, "labels": lab})
    assert side.path == PATHS[spec.accumulates]
    assert bs._resolve_metric(name).spec is spec  # AURSC too: a registered metric
    res = bootstrap(name, y, x, n_resamples=4, random_state=5, sample_weight=w, labels=lab)
    ref = literal(spec.func, y, x, drawn_indices(5, 60, 4), w=w, labels=lab)
    np.testing.assert_allclose(res.distribution, ref, rtol=1e-12, atol=1e-12)


def test_paired_difference_equals_compare():
    y, good, bad = models(n=150, seed=21)
    for metric, kw in (("rps", {}), ("qwk", {}), ("aursc", {"metric": "mae"})):
        x_a, x_b = (good, bad) if metric != "qwk" else (good.argmax(1), bad.argmax(1))
        ra = bootstrap(metric, y, x_a, n_resamples=60, random_state=8, **kw)
        rb = bootstrap(metric, y, x_b, n_resamples=60, random_state=8, **kw)
        pair = bs.paired_difference(ra, rb, metric_kwargs=kw)
        both = compare(metric, y, x_a, x_b, n_resamples=60, random_state=8, **kw)
        assert (pair.difference, pair.low, pair.high, pair.p_value, pair.better) == (
            both.difference,
            both.low,
            both.high,
            both.p_value,
            both.better,
        )
        np.testing.assert_array_equal(pair.distribution, both.distribution)
        assert pair.better == "a" and pair.metric == metric
    with pytest.raises(TypeError, match="a must be a BootstrapResult"):
        bs.paired_difference(None, rb)
    other = bootstrap("brier", y, good, n_resamples=60, random_state=8)
    with pytest.raises(ValueError, match="same metric with the same resamples"):
        bs.paired_difference(other, rb)


def test_check_resamples_allows_zero_or_at_least_two():
    assert bs.check_resamples(0) == 0 and bs.check_resamples(np.int64(5)) == 5
    with pytest.raises(ValueError, match="0 \\(no intervals\\) or at least 2; got 1"):
        bs.check_resamples(1)
    with pytest.raises(ValueError, match="got -3"):
        bs.check_resamples(-3)
    with pytest.raises(TypeError, match=r"non-negative integer.*got 2\.5"):
        bs.check_resamples(2.5)
