"""Scoring rules for probabilistic predictions of ordered (and unordered) classes.

Six rules, each a per-sample score reduced by a weighted mean (lower is better):

=========== ==================================================== =========================
rule        per-sample score                                      range
=========== ==================================================== =========================
rps         (1/(K-1)) sum_{k<K} (F_k - H_k)^2                     [0, 1]
sa_rps      ((1/(K-1)) sum_{k<K} |F_k - H_k|)^2                   [0, 1]
brier       sum_k (p_k - 1{y=k})^2                                [0, 2]
log_loss    -ln p_y                                               [0, inf]
pbs         brier + (K-1)/K * m                                   [0, 2 + (K-1)/K]
pll         -ln p_y + ln(K) * m                                   [0, inf]
=========== ==================================================== =========================

F_k = p_1 + ... + p_k is the cumulative prediction, H_k = 1{y <= k} the cumulative truth, and
m = 1 when some class has a probability strictly greater than the true class's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _kernels as K
from . import _xp  # array-API dispatch (PyTorch, JAX, CuPy); imports nothing optional
from ._docs import fill_doc
from ._registry import register
from ._validation import (
    NAN_POLICIES,
    REDUCTIONS,
    as_proba,
    as_weights,
    check_lengths,
    check_option,
    encode_labels,
    find_problems,
    sum_tolerance,
)

__all__ = ["brier", "log_loss", "pbs", "pll", "rps", "sa_rps"]

#: The parameters every rule shares, filled in by :func:`~ordmetrics._docs.fill_doc`.
_PARAMS_TEMPLATE = """\
    %(y_true)s
    %(y_proba)s
    %(labels)s
    %(sample_weight)s
        Even an infinite score of such a row does not count.
    %(nan_policy)s
        With ``reduction="none"``, ``"omit"`` leaves those rows out of the output too and
        ``"propagate"`` gives NaN in those rows only.
    reduction : {"mean", "sum", "none"}, default "mean"
        ``"mean"``: the weighted mean as a Python float; ``"sum"``: the weighted sum;
        ``"none"``: the per-sample scores as a 1-D float64 array in row order (weights unused).
    %(renormalize)s"""


def _run(
    P: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    rule: int,
    param: float,
    tol: float,
    rows: bool,
) -> tuple[float, float, int, np.ndarray | None]:
    return K.score_rows(P, y, w, rule, param, tol, rows)


def _evaluate(
    rule: int,
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    reduction: str,
    renormalize: bool,
    param: float = 0.0,
) -> float | np.ndarray:
    """Validate the inputs, run the kernel of ``rule`` and reduce: the path of every rule."""
    # ---- array-API dispatch: arrays of PyTorch, JAX, CuPy, ... are scored in their own library
    # on their device (ordmetrics._xp); a type test, so NumPy input goes on unchanged. ---------
    if _xp.is_device_array(y_proba):
        return _xp.evaluate(
            rule,
            y_true,
            y_proba,
            labels=labels,
            sample_weight=sample_weight,
            nan_policy=nan_policy,
            reduction=reduction,
            renormalize=renormalize,
            param=param,
        )
    # ---- end of array-API dispatch -------------------------------------------------------------
    check_option(reduction, "reduction", REDUCTIONS)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    P = as_proba(y_proba, renormalize=renormalize)
    n, k = P.shape
    enc = encode_labels(y_true, labels=labels, n_classes=k)
    check_lengths(enc.codes.size, n)
    w = as_weights(sample_weight, n)
    y = enc.codes
    tol = sum_tolerance(P.dtype, k)
    rows = reduction == "none"

    if enc.missing is None:
        total, wsum, n_bad, out = _run(P, y, w, rule, param, tol, rows)
        if n_bad == 0 and (w is None or wsum > 0):
            return _reduce(total, wsum, out, reduction)

    # Slow path: something is missing or wrong. Raise a precise error, or apply the policy.
    missing = find_problems(
        y, P, w, y_missing=enc.missing, nan_policy=nan_policy, labels=enc.labels
    )
    if missing is None:  # pragma: no cover - the kernel and find_problems disagree
        raise RuntimeError("internal error: invalid input not identified; please report it")
    if nan_policy == "omit":
        keep = ~missing
        P, y = P[keep], y[keep]
        w = None if w is None else w[keep]
        total, wsum, _, out = _run(P, y, w, rule, param, tol, rows)
        return _reduce(total, wsum, out, reduction)
    # propagate
    if not rows:
        return math.nan
    P = P.copy()
    P[missing] = 1.0 / k
    y = np.where(missing, 0, y)
    _, _, _, out = _run(P, y, None, rule, param, tol, True)
    assert out is not None
    out[missing] = np.nan
    return out


def _reduce(
    total: float, wsum: float, out: np.ndarray | None, reduction: str
) -> float | np.ndarray:
    if reduction == "none":
        assert out is not None
        return out
    if reduction == "sum":
        return float(total)
    return float(total / wsum)


# --------------------------------------------------------------------------------------------
# Public rules
# --------------------------------------------------------------------------------------------


@fill_doc(params=_PARAMS_TEMPLATE)
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
    return _evaluate(
        K.RPS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=1.0 if normalize else 0.0,
    )


@fill_doc(params=_PARAMS_TEMPLATE)
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
    return _evaluate(
        K.SA_RPS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def brier(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Multiclass Brier score.

    .. math::

        \mathrm{BS}(p, y) = \sum_{k=1}^{K} (p_k - 1\{y = k\})^2

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 2], 0 for a perfect prediction; lower is better. Strictly proper, not local,
    not distance-sensitive (moving mass from a wrong class to one farther from the truth can
    leave it unchanged, e.g. [0.5, 0.5, 0] and [0.5, 0, 0.5] for y = 0, or even lower it), not
    superior.

    Convention: the sum over classes, as in scikit-learn's multiclass ``brier_score_loss``
    and Brier (1950). yardstick halves it (range [0, 1]); the superior-scoring-rules code
    averages it over the K classes (divide by K to convert).

    References
    ----------
    .. [1] Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
       Monthly Weather Review 78(1), 1-3.

    Examples
    --------
    >>> from ordmetrics import brier
    >>> brier([1, 0], [[0.3, 0.4, 0.3], [0.5, 0.5, 0.0]])
    0.52
    """
    return _evaluate(
        K.BRIER,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
    )


