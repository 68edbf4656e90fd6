"""Compiled kernels of the calibration metrics: validate, form the events and bin in one pass.

The expected calibration errors and the score decompositions reduce the weighted sums per
(event, bin) of :mod:`ordmetrics.metrics.calibration.binning`. Here those sums are computed by
compiled loops over the rows of the probability matrix, which validate each row (finite, in
[0, 1], summing to 1 within the tolerance; class index and weight) and form the forecasts of
its events on the fly: the cumulative forecasts F_k = p_1 + ... + p_k are added per row in
the order of ``np.cumsum``, never stored as an N x (K - 1) matrix. The memory beyond the input
is a few small tables. When a row is invalid, or a label missing, the functions validate the
slow way (precise messages, ``nan_policy``) and run the kernels on the rows kept.

Order of the sums
    The rows are split into ``n_chunks(N)`` chunks (at most ``MAX_CHUNKS``; the split depends
    on N only), which numba's threads run in parallel; each chunk adds its rows in row order
    into its own table, and the tables are added up in chunk order. The results therefore do
    not depend on the number of threads. With one chunk (N below 2 ``_MIN_CHUNK_ROWS`` =
    32,768 rows) the sums per bin are those of ``np.bincount`` in
    :func:`~ordmetrics.metrics.calibration.bin_sums`, bit for bit; with more, they differ in
    the last bits only (a fixed, documented order).
Uniform bins
    One pass (:mod:`~ordmetrics.metrics.calibration.fused_uniform`): the rows are read in
    blocks of about 1,024 values; the class indices and weights of a block are checked and
    the bins of its forecasts (:func:`ordmetrics._core.numerics.bin_of_fraction`) found by
    loops on vector instructions, then the forecasts are added to the tables row by row, the
    sums of a bin in one vector addition (each lane the scalar addition, bit for bit).
Quantile bins
    No sort of a whole column (:mod:`~ordmetrics.metrics.calibration.fused_quantile`). A first
    pass adds, per event, the weight, the sums of w f and w o and the number of the forecasts
    in M equal buckets of [0, 1] (:func:`n_buckets`: about max(sqrt(6 N), N / 64), at most
    ``N_BUCKETS``; half as many where the tables exceed 512 KiB and half of them fit in
    1 MiB: :func:`_table_buckets`), block by block as the uniform bins do. A bucket whose
    cumulative weight stays away from every quantile level j W / B (by more than the tie
    tolerance) lies inside one bin; only the rows of the few buckets where a level falls are
    collected (a second pass, which also keeps the largest forecast of the bucket below each
    run of them) and put in the stable order of their forecasts (a counting sort, NumPy's stable
    sort where the forecasts crowd), and their tie groups and bins are found exactly as
    :mod:`~ordmetrics.metrics.calibration.binning` finds them (tie rule of
    :mod:`ordmetrics._core.numerics`). This gives the thresholds T_j (the largest forecast of
    the bins below j), and a forecast v goes to bin #{j : T_j < v}, which is the bin of the
    binning module for rows of positive weight and rows of weight 0 alike. The sums per bin
    are then, with one chunk (N below 32,768 rows), added in row order by a third pass (the
    sums of ``np.bincount``, bit for bit); with more chunks, they are the sums of the buckets
    outside the collected ones (buckets in increasing order, each the sum of its chunks'
    row-order sums in chunk order) followed by the collected rows in row order: a fixed order
    that depends on N only, no third pass. W_{<v} is the weight below the bucket plus the
    weight of the sorted rows below v, which may differ from the binning module's sum of the
    group weights in the last bit (weighted input only; unit weights add up exactly): a bin
    changes only where W_{<v} / W lies within about 1e-16 of the tie tolerance below a level
    j / B. When a tie group could reach across the edge of the sorted buckets, or when the
    forecasts to sort are many (heavy ties: more than a quarter of N K), the binning
    module's column-by-column sort is used instead.
Weights
    The kernels read the caller's weights and multiply each by the power of two of
    :func:`scaled_weights` (no scaled copy of the weights where it is exact; see there). Where
    that pass over their bits found every weight finite and >= 0, the uniform bins' kernels
    do not check them again (:meth:`FastInput.check_level`).
Threads
    Each kernel runs in parallel, or as its serial twin where
    :func:`ordmetrics._core.parallel.parallel_slot` says so (below 2^20 entries, or while
    another thread is in a parallel kernel); the chunks depend on N only, so both give the
    same bits.

The decompositions with uniform bins take one pass (:func:`uniform_moments`): per chunk and
bin, sums of the differences from a shift (the bin's mean in a small sample of the rows, or
its centre),
turned into the bin's mean, sum of squares and co-moment and merged over the chunks by the
parallel formula of Chan, Golub and LeVeque, in chunk order; an event whose sums lose more
than 4 bits to cancellation sends the within-bin sums to a second pass about the bin means.
That second pass adds the within-bin sums (score, WBV, WBC) per chunk in blocks of 1,024 rows
(row order within a block), the block sums with Neumaier's compensated summation, the chunks
in their order. The decompositions with quantile bins take the two passes of the quantile
bins (:func:`quantile_moments`; with one chunk, the bin sums of the third pass and then the
second pass about the bin means): the first also adds per bucket the moments of the
forecasts about the bucket's middle. The decompositions with one bin per distinct value
(``n_bins=None``) keep the binning module's sort.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ordmetrics._core.numerics import TIE_TOLERANCE, scale_weights, sum_in_order
from ordmetrics._core.parallel import run_kernel
from ordmetrics._core.validation import (
    NAN_POLICIES,
    as_proba,
    as_weights,
    check_lengths,
    check_option,
    encode_labels,
    sum_tolerance,
)
from ordmetrics.metrics.calibration.fused_kernels import (
    _deviation_sums,
    _threshold_sums,
)
from ordmetrics.metrics.calibration.fused_quantile import (
    QuantileBins,
    bucket_table,
    quantile_bins,
)
from ordmetrics.metrics.calibration.fused_uniform import (
    _uniform_moments,
    merge_moments,
    run_uniform_sums,
    sample_shifts,
    weight_bits,
)

__all__ = [
    "N_BUCKETS",
    "VIEW_CODES",
    "FastInput",
    "checked_input",
    "event_sums",
    "fast_input",
    "quantile_moments",
    "scaled_weights",
    "uniform_moments",
    "within_bin_sums",
]

#: The most buckets of [0, 1] of the first pass of the quantile bins (powers of two: m / M is
#: exact).
N_BUCKETS = 32768

#: Rows per bucket (on average) that :func:`n_buckets` aims at.
_ROWS_PER_BUCKET = 64


def n_buckets(n: int) -> int:
    """Buckets for N rows: the power of two at or below max(sqrt(6 N), N / 64), from 16 to
    ``N_BUCKETS``.

    Few rows per bucket keep the rows sorted (those of the buckets where a quantile level
    falls, about 2 B N / M per event, more where the forecasts crowd) a small fraction of
    N; the tables of the buckets (5 E M values per chunk) stay far below the size of the
    input.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration.fused import n_buckets
    >>> n_buckets(1_000), n_buckets(1_000_000), n_buckets(10**9)
    (64, 8192, 32768)
    """
    target = max(1, int(np.sqrt(6.0 * n)), n // _ROWS_PER_BUCKET)
    return int(min(N_BUCKETS, max(16, 1 << (target.bit_length() - 1))))


#: The views as the kernels know them.
VIEW_CODES = {"top_label": 0, "classwise": 1, "cumulative": 2}

#: The quantile path sorts at most this fraction of N K forecasts (16 bytes each: a quarter of
#: the input's memory at most); beyond (heavy ties) the binning module's sort runs instead.
_MAX_SORTED_FRACTION = 0.25


# --------------------------------------------------------------------------------------------
# Python drivers
# --------------------------------------------------------------------------------------------


class FastInput:
    """Inputs converted (not yet value-checked): P (N, K) float, y int64, and the weights
    ``w`` (or None) with their scale ``ws``: the kernels use the weights ``w_i * ws``, equal
    to those of :func:`ordmetrics._core.numerics.scale_weights` (see :func:`scaled_weights`).
    """

    __slots__ = ("P", "checked", "total", "w", "w_valid", "ws", "y")

    def __init__(
        self,
        P: np.ndarray,
        y: np.ndarray,
        w: np.ndarray | None,
        total: float,
        ws: float = 1.0,
        w_valid: bool = False,
    ):
        self.P = P
        self.y = y
        self.w = w
        self.ws = ws
        self.total = total
        self.checked = False  # True once the rows are known to be valid
        self.w_valid = w_valid  # True when the weights are known to be finite and >= 0

    def check_level(self) -> int:
        """What the uniform bins' kernels check: 0 nothing (the rows are valid), 1 the values
        and class indices, 2 the weights too (unless :func:`scaled_weights` found them valid
        already)."""
        if self.checked:
            return 0
        return 1 if self.w is None or self.w_valid else 2

    def weights(self) -> np.ndarray:
        """The scaled weights as a vector (ones when unweighted; a new array unless ``ws`` is
        1): for the binning module's column-by-column path."""
        if self.w is None:
            return np.ones(self.P.shape[0])
        return self.w if self.ws == 1.0 else self.w * self.ws


