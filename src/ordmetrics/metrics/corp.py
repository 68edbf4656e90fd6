r"""CORP reliability diagrams and score decompositions (Dimitriadis, Gneiting & Jordan 2021).

CORP (consistent, optimally binned, reproducible, PAV-based) replaces the bins of a reliability
diagram by isotonic regression: for a binary event with forecasts x_i, outcomes o_i in {0, 1}
and weights w_i, the *recalibrated* forecast r_i is the weighted least-squares fit of o on x
under the constraint that it is a non-decreasing function of x, computed by the
pool-adjacent-violators algorithm (PAV). Equal forecast values form one tie group and always
get the same recalibrated value. The reliability curve plots r against x; there is no bin
count to choose, and the bins PAV finds are optimal (the fit minimises the Brier score, and
every proper scoring rule, among all non-decreasing recalibrations).

With the mean Brier score S(f) = sum_i w_i (f_i - o_i)^2 / W of a forecast f, and the
climatological forecast o-bar = sum_i w_i o_i / W (the same for every row), the CORP
decomposition is exact:

.. math::

    S(x) = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC},\qquad
    \mathrm{MCB} = S(x) - S(r),\quad \mathrm{DSC} = S(\bar o) - S(r),\quad
    \mathrm{UNC} = S(\bar o) = \bar o (1 - \bar o).

MCB >= 0 (miscalibration; 0 when the forecast equals its recalibration, lower is better),
DSC >= 0 (discrimination, higher is better), UNC >= 0 (uncertainty of the outcome, fixed by
the data). The events of a K-class forecast:

============  ==================================  ===========================================
event         binary event (one per ...)          forecast
============  ==================================  ===========================================
top_label     the argmax class is correct         confidence max_k p_k
class         y = k, for every class k            p_k
cumulative    y <= k, for k = 0..K-2 (ordinal)    F_k = p_0 + ... + p_k
============  ==================================  ===========================================

The multiclass Brier score is the sum of the binary Brier scores of the K class events and
the RPS the sum of those of the K - 1 cumulative events (divided by K - 1 when normalised), so
:func:`corp_decomposition` adds the parts event by event. The recalibrated forecasts are
recalibrated event by event: the recalibrated class probabilities of a row need not sum to 1,
nor need the recalibrated cumulative forecasts increase with k. That does not matter for the
decomposition, which is defined threshold by threshold, but the recalibrated values are no
forecast of the whole distribution.

Ties. Probabilities as given (``top_label``, ``class``) are tied when exactly equal. The
cumulative forecasts F_k are sums that ordmetrics computes, whose rounding can differ between
two rows with the same F_k in real numbers (``0.1 + 0.2`` and ``0.2 + 0.1`` differ in the last
bit); they are grouped by the tie rule that all of ordmetrics uses for computed values
(:mod:`ordmetrics._core.numerics`): sorted neighbours within 1e-12 (relative above 1) are tied, the
groups are the chains of tied neighbours, and a group shows as its smallest value. The scores
S themselves use the forecasts as computed, so that they equal :func:`~ordmetrics.brier` and
:func:`~ordmetrics.rps`. Weights are scaled by an exact power of two first (the weight rule of
:mod:`ordmetrics._core.numerics`), so every result is the same for w and c w.

The functions are not registered metrics: a registered calibration metric returns one float
that :mod:`ordmetrics.stream` accumulates from fixed-size bin sums, while the PAV blocks need
all rows sorted together (they change with every new row) and MCB, DSC and UNC are parts of
one decomposition rather than one number.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core import pav as _pav
from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import (
    check_flag,
    check_option,
    prepare_proba,
    type_name,
)
from ordmetrics.evaluation.resampling import _make_rng
from ordmetrics.metrics.calibration import (
    event_forecasts,
    event_names,
)

__all__ = [
    "CorpCurve",
    "CorpDecomposition",
    "CorpReliability",
    "corp_decomposition",
    "corp_reliability",
]

EVENTS = ("top_label", "class", "cumulative")
#: The view of the binned calibration functions with the same events.
_VIEW = {"top_label": "top_label", "class": "classwise", "cumulative": "cumulative"}
SCORES = ("brier", "rps")

#: Largest number of forecast values at which a consistency band is evaluated per event.
BAND_POINTS = 2048

_PARAMS = """\
    %(y_true)s
    %(y_proba)s
    %(labels)s
    %(sample_weight)s
        Used in the PAV fit (weighted least squares) and in every mean.
    %(nan_policy)s
    %(renormalize)s"""


def computed_forecasts(event: str) -> bool:
    """Whether ordmetrics computes the forecasts of ``event`` (grouped by the tie rule of
    :mod:`ordmetrics._core.numerics`, 1e-12) rather than taking them as given (exact ties)."""
    return event == "cumulative"


# --------------------------------------------------------------------------------------------
# Inputs and events
# --------------------------------------------------------------------------------------------


def _prepare(
    y_true: Any,
    y_proba: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool,
) -> tuple[Any, np.ndarray, np.ndarray, int]:
    """Validated inputs (as the binned calibration functions validate them), P, the weights
    scaled by 2^-e (exact; :func:`ordmetrics._core.numerics.scale_weights`) and e."""
    prep = prepare_proba(
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        renormalize=renormalize,
    )
    P = np.asarray(prep.other, dtype=np.float64)
    w, e = np.ones(P.shape[0]), 0
    if prep.weight is not None:
        scaled, e = scale_weights(np.asarray(prep.weight, dtype=np.float64))
        assert scaled is not None
        w = scaled
    if not prep.propagate and not w.sum() > 0:
        raise ValueError(
            "sample_weight sums to 0 over the rows that are scored; at least one row needs a "
            "positive weight."
        )
    return prep, P, w, e


def _event_names(event: str, labels: tuple[Hashable, ...] | None, k: int) -> tuple[str, ...]:
    return event_names(_VIEW[event], labels, k)


def _events(P: np.ndarray, y: np.ndarray, event: str) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts (N, E) and outcomes (N, E) in {0., 1.}: the events of the binned views."""
    return event_forecasts(P, y, _VIEW[event])


