"""Events and binning: the one place where forecasts are binned, and the binned sums.

The forecasts and outcomes of the events of a view (top-label, classwise, cumulative), the bin
of every forecast (uniform or quantile bins, or one bin per distinct value), and the weighted sums
per (event, bin) that every expected calibration error, reliability diagram and score
decomposition of :mod:`ordmetrics.metrics.calibration` reduces. The binning rules are those of the
package notes (:mod:`ordmetrics.metrics.calibration`); definitions: ``docs/definitions.md``,
section 4.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.numerics import (
    bin_of_fraction,
    group_starts_sorted,
    scale_weights,
)
from ordmetrics._core.validation import (
    Prepared,
    check_option,
    prepare_proba,
    type_name,
)
from ordmetrics.metrics.calibration.fused import checked_input, event_sums, fast_input

__all__ = [
    "MAX_BINS",
    "STRATEGIES",
    "VIEWS",
    "Bins",
    "bin_sums",
    "check_n_bins",
    "ece_from_sums",
    "event_forecasts",
    "event_names",
    "prepare",
]

STRATEGIES = ("uniform", "quantile")
VIEWS = ("top_label", "classwise", "cumulative")

#: The largest ``n_bins`` accepted: the binned sums take 3 numbers of 8 bytes per (event, bin)
#: for each of up to 16 chunks of rows (and the kernels' tables as much again), so 2^16 bins
#: take about 50 MiB per event; a bin then holds 1/65536 of the rows, and more bins only
#: exhaust the memory before any row is binned.
MAX_BINS = 2**16

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
        Number of bins B (a positive integer, at most ``MAX_BINS`` = 65,536).
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: bin b = min(floor(f * B), B - 1), edges 0, 1/B, ..., 1.
        ``"quantile"``: bins of equal weighted mass, edges at the weighted quantiles of the
        forecasts; rows with equal forecasts always share a bin (see the module notes)."""


# --------------------------------------------------------------------------------------------
# Option checks
# --------------------------------------------------------------------------------------------


def check_n_bins(n_bins: Any, *, allow_none: bool = False) -> int | None:
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
    if n_bins > MAX_BINS:
        need = 2 * 16 * 3 * 8 * int(n_bins) / 2**30
        raise ValueError(
            f"n_bins must be at most {MAX_BINS:,} (2^16, MAX_BINS); got {int(n_bins):,}. The "
            f"binned sums take about 768 bytes per (event, bin), so {int(n_bins):,} bins would "
            f"need {need:,.3g} GiB per event before any row is binned. Pass fewer bins (15 is "
            "the default)"
            + (", or n_bins=None for one bin per distinct forecast." if allow_none else ".")
        )
    return int(n_bins)


