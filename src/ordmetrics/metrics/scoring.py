"""Scoring rules for probabilistic predictions of ordered (and unordered) classes.

Nine rules, each a per-sample score reduced by a weighted mean (lower is better):

=========== ==================================================== =========================
rule        per-sample score                                      range
=========== ==================================================== =========================
rps         (1/(K-1)) sum_{k<K} (F_k - H_k)^2                     [0, 1]
sa_rps      ((1/(K-1)) sum_{k<K} |F_k - H_k|)^2                   [0, 1]
brier       sum_k (p_k - 1{y=k})^2                                [0, 2]
log_loss    -ln p_y                                               [0, inf]
pbs         brier + (K-1)/K * m                                   [0, 2 + (K-1)/K]
pll         -ln p_y + ln(K) * m                                   [0, inf]
spherical   1 - p_y / ||p||_2                                     [0, 1]
pseudo-     1 - (p_y / ||p||_alpha)^(alpha-1), alpha > 1          [0, 1]
spherical
cdf_l1      (1/(K-1)) sum_{k<K} |F_k - H_k|                       [0, 1]
=========== ==================================================== =========================

F_k = p_1 + ... + p_k is the cumulative prediction, H_k = 1{y <= k} the cumulative truth, and
m = 1 when the arg-max decision (ties to the lowest class) differs from y (by default; see
:func:`pbs` for the authors' tie rule and scales).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ordmetrics._core import (
    array_api as _xp,  # array-API dispatch (PyTorch, JAX, CuPy); imports nothing optional
)
from ordmetrics._core import kernels as K
from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.registry import (
    Variant,
    register,
)
from ordmetrics._core.validation import (
    NAN_POLICIES,
    REDUCTIONS,
    as_proba,
    as_weights,
    check_flag,
    check_lengths,
    check_option,
    encode_labels,
    find_problems,
    sum_tolerance,
)

__all__ = [
    "brier",
    "cdf_l1",
    "log_loss",
    "pbs",
    "pll",
    "pseudospherical",
    "rps",
    "sa_rps",
    "spherical",
]

#: The parameters every rule shares, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
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
    # on their device (_core.array_api); a type test, so NumPy input goes on unchanged. ---------
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
    # exact power-of-two scaling: sums of weights and products w_i s_i stay finite and normal
    # whatever the scale (1e-320 or 1e308); a weighted sum is scaled back at the end
    w_given = as_weights(sample_weight, n)
    w, w_exp = scale_weights(w_given)
    y = enc.codes
    tol = sum_tolerance(P.dtype, k)
    rows = reduction == "none"

    if enc.missing is None:
        total, wsum, n_bad, out = _run(P, y, w, rule, param, tol, rows)
        if n_bad == 0 and (w is None or wsum > 0):
            return _reduce(total, wsum, out, reduction, w_exp)

    # Slow path: something is missing or wrong. Raise a precise error, or apply the policy.
    missing = find_problems(  # messages quote the weights as given
        y, P, w_given, y_missing=enc.missing, nan_policy=nan_policy, labels=enc.labels
    )
    if missing is None:  # pragma: no cover - the kernel and find_problems disagree
        raise RuntimeError("internal error: invalid input not identified; please report it")
    if nan_policy == "omit":
        keep = ~missing
        P, y = P[keep], y[keep]
        w, w_exp = scale_weights(None if w_given is None else w_given[keep])
        total, wsum, _, out = _run(P, y, w, rule, param, tol, rows)
        return _reduce(total, wsum, out, reduction, w_exp)
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
    total: float, wsum: float, out: np.ndarray | None, reduction: str, w_exp: int = 0
) -> float | np.ndarray:
    """The reduction; ``w_exp`` is the exponent the weights were scaled by (2^-w_exp)."""
    if reduction == "none":
        assert out is not None
        return out
    if reduction == "sum":
        with np.errstate(over="ignore"):  # a sum beyond the float range is inf
            return float(np.ldexp(total, w_exp))
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
        param=1.0 if check_flag(normalize, "normalize") else 0.0,
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


#: The tie rules of PBS and PLL.
TIES = ("argmax", "unpenalized")


def _penalty_code(ties: str, scale: str = "eq4") -> float:
    check_option(ties, "ties", TIES)
    check_option(scale, "scale", K.PBS_SCALES)
    return float((K.PBS_SCALES.index(scale) << 1) | (ties == "unpenalized"))


@fill_doc(params=_PARAMS_TEMPLATE)
def pbs(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    ties: str = "argmax",
    scale: str = "eq4",
    renormalize: bool = False,
) -> Any:
    r"""Penalized Brier Score (PBS) of Ahmadian, Ghatee and Wahlström, Eq. 4.

    .. math::

        \mathrm{PBS}(p, y) = \sum_{k=1}^{K} (p_k - 1\{y = k\})^2 + \frac{K-1}{K}\, m,
        \qquad m = 1\{\hat y(p) \ne y\},\quad \hat y(p) = \min \arg\max_k p_k

    A wrong prediction pays (K-1)/K on top of its Brier score, the largest Brier score a
    correct prediction can have, so every correct prediction scores better than every wrong
    one.

    Parameters
    ----------
    %(params)s
    ties : {"argmax", "unpenalized"}, default "argmax"
        When a prediction counts as wrong and pays the penalty. ``"argmax"``: whenever the
        arg-max decision (ties to the lowest class, exactly
        ``ordmetrics.decide(y_proba, "argmax")``) differs from y; this makes the rule strictly
        proper and superior. ``"unpenalized"``: only when some class is strictly more probable
        than the true class, the paper's Algorithm 1 (a forecast that ties its top classes
        escapes the penalty); the rule is then neither proper nor superior (see Notes).
    scale : {"eq4", "algorithm2", "authors_code"}, default "eq4"
        ``"eq4"``: the paper's Eq. 4 (above), the form its theorems are about.
        ``"algorithm2"``: the paper's Algorithm 2, the mean instead of the sum of the squared
        differences and the penalty (K-1)/K^2, i.e. Eq. 4 divided by K.
        ``"authors_code"``: the Brier term divided by K with the penalty (K-1)/K, as in the
        authors' published code (not in the paper's text). All three are strictly proper
        and superior with ``ties="argmax"``.

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 2 + (K-1)/K] (``"eq4"``; ``"algorithm2"``: [0, (2 + (K-1)/K)/K];
    ``"authors_code"``: [0, 2/K + (K-1)/K]), 0 for a perfect prediction; lower is better.
    Strictly proper and superior; not local, not distance-sensitive.

    Strictly proper: under a true distribution q, E PBS(p) = E Brier(p) + c (1 - q_{a(p)})
    with a(p) the arg-max decision and c the penalty. The first term is uniquely minimised at
    p = q, the second at every p whose decision is a most probable class of q, which p = q
    is; so p = q is the unique minimiser (also for tied q). Superior: a correct prediction
    has p_y >= 1/K and a Brier score at most (K-1)/K; a wrong one pays (K-1)/K plus a
    positive Brier score.

    **ties="unpenalized" is neither proper nor superior.** A forecast whose top classes tie
    never pays the penalty: for K = 2 and q = [8/11, 3/11] the expected PBS of p = q is 0.533
    but that of p = [0.5, 0.5] is 0.5; and [1/3, 1/3, 1/3] with y = 0 (correct by arg-max)
    scores 0.667 while [0.5, 0.5, 0] with y = 1 (wrong) scores 0.5.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Eq. 4, Algorithms 1-2.

    Examples
    --------
    >>> from ordmetrics import pbs
    >>> round(pbs([0], [[0.25, 0.75, 0.0]]), 9)
    1.791666667
    >>> pbs([0], [[0.5, 0.5, 0.0]])  # a tie decided for class 0 = y: no penalty
    0.5
    >>> round(pbs([1], [[0.5, 0.5, 0.0]]), 9)  # decided for class 0 != y
    1.166666667
    >>> pbs([1], [[0.5, 0.5, 0.0]], ties="unpenalized")  # the authors' rule: a tie escapes
    0.5
    >>> round(pbs([0], [[0.25, 0.75, 0.0]], scale="algorithm2"), 9)  # Eq. 4 / K
    0.597222222
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
        param=_penalty_code(ties, scale),
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
    ties: str = "argmax",
    renormalize: bool = False,
) -> Any:
    r"""Penalized Logarithmic Loss (PLL) of Ahmadian, Ghatee and Wahlström, Eq. 5.

    .. math::

        \mathrm{PLL}(p, y) = -\ln p_y + \ln(K)\, m,
        \qquad m = 1\{\hat y(p) \ne y\},\quad \hat y(p) = \min \arg\max_k p_k

    The penalty subtracts log(1/K), the largest log loss of a correct prediction, so every
    correct prediction scores better than every wrong one.

    Parameters
    ----------
    %(params)s
    ties : {"argmax", "unpenalized"}, default "argmax"
        When a prediction counts as wrong and pays the penalty. ``"argmax"``: whenever the
        arg-max decision (ties to the lowest class, exactly
        ``ordmetrics.decide(y_proba, "argmax")``) differs from y; this makes the rule strictly
        proper and superior. ``"unpenalized"``: only when some class is strictly more probable
        than the true class, the paper's Algorithm 1 (a forecast that ties its top classes
        escapes the penalty); the rule is then neither proper nor superior (see Notes).

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, inf], 0 for a perfect prediction; lower is better. Strictly proper and
    superior; not local (the penalty looks at the other classes), not distance-sensitive.
    Natural logarithm; a true class with probability 0 gives +inf.

    Strictly proper: E PLL(p) = E LL(p) + ln(K) (1 - q_{a(p)}), the first term uniquely
    minimised at p = q, the second at every p whose arg-max decision is a most probable class
    of q (p = q is one). Superior: a correct prediction has p_y >= 1/K, so -ln p_y <= ln K;
    a wrong one has p_y < 1 and scores more than ln K.

    **ties="unpenalized" is neither proper nor superior**: for K = 2 and q = [8/11, 3/11] the
    expected PLL of p = q is 0.775 but that of p = [0.5, 0.5] is ln 2 = 0.693.

    The paper offers one scale for PLL: its Algorithm 3 is Eq. 5 (read with the minus sign
    and the sum over classes that the printed pseudocode lacks), so there is no ``scale``.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Eq. 5, Algorithm 3.

    Examples
    --------
    >>> from ordmetrics import pll
    >>> round(pll([1], [[0.51, 0.49, 0.0]]), 9)
    1.811962177
    >>> round(pll([1], [[0.5, 0.5, 0.0]]), 9)  # a tie decided for class 0 != y
    1.791759469
    >>> round(pll([1], [[0.5, 0.5, 0.0]], ties="unpenalized"), 9)
    0.693147181
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
        param=_penalty_code(ties),
    )


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        raise TypeError(
            f"alpha must be a real number greater than 1, e.g. 2 (the spherical score); got "
            f"{type(alpha).__name__} {alpha!r}."
        )
    a = float(alpha)
    if not (1.0 < a < math.inf):
        raise ValueError(
            f"alpha must be a finite number greater than 1 (alpha = 2 is the spherical score); "
            f"got {alpha!r}."
        )
    return a


@fill_doc(params=_PARAMS_TEMPLATE)
def pseudospherical(
    y_true: Any,
    y_proba: Any,
    *,
    alpha: float = 2.0,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Pseudospherical score, as a loss: 1 - (p_y / ||p||_alpha)^(alpha - 1).

    .. math::

        \mathrm{PS}_\alpha(p, y) = 1 - \Big(\frac{p_y}{\|p\|_\alpha}\Big)^{\alpha - 1},
        \qquad \|p\|_\alpha = \Big(\sum_{k=1}^{K} p_k^\alpha\Big)^{1/\alpha}

    One minus the pseudospherical score of Good (1971) and Gneiting & Raftery (2007,
    Eq. 21), so that lower is better like every rule here; ``alpha = 2`` is the spherical
    score (:func:`spherical`).

    Parameters
    ----------
    %(params)s
    alpha : float, default 2
        The exponent, a finite number greater than 1.

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 1]: 0 exactly for the point mass on y, 1 exactly when p_y = 0 (the uniform
    forecast scores 1 - K^{(1-alpha)/alpha}, e.g. 1 - 1/sqrt(K) for alpha = 2). Lower is
    better. Strictly proper for every alpha > 1 (Gneiting & Raftery 2007, Sect. 3.4); not
    local, not distance-sensitive, not superior for K > 2 (for K = 2 superior on forecasts
    without a tie, as for Brier). Unlike the log loss it is bounded, so a true class of
    probability 0 costs 1, not infinity.

    References
    ----------
    .. [1] Good, I. J. (1971). Comment on "Measuring information and uncertainty" by R. J.
       Buehler. In Foundations of Statistical Inference, 337-339.
    .. [2] Gneiting, T., Raftery, A. E. (2007). Strictly proper scoring rules, prediction,
       and estimation. JASA 102(477), 359-378.

    Examples
    --------
    >>> from ordmetrics import pseudospherical
    >>> round(pseudospherical([0], [[0.6, 0.4, 0.0]], alpha=3), 9)  # 1 - 0.36 / 0.28^(2/3)
    0.158868663
    """
    return _evaluate(
        K.SPHERICAL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=_check_alpha(alpha),
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def spherical(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    reduction: str = "mean",
    renormalize: bool = False,
) -> Any:
    r"""Spherical score, as a loss: 1 - p_y / ||p||_2.

    .. math::

        \mathrm{SS}(p, y) = 1 - \frac{p_y}{\sqrt{\sum_{k=1}^{K} p_k^2}}

    One minus the spherical score (Roby 1965; Gneiting & Raftery 2007, Eq. 20), so that lower
    is better; the pseudospherical score with alpha = 2 (:func:`pseudospherical`). Named by
    Ahmadian et al. among the strictly proper alternatives to Brier and log loss.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float or ndarray
        The weighted mean (``reduction="mean"``), weighted sum, or per-sample scores.

    Notes
    -----
    Range [0, 1]: 0 exactly for the point mass on y, 1 exactly when p_y = 0; the uniform
    forecast scores 1 - 1/sqrt(K), the largest score of a correct prediction. Lower is
    better. Strictly proper; not local, not distance-sensitive (it sees the other classes
    only through ||p||_2), not superior for K > 2 (for K = 2 superior on forecasts without
    a tie).

    References
    ----------
    .. [1] Roby, T. B. (1965). Belief states and the uses of evidence. Behavioral Science
       10(3), 255-270.
    .. [2] Gneiting, T., Raftery, A. E. (2007). Strictly proper scoring rules, prediction,
       and estimation. JASA 102(477), 359-378.

    Examples
    --------
    >>> from ordmetrics import spherical
    >>> spherical([0, 2], [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]], reduction="none")  # 1 - 1/sqrt(2)
    array([0.29289322, 0.        ])
    """
    return _evaluate(
        K.SPHERICAL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=2.0,
    )


@fill_doc(params=_PARAMS_TEMPLATE)
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
    return _evaluate(
        K.CDF_L1,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=1.0 if check_flag(normalize, "normalize") else 0.0,
    )


# --------------------------------------------------------------------------------------------
# Registry entries (DEFINITIONS section 5)
# --------------------------------------------------------------------------------------------

_YES, _NO = True, False
_PROPS = ("proper", "strictly_proper", "local", "distance_sensitive", "superior")
#: For K = 2 a correct untied forecast has p_y > 1/2 and a wrong one p_y < 1/2: every rule
#: that decreases in p_y for K = 2 is superior on untied forecasts (the theorems that Brier
#: and log loss are not superior need K > 2). The exact tie [1/2, 1/2] is correct for y = 0
#: and wrong for y = 1 with the same score, so "superior" itself still fails for K = 2.
_K2_UNTIED = {2: {"superior_without_ties": True}}
#: For K = 2 the sa-RPS equals the RPS (one threshold): strictly proper there.
_K2_SA_RPS = {2: {"proper": True, "strictly_proper": True, "superior_without_ties": True}}
_NOT_ANY = dict.fromkeys(_PROPS, False)
_PENALIZED_UNPENALIZED = Variant(
    options={"ties": "unpenalized"},
    properties=_NOT_ANY,
    note="a forecast that ties its top classes escapes the penalty",
)
for _func, _props, _range, _desc, _note, _by_k, _variants in [
    (
        rps,
        (_YES, _YES, _NO, _YES, _NO),
        (0, 1),
        "Ranked Probability Score",
        "normalize=False gives [0, K-1]",
        _K2_UNTIED,
        {},
    ),
    (
        sa_rps,
        (_NO, _NO, _NO, _YES, _NO),
        (0, 1),
        "squared-absolute RPS (not proper)",
        "",
        _K2_SA_RPS,
        {},
    ),
    (brier, (_YES, _YES, _NO, _NO, _NO), (0, 2), "multiclass Brier score", "", _K2_UNTIED, {}),
    (
        log_loss,
        (_YES, _YES, _YES, _NO, _NO),
        (0, math.inf),
        "logarithmic loss",
        "",
        _K2_UNTIED,
        {},
    ),
    (
        pbs,
        (_YES, _YES, _NO, _NO, _YES),
        (0, 3),
        "Penalized Brier Score",
        "upper bound 2 + (K-1)/K",
        {},
        {
            "ties='unpenalized'": _PENALIZED_UNPENALIZED,
            "scale='algorithm2'": Variant(
                options={"scale": "algorithm2"},
                properties=dict(zip(_PROPS, (_YES, _YES, _NO, _NO, _YES), strict=True)),
                note="Eq. 4 divided by K",
            ),
            "scale='authors_code'": Variant(
                options={"scale": "authors_code"},
                properties=dict(zip(_PROPS, (_YES, _YES, _NO, _NO, _YES), strict=True)),
                note="the Brier term divided by K, the penalty (K-1)/K",
            ),
        },
    ),
    (
        pll,
        (_YES, _YES, _NO, _NO, _YES),
        (0, math.inf),
        "Penalized Logarithmic Loss",
        "",
        {},
        {"ties='unpenalized'": _PENALIZED_UNPENALIZED},
    ),
    (
        spherical,
        (_YES, _YES, _NO, _NO, _NO),
        (0, 1),
        "spherical score (loss form)",
        "",
        _K2_UNTIED,
        {},
    ),
    (
        cdf_l1,
        (_NO, _NO, _NO, _YES, _NO),
        (0, 1),
        "area between predicted and true CDFs (not proper)",
        "normalize=False gives [0, K-1]",
        _K2_UNTIED,
        {},
    ),
]:
    register(
        _func,
        direction="minimize",
        range=_range,
        kind="scoring_rule",
        properties=dict(zip(_PROPS, _props, strict=True)),
        perfect=0.0,
        description=_desc,
        range_note=_note,
        properties_by_k=_by_k,
        variants=_variants,
    )
