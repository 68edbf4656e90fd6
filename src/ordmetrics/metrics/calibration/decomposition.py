"""Decompositions of the Brier score and the RPS: reliability, resolution, uncertainty.

With the two within-bin terms when forecasts are binned, the parts add up exactly to
:func:`~ordmetrics.brier` and :func:`~ordmetrics.rps`. The bins are those of
:mod:`ordmetrics.metrics.calibration.binning`. Definitions: ``docs/definitions.md``, section 4.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.validation import (
    check_flag,
    check_option,
)
from ordmetrics.metrics.calibration.binning import (
    _PARAMS_TEMPLATE,
    STRATEGIES,
    _bin_means,
    _column_sums,
    _event_columns,
    check_n_bins,
    prepare,
)
from ordmetrics.metrics.calibration.distinct import distinct_parts
from ordmetrics.metrics.calibration.fused import (
    FastInput,
    checked_input,
    event_sums,
    fast_input,
    n_chunks,
    quantile_moments,
    uniform_moments,
    within_bin_sums,
)

__all__ = ["ScoreDecomposition", "brier_decomposition", "rps_decomposition"]


@dataclass(frozen=True)
class ScoreDecomposition:
    r"""Decomposition of a score into reliability, resolution, uncertainty and within-bin terms.

    .. math::

        S = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Attributes
    ----------
    score : float
        The score S (:func:`~ordmetrics.brier` or :func:`~ordmetrics.rps`), computed directly.
    reliability : float
        REL >= 0: weighted mean squared distance of the bin's mean forecast from its observed
        frequency (0 when calibrated; lower is better).
    resolution : float
        RES >= 0: weighted variance of the observed frequencies across bins (higher is better).
    uncertainty : float
        UNC = o(1 - o) of the event base rates o: the score of the climatological forecast,
        independent of the prediction.
    within_bin_variance : float
        WBV >= 0: weighted variance of the forecasts around their bin mean (0 without binning).
    within_bin_covariance : float
        WBC: twice the weighted covariance of forecast and outcome within bins (0 without
        binning).
    """

    score: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float

    @property
    def components_sum(self) -> float:
        """REL - RES + UNC + WBV - WBC, equal to ``score`` up to rounding."""
        return (
            self.reliability
            - self.resolution
            + self.uncertainty
            + self.within_bin_variance
            - self.within_bin_covariance
        )

    def check(self, atol: float = 1e-12) -> bool:
        """Whether the identity S = REL - RES + UNC + WBV - WBC holds within ``atol``."""
        return bool(abs(self.components_sum - self.score) <= atol)


def _weighted_sum(w: np.ndarray, x: np.ndarray) -> float:
    """sum_i w_i x_i by NumPy's pairwise summation (``x`` is overwritten with w x): more
    accurate than a BLAS dot product, and free of its thread start-up cost."""
    np.multiply(x, w, out=x)
    return float(x.sum())


def _decompose_events(
    columns: Iterable[tuple[np.ndarray, np.ndarray]],
    w: np.ndarray,
    n_bins: int | None,
    strategy: str,
) -> np.ndarray:
    """Per event: score, REL, RES, UNC, WBV, WBC of the binary Brier score, shape (6, E).

    The events come one at a time (``(f, o)`` vectors of N values, from
    :func:`_event_columns`), so the memory beyond the input is a few vectors of N values.
    """
    total = float(w.sum())
    dev_f, dev_o = np.empty(w.size), np.empty(w.size)  # buffers reused for every event
    out = []
    for f, o in columns:
        index, edges, weight, s_f, s_o = _column_sums(f, o, w, n_bins, strategy, dev_f)
        filled = weight > 0
        mean_f, mean_o = _bin_means(weight, s_f, s_o)
        if n_bins is None:  # the bin's forecast is its distinct value itself: WBV = WBC = 0
            mean_f = np.where(np.isnan(edges), 0.0, edges)
        mean_f = np.where(filled, mean_f, 0.0)
        mean_o = np.where(filled, mean_o, 0.0)
        base_rate = s_o.sum() / total
        rel = np.sum(weight * (mean_f - mean_o) ** 2) / total
        res = np.sum(weight * (mean_o - base_rate) ** 2) / total
        unc = base_rate * (1.0 - base_rate)
        np.take(mean_f, index, out=dev_f, mode="clip")
        np.subtract(f, dev_f, out=dev_f)  # f_i - f_b(i)
        np.take(mean_o, index, out=dev_o, mode="clip")
        np.subtract(o, dev_o, out=dev_o)  # o_i - o_b(i)
        del index
        np.multiply(dev_o, dev_f, out=dev_o)
        wbc = 2.0 * _weighted_sum(w, dev_o) / total
        np.multiply(dev_f, dev_f, out=dev_f)
        wbv = _weighted_sum(w, dev_f) / total
        np.subtract(f, o, out=dev_f)
        np.multiply(dev_f, dev_f, out=dev_f)
        score = _weighted_sum(w, dev_f) / total
        out.append([score, rel, res, unc, wbv, wbc])
    return np.array(out, dtype=np.float64).reshape(-1, 6).T


def _decomposition(
    rule: str,
    y_true: Any,
    y_proba: Any,
    n_bins: Any,
    strategy: str,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool,
    normalize: bool,
) -> ScoreDecomposition:
    nb = check_n_bins(n_bins, allow_none=True)
    check_option(strategy, "strategy", STRATEGIES)
    view = "classwise" if rule == "brier" else "cumulative"
    parts = None
    inp = None
    if nb is not None:  # compiled kernels: validate, form the events and bin in the same pass
        inp = fast_input(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
        if inp is not None:
            parts = _decompose_fused(inp, view, nb, strategy)
    if parts is None and (inp is None or not inp.checked):
        # a problem with the input (a precise message, or the nan_policy applied), or one bin
        # per distinct value
        prep, P, w = prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
        if prep.propagate:
            return ScoreDecomposition(*([math.nan] * 6))
        if nb is not None:
            inp = checked_input(prep.other, prep.y_true, prep.weight)
            parts = _decompose_fused(inp, view, nb, strategy)
        else:  # one bin per distinct value
            parts = distinct_parts(P, prep.y_true, None if prep.weight is None else w, view)
    if parts is None:  # quantile bins with heavy ties: the sort of every column
        assert inp is not None
        P = np.asarray(inp.P, dtype=np.float64)
        w = inp.weights()
        parts = _decompose_events(_event_columns(P, inp.y, view), w, nb, strategy)
    k = parts.shape[1] + (1 if view == "cumulative" else 0)
    total = parts.sum(axis=1)
    if rule == "rps" and normalize:
        total = total / (k - 1)
    return ScoreDecomposition(*(float(v) for v in total))


def _decompose_fused(inp: FastInput, view: str, n_bins: int, strategy: str) -> np.ndarray | None:
    """What :func:`_decompose_events` computes, (6, E), from the sums of the compiled kernels
    (None when they leave it to the binning module). Uniform bins: one pass
    (:func:`~ordmetrics.metrics.calibration.fused.uniform_moments`), a second only when its
    within-bin sums were ill-conditioned."""
    if strategy == "uniform":
        return _decompose_moments(inp, view, n_bins)
    if n_chunks(inp.P.shape[0]) > 1:  # the two passes, their moments: no third pass
        return _decompose_moments(inp, view, n_bins, quantile=True)
    found = event_sums(inp, view, n_bins, strategy)
    if found is None:
        return None
    sums, quantile = found
    total = inp.total
    weight, s_f, s_o = sums[..., 0], sums[..., 1], sums[..., 2]
    filled = weight > 0
    mean_f, mean_o = _bin_means(weight, s_f, s_o)
    mean_f = np.where(filled, mean_f, 0.0)
    mean_o = np.where(filled, mean_o, 0.0)
    base_rate = s_o.sum(axis=1) / total
    rel = np.sum(weight * (mean_f - mean_o) ** 2, axis=1) / total
    res = np.sum(weight * (mean_o - base_rate[:, None]) ** 2, axis=1) / total
    unc = base_rate * (1.0 - base_rate)
    dev = within_bin_sums(inp, view, n_bins, quantile, mean_f, mean_o)
    score = dev[:, 0] / total
    wbv = dev[:, 1] / total
    wbc = 2.0 * dev[:, 2] / total
    return np.array([score, rel, res, unc, wbv, wbc], dtype=np.float64)


def _decompose_moments(
    inp: FastInput, view: str, n_bins: int, quantile: bool = False
) -> np.ndarray | None:
    """:func:`_decompose_fused` from the one-pass sums of
    :func:`~ordmetrics.metrics.calibration.fused.uniform_moments` (uniform bins) or the
    two-pass sums of :func:`~ordmetrics.metrics.calibration.fused.quantile_moments` (the
    score of all events in the first column, zeros in the others: the caller adds the events
    up)."""
    found = (quantile_moments if quantile else uniform_moments)(inp, view, n_bins)
    if found is None:
        return None
    weight, mean_f, s_o, wbv_sum, wbc_sum, score_sum = found
    total = inp.total
    filled = weight > 0
    mean_o = np.where(filled, s_o / np.where(filled, weight, 1.0), 0.0)
    base_rate = s_o.sum(axis=1) / total
    rel = np.sum(weight * (mean_f - mean_o) ** 2, axis=1) / total
    res = np.sum(weight * (mean_o - base_rate[:, None]) ** 2, axis=1) / total
    unc = base_rate * (1.0 - base_rate)
    if wbv_sum is None or wbc_sum is None:  # ill-conditioned: about the bin means, 2nd pass
        dev = within_bin_sums(inp, view, n_bins, None, mean_f, mean_o)
        score, wbv, wbc = dev[:, 0] / total, dev[:, 1] / total, 2.0 * dev[:, 2] / total
    else:
        score = np.zeros(weight.shape[0])  # the score of all events, in the first column
        score[0] = score_sum / total
        wbv = wbv_sum.sum(axis=1) / total
        wbc = 2.0 * wbc_sum.sum(axis=1) / total
    return np.array([score, rel, res, unc, wbv, wbc], dtype=np.float64)


_DECOMP_NOTES = """\
    The binary decomposition of one event with forecasts f_i, outcomes o_i in {0, 1} and
    weights w_i, binned into bins b (weight W_b, mean forecast f_b, observed frequency o_b,
    base rate o = sum_i w_i o_i / W) is

    .. math::

        \\frac{1}{W}\\sum_i w_i (f_i - o_i)^2
        = \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_b W_b (f_b - o_b)^2}_{\\mathrm{REL}}
        - \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_b W_b (o_b - o)^2}_{\\mathrm{RES}}
        + \\underbrace{o(1 - o)}_{\\mathrm{UNC}}
        + \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_i w_i (f_i - f_{b(i)})^2}_{\\mathrm{WBV}}
        - \\underbrace{\\tfrac{2}{W}\\textstyle\\sum_i w_i (o_i - o_{b(i)})
          (f_i - f_{b(i)})}_{\\mathrm{WBC}}

    an exact identity (Stephenson, Coelho & Jolliffe 2008). With ``n_bins=None`` every
    distinct forecast value is its own bin, WBV = WBC = 0, and this is the classical
    decomposition of Murphy (1973); forecasts within 1e-12 times the larger of each other count
    as one value (the tie rule of :mod:`ordmetrics._core.numerics`: a cumulative forecast F_k
    carries rounding; rows of weight 0 take no part, nor link two values), which leaves
    within-bin terms of at most about 1e-12. With ``n_bins`` bins the within-bin
    terms carry what the binning hides, so the parts still add up to the score.

    Algorithm, with ``n_bins=None``: per event, the distinct values u, with the weight W_u
    and the weighted outcomes S_u of their rows, come from one sort of the N forecasts
    (unweighted: of the forecast's bits packed with the outcome into one int64 key, NumPy's
    vectorised sort, no permutation; weighted: a stable argsort, or for at most 512 distinct
    values a perfect hash of the bits instead). The sums per bin are added in row order
    (unweighted: counts, exact in any order); REL and RES over the bins in ascending order and
    the score over the rows (NumPy's pairwise summation). WBV and WBC, non-zero only where the
    tie rule joins distinct values, are pairwise sums over the values u above their bin's
    value f_b, in ascending order, of W_u (u - f_b)^2 and 2 (S_u - W_u o_b)(u - f_b).

    Algorithm, with ``n_bins`` and uniform bins: one pass over the rows, which split into
    chunks fixed by N. Per chunk, bin, event and outcome o, the sums of w, w d, w d^2 and
    w (f - o)^2 are added in row order (w d in parts of a few thousand values, then added up;
    one vector addition per row and event); the bin's W, S_d and S_dd are the two outcomes'
    sums added (o = 0 first), S_o and S_od those of o = 1,
    d = f - s the difference from a shift s: the bin's mean forecast in an evenly spaced
    sample of min(2,048, N / 128) rows (where it has none, the bin's centre).
    They give the chunk's bin mean, sum of squared deviations and co-moment with the
    outcome, which the parallel formula of Chan, Golub and LeVeque (1979) merges over the
    chunks in their order. An event whose sums of w d^2 exceed 16 times its sums of squared
    deviations (more than 4 bits lost) sends WBV, WBC and the score to a second pass, about
    the bin means. The score's terms w (f - o)^2 are added per chunk and (event, bin), plainly
    in row order within parts of about 4,096 values, the parts with Neumaier's compensated
    summation; the chunks' sums rounded once (``math.fsum``).

    Algorithm, with ``n_bins`` and quantile bins (from 32,768 rows): the two passes of the
    quantile bins (a table of equal buckets of [0, 1], then the rows of the buckets where a
    quantile level falls, sorted). The first pass adds, per chunk, event and bucket, the sums
    of w, w f, w o, w d, w d^2, w o d and w (f - o)^2 in row order, d = f - c the difference
    from the bucket's middle c (at most half a bucket). A bucket outside the sorted ones lies
    in one bin: its mean c + S_d / W, sum of squares S_dd - S_d^2 / W and co-moment
    S_od - S_o S_d / W merge into the bin's WBV and WBC by the parallel formula (buckets in
    increasing order), then the sorted rows add w (f - f_b)^2 and w (o - o_b)(f - f_b) about
    the bin means, in row order; the score is the sum of the buckets' sums. Below 32,768
    rows, a third pass adds the bin sums in row order and a fourth the within-bin sums about
    the bin means. Results do not depend on the number of threads."""


@fill_doc(params=_PARAMS_TEMPLATE, decomposition=_DECOMP_NOTES)
def brier_decomposition(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int | None = None,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> ScoreDecomposition:
    r"""Decomposition of the multiclass Brier score into reliability, resolution, uncertainty.

    The multiclass Brier score is the sum over classes k of the binary Brier score of the
    forecast p_k for the event y = k; every part is the sum over k of the part of that binary
    decomposition:

    .. math::

        \mathrm{BS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Parameters
    ----------
    %(params)s
    n_bins : int or None, default None
        None: one bin per distinct forecast value (the classical decomposition, no within-bin
        terms). An integer: that many bins per class.
    strategy : {"uniform", "quantile"}, default "uniform"
        How forecasts are binned when ``n_bins`` is an integer (see :func:`ece`).

    Returns
    -------
    ScoreDecomposition
        ``score`` (equal to :func:`~ordmetrics.brier`), ``reliability``, ``resolution``,
        ``uncertainty``, ``within_bin_variance``, ``within_bin_covariance``; ``check()``
        confirms the identity. All NaN under ``nan_policy="propagate"`` with a missing value.

    Notes
    -----
    %(decomposition)s

    Ranges: score in [0, 2]; REL >= 0 (lower is better, 0 when calibrated); RES >= 0 (higher
    is better); UNC = sum_k o_k (1 - o_k) in [0, 1 - 1/K] depends only on the class
    frequencies o_k.

    References
    ----------
    .. [1] Murphy, A. H. (1973). A new vector partition of the probability score. Journal of
       Applied Meteorology 12(4), 595-600.
    .. [2] Stephenson, D. B., Coelho, C. A. S., Jolliffe, I. T. (2008). Two extra components
       in the Brier score decomposition. Weather and Forecasting 23(4), 752-757.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import brier_decomposition
    >>> d = brier_decomposition([0, 1, 1, 1], [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8], [0.2, 0.8]])
    >>> d.score, d.reliability, d.resolution, d.uncertainty
    (0.29, 0.04, 0.125, 0.375)
    >>> d.within_bin_variance, d.within_bin_covariance, d.check()
    (0.0, 0.0, True)
    """
    return _decomposition(
        "brier",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
        True,
    )


@fill_doc(params=_PARAMS_TEMPLATE, decomposition=_DECOMP_NOTES)
def rps_decomposition(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int | None = None,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
    normalize: bool = True,
) -> ScoreDecomposition:
    r"""Decomposition of the Ranked Probability Score into reliability, resolution, uncertainty.

    The RPS is the mean over the thresholds k = 1..K-1 of the binary Brier score of the
    cumulative forecast F_k for the event y <= k; every part is the mean over k of the part
    of that binary decomposition:

    .. math::

        \mathrm{RPS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Parameters
    ----------
    %(params)s
    n_bins : int or None, default None
        None: one bin per distinct value of F_k (the classical decomposition, no within-bin
        terms). An integer: that many bins per threshold.
    strategy : {"uniform", "quantile"}, default "uniform"
        How forecasts are binned when ``n_bins`` is an integer (see :func:`ece`).
    normalize : bool, default True
        Divide by K - 1 like :func:`~ordmetrics.rps`; ``False`` gives the parts of the raw sum.

    Returns
    -------
    ScoreDecomposition
        ``score`` (equal to :func:`~ordmetrics.rps`), ``reliability``, ``resolution``,
        ``uncertainty``, ``within_bin_variance``, ``within_bin_covariance``; ``check()``
        confirms the identity. All NaN under ``nan_policy="propagate"`` with a missing value.

    Notes
    -----
    %(decomposition)s

    Ranges (normalized): score in [0, 1]; REL >= 0 (lower is better, 0 when calibrated);
    RES >= 0 (higher is better); UNC = mean_k c_k (1 - c_k), with c_k the weighted fraction of
    rows with y <= k, in [0, 1/4], depends only on the class frequencies.

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Murphy, A. H. (1972). Scalar and vector partitions of the ranked probability score.
       Monthly Weather Review 100(10), 701-708.
    .. [3] Stephenson, D. B., Coelho, C. A. S., Jolliffe, I. T. (2008). Two extra components
       in the Brier score decomposition. Weather and Forecasting 23(4), 752-757.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import rps_decomposition
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.6, 0.3, 0.1], [0.6, 0.3, 0.1], [0.1, 0.3, 0.6], [0.1, 0.3, 0.6]]
    >>> d = rps_decomposition(y, P)
    >>> round(d.score, 10), round(d.reliability, 10), round(d.uncertainty, 10), d.check()
    (0.11, 0.0475, 0.21875, True)
    >>> d1 = rps_decomposition(y, P, n_bins=1)  # one bin: the spread is all within the bin
    >>> [round(v, 10) for v in (d1.reliability, d1.resolution, d1.within_bin_variance,
    ...                         d1.within_bin_covariance)]
    [0.01625, 0.0, 0.0625, 0.1875]
    >>> d1.check()
    True
    """
    return _decomposition(
        "rps",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
        check_flag(normalize, "normalize"),
    )
