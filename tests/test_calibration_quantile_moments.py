"""The decompositions with quantile bins from the two passes (``fused.quantile_moments``): the
moments of the buckets (first pass) and of the collected rows of the runs, against exact
rational arithmetic on the bins of the binning module's sorted path; sizes beyond the
internal ones (two chunks, a short last block, few and many buckets), ties
and tied weights (zeros included)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from conftest import on_one_and_two_threads
from ordmetrics.metrics.calibration import binning as CB
from ordmetrics.metrics.calibration import brier_decomposition, rps_decomposition
from ordmetrics.metrics.calibration import fused as CF
from ordmetrics.metrics.calibration import fused_quantile as CQ
from ordmetrics.metrics.calibration import fused_quantile_kernels as CQK

FUNCS = {"brier": brier_decomposition, "rps": rps_decomposition}
VIEWS = {"brier": "classwise", "rps": "cumulative"}

#: Two chunks of rows (the moments' path), the last block of values short.
N_ROWS = 2 * 16_384 + 77

#: Every double times 2^SCALE is an integer.
SCALE = 1100


def _ints(x: np.ndarray) -> list[int]:
    out = []
    for v in x.tolist():
        num, den = float(v).as_integer_ratio()
        out.append(num * ((1 << SCALE) // den))
    return out


def exact_quantile_decomposition(rule, y, P, w, n_bins):
    """(score, REL, RES, UNC, WBV, WBC) in exact rational arithmetic on the quantile bins of
    the binning module's sorted path (its ``_column_sums``), rounded once."""
    n, k = P.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    ws = np.ones(n) if np.all(w == 1.0) else CF.scaled_weights(w)[0] * CF.scaled_weights(w)[1]
    f_all, o_all = CB.event_forecasts(P, y, VIEWS[rule])
    wi = _ints(ws)
    one = 1 << SCALE
    total = sum(wi)
    parts = [Fraction(0)] * 6
    for e in range(f_all.shape[1]):
        f, o = f_all[:, e], o_all[:, e]
        index = CB._column_sums(f, o, ws, n_bins, "quantile", np.empty(n))[0]
        fi = _ints(f)
        s_w, s_f, s_ff, s_o, s_fo = ([0] * n_bins for _ in range(5))
        for i, b in enumerate(index.tolist()):
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
            sf, sff = Fraction(s_f[b], one * one), Fraction(s_ff[b], one**3)
            so, sfo = Fraction(s_o[b], one), Fraction(s_fo[b], one * one)
            fb, ob = sf / wb, so / wb
            score += sff - 2 * sfo + so
            rel += wb * (fb - ob) ** 2
            res += wb * (ob - base) ** 2
            wbv += sff - sf * sf / wb
            wbc += 2 * (sfo - sf * so / wb)
        values = [score, rel, res, wbv, wbc]
        values = [v / big_w for v in values]
        values.insert(3, base * (1 - base))
        parts = [a + b for a, b in zip(parts, values, strict=True)]
    if rule == "rps":
        parts = [p / (k - 1) for p in parts]
    return [float(p) for p in parts]


def _data(rng, kind, n, k):
    P = rng.dirichlet(np.ones(k), size=n)
    if kind == "rounded":  # ties on a grid of 1/997 (away from the buckets' edges)
        P = np.round(P * 997) / 997
        P[:, -1] = 1.0 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0.0, 1.0)
        P /= P.sum(axis=1, keepdims=True)
    return rng.integers(0, k, n), P


def _moments_ran(rule, y, P, w, n_bins):
    inp = CF.fast_input(y, P, None, w, "raise", False)
    return CF.quantile_moments(inp, VIEWS[rule], n_bins) is not None


def _check(rule, y, P, w, n_bins, rtol=1e-12, atol=1e-16):
    got = dataclasses.astuple(
        FUNCS[rule](y, P, n_bins=n_bins, strategy="quantile", sample_weight=w)
    )
    want = exact_quantile_decomposition(rule, y, P, w, n_bins)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize("kind", ["continuous", "rounded"])
def test_two_pass_decomposition_matches_exact_arithmetic(rng, rule, kind):
    """Weights: none, tied (multiples of 1/2, zeros included), spread; 2 and 15 bins."""
    assert CF.n_chunks(N_ROWS) == 2
    y, P = _data(rng, kind, N_ROWS, 3)
    tied = rng.integers(0, 4, N_ROWS) * 0.5
    for w in (None, tied, rng.uniform(0.2, 2.0, N_ROWS)):
        for n_bins in (2, 15):
            assert _moments_ran(rule, y, P, w, n_bins)
            _check(rule, y, P, w, n_bins)


