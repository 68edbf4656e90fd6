"""The data of reliability diagrams: mean forecast, observed frequency and weight per bin.

From the binned sums of :mod:`ordmetrics.metrics.calibration.binning`, the same as the expected
calibration errors. Definitions: ``docs/definitions.md``, section 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import check_option
from ordmetrics.metrics.calibration.binning import (
    _BIN_PARAMS,
    _PARAMS_TEMPLATE,
    STRATEGIES,
    VIEWS,
    _ece_reduce,
    bin_sums,
    check_n_bins,
    event_forecasts,
    event_names,
    prepare,
)

__all__ = ["ReliabilityDiagram", "reliability"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ReliabilityDiagram:
    """The data of a reliability diagram (computed by :func:`reliability`).

    For ``view="top_label"`` the arrays are 1-D (one entry per bin); for ``"classwise"`` and
    ``"cumulative"`` they are 2-D with one row per event (``events``). Arrays are read-only.

    Attributes
    ----------
    view : str
        ``"top_label"``, ``"classwise"`` or ``"cumulative"``.
    strategy : str
        ``"uniform"`` or ``"quantile"``.
    n_bins : int
        Number of bins B.
    events : tuple of str
        ``("top_label",)``, ``("y = <label>", ...)`` (K events) or ``("y <= <label>", ...)``
        (K - 1 events).
    bin_edges : ndarray of shape (B + 1,) or (n_events, B + 1)
        Bin b holds the forecasts between ``bin_edges[..., b]`` and ``bin_edges[..., b + 1]``.
        Quantile edges are the smallest forecast, the weighted quantiles and the largest
        forecast.
    mean_confidence : ndarray of shape (B,) or (n_events, B)
        Mean forecast per bin (weighted); NaN for empty bins.
    observed_frequency : ndarray of shape (B,) or (n_events, B)
        Weighted fraction of rows in the bin where the event happened; NaN for empty bins.
    weight : ndarray of shape (B,) or (n_events, B)
        Total weight per bin (row counts when unweighted); 0 for empty bins. Each event's
        weights add up to ``total_weight``. In the caller's units: a sum beyond the float
        range (above about 1.8e308) is ``inf``, while ``ece`` stays exact (it is computed from
        the weights scaled by a power of two).
    total_weight : float
        W, the total weight of the rows.
    """

    view: str
    strategy: str
    n_bins: int
    events: tuple[str, ...]
    bin_edges: np.ndarray
    mean_confidence: np.ndarray
    observed_frequency: np.ndarray
    weight: np.ndarray
    total_weight: float
    # W_b and W scaled by the power of two of ordmetrics._core.numerics.scale_weights: finite
    # whatever the caller's units, the sums the ECE functions reduce
    _scaled_weight: np.ndarray | None = field(default=None, repr=False)
    _scaled_total: float = field(default=math.nan, repr=False)

    @property
    def ece(self) -> float | np.ndarray:
        """The binary ECE sum_b (W_b / W) |o_b - f_b| of each event (a float for top-label).

        Averaging it over the events gives :func:`classwise_ece` / :func:`cumulative_ece`.
        """
        weight, total = self.weight, self.total_weight
        if self._scaled_weight is not None:
            weight, total = self._scaled_weight, self._scaled_total
        out = _ece_reduce(weight, self.mean_confidence, self.observed_frequency, total)
        return float(out) if self.view == "top_label" else np.asarray(out)


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def reliability(
    y_true: Any,
    y_proba: Any,
    *,
    view: str = "top_label",
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> ReliabilityDiagram:
    r"""Data of a reliability diagram: mean forecast, observed frequency and weight per bin.

    For each event of the ``view`` the forecasts are binned; per bin b

    .. math::

        W_b = \sum_{i \in b} w_i,\qquad
        f_b = \frac{1}{W_b} \sum_{i \in b} w_i f_i,\qquad
        o_b = \frac{1}{W_b} \sum_{i \in b} w_i o_i

    with f_i the forecast and o_i = 1 if the event happened in row i, else 0. A calibrated
    forecast has o_b close to f_b in every bin (the points lie on the diagonal).

    Parameters
    ----------
    %(params)s
    view : {"top_label", "classwise", "cumulative"}, default "top_label"
        ``"top_label"``: confidence max_k p_k for the event "the argmax class is correct";
        ``"classwise"``: p_k for y = k, one row per class; ``"cumulative"``: F_k for y <= k,
        one row per threshold k = 1..K-1.
    %(bin_params)s

    Returns
    -------
    ReliabilityDiagram
        With ``bin_edges``, ``mean_confidence`` (f_b), ``observed_frequency`` (o_b),
        ``weight`` (W_b), ``events`` and ``total_weight``; empty bins have NaN means and
        weight 0. Under ``nan_policy="propagate"`` with a missing value, every mean and weight
        is NaN (and quantile edges too).

    Notes
    -----
    ``result.ece`` is the binary ECE of each event; :func:`ece`, :func:`classwise_ece` and
    :func:`cumulative_ece` are computed from the same binned sums.

    References
    ----------
    .. [1] DeGroot, M. H., Fienberg, S. E. (1983). The comparison and evaluation of
       forecasters. Journal of the Royal Statistical Society D 32(1-2), 12-22.
    .. [2] Bröcker, J., Smith, L. A. (2007). Increasing the reliability of reliability
       diagrams. Weather and Forecasting 22(3), 651-661.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import reliability
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> r = reliability(y, P, n_bins=2)
    >>> r.bin_edges
    array([0. , 0.5, 1. ])
    >>> r.mean_confidence, r.observed_frequency, r.weight
    (array([0.425, 0.85 ]), array([0.5, 0.5]), array([2., 2.]))
    >>> round(r.ece, 10)
    0.2125
    """
    check_option(view, "view", VIEWS)
    nb = check_n_bins(n_bins)
    assert nb is not None
    check_option(strategy, "strategy", STRATEGIES)
    prep, P, w = prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    names = event_names(view, prep.labels, prep.n_classes)
    if prep.propagate:  # a value is missing: every number is NaN
        mean_f = np.full((len(names), nb), np.nan)
        mean_o = weight = scaled = mean_f
        total = scaled_total = math.nan
        edges = np.full((len(names), nb + 1), np.nan)
        if strategy == "uniform":
            edges[:] = np.linspace(0.0, 1.0, nb + 1)
    else:
        f, o = event_forecasts(P, prep.y_true, view)
        bins = bin_sums(f, o, w, nb, strategy)
        mean_f, mean_o = bins.means
        # the weights back in the caller's units (the bins used them scaled by 2^-e)
        e = 0 if prep.weight is None else scale_weights(prep.weight)[1]
        with np.errstate(over="ignore"):
            weight, total = np.ldexp(bins.weight, e), float(np.ldexp(bins.total_weight, e))
        scaled, scaled_total = bins.weight, bins.total_weight
        edges = bins.edges
    if view == "top_label":
        edges, mean_f, mean_o, weight = edges[0], mean_f[0], mean_o[0], weight[0]
        scaled = scaled[0]
    return ReliabilityDiagram(
        view=view,
        strategy=strategy,
        n_bins=nb,
        events=names,
        bin_edges=_frozen(edges),
        mean_confidence=_frozen(mean_f),
        observed_frequency=_frozen(mean_o),
        weight=_frozen(weight),
        total_weight=total,
        _scaled_weight=_frozen(scaled),
        _scaled_total=scaled_total,
    )
