"""The decompositions with one bin per distinct forecast value (``n_bins=None``).

Checked against exact rational arithmetic on hostile inputs (heavy ties, chains of values within
the tie tolerance, weights from 1e-150 to 1e150, -0.0), against the per-row algorithm they
replace (the same bits for the score, REL, RES and UNC), and integer weights against repeated
rows.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core.numerics import group_starts_sorted, scale_weights
from ordmetrics.metrics.calibration import binning as CB
from ordmetrics.metrics.calibration import decomposition as CD
from ordmetrics.metrics.calibration import distinct as DI

FUNCS = {"brier": om.brier_decomposition, "rps": om.rps_decomposition}
EPS = 2.0**-52


def exact_distinct(rule, y, P, w):
    """(score, REL, RES, UNC, WBV, WBC) in exact rational arithmetic, each rounded once, and the
    scale 2 sum_u W_u |u - f_b| / W of the within-bin covariance terms (for its tolerance).

    The forecasts are those the library forms (F_k added in the order of np.cumsum); the bins
    the tie groups of the distinct values (docs/definitions.md, section 4, and the tie rule of
    ordmetrics._core.numerics), each valued at its smallest member."""
    n, k = P.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    view_f = P if rule == "brier" else np.cumsum(P, axis=1)[:, :-1]
    wf = [Fraction(v) for v in w.tolist()]
    big_w = sum(wf, Fraction(0))
    parts = [Fraction(0)] * 6
    wbc_scale = Fraction(0)
    for e in range(view_f.shape[1]):
        f = view_f[:, e].tolist()
        o = ((y == e) if rule == "brier" else (y <= e)).tolist()
        w_u: dict[float, Fraction] = {}
        s_u: dict[float, Fraction] = {}
        for fi, oi, wi in zip(f, o, wf, strict=True):
            fi = fi + 0.0  # -0.0 and 0.0: one value
            w_u[fi] = w_u.get(fi, Fraction(0)) + wi
            s_u[fi] = s_u.get(fi, Fraction(0)) + (wi if oi else 0)
        values = sorted(v for v in w_u if w_u[v] > 0)  # rows of weight 0 are absent
        starts = group_starts_sorted(np.array(values))
        base = sum(s_u.values(), Fraction(0)) / big_w
        score = rel = res = wbv = wbc = Fraction(0)
        groups: list[list[float]] = []
        for v, s in zip(values, starts.tolist(), strict=True):
            if s:
                groups.append([])
            groups[-1].append(v)
        for g in groups:
            fb = Fraction(g[0])
            wb = sum((w_u[v] for v in g), Fraction(0))
            sb = sum((s_u[v] for v in g), Fraction(0))
            for v in g:
                u = Fraction(v)
                score += s_u[v] * (u - 1) ** 2 + (w_u[v] - s_u[v]) * u**2
            if wb == 0:
                continue
            ob = sb / wb
            rel += wb * (fb - ob) ** 2
            res += wb * (ob - base) ** 2
            for v in g:
                d = Fraction(v) - fb
                wbv += w_u[v] * d**2
                wbc += 2 * (s_u[v] - w_u[v] * ob) * d
                wbc_scale += 2 * w_u[v] * d
        values_e = [score / big_w, rel / big_w, res / big_w, base * (1 - base), wbv / big_w]
        values_e.append(wbc / big_w)
        parts = [a + b for a, b in zip(parts, values_e, strict=True)]
    wbc_scale /= big_w
    if rule == "rps":
        parts = [p / (k - 1) for p in parts]
        wbc_scale /= k - 1
    return [float(p) for p in parts], float(wbc_scale)


def check_exact(rule, y, P, w=None):
    d = FUNCS[rule](y, P, sample_weight=w)
    got = dataclasses.astuple(d)
    want, wbc_scale = exact_distinct(rule, y, P, w)
    # score, REL, RES, UNC: sums of positive terms (RES, REL: of squares of rounded means)
    np.testing.assert_allclose(got[:4], want[:4], rtol=1e-12, atol=1e-16)
    # WBV: a sum of positive terms; WBC: the terms (S_u - W_u o_b)(u - f_b) cancel, so their
    # error is bounded by a few roundings of 2 sum_u W_u |u - f_b| / W
    assert got[4] == pytest.approx(want[4], rel=1e-12, abs=1e-300)
    assert abs(got[5] - want[5]) <= 16 * EPS * wbc_scale, (got[5], want[5], wbc_scale)
    # a bin is valued at its smallest member, not its mean: the identity leaves out
    # 2 sum_b (f_b - o_b) sum_u W_u (u - f_b) / W, at most wbc_scale in size
    assert d.check(1e-12 + wbc_scale)
    return d


def rounded(rng, n, k, decimals=2):
    P = np.round(rng.dirichlet(np.ones(k), n), decimals)
    P[:, -1] = 0.0
    P[:, -1] = np.clip(1.0 - P.sum(axis=1), 0.0, 1.0)
    P /= P.sum(axis=1, keepdims=True)
    return rng.integers(0, k, n), P


def planted(rng, n, k):
    """Distinct continuous forecasts with a few near-ties planted (1e-13 apart): bins of two
    values among many bins of one."""
    P = rng.dirichlet(np.ones(k), n)
    src = rng.choice(n, 8, replace=False)
    dst = rng.choice(np.setdiff1d(np.arange(n), src), 8, replace=False)
    P[dst] = P[src]
    P[dst, 0] += 1e-13
    P[dst, 1] -= 1e-13
    return rng.integers(0, k, n), np.clip(P, 0.0, 1.0)


def chains(rng, n):
    """Two classes; forecasts in chains of values 3e-13 apart (one tie group per chain, wider
    than the tolerance from end to end), near 0, 0.3 and 1."""
    base = rng.choice([0.0, 0.3, 1.0 - 30 * 3e-13], n)
    f = base + rng.integers(0, 30, n) * 3e-13
    P = np.column_stack([f, 1.0 - f])
    return rng.integers(0, 2, n), P


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize("kind", ["rounded", "rounded1", "continuous", "planted", "chains"])
@pytest.mark.parametrize("weights", ["none", "uniform", "extreme", "integer"])
def test_the_distinct_value_decomposition_matches_exact_arithmetic(rng, rule, kind, weights):
    n = 600
    if kind == "rounded":
        y, P = rounded(rng, n, 4)
    elif kind == "rounded1":
        y, P = rounded(rng, n, 5, decimals=1)
    elif kind == "continuous":
        P = rng.dirichlet(np.ones(4), n)
        y = rng.integers(0, 4, n)
    elif kind == "planted":
        y, P = planted(rng, n, 4)
    else:
        y, P = chains(rng, n)
    w = {
        "none": None,
        "uniform": rng.uniform(0.0, 2.0, n) * (rng.random(n) > 0.2),
        "extreme": 10.0 ** rng.uniform(-150, 150, n),
        "integer": rng.integers(0, 4, n).astype(np.float64),
    }[weights]
    if w is not None:
        w[0] = max(w[0], 1.0)
    d = check_exact(rule, y, P, w)
    if kind in ("chains", "rounded", "planted") and weights == "none":
        assert d.within_bin_variance > 0  # the tie rule joined distinct values


def test_chains_of_near_ties_form_one_bin():
    # 0.3 + j 2e-13, j = 0..9: neighbours tied (within 1e-12 x 0.3), the ends 1.8e-12 apart:
    # one bin, valued 0.3
    f = 0.3 + np.arange(10) * 2e-13
    P = np.column_stack([f, 1.0 - f])
    y = np.array([0, 1] * 5)
    d = check_exact("rps", y, P)
    dev = f - 0.3
    assert d.within_bin_variance == pytest.approx(np.mean(dev**2), rel=1e-12)
    assert d.reliability == pytest.approx((0.3 - 0.5) ** 2, rel=1e-12)


def test_negative_zero_is_zero():
    P = np.array([[-0.0, 1.0], [0.0, 1.0], [0.5, 0.5], [1.0, -0.0]])
    y = np.array([1, 0, 1, 0])
    for rule in FUNCS:
        check_exact(rule, y, P)
        check_exact(rule, y, P, np.array([1.0, 2.0, 0.5, 3.0]))
    ref = om.brier_decomposition(y, np.abs(P))
    assert om.brier_decomposition(y, P) == ref


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_inputs(n):
    P = np.array([[0.2, 0.8], [0.2, 0.8], [0.7, 0.3]])[:n]
    y = np.array([0, 1, 1])[:n]
    for rule in FUNCS:
        check_exact(rule, y, P)
        check_exact(rule, y, P, np.array([0.5, 1.5, 2.0])[:n])


def test_one_value_per_event():
    P = np.tile([0.25, 0.25, 0.5], (50, 1))
    y = np.arange(50) % 3
    for rule in FUNCS:
        d = check_exact(rule, y, P)
        assert d.resolution == 0.0 and d.within_bin_variance == 0.0


def _previous(rule, y, P, w):
    """The per-row algorithm the sorts replace (binning's argsort and np.bincount)."""
    view = "classwise" if rule == "brier" else "cumulative"
    ws = np.ones(y.size) if w is None else scale_weights(w)[0]
    parts = CD._decompose_events(CB._event_columns(P, y, view), ws, None, "uniform")
    total = parts.sum(axis=1)
    return total / (P.shape[1] - 1) if rule == "rps" else total


@pytest.mark.parametrize("rule", ["brier", "rps"])
@pytest.mark.parametrize("kind", ["rounded", "continuous", "planted"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_same_bits_as_the_per_row_algorithm(rng, rule, kind, weighted):
    """Score, REL, RES, UNC: the same bits as before (the sums per bin in row order, counts
    exact); WBV and WBC: sums of the same terms in another (documented) order."""
    n = 40_000
    if kind == "rounded":
        y, P = rounded(rng, n, 5)
    elif kind == "planted":
        y, P = planted(rng, n, 5)
    else:
        P = rng.dirichlet(np.ones(5), n)
        y = rng.integers(0, 5, n)
    w = rng.uniform(0.0, 2.0, n) * (rng.random(n) > 0.1) if weighted else None
    got = np.array(dataclasses.astuple(FUNCS[rule](y, P, sample_weight=w)))
    ref = _previous(rule, y, P, w)
    assert got[:4].tolist() == ref[:4].tolist()
    np.testing.assert_allclose(got[4:], ref[4:], rtol=1e-9, atol=1e-30)


@pytest.mark.parametrize("rule", ["brier", "rps"])
def test_integer_weights_equal_repeated_rows(rng, rule):
    for kind in ("rounded", "continuous"):
        if kind == "rounded":
            y, P = rounded(rng, 3_000, 4)
        else:
            P = rng.dirichlet(np.ones(4), 3_000)
            y = rng.integers(0, 4, 3_000)
        w = rng.integers(1, 4, y.size)
        rep = np.repeat(np.arange(y.size), w)
        a = dataclasses.astuple(FUNCS[rule](y, P, sample_weight=w))
        b = dataclasses.astuple(FUNCS[rule](y[rep], P[rep]))
        # the bins and their sums: exact in both (small integers); the score: another order
        assert a[1:4] == b[1:4]
        assert a[0] == pytest.approx(b[0], rel=1e-13)
        np.testing.assert_allclose(a[4:], b[4:], rtol=1e-9, atol=1e-30)


def test_the_weights_scale_exactly(rng):
    y, P = rounded(rng, 2_000, 4)
    w = rng.uniform(0.1, 2.0, y.size)
    for rule, func in FUNCS.items():
        base = func(y, P, sample_weight=w)
        assert func(y, P, sample_weight=w * 2.0**-500) == base
        assert func(y, P, sample_weight=w * 2.0**600) == base
        check_exact(rule, y[:300], P[:300], w[:300] * 1e-300)


@pytest.mark.parametrize("view", ["classwise", "cumulative"])
def test_the_events_are_those_of_the_event_matrices(rng, view):
    y, P = rounded(rng, 3_000, 6)
    f_all, o_all = CB.event_forecasts(P, y, view)
    cols = [(f.copy(), o.copy()) for f, o in DI._events(P, y, view)]
    assert len(cols) == f_all.shape[1]
    for j, (f, o) in enumerate(cols):
        assert np.array_equal(f, f_all[:, j])  # bit for bit, also the cumulative sums
        assert np.array_equal(o, o_all[:, j].astype(bool))


def test_memory_is_a_few_vectors_per_event():
    import tracemalloc

    rng = np.random.default_rng(5)
    n, k = 50_000, 8
    P = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    for w in (None, rng.uniform(0.5, 2.0, n)):
        om.rps_decomposition(y, P, sample_weight=w)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            om.rps_decomposition(y, P, sample_weight=w)
            extra = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
        # the per-row algorithm took 17 vectors of N float64 here, these sorts about 10
        assert extra <= 12 * n * 8, f"{extra / (8 * n):.1f} vectors of N float64"


def test_the_unweighted_and_weighted_paths_agree(rng):
    """Equal weights that are a power of two: the weighted path (argsort, sums in row order)
    gives the bits of the unweighted one (packed keys, counts)."""
    for kind in ("rounded", "continuous", "planted", "chains"):
        if kind == "rounded":
            y, P = rounded(rng, 5_000, 4)
        elif kind == "planted":
            y, P = planted(rng, 5_000, 4)
        elif kind == "continuous":
            P = rng.dirichlet(np.ones(4), 5_000)
            y = rng.integers(0, 4, 5_000)
        else:
            y, P = chains(rng, 5_000)
        for func in FUNCS.values():
            assert func(y, P) == func(y, P, sample_weight=np.full(y.size, 2.0)), kind


def test_forecasts_outside_the_probability_range_are_refused():
    # unreachable through the public functions (they validate y_proba); the packed keys need
    # forecasts in [0, 2)
    for P in (np.array([[1.5, -0.5]]), np.array([[2.5, -1.5]])):
        with pytest.raises(ValueError, match="y_proba must hold probabilities"):
            DI.distinct_parts(P, np.array([0]), None, "classwise")


def _mixed(rng, n, k):
    """Mostly rounded forecasts with a sprinkle of distinct ones: a sample of the rows finds few
    distinct values, the whole column more than the hash takes."""
    y, P = rounded(rng, n, k)
    rare = rng.choice(n, 700, replace=False)
    P[rare] = rng.dirichlet(np.ones(k), rare.size)
    return y, P


@pytest.mark.parametrize("kind", ["rounded", "rounded1", "planted", "chains", "mixed", "zeros"])
def test_the_hash_and_the_sort_find_the_same_values(rng, kind, monkeypatch):
    """Weighted: the perfect hash of the bits and the stable argsort give the same bits."""
    n = 40_000
    if kind == "rounded":
        y, P = rounded(rng, n, 4)
    elif kind == "rounded1":
        y, P = rounded(rng, n, 4, decimals=1)
    elif kind == "planted":
        y, P = planted(rng, n, 4)
    elif kind == "chains":
        y, P = chains(rng, n)
    elif kind == "mixed":
        y, P = _mixed(rng, n, 4)
    else:  # -0.0 and 0.0 in one column
        y, P = rounded(rng, n, 4)
        P[P == 0.0] = -0.0
        P[::2][P[::2] == 0.0] = 0.0
    w = rng.uniform(0.0, 2.0, n) * (rng.random(n) > 0.1)
    for view in ("classwise", "cumulative"):
        f_all, _ = CB.event_forecasts(P, y, view)
        for j in range(f_all.shape[1]):
            f = np.ascontiguousarray(f_all[:, j])
            hashed = DI._hashed_runs(f, np.empty(n), DI.HASH_MAX_VALUES)
            sort_values, sort_run = DI._sorted_runs(f, np.empty(n))
            if kind in ("planted", "mixed"):
                assert hashed is None  # too many distinct values
                continue
            assert hashed is not None
            assert hashed[0].tobytes() == sort_values.tobytes()  # also +0.0 for -0.0
            assert np.array_equal(hashed[1], sort_run)
    results = []
    for limit in (0, DI.HASH_MAX_VALUES):
        monkeypatch.setattr(DI, "HASH_MAX_VALUES", limit)
        results.append([FUNCS[r](y, P, sample_weight=w) for r in FUNCS])
    assert results[0] == results[1]


def test_the_hash_of_a_single_value_and_of_many_small_ones(rng):
    for f in (np.full(100, 0.25), np.arange(250) * 2.0**-1070, np.arange(250) / 249):
        got = DI._hashed_runs(f, np.empty(f.size), DI.HASH_MAX_VALUES)
        want = DI._sorted_runs(f, np.empty(f.size))
        assert got is not None
        assert got[0].tobytes() == want[0].tobytes()
        assert np.array_equal(got[1], want[1])


@pytest.mark.parametrize("kind", ["rounded", "planted", "chains", "continuous", "zeros"])
def test_the_radix_sort_gives_the_bits_of_numpys_sorts(rng, kind, monkeypatch):
    """The radix sorts (above their size thresholds) and NumPy's sort and stable argsort
    (below) give the same keys and permutations: the same bits in every result."""
    from ordmetrics._core import radix as RX

    n = 9_000
    if kind == "rounded":
        y, P = rounded(rng, n, 4)
    elif kind == "planted":
        y, P = planted(rng, n, 4)
    elif kind == "chains":
        y, P = chains(rng, n)
    elif kind == "continuous":
        P = rng.dirichlet(np.ones(4), n)
        y = rng.integers(0, 4, n)
    else:  # -0.0, 0.0, subnormals and 1.0 in one column
        y, P = rounded(rng, n, 3)
        P[::3, 1] += P[::3, 0]
        P[::3, 0] = -0.0
        P[::5, 1] += P[::5, 0]
        P[::5, 0] = 5e-324
        P[::7] = [0.0, 0.0, 1.0]
    w = 10.0 ** rng.uniform(-150, 150, n)
    monkeypatch.setattr(DI, "HASH_MAX_VALUES", 0)  # the sort also for few distinct values
    results = []
    for small in (0, n + 1):  # the radix kernel, then NumPy's sorts
        monkeypatch.setattr(RX, "SMALL_N", small)
        monkeypatch.setattr(RX, "SMALL_N_PAIRS", small)
        results.append([FUNCS[r](y, P, sample_weight=v) for r in FUNCS for v in (None, w)])
    assert results[0] == results[1]


@pytest.mark.parametrize("kind", ["rounded", "planted", "chains", "continuous"])
def test_the_sums_in_sorted_order_are_those_of_bincount_in_row_order(rng, kind):
    """W_u and S_u added in the order of the stable sort: the bits of ``np.bincount`` in row
    order; the rows of the bins of several values: those of the row index, in row order."""
    n = 30_000
    if kind == "rounded":
        y, P = rounded(rng, n, 4)
    elif kind == "planted":
        y, P = planted(rng, n, 4)
    elif kind == "chains":
        y, P = chains(rng, n)
    else:
        P = rng.dirichlet(np.ones(4), n)
        y = rng.integers(0, 4, n)
    w = 10.0 ** rng.uniform(-20, 20, n)  # the order of addition shows in the last bits
    f_all, o_all = CB.event_forecasts(P, y, "cumulative")  # rounded sums: near-ties
    j = 0 if kind == "planted" else f_all.shape[1] - 1
    f = np.ascontiguousarray(f_all[:, j])
    o = o_all[:, j].astype(bool)
    buf = np.empty(n)
    values, w_value, s_value, starts, groups, order, at = DI._sorted_sums(
        f, o, w, buf, np.empty((4, n), dtype=np.int64), np.empty(n, dtype=bool)
    )
    run = DI._row_runs(order, at)
    assert np.array_equal(values[run], f + 0.0)
    # unweighted: the counts per value (exact) and the same tie starts
    ints = np.empty((2, n), dtype=np.int64)
    u_values, count, ones, u_starts, u_groups = DI._unweighted_values(
        f, o, np.empty(n), ints, np.empty(n, dtype=bool)
    )
    assert u_values.tobytes() == values.tobytes()
    assert np.array_equal(count, np.bincount(run))
    assert np.array_equal(ones, np.bincount(run, weights=o))
    assert np.array_equal(u_starts, DI._tie_starts(values))
    assert u_groups == groups == np.count_nonzero(u_starts)
    assert w_value.tobytes() == np.bincount(run, weights=w).tobytes()
    assert s_value.tobytes() == np.bincount(run, weights=w * o).tobytes()
    assert np.array_equal(starts, DI._tie_starts(values))  # the same rule, in the kernel
    if starts.all():
        assert kind == "continuous"
        return
    first = np.flatnonzero(starts)
    joined = np.flatnonzero(~starts)
    bin_of_joined = np.searchsorted(first, joined, side="right") - 1
    bin_of_value = np.cumsum(starts) - 1
    several = np.unique(bin_of_joined)
    in_several = np.zeros(values.size, dtype=bool)
    in_several[first[several]] = True
    in_several[joined] = True
    want_rows = np.flatnonzero(in_several[run])
    # the ties merged in place: the bins' first values and sums over their values (ascending)
    want_w = w_value[first]
    np.add.at(want_w, bin_of_joined, w_value[joined])
    want = (values[first], want_w, values[joined], w_value[joined], s_value[joined])
    n_values = values.size
    bins, j_index, j_value, j_w, j_s, j_bin = DI._join(values, w_value, s_value, starts, groups)
    assert bins == first.size
    assert np.array_equal(j_index, joined)
    assert np.array_equal(j_bin, bin_of_joined)
    got = (values[:bins], w_value[:bins], j_value, j_w, j_s)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want, strict=True))
    hi_u = np.where(several + 1 < first.size, first[np.minimum(several + 1, bins - 1)], n_values)
    rows, index = DI._rows_of_bins(order, at, first[several], hi_u, several, starts)
    if rows is None:  # many: the bin of every row
        assert kind in ("rounded", "chains")
        assert np.array_equal(index, bin_of_value[run])
    else:
        assert kind == "planted"
        assert np.array_equal(rows, want_rows)
        assert np.array_equal(index, bin_of_value[run[want_rows]])


def test_the_results_do_not_depend_on_the_thread_count(rng):
    """The compiled passes are serial, in a fixed order: the same bits on one and two threads
    (N beyond the radix sorts' thresholds)."""
    from conftest import on_one_and_two_threads

    n = 20_000
    y, P = planted(rng, n, 4)
    w = 10.0 ** rng.uniform(-50, 50, n)
    one, two = on_one_and_two_threads(
        lambda: [FUNCS[r](y, P, sample_weight=v) for r in FUNCS for v in (None, w)]
    )
    assert one == two