def _check_event(event: Any) -> str:
    if event == "classwise":  # the name of the binned calibration functions' view
        return "class"
    return check_option(event, "event", EVENTS)


# --------------------------------------------------------------------------------------------
# The fit of one event
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Fit:
    order: np.ndarray  # rows sorted by forecast
    w: np.ndarray  # the weights of the rows (of positive weight), in row order
    x_sorted: np.ndarray
    starts: np.ndarray  # first row of every tie group, and N
    x: np.ndarray  # forecast value per tie group (the smallest of a group of near-ties)
    weight: np.ndarray
    observed: np.ndarray
    recalibrated: np.ndarray
    parts: tuple[float, float, float, float]  # score, MCB, DSC, UNC


def _fit(f: np.ndarray, o: np.ndarray, w: np.ndarray, computed: bool) -> _Fit:
    """Sort once, group ties, PAV, and the Brier decomposition of one event (rows w > 0)."""
    order = np.argsort(f)
    xs = f[order]
    starts = _pav.tie_starts(xs, computed)
    gw, go, sq = _pav.sorted_group_sums(order, xs, o, w, starts)
    r = _pav.pav(go, gw)
    total = float(gw.sum())
    score = sq / total
    # pairwise sums, not BLAS dot products, so the result does not depend on the thread count
    score_rc = float(np.sum(go * (1.0 - r) ** 2) + np.sum((gw - go) * (r * r))) / total
    base = float(go.sum()) / total
    unc = base * (1.0 - base)
    parts = (score, score - score_rc, unc - score_rc, unc)
    observed = np.minimum(go / gw, 1.0)
    gx = xs[starts[:-1]]  # the value, or the smallest value of a group of near-ties
    return _Fit(order, w, xs, starts, gx, gw, observed, r, parts)


