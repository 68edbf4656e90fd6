"""The CORP decomposition S = MCB - DSC + UNC of the multiclass Brier score and the RPS.

Built on the fits of :mod:`ordmetrics.metrics.corp.fit`; see the notes of
:mod:`ordmetrics.metrics.corp`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.validation import (
    check_flag,
    check_option,
)
from ordmetrics.metrics.corp.fit import (
    _PARAMS,
    SCORES,
    _event_names,
    _fits,
    _frozen,
    _prepare,
)

__all__ = ["CorpDecomposition", "corp_decomposition"]


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
        # one event at a time: only its four parts are kept
        per_event = np.array([f.parts for f in _fits(P, prep.y_true, w, ev)]).reshape(-1, 4)
        parts = [per_event[:, j] for j in range(4)]
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