def prepare(
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
        positive = w > 0
        for j in range(e):  # loop over events
            # distinct values by the tie rule (a cumulative forecast carries rounding): the
            # tie groups of the sorted column among the rows of positive weight, each valued
            # at its smallest member (what np.unique(snap(column), return_inverse=True)
            # gives, with one sort instead of two)
            index[:, j], sv, starts, _ = _tie_groups(f[:, j], positive)
            values.append(sv[starts])
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
    wp = w[positive]
    total = float(wp.sum())
    for j in range(e):  # loop over events
        col = np.ascontiguousarray(f[:, j])
        gid, sv, starts, order = _tie_groups(col, positive)
        # the weights of a group added in sorted order (stable): those of the compiled kernels
        gw = np.bincount(np.cumsum(starts) - 1, weights=wp[order], minlength=int(starts.sum()))
        gbin = bin_of_fraction((np.cumsum(gw) - gw) / total, n_bins)
        index[:, j] = gbin[gid]
        g_top = sv[np.append(np.flatnonzero(starts[1:]), sv.size - 1)]  # group maxima
        # inner edge q_b (b = 1..B-1): the largest forecast of the bins below b
        last_below = np.searchsorted(gbin, np.arange(1, n_bins), side="left") - 1
        edges[j, 1:-1] = g_top[np.maximum(last_below, 0)]
        edges[j, 0] = sv[0]
        edges[j, -1] = sv[-1]
    return index, edges, n_bins


def _tie_groups(
    col: np.ndarray, positive: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tie group of every row of ``col`` (int64, N), formed by the rule of
    :mod:`ordmetrics._core.numerics` from the values of the rows of positive weight alone;
    those values sorted, their group starts, and the stable order that sorts them (indices
    into ``col[positive]``).

    A row of weight 0 links no two values: it goes to the group at or above its value (the
    last group above every group), which its zero weight leaves unchanged.
    """
    if positive.all() or not positive.any():
        order = np.argsort(col, kind="stable")
        sv = col[order]
        starts = group_starts_sorted(sv)
        gid = np.empty(col.size, dtype=np.int64)
        gid[order] = np.cumsum(starts) - 1
        return gid, sv, starts, order
    cp = col[positive]
    order = np.argsort(cp, kind="stable")
    sv = cp[order]
    starts = group_starts_sorted(sv)
    g_of_sorted = np.cumsum(starts) - 1
    n_groups = int(g_of_sorted[-1]) + 1
    gid = np.empty(col.size, dtype=np.int64)
    at = np.empty(cp.size, dtype=np.int64)
    at[order] = g_of_sorted
    gid[positive] = at
    zero = ~positive
    g_top = sv[np.append(np.flatnonzero(starts[1:]), sv.size - 1)]  # group maxima
    gid[zero] = np.minimum(np.searchsorted(g_top, col[zero], side="left"), n_groups - 1)
    return gid, sv, starts, order


@dataclass(frozen=True)
class Bins:
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


def bin_sums(
    f: np.ndarray, o: np.ndarray, w: np.ndarray, n_bins: int | None, strategy: str
) -> Bins:
    """Bin the forecasts ``f`` (N, E) of the events ``o`` (N, E) and add up per bin."""
    n, e = f.shape
    index, edges, b = _bin_index(f, w, n_bins, strategy)
    flat = (index + np.arange(e) * b).ravel()
    ww = np.broadcast_to(w[:, None], (n, e))
    size = e * b
    weight = np.bincount(flat, weights=ww.ravel(), minlength=size).reshape(e, b)
    s_f = np.bincount(flat, weights=(ww * f).ravel(), minlength=size).reshape(e, b)
    s_o = np.bincount(flat, weights=(ww * o).ravel(), minlength=size).reshape(e, b)
    return Bins(index, edges, weight, s_f, s_o, float(w.sum()))


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
    the binning and the sums of :func:`bin_sums` for a single column (``tmp``: a buffer of N
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
    nb = check_n_bins(n_bins)
    check_option(strategy, "strategy", STRATEGIES)
    assert nb is not None  # allow_none is False
    # compiled kernels: validate, form the events and bin in one pass over the rows
    inp = fast_input(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    found = None if inp is None else event_sums(inp, view, nb, strategy)
    if found is None and (inp is None or not inp.checked):
        # a problem with the input: a precise message, or the nan_policy applied
        prep, P, w = prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
        if prep.propagate:
            return None
        inp = checked_input(prep.other, prep.y_true, prep.weight)
        found = event_sums(inp, view, nb, strategy)
    assert inp is not None
    if found is not None:
        s = found[0]
        return ece_from_sums(s[..., 0], s[..., 1], s[..., 2], inp.total)
    # quantile bins with heavy ties: the sort of every column
    P = np.asarray(inp.P, dtype=np.float64)
    w = inp.weights()
    if view != "top_label":  # one event at a time (bounded memory)
        return _ece_columns(P, inp.y, w, view, nb, strategy)
    f, o = event_forecasts(P, inp.y, view)
    bins = bin_sums(f, o, w, nb, strategy)
    return ece_from_sums(bins.weight, bins.sum_forecast, bins.sum_event, bins.total_weight)
