"""The logarithmic rules: the log loss and the Penalized Logarithmic Loss (PLL).

Each rule is defined once here (docs/definitions.md, section 5): its compiled row function and
kernel, its array-API formula, its options, its public function and its record. The kernels of
these rules give p_y; the logarithm is taken afterwards, vectorised
(:func:`ordmetrics._core.kernels.finish_log_rule`), hence ``log_form=True``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.jit import njit
from ordmetrics._core.kernels import (
    JIT_OPTIONS,
    drive_rows,
    row_stats_decision,
)
from ordmetrics.metrics.scoring.base import (
    K2_UNTIED,
    PARAMS_TEMPLATE,
    UNPENALIZED_VARIANT,
    ScoringRule,
    evaluate,
    properties,
    true_proba,
    wrong_decision,
)
from ordmetrics.metrics.scoring.brier import pack_penalty

__all__ = ["LOG_LOSS", "PLL", "log_loss", "pll"]


# --------------------------------------------------------------------------------------------
# Log loss
# --------------------------------------------------------------------------------------------


def _pack_eps(eps: float | None = None) -> float:
    """``eps`` as ``param``: 0.0 (no clipping) or the clipping bound in (0, 0.5)."""
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


@njit(inline="always", **JIT_OPTIONS)
def log_loss_row(f, i, yi, K, param):
    """p_y, clipped to [eps, 1 - eps] when ``param`` = eps > 0, sum, min, max."""
    t, lo, hi, py, _ = row_stats_decision(f, i, yi, K, 0.0)
    if param > 0.0:  # selects, as min and max would keep the rows off vector instructions
        py = param if py < param else py
        py = 1.0 - param if py > 1.0 - param else py
    return py, t, lo, hi, False


@njit(**JIT_OPTIONS)
def log_loss_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, log_loss_row, param, tol, out, rows, pen, parts, True)


def log_loss_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The log loss of every row with array-API operations."""
    py = true_proba(xp, P, y)
    pc = xp.clip(py, param, 1.0 - param) if param > 0.0 else py
    with np.errstate(divide="ignore"):  # ln 0 = -inf is intended (NumPy-backed libraries warn)
        return 0.0 - xp.log(pc)  # never -0.0 (unlike -ln 1)


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        LOG_LOSS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=LOG_LOSS.pack(eps=eps),
    )


LOG_LOSS = ScoringRule(
    name="log_loss",
    func=log_loss,
    kernel=log_loss_kernel,
    formula=log_loss_formula,
    pack=_pack_eps,
    log_form=True,
    range=(0.0, math.inf),
    properties=properties(True, True, True, False, False),
    description="logarithmic loss",
    properties_by_k=K2_UNTIED,
    formula_text="-ln p_y",
)


# --------------------------------------------------------------------------------------------
# PLL
# --------------------------------------------------------------------------------------------


def _pack_pll(ties: str = "argmax") -> float:
    return pack_penalty(ties)


@njit(inline="always", **JIT_OPTIONS)
def pll_row(f, i, yi, K, param):
    """p_y, sum, min, max, and whether the decision is wrong (the driver writes the penalty
    ln(K) m: ``penalty=True``)."""
    t, lo, hi, py, m = row_stats_decision(f, i, yi, K, param)
    return py, t, lo, hi, m


@njit(**JIT_OPTIONS)
def pll_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, pll_row, param, tol, out, rows, pen, parts, False)


def pll_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The PLL of every row with array-API operations."""
    py = true_proba(xp, P, y)
    pen = xp.astype(wrong_decision(xp, P, y, py, param), P.dtype) * math.log(P.shape[1])
    with np.errstate(divide="ignore"):  # ln 0 = -inf is intended (NumPy-backed libraries warn)
        return pen - xp.log(py)


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        PLL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=PLL.pack(ties=ties),
    )


PLL = ScoringRule(
    name="pll",
    func=pll,
    kernel=pll_kernel,
    formula=pll_formula,
    pack=_pack_pll,
    log_form=True,
    penalty=True,
    range=(0.0, math.inf),
    properties=properties(True, True, False, False, True),
    description="Penalized Logarithmic Loss",
    variants={"ties='unpenalized'": UNPENALIZED_VARIANT},
    formula_text="-ln p_y + ln(K) m",
)
