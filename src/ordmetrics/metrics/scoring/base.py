"""The plumbing shared by every scoring rule: evaluation, reduction, registration, array helpers.

A rule is one :class:`~ordmetrics._core.rule.ScoringRule` record in its family module
(:mod:`.cdf`, :mod:`.brier`, :mod:`.log`, :mod:`.spherical`); its public function calls
:func:`evaluate` with that record, which validates the input, runs the record's compiled
kernel (NumPy input) or its array-API formula (PyTorch, JAX, CuPy input, on their device), and
reduces. :func:`register_rule` registers the public function with the record's metadata.

The array helpers (:func:`cumulative`, :func:`true_proba`, :func:`class_indices`,
:func:`wrong_decision`) are the array-API building blocks of the rules' formulas.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ordmetrics._core import array_api, kernels
from ordmetrics._core.kernels import PBS_UNPENALIZED
from ordmetrics._core.numerics import weight_scale
from ordmetrics._core.registry import PROPERTY_NAMES, Variant, register
from ordmetrics._core.rule import ScoringRule, check_rule
from ordmetrics._core.validation import (
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

__all__ = [
    "K2_UNTIED",
    "NOT_ANY",
    "PARAMS_TEMPLATE",
    "RULES",
    "UNPENALIZED_VARIANT",
    "ScoringRule",
    "class_indices",
    "cumulative",
    "cumulative_truth",
    "evaluate",
    "get_rule",
    "properties",
    "register_rule",
    "true_proba",
    "wrong_decision",
]

#: The parameters every rule shares, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
PARAMS_TEMPLATE = """\
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


# --------------------------------------------------------------------------------------------
# Evaluation: the path of every rule
# --------------------------------------------------------------------------------------------


