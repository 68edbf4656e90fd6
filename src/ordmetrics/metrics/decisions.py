"""Decision rules: turn each row of class probabilities into one class.

Four rules (docs/definitions.md, section 2), with F_k = p_1 + ... + p_k the cumulative prediction:

=========== ===================================================== ===========================
rule        decision                                              optimal for
=========== ===================================================== ===========================
argmax      the most probable class (ties: the lowest)            zero-one cost (accuracy)
median      the smallest k with F_k >= 1/2                        absolute cost (MAE)
expected    sum_k k p_k rounded to the nearest class, halves up   (a point forecast)
min_cost    argmin_k sum_j p_j C[j, k] (ties: the lowest)         the cost matrix C
=========== ===================================================== ===========================

This module also validates cost and weight matrices (``C[true, predicted]``), which the
hard-label metrics of :mod:`ordmetrics.metrics.agreement` share.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import TIE_TOLERANCE
from ordmetrics._core.parallel import parallel_slot
from ordmetrics._core.validation import (
    as_proba,
    check_labels,
    check_option,
    find_problems,
    fmt_rows,
    proba_looks_valid,
    real_input,
    sum_tolerance,
    type_name,
)
from ordmetrics.metrics.decision_kernels import (
    COST_ABSOLUTE,
    COST_GENERAL,
    COST_SQUARED,
    COST_ZERO_ONE,
    KERNELS,
    SCREEN_FRACTION,
)
from ordmetrics.metrics.decision_matrix import decide_general

__all__ = ["decide"]

RULES = ("argmax", "median", "expected", "min_cost")
COSTS = ("absolute", "squared", "zero_one")

#: Tolerance of the comparisons ``F_k >= 1/2`` and of the ties of ``expected`` and
#: ``min_cost`` for float64 input (see :func:`decision_tolerance`): the tie tolerance every
#: comparison of computed values uses (:data:`ordmetrics._core.numerics.TIE_TOLERANCE`).
DECISION_TOLERANCE = TIE_TOLERANCE


def decision_tolerance(dtype: np.dtype, n_classes: int) -> float:
    """1e-12 for float64 input, widened to ``4 K eps`` for float32 input.

    A row that sums to 1 in decimal sums to 1 only up to rounding in binary floating point:
    ``[0.03, 0.29, 0.18, 0.5]`` has F_2 = 0.5 in decimal but ``0.03 + 0.29 + 0.18 =
    0.49999999999999994`` in float64, so without a tolerance its median would be class 3
    instead of class 2. (Two decimal terms are not enough to show it: ``0.3 + 0.2`` rounds to
    exactly 0.5.) The rounding error of a cumulative sum of K float64 values is at most about
    K * 1.1e-16, far below 1e-12 for any practical K, and a genuine probability within 1e-12
    of a decision boundary carries no information about which side it is on.
    """
    return max(DECISION_TOLERANCE, 4.0 * n_classes * float(np.finfo(dtype).eps))


# --------------------------------------------------------------------------------------------
# Cost and weight matrices, shared with the agreement metrics
# --------------------------------------------------------------------------------------------


def builtin_matrix(name: str, n_classes: int) -> np.ndarray:
    """A built-in K x K matrix, rows the true class i and columns the predicted class j.

    ``"absolute"`` |i-j|, ``"squared"`` (i-j)^2, ``"zero_one"`` 1{i != j}, and the kappa
    weights ``"linear"`` |i-j|/(K-1) and ``"quadratic"`` (i-j)^2/(K-1)^2.
    """
    i = np.arange(n_classes, dtype=np.float64)
    d = i[:, None] - i[None, :]
    if name == "absolute":
        return np.abs(d)
    if name == "squared":
        return d * d
    if name == "linear":
        return np.abs(d) / (n_classes - 1)
    if name == "quadratic":
        return d * d / float((n_classes - 1) ** 2)
    if name == "zero_one":
        return (d != 0).astype(np.float64)
    raise ValueError(f"unknown built-in matrix {name!r}")  # pragma: no cover - checked before


def check_matrix(
    value: Any,
    n_classes: int,
    *,
    name: str,
    options: tuple[str, ...],
    what: str,
    classes_from: str,
    negative_hint: str = "",
) -> np.ndarray:
    """Validate a K x K matrix of non-negative finite numbers (rows: true class), or a name.

    Strings must be in ``options`` (checked by :func:`~ordmetrics._core.validation.check_option`)
    and give :func:`builtin_matrix`; anything else must convert to a float array of shape
    ``(K, K)``. ``what`` says what an entry means, ``classes_from`` where K comes from, and
    ``negative_hint`` how to avoid negative entries; all three go into the messages.
    """
    allowed = ", ".join(repr(o) for o in options)
    if isinstance(value, str):
        return builtin_matrix(check_option(value, name, options), n_classes)
    value = real_input(value, name)  # no text, no complex numbers
    try:
        m = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be one of {allowed} or a {n_classes} x {n_classes} matrix of numbers "
            f"({what}); got {type_name(value)} that could not be converted to float."
        ) from None
    if m.shape != (n_classes, n_classes):
        raise ValueError(
            f"{name} must be a {n_classes} x {n_classes} matrix, one row and one column per "
            f"class ({what}); got shape {m.shape}. There are {n_classes} classes "
            f"({classes_from})."
        )
    bad = ~np.isfinite(m)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must hold finite numbers; got {float(m[i, j])!r} at [{i}, {j}].")
    neg = m < 0
    if neg.any():
        i, j = np.argwhere(neg)[0]
        raise ValueError(
            f"{name} must be non-negative ({what}); got {float(m[i, j])!r} at [{i}, {j}]."
            + (f" {negative_hint}" if negative_hint else "")
        )
    return m


# --------------------------------------------------------------------------------------------
# Decisions
# --------------------------------------------------------------------------------------------


def _check_proba(P: np.ndarray) -> None:
    """Raise for NaN, values outside [0, 1] or rows not summing to 1 (the scoring rules' rules).

    A cheap screen (minimum, maximum, row sums) passes valid input; only when it fails does
    :func:`~ordmetrics._core.validation.find_problems` look at the rows again to explain.
    """
    if proba_looks_valid(P):
        return
    n = P.shape[0]
    nan_rows = np.isnan(P).any(axis=1)
    if nan_rows.any():
        raise ValueError(
            f"y_proba has NaN in {fmt_rows(np.flatnonzero(nan_rows))}; a decision needs a "
            "complete probability row. Drop those rows first (e.g. P[~np.isnan(P).any(axis=1)])."
        )
    find_problems(
        np.zeros(n, dtype=np.int64), P, None, y_missing=None, nan_policy="raise", labels=None
    )


def _check_costs(costs: Any, n_classes: int) -> np.ndarray:
    """The cost matrix of ``rule="min_cost"`` (absolute costs when ``costs`` is None)."""
    return check_matrix(
        "absolute" if costs is None else costs,
        n_classes,
        name="costs",
        options=COSTS,
        what="C[true, predicted]",
        classes_from="the columns of y_proba",
        negative_hint="Adding one constant to every entry makes it non-negative and changes "
        "no decision.",
    )


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "str"
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | np.integer):
        return "int"
    if isinstance(value, float | np.floating):
        return "float"
    return "other"


def label_array(labels: tuple[Hashable, ...]) -> np.ndarray:
    """The labels as a NumPy array: their own dtype when they share one kind, else object."""
    kinds = {_kind(v) for v in labels}
    if len(kinds) == 1 and kinds != {"other"}:
        arr = np.asarray(labels)
        if arr.ndim == 1 and arr.dtype != object:
            return arr
    out = np.empty(len(labels), dtype=object)
    out[:] = list(labels)
    return out


def _cost_kind(C: np.ndarray) -> int:
    """The structure of ``C`` with an O(K) expected-cost formula, or ``COST_GENERAL``."""
    k = C.shape[0]
    for name, kind in (
        ("absolute", COST_ABSOLUTE),
        ("squared", COST_SQUARED),
        ("zero_one", COST_ZERO_ONE),
    ):
        if np.array_equal(C, builtin_matrix(name, k)):
            return kind
    return COST_GENERAL


def _kernel(rule: str | tuple[str, int], parallel: bool) -> Any:
    """The parallel kernel of ``rule`` (``("min_cost", cost kind)`` for ``min_cost``), or its
    serial twin (same decisions)."""
    kernel = KERNELS[rule]
    return kernel if parallel else kernel.serial


@fill_doc()
def decide(
    y_proba: Any,
    rule: str = "argmax",
    *,
    costs: Any = None,
    labels: Any = None,
    renormalize: bool = False,
) -> np.ndarray:
    r"""Turn probabilistic predictions into one class per row.

    .. math::

        \text{argmax: } \hat y = \arg\max_k p_k, \qquad
        \text{median: } \hat y = \min\{k : F_k \ge 1/2\},

        \text{expected: } \hat y = \Big\lfloor \sum_k k\, p_k + \tfrac12 \Big\rfloor, \qquad
        \text{min\_cost: } \hat y = \arg\min_k \sum_j p_j\, C[j, k]

    with classes numbered 0..K-1 and F_k = p_0 + ... + p_k.

    Parameters
    ----------
    %(y_proba)s
        NaN is an error: drop incomplete rows first.
    rule : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        ``"argmax"``: the most probable class, ties to the lowest class (the Bayes decision
        under zero-one cost). ``"median"``: the smallest class k with F_k >= 1/2, a median of
        the predicted distribution (the Bayes decision under absolute cost |i-j|).
        ``"expected"``: the expected grade sum_k k p_k rounded to the nearest class, halves up
        (1.5 -> 2). ``"min_cost"``: the class of least expected cost under ``costs``, ties to
        the lowest class (the Bayes decision for that cost matrix).
    costs : {"absolute", "squared", "zero_one"} or array-like of shape (K, K), optional
        Only for ``rule="min_cost"`` (an error with any other rule). ``C[j, k]`` is the cost
        of predicting class k when the truth is class j; it must be finite and non-negative.
        ``"absolute"`` is |j - k| (the default when ``costs`` is None), ``"squared"`` is
        (j - k)^2 and ``"zero_one"`` is 1 off the diagonal.
    %(labels_decide)s
    %(renormalize)s

    Returns
    -------
    ndarray of shape (n_samples,)
        Class indices 0..K-1 (``int64``), or with ``labels`` the label of each decision (with
        the labels' own NumPy dtype when they are all strings, all integers or all floats,
        object dtype otherwise).

    Notes
    -----
    Rows are used as given (not rescaled unless ``renormalize=True``). The comparisons are
    made with a tolerance of 1e-12 (float64 input; 4 K eps for float32 input), because rows
    sum to 1 only up to rounding: ``[0.03, 0.29, 0.18, 0.5]`` has F_2 = 0.5 in decimal but
    0.49999999999999994 in float64, and its median is class 2 (as for the decimal row), not
    class 3. The same tolerance decides the halves of ``"expected"`` (scaled by K - 1, the
    largest expected grade: ``[0.15, 0.35, 0.35, 0.15]`` has expected grade 1.5 in decimal,
    which float64 arithmetic may give as 1.4999999999999998 depending on the order of the
    sums, and the decision is class 2) and the ties of ``"min_cost"`` (scaled by the
    largest cost): a class whose expected cost is within it of the minimum counts as tied.

    Facts worth knowing: under absolute cost the expected cost of class k + 1 minus that of
    class k is 2 F_k - 1, so ``min_cost`` with ``"absolute"`` gives the ``median`` decision.
    Under squared cost the expected cost of class k is the variance plus (mean - k)^2, so
    ``min_cost`` with ``"squared"`` gives the class nearest the expected grade, like
    ``"expected"``, except at exact halves, where ``min_cost`` takes the lower class and
    ``"expected"`` the upper one. ``min_cost`` with ``"zero_one"`` gives ``argmax``.

    References
    ----------
    .. [1] Berger, J. O. (1985). Statistical Decision Theory and Bayesian Analysis, 2nd ed.,
       Springer, Sect. 4.4.2 (Bayes decisions under absolute and squared error loss).
    .. [2] Ferrer, L. (2022). Analysis and comparison of classification metrics.
       arXiv:2209.05355 (Bayes decisions for a cost matrix, expected cost).

    Examples
    --------
    >>> from ordmetrics.metrics.decisions import decide
    >>> p = [[0.40, 0.15, 0.45], [0.30, 0.20, 0.50], [0.00, 0.50, 0.50]]
    >>> decide(p).tolist()
    [2, 2, 1]
    >>> decide(p, "median").tolist()
    [1, 1, 1]
    >>> decide(p, "expected").tolist()
    [1, 1, 2]
    >>> decide(p, "min_cost", costs="squared").tolist()
    [1, 1, 1]
    >>> decide(p, labels=["mild", "moderate", "severe"]).tolist()
    ['severe', 'severe', 'moderate']
    >>> decide([[0.03, 0.29, 0.18, 0.5]], "median").tolist()  # F_2 = 0.5 up to rounding
    [2]
    """
    check_option(rule, "rule", RULES)
    if costs is not None and rule != "min_cost":
        raise ValueError(
            f"costs is used only by rule='min_cost'; got costs={costs!r} with rule={rule!r}. "
            "Pass rule='min_cost' to decide by least expected cost, or drop costs."
        )
    P = as_proba(y_proba, renormalize=renormalize)
    n, k = P.shape
    lab = None if labels is None else check_labels(labels, k)
    C = None
    if rule == "min_cost":
        try:
            C = _check_costs(costs, k)
        except (TypeError, ValueError):
            _check_proba(P)  # the errors of y_proba come first
            raise
    tol = decision_tolerance(P.dtype, k)
    screen = SCREEN_FRACTION * sum_tolerance(P.dtype, k)
    lo, hi = 1.0 - screen, 1.0 + screen
    idx = np.empty(n, dtype=np.int64)
    with parallel_slot(n * k) as parallel:
        if rule == "argmax":
            ok = _kernel("argmax", parallel)(P, idx, lo, hi)
        elif rule == "median":
            ok = _kernel("median", parallel)(P, idx, 0.5 - tol, lo, hi)
        elif rule == "expected":
            ok = _kernel("expected", parallel)(P, idx, 0.5 + tol * (k - 1), lo, hi)
        else:
            assert C is not None
            slack = tol * float(C.max())
            kind = _cost_kind(C)
            if kind == COST_GENERAL:
                ok = decide_general(P, C, idx, slack, lo, hi, parallel)
            else:
                ok = _kernel(("min_cost", kind), parallel)(P, C, idx, slack, lo, hi)
    if not ok:
        _check_proba(P)  # raises for invalid values
    if lab is None:
        return idx
    return label_array(lab)[idx]
