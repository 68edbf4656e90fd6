"""What the Keras and Lightning callbacks share: the metric set, the logged names and modes,
and the computation of the metrics on the validation predictions.

See :mod:`ordmetrics.integrations.callbacks` for the callbacks themselves; every value is one
call of :meth:`ordmetrics.MetricSet.compute`, as :func:`ordmetrics.evaluate` computes it.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
)
from ordmetrics._core.validation import (
    check_option,
    type_name,
)
from ordmetrics.evaluation.metric_set import (
    MetricEntry,
    MetricSet,
    as_metric_set,
)
from ordmetrics.metrics.decisions import RULES

__all__ = ["monitor_mode"]


def monitor_mode(metric: str | MetricSpec | MetricEntry) -> Literal["min", "max"]:
    """The ``mode`` for EarlyStopping / ModelCheckpoint that monitor a metric: "min" or "max".

    Parameters
    ----------
    metric : str, MetricSpec or MetricEntry
        A registered metric name (``"rps"``, not the logged name ``"val_rps"``), its spec, or an
        entry of a :func:`~ordmetrics.metric_set`.

    Returns
    -------
    {"min", "max"}
        ``"min"`` for metrics with ``get_metric(name).direction == "minimize"`` (the scoring
        rules, costs, errors, calibration errors), ``"max"`` for those that are maximized
        (``qwk``, ``kappa``, ``accuracy``, ``c_index``, ...).

    Raises
    ------
    ValueError
        For an unknown metric name.

    Examples
    --------
    >>> from ordmetrics.callbacks import monitor_mode
    >>> monitor_mode("rps"), monitor_mode("c_index")
    ('min', 'max')
    """
    if isinstance(metric, MetricEntry):
        direction = metric.direction
    else:
        try:
            direction = get_metric(metric).direction
        except ValueError as exc:
            if isinstance(metric, str) and "_" in metric:
                rest = metric.split("_", 1)[1]
                try:
                    get_metric(rest)
                except ValueError:
                    raise exc from None
                raise ValueError(
                    f"{exc} monitor_mode takes the metric's registry name: for the logged "
                    f"name {metric!r} pass {rest!r}, or read callback.modes[{metric!r}]."
                ) from None
            raise
    return "min" if direction == "minimize" else "max"


# --------------------------------------------------------------------------------------------
# What both callbacks share: the metric set, the logged names, the computation
# --------------------------------------------------------------------------------------------


class _Metrics:
    """The metrics of a callback, their logged names and modes, and their computation."""

    def __init__(self, metrics: Any, labels: Any, prefix: Any, decision: Any) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string, e.g. 'val_'; got {type_name(prefix)}.")
        check_option(decision, "decision", RULES)
        # a MetricEntry accepts only metrics computable from probabilities or decisions
        self.metric_set: MetricSet = as_metric_set(metrics)
        self.labels = None if labels is None else list(labels)
        self.prefix = prefix
        self.decision = decision
        self.names: tuple[str, ...] = tuple(prefix + n for n in self.metric_set.names)
        self.modes: dict[str, Literal["min", "max"]] = {
            name: monitor_mode(e) for name, e in zip(self.names, self.metric_set, strict=True)
        }

    def __getstate__(self) -> dict[str, Any]:
        # the entries' options are read-only mappings, which do not pickle: store plain data
        entries = [(e.metric, dict(e.options), e.name) for e in self.metric_set]
        return {
            "entries": entries,
            "labels": self.labels,
            "prefix": self.prefix,
            "decision": self.decision,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        _Metrics.__init__(
            self, state["entries"], state["labels"], state["prefix"], state["decision"]
        )

    def compute(self, y: Any, P: np.ndarray, w: Any, where: str) -> dict[str, float]:
        """Every metric of the set on (y, P, w); ``where`` goes into the note of an error."""
        P = np.asarray(P)
        if P.ndim != 2 or P.shape[1] < 2:
            raise ValueError(
                f"the predictions must have shape (n_samples, n_classes) with at least 2 "
                f"classes, one probability column per class in ordinal order; got shape "
                f"{P.shape}{where}. A binary model with one sigmoid output must output "
                "[1 - p, p] instead."
            )
        k = P.shape[1]
        prefix = self.prefix
        return {
            prefix + name: value
            for name, value in self.metric_set.compute(
                y,
                P,
                w,
                labels=self.labels,
                decision=self.decision,
                decision_labels=self.labels if self.labels is not None else list(range(k)),
                note=lambda e: (
                    f"(raised by the ordmetrics callback computing {prefix + str(e.name)!r}{where})"
                ),
            ).items()
        }


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64 (max-shifted, so large logits do not overflow)."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


_COMMON_PARAMS = """\
    metrics : list or MetricSet, optional
        What to compute, as in :func:`ordmetrics.evaluate`: registered metric names,
        ``(name, options)`` pairs or ``(name, options, display_name)`` triples, entries and
        sets of :func:`~ordmetrics.metric_set`. Each is logged as ``prefix + display_name``;
        give a metric with options a display name fit for ``monitor=`` (e.g.
        ``("expected_cost", {"costs": "squared"}, "ec2")`` is logged as ``val_ec2``). The
        default is :data:`~ordmetrics.DEFAULT_METRICS` (the six scoring rules, ``qwk``,
        ``expected_cost``, ``c_index``, ``ece``).
    labels : sequence, optional
        The class of each probability column, in ordinal order, when the targets are not the
        class indices ``0..K-1``.
    prefix : str, default "val_"
        Put before every metric name to make the logged name (``val_rps``).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule giving the predicted classes of the agreement
        metrics (``qwk``, ``expected_cost``, ...), unless a metric entry fixes its own
        ``decision``."""

_COMMON_ATTRS = """\
    names : tuple of str
        The logged names, in the order of ``metrics``.
    modes : dict of str to {"min", "max"}
        The ``mode`` of each logged name (from :func:`monitor_mode`), for
        ``EarlyStopping(monitor=name, mode=callback.modes[name])``.
    history : dict of str to list of float
        The exact float64 value of every logged name after every validation run.
    epochs : list of int
        The (0-based) epoch of each entry of ``history``."""