def evaluate(
    rule: ScoringRule,
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    reduction: str,
    renormalize: bool,
    param: float,
) -> float | np.ndarray:
    """Validate the inputs, run the kernel of ``rule`` and reduce: the path of every rule.

    ``param`` is ``rule.pack(...)`` of the caller's options. Arrays of PyTorch, JAX, CuPy, ...
    are scored in their own library on their device with ``rule.formula``
    (:func:`ordmetrics._core.array_api.evaluate`); NumPy-convertible input with the kernel.
    """
    rule = check_rule(rule)
    # a type test, so NumPy input goes on unchanged
    if array_api.is_device_array(y_proba):
        return array_api.evaluate(
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
    check_option(reduction, "reduction", REDUCTIONS)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    P = as_proba(y_proba, renormalize=renormalize)
    n, k = P.shape
    enc = encode_labels(y_true, labels=labels, n_classes=k)
    check_lengths(enc.codes.size, n)
    # exact power-of-two scaling (in the kernel, no copy): sums of weights and products w_i s_i
    # stay finite and normal whatever the scale (1e-320 or 1e308); a sum is scaled back at the end
    w_given = as_weights(sample_weight, n)
    w, ws, w_exp = weight_scale(w_given)
    y = enc.codes
    tol = sum_tolerance(P.dtype, k)
    rows = reduction == "none"

    if enc.missing is None:
        total, wsum, n_bad, out = kernels.score_rows(P, y, w, ws, rule, param, tol, rows)
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
        w, ws, w_exp = weight_scale(None if w_given is None else w_given[keep])
        total, wsum, _, out = kernels.score_rows(P, y, w, ws, rule, param, tol, rows)
        return _reduce(total, wsum, out, reduction, w_exp)
    # propagate
    if not rows:
        return math.nan
    P = P.copy()
    P[missing] = 1.0 / k
    y = np.where(missing, 0, y)
    _, _, _, out = kernels.score_rows(P, y, None, 1.0, rule, param, tol, True)
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
# The records and the registry
# --------------------------------------------------------------------------------------------

#: The record of every registered rule, by registry name, in registration order.
RULES: dict[str, ScoringRule] = {}


def register_rule(rule: ScoringRule) -> ScoringRule:
    """Register ``rule.func`` as a scoring rule with the record's metadata; keep the record.

    Every scoring rule minimises and scores 0 for a perfect prediction.
    """
    rule = check_rule(rule)
    register(
        rule.func,
        name=rule.name,
        direction="minimize",
        range=rule.range,
        kind="scoring_rule",
        properties=rule.properties,
        perfect=0.0,
        description=rule.description,
        range_note=rule.range_note,
        properties_by_k=rule.properties_by_k,
        variants=rule.variants,
        formula=rule.formula_text,
        range_text=rule.range_text,
    )
    RULES[rule.name] = rule
    return rule


def get_rule(name: str) -> ScoringRule:
    """The record of the registered scoring rule ``name``.

    Examples
    --------
    >>> from ordmetrics.metrics.scoring import get_rule
    >>> get_rule("rps").pack(normalize=False)
    0.0
    >>> get_rule("accuracy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown scoring rule 'accuracy'; the scoring rules are 'rps', ...
    """
    rule = RULES.get(name) if isinstance(name, str) else None
    if rule is None:
        raise ValueError(
            f"unknown scoring rule {name!r}; the scoring rules are "
            f"{', '.join(repr(r) for r in RULES)}."
        )
    return rule


def properties(
    proper: bool, strictly_proper: bool, local: bool, distance_sensitive: bool, superior: bool
) -> dict[str, bool]:
    """The registry's property mapping (section 5 of docs/definitions.md)."""
    values = (proper, strictly_proper, local, distance_sensitive, superior)
    return dict(zip(PROPERTY_NAMES, values, strict=True))


#: For K = 2 a correct untied forecast has p_y > 1/2 and a wrong one p_y < 1/2: every rule
#: that decreases in p_y for K = 2 is superior on untied forecasts (the theorems that Brier
#: and log loss are not superior need K > 2). The exact tie [1/2, 1/2] is correct for y = 0
#: and wrong for y = 1 with the same score, so "superior" itself still fails for K = 2.
K2_UNTIED: Mapping[int, Mapping[str, bool]] = {2: {"superior_without_ties": True}}
#: No property at all.
NOT_ANY = properties(False, False, False, False, False)
#: PBS and PLL with ``ties="unpenalized"``.
UNPENALIZED_VARIANT = Variant(
    options={"ties": "unpenalized"},
    properties=NOT_ANY,
    note="a forecast that ties its top classes escapes the penalty",
)


# --------------------------------------------------------------------------------------------
# Array-API building blocks of the formulas
# --------------------------------------------------------------------------------------------


def _device(x: Any) -> Any:
    from array_api_compat import device  # a dependency; imported only for array formulas

    return device(x)


def class_indices(xp: Any, P: Any, y: Any) -> Any:
    """The class indices 0..K-1 of ``P``'s columns, in the dtype of ``y``, on its device."""
    return xp.arange(P.shape[1], dtype=y.dtype, device=_device(y))


def cumulative(xp: Any, P: Any) -> Any:
    """F_k = p_1 + ... + p_k for k < K: the forward cumulative sum along the rows."""
    k = P.shape[1]
    if hasattr(xp, "cumulative_sum"):
        return xp.cumulative_sum(P, axis=1)[:, : k - 1]
    # older namespaces: a product with the upper-triangular K x (K-1) matrix T[j, c] = 1{j <= c}
    i = xp.arange(k, device=_device(P))
    T = xp.astype(i[:, None] <= i[None, : k - 1], P.dtype)
    return xp.matmul(P, T)


def cumulative_truth(xp: Any, P: Any, y: Any) -> Any:
    """H_k = 1{y <= k} for k < K, in the dtype of ``P``."""
    cls = class_indices(xp, P, y)
    return xp.astype(cls[None, : P.shape[1] - 1] >= y[:, None], P.dtype)


def true_proba(xp: Any, P: Any, y: Any) -> Any:
    """p_y of every row (``y`` within 0..K-1)."""
    if hasattr(xp, "take_along_axis"):
        return xp.take_along_axis(P, y[:, None], axis=1)[:, 0]
    cls = class_indices(xp, P, y)
    onehot = cls[None, :] == y[:, None]  # older namespaces: select and add zeros (exact)
    zero = xp.zeros((), dtype=P.dtype, device=_device(P))
    return xp.sum(xp.where(onehot, P, zero), axis=1)


def wrong_decision(xp: Any, P: Any, y: Any, py: Any, param: float) -> Any:
    """The penalty indicator of PBS and PLL (as the kernels' ``wrong_decision``), boolean.

    ``py`` is :func:`true_proba`; bit 0 of ``param`` is ``ties="unpenalized"``.
    """
    m = xp.max(P, axis=1) > py
    if int(param) & PBS_UNPENALIZED:
        return m  # the authors' Algorithm 1: only a class strictly above p_y
    # arg-max decision (ties to the lowest class) != y: some class before y ties or beats p_y
    cls = class_indices(xp, P, y)
    before = cls[None, :] < y[:, None]
    return m | xp.any(before & (P >= py[:, None]), axis=1)
