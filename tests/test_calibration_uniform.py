"""The compiled sums of the uniform bins against NumPy, bit for bit: each chunk of rows adds in
row order (the sums of ``np.bincount``), the chunks in their order; the sums of a bin side by
side in one vector addition must equal four scalar additions. Sizes beyond every internal block
and chunk, a short last chunk, and invalid values anywhere in the rows."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import on_one_and_two_threads
from ordmetrics._core.numerics import bin_of_fraction
from ordmetrics.metrics.calibration import (
    brier_decomposition,
    classwise_ece,
    cumulative_ece,
    ece,
    rps_decomposition,
)
from ordmetrics.metrics.calibration import fused as CF
from ordmetrics.metrics.calibration import fused_uniform as CU

#: Three chunks of rows, the last one short, each many blocks of ``CU.BLOCK`` values.
N_ROWS = 3 * 16_384 + 77


def _events(P, y, view):
    """Forecasts and outcomes (N, E) as the kernels form them."""
    if view == "top_label":
        f = P.max(axis=1)[:, None]
        o = (P.argmax(axis=1) == y)[:, None]
    elif view == "classwise":
        f = P
        o = y[:, None] == np.arange(P.shape[1])
    else:
        f = np.cumsum(P, axis=1)[:, :-1]  # F_k added in the order of np.cumsum
        o = y[:, None] <= np.arange(P.shape[1] - 1)
    return f, o


def reference_sums(P, y, w, view, n_bins):
    """(E, B, 3): per chunk, w, w f, w o per (event, bin) by ``np.bincount`` (row order), the
    chunks' tables added in their order."""
    n = P.shape[0]
    v, ws, _ = CF.scaled_weights(w)
    wt = np.ones(n) if v is None else v * ws
    f, o = _events(np.asarray(P, dtype=np.float64), y, view)
    e = f.shape[1]
    c = CF.n_chunks(n)
    out = None
    for j in range(c):
        a, z = (n * j) // c, (n * (j + 1)) // c
        idx = (bin_of_fraction(f[a:z], n_bins) + n_bins * np.arange(e)).ravel()
        wr = np.repeat(wt[a:z], e)
        tab = np.stack(
            [
                np.bincount(idx, weights=wr, minlength=e * n_bins),
                np.bincount(idx, weights=wr * f[a:z].ravel(), minlength=e * n_bins),
                np.bincount(idx, weights=wr * o[a:z].ravel(), minlength=e * n_bins),
            ],
            axis=-1,
        ).reshape(e, n_bins, 3)
        out = tab if out is None else out + tab
    return out


def _sums(P, y, w, view, n_bins):
    inp = CF.fast_input(y, P, None, w, "raise", False)
    found = CF.event_sums(inp, view, n_bins, "uniform")
    assert found is not None
    return found[0]


@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
@pytest.mark.parametrize("weighted", [False, True])
def test_uniform_sums_are_those_of_bincount_per_chunk(rng, view, weighted):
    assert CF.n_chunks(N_ROWS) == 3
    assert N_ROWS * 5 > 3 * 16 * CU.BLOCK  # many blocks per chunk
    P = rng.dirichlet(np.full(5, 0.6), size=N_ROWS)
    P[:7] = np.eye(5)[rng.integers(0, 5, 7)]  # forecasts 0 and 1
    P[7:20] = 0.2  # ties of the top label; forecasts on bin edges
    y = rng.integers(0, 5, N_ROWS)
    w = None
    if weighted:
        w = rng.uniform(0.0, 3.0, N_ROWS) * (rng.random(N_ROWS) > 0.1)  # zero weights too
    for n_bins in (1, 7, 15, 100):
        got = _sums(P, y, w, view, n_bins)
        want = reference_sums(P, y, w, view, n_bins)
        assert np.array_equal(got, want), (view, n_bins)


