"""CORP inputs, events and the fit of one event: the isotonic (PAV) recalibration and its parts.

The base of :mod:`ordmetrics.metrics.corp` (see its notes): the checked inputs, the forecasts and
outcomes of the events, and for one event the PAV fit of the outcomes on the forecasts with the
score, miscalibration, discrimination and uncertainty parts.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core import pav as _pav
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import (
    check_option,
    prepare_proba,
)
from ordmetrics.metrics.calibration import (
    event_forecasts,
    event_names,
)

__all__ = ["BAND_POINTS", "EVENTS", "SCORES", "computed_forecasts"]

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