#: The bits of +inf as an int64 (those of NaN lie above).
_INF_BITS = 0x7FF0000000000000

#: Powers of two within which the scaled weights, their products and every partial sum of
#: them stay normal floats in the caller's units and in the scaled ones (see
#: :func:`scaled_weights`).
_NORMAL = 2.0**-1022


def scaled_weights(w: np.ndarray | None) -> tuple[np.ndarray | None, float, float]:
    """``(v, ws, W)``: the weights as :func:`ordmetrics._core.numerics.scale_weights` scales
    them are ``v * ws``, and W is their sum (NumPy's pairwise sum), without a scaled copy
    where it can be avoided.

    ``scale_weights`` multiplies by 2^-e (e the binary exponent of the largest weight). When
    every positive weight is a normal float before and after the scaling and the sum is
    finite, multiplying by the power of two ``ws`` = 2^-e is exact for every weight and every
    partial sum, so ``w_i * ws`` is the scaled weight bit for bit and W is the caller's sum
    times ``ws``: ``v`` is ``w`` itself. Otherwise (subnormal or huge weights, or weights the
    validation will refuse) ``v`` is ``scale_weights(w)``, a copy, and ``ws`` is 1.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused import scaled_weights
    >>> w = np.array([3.0, 1.0])
    >>> v, ws, total = scaled_weights(w)
    >>> v is w, ws, total  # scale_weights(w) is [0.75, 0.25]
    (True, 0.25, 1.0)
    """
    if w is None:
        return None, 1.0, math.nan
    if w.size and w.dtype == np.float64:
        # one pass over the weights' bits: the largest and the smallest positive weight, and
        # whether every weight is finite and >= 0 (a negative one has negative bits)
        hi_bits, lo_bits, min_bits = weight_bits(w.view(np.int64))
        ok = min_bits >= 0 and hi_bits < _INF_BITS
        hi, lo = np.array([hi_bits, lo_bits], dtype=np.int64).view(np.float64).tolist()
        lo = lo if lo_bits < _INF_BITS else math.inf  # no positive weight: inf
        if ok and lo >= _NORMAL:  # then hi >= lo: 2^-e <= 2^1022, a float
            e = int(np.frexp(hi)[1])
            ws = math.ldexp(1.0, -e)
            if lo * ws >= _NORMAL:
                with np.errstate(over="ignore"):
                    total = float(w.sum())
                if math.isfinite(total):
                    return w, ws, total * ws
    v = scale_weights(w)[0]
    return v, 1.0, float(v.sum())