@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
def test_uniform_sums_rows_longer_than_a_block_and_one_chunk(rng, view):
    k = CU.BLOCK + 3  # one row per block
    P = rng.dirichlet(np.full(k, 0.05), size=50)
    y = rng.integers(0, k, 50)
    w = 10.0 ** rng.uniform(-100, 100, 50)  # scaled by a power of two
    assert np.array_equal(_sums(P, y, w, view, 9), reference_sums(P, y, w, view, 9))
    P2 = rng.dirichlet(np.ones(2), size=1)  # a single row, two classes
    assert np.array_equal(
        _sums(P2, [1], None, view, 4), reference_sums(P2, np.array([1]), None, view, 4)
    )


@pytest.mark.parametrize("k", [2, CU.UNROLL - 1, CU.UNROLL, CU.UNROLL + 1])
@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
def test_uniform_sums_at_and_beyond_the_unrolled_row_length(rng, view, k):
    """Rows of up to ``UNROLL`` values run through the unrolled loops, longer rows through
    plain loops: the sums of np.bincount either way, over two chunks (the last one short)."""
    n = 2 * 16_384 + 33
    assert CF.n_chunks(n) == 2
    P = rng.dirichlet(np.full(k, 0.8), size=n)
    P[:5] = np.eye(k)[rng.integers(0, k, 5)]  # forecasts 0 and 1
    y = rng.integers(0, k, n)
    w = rng.uniform(0.0, 3.0, n) * (rng.random(n) > 0.1)
    for weight in (None, w):
        got = _sums(P, y, weight, view, 13)
        assert np.array_equal(got, reference_sums(P, y, weight, view, 13)), (view, k)


@pytest.mark.parametrize("k", [CU.UNROLL, CU.UNROLL + 1])
def test_an_invalid_row_is_reported_at_and_beyond_the_unrolled_row_length(rng, k):
    n = 2 * 16_384 + 33
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    P[n - 3, k - 1] += 0.01  # the last value of a row, in the last chunk
    for func in (ece, classwise_ece, cumulative_ece, brier_decomposition, rps_decomposition):
        with pytest.raises(ValueError, match=rf"must sum to 1.*row ({n - 3}|{n - 3:,})\b"):
            func(y, P, n_bins=10)


def test_uniform_sums_do_not_depend_on_the_number_of_threads(rng):
    pytest.importorskip("numba")
    P = rng.dirichlet(np.ones(4), size=5 * 16_384 + 5)
    y = rng.integers(0, 4, P.shape[0])
    w = rng.uniform(0.0, 2.0, P.shape[0])

    def values():
        return [
            _sums(P, y, weight, view, 15).tobytes()
            for view in ("top_label", "classwise", "cumulative")
            for weight in (None, w)
        ]

    one, two = on_one_and_two_threads(values)
    assert one == two


