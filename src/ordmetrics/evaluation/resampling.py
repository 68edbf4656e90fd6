"""Bootstrap confidence intervals and paired bootstrap comparisons of any ordmetrics metric.

One bootstrap resample draws M rows with replacement from the M rows that are scored. Because
every ordmetrics metric takes *frequency* weights (integer weights give exactly the result of
repeating rows), a resample is a vector of row counts c and its metric value is the metric on
the original rows with ``sample_weight = w * c``: nothing is copied. Three ways of computing
those values give the same numbers:

* scoring rules (``rps``, ``brier``, ...): the per-sample scores s are computed once; a resample
  is then the weighted mean ``sum(c w s) / sum(c w)``, evaluated by a compiled kernel over the
  drawn row indices;
* agreement metrics (``qwk``, ``kappa``, ``expected_cost``, ...): the confusion counts of a
  whole chunk of resamples are accumulated in one compiled pass and the metric is evaluated on
  all of them at once by the batched evaluator of :mod:`ordmetrics.metrics.agreement`;
* ranking metrics (``c_index``, ``kendall_tau``, ``spearman``) and the ECEs with uniform bins
  (``ece``, ``classwise_ece``, ``cumulative_ece``): the inputs are validated and encoded once by the
  metric's module (``counts_evaluator`` of :mod:`ordmetrics.metrics.ranking` and
  :mod:`ordmetrics.metrics.calibration`, chosen by the registry kind), which sorts the scores or
  bins
  the forecasts once; a resample then costs one walk of the fixed order or one set of weighted
  bin sums, with the same sums as the metric itself;
* every other metric (quantile-binned ECEs, AURSC, any callable): one call of the metric per
  resample with ``sample_weight = w * c``.

The row indices are drawn the same way whatever the path, so two metrics bootstrapped with the
same ``random_state`` on the same rows see the same resamples: their intervals are paired, and
:func:`compare` pairs two models (or two variants of one metric) on the same resamples.
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import (
    NAN_POLICIES,
    as_weights,
    is_pandas,
    is_polars,
    missing_of_frame_column,
    object_missing,
    type_name,
)
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics._core.warnings import quiet as _quiet
from ordmetrics._core.warnings import warn as _warn
from ordmetrics.metrics import agreement as _agreement

__all__ = ["BootstrapResult", "ComparisonResult", "bootstrap", "compare"]

METHODS = ("percentile", "bca")

#: At most this many groups in the delete-a-group jackknife of the generic path.
JACKKNIFE_GROUPS = 200

#: Row indices drawn per chunk of resamples (int32: 16 MiB); bounds the memory of every path.
CHUNK_INDICES = 2**22

#: The most resamples one call accepts. The resampled values are returned (8 bytes each), and
#: the interval's Monte Carlo error shrinks like 1/sqrt(n_resamples): 10^7 resamples (80 MB of
#: values) already put it far below any sampling error, while 10^12 would need 8 TB.
MAX_RESAMPLES = 10**7

#: Rows added naively before a compensated (Neumaier) step in the scoring-rule kernel.
_BLOCK = 1024

_NORMAL = NormalDist()

#: Registry kinds whose module prepares a metric once for evaluations on resample counts
#: (a function ``counts_evaluator(name, y_true, x, **options)`` in that module).
_COUNTS_MODULES = {
    "ranking": "ordmetrics.metrics.ranking",
    "calibration": "ordmetrics.metrics.calibration",
}

# Options that bootstrap passes itself (per-sample scores) or that must be shared by both
# sides of a comparison.
_SHARED_ONLY = ("sample_weight", "nan_policy")


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapResult:
    """The bootstrap distribution of a metric and a confidence interval.

    Attributes
    ----------
    estimate : float
        The metric on the full data (the plain metric call).
    mean : float
        Mean of the resampled values (NaN values left out).
    std : float
        Standard deviation of the resampled values with ``ddof=1``: the bootstrap standard
        error of ``estimate``.
    low, high : float
        The confidence interval.
    distribution : ndarray of shape (n_resamples,)
        The metric on every resample, in resample order (read-only; NaN where the metric is
        undefined on a resample).
    method : {"percentile", "bca"}
        How the interval was computed.
    confidence_level : float
        Nominal coverage of the interval.
    n_resamples : int
        Number of resamples.
    metric : str
        Name of the metric.
    """

    estimate: float
    mean: float
    std: float
    low: float
    high: float
    distribution: np.ndarray = field(repr=False, compare=False)
    method: str
    confidence_level: float
    n_resamples: int
    metric: str


@dataclass(frozen=True)
class ComparisonResult:
    """A paired bootstrap comparison of two predictions (or two metric variants).

    Attributes
    ----------
    estimate_a, estimate_b : float
        The metric of each side on the full data.
    difference : float
        ``estimate_a - estimate_b``.
    low, high : float
        Confidence interval of the difference.
    p_value : float
        Two-sided bootstrap p-value of "no difference",
        ``min(1, 2 * min(1 + #(d <= 0), 1 + #(d >= 0)) / (B + 1))`` over the B resampled
        differences d; never below ``2 / (B + 1)``, its resolution.
    distribution : ndarray of shape (n_resamples,)
        The resampled differences a - b, in resample order (read-only).
    better : {"a", "b"} or None
        The side whose metric is better according to the metric's direction, when the
        interval excludes 0; None when it contains 0 or the direction is unknown.
    method : {"percentile", "bca"}
        How the interval was computed.
    confidence_level : float
        Nominal coverage of the interval.
    n_resamples : int
        Number of resamples.
    metric : str
        Name of the metric.
    """

    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    distribution: np.ndarray = field(repr=False, compare=False)
    better: str | None
    method: str
    confidence_level: float
    n_resamples: int
    metric: str


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


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def _check_n_resamples(n_resamples: Any) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(
            f"n_resamples must be an integer (the number of bootstrap resamples); got "
            f"{type_name(n_resamples)} {n_resamples!r}. Pass e.g. n_resamples=1000."
        )
    n_resamples = int(n_resamples)
    if n_resamples < 2:
        raise ValueError(
            f"n_resamples must be at least 2 (a standard deviation needs two resamples); got "
            f"{n_resamples}. Use 1000 or more for an interval, 2000 or more for BCa."
        )
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(
            f"n_resamples must be at most {MAX_RESAMPLES:,} (MAX_RESAMPLES); got "
            f"{n_resamples:,}. Every resampled value is kept and returned (8 bytes each: "
            f"{8 * n_resamples / 1e9:,.1f} GB here), and beyond 10^7 resamples the Monte Carlo "
            "error of the interval is already negligible. Use 1000 to 100,000 resamples."
        )
    return int(n_resamples)


def _check_confidence_level(confidence_level: Any) -> float:
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(
            f"confidence_level must be a number between 0 and 1; got "
            f"{type_name(confidence_level)} {confidence_level!r}. Pass e.g. 0.95."
        )
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        hint = " Pass a fraction, e.g. 0.95 rather than 95." if level > 1.0 else ""
        raise ValueError(
            f"confidence_level must lie strictly between 0 and 1; got {confidence_level!r}." + hint
        )
    return level


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in METHODS:
        hint = (
            " Method names are lower case: pass method='bca'."
            if isinstance(method, str) and method.lower() in METHODS
            else ""
        )
        raise ValueError(
            f"method must be one of {', '.join(repr(m) for m in METHODS)}; got {method!r}." + hint
        )
    return method


def _make_rng(random_state: Any) -> np.random.Generator:
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                f"random_state must be a non-negative integer seed; got {random_state}."
            )
        return np.random.default_rng(int(random_state))
    raise TypeError(
        f"random_state must be None, a non-negative integer seed or a numpy.random.Generator; "
        f"got {type_name(random_state)} {random_state!r}. Pass e.g. random_state=0 or "
        "random_state=np.random.default_rng(0)."
    )


def _check_side_kwargs(kwargs: Any, name: str, shared: Mapping[str, Any]) -> dict[str, Any]:
    if kwargs is None:
        return {}
    if not isinstance(kwargs, Mapping):
        raise TypeError(
            f"{name} must be a dict of keyword arguments for one side of the comparison; got "
            f"{type_name(kwargs)} {kwargs!r}. Pass e.g. {name}={{'by': 'rps'}}."
        )
    out = dict(kwargs)
    bad = [k for k in out if not isinstance(k, str)]
    if bad:
        raise TypeError(f"{name} must have string keys (argument names); got {bad!r}.")
    for key in _SHARED_ONLY:
        if key in out:
            raise ValueError(
                f"{name} sets {key!r}, which must be the same for both sides of a paired "
                f"comparison; pass {key}=... to compare() itself."
            )
    both = sorted(set(out) & set(shared))
    if both:
        raise ValueError(
            f"{name} and the shared keyword arguments both set {', '.join(map(repr, both))}; "
            f"set each option once: in {name} for one side, or as a keyword of compare() for "
            "both."
        )
    return out


# --------------------------------------------------------------------------------------------
# The metric
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Metric:
    name: str
    func: Callable[..., Any]
    spec: MetricSpec | None


def _optional_metric(name: str) -> _Metric | None:
    """Metrics defined in modules that the package does not import eagerly (AURSC)."""
    if name != "aursc":
        return None
    try:
        module = importlib.import_module("ordmetrics.evaluation.retention")
    except ImportError:
        return None
    try:
        spec = get_metric(name)
    except ValueError:
        func = getattr(module, name, None)
        return None if func is None else _Metric(name, func, None)
    return _Metric(spec.name, spec.func, spec)


def _resolve_metric(metric: Any) -> _Metric:
    if isinstance(metric, MetricSpec):
        return _Metric(metric.name, metric.func, metric)
    if isinstance(metric, str):
        try:
            spec = get_metric(metric)
        except ValueError as exc:
            found = _optional_metric(metric)
            if found is None:
                raise ValueError(f"metric: {exc}") from None
            return found
        return _Metric(spec.name, spec.func, spec)
    if callable(metric):
        for name in list_metrics():
            spec = get_metric(name)
            if spec.func is metric:
                return _Metric(name, metric, spec)
        name = getattr(metric, "__name__", None) or type_name(metric)
        return _Metric(str(name), metric, None)
    raise TypeError(
        f"metric must be a registered metric name (e.g. 'qwk'), a MetricSpec or a callable "
        f"f(y_true, x, sample_weight=..., **options); got {type_name(metric)} {metric!r}."
    )


def _path(metric: _Metric) -> str:
    spec = metric.spec
    if spec is None:
        return "generic"
    if spec.kind == "scoring_rule":
        return "scoring"
    if spec.kind == "agreement" and spec.name in _agreement.AGREEMENT_METRICS:
        return "agreement"
    return "generic"


def _direction_of(metric: Any) -> str | None:
    if isinstance(metric, str | MetricSpec):
        try:
            return get_metric(metric).direction
        except ValueError:
            return None
    for name in list_metrics():
        if get_metric(name).func is metric:
            return get_metric(name).direction
    direction = getattr(metric, "direction", None)
    return direction if direction in ("minimize", "maximize") else None


def _direction(metric: _Metric, kwargs: Mapping[str, Any]) -> str | None:
    """Whether higher or lower values are better; AURSC inherits it from its set metric."""
    if metric.name == "aursc":
        if "metric" in kwargs:
            inner = kwargs["metric"]
        else:
            try:
                param = inspect.signature(metric.func).parameters.get("metric")
            except (TypeError, ValueError):
                param = None
            if param is None or param.default is inspect.Parameter.empty:
                return None
            inner = param.default
        return _direction_of(inner)
    if metric.spec is not None:
        return metric.spec.direction
    return _direction_of(metric.func)


def _scalar(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
            return float(value)
        raise TypeError(
            f"metric {name!r} returned {type_name(value)}, not one number; bootstrap needs a "
            "metric that returns a single number per call (for a scoring rule leave "
            "reduction at 'mean')."
        )
    return float(value)


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
        if self.path == "generic" and self.policy == "omit":
            self.keep = _complete_rows(y_true, x, self.weight, self.n)
        if self.path == "generic":
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
        prep = _agreement._prepare(
            self.y_true, self.x, labels, kw.get("sample_weight"), self.policy
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
        self._evaluator = _agreement.counts_evaluator(self.metric.name, k, **options)
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
        """The metric prepared once by its module, evaluated on resample counts."""
        spec = self.metric.spec
        module_name = None if spec is None else _COUNTS_MODULES.get(spec.kind)
        if spec is None or module_name is None:
            return
        factory = getattr(importlib.import_module(module_name), "counts_evaluator", None)
        if factory is None:
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
            kk = self._k * self._k
            counts = np.zeros((idx.shape[0], kk))
            _confusion_counts(idx, self._cells_k, self._w_k, self._weighted, counts)
            return np.asarray(
                self._evaluator(counts.reshape(-1, self._k, self._k)), dtype=np.float64
            )
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


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------


def _acceleration(jack: np.ndarray) -> float:
    """a = sum(d^3) / (6 (sum d^2)^(3/2)), d = mean(jack) - jack (finite values only)."""
    jack = jack[np.isfinite(jack)]
    if jack.size < 2:
        return 0.0
    d = jack.mean() - jack
    den = float(np.sum(d * d))
    if den == 0.0:
        return 0.0  # no variation between the leave-out values: no skewness to correct
    return float(np.sum(d**3) / (6.0 * den**1.5))


def _bca_levels(
    values: np.ndarray, estimate: float, accel: float, confidence_level: float
) -> tuple[float, float]:
    """The two quantile levels of the BCa interval (NaN when undefined)."""
    below = np.count_nonzero(values < estimate) + np.count_nonzero(values <= estimate)
    share = below / (2.0 * values.size)
    if not 0.0 < share < 1.0:
        return math.nan, math.nan
    z0 = _NORMAL.inv_cdf(share)
    alpha = 1.0 - confidence_level
    levels = []
    for q in (alpha / 2.0, 1.0 - alpha / 2.0):
        z = z0 + _NORMAL.inv_cdf(q)
        levels.append(_NORMAL.cdf(z0 + z / (1.0 - accel * z)))
    return levels[0], levels[1]


def _interval(
    values: np.ndarray,
    estimate: float,
    method: str,
    confidence_level: float,
    jackknife: Callable[[], np.ndarray] | None,
    what: str,
) -> tuple[float, float]:
    """(low, high) from the non-NaN resampled values; warns when the interval is NaN."""
    if values.size == 0:
        return math.nan, math.nan
    if method == "percentile":
        alpha = 1.0 - confidence_level
        lo, hi = _quantiles(values, [alpha / 2.0, 1.0 - alpha / 2.0])
        return float(lo), float(hi)
    if math.isnan(estimate):
        _warn(
            f"the BCa interval of {what} is undefined because the estimate on the full data "
            "is NaN; returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan, math.nan
    assert jackknife is not None
    accel = _acceleration(jackknife())
    lo_q, hi_q = _bca_levels(values, estimate, accel, confidence_level)
    if math.isnan(lo_q) or math.isnan(hi_q):
        _warn(
            f"the BCa interval of {what} is undefined: every resampled value lies on one side "
            "of the estimate, so the bias correction is infinite; returning NaN. Use "
            "method='percentile' (or more data).",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan, math.nan
    lo, hi = _quantiles(values, [lo_q, hi_q])
    return float(lo), float(hi)


def _quantiles(values: np.ndarray, q: list[float]) -> np.ndarray:
    """``np.quantile`` (linear), also where infinite values lie around a quantile (log loss):
    between v and +inf it is +inf, between -inf and v it is -inf, between -inf and +inf NaN,
    without NumPy's "invalid value" warning of inf - inf."""
    if np.isfinite(values).all():
        return np.quantile(values, q)
    with np.errstate(invalid="ignore"):
        out = np.quantile(values, q)
    lower = np.quantile(values, q, method="lower")
    higher = np.quantile(values, q, method="higher")
    out = np.where(lower == higher, lower, out)
    out = np.where(np.isnan(out) & (higher == np.inf) & (lower > -np.inf), np.inf, out)
    return np.where(np.isnan(out) & (lower == -np.inf) & (higher < np.inf), -np.inf, out)


def _valid(distribution: np.ndarray, what: str) -> np.ndarray:
    """The non-NaN values, with a warning saying how many resamples were left out."""
    nan = np.isnan(distribution)
    n_nan = int(nan.sum())
    if n_nan == distribution.size:
        _warn(
            f"{what} is undefined (NaN) on every one of the {n_nan} resamples; the mean, std "
            "and interval are NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    elif n_nan:
        _warn(
            f"{what} is undefined (NaN) on {n_nan} of {distribution.size} resamples; they are "
            "left out of the mean, std and interval.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return distribution[~nan]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _n_valid_stats(values: np.ndarray) -> tuple[float, float]:
    mean = float(values.mean()) if values.size else math.nan
    with np.errstate(invalid="ignore"):
        std = float(values.std(ddof=1)) if values.size >= 2 else math.nan
    return mean, std


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------

#: The options of both functions, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_OPTIONS = """\
    n_resamples : int, default 1000
        Number of bootstrap resamples (at least 2; 1000 or more for a 95% interval, 2000 or
        more for BCa; at most :data:`MAX_RESAMPLES` = 10^7, since every resampled value is
        returned). The resamples are drawn and evaluated in chunks of at most
        :data:`CHUNK_INDICES` row indices, so the memory beyond the returned values does not
        grow with ``n_resamples``.
    confidence_level : float, default 0.95
        Nominal coverage of the interval, strictly between 0 and 1.
    method : {"percentile", "bca"}, default "percentile"
        ``"percentile"``: the alpha/2 and 1 - alpha/2 quantiles of the resampled values.
        ``"bca"``: the bias-corrected and accelerated interval (see Notes).
    random_state : None, int or numpy.random.Generator, optional
        Source of the resamples. An integer seed gives the same resamples on every call; a
        Generator is used (and advanced) as it is, so passing the same Generator twice gives
        different resamples; None draws a fresh seed from the operating system, so the result
        differs from call to call."""


@fill_doc(options=_OPTIONS)
def bootstrap(
    metric: str | MetricSpec | Callable[..., Any],
    y_true: Any,
    y_proba_or_pred: Any,
    /,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    random_state: int | np.random.Generator | None = None,
    **metric_kwargs: Any,
) -> BootstrapResult:
    r"""Bootstrap distribution and confidence interval of a metric.

    Resamples the rows with replacement ``n_resamples`` times, evaluates the metric on every
    resample and summarises the values: mean, standard deviation (the bootstrap standard
    error) and a percentile or BCa confidence interval.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        A registered metric (its name such as ``"rps"`` or ``"qwk"``, its spec, or its
        function), or any callable ``f(y_true, x, sample_weight=..., **metric_kwargs)``
        returning one number that honours frequency weights (integer weights equal repeated
        rows), such as :func:`ordmetrics.evaluation.retention.aursc`.
    y_true : array-like of shape (n_samples,)
        True classes, as the metric takes them.
    y_proba_or_pred : array-like
        The second input of the metric: probabilities of shape (n_samples, K) for scoring
        rules, calibration metrics and AURSC, hard predictions for agreement metrics, scores
        or probabilities for ranking metrics.
    %(options)s
    **metric_kwargs
        Passed to every call of the metric: ``labels=``, ``sample_weight=``,
        ``nan_policy=`` and the metric's own options (e.g. ``weights="linear"`` for
        ``"kappa"``, ``normalize=False`` for ``"rps"``, ``by=`` for AURSC).
        ``sample_weight`` is combined with the resample counts (``w * c``); for a
        registered metric the weights are first scaled by an exact power of two (largest
        weight in [0.5, 1)), so weights of any scale, up to the float maximum and down to
        subnormals, give the interval of the same weights scaled to 1; a callable of your
        own receives your weights times the counts, unscaled. ``metric``,
        ``y_true`` and ``y_proba_or_pred`` are positional-only, so an option of the metric
        that is itself called ``metric`` (AURSC's set metric) is passed here as a keyword.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the metric on the full data), ``mean``, ``std``, ``low``, ``high``,
        ``distribution`` (the resampled values), ``method``, ``confidence_level``,
        ``n_resamples`` and ``metric`` (the name).

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined (NaN) on some resamples (e.g. kappa on a resample of a
        single class): the warning says on how many; they are left out of the mean, std and
        interval, and all NaN gives NaN. Also when a BCa interval is undefined.

    Notes
    -----
    **Resampling.** The M rows that the metric scores (all rows; under
    ``nan_policy="omit"`` the rows without a missing value) are resampled: resample b is M
    row indices drawn uniformly with replacement by ``rng.integers(0, M, dtype=np.int32)``
    (int64 beyond 2^31 rows), in chunks whose size depends on M only. The counts c of the
    drawn rows are frequency weights: the resampled value is the metric on the original
    rows with ``sample_weight = w * c``, which equals the metric on the rows repeated. The
    draws depend only on ``random_state`` and M, so every metric bootstrapped with the same
    seed on the same rows gets the same resamples (paired intervals). Under
    ``nan_policy="propagate"`` with a missing value every resample is NaN, as the metric is.

    **Evaluation.** For scoring rules the per-sample scores s are computed once and a
    resample is ``sum(c w s) / sum(c w)``; for agreement metrics the confusion counts of many
    resamples are accumulated at once and the metric's batched evaluator maps them to values;
    ranking metrics and uniformly binned ECEs are validated, encoded, sorted or binned once and
    each resample only walks the fixed order or adds up the weights per bin (the same values
    as a metric call; bit for bit with integer weights); every other metric is called once
    per resample. All give the same values (up to the rounding of sums).

    **Percentile interval.** The alpha/2 and 1 - alpha/2 quantiles of the non-NaN resampled
    values, alpha = 1 - ``confidence_level``, with NumPy's default ("linear", type 7)
    quantile definition [1]_.

    **BCa interval** [1]_ [2]_. The quantiles at levels

    .. math::

        \alpha_{1,2} = \Phi\Big(z_0 + \frac{z_0 + z_{\alpha/2,\,1-\alpha/2}}
        {1 - a\,(z_0 + z_{\alpha/2,\,1-\alpha/2})}\Big)

    with the bias correction :math:`z_0 = \Phi^{-1}(p_0)`, p_0 the share of resampled values
    below the estimate counting ties as one half, and the acceleration

    .. math::

        a = \frac{\sum_j d_j^3}{6\,(\sum_j d_j^2)^{3/2}}, \qquad
        d_j = \bar\theta_{(\cdot)} - \theta_{(j)}

    from jackknife values :math:`\theta_{(j)}`. For scoring rules and agreement metrics these
    are the exact leave-one-row-out values (closed form from the per-sample scores; for
    agreement metrics one value per distinct (cell, weight) pair of the confusion table).
    For every other metric a delete-a-group jackknife approximates them: the M rows are
    split, in a random order drawn from ``random_state`` after the resamples, into
    G = min(M, 200) groups of nearly equal size, and :math:`\theta_{(j)}` is the metric
    without group j (exact leave-one-out when M <= 200). The interval is NaN (with a
    warning) when every resampled value lies on one side of the estimate.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
       Hall/CRC, chapters 13-14 (percentile and BCa intervals) and 11 (jackknife).
    .. [2] DiCiccio, T. J., Efron, B. (1996). Bootstrap confidence intervals. Statistical
       Science 11(3), 189-228.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.resampling import bootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=200)
    >>> P = rng.dirichlet([1, 1, 1], size=200)
    >>> res = bootstrap("rps", y, P, n_resamples=500, random_state=0)
    >>> import ordmetrics
    >>> res.estimate == ordmetrics.rps(y, P)
    True
    >>> bool(res.low < res.estimate < res.high), res.distribution.shape
    (True, (500,))
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_confidence_level(confidence_level)
    method = _check_method(method)
    rng = _make_rng(random_state)
    m = _resolve_metric(metric)
    _check_reduction(metric_kwargs)
    side = _Side(m, y_true, y_proba_or_pred, dict(metric_kwargs))
    side.restrict(side.keep)
    distribution = np.empty(n_resamples)
    start = 0
    for idx in _index_chunks(rng, side.m, n_resamples):  # bounded memory: one chunk at a time
        distribution[start : start + idx.shape[0]] = side.values(idx)
        start += idx.shape[0]
    what = m.name
    valid = _valid(distribution, what)
    mean, std = _n_valid_stats(valid)

    def jackknife() -> np.ndarray:
        if side.exact_jackknife:
            return side.jackknife_rows()
        return side.jackknife_groups(_groups(rng, side.m))

    low, high = _interval(valid, side.estimate, method, confidence_level, jackknife, what)
    return BootstrapResult(
        estimate=side.estimate,
        mean=mean,
        std=std,
        low=low,
        high=high,
        distribution=_frozen(distribution),
        method=method,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        metric=m.name,
    )


def _check_reduction(kwargs: Mapping[str, Any]) -> None:
    reduction = kwargs.get("reduction", "mean")
    if reduction != "mean":
        raise ValueError(
            f"reduction must be 'mean' (or left out): the bootstrap resamples the mean score; "
            f"got reduction={reduction!r}."
        )


@fill_doc(options=_OPTIONS)
def compare(
    metric: str | MetricSpec | Callable[..., Any],
    y_true: Any,
    a: Any,
    b: Any,
    /,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    random_state: int | np.random.Generator | None = None,
    kwargs_a: Mapping[str, Any] | None = None,
    kwargs_b: Mapping[str, Any] | None = None,
    **metric_kwargs: Any,
) -> ComparisonResult:
    r"""Paired bootstrap comparison: the difference metric(a) - metric(b) on the same rows.

    Both sides are evaluated on the same resamples, so the variation the two share (which
    rows happen to be drawn) cancels in the difference. Two uses:

    * two models on the same rows: ``a`` and ``b`` are two probability matrices (or two
      hard predictions for agreement metrics);
    * two variants of one metric on one model, e.g. two scoring rules ranking the rows of a
      retention curve: ``compare("aursc", y, P, P, kwargs_a={"by": "rps"},
      kwargs_b={"by": "brier"})``.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        As in :func:`bootstrap`.
    y_true : array-like of shape (n_samples,)
        True classes.
    a, b : array-like
        The second input of the metric for side a and side b (same rows as ``y_true``).
    %(options)s
    kwargs_a, kwargs_b : dict, optional
        Options of one side only (e.g. ``{"by": "rps"}``), added to ``metric_kwargs``. They
        may not repeat a key of ``metric_kwargs``, nor set ``sample_weight`` or
        ``nan_policy``, which both sides share.
    **metric_kwargs
        Options of both sides: ``labels=``, ``sample_weight=``, ``nan_policy=`` and the
        metric's own options (``metric="mae"`` reaches AURSC: the first four arguments are
        positional-only).

    Returns
    -------
    ComparisonResult
        ``estimate_a``, ``estimate_b``, ``difference`` (a - b on the full data), ``low`` and
        ``high`` (interval of the difference), ``p_value``, ``distribution`` (the resampled
        differences), ``better``, and ``method``, ``confidence_level``, ``n_resamples``,
        ``metric``.

    Warns
    -----
    UndefinedMetricWarning
        When the difference is NaN on some resamples (either side undefined).

    Notes
    -----
    Resamples, intervals and jackknife are those of :func:`bootstrap`, applied to the
    difference d = metric(a) - metric(b): each resample gives both sides the same row counts,
    and the jackknife leaves the same rows (or groups) out of both. Under
    ``nan_policy="omit"`` the rows resampled are those complete on both sides, and the
    estimates are computed on them too. With the same ``random_state``, the distribution
    equals ``bootstrap(metric, y_true, a).distribution - bootstrap(metric, y_true,
    b).distribution`` whenever both sides score the same rows.

    The p-value is the two-sided bootstrap p-value of the hypothesis of no difference,

    .. math::

        p = \min\Big(1,\ 2\,\frac{1 + \min(\#\{d^* \le 0\},\ \#\{d^* \ge 0\})}{B + 1}\Big)

    over the B non-NaN resampled differences d* (Davison & Hinkley 1997, Eq. 4.11: counting
    the observed data as one more resample keeps the p-value valid). It moves in steps of
    2 / (B + 1) and is never 0: with no resampled difference on the other side of 0 it is
    2 / (B + 1), which says "smaller than the resolution", not "impossible". Identical sides give
    differences that are all exactly 0 and p = 1.

    ``better`` is "a" or "b" when the interval excludes 0, read with the metric's direction
    (lower is better for scoring rules, higher for kappa, ...; AURSC takes the direction of
    its set metric ``metric=``). For a callable that is not registered it is None unless
    the callable has a ``direction`` attribute ("minimize" or "maximize").

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
       Hall/CRC, chapters 15-16 (permutation and bootstrap tests).
    .. [2] DiCiccio, T. J., Efron, B. (1996). Bootstrap confidence intervals. Statistical
       Science 11(3), 189-228.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.resampling import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=300)
    >>> good = np.eye(3)[y] * 0.7 + 0.1          # 0.8 on the true class
    >>> vague = np.full((300, 3), 1 / 3)
    >>> res = compare("rps", y, good, vague, n_resamples=500, random_state=0)
    >>> res.better, round(res.p_value, 6)  # 2 / 501: no resample favours the vague side
    ('a', 0.003992)
    >>> res.difference == res.estimate_a - res.estimate_b
    True
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_confidence_level(confidence_level)
    method = _check_method(method)
    rng = _make_rng(random_state)
    m = _resolve_metric(metric)
    kw_a = {**metric_kwargs, **_check_side_kwargs(kwargs_a, "kwargs_a", metric_kwargs)}
    kw_b = {**metric_kwargs, **_check_side_kwargs(kwargs_b, "kwargs_b", metric_kwargs)}
    _check_reduction(kw_a)
    _check_reduction(kw_b)
    widths = []
    for x in (a, b):  # the number of classes of each model, when both are matrices
        try:
            shape = tuple(getattr(x, "shape", None) or np.shape(x))
        except (ValueError, TypeError):  # ragged: the side's own check explains it
            shape = ()
        widths.append(shape[1] if len(shape) == 2 else None)
    if None not in widths and widths[0] != widths[1]:
        raise ValueError(
            f"a has {widths[0]} probability columns but b has {widths[1]}; both models "
            "must predict the same classes, one column per class in the same order."
        )
    sides = []
    for side, pred, kw in (("a", a, kw_a), ("b", b, kw_b)):
        try:
            sides.append(_Side(m, y_true, pred, kw))
        except (ValueError, TypeError) as exc:
            which = "first" if side == "a" else "second"
            note = getattr(exc, "add_note", None)  # Python 3.11+
            if note is not None:
                note(f"(raised for the predictions {side}, the {which} model)")
            raise
    side_a, side_b = sides
    if side_a.path != side_b.path:  # e.g. one side propagates a missing value
        side_a.path = side_b.path = "generic"
    keep = side_a.keep & side_b.keep
    if not keep.any():
        raise ValueError(
            "no row is complete on both sides (a and b), so nan_policy='omit' leaves nothing "
            "to compare."
        )
    side_a.restrict(keep)
    side_b.restrict(keep)
    distribution = np.empty(n_resamples)
    start = 0
    for idx in _index_chunks(rng, side_a.m, n_resamples):  # bounded memory: one chunk at a time
        distribution[start : start + idx.shape[0]] = side_a.values(idx) - side_b.values(idx)
        start += idx.shape[0]
    difference = side_a.estimate - side_b.estimate
    what = f"the difference of {m.name}"
    valid = _valid(distribution, what)

    def jackknife() -> np.ndarray:
        if side_a.exact_jackknife:
            return side_a.jackknife_rows() - side_b.jackknife_rows()
        groups = _groups(rng, side_a.m)
        return side_a.jackknife_groups(groups) - side_b.jackknife_groups(groups)

    low, high = _interval(valid, difference, method, confidence_level, jackknife, what)
    if valid.size:
        extreme = min(np.count_nonzero(valid <= 0), np.count_nonzero(valid >= 0))
        p_value = float(min(1.0, 2.0 * (1 + extreme) / (valid.size + 1)))
    else:
        p_value = math.nan
    direction_a, direction_b = _direction(m, kw_a), _direction(m, kw_b)
    direction = direction_a if direction_a == direction_b else None
    better: str | None = None
    if direction is not None and (low > 0.0 or high < 0.0):
        a_higher = low > 0.0
        better = "a" if a_higher == (direction == "maximize") else "b"
    return ComparisonResult(
        estimate_a=side_a.estimate,
        estimate_b=side_b.estimate,
        difference=difference,
        low=low,
        high=high,
        p_value=p_value,
        distribution=_frozen(distribution),
        better=better,
        method=method,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        metric=m.name,
    )
