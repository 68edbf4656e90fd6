"""The rules on cumulative distributions: RPS, sa-RPS and the CDF L1 distance.

F_k = p_1 + ... + p_k is the cumulative prediction and H_k = 1{y <= k} the cumulative truth,
k = 1..K-1 (docs/definitions.md, section 5). Each rule is defined once here: its compiled row
function and kernel, its array-API formula, its options, its public function and its record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.jit import njit
from ordmetrics._core.kernels import JIT_OPTIONS, ONE, at_or_above, drive_rows
from ordmetrics._core.validation import check_flag
from ordmetrics.metrics.scoring.base import (
    K2_UNTIED,
    PARAMS_TEMPLATE,
    ScoringRule,
    cumulative,
    cumulative_truth,
    evaluate,
    properties,
)

__all__ = ["CDF_L1", "RPS", "SA_RPS", "cdf_l1", "rps", "sa_rps"]


def _pack_normalize(normalize: bool = True) -> float:
    """``normalize`` as the ``param`` of the kernels: 1.0 (divide by K - 1) or 0.0."""
    return 1.0 if check_flag(normalize, "normalize") else 0.0


def _pack_nothing() -> float:
    return 0.0


def _distance(xp: Any, P: Any, y: Any) -> Any:
    """F_k - H_k for k < K, shape (N, K - 1)."""
    return cumulative(xp, P) - cumulative_truth(xp, P, y)


# --------------------------------------------------------------------------------------------
# RPS
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def rps_row(f, i, yi, K, param):
    """(1/(K-1)) sum_{k<K-1} (F_k - H_k)^2 (the raw sum when ``param`` is 0), sum, min, max."""
    base = i * K
    c = 0.0
    s = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - ONE):
        v = f[base + k]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        c += v
        d = c - at_or_above(k, yi, K)
        s += d * d
    v = f[base + K - ONE]
    lo = v if v < lo else lo
    hi = v if v > hi else hi
    # a division by 1 (exact) instead of a select between two results: the rows stay on
    # vector instructions
    return s / (np.float64(K - ONE) if param != 0.0 else 1.0), c + v, lo, hi, False


@njit(**JIT_OPTIONS)
def rps_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, rps_row, param, tol, out, rows, pen, parts, True)


def rps_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The RPS of every row with array-API operations."""
    D = _distance(xp, P, y)
    s = xp.sum(D * D, axis=1)
    return s / (P.shape[1] - 1) if param != 0.0 else s


@fill_doc(params=PARAMS_TEMPLATE)
def rps(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    normalize: bool = True,
    renormalize: bool = False,
) -> Any:
    r"""Ranked Probability Score (RPS) of ordinal probabilistic predictions.

    .. math::

        \mathrm{RPS}(p, y) = \frac{1}{K-1} \sum_{k=1}^{K-1} (F_k - H_k)^2,
        \qquad F_k = \sum_{j \le k} p_j,\quad H_k = 1\{y \le k\}

    The squared distance between the cumulative prediction and the cumulative truth: mass put
    on classes far from the truth costs more than mass on neighbouring classes.

    Parameters
    ----------
    %(params)s
    normalize : bool, default True
        Divide by K - 1 (range [0, 1]), the convention of Epstein (1969), the Galdran paper
        (Eq. 4) and yardstick. ``False`` gives the raw sum (range [0, K-1]), the convention of
        scoringrules, xskillscore and dlordinal.

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 1] (normalized), 0 for a perfect prediction; lower is better. Strictly proper,
    distance-sensitive, not local, not superior. For K = 2 it equals (p_1 - 1{y=1})^2, half the
    multiclass Brier score.

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023.

    Examples
    --------
    >>> from ordmetrics import rps
    >>> rps([0, 0], [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]], reduction="none")
    array([0.125, 0.25 ])
    >>> rps(["mild", "severe"], [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]],
    ...     labels=["mild", "moderate", "severe"])
    0.0675
    """
    return evaluate(
        RPS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=RPS.pack(normalize=normalize),
    )


RPS = ScoringRule(
    name="rps",
    func=rps,
    kernel=rps_kernel,
    formula=rps_formula,
    pack=_pack_normalize,
    range=(0.0, 1.0),
    properties=properties(True, True, False, True, False),
    description="Ranked Probability Score",
    range_note="normalize=False gives [0, K-1]",
    properties_by_k=K2_UNTIED,
    formula_text="(1/(K-1)) sum_{k<K} (F_k - H_k)^2",
)


# --------------------------------------------------------------------------------------------
# sa-RPS
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def sa_rps_row(f, i, yi, K, param):
    """((1/(K-1)) sum_{k<K-1} |F_k - H_k|)^2, sum, min, max."""
    base = i * K
    c = 0.0
    a = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - ONE):
        v = f[base + k]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        c += v
        a += abs(c - at_or_above(k, yi, K))
    v = f[base + K - ONE]
    lo = v if v < lo else lo
    hi = v if v > hi else hi
    a /= np.float64(K - ONE)
    return a * a, c + v, lo, hi, False


@njit(**JIT_OPTIONS)
def sa_rps_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, sa_rps_row, param, tol, out, rows, pen, parts, True)


