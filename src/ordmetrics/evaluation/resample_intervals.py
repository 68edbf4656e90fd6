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
from ordmetrics.evaluation.resample_options import DEFAULT_RESAMPLES

__all__ = ["BootstrapResult", "ComparisonResult", "significance_level"]

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
        Confidence interval of the difference: order statistics of the resampled
        differences chosen so that it excludes 0 exactly when ``p_value < 1 -
        confidence_level`` (see :func:`ordmetrics.compare`); infinite when the resamples are
        too few for any p-value below alpha.
    p_value : float
        Two-sided bootstrap p-value of "no difference" (percentile:
        ``min(1, 2 * min(1 + #(d <= 0), 1 + #(d >= 0)) / (B + 1))`` over the B resampled
        differences d; never below ``2 / (B + 1)``, its resolution). The (1 - alpha)
        interval excludes 0 exactly when alpha is above it.
    distribution : ndarray of shape (n_resamples,)
        The resampled differences a - b, in resample order (read-only).
    better : {"a", "b"} or None
        The side whose metric is better according to the metric's direction (lower for a
        minimized metric, higher for a maximized one) when the interval excludes 0, which
        is when ``p_value < 1 - confidence_level``; None otherwise or when the direction is
        unknown.
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


def _bias_correction(values: np.ndarray, estimate: float) -> float | None:
    """z0 of the BCa interval: Phi^-1 of the share of resampled values below the estimate
    (ties counted half); None when every value lies on one side (z0 infinite)."""
    below = np.count_nonzero(values < estimate) + np.count_nonzero(values <= estimate)
    share = below / (2.0 * values.size)
    if not 0.0 < share < 1.0:
        return None
    return _NORMAL.inv_cdf(share)


def _levels(z0: float, accel: float, confidence_level: float) -> tuple[float, float]:
    """The two quantile levels of the BCa interval of bias correction z0, acceleration a."""
    alpha = 1.0 - confidence_level
    levels = []
    for q in (alpha / 2.0, 1.0 - alpha / 2.0):
        z = z0 + _NORMAL.inv_cdf(q)
        levels.append(_NORMAL.cdf(z0 + z / (1.0 - accel * z)))
    return levels[0], levels[1]


def _bca_levels(
    values: np.ndarray, estimate: float, accel: float, confidence_level: float
) -> tuple[float, float]:
    """The two quantile levels of the BCa interval (NaN when undefined)."""
    z0 = _bias_correction(values, estimate)
    if z0 is None:
        return math.nan, math.nan
    return _levels(z0, accel, confidence_level)


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
    bca = _bca_constants(values, estimate, jackknife, what, "interval of {} is")
    if bca is None:
        return math.nan, math.nan
    lo, hi = _quantiles(values, list(_levels(*bca, confidence_level)))
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


def significance_level(confidence_level: float) -> float:
    """The alpha of a confidence level, ``1 - confidence_level`` to 12 significant digits.

    A side is called better when the p-value is below it. Rounded so that 0.95 gives 0.05
    itself, not 1 - 0.95 = 0.05000000000000004, under which a p-value of exactly 0.05 would
    count as below alpha.

    Examples
    --------
    >>> from ordmetrics.evaluation.resample_intervals import significance_level
    >>> significance_level(0.95) == 0.05, 1 - 0.95 == 0.05
    (True, False)
    """
    return float(f"{1.0 - confidence_level:.12g}")


def _tail_levels(z0: float, accel: float) -> Callable[[int, int], float]:
    """The p-value of one tail: n resampled differences of B on the far side of 0 (0
    included) give ``g(n, B)``, the smallest alpha at which that end of the (1 - alpha)
    interval passes 0. Non-decreasing in n, and 1 when every difference lies there.

    Percentile (``z0 = accel = 0``): ``2 (n + 1) / (B + 1)`` (Davison & Hinkley 1997,
    Eq. 4.11). BCa: the end is the order statistic at level
    ``Phi(z0 + (z0 + z) / (1 - accel (z0 + z)))``, ``z = Phi^-1(alpha / 2)``, so the level
    t = (n + 1) / (B + 1) is reached at ``alpha = 2 Phi(u / (1 + accel u) - z0)``,
    ``u = Phi^-1(t) - z0``.
    """
    plain = z0 == 0.0 and accel == 0.0

    def g(n: int, b: int) -> float:
        if n >= b:  # every difference on this side: this end never passes 0
            return 1.0
        if plain:
            return min(1.0, 2.0 * (n + 1) / (b + 1))
        u = _NORMAL.inv_cdf((n + 1) / (b + 1)) - z0
        if 1.0 + accel * u <= 0.0:  # beyond the levels the BCa map reaches
            return 0.0 if u < 0.0 else 1.0
        return min(1.0, 2.0 * _NORMAL.cdf(u / (1.0 + accel * u) - z0))

    return g


def _count_below(g: Callable[[int, int], float], b: int, alpha: float) -> int:
    """The number of n in 0..B with ``g(n, B) < alpha`` (g non-decreasing: a bisection)."""
    lo, hi = 0, b + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if g(mid, b) < alpha:
            lo = mid + 1
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class _Test:
    """The interval of a paired difference, its p-value, and the smallest p-value that the
    resamples can give (``2 / (B + 1)`` for the percentile method)."""

    low: float
    high: float
    p_value: float
    resolution: float  # the smallest p-value these resamples can give


def _paired_test(
    values: np.ndarray,
    estimate: float,
    method: str,
    confidence_level: float,
    jackknife: Callable[[], np.ndarray] | None,
    what: str,
) -> _Test:
    """Interval and p-value of a paired difference that agree by construction.

    With the B non-NaN differences sorted, d_(1) <= ... <= d_(B), and for each tail the
    p-value function g of :func:`_tail_levels`: the interval is [d_(m_lo), d_(B + 1 - m_hi)],
    m = #{n in 0..B : g(n, B) < alpha} (an end with m = 0 is infinite), and the p-value is
    ``min(g_lo(#{d <= 0}), g_hi(#{d >= 0}))``. ``low > 0`` means fewer than m_lo differences
    are <= 0, that is ``g_lo(#{d <= 0}) < alpha``; likewise ``high < 0``: so the interval
    excludes 0 exactly when p < alpha, for every set of resamples.
    """
    nan = _Test(math.nan, math.nan, math.nan, math.nan)
    b = int(values.size)
    if b == 0:
        return nan
    z0, accel = 0.0, 0.0
    if method == "bca":
        bca = _bca_constants(values, estimate, jackknife, what)
        if bca is None:
            return nan
        z0, accel = bca
    lower, upper = _tail_levels(z0, accel), _tail_levels(-z0, -accel)
    alpha = significance_level(confidence_level)
    d = np.sort(values)
    m_lo, m_hi = _count_below(lower, b, alpha), _count_below(upper, b, alpha)
    low = float(d[m_lo - 1]) if m_lo else -math.inf
    high = float(d[b - m_hi]) if m_hi else math.inf
    n_le, n_ge = int(np.count_nonzero(d <= 0)), int(np.count_nonzero(d >= 0))
    p = min(lower(n_le, b), upper(n_ge, b))
    return _Test(low, high, float(p), min(lower(0, b), upper(0, b)))


def _bca_constants(
    values: np.ndarray,
    estimate: float,
    jackknife: Callable[[], np.ndarray] | None,
    what: str,
    subject: str = "interval and p-value of {} are",
) -> tuple[float, float] | None:
    """(z0, a) of the BCa interval, or None (with a warning: "the BCa ``subject`` undefined",
    ``what`` in its braces) when it is undefined."""
    said = subject.format(what)
    if math.isnan(estimate):
        _warn(
            f"the BCa {said} undefined because the estimate on the full data is NaN; "
            "returning NaN.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return None
    z0 = _bias_correction(values, estimate)
    if z0 is None:
        _warn(
            f"the BCa {said} undefined: every resampled value lies on one side of "
            "the estimate, so the bias correction is infinite; returning NaN. Use "
            "method='percentile' (or more data).",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return None
    assert jackknife is not None
    return z0, _acceleration(jackknife())


def _warn_resolution(test: _Test, confidence_level: float, n_resamples: int) -> None:
    """Warn when these resamples cannot give a p-value below alpha (too few of them). The
    message names no metric, so that a command comparing many metrics says it once."""
    alpha = significance_level(confidence_level)
    if not test.resolution >= alpha:
        return
    need = n_resamples
    while 2.0 / (need + 1) >= alpha:  # the fewest resamples whose percentile p can reach alpha
        need += 1
    _warn(
        f"with {n_resamples} resamples a two-sided bootstrap p-value cannot fall below "
        f"{test.resolution:.3g}, which is not below alpha = {alpha:g} (confidence level "
        f"{confidence_level:g}): the interval is unbounded and no side is called better. Use "
        f"n_resamples of at least {need} ({DEFAULT_RESAMPLES}, the default, for a stable "
        "p-value).",
        UserWarning,
        stacklevel=3,
    )


def _better(direction: str | None, low: float, high: float) -> str | None:
    """The better side ("a" or "b") when the interval of a - b excludes 0 (which
    :func:`_paired_test` makes the same as p < alpha), else None."""
    if direction is None or not (low > 0.0 or high < 0.0):
        return None
    a_higher = low > 0.0
    return "a" if a_higher == (direction == "maximize") else "b"
