"""The CORP reliability diagram: the PAV-recalibrated forecasts, with consistency bands.

Built on the fits of :mod:`ordmetrics.metrics.corp.fit`; see the notes of
:mod:`ordmetrics.metrics.corp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core import pav as _pav
from ordmetrics._core.docs import fill_doc
from ordmetrics._core.random import make_rng
from ordmetrics._core.validation import type_name
from ordmetrics.metrics.corp.fit import (
    _PARAMS,
    BAND_POINTS,
    _check_event,
    _event_names,
    _Fit,
    _fits,
    _frozen,
    _prepare,
)

__all__ = ["MAX_BAND_RESAMPLES", "CorpCurve", "CorpReliability", "corp_reliability"]


@dataclass(frozen=True, eq=False)
class CorpCurve:
    """The CORP reliability curve of one binary event (read-only arrays).

    Attributes
    ----------
    event : str
        ``"top_label"``, ``"y = <label>"`` or ``"y <= <label>"``.
    x : ndarray of shape (G,)
        The distinct forecast values (tie groups), increasing.
    recalibrated : ndarray of shape (G,)
        The PAV (isotonic) recalibrated forecast at each value: non-decreasing, in [0, 1].
    observed : ndarray of shape (G,)
        The weighted event frequency among the rows with that value.
    weight : ndarray of shape (G,)
        The total weight of those rows.
    score, mcb, dsc, unc : float
        Mean binary Brier score S of the forecast and its parts, S = MCB - DSC + UNC.
    band_x, band_lower, band_upper : ndarray or None
        The consistency band: at the forecast values ``band_x`` (all of ``x``, or
        ``BAND_POINTS`` of them spread evenly over the tie groups), the interval holding the
        central ``level`` share of the recalibrated values of resamples drawn under
        calibration. None when no band was asked for.
    """

    event: str
    x: np.ndarray
    recalibrated: np.ndarray
    observed: np.ndarray
    weight: np.ndarray
    score: float
    mcb: float
    dsc: float
    unc: float
    band_x: np.ndarray | None = None
    band_lower: np.ndarray | None = None
    band_upper: np.ndarray | None = None

    def __repr__(self) -> str:
        return (
            f"CorpCurve(event={self.event!r}, values={self.x.size}, score={self.score:.6g}, "
            f"mcb={self.mcb:.6g}, dsc={self.dsc:.6g}, unc={self.unc:.6g})"
        )


@dataclass(frozen=True, eq=False)
class CorpReliability:
    """The CORP reliability curves of the events of a view (computed by :func:`corp_reliability`).

    Attributes
    ----------
    event : str
        ``"top_label"``, ``"class"`` or ``"cumulative"``.
    curves : tuple of CorpCurve
        One per event: 1, K or K - 1.
    level : float or None
        Level of the consistency bands (None without bands).
    n_resamples : int
        Resamples behind the bands (0 without bands).
    total_weight : float
        Total weight W of the rows (NaN under ``nan_policy="propagate"`` with a missing value).
    """

    event: str
    curves: tuple[CorpCurve, ...]
    level: float | None
    n_resamples: int
    total_weight: float

    @property
    def events(self) -> tuple[str, ...]:
        """Names of the events."""
        return tuple(c.event for c in self.curves)

    @property
    def score(self) -> np.ndarray:
        """Mean binary Brier score of every event."""
        return np.array([c.score for c in self.curves])

    @property
    def mcb(self) -> np.ndarray:
        """Miscalibration MCB of every event."""
        return np.array([c.mcb for c in self.curves])

    @property
    def dsc(self) -> np.ndarray:
        """Discrimination DSC of every event."""
        return np.array([c.dsc for c in self.curves])

    @property
    def unc(self) -> np.ndarray:
        """Uncertainty UNC of every event."""
        return np.array([c.unc for c in self.curves])

    def __repr__(self) -> str:
        return (
            f"CorpReliability(event={self.event!r}, events={len(self.curves)}, "
            f"n_resamples={self.n_resamples}, level={self.level})"
        )


#: The largest ``n_resamples`` accepted: the band keeps the refit of every resample at up to
#: BAND_POINTS = 2048 values (8 bytes each), so 2^16 resamples take 1 GiB per event; the
#: quantiles of the band are then settled far below their sampling error.
MAX_BAND_RESAMPLES = 2**16


def _check_resamples(n: Any) -> int:
    if n is None:
        return 0
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(
            f"n_resamples must be a non-negative integer (resamples behind the consistency "
            f"bands, 0 for none), e.g. n_resamples=100; got {type_name(n)} {n!r}."
        )
    if n < 0:
        raise ValueError(f"n_resamples must be a non-negative integer, e.g. 100; got {int(n)}.")
    if n > MAX_BAND_RESAMPLES:
        need = 8 * BAND_POINTS * int(n) / 2**30
        raise ValueError(
            f"n_resamples must be at most {MAX_BAND_RESAMPLES:,} (2^16, MAX_BAND_RESAMPLES); "
            f"got {int(n):,}. The consistency band keeps every resample's refit at up to "
            f"{BAND_POINTS} forecast values, 8 bytes each: {int(n):,} resamples would need "
            f"{need:,.3g} GiB per event. Pass fewer resamples (the paper uses 100 to 1000)."
        )
    return int(n)


def _check_level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float | np.number):
        raise TypeError(
            f"level must be a number in (0, 1), e.g. level=0.9; got {type_name(level)} {level!r}."
        )
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must lie in (0, 1), e.g. level=0.9; got {level!r}.")
    return float(level)


def _band(
    fit: _Fit, e: int, n_resamples: int, level: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Band at (up to BAND_POINTS of) the values; weights in the caller's units (2^e)."""
    g = fit.x.size
    at = np.arange(g) if g <= BAND_POINTS else np.unique(np.linspace(0, g - 1, BAND_POINTS))
    at = at.astype(np.int64)
    draws = _pav.resample_pav(
        fit.x_sorted,
        np.ldexp(fit.w[fit.order], e),
        fit.starts,
        np.ldexp(fit.weight, e),
        at,
        n_resamples,
        rng,
    )
    lo, hi = np.quantile(draws, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
    return fit.x[at], lo, hi


@fill_doc(params=_PARAMS)
def corp_reliability(
    y_true: Any,
    y_proba: Any,
    *,
    event: str = "top_label",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
    n_resamples: int = 0,
    level: float = 0.9,
    random_state: Any = None,
) -> CorpReliability:
    r"""CORP reliability curves: the PAV-recalibrated forecast of every event, with MCB/DSC/UNC.

    For each binary event with forecasts x_i, outcomes o_i and weights w_i, the recalibrated
    forecast is the isotonic regression

    .. math::

        r = \operatorname*{arg\,min}_{r \text{ non-decreasing in } x}
        \sum_i w_i (r_i - o_i)^2

    (rows with equal x share one value), computed by PAV after one sort: O(N log N). The
    curve is r against x. With S the mean Brier score, S(x) = MCB - DSC + UNC with
    MCB = S(x) - S(r), DSC = S(o-bar) - S(r), UNC = S(o-bar) = o-bar (1 - o-bar).

    Parameters
    ----------
    %(params)s
    event : {"top_label", "class", "cumulative"}, default "top_label"
        ``"top_label"``: confidence max_k p_k for "the argmax class (ties to the lowest) is
        correct"; ``"class"``: p_k for y = k, one curve per class (``"classwise"`` is
        accepted too); ``"cumulative"``: F_k for y <= k, one curve per threshold
        k = 0..K-2.
    n_resamples : int, default 0
        Resamples behind the consistency bands; 0 for none. The paper uses 100 or more; at
        most :data:`MAX_BAND_RESAMPLES` = 65,536 (the refits are kept: 1 GiB per event).
    level : float, default 0.9
        Level of the consistency bands, in (0, 1).
    random_state : None, int or numpy.random.Generator, optional
        Seed of the resamples.

    Returns
    -------
    CorpReliability
        ``curves`` (one :class:`CorpCurve` per event: ``x``, ``recalibrated``, ``observed``,
        ``weight``, ``score``, ``mcb``, ``dsc``, ``unc``, and the band), and ``events``,
        ``mcb``, ``dsc``, ``unc``, ``score`` as arrays over the events. Under
        ``nan_policy="propagate"`` with a missing value every curve is empty and every
        number NaN.

    Notes
    -----
    Ranges: MCB in [0, 1], lower is better, 0 exactly when the forecast is its own
    recalibration (up to rounding); DSC in [0, UNC], higher is better; UNC in [0, 1/4]
    depends on the outcomes only. Ties: exact for given probabilities, the relative 1e-12 rule of
    :mod:`ordmetrics._core.numerics` for the cumulative sums F_k (see the module notes). Rows of
    weight 0 take no part.

    Consistency bands: under the hypothesis that the forecast is calibrated, P(o = 1 | x) = x,
    each resample draws new outcomes at the same forecasts, o*_i ~ Bernoulli(x_i) (with
    integer weights Binomial(w_i, x_i) events of weight 1, exactly like repeated rows;
    otherwise w_i Bernoulli(x_i)), and refits PAV; the band at each value is the interval
    between the (1 - level)/2 and (1 + level)/2 quantiles of the refits. A curve leaving
    the band is evidence against calibration. The band is evaluated at every forecast value
    when there are at most ``BAND_POINTS`` = 2048 of them, otherwise at 2048 values spread
    evenly over them.

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T., Jordan, A. I. (2021). Stable reliability diagrams
       for probabilistic classifiers. PNAS 118(8), e2016191118.
    .. [2] Ayer, M., Brunk, H. D., Ewing, G. M., Reid, W. T., Silverman, E. (1955). An
       empirical distribution function for sampling with incomplete information. Annals of
       Mathematical Statistics 26(4), 641-647.

    Examples
    --------
    Forecasts 0.2, 0.4, 0.6, 0.8 with outcomes 0, 1, 0, 1: PAV pools the middle pair.

    >>> from ordmetrics.metrics.corp import corp_reliability
    >>> P = [[0.8, 0.2], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8]]
    >>> r = corp_reliability([0, 1, 0, 1], P, event="class")
    >>> c = r.curves[1]
    >>> c.event, c.x, c.recalibrated
    ('y = 1', array([0.2, 0.4, 0.6, 0.8]), array([0. , 0.5, 0.5, 1. ]))
    >>> [round(v, 10) for v in (c.score, c.mcb, c.dsc, c.unc)]
    [0.2, 0.075, 0.125, 0.25]
    """
    ev = _check_event(event)
    nres = _check_resamples(n_resamples)
    lev = _check_level(level)
    rng = make_rng(random_state)  # validated also without resamples
    prep, P, w, e = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    names = _event_names(ev, prep.labels, prep.n_classes)
    if prep.propagate:
        empty = _frozen(np.empty(0))
        nan = math.nan
        curves = tuple(CorpCurve(n, empty, empty, empty, empty, nan, nan, nan, nan) for n in names)
        return CorpReliability(ev, curves, lev if nres else None, nres, math.nan)
    out = []
    for name, fit in zip(names, _fits(P, prep.y_true, w, ev), strict=True):
        band: tuple[np.ndarray | None, ...] = (None, None, None)
        if nres:
            band = tuple(_frozen(a) for a in _band(fit, e, nres, lev, rng))
        out.append(
            CorpCurve(
                name,
                _frozen(fit.x),
                _frozen(fit.recalibrated),
                _frozen(fit.observed),
                _frozen(np.ldexp(fit.weight, e)),
                *fit.parts,
                *band,
            )
        )
    total = float(np.ldexp(w.sum(), e))
    return CorpReliability(ev, tuple(out), lev if nres else None, nres, total)