def _check_eps(eps: float | None) -> float:
    if eps is None:
        return 0.0
    if (
        isinstance(eps, bool)
        or not isinstance(eps, int | float | np.floating)
        or not (0.0 < eps < 0.5)
    ):
        raise ValueError(
            f"eps must be None (no clipping) or a number in (0, 0.5), e.g. 1e-15; got {eps!r}."
        )
    return float(eps)


@fill_doc(params=_PARAMS_TEMPLATE)
def log_loss(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    eps: float | None = None,
    renormalize: bool = False,
) -> Any:
    r"""Logarithmic loss (ignorance score, negative log-likelihood), natural logarithm.

    .. math::

        \mathrm{LL}(p, y) = -\ln p_y

    Parameters
    ----------
    %(params)s
    eps : float, optional
        If given, clip p_y to [eps, 1 - eps] before taking the logarithm. By default nothing
        is clipped and a true class with probability 0 gives +inf: a wrong number is never
        produced silently.

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, inf], 0 for a perfect prediction; lower is better. Strictly proper and local
    (it depends only on p_y); not distance-sensitive, not superior. The superior-scoring-rules
    README tables use log base 10 (divide by ln 10 = 2.302585 to convert).

    References
    ----------
    .. [1] Good, I. J. (1952). Rational decisions. Journal of the Royal Statistical Society B
       14(1), 107-114.

    Examples
    --------
    >>> from ordmetrics import log_loss
    >>> round(log_loss([1], [[0.3, 0.4, 0.3]]), 9)
    0.916290732
    >>> log_loss([2], [[0.5, 0.5, 0.0]])
    inf
    """
    return _evaluate(
        K.LOG_LOSS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=_check_eps(eps),
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def pbs(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Penalized Brier Score (PBS) of Ahmadian, Ghatee and Wahlström, Eq. 4.

    .. math::

        \mathrm{PBS}(p, y) = \sum_{k=1}^{K} (p_k - 1\{y = k\})^2 + \frac{K-1}{K}\, m,
        \qquad m = 1\{\exists k: p_k > p_y\}

    A wrong prediction (some class strictly more probable than the true one; ties are not
    penalized) pays (K-1)/K on top of its Brier score, the largest Brier score a correct
    prediction can have, so every correct prediction scores better than every wrong one.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 2 + (K-1)/K], 0 for a perfect prediction; lower is better. Superior; not local,
    not distance-sensitive.

    **Not proper as such, because ties are not penalized.** A forecast whose top classes tie
    exactly never pays the penalty, so it can beat the honest forecast: for K = 2 and true
    distribution q = [8/11, 3/11] the expected PBS of p = q is 0.533 but that of
    p = [0.5, 0.5] is 0.5. Against forecasts with a unique most probable class the rule is
    strictly proper (for every q), which the property-based tests verify; the registry
    declares ``proper=False`` because the guarantee does not cover every forecast.

    Convention: Eq. 4 of the paper, the form its theorems are proved for. Conversions:

    * the paper's Algorithm 2 divides the Brier term by K and uses the penalty (K-1)/K^2,
      i.e. Eq. 4 divided by K: ``pbs(...) / K``;
    * the authors' published code divides the Brier term by K but keeps the penalty (K-1)/K:
      ``brier(...) / K + (pbs(...) - brier(...))`` (per sample, or with means).

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Eq. 4.

    Examples
    --------
    >>> from ordmetrics import pbs
    >>> round(pbs([0], [[0.25, 0.75, 0.0]]), 9)
    1.791666667
    >>> pbs([0], [[0.5, 0.5, 0.0]])  # a tie is not penalized
    0.5
    """
    return _evaluate(
        K.PBS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def pll(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Penalized Logarithmic Loss (PLL) of Ahmadian, Ghatee and Wahlström, Eq. 5.

    .. math::

        \mathrm{PLL}(p, y) = -\ln p_y + \ln(K)\, m,
        \qquad m = 1\{\exists k: p_k > p_y\}

    The penalty subtracts log(1/K), the largest log loss of a correct prediction, so every
    correct prediction scores better than every wrong one.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, inf], 0 for a perfect prediction; lower is better. Superior; not local (the
    penalty looks at the other classes), not distance-sensitive. Natural logarithm; a true
    class with probability 0 gives +inf.

    **Not proper as such, because ties are not penalized.** A forecast whose top classes tie
    exactly never pays the penalty, so it can beat the honest forecast: for K = 2 and true
    distribution q = [8/11, 3/11] the expected PLL of p = q is 0.775 but that of
    p = [0.5, 0.5] is ln 2 = 0.693. Against forecasts with a unique most probable class the rule is
    strictly proper (for every q), which the property-based tests verify; the registry
    declares ``proper=False`` because the guarantee does not cover every forecast.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Eq. 5.

    Examples
    --------
    >>> from ordmetrics import pll
    >>> round(pll([1], [[0.51, 0.49, 0.0]]), 9)
    1.811962177
    """
    return _evaluate(
        K.PLL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
    )


# --------------------------------------------------------------------------------------------
# Registry entries (DEFINITIONS section 5)
# --------------------------------------------------------------------------------------------

_YES, _NO = True, False
for _func, _props, _range, _desc, _note in [
    (
        rps,
        (_YES, _YES, _NO, _YES, _NO),
        (0, 1),
        "Ranked Probability Score",
        "normalize=False gives [0, K-1]",
    ),
    (sa_rps, (_NO, _NO, _NO, _YES, _NO), (0, 1), "squared-absolute RPS (not proper)", ""),
    (brier, (_YES, _YES, _NO, _NO, _NO), (0, 2), "multiclass Brier score", ""),
    (log_loss, (_YES, _YES, _YES, _NO, _NO), (0, math.inf), "logarithmic loss", ""),
    (pbs, (_NO, _NO, _NO, _NO, _YES), (0, 3), "Penalized Brier Score", "upper bound 2 + (K-1)/K"),
    (pll, (_NO, _NO, _NO, _NO, _YES), (0, math.inf), "Penalized Logarithmic Loss", ""),
]:
    register(
        _func,
        direction="minimize",
        range=_range,
        kind="scoring_rule",
        properties=dict(
            zip(
                ("proper", "strictly_proper", "local", "distance_sensitive", "superior"),
                _props,
                strict=True,
            )
        ),
        perfect=0.0,
        description=_desc,
        range_note=_note,
    )
