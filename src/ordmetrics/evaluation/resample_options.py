"""Arguments of the bootstrap and of paired comparisons: the checks of ``n_resamples``,
``confidence_level``, ``method`` and the per-side options, and the metric they resample (its
registry spec, its name and whether higher or lower values are better)."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import type_name
from ordmetrics.evaluation.retention import RETENTION_KIND

__all__ = ["DEFAULT_RESAMPLES", "MAX_RESAMPLES", "METHODS", "check_resamples"]

METHODS = ("percentile", "bca")

#: The number of resamples of every function and command that names a better model
#: (:func:`~ordmetrics.bootstrap`, :func:`~ordmetrics.compare`, the report, ``ordmetrics
#: compare``, ``report`` and ``demo``), so that they reach the same verdict on the same data.
#: 999 rather than 1000: with B resamples the two-sided p-value is a multiple of 2 / (B + 1),
#: here of 0.002, so it prints exactly (0.048, 0.050) and is never shown rounded onto alpha
#: (2 * 25 / 1001 = 0.04995 prints as 0.0500 yet is below 0.05); and (B + 1) alpha / 2 is a
#: whole number at the usual levels (Davison & Hinkley 1997, Sect. 5.2).
DEFAULT_RESAMPLES = 999

#: The most resamples one call accepts. The resampled values are returned (8 bytes each), and
#: the interval's Monte Carlo error shrinks like 1/sqrt(n_resamples): 10^7 resamples (80 MB of
#: values) already put it far below any sampling error, while 10^12 would need 8 TB.
MAX_RESAMPLES = 10**7

# Options that bootstrap passes itself (per-sample scores) or that must be shared by both
# sides of a comparison.
_SHARED_ONLY = ("sample_weight", "nan_policy")


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def check_resamples(n_resamples: Any) -> int:
    """Check a number of resamples that may be 0 (no intervals): 0 or at least 2.

    For the functions that add bootstrap intervals on request (the metric table of the
    report, :func:`ordmetrics.evaluate_file`); :func:`~ordmetrics.bootstrap` itself needs at
    least 2.

    Examples
    --------
    >>> from ordmetrics.evaluation.resampling import check_resamples
    >>> check_resamples(0), check_resamples(200)
    (0, 200)
    >>> check_resamples(1)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples must be 0 (no intervals) or at least 2; got 1. Use e.g. 200 for a \
quick interval, 1000 or more for a stable one.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(
            f"n_resamples must be a non-negative integer (0: no intervals); got {n_resamples!r}."
        )
    if n_resamples < 0 or n_resamples == 1:
        raise ValueError(
            f"n_resamples must be 0 (no intervals) or at least 2; got {n_resamples}. Use e.g. "
            "200 for a quick interval, 1000 or more for a stable one."
        )
    return int(n_resamples)


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


def _resolve_metric(metric: Any) -> _Metric:
    if isinstance(metric, MetricSpec):
        return _Metric(metric.name, metric.func, metric)
    if isinstance(metric, str):
        try:
            spec = get_metric(metric)
        except ValueError as exc:
            raise ValueError(f"metric: {exc}") from None
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


def _set_metric(func: Callable[..., Any], kwargs: Mapping[str, Any]) -> Any:
    """The set metric ``metric=`` of a metric computed from another one (a retention metric
    such as AURSC: the option, else the default of its ``metric`` parameter), or None."""
    if "metric" in kwargs:
        return kwargs["metric"]
    try:
        param = inspect.signature(func).parameters.get("metric")
    except (TypeError, ValueError):
        param = None
    if param is None or param.default is inspect.Parameter.empty:
        return None
    return param.default


def _direction(metric: _Metric, kwargs: Mapping[str, Any]) -> str | None:
    """Whether higher or lower values are better.

    A registered metric has the direction of its spec, except a retention metric (AURSC),
    which takes that of its set metric ``metric=``. A callable of the caller's own has its
    ``direction`` attribute, or, when it takes a set metric ``metric=`` as AURSC does, the
    direction of that metric.
    """
    spec = metric.spec
    if spec is not None and spec.kind != RETENTION_KIND:
        return spec.direction
    if spec is None:
        own = getattr(metric.func, "direction", None)
        if own in ("minimize", "maximize"):
            return str(own)
    inner = _set_metric(metric.func, kwargs)
    if inner is not None:
        return _direction_of(inner)
    return None if spec is None else spec.direction


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
