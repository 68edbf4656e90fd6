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
weight W_b, the mean forecast f_b and the observed frequency o_b of the event. All binning goes
through one private function; the expected calibration errors, the reliability diagram data and
the score decompositions are reductions of the same binned sums.

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
    :mod:`ordmetrics._core.numerics`, forecasts equal within 1e-12 are tied (a cumulative forecast
    carries rounding), and W_{<v} / W within 1e-12 below j / B counts as j / B, so that the
    bins do not depend on the scale of the weights: with ``w = [1, 3, 2]`` and ``0.3 * w``
    (0.8999999999999999 for 0.3 * 3) the same rows share a bin.

Weights are scaled by an exact power of two before binning
(:func:`ordmetrics._core.numerics.scale_weights`): every result is the same for w and c w, and the
weights reported by :func:`reliability` are in the caller's units.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import (
    bin_of_fraction,
    group_ids_sorted,
    scale_weights,
    snap,
)
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
    register,
)
from ordmetrics._core.validation import (
    Prepared,
    as_proba,
    as_weights,
    check_flag,
    check_option,
    encode_labels,
    prepare_proba,
    sum_tolerance,
    type_name,
)
from ordmetrics._core.warnings import warn_undefined

__all__ = [
    "ReliabilityDiagram",
    "ScoreDecomposition",
    "brier_decomposition",
    "classwise_ece",
    "cumulative_ece",
    "ece",
    "reliability",
    "rps_decomposition",
    "skill_score",
]

STRATEGIES = ("uniform", "quantile")
VIEWS = ("top_label", "classwise", "cumulative")

#: Registry kinds whose metrics take ``(y_true, y_proba)`` and can have a skill score.
_SKILL_KINDS = ("scoring_rule", "calibration")

#: The parameters every function shares, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_PARAMS_TEMPLATE = """\
    %(y_true)s
    %(y_proba)s
    %(labels)s
    %(sample_weight)s
    %(nan_policy)s
    %(renormalize)s"""

_BIN_PARAMS = """\
    n_bins : int, default 15
        Number of bins B (a positive integer).
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: bin b = min(floor(f * B), B - 1), edges 0, 1/B, ..., 1.
        ``"quantile"``: bins of equal weighted mass, edges at the weighted quantiles of the
        forecasts; rows with equal forecasts always share a bin (see the module notes)."""


# --------------------------------------------------------------------------------------------
# Option checks
# --------------------------------------------------------------------------------------------


def _check_n_bins(n_bins: Any, *, allow_none: bool = False) -> int | None:
    """A positive int (or None where ``allow_none``); clear errors otherwise."""
    if n_bins is None and allow_none:
        return None
    expected = "a positive integer" + (
        " or None (one bin per distinct forecast value)" if allow_none else ""
    )
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer):
        raise TypeError(
            f"n_bins must be {expected}, e.g. n_bins=10; got {type_name(n_bins)} {n_bins!r}. "
            "Pass a whole number of bins."
        )
    if n_bins < 1:
        raise ValueError(
            f"n_bins must be {expected}, e.g. n_bins=10; got {int(n_bins)}. At least one bin "
            "is needed."
        )
    return int(n_bins)


def _prepare(
    y_true: Any,
    y_proba: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool,
) -> tuple[Prepared, np.ndarray, np.ndarray]:
    """Validated inputs, the float64 probability matrix and the weights (ones if unweighted)."""
    prep = prepare_proba(
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy=nan_policy,
        renormalize=renormalize,
    )
    P = np.asarray(prep.other, dtype=np.float64)
    # weights scaled by an exact power of two (ordmetrics._core.numerics.scale_weights): W_b, the
    # products w_i f_i and every sum stay finite and normal at any scale of the weights
    w = np.ones(P.shape[0]) if prep.weight is None else scale_weights(prep.weight)[0]
    if not prep.propagate and not w.sum() > 0:
        raise ValueError(
            "sample_weight sums to 0 over the rows that are scored; at least one row needs a "
            "positive weight."
        )
    return prep, P, w


# --------------------------------------------------------------------------------------------
# Events and binning: the one place where forecasts are binned
# --------------------------------------------------------------------------------------------


def event_names(view: str, labels: tuple[Hashable, ...] | None, k: int) -> tuple[str, ...]:
    """Names of the events of ``view`` for K = ``k`` classes."""
    names = [str(v) for v in (labels if labels is not None else range(k))]
    if view == "top_label":
        return ("top_label",)
    if view == "classwise":
        return tuple(f"y = {v}" for v in names)
    return tuple(f"y <= {v}" for v in names[: k - 1])


def event_forecasts(P: np.ndarray, y: np.ndarray, view: str) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts (N, E) and binary outcomes (N, E, as float) of the events of ``view``."""
    k = P.shape[1]
    if view == "top_label":
        f = P.max(axis=1)[:, None]
        o = (P.argmax(axis=1) == y).astype(np.float64)[:, None]  # argmax: ties to lowest class
        return f, o
    if view == "classwise":
        return P, (y[:, None] == np.arange(k)).astype(np.float64)
    f = np.ascontiguousarray(np.cumsum(P, axis=1)[:, : k - 1])
    return f, (y[:, None] <= np.arange(k - 1)).astype(np.float64)


