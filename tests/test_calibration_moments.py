"""The one-pass decompositions with uniform bins (shifted per-bin sums, chunks merged by the
parallel formula) against exact rational arithmetic, on ordinary and hostile inputs, over
several chunks of rows; and the second pass taken when an event's sums are ill-conditioned."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from conftest import on_one_and_two_threads
from ordmetrics._core.numerics import bin_of_fraction, sum_in_order
from ordmetrics.metrics.calibration import brier_decomposition, rps_decomposition
from ordmetrics.metrics.calibration import decomposition as CD
from ordmetrics.metrics.calibration import fused as CF

#: Every double times 2^SCALE is an integer (the smallest subnormal is 2^-1074).
SCALE = 1100


def _ints(x: np.ndarray) -> list[int]:
    """The values of ``x`` times 2^SCALE, exactly, as Python integers."""
    out = []
    for v in x.tolist():
        num, den = float(v).as_integer_ratio()
        out.append(num * ((1 << SCALE) // den))
    return out


def exact_decomposition(rule, y, P, w, n_bins):
    """(score, REL, RES, UNC, WBV, WBC) in exact rational arithmetic, then rounded once.

    The forecasts are those the library forms (F_k added in the order of np.cumsum) and the
    bins those of bin_of_fraction; every sum over rows is exact."""
    n, k = P.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    view_f = P if rule == "brier" else np.cumsum(P, axis=1)[:, :-1]
    wi = _ints(w)
    one = 1 << SCALE
    total = sum(wi)  # scale 2^S
    parts = [Fraction(0)] * 6
    for e in range(view_f.shape[1]):
        f = view_f[:, e]
        o = (y == e) if rule == "brier" else (y <= e)
        bins = bin_of_fraction(f, n_bins)
        fi = _ints(f)
        s_w = [0] * n_bins  # scale 2^S
        s_f = [0] * n_bins  # 2^2S
        s_ff = [0] * n_bins  # 2^3S
        s_o = [0] * n_bins  # 2^S
        s_fo = [0] * n_bins  # 2^2S
        for i, b in enumerate(bins.tolist()):
            wf = wi[i] * fi[i]
            s_w[b] += wi[i]
            s_f[b] += wf
            s_ff[b] += wf * fi[i]
            if o[i]:
                s_o[b] += wi[i]
                s_fo[b] += wf
        big_w = Fraction(total, one)
        base = Fraction(sum(s_o), one) / big_w
        score = rel = res = wbv = wbc = Fraction(0)
        for b in range(n_bins):
            if s_w[b] == 0:
                continue
            wb = Fraction(s_w[b], one)
            sf = Fraction(s_f[b], one * one)
            sff = Fraction(s_ff[b], one**3)
            so = Fraction(s_o[b], one)
            sfo = Fraction(s_fo[b], one * one)
            fb, ob = sf / wb, so / wb
            score += sff - 2 * sfo + so
            rel += wb * (fb - ob) ** 2
            res += wb * (ob - base) ** 2
            wbv += sff - sf * sf / wb
            wbc += 2 * (sfo - sf * so / wb)
        values = [score / big_w, rel / big_w, res / big_w, base * (1 - base), wbv / big_w]
        values.append(wbc / big_w)
        parts = [a + b for a, b in zip(parts, values, strict=True)]
    if rule == "rps":
        parts = [p / (k - 1) for p in parts]
    return [float(p) for p in parts]


FUNCS = {"brier": brier_decomposition, "rps": rps_decomposition}

#: Rows: three chunks of the kernels, the last one short.
N_ROWS = 3 * 16_384 + 77


def _check(rule, y, P, w, n_bins, rtol=1e-12, atol=1e-16):
    got = dataclasses.astuple(FUNCS[rule](y, P, n_bins=n_bins, sample_weight=w))
    want = exact_decomposition(rule, y, P, w, n_bins)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_pass_decomposition_matches_exact_arithmetic(rng, rule, weighted):
    assert CF.n_chunks(N_ROWS) == 3
    P = rng.dirichlet(np.ones(3), size=N_ROWS)
    y = rng.integers(0, 3, N_ROWS)
    w = rng.uniform(0.0, 3.0, N_ROWS) * (rng.random(N_ROWS) > 0.1) if weighted else None
    for n_bins in (1, 7, 15):
        _check(rule, y, P, w, n_bins)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_one_pass_at_and_beyond_the_unrolled_row_length(rng, rule):
    """Rows of ``UNROLL`` values (unrolled loops) and of one more (plain loops), two chunks."""
    from ordmetrics.metrics.calibration.fused_uniform import UNROLL

    n = 2 * 16_384 + 33
    for k in (UNROLL, UNROLL + 1):
        P = rng.dirichlet(np.ones(k), size=n)
        y = rng.integers(0, k, n)
        w = rng.uniform(0.0, 2.0, n)
        _check(rule, y, P, w, 7)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_tiny_within_bin_spread_keeps_its_relative_accuracy(rng, rule):
    """Forecasts 1e-10 apart around off-centre values: the within-bin variance is ~1e-21 of
    the bin's offset from its centre, and is still found to 1e-12 relative."""
    centres = np.array([[0.33, 0.25, 0.42], [0.55, 0.13, 0.32]])
    P = centres[rng.integers(0, 2, N_ROWS)].copy()
    P[:, 0] += rng.uniform(-1e-10, 1e-10, N_ROWS)
    P[:, 2] = 1.0 - P[:, 0] - P[:, 1]
    y = rng.integers(0, 3, N_ROWS)
    d = FUNCS[rule](y, P, n_bins=5)
    assert 0 < d.within_bin_variance < 1e-19
    want = exact_decomposition(rule, y, P, None, 5)
    np.testing.assert_allclose(dataclasses.astuple(d), want, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_weights_over_many_orders_of_magnitude(rng, rule):
    P = rng.dirichlet(np.full(3, 0.7), size=N_ROWS)
    y = rng.integers(0, 3, N_ROWS)
    w = 10.0 ** rng.uniform(-150, 150, N_ROWS)
    _check(rule, y, P, w, 10)
    _check(rule, y, P, w * 1e-150, 10)


def test_ill_conditioned_sums_take_the_second_pass(rng, monkeypatch):
    """The rows of the shift sample unlike the others of their bin: the shifted sums of squares
    are far above the sums of squared deviations, so the within-bin sums are added again
    about the bin means."""
    P = np.tile([0.2, 0.3, 0.5], (N_ROWS, 1))
    P[:, 0] += rng.uniform(-1e-12, 1e-12, N_ROWS)
    P[:: max(1, N_ROWS // min(CF.SHIFT_SAMPLE, N_ROWS // CF._SAMPLE_FRACTION))] = [
        0.3,
        0.3,
        0.4,
    ]  # the sampled rows
    P[:, 2] = 1.0 - P[:, 0] - P[:, 1]
    y = rng.integers(0, 3, N_ROWS)
    calls = []
    real = CD.within_bin_sums

    def spy(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(CD, "within_bin_sums", spy)
    for rule in ("brier", "rps"):
        _check(rule, y, P, None, 1, atol=0.0)
    assert calls == ["classwise", "cumulative"]
    calls.clear()
    _check("brier", y, rng.dirichlet(np.ones(3), size=N_ROWS), None, 10)
    assert calls == []  # well-conditioned: one pass


@pytest.mark.parametrize("k", [5, 9])
def test_one_pass_sums_do_not_depend_on_the_number_of_threads(rng, k):
    """Rows within ``UNROLL`` values (K = 5) and beyond (K = 9: the functions of long rows)."""
    pytest.importorskip("numba")
    P = rng.dirichlet(np.ones(k), size=70_000)
    y = rng.integers(0, k, P.shape[0])
    w = rng.uniform(0.5, 2.0, P.shape[0])

    def values():
        out = []
        for func in FUNCS.values():
            for weight in (None, w):
                out.extend(dataclasses.astuple(func(y, P, n_bins=15, sample_weight=weight)))
        return out

    one, two = on_one_and_two_threads(values)
    assert one == two


def _outcome_split_weights(inp, view, n_bins):
    """The bin weights of the one pass, rebuilt exactly: per chunk and (event, bin), W_0 + W_1,
    the row-order sums (np.bincount) of the weights of the rows of outcome 0 and of outcome 1;
    the chunks added in their order."""
    P, y = inp.P, inp.y
    n = P.shape[0]
    f = P if view == "classwise" else np.cumsum(P, axis=1)[:, :-1]
    e = f.shape[1]
    events = np.arange(e)
    o = (y[:, None] == events) if view == "classwise" else (y[:, None] <= events)
    index = bin_of_fraction(f, n_bins) + n_bins * events
    wt = np.broadcast_to((np.ones(n) if inp.w is None else inp.w * inp.ws)[:, None], f.shape)
    c = CF.n_chunks(n)
    out = np.zeros(e * n_bins)
    for chunk in range(c):
        rows = slice(n * chunk // c, n * (chunk + 1) // c)
        idx, oc, wc = index[rows], o[rows], wt[rows]
        # a boolean mask keeps the (row, event) order: each (event, bin) sum in row order
        w0, w1 = (
            np.bincount(idx[oc == v], weights=wc[oc == v], minlength=e * n_bins)
            for v in (False, True)
        )
        out += w0 + w1
    return out.reshape(e, n_bins)


def test_one_pass_weights_and_event_sums_are_those_of_the_bin_sums(rng):
    """The bin weights of the one pass are W_0 + W_1 per chunk (the row-order sums over the
    rows of outcome 0 and of outcome 1, added in that order; the chunks in their order), bit
    for bit; unweighted, those of event_sums (counts: exact). The sums of w o (W_1) are those
    of event_sums, bit for bit."""
    P = rng.dirichlet(np.ones(4), size=N_ROWS)
    y = rng.integers(0, 4, N_ROWS)
    w = rng.uniform(0.0, 2.0, N_ROWS)
    assert CF.n_chunks(N_ROWS) == 3
    for weight in (w, None):
        for view in ("classwise", "cumulative"):
            inp = CF.fast_input(y, P, None, weight, "raise", False)
            found = CF.uniform_moments(inp, view, 12)
            assert found is not None
            assert np.array_equal(found[0], _outcome_split_weights(inp, view, 12))
            inp2 = CF.fast_input(y, P, None, weight, "raise", False)
            sums = CF.event_sums(inp2, view, 12, "uniform")
            assert sums is not None
            if weight is None:
                assert np.array_equal(found[0], sums[0][..., 0])
            assert np.array_equal(found[2], sums[0][..., 2])
            np.testing.assert_allclose(found[1], sums[0][..., 1] / sums[0][..., 0], rtol=1e-14)


def _numpy_shifts(P, view, n_bins):
    """The shifts of ``CF._shifts`` with NumPy operations (an independent version of the
    compiled sample pass): the sampled rows' forecasts (NaN as 0, clipped to [0, 1]), binned
    by ``bin_of_fraction`` and averaged per (event, bin) with ``np.bincount``; the centres of
    the bins without a sampled row."""
    n = P.shape[0]
    rows = max(1, min(CF.SHIFT_SAMPLE, n // CF._SAMPLE_FRACTION))
    sample = np.asarray(P[:: max(1, n // rows)], dtype=np.float64)
    with np.errstate(all="ignore"):
        f = sample if view == "classwise" else np.cumsum(sample, axis=1)[:, :-1]
        f = np.clip(np.nan_to_num(f, nan=0.0), 0.0, 1.0)
    e = f.shape[1]
    index = bin_of_fraction(f, n_bins) + n_bins * np.arange(e)
    count = np.bincount(index.ravel(), minlength=e * n_bins)
    total = np.bincount(index.ravel(), weights=f.ravel(), minlength=e * n_bins)
    centres = np.tile((np.arange(n_bins) + 0.5) / n_bins, e)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, centres)


@pytest.mark.parametrize("view", ["classwise", "cumulative"])
@pytest.mark.parametrize("n", [1, 5, 127, 128, 129, 2049, 262_143, 262_145, 400_003])
def test_sample_shifts_are_those_of_numpy(rng, view, n):
    """The compiled sample pass against NumPy, bit for bit: every sample size (one row, rows
    below one in 128, the cap of SHIFT_SAMPLE rows, beyond it), unchecked values (NaN,
    infinities, values outside [0, 1]) and forecasts on the bin edges, float32 rows."""
    k = 4
    P = rng.dirichlet(np.full(k, 0.5), size=n)
    hostile = rng.random(n) < 0.05
    P[hostile, 0] = rng.choice([np.nan, np.inf, -np.inf, -0.5, 1.5, -0.0], hostile.sum())
    edges = rng.random(n) < 0.05
    P[edges, 1] = rng.integers(0, 11, edges.sum()) / 10  # 0.3 * 10 is 2.9999999999999996
    for n_bins in (1, 10, 15, 101):
        for Q in (P, P.astype(np.float32)):
            got = CF._shifts(Q, view, n_bins)
            assert np.array_equal(got, _numpy_shifts(Q, view, n_bins)), (n_bins, Q.dtype)


def _numpy_merge(moms):
    """``merge_moments`` with NumPy operations (an independent version of the same steps):
    (weight, mean_f, sum_o, WBV, WBC, well-conditioned)."""
    w_c, s_d, s_dd, _, s_o, s_od, shift = np.moveaxis(moms, -1, 0)
    filled_c = w_c > 0
    safe_c = np.where(filled_c, w_c, 1.0)
    first = np.argmax(filled_c, axis=0)
    ref = np.take_along_axis(shift, first[None], axis=0)[0]
    with np.errstate(all="ignore"):
        m_c = np.where(filled_c, (shift - ref) + s_d / safe_c, 0.0)
        o_c = s_o / safe_c
        sq_c = s_dd - s_d * s_d / safe_c
        co_c = s_od - s_o * s_d / safe_c
        weight, sum_o, sum_wm = sum_in_order(np.stack((w_c, s_o, w_c * m_c), axis=1))
        safe = np.where(weight > 0, weight, 1.0)
        m = sum_wm / safe
        mean_f = np.where(weight > 0, ref + m, 0.0)
        ok = bool(np.all(sq_c.sum(axis=(0, 2)) * CF.MAX_SHIFTED_RATIO >= s_dd.sum(axis=(0, 2))))
        mean_o = sum_o / safe
        dev = np.where(filled_c, m_c - m, 0.0)
        wdev = w_c * dev
        stack = np.stack((sq_c, co_c, wdev * dev, wdev * (o_c - mean_o)), 1)
        sq, co, sq_m, co_m = sum_in_order(stack)
    return weight, mean_f, sum_o, sq + sq_m, co + co_m, ok


@pytest.mark.parametrize("view", ["classwise", "cumulative"])
def test_merged_moments_are_those_of_numpy(rng, view, monkeypatch):
    """The compiled merge of the chunks' moments against NumPy, bit for bit: tables from the
    kernel over 16 chunks (weights over 300 orders of magnitude, bins that only some chunks
    fill, empty bins, one chunk), and tables of random numbers (ill-conditioned events)."""
    from ordmetrics.metrics.calibration.fused_uniform import merge_moments

    n = 16 * 65_536 + 3
    P = rng.dirichlet(np.full(4, 0.3), size=n)
    P[: n // 2, 0] = 0.95  # the first chunks hold only high forecasts of class 0
    P[: n // 2, 1:] = 0.05 / 3
    y = rng.integers(0, 4, n)
    cases = []

    def spy(moms, ratio, out):  # the tables uniform_moments merges
        cases.append(moms.copy())
        return merge_moments(moms, ratio, out)

    monkeypatch.setattr(CF, "merge_moments", spy)
    for w in (None, 10.0 ** rng.uniform(-150, 150, n)):
        for rows in (n, 5_000):
            weight = None if w is None else w[:rows]
            inp = CF.fast_input(y[:rows], P[:rows], None, weight, "raise", False)
            assert CF.uniform_moments(inp, view, 10) is not None
    monkeypatch.undo()
    cases.append(rng.standard_normal((5, 3, 7, 7)) * 10.0 ** rng.uniform(-5, 5, (5, 3, 7, 7)))
    for moms in cases:
        out = np.empty((5, moms.shape[1], moms.shape[2]))
        ok = merge_moments(moms, CF.MAX_SHIFTED_RATIO, out)
        ref = _numpy_merge(moms)
        assert ok == ref[5]
        count = 5 if ok else 3
        for got, want in zip(out[:count], ref[:count], strict=True):
            assert np.array_equal(got, want, equal_nan=True)
    assert len(cases) == 5 and any(c.shape[0] == 16 for c in cases)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_bins_without_a_sampled_row_shift_by_their_centre(rng, rule):
    P = rng.dirichlet(np.ones(3), size=N_ROWS)
    P[:: max(1, N_ROWS // min(CF.SHIFT_SAMPLE, N_ROWS // CF._SAMPLE_FRACTION))] = [
        0.55,
        0.3,
        0.15,
    ]  # the sample: one bin each
    y = rng.integers(0, 3, N_ROWS)
    w = rng.uniform(0.0, 2.0, N_ROWS)
    view = "classwise" if rule == "brier" else "cumulative"
    shifts = CF._shifts(P, view, 10).reshape(-1, 10)
    forecasts = [0.55, 0.3, 0.15] if rule == "brier" else [0.55, 0.85]
    centres = (np.arange(10) + 0.5) / 10
    for e, f in enumerate(forecasts):  # one bin holds the sample's forecast, the others centres
        b = int(bin_of_fraction(np.array([f]), 10)[0])
        assert shifts[e, b] == pytest.approx(f, rel=1e-13)  # a mean of sums of ~2,000 values
        assert np.array_equal(np.delete(shifts[e], b), np.delete(centres, b))
    _check(rule, y, P, w, 10)


def test_rows_longer_than_a_block(rng):
    """K above the block of values (one row per block), float32 input read as float64."""
    from ordmetrics.metrics.calibration import classwise_ece, cumulative_ece, ece
    from ordmetrics.metrics.calibration.fused_uniform import BLOCK

    k = BLOCK + 77
    P = rng.dirichlet(np.full(k, 0.05), size=40)
    y = rng.integers(0, k, 40)
    w = rng.uniform(0.0, 2.0, 40)
    for rule in ("brier", "rps"):
        _check(rule, y, P, w, 6)
    P32 = P.astype(np.float32)  # the row sums stay within the float32 tolerance
    for func in (ece, classwise_ece, cumulative_ece):
        got = func(y, P32, n_bins=6, sample_weight=w)
        assert got == func(y, P32.astype(np.float64), n_bins=6, sample_weight=w)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_one_pass_score_over_many_parts_and_a_short_last_one(rng, rule):
    """The score terms added per (event, bin) in parts of ``FLUSH_BLOCKS`` blocks, the parts
    compensated: many parts per chunk and a short last part, against exact arithmetic, with
    forecasts near 0 and 1 (terms of very different sizes)."""
    from ordmetrics.metrics.calibration.fused_uniform import BLOCK, FLUSH_BLOCKS

    n = 2 * 16_384 + FLUSH_BLOCKS * BLOCK // 4 + 3  # two chunks, parts of 1,024 rows at K = 4
    P = rng.dirichlet(np.full(4, 0.05), size=n)
    y = rng.integers(0, 4, n)
    w = rng.uniform(0.0, 2.0, n)
    for weight in (None, w):
        _check(rule, y, P, weight, 15)


def test_weights_found_valid_are_not_checked_again(rng):
    """Weights whose bits scaled_weights found finite and >= 0 skip the kernels' weight check
    (``check_level`` 1); a scaled copy is checked (level 2), and a bad weight anywhere is still
    reported with its row."""
    n = 2 * 16_384 + 11
    P = rng.dirichlet(np.ones(3), size=n)
    y = rng.integers(0, 3, n)
    w = rng.uniform(0.5, 2.0, n)
    inp = CF.fast_input(y, P, None, w, "raise", False)
    assert inp.w is w and inp.w_valid and inp.check_level() == 1
    assert CF.fast_input(y, P, None, None, "raise", False).check_level() == 1
    tiny = w * 1e-310  # subnormal: a scaled copy, checked in the kernels
    inp = CF.fast_input(y, P, None, tiny, "raise", False)
    assert not inp.w_valid and inp.check_level() == 2
    for func in FUNCS.values():
        d = dataclasses.astuple(func(y, P, n_bins=9, sample_weight=tiny))
        np.testing.assert_allclose(
            d, dataclasses.astuple(func(y, P, n_bins=9, sample_weight=w)), rtol=1e-12
        )
    bad = w.copy()
    bad[n - 2] = -1.0
    assert CF.fast_input(y, P, None, bad, "raise", False).check_level() == 2
    for func in FUNCS.values():
        with pytest.raises(ValueError, match="sample_weight must be non-negative"):
            func(y, P, n_bins=9, sample_weight=bad)
