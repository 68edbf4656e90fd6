"""The skill score 1 - S / S_ref of a scoring rule against a reference forecast.

The reference is the climatological forecast (the weighted base rates of the classes) or any
fixed forecast. Definitions: ``docs/definitions.md``, section 4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import (
    Prepared,
    as_proba,
    as_weights,
    check_flag,
    encode_labels,
    sum_tolerance,
    type_name,
)
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.calibration.binning import prepare

__all__ = ["skill_score"]

#: Registry kinds whose metrics take ``(y_true, y_proba)`` and can have a skill score.
_SKILL_KINDS = ("scoring_rule", "calibration")


def _resolve_score(score: Any) -> MetricSpec:
    if isinstance(score, str | MetricSpec):
        spec = get_metric(score)
    elif callable(score):
        found = [get_metric(n) for n in list_metrics() if get_metric(n).func is score]
        if not found:
            raise TypeError(
                f"score must be the name of a registered metric (e.g. 'rps') or a registered "
                f"metric function; got the unregistered callable "
                f"{getattr(score, '__name__', repr(score))!r}. Pass a name from "
                "ordmetrics.list_metrics('scoring_rule')."
            )
        spec = found[0]
    else:
        raise TypeError(
            f"score must be the name of a registered metric (e.g. 'rps') or a registered metric "
            f"function; got {type_name(score)} {score!r}."
        )
    if spec.direction != "minimize":
        raise ValueError(
            f"score must be a metric where lower is better (direction 'minimize'); "
            f"{spec.name!r} has direction {spec.direction!r}. A skill score 1 - S / S_ref "
            "needs a score that is 0 for a perfect prediction, such as 'rps' or 'brier'."
        )
    if spec.kind not in _SKILL_KINDS:
        raise ValueError(
            f"score must be a metric of probabilistic predictions (kind "
            f"{' or '.join(repr(k) for k in _SKILL_KINDS)}); {spec.name!r} is of kind "
            f"{spec.kind!r}. Use e.g. 'rps' or 'brier'."
        )
    return spec


def _check_reference_rows(R: np.ndarray, renormalize: bool, what: str) -> np.ndarray:
    """Validate the reference probabilities (complete, in [0, 1], rows summing to 1)."""
    bad = ~np.isfinite(R).all(axis=1)
    if bad.any():
        raise ValueError(
            f"reference must be complete finite probabilities; {what} has NaN or infinite "
            f"values in row(s) {np.flatnonzero(bad)[:5].tolist()}. Fill them in or drop those "
            "rows."
        )
    if renormalize:
        sums = R.sum(axis=1)
        if (R < 0).any() or (sums == 0).any():
            raise ValueError(
                f"reference must be non-negative with positive row sums to be renormalized; "
                f"{what} has negative values or rows summing to 0."
            )
        R = R / sums[:, None]
    out = ((R < 0) | (R > 1)).any(axis=1)
    if out.any():
        raise ValueError(
            f"reference probabilities must lie in [0, 1]; {what} has values outside it in "
            f"row(s) {np.flatnonzero(out)[:5].tolist()}."
        )
    sums = R.sum(axis=1)
    tol = sum_tolerance(R.dtype, R.shape[1])
    off = np.abs(sums - 1.0) > tol
    if off.any():
        r = int(np.flatnonzero(off)[0])
        raise ValueError(
            f"reference probabilities must sum to 1 (tolerance {tol:g}); {what} sums to "
            f"{sums[r]:.10g} in row {r}. Pass renormalize=True to rescale."
        )
    return R


def _reference_matrix(
    reference: Any,
    prep: Prepared,
    w: np.ndarray,
    y_true: Any,
    y_proba: Any,
    labels: Any,
    sample_weight: Any,
    renormalize: bool,
) -> np.ndarray:
    """The reference forecast as an (n, K) matrix on the rows that are scored."""
    n, k = prep.y_true.size, prep.n_classes
    if reference is None:
        clim = np.bincount(prep.y_true, weights=w, minlength=k) / w.sum()
        return np.tile(clim, (n, 1))
    try:
        R = np.asarray(
            reference.to_numpy() if hasattr(reference, "to_numpy") else reference,
            dtype=np.float64,
        )
    except (TypeError, ValueError):
        raise TypeError(
            f"reference must be None (climatology), a probability vector of length K = {k} or "
            f"a matrix of shape (n_samples, {k}) like y_proba; got {type_name(reference)} "
            "that is not numeric."
        ) from None
    if R.ndim == 1:
        if R.size != k:
            raise ValueError(
                f"reference as a vector must have one probability per class, length K = {k}; "
                f"got length {R.size}."
            )
        R = _check_reference_rows(R[None, :], renormalize, "the reference vector")
        return np.tile(R[0], (n, 1))
    n_all = as_proba(y_proba).shape[0]
    if R.ndim != 2 or R.shape != (n_all, k):
        raise ValueError(
            f"reference must be a vector of length K = {k} or a matrix of the shape of "
            f"y_proba, {(n_all, k)}; got shape {R.shape}."
        )
    R = _check_reference_rows(np.ascontiguousarray(R), renormalize, "the reference matrix")
    if n != n_all:  # rows dropped by nan_policy="omit": drop the same rows of the reference
        enc = encode_labels(y_true, labels=labels, n_classes=k)
        missing = np.isnan(as_proba(y_proba)).any(axis=1)
        if enc.missing is not None:
            missing |= enc.missing
        w_all = as_weights(sample_weight, n_all)
        if w_all is not None:
            missing |= np.isnan(w_all)
        R = R[~missing]
    return R


@fill_doc()
def skill_score(
    score: str | MetricSpec | Callable[..., Any],
    y_true: Any,
    y_proba: Any,
    *,
    reference: Any = None,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    **score_kwargs: Any,
) -> float:
    r"""Skill score 1 - S / S_ref of a prediction against a reference forecast.

    .. math::

        \mathrm{SS} = 1 - \frac{S(\text{y\_proba})}{S(\text{reference})}

    With ``score="rps"`` this is the ranked probability skill score (RPSS), with ``"brier"``
    the Brier skill score (BSS).

    Parameters
    ----------
    score : str, MetricSpec or callable
        A registered metric of probabilistic predictions where lower is better: its name
        (e.g. ``"rps"``, ``"brier"``, ``"log_loss"``), its spec, or its function.
    %(y_true)s
    %(y_proba)s
    reference : None, array-like of shape (K,) or (n_samples, K), optional
        The reference forecast. None (default): the climatological forecast, the weighted
        class frequencies of ``y_true`` (on the rows that are scored), the same for every
        row. A vector of K probabilities: that forecast for every row. A matrix like
        ``y_proba``: a forecast per row (e.g. another model).
    %(labels)s
    %(sample_weight)s
        Used for both scores and for the climatology.
    %(nan_policy)s
        ``"omit"`` drops those rows from a reference matrix too; the reference itself must be
        complete.
    **score_kwargs
        Options of the score, e.g. ``normalize=False`` for ``"rps"``, ``eps`` for
        ``"log_loss"``, ``n_bins`` for ``"ece"``; ``renormalize=True`` rescales the rows of
        both ``y_proba`` and ``reference``. Passed to both evaluations.

    Returns
    -------
    float
        The skill score: 1 for a perfect prediction, 0 for no improvement on the reference,
        negative when worse. NaN with an ``UndefinedMetricWarning`` when the reference
        scores 0 (or both scores are infinite); NaN under ``nan_policy="propagate"`` with a
        missing value.

    Notes
    -----
    Range (-inf, 1]; higher is better. The skill of the climatological forecast itself is 0.
    With the climatological reference the denominator is the uncertainty term of the score's
    decomposition (:func:`brier_decomposition`, :func:`rps_decomposition`), so
    RPSS = (RES - REL - WBV + WBC) / UNC.

    References
    ----------
    .. [1] Murphy, A. H. (1988). Skill scores based on the mean square error and their
       relationships to the correlation coefficient. Monthly Weather Review 116(12),
       2417-2424.
    .. [2] Wilks, D. S. (2011). Statistical Methods in the Atmospheric Sciences, 3rd ed.,
       chapter 8 (forecast verification). Academic Press.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import skill_score
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6], [0.1, 0.3, 0.6]]
    >>> round(skill_score("rps", y, P), 6)  # against climatology [0.25, 0.25, 0.5]
    0.662857
    >>> skill_score("brier", y, P, reference=[0.25, 0.25, 0.5]) == skill_score("brier", y, P)
    True
    """
    spec = _resolve_score(score)
    reduction = score_kwargs.pop("reduction", "mean")
    if reduction != "mean":
        raise ValueError(
            f"skill_score compares mean scores; reduction must be 'mean' (or left out), got "
            f"{reduction!r}."
        )
    renormalize = check_flag(score_kwargs.pop("renormalize", False), "renormalize")
    prep, P, w = prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    if prep.propagate:
        return math.nan
    R = _reference_matrix(reference, prep, w, y_true, y_proba, labels, sample_weight, renormalize)
    sw = prep.weight
    s = float(spec.func(prep.y_true, P, sample_weight=sw, **score_kwargs))
    s_ref = float(spec.func(prep.y_true, R, sample_weight=sw, **score_kwargs))
    if s_ref == 0.0:
        warn_undefined(
            "skill_score",
            f"the reference forecast has {spec.name} = 0 (it is perfect), so 1 - S / S_ref "
            "divides by zero",
        )
        return math.nan
    if math.isinf(s_ref) and math.isinf(s):
        warn_undefined("skill_score", f"both {spec.name} values are infinite")
        return math.nan
    return 1.0 - s / s_ref