def _fits(P: np.ndarray, y: np.ndarray, w: np.ndarray, event: str) -> list[_Fit]:
    f, o = _events(P, y, event)
    pos = w > 0
    if not pos.all():  # rows of weight 0 take no part
        f, o, w = f[pos], o[pos], w[pos]
    computed = computed_forecasts(event)
    return [
        _fit(np.ascontiguousarray(f[:, j]), np.ascontiguousarray(o[:, j]), w, computed)
        for j in range(f.shape[1])  # loop over events
    ]


def _frozen(a: Any) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


# --------------------------------------------------------------------------------------------
# Reliability
# --------------------------------------------------------------------------------------------


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
        Resamples behind the consistency bands; 0 for none. The paper uses 100 or more.
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
    depends on the outcomes only. Ties: exact for given probabilities, the 1e-12 rule of
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
    rng = _make_rng(random_state)  # validated also without resamples
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


# --------------------------------------------------------------------------------------------
# Decomposition of the Brier score and the RPS
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CorpDecomposition:
    r"""The CORP decomposition S = MCB - DSC + UNC of a mean score (:func:`corp_decomposition`).

    Attributes
    ----------
    rule : str
        ``"brier"`` or ``"rps"``.
    score : float
        The mean score S, equal to :func:`~ordmetrics.brier` or :func:`~ordmetrics.rps`
        (same ``normalize``) up to rounding.
    mcb, dsc, unc : float
        Miscalibration S(x) - S(r), discrimination S(o-bar) - S(r) and uncertainty S(o-bar),
        summed over the events (divided by K - 1 for the normalised RPS).
    events : tuple of str
        ``"y = <label>"`` (Brier, K events) or ``"y <= <label>"`` (RPS, K - 1 events).
    event_score, event_mcb, event_dsc, event_unc : ndarray of shape (n_events,)
        The binary Brier score of every event and its parts (not divided by K - 1).
    normalize : bool
        Whether the RPS was divided by K - 1 (always False for the Brier score).
    """

    rule: str
    score: float
    mcb: float
    dsc: float
    unc: float
    events: tuple[str, ...]
    event_score: np.ndarray
    event_mcb: np.ndarray
    event_dsc: np.ndarray
    event_unc: np.ndarray
    normalize: bool

    @property
    def components_sum(self) -> float:
        """MCB - DSC + UNC, equal to ``score`` up to rounding."""
        return self.mcb - self.dsc + self.unc

    def check(self, atol: float = 1e-12) -> bool:
        """Whether S = MCB - DSC + UNC holds within ``atol``."""
        return bool(abs(self.components_sum - self.score) <= atol)

    def __repr__(self) -> str:
        return (
            f"CorpDecomposition(rule={self.rule!r}, score={self.score:.6g}, "
            f"mcb={self.mcb:.6g}, dsc={self.dsc:.6g}, unc={self.unc:.6g})"
        )


