"""CORP inputs, events and the fit of one event: the isotonic (PAV) recalibration and its parts.

The base of :mod:`ordmetrics.metrics.corp` (see its notes): the checked inputs, the forecasts and
outcomes of the events, and for one event the PAV fit of the outcomes on the forecasts with the
score, miscalibration, discrimination and uncertainty parts.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
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
    :mod:`ordmetrics._core.numerics`, 1e-12 relative) rather than taking them as given (exact
    ties)."""
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


def _event_columns(
    P: np.ndarray, y: np.ndarray, event: str
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The forecasts and outcomes (float64, N each) of the events, one event at a time: the
    columns of :func:`~ordmetrics.metrics.calibration.event_forecasts` bit for bit (the
    cumulative forecasts added column by column in the order of ``np.cumsum``), never the
    (N, E) matrices. The vectors are buffers reused
    from one event to the next."""
    n, k = P.shape
    if event == "top_label":
        f, o = event_forecasts(P, y, "top_label")
        yield np.ascontiguousarray(f[:, 0]), np.ascontiguousarray(o[:, 0])
        return
    f = np.empty(n)
    o = np.empty(n)
    for j in range(k if event == "class" else k - 1):
        if event == "class" or j == 0:
            f[:] = P[:, j]
        else:
            np.add(f, P[:, j], out=f)  # F_j = F_{j-1} + p_j, as np.cumsum adds
        if event == "class":
            np.equal(y, j, out=o, casting="unsafe")
        else:
            np.less_equal(y, j, out=o, casting="unsafe")
        yield f, o


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


def _fits(P: np.ndarray, y: np.ndarray, w: np.ndarray, event: str) -> Iterator[_Fit]:
    """The fit of every event, one at a time: the memory beyond the input is a few vectors of
    N values (those of the fit in hand), whatever the number of events."""
    pos = w > 0
    keep = None if pos.all() else pos  # rows of weight 0 take no part
    if keep is not None:
        w = w[keep]
    computed = computed_forecasts(event)
    for f, o in _event_columns(P, y, event):
        if keep is not None:
            f, o = f[keep], o[keep]
        # the fit keeps no reference to the buffers, which the next event overwrites
        yield _fit(f, o, w, computed)


def _frozen(a: Any) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a
