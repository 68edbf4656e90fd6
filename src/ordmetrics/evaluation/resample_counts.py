"""How the bootstrap evaluates a metric on many resamples: the row indices of the resamples,
drawn a chunk at a time, and one :class:`_Side` per model, which prepares the metric once and
maps each resample's row counts to a value.

The path follows the metric's registry spec (``spec.accumulates``, the family the metric
accumulates in): ``mean_score`` (scoring rules: weighted means of the per-sample scores, one
compiled pass), ``confusion_matrix`` (agreement metrics: the confusion counts of a chunk of
resamples in one compiled pass, evaluated by
:func:`ordmetrics.metrics.agreement.counts_evaluator`), ``rank_table`` and
``calibration_bins`` (ranking metrics and uniformly binned ECEs: prepared once by
:func:`ordmetrics.metrics.ranking.counts_evaluator` or
:func:`ordmetrics.metrics.calibration.counts_evaluator`); anything else (AURSC, quantile bins,
any callable) is called once per resample with ``sample_weight = w * c``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import (
    NAN_POLICIES,
    as_weights,
    is_pandas,
    is_polars,
    missing_of_frame_column,
    object_missing,
    prepare_hard,
)
from ordmetrics._core.warnings import quiet as _quiet
from ordmetrics.evaluation.resample_options import (
    _Metric,
    _scalar,
)
from ordmetrics.metrics import agreement, calibration, ranking

__all__ = ["CHUNK_INDICES", "JACKKNIFE_GROUPS"]

#: At most this many groups in the delete-a-group jackknife of the generic path.
JACKKNIFE_GROUPS = 200

#: Row indices drawn per chunk of resamples (int32: 16 MiB); bounds the memory of every path.
CHUNK_INDICES = 2**22

#: Confusion counts held at once by the agreement path (float64: 32 MiB), whatever K.
COUNTS_PER_BLOCK = 1 << 22

#: The most resamples one call accepts. The resampled values are returned (8 bytes each), and
#: the interval's Monte Carlo error shrinks like 1/sqrt(n_resamples): 10^7 resamples (80 MB of
#: values) already put it far below any sampling error, while 10^12 would need 8 TB.
MAX_RESAMPLES = 10**7

#: Rows added naively before a compensated (Neumaier) step in the scoring-rule kernel.
_BLOCK = 1024

#: The module that prepares a metric once for evaluations on resample counts, by the
#: accumulator family of its spec (a function ``counts_evaluator(name, y_true, x, **options)``
#: returning ``(evaluate, n)`` or None).
_COUNTS_EVALUATORS: dict[str, Callable[..., Any]] = {
    "rank_table": ranking.counts_evaluator,
    "calibration_bins": calibration.counts_evaluator,
}


# --------------------------------------------------------------------------------------------
# Compiled kernels: one pass over the drawn row indices of a chunk of resamples
# --------------------------------------------------------------------------------------------

_opts = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(**_opts)
def _weighted_means(idx, ws, w, weighted, out):  # pragma: no cover - compiled
    """out[b] = sum_j ws[idx[b, j]] / sum_j w[idx[b, j]] (w = 1 when not ``weighted``).

    Rows are added in blocks of ``_BLOCK`` and the block sums with Neumaier's compensation.
    """
    n_res, m = idx.shape
    for b in range(n_res):
        num = 0.0
        num_c = 0.0
        den = 0.0
        den_c = 0.0
        for start in range(0, m, _BLOCK):
            stop = min(start + _BLOCK, m)
            part = 0.0
            part_w = 0.0
            for j in range(start, stop):
                r = idx[b, j]
                part += ws[r]
                if weighted:
                    part_w += w[r]
            t = num + part
            if np.isfinite(t):
                if abs(num) >= abs(part):
                    num_c += (num - t) + part
                else:
                    num_c += (part - t) + num
            num = t
            if weighted:
                t = den + part_w
                if abs(den) >= abs(part_w):
                    den_c += (den - t) + part_w
                else:
                    den_c += (part_w - t) + den
                den = t
        total = num + num_c if np.isfinite(num) else num
        weight = den + den_c if weighted else float(m)
        out[b] = total / weight if weight > 0.0 else np.nan


@njit(**_opts)
def _confusion_counts(idx, cells, w, weighted, out):  # pragma: no cover - compiled
    """out[b, cells[r]] += w[r] (or 1) for every drawn row r = idx[b, j]."""
    n_res, m = idx.shape
    for b in range(n_res):
        for j in range(m):
            r = idx[b, j]
            out[b, cells[r]] += w[r] if weighted else 1.0


def _path(metric: _Metric) -> str:
    """The evaluation path of a metric, from the accumulator family of its spec."""
    spec = metric.spec
    if spec is None:
        return "generic"
    if spec.accumulates == "mean_score":
        return "scoring"
    if spec.accumulates == "confusion_matrix" and spec.name in agreement.AGREEMENT_METRICS:
        return "agreement"
    if spec.accumulates in _COUNTS_EVALUATORS:
        return "counts"
    return "generic"


# --------------------------------------------------------------------------------------------
# Rows, missing values and resamples
# --------------------------------------------------------------------------------------------


def _n_rows(y_true: Any) -> int:
    try:
        return len(y_true)
    except TypeError:
        return int(np.shape(y_true)[0]) if np.ndim(y_true) else 1


def _missing_rows(values: Any) -> np.ndarray | None:
    """Rows with a missing value (None, NaN, pandas NA, polars null) in a column or matrix."""
    if is_pandas(values, "DataFrame") or is_polars(values, "DataFrame"):
        if values.shape[1] == 1:
            col = values.iloc[:, 0] if is_pandas(values, "DataFrame") else values.to_series(0)
            return _missing_rows(col)
        arr = np.asarray(values.to_numpy(), dtype=np.float64)
        return np.logical_or.reduce(np.isnan(arr), axis=1)
    if is_pandas(values, "Series", "Index") or is_polars(values, "Series"):
        return missing_of_frame_column(values)
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.dtype.kind == "O":
        if arr.ndim == 1:
            return object_missing(arr)
        arr = np.asarray(arr, dtype=np.float64)
    if arr.dtype.kind in "fc":
        nan = np.isnan(arr)
        return np.logical_or.reduce(nan, axis=tuple(range(1, arr.ndim))) if arr.ndim > 1 else nan
    return None


def _complete_rows(y_true: Any, x: Any, weight: np.ndarray | None, n: int) -> np.ndarray:
    keep = np.ones(n, dtype=bool)
    for part in (_missing_rows(y_true), _missing_rows(x)):
        if part is not None:
            keep &= ~np.asarray(part, dtype=bool)
    if weight is not None:
        keep &= ~np.isnan(weight)
    return keep


def _index_chunks(rng: np.random.Generator, m: int, n_resamples: int) -> Iterator[np.ndarray]:
    """Row indices of the resamples, ``(chunk, m)`` at a time, drawn uniformly with replacement.

    The chunk size depends on ``m`` only, so every path (and every metric) gets the same
    indices from the same generator state. The next chunk is drawn in a worker thread while
    the caller evaluates the current one (NumPy draws and the kernels release the GIL); the
    draws stay sequential, so the indices do not depend on the threading.
    """
    dtype = np.int32 if m <= 2**31 else np.int64
    chunk = max(1, CHUNK_INDICES // m)
    sizes = [min(chunk, n_resamples - start) for start in range(0, n_resamples, chunk)]

    def draw(size: int) -> np.ndarray:
        return rng.integers(0, m, size=(size, m), dtype=dtype)

    if len(sizes) == 1:
        yield draw(sizes[0])
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(draw, sizes[0])
        for size in sizes[1:]:
            current = pending.result()
            pending = pool.submit(draw, size)
            yield current
        yield pending.result()


def _groups(rng: np.random.Generator, m: int) -> list[np.ndarray]:
    """G = min(m, JACKKNIFE_GROUPS) groups of a random permutation of 0..m-1 (sizes differ by
    at most one)."""
    return np.array_split(rng.permutation(m), min(m, JACKKNIFE_GROUPS))


# --------------------------------------------------------------------------------------------
# One side: a metric with its inputs and options, and the path that evaluates resamples
# --------------------------------------------------------------------------------------------


class _Side:
    """A metric on fixed inputs; evaluates resamples given as row indices into ``rows``."""

    def __init__(self, metric: _Metric, y_true: Any, x: Any, kwargs: dict[str, Any]) -> None:
        self.metric = metric
        self.y_true = y_true
        self.x = x
        self.kwargs = kwargs
        self.estimate = _scalar(metric.func(y_true, x, **kwargs), metric.name)
        self.n = _n_rows(y_true)
        self.weight = as_weights(kwargs.get("sample_weight"), self.n)
        if metric.spec is not None and self.weight is not None:
            # registered metrics depend on the weights only through their ratios: scale them
            # once by an exact power of two (largest weight in [0.5, 1)), so that the sums of
            # w * c over a resample cannot overflow (or lose digits as subnormals); a callable
            # of the caller's own receives the caller's weights times the counts, unchanged
            scaled, _ = scale_weights(self.weight)
            self.weight = scaled
            self.kwargs = kwargs = {**kwargs, "sample_weight": scaled}
        policy = kwargs.get("nan_policy", "raise")
        self.policy = policy if policy in NAN_POLICIES else "raise"
        self.path = _path(metric)
        self.keep = np.ones(self.n, dtype=bool)  # rows that can be drawn
        self.rows: np.ndarray | None = None  # their positions; None = all rows
        self.masked = False  # whether the estimate must be recomputed on the kept rows
        if self.path == "scoring":
            self._setup_scoring()
        elif self.path == "agreement":
            self._setup_agreement()
        if self.path in ("generic", "counts") and self.policy == "omit":
            self.keep = _complete_rows(y_true, x, self.weight, self.n)
        if self.path == "counts":
            self._setup_counts()

    # -- setup of the fast paths (full-length arrays; restricted to the kept rows later) --

    def _setup_scoring(self) -> None:
        opts = {k: v for k, v in self.kwargs.items() if k not in ("sample_weight", "nan_policy")}
        opts.pop("reduction", None)
        scores = self.metric.func(
            self.y_true,
            self.x,
            nan_policy="raise" if self.policy == "raise" else "propagate",
            reduction="none",
            **opts,
        )
        s = np.asarray(scores, dtype=np.float64)
        missing = np.isnan(s)
        if self.weight is not None:
            missing |= np.isnan(self.weight)
        if self.policy == "propagate" and missing.any():
            self.path = "generic"  # every resample is NaN, as the metric says
            return
        self.keep = ~missing
        w = np.ones(self.n) if self.weight is None else self.weight
        with np.errstate(invalid="ignore"):
            self._ws = np.where(w > 0, w * s, 0.0)  # weight 0: absent even if s is infinite
        self._w = w

    def _setup_agreement(self) -> None:
        kw = self.kwargs
        labels = kw.get("labels")
        # the metric call of the estimate has checked the inputs (and the number of classes)
        prep = prepare_hard(
            self.y_true,
            self.x,
            labels=labels,
            sample_weight=kw.get("sample_weight"),
            nan_policy=self.policy,
        )
        if prep.propagate:
            self.path = "generic"
            return
        if self.policy == "omit":
            self.keep = _complete_rows(self.y_true, self.x, self.weight, self.n)
        rows = np.flatnonzero(self.keep)
        if rows.size != prep.y_true.size:  # pragma: no cover - missing rows disagree
            raise RuntimeError("internal error: missing rows not identified; please report it")
        options = {
            k: v for k, v in kw.items() if k not in ("labels", "sample_weight", "nan_policy")
        }
        k = prep.n_classes
        self._evaluator = agreement.counts_evaluator(self.metric.name, k, **options)
        self._k = k
        cells = np.full(self.n, -1, dtype=np.int64)
        cells[rows] = prep.y_true * k + prep.other
        self._cells = cells
        w = np.ones(self.n)
        if prep.weight is not None:
            w[rows] = prep.weight
        self._w = w
        self._weighted = prep.weight is not None

    def _setup_counts(self) -> None:
        """The metric prepared once by its module, evaluated on resample counts (the generic
        path where the module cannot prepare it)."""
        self.path = "generic"
        spec = self.metric.spec
        factory = None if spec is None else _COUNTS_EVALUATORS.get(str(spec.accumulates))
        if spec is None or factory is None:
            return
        try:
            with _quiet():
                made = factory(spec.name, self.y_true, self.x, **self.kwargs)
        except (ValueError, TypeError):  # a metric of this kind that the module cannot prepare
            return
        if made is None:  # weight-dependent bins, or a missing value that propagates
            return
        evaluate, n_prepared = made
        own = np.flatnonzero(self.keep)
        if own.size != n_prepared:  # pragma: no cover - missing rows disagree
            raise RuntimeError("internal error: missing rows not identified; please report it")
        self.path = "counts"
        self._evaluate = evaluate
        self._own = own

    # -- restriction to the rows that are resampled --

    def restrict(self, keep: np.ndarray) -> None:
        """Resample the rows of ``keep`` (a subset of this side's own complete rows)."""
        self.masked = bool((keep != self.keep).any())
        self.keep = keep
        self.rows = None if keep.all() else np.flatnonzero(keep)
        sel = slice(None) if self.rows is None else self.rows
        self.m = int(keep.sum())
        if self.path == "scoring":
            self._ws_k = np.ascontiguousarray(self._ws[sel])
            self._w_k = np.ascontiguousarray(self._w[sel])
            self._weighted = self.weight is not None
        elif self.path == "agreement":
            self._cells_k = np.ascontiguousarray(self._cells[sel])
            self._w_k = np.ascontiguousarray(self._w[sel])
        elif self.path == "counts":
            # positions of the resampled rows among the rows the evaluator was prepared on
            self._pos = np.flatnonzero(keep[self._own])
            self._n_own = self._own.size
            self._w_kept = None if self.weight is None else self.weight[sel]
        if self.masked:
            self.estimate = self._generic_value(np.ones(self.m), warn=True)

    # -- values of resamples --

    def values(self, idx: np.ndarray) -> np.ndarray:
        """The metric on each resample of the chunk (rows of ``idx``: indices into the kept
        rows)."""
        if self.path == "scoring":
            out = np.empty(idx.shape[0])
            _weighted_means(idx, self._ws_k, self._w_k, self._weighted, out)
            return out
        if self.path == "agreement":
            # the confusion counts of at most COUNTS_PER_BLOCK cells at a time (K^2 per
            # resample: 8 GB for 999 resamples at K = 1000 at once); each value depends on its
            # resample's counts only, so the blocks change no bit
            kk = self._k * self._k
            out = np.empty(idx.shape[0])
            step = max(1, COUNTS_PER_BLOCK // kk)
            for lo in range(0, idx.shape[0], step):
                block = idx[lo : lo + step]
                counts = np.zeros((block.shape[0], kk))
                _confusion_counts(block, self._cells_k, self._w_k, self._weighted, counts)
                out[lo : lo + block.shape[0]] = self._evaluator(
                    counts.reshape(-1, self._k, self._k)
                )
            return out
        value = self._counts_value if self.path == "counts" else self._generic_value
        out = np.empty(idx.shape[0])
        for b in range(idx.shape[0]):
            counts = np.bincount(idx[b], minlength=self.m).astype(np.float64)
            out[b] = value(counts)
        return out

    def _counts_value(self, counts: np.ndarray) -> float:
        """The metric with ``sample_weight = w * c`` from the prepared evaluator."""
        kept = counts if self._w_kept is None else self._w_kept * counts
        if not np.nansum(kept) > 0:
            return math.nan  # nothing of positive weight was drawn
        c = counts
        if self._pos.size != self._n_own:
            c = np.zeros(self._n_own)
            c[self._pos] = counts
        with _quiet():
            return float(self._evaluate(c))

    def _generic_value(self, counts: np.ndarray, warn: bool = False) -> float:
        """The metric with ``sample_weight = w * c`` (c: counts of the kept rows)."""
        c = counts
        if self.rows is not None:
            c = np.zeros(self.n)
            c[self.rows] = counts
        sw = c if self.weight is None else self.weight * c
        kept = sw if self.rows is None else sw[self.rows]
        if not np.nansum(kept) > 0:
            return math.nan  # nothing of positive weight was drawn
        kwargs = {**self.kwargs, "sample_weight": sw}
        if warn:
            return _scalar(self.metric.func(self.y_true, self.x, **kwargs), self.metric.name)
        with _quiet():  # this thread only: never the process-wide warning filters
            value = self.metric.func(self.y_true, self.x, **kwargs)
        return _scalar(value, self.metric.name)

    # -- jackknife for the BCa acceleration --

    @property
    def exact_jackknife(self) -> bool:
        return self.path in ("scoring", "agreement")

    def jackknife_rows(self) -> np.ndarray:
        """Exact leave-one-out values, one per kept row (fast paths only)."""
        if self.path == "scoring":
            ws, w = self._ws_k, self._w_k
            total, weight = ws.sum(), w.sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                rest = weight - w
                return np.where(rest > 0, (total - ws) / np.where(rest > 0, rest, 1.0), np.nan)
        # agreement: the distinct (cell, weight) pairs give the distinct leave-one-out tables
        k, cells, w = self._k, self._cells_k, self._w_k
        kk = k * k
        full = np.bincount(cells, weights=w if self._weighted else None, minlength=kk)
        full = full.astype(np.float64)
        if self._weighted:
            pairs, inverse = np.unique(
                np.column_stack([cells.astype(np.float64), w]), axis=0, return_inverse=True
            )
            inverse = inverse.reshape(-1)
        else:  # unit weights: one leave-one-out table per cell
            pairs = np.column_stack([np.arange(kk, dtype=np.float64), np.ones(kk)])
            inverse = cells
        out = np.empty(pairs.shape[0])
        step = max(1, CHUNK_INDICES // kk)
        for start in range(0, pairs.shape[0], step):
            part = pairs[start : start + step]
            tables = np.repeat(full[None, :], part.shape[0], axis=0)
            pos = np.arange(part.shape[0])
            tables[pos, part[:, 0].astype(np.int64)] -= part[:, 1]
            out[start : start + step] = self._evaluator(tables.reshape(-1, k, k))
        return out[inverse]

    def jackknife_groups(self, groups: list[np.ndarray]) -> np.ndarray:
        """The metric with each group of kept rows left out in turn."""
        value = self._counts_value if self.path == "counts" else self._generic_value
        out = np.empty(len(groups))
        for g, group in enumerate(groups):
            counts = np.ones(self.m)
            counts[group] = 0.0
            out[g] = value(counts)
        return out