@fill_doc(params=_PARAMS)
def corp_decomposition(
    y_true: Any,
    y_proba: Any,
    *,
    score: str = "brier",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
    normalize: bool = True,
) -> CorpDecomposition:
    r"""CORP decomposition S = MCB - DSC + UNC of the multiclass Brier score or the RPS.

    The score is a sum of binary Brier scores: over the K class events y = k with forecasts
    p_k (Brier), or over the K - 1 cumulative events y <= k with forecasts F_k (RPS, divided
    by K - 1 when ``normalize``). Every event is recalibrated by PAV on its own
    (:func:`corp_reliability`) and

    .. math::

        \mathrm{MCB} = \sum_e [S_e(x_e) - S_e(r_e)],\quad
        \mathrm{DSC} = \sum_e [S_e(\bar o_e) - S_e(r_e)],\quad
        \mathrm{UNC} = \sum_e \bar o_e (1 - \bar o_e)

    so S = MCB - DSC + UNC exactly (up to rounding, checked by ``check()`` to 1e-12).

    Parameters
    ----------
    %(params)s
    score : {"brier", "rps"}, default "brier"
        The score decomposed: :func:`~ordmetrics.brier` (sum over classes) or
        :func:`~ordmetrics.rps`.
    normalize : bool, default True
        For ``"rps"``: divide by K - 1 like :func:`~ordmetrics.rps`; ignored for ``"brier"``.

    Returns
    -------
    CorpDecomposition
        ``score``, ``mcb``, ``dsc``, ``unc`` and the per-event parts; NaN under
        ``nan_policy="propagate"`` with a missing value.

    Notes
    -----
    Ranges: Brier S in [0, 2], UNC = sum_k o_k (1 - o_k) in [0, 1 - 1/K]; RPS (normalised)
    S in [0, 1], UNC in [0, 1/4]. MCB >= 0 (lower is better, 0 for a forecast that is its own
    recalibration), DSC in [0, UNC] (higher is better). UNC is the score of the climatological
    forecast, so the skill score against climatology is (DSC - MCB) / UNC.

    Unlike :func:`~ordmetrics.brier_decomposition`, there are no bins and no within-bin
    terms: the recalibration is the isotonic one. The recalibrated forecasts are fitted event
    by event, so a row's recalibrated class probabilities need not sum to 1 and its
    recalibrated cumulative forecasts need not increase; the decomposition is defined
    threshold by threshold and stays exact.

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T., Jordan, A. I. (2021). Stable reliability diagrams
       for probabilistic classifiers. PNAS 118(8), e2016191118.
    .. [2] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.

    Examples
    --------
    Threshold y <= 0: F_0 = 0.6, 0.5, 0.1, 0.3, 0.2, 0.3 with outcomes 1, 0, 0, 0, 0, 1. PAV
    pools 0.3 (event rate 1/2) with 0.5 (rate 0) to 1/3, so S(r) = 1/9, UNC = 2/9,
    DSC = 1/9 and MCB = 1.04/6 - 1/9; threshold y <= 1 adds its own parts.

    >>> import ordmetrics as om
    >>> from ordmetrics.metrics.corp import corp_decomposition
    >>> y = [0, 1, 2, 2, 1, 0]
    >>> P = [[0.6, 0.3, 0.1], [0.5, 0.3, 0.2], [0.1, 0.3, 0.6],
    ...      [0.3, 0.3, 0.4], [0.2, 0.6, 0.2], [0.3, 0.4, 0.3]]
    >>> d = corp_decomposition(y, P, score="rps")
    >>> [round(v, 6) for v in (d.score, d.mcb, d.dsc, d.unc)]
    [0.145, 0.089444, 0.166667, 0.222222]
    >>> d.event_mcb.round(6)  # per threshold, not divided by K - 1
    array([0.062222, 0.116667])
    >>> d.check(), abs(d.score - om.rps(y, P)) < 1e-12
    (True, True)
    >>> b = corp_decomposition(y, P)  # the Brier score: the K class events
    >>> round(b.score, 10), b.check()
    (0.47, True)
    """
    rule = check_option(score, "score", SCORES)
    normalize = check_flag(normalize, "normalize")
    prep, P, w, _ = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    ev = "class" if rule == "brier" else "cumulative"
    names = _event_names(ev, prep.labels, prep.n_classes)
    norm = bool(normalize) and rule == "rps"
    if prep.propagate:
        nan = np.full(len(names), np.nan)
        parts = [nan] * 4
    else:
        fits = _fits(P, prep.y_true, w, ev)
        parts = [np.array([f.parts[j] for f in fits]) for j in range(4)]
    div = (P.shape[1] - 1) if norm else 1
    total = [float(p.sum()) / div for p in parts]
    return CorpDecomposition(
        rule=rule,
        score=total[0],
        mcb=total[1],
        dsc=total[2],
        unc=total[3],
        events=names,
        event_score=_frozen(parts[0]),
        event_mcb=_frozen(parts[1]),
        event_dsc=_frozen(parts[2]),
        event_unc=_frozen(parts[3]),
        normalize=norm,
    )
