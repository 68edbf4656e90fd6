"""The quantile bins of :mod:`ordmetrics.metrics.calibration.fused` in two passes over the rows.

:func:`bucket_table` (the first pass) validates every row and adds, per (event, bucket), the
weight, the sums of w f and w o and the number of the rows of positive weight (one four-lane
vector addition per forecast). :func:`quantile_bins` finds from these tables the buckets
where a quantile level may fall (the runs); a second pass copies the forecasts, weights and
outcomes of their rows and keeps the largest forecast of the buckets just below them: one
byte per (event, bucket) says what to do, most are 0 (a look-up and a well-predicted branch
per forecast). The collected rows are put in the stable order of their forecasts by a
counting sort on keys that follow the forecasts within their bucket (O(n)), the thresholds
found by the binning module's tie rule, and the sums per bin are those of the buckets outside
the runs followed by the collected rows. For the decompositions the first pass adds per bucket
the moments about the bucket's middle as well (a second vector addition per forecast), which
give the within-bin sums without a third pass (:func:`_within_bins`). The kernels are those of
:mod:`ordmetrics.metrics.calibration.fused_quantile_kernels`; the method is described in
:mod:`ordmetrics.metrics.calibration.fused`.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.numerics import TIE_TOLERANCE
from ordmetrics._core.parallel import run_kernel
from ordmetrics.metrics.calibration.fused_kernels import _quantile_bin_sums, _thresholds
from ordmetrics.metrics.calibration.fused_quantile_kernels import (
    COUNT_SLOT,
    SCORE_SLOT,
    _bucket_sums,
    _bucket_within,
    _collect,
    _plan_runs,
    _run_deviations,
    _stable_order,
)

__all__ = ["QuantileBins", "bucket_table", "quantile_bins"]


def bucket_table(
    P: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    ws: float,
    view: int,
    n_events: int,
    n_buckets: int,
    n_chunks: int,
    tol: float,
    check: bool,
    moments: bool = False,
) -> tuple[int, np.ndarray]:
    """The first pass: the number of invalid rows and values (0 unless ``check``), and the
    table (C, E, M, 4) of :func:`_bucket_sums` ((C, E, M, 8) with the ``moments`` of the
    decompositions).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused_quantile import bucket_table
    >>> P = np.array([[0.9, 0.1], [0.3, 0.7]])
    >>> n_bad, hist = bucket_table(P, np.array([0, 1]), None, 1.0, 1, 2, 4, 1, 1e-9, True)
    >>> n_bad, hist[0, 1].tolist()  # event y = 1: p_1 = 0.1 in bucket 0, 0.7 in bucket 2
    (0, [[1.0, 0.1, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.7, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    """
    hist = np.zeros((n_chunks, n_events, n_buckets, 8 if moments else 4))
    args = (P.reshape(-1), P.shape[1], y, w, ws, view, tol, check, hist)
    return int(run_kernel(_bucket_sums, P.size, *args)), hist


def quantile_bins(
    P: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    ws: float,
    total: float,
    view: int,
    hist: np.ndarray,
    n_bins: int,
    tol_b: float,
    max_sorted: float,
) -> QuantileBins | None:
    """The thresholds T (E, B - 1) of the quantile bins, the bin of every bucket outside the
    runs (E, M; -1 inside) and the sums (E, B, 3) of w, w f, w o per (event, bin), from the
    table ``hist`` of the first pass (:func:`bucket_table`) and a second pass
    (:func:`_collect`); with the moments in ``hist`` (8 slots), the within-bin sums and the
    score of :class:`QuantileBins` as well. None where the binning module's sort is needed
    (heavy ties: more than ``max_sorted`` forecasts to sort; a tie group that could cross
    the edge of a run).

    The sums are those of the buckets outside the runs (buckets in increasing order, each
    the sum of its chunks' row-order sums in chunk order) followed by the rows of the runs
    in row order. See :mod:`ordmetrics.metrics.calibration.fused` for the method.
    """
    c, e, m = hist.shape[:3]
    codes = np.zeros((e + 1) * m, dtype=np.uint8)  # the last M: the cumulative view's row sums
    run_of = np.empty((e, m), dtype=np.int64)
    below_w, below_n = np.zeros((e, m)), np.zeros((e, m))
    top_of_run = np.full((e, m), -1, dtype=np.int64)
    per_chunk = np.zeros((c, e), dtype=np.int64)
    delta = 2.0 * tol_b + 1e-9
    plan = (codes, run_of, below_w, below_n, top_of_run, per_chunk)
    n_sorted, n_runs = _plan_runs(hist, n_bins / total, delta, float(n_bins), *plan)
    if n_sorted > max_sorted:  # heavy ties
        return None
    # where each chunk of rows writes the rows of each event it collects
    offsets = np.zeros(e + 1, dtype=np.int64)
    np.cumsum(per_chunk.sum(axis=0), out=offsets[1:])
    chunk_offsets = offsets[None, :-1] + np.cumsum(per_chunk, axis=0) - per_chunk
    size = int(offsets[-1])
    vals, wts, obs = np.empty(size), np.empty(size), np.empty(size)
    top = np.full((c, e, m), -np.inf)
    args = (P.reshape(-1), P.shape[1], y, w, ws, view, codes, chunk_offsets, vals)
    if not run_kernel(_collect, P.size, *args, wts, obs, top):
        return None
    # per run: the largest forecast of the rows below it (those of the bucket below it)
    below = top_of_run[:, : max(n_runs, 1)]
    top_all = np.take_along_axis(top.max(axis=0), np.maximum(below, 0), axis=1)
    below_top = np.where(below >= 0, top_all, -np.inf)
    T = np.full((e, max(n_bins - 1, 1)), np.inf)
    # each event's collected rows in the order of their forecasts (stable: the weights of a
    # tie group are added in row order); sorted here, not in the kernel (numba's merge sort
    # costs seconds of compilation on first use)
    order = np.empty(size, dtype=np.int64)
    tables = hist[0]  # (E, M, 4 or 8): the chunks added up in their order, in place
    for i in range(1, c):
        tables += hist[i]
    needed = run_of >= 0
    n_run = np.where(needed, tables[..., COUNT_SLOT], 0.0).astype(np.int64)
    if not _stable_order(vals, offsets, n_run, np.cumsum(n_run, axis=1) - n_run, order):
        for j in range(e):  # loop over events, not rows
            a, z = int(offsets[j]), int(offsets[j + 1])
            order[a:z] = np.argsort(vals[a:z], kind="stable")
    _thresholds(
        vals,
        wts,
        offsets,
        order,
        run_of,
        below_w,
        below_top,
        below_n,
        total,
        n_bins,
        tol_b,
        TIE_TOLERANCE,
        T,
    )
    T = np.ascontiguousarray(T[:, : n_bins - 1])
    # no threshold lies in a bucket outside the runs: every value there has the bin of the
    # bucket's lower edge
    lut = np.empty((e, m), dtype=np.int64)
    lower = np.arange(m) / m
    for j in range(e):  # loop over events, not rows
        lut[j] = np.searchsorted(T[j], lower, side="left")
    lut[needed] = -1
    sums = np.zeros((e, n_bins, 3))
    bucket_sums = np.ascontiguousarray(tables[..., :COUNT_SLOT])
    _quantile_bin_sums(bucket_sums, lut, vals, wts, obs, offsets, T, sums)
    found = QuantileBins(T, lut, sums)
    if hist.shape[-1] == 8:
        _within_bins(found, tables, vals, wts, obs, offsets)
    return found


class QuantileBins:
    """What :func:`quantile_bins` finds: the thresholds ``T`` (E, B - 1), the bin of every
    bucket outside the runs (``lut`` (E, M), -1 inside), the sums ``sums`` (E, B, 3) of
    w, w f, w o per (event, bin); with the moments, ``within`` (E, B, 2): the sums of
    w (f - f_b)^2 and w (o - o_b)(f - f_b) per (event, bin), and ``score``: the sum of
    w (f - o)^2 over the rows and events."""

    __slots__ = ("T", "lut", "score", "sums", "within")

    def __init__(self, T: np.ndarray, lut: np.ndarray, sums: np.ndarray):
        self.T = T
        self.lut = lut
        self.sums = sums
        self.within: np.ndarray | None = None
        self.score = 0.0


def _within_bins(
    found: QuantileBins,
    tables: np.ndarray,
    vals: np.ndarray,
    wts: np.ndarray,
    obs: np.ndarray,
    offsets: np.ndarray,
) -> None:
    """The within-bin sums and the score of ``found`` from the moments of the buckets
    (``tables`` (E, M, 8), the chunks added up) and the collected rows of the runs.

    A bucket m outside the runs has the mean forecast c_m + S_d / W_m (c_m its middle), the
    sum of squares S_dd - S_d^2 / W_m and the co-moment S_od - S_o S_d / W_m about it (the
    differences d = f - c_m stay within half a bucket: well conditioned); they combine into
    the bin's sums by the parallel formula of Chan, Golub and LeVeque: WBV_b = sum_m M2_m +
    sum_m W_m (mean_m - f_b)^2, WBC_b = sum_m C_m + sum_m W_m (mean_m - f_b)(o_m - o_b),
    buckets in increasing order, then the rows of the runs about the bin means, in row
    order. The score is the sum of the buckets' sums of w (f - o)^2 (the chunks in their
    order, then events and buckets in order: NumPy's pairwise sum)."""
    lut, sums, T = found.lut, found.sums, found.T
    weight = sums[..., 0]
    filled = weight > 0
    safe = np.where(filled, weight, 1.0)
    mean_f = np.where(filled, sums[..., 1] / safe, 0.0)
    mean_o = np.where(filled, sums[..., 2] / safe, 0.0)
    within = np.zeros((lut.shape[0], sums.shape[1], 2))
    _bucket_within(tables, lut, mean_f, mean_o, within)
    _run_deviations(vals, wts, obs, offsets, T, mean_f, mean_o, within)
    found.within = within
    found.score = float(tables[..., SCORE_SLOT].sum())
