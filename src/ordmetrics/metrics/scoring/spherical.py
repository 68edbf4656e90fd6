"""The spherical and pseudospherical scores, as losses.

Defined once here (docs/definitions.md, section 5): the compiled row function and kernel, the
array-API formula, the option ``alpha``, the public functions and the record (registered as
``spherical``; :func:`pseudospherical` is the same rule with another ``alpha``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.jit import njit
from ordmetrics._core.kernels import JIT_OPTIONS, SELECT_MAX_K, drive_rows
from ordmetrics.metrics.scoring.base import (
    K2_UNTIED,
    PARAMS_TEMPLATE,
    ScoringRule,
    evaluate,
    properties,
    true_proba,
)

__all__ = ["SPHERICAL", "pseudospherical", "spherical"]


def _pack_alpha(alpha: Any = 2.0) -> float:
    """``alpha`` as ``param``: a finite number greater than 1."""
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


@njit(inline="always", **JIT_OPTIONS)
def spherical2_row(f, i, yi, K, param):
    """1 - p_y / ||p||_2 (alpha = 2), sum, min, max.

    No rescaling (sum_k p_k^2 >= 1/K for a valid row, and a square below the smallest normal
    number changes the sum by less than its last bit): one pass, no division per entry.
    """
    base = i * K
    t = 0.0
    lo = 1.0
    hi = 0.0
    a = 0.0
    py = np.float64(f[base + yi]) if K > SELECT_MAX_K else 0.0
    for k in range(K):
        v = np.float64(f[base + k])
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        py = v if (k == yi) & (K <= SELECT_MAX_K) else py
        t += v
        a += v * v
    ratio = py / np.sqrt(a) if a > 0.0 else 0.0
    return 1.0 - (1.0 if ratio > 1.0 else ratio), t, lo, hi, False


@njit(inline="always", **JIT_OPTIONS)
def spherical_row(f, i, yi, K, param):
    """1 - (p_y / ||p||_alpha)^(alpha - 1), ``param`` = alpha (not 2), sum, min, max.

    The norm is taken of p / max_k p_k, whose largest entry is 1: sum_k (p_k / max)^alpha is
    in [1, K] and never underflows, whatever alpha (p_k^alpha itself would for alpha ~ 1000).
    """
    alpha = param
    base = i * K
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = np.float64(f[base + k])
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        t += v
    top = hi if hi > 0.0 else 1.0  # a row of zeros is invalid; never used
    a = 0.0
    for k in range(K):
        x = np.float64(f[base + k]) / top
        a += x**alpha
    ratio = np.float64(f[base + yi]) / top / a ** (1.0 / alpha)
    return 1.0 - (1.0 if ratio > 1.0 else ratio) ** (alpha - 1.0), t, lo, hi, False


@njit(**JIT_OPTIONS)
def spherical_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    if param == 2.0:  # a loop of its own: no power in it, the rows run on vector instructions
        return drive_rows(P, y, w, ws, spherical2_row, param, tol, out, rows, pen, parts, True)
    return drive_rows(P, y, w, ws, spherical_row, param, tol, out, rows, pen, parts, True)


def spherical_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """1 - (p_y / ||p||_alpha)^(alpha - 1) of every row (``param`` = alpha); for alpha != 2,
    p scaled by its max (as the kernel's row function)."""
    if param == 2.0:
        ratio = true_proba(xp, P, y) / xp.sqrt(xp.sum(P * P, axis=1))
        return 1.0 - xp.clip(ratio, 0.0, 1.0)
    hi = xp.max(P, axis=1)
    top = xp.where(hi > 0.0, hi, xp.ones_like(hi))[:, None]
    X = P / top
    py = true_proba(xp, X, y)
    ratio = py / xp.sum(X**param, axis=1) ** (1.0 / param)
    return 1.0 - xp.clip(ratio, 0.0, 1.0) ** (param - 1.0)


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        SPHERICAL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=SPHERICAL.pack(alpha=alpha),
    )


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        SPHERICAL,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=SPHERICAL.pack(),
    )


SPHERICAL = ScoringRule(
    name="spherical",
    func=spherical,
    kernel=spherical_kernel,
    formula=spherical_formula,
    pack=_pack_alpha,
    range=(0.0, 1.0),
    properties=properties(True, True, False, False, False),
    description="spherical score (loss form)",
    properties_by_k=K2_UNTIED,
    formula_text="1 - p_y / ||p||_2",
)