def sa_rps_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The sa-RPS of every row with array-API operations."""
    a = xp.sum(xp.abs(_distance(xp, P, y)), axis=1) / (P.shape[1] - 1)
    return a * a


@fill_doc(params=PARAMS_TEMPLATE)
def sa_rps(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Squared-absolute Ranked Probability Score (sa-RPS) of Galdran.

    .. math::

        \mathrm{saRPS}(p, y) = \Big(\frac{1}{K-1} \sum_{k=1}^{K-1} |F_k - H_k|\Big)^2

    Like the RPS but with absolute differences summed before squaring, which penalises
    predictions spread asymmetrically around the truth less than the RPS does.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 1], 0 for a perfect prediction; lower is better.

    Convention: the paper's Eq. 7 prints 1/(K-1) outside the square, which contradicts its own
    statement that the score varies in [0, 1] (for K = 3 and all mass on the far class that
    reading gives 2). The normalisation is inside the square here, which keeps the stated range
    and the paper's worked examples.

    **sa-RPS is not a proper scoring rule.** With K = 3 and true distribution
    q = [0.4, 0.2, 0.4], reporting q scores 0.232 in expectation but the point mass [0, 1, 0]
    scores 0.2: the rule rewards a point mass on the median class over the honest forecast.
    Use it to rank samples (as the paper does), not to train or select models by it alone.
    It is distance-sensitive, not local and not superior.

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023,
       Eq. 7.

    Examples
    --------
    >>> from ordmetrics import sa_rps
    >>> sa_rps([1], [[0.45, 0.5, 0.05]])
    0.0625
    """
    return evaluate(
        SA_RPS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=SA_RPS.pack(),
    )


SA_RPS = ScoringRule(
    name="sa_rps",
    func=sa_rps,
    kernel=sa_rps_kernel,
    formula=sa_rps_formula,
    pack=_pack_nothing,
    range=(0.0, 1.0),
    properties=properties(False, False, False, True, False),
    description="squared-absolute RPS (not proper)",
    # for K = 2 the sa-RPS equals the RPS (one threshold): strictly proper there
    properties_by_k={2: {"proper": True, "strictly_proper": True, "superior_without_ties": True}},
    formula_text="((1/(K-1)) sum_{k<K} |F_k - H_k|)^2",
)


# --------------------------------------------------------------------------------------------
# CDF L1
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def cdf_l1_row(f, i, yi, K, param):
    """(1/(K-1)) sum_{k<K-1} |F_k - H_k| (the raw sum when ``param`` is 0), sum, min, max."""
    base = i * K
    c = 0.0
    a = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - ONE):
        v = f[base + k]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        c += v
        a += abs(c - at_or_above(k, yi, K))
    v = f[base + K - ONE]
    lo = v if v < lo else lo
    hi = v if v > hi else hi
    return a / (np.float64(K - ONE) if param != 0.0 else 1.0), c + v, lo, hi, False


@njit(**JIT_OPTIONS)
def cdf_l1_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, cdf_l1_row, param, tol, out, rows, pen, parts, True)


def cdf_l1_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The CDF L1 distance of every row with array-API operations."""
    a = xp.sum(xp.abs(_distance(xp, P, y)), axis=1)
    return a / (P.shape[1] - 1) if param != 0.0 else a


@fill_doc(params=PARAMS_TEMPLATE)
def cdf_l1(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    normalize: bool = True,
    renormalize: bool = False,
) -> Any:
    r"""Area between the predicted and the true cumulative distribution (L1 distance).

    .. math::

        \mathrm{CDF}_{L1}(p, y) = \frac{1}{K-1} \sum_{k=1}^{K-1} |F_k - H_k|,
        \qquad F_k = \sum_{j \le k} p_j,\quad H_k = 1\{y \le k\}

    The "sum of |F - H|" of the ordinal-measures survey: the earth mover's (Wasserstein-1)
    distance between p and the point mass on y in class steps, i.e. the expected absolute
    class error sum_k p_k |k - y|. The sa-RPS is its square: ``sa_rps = cdf_l1 ** 2``.

    Parameters
    ----------
    %(params)s
    normalize : bool, default True
        Divide by K - 1 (range [0, 1]), as :func:`rps` does. ``False`` gives the raw sum
        (range [0, K-1], the expected absolute error in class steps).

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 1] (normalized), 0 for a perfect prediction; lower is better.
    Distance-sensitive, not local, not superior.

    **Not proper.** The expected score is linear in every F_k, so it is minimised by the point
    mass on a median of the true distribution, not by the true distribution itself: for
    q = [0.4, 0.2, 0.4] reporting q expects 0.48, the point mass [0, 1, 0] 0.4. (For K = 2
    it is 1 - p_y, linear in p.) It measures the expected absolute error of the forecast
    distribution, not the quality of the probabilities; use :func:`rps` to train or select.

    References
    ----------
    .. [1] Cardoso, J. S., Sousa, R. (2011). Measuring the performance of ordinal
       classification. IJPRAI 25(8), 1173-1195.
    .. [2] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023
       (the sa-RPS, Eq. 7, is the square of this score).

    Examples
    --------
    >>> from ordmetrics import cdf_l1
    >>> cdf_l1([1], [[0.45, 0.5, 0.05]])
    0.25
    >>> cdf_l1([0], [[0.5, 0.0, 0.5]], normalize=False)
    1.0
    """
    return evaluate(
        CDF_L1,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=CDF_L1.pack(normalize=normalize),
    )


CDF_L1 = ScoringRule(
    name="cdf_l1",
    func=cdf_l1,
    kernel=cdf_l1_kernel,
    formula=cdf_l1_formula,
    pack=_pack_normalize,
    range=(0.0, 1.0),
    properties=properties(False, False, False, True, False),
    description="area between predicted and true CDFs (not proper)",
    range_note="normalize=False gives [0, K-1]",
    properties_by_k=K2_UNTIED,
    formula_text="(1/(K-1)) sum_{k<K} |F_k - H_k|",
)
