"""Results and intervals of the bootstrap: :class:`BootstrapResult`, :class:`ComparisonResult`,
the percentile and BCa intervals, the paired p-value and the better side.

Used by :func:`ordmetrics.evaluation.resampling.bootstrap` and
:func:`~ordmetrics.evaluation.resampling.compare`, which document the formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics._core.warnings import warn as _warn

__all__ = ["BootstrapResult", "ComparisonResult"]

_NORMAL = NormalDist()


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapResult:
    """The bootstrap distribution of a metric and a confidence interval.

    Attributes
    ----------
    estimate : float
        The metric on the full data (the plain metric call).
    mean : float
        Mean of the resampled values (NaN values left out).
    std : float
        Standard deviation of the resampled values with ``ddof=1``: the bootstrap standard
        error of ``estimate``.
    low, high : float
        The confidence interval.
    distribution : ndarray of shape (n_resamples,)
        The metric on every resample, in resample order (read-only; NaN where the metric is
        undefined on a resample).
    method : {"percentile", "bca"}
        How the interval was computed.
    confidence_level : float
        Nominal coverage of the interval.
    n_resamples : int
        Number of resamples.
    metric : str
        Name of the metric.
    """

    estimate: float
    mean: float
    std: float
    low: float
    high: float
    distribution: np.ndarray = field(repr=False, compare=False)
    method: str
    confidence_level: float
    n_resamples: int
    metric: str


@dataclass(frozen=True)
class ComparisonResult:
    """A paired bootstrap comparison of two predictions (or two metric variants).

    Attributes
    ----------
    estimate_a, estimate_b : float
        The metric of each side on the full data.
    difference : float
        ``estimate_a - estimate_b``.
    low, high : float
        Confidence interval of the difference.
    p_value : float
        Two-sided bootstrap p-value of "no difference",
        ``min(1, 2 * min(1 + #(d <= 0), 1 + #(d >= 0)) / (B + 1))`` over the B resampled
        differences d; never below ``2 / (B + 1)``, its resolution.
    distribution : ndarray of shape (n_resamples,)
        The resampled differences a - b, in resample order (read-only).
    better : {"a", "b"} or None
        The side whose metric is better according to the metric's direction, when the
        interval excludes 0; None when it contains 0 or the direction is unknown.
    method : {"percentile", "bca"}
        How the interval was computed.
    confidence_level : float
        Nominal coverage of the interval.
    n_resamples : int
        Number of resamples.
    metric : str
        Name of the metric.
    """

    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    distribution: np.ndarray = field(repr=False, compare=False)
    better: str | None
    method: str
    confidence_level: float
    n_resamples: int
    metric: str


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------


def _acceleration(jack: np.ndarray) -> float:
    """a = sum(d^3) / (6 (sum d^2)^(3/2)), d = mean(jack) - jack (finite values only)."""
    jack = jack[np.isfinite(jack)]
    if jack.size < 2:
        return 0.0
    d = jack.mean() - jack
    den = float(np.sum(d * d))
    if den == 0.0:
        return 0.0  # no variation between the leave-out values: no skewness to correct
    return float(np.sum(d**3) / (6.0 * den**1.5))


def _bca_levels(
    values: np.ndarray, estimate: float, accel: float, confidence_level: float
) -> tuple[float, float]:
    """The two quantile levels of the BCa interval (NaN when undefined)."""
    below = np.count_nonzero(values < estimate) + np.count_nonzero(values <= estimate)
    share = below / (2.0 * values.size)
    if not 0.0 < share < 1.0:
        return math.nan, math.nan
    z0 = _NORMAL.inv_cdf(share)
    alpha = 1.0 - confidence_level
    levels = []
    for q in (alpha / 2.0, 1.0 - alpha / 2.0):
        z = z0 + _NORMAL.inv_cdf(q)
        levels.append(_NORMAL.cdf(z0 + z / (1.0 - accel * z)))
    return levels[0], levels[1]


def _interval(
    values: np.ndarray,
    estimate: float,
    method: str,
    confidence_level: float,
    jackknife: Callable[[], np.ndarray] | None,
    what: str,
) -> tuple[float, float]:
    """(low, high) from the non-NaN resampled values; warns when the interval is NaN."""
    if values.size == 0:
        return math.nan, math.nan
    if method == "percentile":
        alpha = 1.0 - confidence_level
        lo, hi = _quantiles(values, [alpha / 2.0, 1.0 - alpha / 2.0])
        return float(lo), float(hi)
    if math.isnan(estimate):
        _warn(
            f"the BCa interval of {what} is undefined because the estimate on the full data "
            "is NaN; returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan, math.nan
    assert jackknife is not None
    accel = _acceleration(jackknife())
    lo_q, hi_q = _bca_levels(values, estimate, accel, confidence_level)
    if math.isnan(lo_q) or math.isnan(hi_q):
        _warn(
            f"the BCa interval of {what} is undefined: every resampled value lies on one side "
            "of the estimate, so the bias correction is infinite; returning NaN. Use "
            "method='percentile' (or more data).",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan, math.nan
    lo, hi = _quantiles(values, [lo_q, hi_q])
    return float(lo), float(hi)


def _quantiles(values: np.ndarray, q: list[float]) -> np.ndarray:
    """``np.quantile`` (linear), also where infinite values lie around a quantile (log loss):
    between v and +inf it is +inf, between -inf and v it is -inf, between -inf and +inf NaN,
    without NumPy's "invalid value" warning of inf - inf."""
    if np.isfinite(values).all():
        return np.quantile(values, q)
    with np.errstate(invalid="ignore"):
        out = np.quantile(values, q)
    lower = np.quantile(values, q, method="lower")
    higher = np.quantile(values, q, method="higher")
    out = np.where(lower == higher, lower, out)
    out = np.where(np.isnan(out) & (higher == np.inf) & (lower > -np.inf), np.inf, out)
    return np.where(np.isnan(out) & (lower == -np.inf) & (higher < np.inf), -np.inf, out)


def _valid(distribution: np.ndarray, what: str) -> np.ndarray:
    """The non-NaN values, with a warning saying how many resamples were left out."""
    nan = np.isnan(distribution)
    n_nan = int(nan.sum())
    if n_nan == distribution.size:
        _warn(
            f"{what} is undefined (NaN) on every one of the {n_nan} resamples; the mean, std "
            "and interval are NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    elif n_nan:
        _warn(
            f"{what} is undefined (NaN) on {n_nan} of {distribution.size} resamples; they are "
            "left out of the mean, std and interval.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return distribution[~nan]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _n_valid_stats(values: np.ndarray) -> tuple[float, float]:
    mean = float(values.mean()) if values.size else math.nan
    with np.errstate(invalid="ignore"):
        std = float(values.std(ddof=1)) if values.size >= 2 else math.nan
    return mean, std


def _p_value(valid: np.ndarray) -> float:
    """Two-sided bootstrap p-value of "no difference" from the non-NaN differences:
    ``min(1, 2 (1 + min(#(d <= 0), #(d >= 0))) / (B + 1))``; NaN without any."""
    if not valid.size:
        return math.nan
    extreme = min(np.count_nonzero(valid <= 0), np.count_nonzero(valid >= 0))
    return float(min(1.0, 2.0 * (1 + extreme) / (valid.size + 1)))


def _better(direction: str | None, low: float, high: float) -> str | None:
    """The better side ("a" or "b") when the interval of a - b excludes 0, else None."""
    if direction is None or not (low > 0.0 or high < 0.0):
        return None
    a_higher = low > 0.0
    return "a" if a_higher == (direction == "maximize") else "b"
