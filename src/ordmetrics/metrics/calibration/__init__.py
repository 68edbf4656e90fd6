r"""Calibration: expected calibration errors, reliability diagrams, score decompositions, skill.

A forecast is calibrated when, among the samples given probability f for an event, the event
happens a fraction f of the time. Every function here looks at one or more *binary events* with
a *forecast* for each:

============  ==================================  ===========================================
view          event (one per ...)                 forecast
============  ==================================  ===========================================
top-label     the argmax class is correct         confidence c = max_k p_k
classwise     y = k, for k = 1..K                 p_k
cumulative    y <= k, for k = 1..K-1 (ordinal)    F_k = p_1 + ... + p_k
============  ==================================  ===========================================

The forecasts of an event are grouped into bins. With (frequency) weights w_i, bin b holds the
weight W_b, the mean forecast f_b and the observed frequency o_b of the event. The binning rules
live in one module (:mod:`~ordmetrics.metrics.calibration.binning`); the expected calibration
errors and the binned decompositions compute the same binned sums with compiled kernels that
validate, form the events and bin in one pass over the rows
(:mod:`~ordmetrics.metrics.calibration.fused`); the expected calibration errors, the reliability
diagram data and the score decompositions are reductions of those sums.

* :func:`ece`, :func:`classwise_ece`, :func:`cumulative_ece`: sum_b (W_b / W) |o_b - f_b|,
  averaged over the events of the view.
* :func:`reliability`: the data of a reliability diagram (bin edges, f_b, o_b, W_b per event).
* :func:`brier_decomposition`, :func:`rps_decomposition`: reliability - resolution +
  uncertainty (+ the two within-bin terms when forecasts are binned), adding up exactly to
  :func:`~ordmetrics.brier` and :func:`~ordmetrics.rps`.
* :func:`skill_score`: 1 - S / S_ref against the climatological (or any) reference forecast.

Binning strategies (``n_bins`` = B bins):

``"uniform"``
    Bin b = min(floor(f * B), B - 1) on [0, 1]; edges 0, 1/B, ..., 1. A forecast of exactly 1
    (or a cumulative forecast a rounding error above it) goes to the last bin, and a forecast
    within 1e-12 below an edge j / B lies on the edge and goes to bin j (``0.57 * 100`` is
    ``56.99999999999999`` in float64; 0.57 goes to bin 57): the tie rule of
    :mod:`ordmetrics._core.numerics`.
``"quantile"``
    Equal (weighted) mass. The inner edges are the weighted quantiles
    q_j = min{v : W(values <= v) >= j W / B}, j = 1..B-1, of the forecast values (rows of
    weight 0 take no part), and bin b holds the values in (q_b, q_{b+1}] (bin 0 also the
    smallest value). Equivalently, a value v goes to bin min(floor(B W_{<v} / W), B - 1), where
    W_{<v} is the weight of the values strictly below v. All rows with the same value share a
    bin (ties are never split), so heavy ties can leave bins empty; without ties and with N
    unit-weight rows, B dividing N, every bin holds exactly N / B rows. By the tie rule of
    :mod:`ordmetrics._core.numerics`, forecasts within 1e-12 times the larger of each other are
    tied (a cumulative forecast carries rounding; rows of weight 0 link no two forecasts), and
    W_{<v} / W within 1e-12 below j / B counts as j / B, so that the
    bins do not depend on the scale of the weights: with ``w = [1, 3, 2]`` and ``0.3 * w``
    (0.8999999999999999 for 0.3 * 3) the same rows share a bin.

Weights are scaled by an exact power of two before binning
(:func:`ordmetrics._core.numerics.scale_weights`): every result is the same for w and c w, and the
weights reported by :func:`reliability` are in the caller's units.
"""

from __future__ import annotations

from ordmetrics.metrics.calibration.binning import (
    STRATEGIES,
    VIEWS,
    Bins,
    bin_sums,
    check_n_bins,
    ece_from_sums,
    event_forecasts,
    event_names,
    prepare,
)
from ordmetrics.metrics.calibration.decomposition import (
    ScoreDecomposition,
    brier_decomposition,
    rps_decomposition,
)
from ordmetrics.metrics.calibration.ece import (
    classwise_ece,
    counts_evaluator,
    cumulative_ece,
    ece,
)
from ordmetrics.metrics.calibration.reliability import ReliabilityDiagram, reliability
from ordmetrics.metrics.calibration.skill import skill_score

__all__ = [
    "STRATEGIES",
    "VIEWS",
    "Bins",
    "ReliabilityDiagram",
    "ScoreDecomposition",
    "bin_sums",
    "brier_decomposition",
    "check_n_bins",
    "classwise_ece",
    "counts_evaluator",
    "cumulative_ece",
    "ece",
    "ece_from_sums",
    "event_forecasts",
    "event_names",
    "prepare",
    "reliability",
    "rps_decomposition",
    "skill_score",
]
