"""The quadratic rules: the multiclass Brier score and the Penalized Brier Score (PBS).

Each rule is defined once here (docs/definitions.md, section 5): its compiled row function and
kernel, its array-API formula, its options, its public function and its record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.jit import njit
from ordmetrics._core.kernels import (
    JIT_OPTIONS,
    PBS_UNPENALIZED,
    SELECT_MAX_K,
    ZERO,
    drive_rows,
)
from ordmetrics._core.registry import Variant
from ordmetrics._core.validation import check_option
from ordmetrics.metrics.scoring.base import (
    K2_UNTIED,
    PARAMS_TEMPLATE,
    UNPENALIZED_VARIANT,
    ScoringRule,
    class_indices,
    evaluate,
    properties,
    true_proba,
    wrong_decision,
)

__all__ = ["BRIER", "PBS", "PBS_SCALES", "TIES", "brier", "pbs"]

#: The tie rules of PBS and PLL.
TIES = ("argmax", "unpenalized")
#: The scales of PBS, packed into bits 1-2 of its ``param`` (bit 0: ``ties="unpenalized"``).
PBS_SCALES = ("eq4", "algorithm2", "authors_code")


def _squared_distance(xp: Any, P: Any, y: Any) -> Any:
    """sum_k (p_k - 1{y = k})^2 of every row."""
    cls = class_indices(xp, P, y)
    D = P - xp.astype(cls[None, :] == y[:, None], P.dtype)
    return xp.sum(D * D, axis=1)


# --------------------------------------------------------------------------------------------
# Brier
# --------------------------------------------------------------------------------------------


@njit(inline="always", **JIT_OPTIONS)
def brier_row(f, i, yi, K, param):
    """sum_k (p_k - 1{y = k})^2, sum, min, max."""
    base = i * K
    s = 0.0
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = f[base + k]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        t += v
        d = v - (1.0 if k == yi else 0.0)
        s += d * d
    return s, t, lo, hi, False


@njit(**JIT_OPTIONS)
def brier_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, brier_row, param, tol, out, rows, pen, parts, True)


def brier_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The Brier score of every row with array-API operations."""
    return _squared_distance(xp, P, y)


def _pack_nothing() -> float:
    return 0.0


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        BRIER,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=BRIER.pack(),
    )


BRIER = ScoringRule(
    name="brier",
    func=brier,
    kernel=brier_kernel,
    formula=brier_formula,
    pack=_pack_nothing,
    range=(0.0, 2.0),
    properties=properties(True, True, False, False, False),
    description="multiclass Brier score",
    properties_by_k=K2_UNTIED,
    formula_text="sum_k (p_k - 1{y=k})^2",
)


# --------------------------------------------------------------------------------------------
# PBS
# --------------------------------------------------------------------------------------------


def pack_penalty(ties: str = "argmax", scale: str = "eq4") -> float:
    """The options of PBS and PLL as ``param``: bit 0 ``ties="unpenalized"``, bits 1-2 the
    index of ``scale`` in :data:`PBS_SCALES` (PLL has only ``"eq4"``)."""
    check_option(ties, "ties", TIES)
    check_option(scale, "scale", PBS_SCALES)
    return float((PBS_SCALES.index(scale) << 1) | (ties == "unpenalized"))


def _pack_pbs(ties: str = "argmax", scale: str = "eq4") -> float:
    return pack_penalty(ties, scale)


@njit(inline="always", **JIT_OPTIONS)
def pbs_row(f, i, yi, K, param):
    """Brier + penalty (K-1)/K when the decision is wrong (scaled by ``param``), sum, min, max.

    One pass: the Brier terms, the row statistics, p_y and the arg-max decision (the first
    class of largest p_k), tracked with selects (see
    :func:`ordmetrics._core.kernels.row_stats_decision`).
    """
    base = i * K
    s = 0.0
    t = 0.0
    lo = 1.0
    hi = -1.0
    py = np.float64(f[base + yi]) if K > SELECT_MAX_K else 0.0
    top = ZERO
    for k in range(K):
        v = f[base + k]
        lo = v if v < lo else lo
        top = k if v > hi else top
        hi = v if v > hi else hi
        py = v if (k == yi) & (K <= SELECT_MAX_K) else py
        t += v
        d = v - (1.0 if k == yi else 0.0)
        s += d * d
    code = int(param)
    scale = code >> 1
    kf = np.float64(K)
    pen = (kf - 1.0) / kf
    if scale != 0:  # Algorithm 2 and the authors' code: the Brier term over K
        s /= kf
    if scale == 1:  # Algorithm 2: the penalty over K as well
        pen /= kf
    # the decision is wrong: a class beats p_y, or (arg-max rule) an earlier class ties it
    m = (hi > py) | ((top != yi) & ((code & PBS_UNPENALIZED) == 0))
    return s + pen * m, t, lo, hi, False


@njit(**JIT_OPTIONS)
def pbs_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
    return drive_rows(P, y, w, ws, pbs_row, param, tol, out, rows, pen, parts, False)


def pbs_formula(xp: Any, P: Any, y: Any, param: float) -> Any:
    """The PBS of every row with array-API operations."""
    k = P.shape[1]
    s = _squared_distance(xp, P, y)
    scale = int(param) >> 1
    pen = (k - 1) / k
    if scale != 0:  # Algorithm 2 and the authors' code: the Brier term over K
        s = s / k
    if scale == 1:  # Algorithm 2: the penalty over K as well
        pen = pen / k
    m = wrong_decision(xp, P, y, true_proba(xp, P, y), param)
    return s + xp.astype(m, P.dtype) * pen


@fill_doc(params=PARAMS_TEMPLATE)
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
    return evaluate(
        PBS,
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        reduction=reduction,
        renormalize=renormalize,
        param=PBS.pack(ties=ties, scale=scale),
    )


_PBS_PROPERTIES = properties(True, True, False, False, True)

PBS = ScoringRule(
    name="pbs",
    func=pbs,
    kernel=pbs_kernel,
    formula=pbs_formula,
    pack=_pack_pbs,
    range=(0.0, 3.0),
    properties=_PBS_PROPERTIES,
    description="Penalized Brier Score",
    range_note="upper bound 2 + (K-1)/K",
    variants={
        "ties='unpenalized'": UNPENALIZED_VARIANT,
        "scale='algorithm2'": Variant(
            options={"scale": "algorithm2"},
            properties=_PBS_PROPERTIES,
            note="Eq. 4 divided by K",
        ),
        "scale='authors_code'": Variant(
            options={"scale": "authors_code"},
            properties=_PBS_PROPERTIES,
            note="the Brier term divided by K, the penalty (K-1)/K",
        ),
    },
    formula_text="brier + ((K-1)/K) m",
    range_text="[0, 2 + (K-1)/K]",
)