@pytest.mark.parametrize("buckets", [16, 64, 32_768])
def test_few_and_many_buckets(rng, monkeypatch, buckets):
    """Few buckets (many rows sorted per run) and more buckets than rows."""
    monkeypatch.setattr(CF, "n_buckets", lambda n: buckets)
    y, P = _data(rng, "rounded", N_ROWS, 3)
    w = rng.integers(0, 3, N_ROWS) * 0.25
    for rule in FUNCS:
        _check(rule, y, P, w, 7)


def test_the_buckets_are_halved_where_the_tables_then_fit_in_cache():
    m = CF.n_buckets(10**6)  # 8,192
    assert CF._table_buckets(10**6, 1) == m  # one event: 256 KiB
    assert CF._table_buckets(10**6, 4) == m // 2  # 1 MiB
    assert CF._table_buckets(10**6, 5) == m // 2  # 1.25 MiB
    assert CF._table_buckets(10**6, 10) == m  # 2.5 MiB: halving gains nothing
    assert CF._table_buckets(5_000, 4) == CF.n_buckets(5_000)


@pytest.mark.parametrize("view", [0, 1, 2])
def test_the_first_pass_moments_are_those_of_numpy(rng, view):
    """Slots 4-7 of the first pass: w d, w d^2, w o d (d = f - (m + 1/2) / M) and
    w (f - o)^2 per (chunk, event, bucket), beyond the block size, two chunks, tied weights
    with zeros."""
    n, k, m, c = 5_003, 4, 32, 2
    y, P = _data(rng, "continuous", n, k)
    w = rng.integers(0, 3, n) * 0.5
    names = ("top_label", "classwise", "cumulative")
    f, o = CB.event_forecasts(P, y, names[view])
    e = f.shape[1]
    n_bad, hist = CQ.bucket_table(P, y, w, 1.0, view, e, m, c, 1e-9, True, True)
    assert n_bad == 0 and hist.shape == (c, e, m, 8)
    bucket = np.clip(np.floor(f * m), 0, m - 1).astype(np.int64)
    d = f - (bucket * (1.0 / m) + 0.5 / m)
    for ci in range(c):
        rows = np.arange(n * ci // c, n * (ci + 1) // c)
        for j in range(e):
            b, ww, dd, oo = bucket[rows, j], w[rows], d[rows, j], o[rows, j]
            want = [
                np.bincount(b, weights=ww, minlength=m),
                np.bincount(b, weights=ww * f[rows, j], minlength=m),
                np.bincount(b, weights=ww * oo, minlength=m),
                np.bincount(b, weights=(ww > 0) * 1.0, minlength=m),
                np.bincount(b, weights=ww * dd, minlength=m),
                np.bincount(b, weights=ww * dd * dd, minlength=m),
                np.bincount(b, weights=ww * dd * oo, minlength=m),
                np.bincount(b, weights=ww * (f[rows, j] - oo) ** 2, minlength=m),
            ]
            np.testing.assert_allclose(hist[ci, j], np.stack(want, axis=-1), rtol=1e-12, atol=1e-15)
    assert CQK.SCORE_SLOT == 7


def test_ties_across_the_buckets_take_the_sorted_path(rng):
    """Forecasts 1e-13 apart (tie groups of the tolerance): the values of exact arithmetic
    whichever path runs."""
    base = rng.dirichlet(np.ones(3), size=N_ROWS // 50 + 1)
    P = base[rng.integers(0, base.shape[0], N_ROWS)]
    shift = rng.integers(-2, 3, N_ROWS) * 1e-13
    P[:, 0] += shift
    P[:, -1] -= shift
    y = rng.integers(0, 3, N_ROWS)
    for rule in FUNCS:
        _check(rule, y, P, rng.integers(0, 3, N_ROWS) * 0.5, 6, rtol=1e-11)


def test_two_pass_decompositions_do_not_depend_on_the_number_of_threads(rng):
    pytest.importorskip("numba")
    y, P = _data(rng, "continuous", 70_000, 5)
    w = rng.integers(0, 4, y.size) * 0.5

    def values():
        out = []
        for func in FUNCS.values():
            for weight in (None, w):
                d = func(y, P, n_bins=15, strategy="quantile", sample_weight=weight)
                out.extend(dataclasses.astuple(d))
        return out

    one, two = on_one_and_two_threads(values)
    assert one == two


def test_halved_buckets_give_the_values_of_exact_arithmetic(rng, monkeypatch):
    monkeypatch.setattr(CF, "_TABLE_BYTES", 1 << 14)
    assert CF._table_buckets(N_ROWS, 3) == CF.n_buckets(N_ROWS) // 2
    y, P = _data(rng, "continuous", N_ROWS, 3)
    w = rng.integers(0, 4, N_ROWS) * 0.5
    for rule in FUNCS:
        assert _moments_ran(rule, y, P, w, 15)
        _check(rule, y, P, w, 15)
