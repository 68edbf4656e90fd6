"""The two passes of the quantile bins (``ordmetrics.metrics.calibration.fused_quantile``).

Sizes beyond every internal one (blocks of ``BLOCK`` values with a short last block, one and
two chunks, few and many buckets), ties, near-ties and tied weights (zeros included): the
sums per bin and the thresholds are those of the binning module's sorted path, and the
kernels' pieces those of plain NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import on_one_and_two_threads
from ordmetrics import classwise_ece, cumulative_ece, ece
from ordmetrics._core.numerics import scale_weights
from ordmetrics.metrics.calibration import binning as CB
from ordmetrics.metrics.calibration import fused as CF
from ordmetrics.metrics.calibration import fused_quantile as CQ
from ordmetrics.metrics.calibration import fused_quantile_kernels as CQK

FUNCS = {"top_label": ece, "classwise": classwise_ece, "cumulative": cumulative_ece}


def _data(rng, kind, n, k):
    """Continuous forecasts, ties (on a grid of 1/997: away from the buckets' edges) or
    near-ties (1e-13 apart)."""
    if kind == "continuous":
        P = rng.dirichlet(np.ones(k), size=n)
    elif kind == "rounded":
        P = np.round(rng.dirichlet(np.ones(k), size=n) * 997) / 997
        P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0.0, 1.0)
        P /= P.sum(axis=1, keepdims=True)
    else:
        base = rng.dirichlet(np.ones(k), size=n // 50 + 1)
        P = base[rng.integers(0, base.shape[0], n)]
        shift = rng.integers(-2, 3, n) * 1e-13
        P[:, 0] += shift
        P[:, -1] -= shift
        P = np.clip(P, 0.0, 1.0)
    return rng.integers(0, k, n), P


def _reference_bins(view, y, P, w, n_bins):
    """Bin sums (E, B, 3) and inner edges (E, B - 1) of the binning module's sorted path."""
    ws = np.ones(y.size) if w is None else scale_weights(w)[0]
    f, o = CB.event_forecasts(P, y, view)
    b = CB.bin_sums(f, o, ws, n_bins, "quantile")
    sums = np.stack([b.weight, b.sum_forecast, b.sum_event], axis=-1)
    return sums, b.edges[:, 1:-1]


def _check_against_reference(view, y, P, w, n_bins):
    """The ECE, and where the two passes run (True returned; not with heavy ties) the sums
    per bin and the thresholds, against the sorted path."""
    ref, edges = _reference_bins(view, y, P, w, n_bins)  # weights in the same (scaled) units
    got = FUNCS[view](y, P, n_bins=n_bins, strategy="quantile", sample_weight=w)
    total = ref[0, :, 0].sum()
    want = float(np.mean(CB.ece_from_sums(ref[..., 0], ref[..., 1], ref[..., 2], total)))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    found = CF.event_sums(CF.fast_input(y, P, None, w, "raise", False), view, n_bins, "quantile")
    if found is None:  # heavy ties: the sorted path itself
        return False
    sums, (T, _) = found
    np.testing.assert_allclose(sums, ref, rtol=1e-12, atol=1e-12)
    if w is None or np.all(w * 4 == np.round(w * 4)):  # such weights add up exactly
        np.testing.assert_array_equal(sums[..., 0], ref[..., 0])
    # a threshold is the largest forecast of the bins below (inf: no row reaches the bin)
    filled = np.isfinite(T)
    np.testing.assert_array_equal(T[filled], edges[filled])
    return True


@pytest.mark.parametrize("kind", ["continuous", "rounded", "near_ties"])
@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
def test_two_passes_give_the_bins_of_the_sorted_path(rng, kind, view):
    """Two chunks (70,001 rows), blocks of 1,024 values with a short last one (K = 3, 7: 341
    and 146 rows per block), weights with ties and zeros."""
    ran = []
    for k in (3, 7):
        y, P = _data(rng, kind, 70_001, k)
        for w in (None, rng.integers(0, 4, y.size) * 0.5, rng.uniform(0.2, 2.0, y.size)):
            for n_bins in (2, 15, 60):
                ran.append(_check_against_reference(view, y, P, w, n_bins))
    assert sum(ran) >= len(ran) // 2


@pytest.mark.parametrize("n", [1, 2, 203, 1025, 32_767, 32_768, 40_961])
def test_sizes_around_the_blocks_and_chunks(rng, n):
    """One chunk below 32,768 rows (the sums in row order), two from there on; blocks of
    1,024 values (204 rows at K = 5) with a short last one."""
    y, P = _data(rng, "rounded", n, 5)
    w = rng.integers(0, 3, n) * 0.25
    w[0] = 1.0
    for view in FUNCS:
        for weights in (None, w):
            _check_against_reference(view, y, P, weights, 7)
    assert _check_against_reference("classwise", y, P, w, 2) or n < 1025


@pytest.mark.parametrize("buckets", [16, 64, 32_768])
def test_few_and_many_buckets(rng, monkeypatch, buckets):
    """Few buckets (thousands of rows sorted per run) and more buckets than rows."""
    monkeypatch.setattr(CF, "n_buckets", lambda n: buckets)
    for kind in ("continuous", "near_ties"):
        y, P = _data(rng, kind, 40_000, 4)
        ran = [
            _check_against_reference(view, y, P, w, 15)
            for view in FUNCS
            for w in (None, rng.integers(0, 4, y.size) * 0.5)
        ]
        assert any(ran)


def test_crowded_forecasts_sort_without_the_counting_keys(rng, monkeypatch):
    """Forecasts a few ulps apart within one bucket: the counting sort gives up (too many
    moves) and NumPy's stable sort runs instead, with the same values."""
    calls = []
    order = CQ._stable_order

    def counted(*args):
        ok = order(*args)
        calls.append(ok)
        return ok

    monkeypatch.setattr(CQ, "_stable_order", counted)
    spread = rng.random(36_000)
    crowd = 0.5001 + np.arange(4_000)[::-1] * 2.0**-58  # a tie group, descending in row order
    p = np.concatenate([spread[:18_000], crowd, spread[18_000:]])  # the median in the crowd
    P = np.column_stack([p, 1.0 - p])
    y = rng.integers(0, 2, p.size)
    for view in ("classwise", "cumulative"):
        assert _check_against_reference(view, y, P, None, 4)
    assert calls and not all(calls)


def test_stable_order_is_that_of_a_stable_argsort(rng):
    """The counting sort and insertion sort give ``np.argsort(kind="stable")``."""
    m = 64
    for kind in ("spread", "ties", "clustered"):
        e_rows = [rng.random(500), rng.random(3), np.empty(0)]
        if kind == "ties":
            e_rows = [np.round(v, 2) for v in e_rows]
        elif kind == "clustered":
            e_rows = [0.5 + np.round(rng.random(300) * 1e-3, 5), rng.random(40), rng.random(1)]
        vals = np.concatenate(e_rows)
        offsets = np.cumsum([0] + [v.size for v in e_rows])
        count = np.zeros((len(e_rows), m), dtype=np.int64)
        for e, v in enumerate(e_rows):
            count[e] = np.bincount(np.minimum((v * m).astype(np.int64), m - 1), minlength=m)
        start = np.cumsum(count, axis=1) - count
        order = np.empty(vals.size, dtype=np.int64)
        assert CQK._stable_order(vals, offsets, count, start, order)
        for e, v in enumerate(e_rows):
            got = order[offsets[e] : offsets[e + 1]]
            np.testing.assert_array_equal(got, np.argsort(v, kind="stable"))


@pytest.mark.parametrize("view", [0, 1, 2])
def test_the_passes_give_what_numpy_gives(rng, view):
    """First pass: per (chunk, event, bucket) w, w f, w o and the number of rows of positive
    weight; second pass: the rows of the flagged buckets in row order, the largest forecast
    of the ``TOP_BELOW`` buckets; beyond the block size, two chunks."""
    n, k, m, c = 5_003, 4, 32, 2
    y, P = _data(rng, "continuous", n, k)
    P = np.round(P, 3)
    P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)
    w = rng.integers(0, 3, n) * 0.5
    names = ("top_label", "classwise", "cumulative")
    f, o = CB.event_forecasts(P, y, names[view])
    e = f.shape[1]
    n_bad, hist = CQ.bucket_table(P, y, w, 1.0, view, e, m, c, 1e-9, True)
    assert n_bad == 0
    bucket = np.clip(np.floor(f * m), 0, m - 1).astype(np.int64)
    chunks = [np.arange(n * i // c, n * (i + 1) // c) for i in range(c)]  # the split of N
    for ci, rows in enumerate(chunks):
        for j in range(e):
            b, ww = bucket[rows, j], w[rows]
            want = [
                np.bincount(b, weights=ww, minlength=m),
                np.bincount(b, weights=ww * f[rows, j], minlength=m),
                np.bincount(b, weights=ww * o[rows, j], minlength=m),
                np.bincount(b, weights=(ww > 0) * 1.0, minlength=m),
            ]
            np.testing.assert_allclose(hist[ci, j], np.stack(want, axis=-1), rtol=1e-13)
    code = np.zeros((e + 1, m), dtype=np.uint8)
    code[:e, 5:9] = CQK.IN_RUN
    code[:e, 3] = CQK.TOP_BELOW
    per = np.zeros((c, e), dtype=np.int64)
    for ci, rows in enumerate(chunks):
        run = (bucket[rows] >= 5) & (bucket[rows] < 9) & (w[rows] > 0)[:, None]
        per[ci] = run.sum(axis=0)
    offsets = np.zeros(e + 1, dtype=np.int64)
    np.cumsum(per.sum(axis=0), out=offsets[1:])
    chunk_offsets = offsets[None, :-1] + np.cumsum(per, axis=0) - per
    size = int(offsets[-1])
    vals, wts, obs = np.empty(size), np.empty(size), np.empty(size)
    top = np.full((c, e, m), -np.inf)
    args = (P.reshape(-1), k, y, w, 1.0, view, code.reshape(-1), chunk_offsets, vals, wts, obs)
    assert CQK._collect(*args, top)
    for j in range(e):
        sel = (bucket[:, j] >= 5) & (bucket[:, j] < 9) & (w > 0)
        a, z = offsets[j], offsets[j + 1]
        np.testing.assert_array_equal(vals[a:z], f[sel, j])
        np.testing.assert_array_equal(wts[a:z], w[sel])
        np.testing.assert_array_equal(obs[a:z], o[sel, j])
        in3 = (bucket[:, j] == 3) & (w > 0)
        assert top[:, j, 3].max() == (f[in3, j].max() if in3.any() else -np.inf)


def test_results_do_not_depend_on_the_thread_count(rng):
    """Beyond ``PARALLEL_MIN_WORK`` values: the parallel kernels, on one thread and on two."""
    from ordmetrics._core.parallel import PARALLEL_MIN_WORK

    y, P = _data(rng, "near_ties", PARALLEL_MIN_WORK // 4 + 1_001, 4)
    w = rng.integers(0, 4, y.size) * 0.5
    for view, func in FUNCS.items():
        one, two = on_one_and_two_threads(
            lambda func=func: func(y, P, n_bins=15, strategy="quantile", sample_weight=w)
        )
        assert one == two, view


def test_halved_buckets_give_the_bins_of_the_sorted_path(rng, monkeypatch):
    """Tables above ``_TABLE_BYTES`` (made small here): half as many buckets, the same bins
    and sums."""
    monkeypatch.setattr(CF, "_TABLE_BYTES", 1 << 15)
    assert CF._table_buckets(70_001, 3) == CF.n_buckets(70_001) // 2
    for kind in ("continuous", "rounded"):
        y, P = _data(rng, kind, 70_001, 3)
        for w in (None, rng.integers(0, 4, y.size) * 0.5):
            assert _check_against_reference("classwise", y, P, w, 15)
            assert _check_against_reference("cumulative", y, P, w, 15)