def fast_input(
    y_true: Any, y_proba: Any, labels: Any, sample_weight: Any, nan_policy: str, renormalize: bool
) -> FastInput | None:
    """Convert the inputs without looking at their values; None when a label is missing (the
    validation of :func:`~ordmetrics.metrics.calibration.binning.prepare` takes over)."""
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    P = as_proba(y_proba, renormalize=renormalize)
    n, k = P.shape
    enc = encode_labels(y_true, labels=labels, n_classes=k)
    check_lengths(enc.codes.size, n)
    if enc.missing is not None or n == 0:
        return None
    # the weights w * ws and W as binning.prepare scales and adds them
    given = as_weights(sample_weight, n)
    w, ws, total = scaled_weights(given)
    # w is the caller's vector only where its bits were found finite and >= 0
    valid = w is not None and w is given
    return FastInput(P, enc.codes, w, float(n) if w is None else total, ws, valid)


#: Chunks of rows (run in parallel by numba's threads; the split depends on N only, so the
#: results do not depend on the number of threads), and the rows per chunk at least.
MAX_CHUNKS = 16
_MIN_CHUNK_ROWS = 16384


def n_chunks(n: int) -> int:
    """The number of chunks of N rows."""
    return int(min(MAX_CHUNKS, max(1, n // _MIN_CHUNK_ROWS)))


def checked_input(P: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> FastInput:
    """The :class:`FastInput` of inputs validated already (``weight`` as given, or None)."""
    w, ws, total = scaled_weights(weight)
    P = np.ascontiguousarray(P)  # the kernels read the rows as one vector
    inp = FastInput(P, y, w, float(P.shape[0]) if w is None else total, ws)
    inp.checked = True
    return inp


def _sums_array(n: int, e: int, b: int) -> np.ndarray:
    return np.zeros((n_chunks(n), e, b, 3))


def _n_events(view: str, k: int) -> int:
    return 1 if view == "top_label" else (k if view == "classwise" else k - 1)


def event_sums(
    inp: FastInput, view: str, n_bins: int, strategy: str
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None] | None:
    """The sums (E, B, 3) of w, w f, w o per (event, bin), and for quantile bins the
    thresholds T (E, B - 1) with the bins of the buckets (None for uniform bins).

    Returns None when the rows are not all valid (the caller validates them the slow way and
    calls again with ``inp.checked``) or when the quantile bins need the binning module's sort.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration.fused import event_sums, fast_input
    >>> inp = fast_input([0, 1], [[0.8, 0.2], [0.4, 0.6]], None, None, "raise", False)
    >>> sums, _ = event_sums(inp, "classwise", 2, "uniform")
    >>> sums[0].tolist()  # y = 0: p_0 = 0.4 in bin 0, p_0 = 0.8 (the event) in bin 1
    [[1.0, 0.4, 0.0], [1.0, 0.8, 1.0]]
    """
    P, y, w = inp.P, inp.y, inp.w
    n, k = P.shape
    e = _n_events(view, k)
    code = VIEW_CODES[view]
    tol = sum_tolerance(P.dtype, k)
    tol_b = TIE_TOLERANCE * n_bins
    if strategy == "uniform":
        sums = _sums_array(n, e, n_bins)
        args = (P.reshape(-1), k, y, w, inp.ws, code, n_bins, tol, tol_b, inp.check_level(), sums)
        n_bad = run_uniform_sums(*args)
        if n_bad or not inp.total > 0:
            return None
        inp.checked = True
        return sum_in_order(sums), None
    found = _quantile_pass(inp, view, n_bins, False)
    if found is None:
        return None
    T, lut = found.T, found.lut
    if n_chunks(n) == 1:  # the sums in row order: those of np.bincount, bit for bit
        sums = _sums_array(n, e, n_bins)
        run_kernel(_threshold_sums, P.size, P, y, w, inp.ws, code, T, lut, sums)
        return sums[0], (T, lut)
    return found.sums, (T, lut)


#: Bytes of the tables of 4 sums per bucket of the first pass of the quantile bins (per
#: chunk) beyond which the buckets are halved, where half of them fit in twice as many: the
#: tables then stay in a core's cache (larger ones gain nothing from the halving, and twice
#: the rows are sorted; measured at N = 10^6, K = 5, 10, 20).
_TABLE_BYTES = 1 << 19


def _table_buckets(n: int, e: int) -> int:
    """The buckets of the first pass of the quantile bins for N rows and E events:
    :func:`n_buckets`, halved where the tables of 4 sums per bucket exceed ``_TABLE_BYTES``
    and half of them fit in twice that (about 10% faster at K = 5; the decompositions'
    tables of 8 sums follow the same rule)."""
    m = n_buckets(n)
    return m // 2 if _TABLE_BYTES < e * m * 32 <= 4 * _TABLE_BYTES else m


def _quantile_pass(inp: FastInput, view: str, n_bins: int, moments: bool) -> QuantileBins | None:
    """The two passes of the quantile bins (:mod:`~ordmetrics.metrics.calibration.fused_quantile`);
    None as :func:`event_sums`."""
    P, y, w = inp.P, inp.y, inp.w
    n, k = P.shape
    e = _n_events(view, k)
    code = VIEW_CODES[view]
    tol = sum_tolerance(P.dtype, k)
    c = min(n_chunks(n), 2)  # two chunks at most: the tables of the buckets stay small
    check = not inp.checked
    m = _table_buckets(n, e)
    n_bad, hist = bucket_table(P, y, w, inp.ws, code, e, m, c, tol, check, moments)
    if n_bad or not inp.total > 0:
        return None
    inp.checked = True
    max_sorted = _MAX_SORTED_FRACTION * P.size + 64
    tol_b = TIE_TOLERANCE * n_bins
    args = (P, y, w, inp.ws, inp.total, code, hist, n_bins, tol_b, max_sorted)
    return quantile_bins(*args)


def quantile_moments(inp: FastInput, view: str, n_bins: int) -> Moments | None:
    """:func:`uniform_moments` for quantile bins, from the two passes of
    :mod:`~ordmetrics.metrics.calibration.fused_quantile` (no third pass); None as
    :func:`event_sums`. For more than one chunk of rows (:func:`n_chunks`).

    The first pass adds, per chunk and (event, bucket), the moments of the forecasts about
    the bucket's middle as well; the within-bin sums per bin combine those of the buckets
    outside the runs (Chan, Golub and LeVeque's formula) with those of the collected rows
    about the bin means (:func:`~ordmetrics.metrics.calibration.fused_quantile.quantile_bins`);
    the score is the sum of the buckets' sums of w (f - o)^2. ``wbv`` and ``wbc`` are never
    None here.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused import fast_input, quantile_moments
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(3), size=40_000)
    >>> inp = fast_input(rng.integers(0, 3, 40_000), P, None, None, "raise", False)
    >>> weight, mean_f, sum_o, wbv, wbc, score = quantile_moments(inp, "classwise", 4)
    >>> weight[0].tolist()  # four bins of 10,000 forecasts each
    [10000.0, 10000.0, 10000.0, 10000.0]
    >>> y_hot = np.arange(3) == inp.y[:, None]
    >>> bool(np.isclose(score, np.sum((P - y_hot) ** 2), rtol=1e-12))
    True
    """
    found = _quantile_pass(inp, view, n_bins, True)
    if found is None or found.within is None:
        return None
    weight, s_f, s_o = np.moveaxis(found.sums, -1, 0)
    filled = weight > 0
    mean_f = np.where(filled, s_f / np.where(filled, weight, 1.0), 0.0)
    wbv, wbc = found.within[..., 0], found.within[..., 1]
    return weight, mean_f, s_o, wbv, wbc, found.score


def within_bin_sums(
    inp: FastInput,
    view: str,
    n_bins: int,
    quantile: tuple[np.ndarray, np.ndarray] | None,
    mean_f: np.ndarray,
    mean_o: np.ndarray,
) -> np.ndarray:
    """Per event (E, 3): sum w (f - o)^2, sum w (f - f_b)^2, sum w (o - o_b)(f - f_b)."""
    P = inp.P
    e = _n_events(view, P.shape[1])
    out = np.empty((e, 3))
    parts = np.zeros((n_chunks(P.shape[0]), 2, e, 3))
    T, lut = quantile if quantile is not None else (np.empty((e, 0)), np.empty((e, 1), np.int64))
    run_kernel(
        _deviation_sums,
        P.size,
        P,
        inp.y,
        inp.w,
        inp.ws,
        VIEW_CODES[view],
        quantile is not None,
        T,
        lut,
        n_bins,
        TIE_TOLERANCE * n_bins,
        np.ascontiguousarray(mean_f),
        np.ascontiguousarray(mean_o),
        parts,
        out,
    )
    return out


#: The within-bin sums of squares of an event (over its chunks and bins) are trusted when its
#: shifted sums of squares S2 are at most this multiple of them (at most 4 bits lost to the
#: cancellations S2 - S1^2 / W); otherwise the within-bin sums are added again about the bin
#: means (:func:`within_bin_sums`).
MAX_SHIFTED_RATIO = 16.0


#: Rows of the sample whose mean forecast per (event, bin) shifts the sums of
#: :func:`uniform_moments` (at most one in ``_SAMPLE_FRACTION`` of the rows).
SHIFT_SAMPLE = 2048
_SAMPLE_FRACTION = 128


def _shifts(P: np.ndarray, view: str, n_bins: int) -> np.ndarray:
    """The shifts of :func:`uniform_moments` (E B values, in (event, bin) order): per (event,
    bin), the mean forecast of at most ``SHIFT_SAMPLE`` rows evenly spaced (the rows 0, s, 2 s,
    ... with s = N // that count), and where none falls in the bin, its centre (b + 1/2) / B
    (:func:`~ordmetrics.metrics.calibration.fused_uniform.sample_shifts`): shifts close to the
    bin means, for well-conditioned sums.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused import _shifts
    >>> P = np.array([[0.1, 0.9], [0.3, 0.7]])
    >>> # the sample is row 0: p_0 = 0.1 in bin 0 of event 0, p_1 = 0.9 in bin 1 of event 1;
    >>> # the two other bins take their centres
    >>> _shifts(P, "classwise", 2).tolist()
    [0.1, 0.75, 0.25, 0.9]
    """
    n, k = P.shape
    rows = max(1, min(SHIFT_SAMPLE, n // _SAMPLE_FRACTION))
    shifts = np.empty(_n_events(view, k) * n_bins)
    flat = P.reshape(-1)
    tol_b = TIE_TOLERANCE * n_bins
    return sample_shifts(flat, k, max(1, n // rows), view == "cumulative", n_bins, tol_b, shifts)


#: What :func:`uniform_moments` returns: weight, mean_f, sum_o, wbv (or None), wbc (or None),
#: score.
Moments = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, float]


def uniform_moments(inp: FastInput, view: str, n_bins: int) -> Moments | None:
    """One pass for the decompositions with uniform bins (classwise or cumulative events).

    Returns ``(weight, mean_f, sum_o, wbv, wbc, score)``: per (event, bin) (E, B) the weight,
    the mean forecast (0 in empty bins), the sum of w o, and the sums of w (f - f_b)^2 and
    w (o - o_b)(f - f_b); ``wbv``, ``wbc`` are None when an event's sums were ill-conditioned
    (the caller adds them about the means in a second pass); and the sum of w (f - o)^2 over
    all rows and events (per chunk and (event, bin): parts of ``FLUSH_BLOCKS`` blocks of rows
    added plainly in row order, the parts compensated (Neumaier); the (event, bin) sums
    compensated in their order; the chunks' sums and compensations added by ``math.fsum``).
    None when the rows are not all valid (as :func:`event_sums`).

    Each chunk of rows adds, in row order per (event, bin) and outcome o (0 or 1: one vector
    addition per row and event), w, w d, w d^2 and w (f - o)^2 with d = f - s, s the bin's
    mean forecast in an evenly spaced sample of at most ``SHIFT_SAMPLE`` rows (where the
    sample has none, the bin's centre: :func:`_shifts`): a shift close to the bin's values
    and mean; w d is added in parts of ``FLUSH_BLOCKS`` blocks of rows, then to the chunk's
    sums. The chunk's bin has the weight W_c = W_0 + W_1, S_o = W_1, S_d = S_d0 + S_d1,
    S_od = S_d1 and S_dd = S_dd0 + S_dd1 (added in that order). A chunk's bin then has the
    mean m_c = s_c + S_d / W_c, the sum of squares M_c = S_dd - S_d^2 / W_c and the
    co-moment C_c = S_od - S_o S_d / W_c, and the chunks combine exactly (Chan, Golub and
    LeVeque's parallel formula), summed over the chunks in their order:
    f_b = sum_c W_c m_c / W_b, WBV_b = sum_c M_c + sum_c W_c (m_c - f_b)^2 and
    WBC_b = sum_c C_c + sum_c W_c (m_c - f_b)(o_c - o_b), the means taken relative to the
    shift of the bin's first chunk (their differences keep their relative precision). When
    an event's S_dd exceed ``MAX_SHIFTED_RATIO`` times its M_c (over its chunks and bins),
    ``wbv`` and ``wbc`` are None. The sums of w o are those of :func:`event_sums`, bit for
    bit; the weights are, per chunk, the row-order sum of the rows of outcome 0 plus that of
    the rows of outcome 1, the chunks added in their order (they may differ from those of
    :func:`event_sums`, the row-order sums of all rows, in the last bits; unweighted, the
    counts are exact and equal).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration.fused import fast_input, uniform_moments
    >>> inp = fast_input([0, 1], [[0.8, 0.2], [0.6, 0.4]], None, None, "raise", False)
    >>> weight, mean_f, sum_o, wbv, wbc, score = uniform_moments(inp, "classwise", 1)
    >>> weight.tolist(), mean_f.tolist(), sum_o.tolist()
    ([[2.0], [2.0]], [[0.7], [0.30000000000000004]], [[1.0], [1.0]])
    >>> np.round(wbv[:, 0], 12).tolist(), np.round(wbc[:, 0], 12).tolist()
    ([0.02, 0.02], [0.1, 0.1])
    """
    P = inp.P
    n, k = P.shape
    e = _n_events(view, k)
    moms = np.zeros((n_chunks(n), e, n_bins, 7))
    tol = sum_tolerance(P.dtype, k)
    tol_b = TIE_TOLERANCE * n_bins
    args = (P.reshape(-1), k, inp.y, inp.w, inp.ws, VIEW_CODES[view], n_bins, tol, tol_b)
    scores = np.zeros((moms.shape[0], 2))
    shifts = _shifts(P, view, n_bins)
    n_bad = run_kernel(_uniform_moments, P.size, *args, inp.check_level(), shifts, moms, scores)
    if n_bad or not inp.total > 0:
        return None
    inp.checked = True
    out = np.empty((5, e, n_bins))
    well_conditioned = merge_moments(moms, MAX_SHIFTED_RATIO, out)
    score = math.fsum(scores.ravel())  # the chunks' sums and compensations, rounded once
    weight, mean_f, sum_o, wbv, wbc = out
    if not well_conditioned:
        return weight, mean_f, sum_o, None, None, score
    return weight, mean_f, sum_o, wbv, wbc, score