def _bin_index(
    f: np.ndarray, w: np.ndarray, n_bins: int | None, strategy: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """Bin of every forecast, per event column.

    Returns ``(index, edges, B)``: ``index`` (N, E) in ``0..B-1``; ``edges`` (E, B + 1) for
    ``n_bins`` bins, or for ``n_bins=None`` the distinct forecast values of each event, (E, B),
    padded with NaN (one bin per distinct value, B the largest number of distinct values).
    """
    n, e = f.shape
    if n_bins is None:
        index = np.empty((n, e), dtype=np.int64)
        values = []
        for j in range(e):  # loop over events
            # distinct values by the tie rule (a cumulative forecast carries rounding)
            v, inv = np.unique(snap(f[:, j]), return_inverse=True)
            index[:, j] = inv.reshape(-1)
            values.append(v)
        b = max(v.size for v in values)
        table = np.full((e, b), np.nan)
        for j, v in enumerate(values):
            table[j, : v.size] = v
        return index, table, b
    if strategy == "uniform":
        # a forecast within the tie tolerance below an edge j / B lies on it (bin j)
        index = bin_of_fraction(f, n_bins)
        edges = np.tile(np.linspace(0.0, 1.0, n_bins + 1), (e, 1))
        return index, edges, n_bins
    # quantile: a forecast v goes to bin min(floor(B W_{<v} / W), B - 1), with the forecasts
    # grouped by the tie rule of ordmetrics._core.numerics (near-equal forecasts share a bin) and
    # W_{<v} / W compared with the edges j / B by the same rule; rows of weight 0 take no
    # part (they go to the bin of the group at or above their value, and add nothing)
    index = np.empty((n, e), dtype=np.int64)
    edges = np.empty((e, n_bins + 1))
    positive = w > 0
    zero = ~positive
    wp = w[positive]
    total = float(wp.sum())
    for j in range(e):  # loop over events
        col = np.ascontiguousarray(f[:, j])
        cp = col[positive]
        order = np.argsort(cp, kind="stable")
        sv = cp[order]
        gid = group_ids_sorted(sv)
        n_groups = int(gid[-1]) + 1
        gw = np.bincount(gid, weights=wp[order], minlength=n_groups)
        gbin = bin_of_fraction((np.cumsum(gw) - gw) / total, n_bins)
        g_top = sv[np.append(np.flatnonzero(np.diff(gid)), sv.size - 1)]  # group maxima
        at = np.empty(cp.size, dtype=np.int64)
        at[order] = gid
        index[positive, j] = gbin[at]
        if zero.any():
            at_zero = np.searchsorted(g_top, col[zero], side="left")
            index[zero, j] = gbin[np.minimum(at_zero, n_groups - 1)]
        # inner edge q_b (b = 1..B-1): the largest forecast of the bins below b
        last_below = np.searchsorted(gbin, np.arange(1, n_bins), side="left") - 1
        edges[j, 1:-1] = g_top[np.maximum(last_below, 0)]
        edges[j, 0] = sv[0]
        edges[j, -1] = sv[-1]
    return index, edges, n_bins


@dataclass(frozen=True)
class _Bins:
    """Weighted sums per (event, bin): the single source of every binned statistic."""

    index: np.ndarray  # (N, E) bin of each forecast
    edges: np.ndarray  # (E, B + 1), or (E, B) distinct values for n_bins=None
    weight: np.ndarray  # (E, B) W_b
    sum_forecast: np.ndarray  # (E, B) sum of w_i f_i
    sum_event: np.ndarray  # (E, B) sum of w_i o_i
    total_weight: float  # W

    @property
    def means(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean forecast and observed frequency per bin; NaN for bins of weight 0."""
        return _bin_means(self.weight, self.sum_forecast, self.sum_event)


def _bin_means(
    weight: np.ndarray, sum_forecast: np.ndarray, sum_event: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    empty = weight <= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_f = np.where(empty, np.nan, sum_forecast / weight)
        mean_o = np.where(empty, np.nan, sum_event / weight)
    return mean_f, mean_o


def ece_from_sums(
    weight: np.ndarray, sum_forecast: np.ndarray, sum_event: np.ndarray, total_weight: float
) -> np.ndarray:
    """Binary ECE per event from its bin sums (E, B): the reduction behind every ECE here.

    Also what :mod:`ordmetrics.stream` applies to sums accumulated over batches.
    """
    mean_f, mean_o = _bin_means(weight, sum_forecast, sum_event)
    return _ece_reduce(weight, mean_f, mean_o, total_weight)


def _bin_sums(
    f: np.ndarray, o: np.ndarray, w: np.ndarray, n_bins: int | None, strategy: str
) -> _Bins:
    """Bin the forecasts ``f`` (N, E) of the events ``o`` (N, E) and add up per bin."""
    n, e = f.shape
    index, edges, b = _bin_index(f, w, n_bins, strategy)
    flat = (index + np.arange(e) * b).ravel()
    ww = np.broadcast_to(w[:, None], (n, e))
    size = e * b
    weight = np.bincount(flat, weights=ww.ravel(), minlength=size).reshape(e, b)
    s_f = np.bincount(flat, weights=(ww * f).ravel(), minlength=size).reshape(e, b)
    s_o = np.bincount(flat, weights=(ww * o).ravel(), minlength=size).reshape(e, b)
    return _Bins(index, edges, weight, s_f, s_o, float(w.sum()))


def _ece_reduce(
    weight: np.ndarray, mean_f: np.ndarray, mean_o: np.ndarray, total: float
) -> np.ndarray:
    """sum_b (W_b / W) |o_b - f_b| over the non-empty bins, per event (last axis = bins)."""
    gap = np.where(weight > 0, np.abs(mean_o - mean_f), 0.0)
    return np.sum(weight / total * gap, axis=-1)


def _event_columns(
    P: np.ndarray, y: np.ndarray, view: str
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The forecasts and outcomes of the events of ``view`` ("classwise" or "cumulative"), one
    event at a time: two vectors of N values each, never the (N, E) matrices of
    :func:`event_forecasts` (whose values they equal bit for bit: the cumulative forecasts are added
    column by column in the order of ``np.cumsum``).

    The two vectors are buffers reused from one event to the next: use them before asking for
    the next event.
    """
    n, k = P.shape
    f = np.empty(n, dtype=P.dtype)
    o = np.empty(n)
    for j in range(k if view == "classwise" else k - 1):
        if view == "classwise" or j == 0:
            f[:] = P[:, j]
            np.equal(y, j, out=o, casting="unsafe")
        else:
            np.add(f, P[:, j], out=f)  # F_j = F_{j-1} + p_j, as np.cumsum adds
        if view == "cumulative":
            np.less_equal(y, j, out=o, casting="unsafe")
        yield f, o


def _column_sums(
    f: np.ndarray,
    o: np.ndarray,
    w: np.ndarray,
    n_bins: int | None,
    strategy: str,
    tmp: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(index, edges, weight, sum_forecast, sum_event)`` of one event (vectors ``f``, ``o``):
    the binning and the sums of :func:`_bin_sums` for a single column (``tmp``: a buffer of N
    values, overwritten)."""
    index2, edges, b = _bin_index(f[:, None], w, n_bins, strategy)
    index = index2[:, 0]
    del index2
    weight = np.bincount(index, weights=w, minlength=b)
    s_f = np.bincount(index, weights=np.multiply(w, f, out=tmp), minlength=b)
    s_o = np.bincount(index, weights=np.multiply(w, o, out=tmp), minlength=b)
    return index, edges[0], weight, s_f, s_o


def _ece_columns(
    P: np.ndarray, y: np.ndarray, w: np.ndarray, view: str, n_bins: int, strategy: str
) -> np.ndarray:
    """Binary ECE of every event of ``view`` ("classwise", "cumulative"), one event at a time:
    the memory beyond the input is a few vectors of N values, whatever K."""
    total = float(w.sum())
    tmp = np.empty(w.size)
    out = []
    for f, o in _event_columns(P, y, view):
        _, _, weight, s_f, s_o = _column_sums(f, o, w, n_bins, strategy, tmp)
        out.append(ece_from_sums(weight[None], s_f[None], s_o[None], total)[0])
    return np.array(out)


def _ece_per_event(
    view: str,
    y_true: Any,
    y_proba: Any,
    n_bins: Any,
    strategy: str,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool,
) -> np.ndarray | None:
    """Binary ECE of every event of ``view``; None when the nan_policy propagates."""
    nb = _check_n_bins(n_bins)
    check_option(strategy, "strategy", STRATEGIES)
    prep, P, w = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    if prep.propagate:
        return None
    if view != "top_label" and nb is not None:  # one event at a time (bounded memory)
        return _ece_columns(P, prep.y_true, w, view, nb, strategy)
    f, o = event_forecasts(P, prep.y_true, view)
    bins = _bin_sums(f, o, w, nb, strategy)
    return ece_from_sums(bins.weight, bins.sum_forecast, bins.sum_event, bins.total_weight)


# --------------------------------------------------------------------------------------------
# Expected calibration errors
# --------------------------------------------------------------------------------------------


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Top-label expected calibration error (ECE).

    .. math::

        \mathrm{ECE} = \sum_{b=1}^{B} \frac{W_b}{W}\,\lvert \mathrm{acc}_b - \mathrm{conf}_b
        \rvert

    The confidence of a row is c = max_k p_k and the row is correct when its argmax class
    (ties to the lowest class) is the true class. Rows are binned by confidence; acc_b is the
    weighted fraction of correct rows in bin b, conf_b their mean confidence and W_b their
    weight (W the total weight). Empty bins add nothing.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. The value depends
    on the binning (more bins: more noise, fewer bins: more averaging out); compare models
    with the same ``n_bins`` and ``strategy``. Only the most probable class is looked at: use
    :func:`cumulative_ece` for the calibration of the whole ordinal distribution.

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G. F., Hauskrecht, M. (2015). Obtaining well calibrated
       probabilities using Bayesian binning. AAAI 2015.
    .. [2] Guo, C., Pleiss, G., Sun, Y., Weinberger, K. Q. (2017). On calibration of modern
       neural networks. ICML 2017.

    Examples
    --------
    Two rows of confidence >= 0.5 (bin 1 of 2: one correct, mean confidence 0.85) and two
    below (bin 0: one correct, mean confidence 0.425):

    >>> from ordmetrics.metrics.calibration import ece
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> round(ece(y, P, n_bins=2), 10)  # 0.5 * |0.5 - 0.85| + 0.5 * |0.5 - 0.425|
    0.2125
    """
    out = _ece_per_event(
        "top_label",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(out[0])


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def classwise_ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Classwise expected calibration error (Kull et al. 2019).

    .. math::

        \mathrm{cwECE} = \frac{1}{K} \sum_{k=1}^{K} \sum_{b=1}^{B} \frac{W_{kb}}{W}
        \,\lvert o_{kb} - f_{kb} \rvert

    The mean over classes k of the binary ECE of the forecast p_k for the event y = k: the
    rows are binned by p_k, f_kb is the mean of p_k in bin b, o_kb the weighted fraction of
    rows of class k there and W_kb the weight of the bin.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The classwise ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. Every class
    counts equally, also classes absent from ``y_true`` (their event never happens). The
    per-class values are ``reliability(..., view="classwise").ece``.

    References
    ----------
    .. [1] Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H., Flach, P.
       (2019). Beyond temperature scaling: obtaining well-calibrated multiclass probabilities
       with Dirichlet calibration. NeurIPS 2019.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import classwise_ece
    >>> y = [0, 1]
    >>> P = [[0.8, 0.2], [0.4, 0.6]]
    >>> round(classwise_ece(y, P, n_bins=2), 10)  # both classes: (|1 - 0.8| + |0 - 0.4|) / 2
    0.3
    """
    out = _ece_per_event(
        "classwise",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(np.mean(out))


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def cumulative_ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Cumulative (ordinal) expected calibration error.

    .. math::

        \mathrm{cumECE} = \frac{1}{K-1} \sum_{k=1}^{K-1} \sum_{b=1}^{B} \frac{W_{kb}}{W}
        \,\lvert o_{kb} - f_{kb} \rvert

    The mean over the K - 1 thresholds k of the binary ECE of the cumulative forecast
    F_k = p_1 + ... + p_k for the event y <= k: rows are binned by F_k, f_kb is the mean of
    F_k in bin b and o_kb the weighted fraction of rows with y <= k there.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The cumulative ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. The calibration
    counterpart of the RPS, which is the mean Brier score of the same K - 1 events (see
    :func:`rps_decomposition`). For K = 2 it is the binary ECE of the first column p_1 for
    the event "y is the first class". The per-threshold values are
    ``reliability(..., view="cumulative").ece``.

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H., Flach, P.
       (2019). Beyond temperature scaling: obtaining well-calibrated multiclass probabilities
       with Dirichlet calibration. NeurIPS 2019.

    Examples
    --------
    Threshold 1 (F_1 = 0.6 and 0.2; y <= first class: yes, no) and threshold 2 (F_2 = 0.9 and
    0.7; both yes), two bins:

    >>> from ordmetrics.metrics.calibration import cumulative_ece
    >>> y = [0, 1]
    >>> P = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]]
    >>> round(cumulative_ece(y, P, n_bins=2), 10)  # ((0.4 + 0.2) / 2 + 0.2) / 2
    0.25
    """
    out = _ece_per_event(
        "cumulative",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(np.mean(out))


def counts_evaluator(
    name: str,
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: Any = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> tuple[Callable[[np.ndarray], float], int] | None:
    """Prepare an ECE once for many evaluations under frequency weights.

    Validates the inputs, computes the forecasts and outcomes of the events and the bin of
    every forecast once, and returns ``(evaluate, n)``: ``evaluate(counts)`` is the metric
    ``name`` (``"ece"``, ``"classwise_ece"`` or ``"cumulative_ece"``) with
    ``sample_weight = w * counts``, ``counts`` a vector over the ``n`` scored rows (the
    complete rows under ``nan_policy="omit"``, in order). Each evaluation only adds up the
    weights per bin (the same sums, in the same order, as the metric). Returns None when the
    bins depend on the weights (``strategy="quantile"`` with ``n_bins`` bins) or the inputs
    propagate a missing value; the metric must then be called itself.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration import counts_evaluator, ece
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> evaluate, n = counts_evaluator("ece", y, P, n_bins=2)
    >>> c = np.array([1.0, 2.0, 0.0, 3.0])
    >>> evaluate(c) == ece(y, P, n_bins=2, sample_weight=c)
    True
    """
    views = {"ece": "top_label", "classwise_ece": "classwise", "cumulative_ece": "cumulative"}
    if name not in views:
        raise ValueError(f"name must be 'ece', 'classwise_ece' or 'cumulative_ece'; got {name!r}.")
    view = views[name]
    nb = _check_n_bins(n_bins)
    check_option(strategy, "strategy", STRATEGIES)
    if nb is not None and strategy != "uniform":
        return None  # quantile bins move with the weights
    prep, P, _ = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    if prep.propagate:
        return None
    base = prep.weight
    if view != "top_label" and nb is not None:
        pairs = [(f.copy(), o.copy()) for f, o in _event_columns(P, prep.y_true, view)]
        f2 = np.column_stack([f for f, _ in pairs])
        o2 = np.column_stack([o for _, o in pairs])
        per_column = True
    else:
        f2, o2 = event_forecasts(P, prep.y_true, view)
        per_column = False
    n, e = f2.shape
    # bins that do not depend on the weights: uniform edges, or one bin per distinct value
    index, _, b = _bin_index(f2, np.ones(n), nb, strategy)
    if per_column:
        idx_cols = [np.ascontiguousarray(index[:, j]) for j in range(e)]
        f_cols = [np.ascontiguousarray(f2[:, j]) for j in range(e)]
        o_cols = [np.ascontiguousarray(o2[:, j]) for j in range(e)]
    else:
        flat = (index + np.arange(e) * b).ravel()

    def evaluate(counts: np.ndarray) -> float:
        v = counts if base is None else base * counts
        w = scale_weights(v)[0]  # as the metric scales its sample_weight
        total = float(w.sum())
        if per_column:
            out = []
            for j in range(e):
                weight = np.bincount(idx_cols[j], weights=w, minlength=b)
                s_f = np.bincount(idx_cols[j], weights=w * f_cols[j], minlength=b)
                s_o = np.bincount(idx_cols[j], weights=w * o_cols[j], minlength=b)
                out.append(ece_from_sums(weight[None], s_f[None], s_o[None], total)[0])
            values = np.array(out)
        else:
            ww = np.broadcast_to(w[:, None], (n, e))
            size = e * b
            weight = np.bincount(flat, weights=ww.ravel(), minlength=size).reshape(e, b)
            s_f = np.bincount(flat, weights=(ww * f2).ravel(), minlength=size).reshape(e, b)
            s_o = np.bincount(flat, weights=(ww * o2).ravel(), minlength=size).reshape(e, b)
            values = ece_from_sums(weight, s_f, s_o, total)
        return float(values[0]) if view == "top_label" else float(np.mean(values))

    return evaluate, int(n)


# --------------------------------------------------------------------------------------------
# Reliability diagram data
# --------------------------------------------------------------------------------------------


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
        weights add up to ``total_weight``.
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

    @property
    def ece(self) -> float | np.ndarray:
        """The binary ECE sum_b (W_b / W) |o_b - f_b| of each event (a float for top-label).

        Averaging it over the events gives :func:`classwise_ece` / :func:`cumulative_ece`.
        """
        out = _ece_reduce(
            self.weight, self.mean_confidence, self.observed_frequency, self.total_weight
        )
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
    nb = _check_n_bins(n_bins)
    assert nb is not None
    check_option(strategy, "strategy", STRATEGIES)
    prep, P, w = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    names = event_names(view, prep.labels, prep.n_classes)
    if prep.propagate:  # a value is missing: every number is NaN
        mean_f = np.full((len(names), nb), np.nan)
        mean_o = weight = mean_f
        total = math.nan
        edges = np.full((len(names), nb + 1), np.nan)
        if strategy == "uniform":
            edges[:] = np.linspace(0.0, 1.0, nb + 1)
    else:
        f, o = event_forecasts(P, prep.y_true, view)
        bins = _bin_sums(f, o, w, nb, strategy)
        mean_f, mean_o = bins.means
        # the weights back in the caller's units (the bins used them scaled by 2^-e)
        e = 0 if prep.weight is None else scale_weights(prep.weight)[1]
        with np.errstate(over="ignore"):
            weight, total = np.ldexp(bins.weight, e), float(np.ldexp(bins.total_weight, e))
        edges = bins.edges
    if view == "top_label":
        edges, mean_f, mean_o, weight = edges[0], mean_f[0], mean_o[0], weight[0]
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
    )


# --------------------------------------------------------------------------------------------
# Decompositions of the Brier score and the RPS
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreDecomposition:
    r"""Decomposition of a score into reliability, resolution, uncertainty and within-bin terms.

    .. math::

        S = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Attributes
    ----------
    score : float
        The score S (:func:`~ordmetrics.brier` or :func:`~ordmetrics.rps`), computed directly.
    reliability : float
        REL >= 0: weighted mean squared distance of the bin's mean forecast from its observed
        frequency (0 when calibrated; lower is better).
    resolution : float
        RES >= 0: weighted variance of the observed frequencies across bins (higher is better).
    uncertainty : float
        UNC = o(1 - o) of the event base rates o: the score of the climatological forecast,
        independent of the prediction.
    within_bin_variance : float
        WBV >= 0: weighted variance of the forecasts around their bin mean (0 without binning).
    within_bin_covariance : float
        WBC: twice the weighted covariance of forecast and outcome within bins (0 without
        binning).
    """

    score: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float

    @property
    def components_sum(self) -> float:
        """REL - RES + UNC + WBV - WBC, equal to ``score`` up to rounding."""
        return (
            self.reliability
            - self.resolution
            + self.uncertainty
            + self.within_bin_variance
            - self.within_bin_covariance
        )

    def check(self, atol: float = 1e-12) -> bool:
        """Whether the identity S = REL - RES + UNC + WBV - WBC holds within ``atol``."""
        return bool(abs(self.components_sum - self.score) <= atol)


def _weighted_sum(w: np.ndarray, x: np.ndarray) -> float:
    """sum_i w_i x_i by NumPy's pairwise summation (``x`` is overwritten with w x): more
    accurate than a BLAS dot product, and free of its thread start-up cost."""
    np.multiply(x, w, out=x)
    return float(x.sum())


def _decompose_events(
    columns: Iterable[tuple[np.ndarray, np.ndarray]],
    w: np.ndarray,
    n_bins: int | None,
    strategy: str,
) -> np.ndarray:
    """Per event: score, REL, RES, UNC, WBV, WBC of the binary Brier score, shape (6, E).

    The events come one at a time (``(f, o)`` vectors of N values, from
    :func:`_event_columns`), so the memory beyond the input is a few vectors of N values.
    """
    total = float(w.sum())
    dev_f, dev_o = np.empty(w.size), np.empty(w.size)  # buffers reused for every event
    out = []
    for f, o in columns:
        index, edges, weight, s_f, s_o = _column_sums(f, o, w, n_bins, strategy, dev_f)
        filled = weight > 0
        mean_f, mean_o = _bin_means(weight, s_f, s_o)
        if n_bins is None:  # the bin's forecast is its distinct value itself: WBV = WBC = 0
            mean_f = np.where(np.isnan(edges), 0.0, edges)
        mean_f = np.where(filled, mean_f, 0.0)
        mean_o = np.where(filled, mean_o, 0.0)
        base_rate = s_o.sum() / total
        rel = np.sum(weight * (mean_f - mean_o) ** 2) / total
        res = np.sum(weight * (mean_o - base_rate) ** 2) / total
        unc = base_rate * (1.0 - base_rate)
        np.take(mean_f, index, out=dev_f, mode="clip")
        np.subtract(f, dev_f, out=dev_f)  # f_i - f_b(i)
        np.take(mean_o, index, out=dev_o, mode="clip")
        np.subtract(o, dev_o, out=dev_o)  # o_i - o_b(i)
        del index
        np.multiply(dev_o, dev_f, out=dev_o)
        wbc = 2.0 * _weighted_sum(w, dev_o) / total
        np.multiply(dev_f, dev_f, out=dev_f)
        wbv = _weighted_sum(w, dev_f) / total
        np.subtract(f, o, out=dev_f)
        np.multiply(dev_f, dev_f, out=dev_f)
        score = _weighted_sum(w, dev_f) / total
        out.append([score, rel, res, unc, wbv, wbc])
    return np.array(out, dtype=np.float64).reshape(-1, 6).T


def _decomposition(
    rule: str,
    y_true: Any,
    y_proba: Any,
    n_bins: Any,
    strategy: str,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool,
    normalize: bool,
) -> ScoreDecomposition:
    nb = _check_n_bins(n_bins, allow_none=True)
    check_option(strategy, "strategy", STRATEGIES)
    prep, P, w = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    if prep.propagate:
        return ScoreDecomposition(*([math.nan] * 6))
    view = "classwise" if rule == "brier" else "cumulative"
    parts = _decompose_events(_event_columns(P, prep.y_true, view), w, nb, strategy)
    total = parts.sum(axis=1)
    if rule == "rps" and normalize:
        total = total / (P.shape[1] - 1)
    return ScoreDecomposition(*(float(v) for v in total))


_DECOMP_NOTES = """\
    The binary decomposition of one event with forecasts f_i, outcomes o_i in {0, 1} and
    weights w_i, binned into bins b (weight W_b, mean forecast f_b, observed frequency o_b,
    base rate o = sum_i w_i o_i / W) is

    .. math::

        \\frac{1}{W}\\sum_i w_i (f_i - o_i)^2
        = \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_b W_b (f_b - o_b)^2}_{\\mathrm{REL}}
        - \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_b W_b (o_b - o)^2}_{\\mathrm{RES}}
        + \\underbrace{o(1 - o)}_{\\mathrm{UNC}}
        + \\underbrace{\\tfrac{1}{W}\\textstyle\\sum_i w_i (f_i - f_{b(i)})^2}_{\\mathrm{WBV}}
        - \\underbrace{\\tfrac{2}{W}\\textstyle\\sum_i w_i (o_i - o_{b(i)})
          (f_i - f_{b(i)})}_{\\mathrm{WBC}}

    an exact identity (Stephenson, Coelho & Jolliffe 2008). With ``n_bins=None`` every
    distinct forecast value is its own bin, WBV = WBC = 0, and this is the classical
    decomposition of Murphy (1973); forecasts equal within 1e-12 count as one value (the tie
    rule of :mod:`ordmetrics._core.numerics`: a cumulative forecast F_k carries rounding), which
    leaves within-bin terms of at most about 1e-12. With ``n_bins`` bins the within-bin
    terms carry what the binning hides, so the parts still add up to the score."""


@fill_doc(params=_PARAMS_TEMPLATE, decomposition=_DECOMP_NOTES)
def brier_decomposition(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int | None = None,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> ScoreDecomposition:
    r"""Decomposition of the multiclass Brier score into reliability, resolution, uncertainty.

    The multiclass Brier score is the sum over classes k of the binary Brier score of the
    forecast p_k for the event y = k; every part is the sum over k of the part of that binary
    decomposition:

    .. math::

        \mathrm{BS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Parameters
    ----------
    %(params)s
    n_bins : int or None, default None
        None: one bin per distinct forecast value (the classical decomposition, no within-bin
        terms). An integer: that many bins per class.
    strategy : {"uniform", "quantile"}, default "uniform"
        How forecasts are binned when ``n_bins`` is an integer (see :func:`ece`).

    Returns
    -------
    ScoreDecomposition
        ``score`` (equal to :func:`~ordmetrics.brier`), ``reliability``, ``resolution``,
        ``uncertainty``, ``within_bin_variance``, ``within_bin_covariance``; ``check()``
        confirms the identity. All NaN under ``nan_policy="propagate"`` with a missing value.

    Notes
    -----
    %(decomposition)s

    Ranges: score in [0, 2]; REL >= 0 (lower is better, 0 when calibrated); RES >= 0 (higher
    is better); UNC = sum_k o_k (1 - o_k) in [0, 1 - 1/K] depends only on the class
    frequencies o_k.

    References
    ----------
    .. [1] Murphy, A. H. (1973). A new vector partition of the probability score. Journal of
       Applied Meteorology 12(4), 595-600.
    .. [2] Stephenson, D. B., Coelho, C. A. S., Jolliffe, I. T. (2008). Two extra components
       in the Brier score decomposition. Weather and Forecasting 23(4), 752-757.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import brier_decomposition
    >>> d = brier_decomposition([0, 1, 1, 1], [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8], [0.2, 0.8]])
    >>> d.score, d.reliability, d.resolution, d.uncertainty
    (0.29, 0.04, 0.125, 0.375)
    >>> d.within_bin_variance, d.within_bin_covariance, d.check()
    (0.0, 0.0, True)
    """
    return _decomposition(
        "brier",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
        True,
    )


@fill_doc(params=_PARAMS_TEMPLATE, decomposition=_DECOMP_NOTES)
def rps_decomposition(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int | None = None,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
    normalize: bool = True,
) -> ScoreDecomposition:
    r"""Decomposition of the Ranked Probability Score into reliability, resolution, uncertainty.

    The RPS is the mean over the thresholds k = 1..K-1 of the binary Brier score of the
    cumulative forecast F_k for the event y <= k; every part is the mean over k of the part
    of that binary decomposition:

    .. math::

        \mathrm{RPS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC} + \mathrm{WBV} - \mathrm{WBC}

    Parameters
    ----------
    %(params)s
    n_bins : int or None, default None
        None: one bin per distinct value of F_k (the classical decomposition, no within-bin
        terms). An integer: that many bins per threshold.
    strategy : {"uniform", "quantile"}, default "uniform"
        How forecasts are binned when ``n_bins`` is an integer (see :func:`ece`).
    normalize : bool, default True
        Divide by K - 1 like :func:`~ordmetrics.rps`; ``False`` gives the parts of the raw sum.

    Returns
    -------
    ScoreDecomposition
        ``score`` (equal to :func:`~ordmetrics.rps`), ``reliability``, ``resolution``,
        ``uncertainty``, ``within_bin_variance``, ``within_bin_covariance``; ``check()``
        confirms the identity. All NaN under ``nan_policy="propagate"`` with a missing value.

    Notes
    -----
    %(decomposition)s

    Ranges (normalized): score in [0, 1]; REL >= 0 (lower is better, 0 when calibrated);
    RES >= 0 (higher is better); UNC = mean_k c_k (1 - c_k), with c_k the weighted fraction of
    rows with y <= k, in [0, 1/4], depends only on the class frequencies.

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Murphy, A. H. (1972). Scalar and vector partitions of the ranked probability score.
       Monthly Weather Review 100(10), 701-708.
    .. [3] Stephenson, D. B., Coelho, C. A. S., Jolliffe, I. T. (2008). Two extra components
       in the Brier score decomposition. Weather and Forecasting 23(4), 752-757.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import rps_decomposition
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.6, 0.3, 0.1], [0.6, 0.3, 0.1], [0.1, 0.3, 0.6], [0.1, 0.3, 0.6]]
    >>> d = rps_decomposition(y, P)
    >>> round(d.score, 10), round(d.reliability, 10), round(d.uncertainty, 10), d.check()
    (0.11, 0.0475, 0.21875, True)
    >>> d1 = rps_decomposition(y, P, n_bins=1)  # one bin: the spread is all within the bin
    >>> [round(v, 10) for v in (d1.reliability, d1.resolution, d1.within_bin_variance,
    ...                         d1.within_bin_covariance)]
    [0.01625, 0.0, 0.0625, 0.1875]
    >>> d1.check()
    True
    """
    return _decomposition(
        "rps",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
        check_flag(normalize, "normalize"),
    )


# --------------------------------------------------------------------------------------------
# Skill score
# --------------------------------------------------------------------------------------------


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
    prep, P, w = _prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
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


# --------------------------------------------------------------------------------------------
# Registry entries
# --------------------------------------------------------------------------------------------

for _func, _desc in [
    (ece, "top-label expected calibration error"),
    (classwise_ece, "classwise expected calibration error (mean over classes)"),
    (cumulative_ece, "cumulative (ordinal) expected calibration error, mean over thresholds"),
]:
    register(
        _func,
        direction="minimize",
        range=(0, 1),
        kind="calibration",
        perfect=0.0,
        description=_desc,
    )