@pytest.mark.parametrize(
    "what, where",
    [
        ("label", 0),
        ("label", N_ROWS // 2 + 3),
        ("weight_negative", N_ROWS - 1),
        ("weight_nan", 2 * 16_384 + 5),
        ("weight_inf", 300),
        ("value", N_ROWS // 3),
        ("sum", N_ROWS - 2),
    ],
)
def test_an_invalid_row_anywhere_is_reported(rng, what, where):
    """The checks of the class indices and weights run per block, apart from the sums: a bad
    value in any block of any chunk still reaches the precise message."""
    P = rng.dirichlet(np.ones(4), size=N_ROWS)
    y = rng.integers(0, 4, N_ROWS)
    w = rng.uniform(0.5, 2.0, N_ROWS)
    if what == "label":
        y[where] = 4 if where else -1  # not a class index
    elif what == "weight_negative":
        w[where] = -1.0
    elif what == "weight_nan":
        w[where] = np.nan
    elif what == "weight_inf":
        w[where] = np.inf
    elif what == "value":
        P[where] = [1.2, -0.2, 0.0, 0.0]  # sums to 1, outside [0, 1]
    else:
        P[where, 0] += 0.01
    message = {
        "label": "y_true must hold class indices",
        "weight_negative": "sample_weight must be non-negative",
        "weight_nan": "sample_weight is NaN",
        "weight_inf": "sample_weight must be finite",
        "value": r"y_proba must lie in \[0, 1\]",
        "sum": "rows of y_proba must sum to 1",
    }[what]
    row = rf"row ({where}|{where:,})\b"  # the message names the row
    for func in (ece, classwise_ece, cumulative_ece, brier_decomposition, rps_decomposition):
        with pytest.raises(ValueError, match=rf"{message}.*{row}"):
            func(y, P, n_bins=10, sample_weight=w)


@pytest.mark.parametrize(
    "weights",
    [
        [3.0, 1.0, 0.5],
        [0.0, 2.0, 0.0, 0.25],  # rows of weight 0
        [-0.0, 2.0, 0.0],  # -0.0 counts as 0
        [0.0, 0.0],  # no positive weight
        [5e-324, 1.0],  # subnormal: a scaled copy
        [1e-300, 1e300],  # scaled products below the normal range: a scaled copy
        [1e308, 1e308],  # the sum overflows: a scaled copy
        [np.nan, 1.0],
        [-1.0, 1.0],
        [np.inf, 1.0],
    ],
)
def test_scaled_weights_are_those_of_scale_weights(weights):
    """One pass over the weights' bits finds their range; the weights the kernels use,
    ``v * ws``, and the total are those of ``scale_weights``, bit for bit, wherever they are
    valid."""
    from ordmetrics._core.numerics import scale_weights

    w = np.array(weights * 1000)
    v, ws, total = CF.scaled_weights(w)
    assert v is not None
    with np.errstate(all="ignore"):
        want = scale_weights(w)[0]
        got = v * ws
    assert got.tobytes() == want.tobytes()
    if np.all(np.isfinite(want)):
        assert total == float(want.sum())
    if ws != 1.0:
        assert v is w  # no copy


def test_vector_add_python_and_compiled_agree(rng):
    """The Python ``vector_add4`` and the intrinsic the kernels use add the same four lanes,
    each an ordinary float64 addition, and leave the others alone."""
    from ordmetrics._core.jit import vector_add4

    numba = pytest.importorskip("numba")
    tab = rng.normal(size=12)
    tab[5] = -0.0
    lanes = (1.5, 0.0, -0.0, 1e-300)
    want = tab.copy()
    for j, x in enumerate(lanes):
        want[4 + j] = want[4 + j] + x
    py = tab.copy()
    vector_add4(py, 4, *lanes)
    add = vector_add4.intrinsic()

    @numba.njit
    def run(t, i, a, b, c, d):
        add(t, i, a, b, c, d)
        return t

    got = run(tab.copy(), 4, *lanes)
    assert py.tobytes() == want.tobytes()
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("weighted", [False, True])
def test_rows_left_out_by_the_nan_policy_run_the_checked_kernels(rng, weighted):
    """A NaN row sends the first pass to the slow validation, which drops it; the kernels then
    run on the rows kept without their checks: the values of the rows kept, bit for bit."""
    P = rng.dirichlet(np.ones(4), size=N_ROWS)
    y = rng.integers(0, 4, N_ROWS)
    w = rng.uniform(0.0, 2.0, N_ROWS) if weighted else None
    bad = [3, N_ROWS // 2, N_ROWS - 1]
    P[bad, 1] = np.nan
    keep = np.ones(N_ROWS, dtype=bool)
    keep[bad] = False
    w_kept = None if w is None else w[keep]
    for func in (ece, classwise_ece, cumulative_ece, brier_decomposition, rps_decomposition):
        got = func(y, P, n_bins=12, sample_weight=w, nan_policy="omit")
        want = func(y[keep], P[keep], n_bins=12, sample_weight=w_kept)
        assert got == want, func.__name__
