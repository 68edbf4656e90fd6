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
    as_weights,
    check_flag,
    check_option,
    fmt_rows,
    renormalize_rows,
    sum_tolerance,
    sum_tolerance_eps,
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


#: Machine epsilon of the half-precision dtypes, by NumPy dtype name. ``bfloat16`` is the
#: type of ml_dtypes (what Keras and JAX hand to NumPy), which NumPy itself lacks.
HALF_EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}


def missing_rows(values: np.ndarray) -> np.ndarray:
    """Positions of the missing entries (NaN, None) of a 1-D array of classes or weights."""
    if values.dtype.kind in "fc":
        return np.flatnonzero(np.isnan(values))
    if values.dtype == object:
        return np.flatnonzero([v is None or (isinstance(v, float) and v != v) for v in values])
    return np.empty(0, dtype=np.int64)


def check_targets(y: np.ndarray, name: str, where: str) -> None:
    """Raise for missing true classes: the callbacks score every validation row."""
    rows = missing_rows(y)
    if rows.size:
        raise ValueError(
            f"{name} is missing (NaN or None) in {fmt_rows(rows)}{where}; every validation "
            "sample needs its true class. Drop those samples from the validation data."
        )


def check_weights(w: Any, n: int, name: str, where: str) -> np.ndarray:
    """Frequency weights (not None) as float64, refusing text, NaN, negative and infinite values.

    A zero total is left to the metrics: a batch may weigh nothing when others do.
    """
    try:
        arr = as_weights(w, n)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}{where}: {exc}") from None
    if arr is None:  # pragma: no cover - the callers pass None on without checking it
        raise TypeError(f"{name}{where}: expected frequency weights; got None.")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        raise ValueError(
            f"{name} must be finite non-negative frequency weights; got "
            f"{float(arr[bad[0]])!r} in {fmt_rows(bad)}{where}. Fix or drop those samples."
        )
    return arr


class _Metrics:
    """The metrics of a callback, their logged names and modes, and their computation.

    ``owner`` (the callback's class name) and ``logits_hint`` (how that callback takes
    logits) go into the messages, so that each names an option the callback has.
    """

    def __init__(
        self,
        metrics: Any,
        labels: Any,
        prefix: Any,
        decision: Any,
        *,
        renormalize: Any = False,
        owner: str = "the callback",
        logits_hint: str = "apply a softmax first",
    ) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string, e.g. 'val_'; got {type_name(prefix)}.")
        check_option(decision, "decision", RULES)
        self.renormalize = check_flag(renormalize, "renormalize")
        # a MetricEntry accepts only metrics computable from probabilities or decisions
        self.metric_set: MetricSet = as_metric_set(metrics)
        self.labels = None if labels is None else list(labels)
        self.prefix = prefix
        self.decision = decision
        self.owner = owner
        self.logits_hint = logits_hint
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
            "renormalize": self.renormalize,
            "owner": self.owner,
            "logits_hint": self.logits_hint,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        _Metrics.__init__(
            self,
            state["entries"],
            state["labels"],
            state["prefix"],
            state["decision"],
            renormalize=state.get("renormalize", False),
            owner=state.get("owner", "the callback"),
            logits_hint=state.get("logits_hint", "apply a softmax first"),
        )

    def probabilities(self, P: np.ndarray, where: str, eps: float | None = None) -> np.ndarray:
        """The predictions as the metrics read them, checked with the callback's messages.

        Half precision (``eps`` given, or a float16 or bfloat16 array) is held to the
        tolerance of its dtype (:func:`~ordmetrics._core.validation.sum_tolerance_eps`: 0.0195
        for float16 and 0.156 for bfloat16 with K = 5; a softmax computed in that precision has
        row sums within about ``(K + 2) eps / 2`` of 1), then converted to float64 and each
        row divided by its sum: the metrics, which hold float64 to 1e-6, see the rows the model
        meant. ``renormalize=True`` rescales the rows of any dtype.
        """
        eps = HALF_EPS.get(P.dtype.name) if eps is None else eps
        if eps is not None or P.dtype.kind in "iub":
            P = P.astype(np.float64)
        elif P.dtype.kind != "f":
            raise TypeError(
                f"the model's predictions must be floating-point probabilities; got dtype "
                f"{P.dtype}{where}."
            )
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~np.isfinite(P).all(axis=1))
        if bad.size:
            raise ValueError(
                f"the model's predictions are NaN or infinite in {fmt_rows(bad)}{where}; "
                f"{self.owner} scores finite probabilities only. Has training diverged (a "
                "learning rate too high, an overflow in float16)?"
            )
        if self.renormalize:
            return renormalize_rows(np.asarray(P, dtype=np.float64), "the predictions")
        k = P.shape[1]
        tol = sum_tolerance(P.dtype, k) if eps is None else sum_tolerance_eps(eps, k)
        sums = P.sum(axis=1, dtype=np.float64)
        off = np.flatnonzero(np.abs(sums - 1.0) > tol)
        if off.size:
            dtype = "half precision" if eps is not None else str(P.dtype)
            raise ValueError(
                f"the predicted probabilities must sum to 1 in each row (tolerance {tol:g} "
                f"for {dtype} with {k} classes); they do not in {fmt_rows(off)} (row "
                f"{off[0]} sums to {sums[off[0]]:.10g}){where}. If these are logits, "
                f"{self.logits_hint}; to rescale each row to sum 1, pass renormalize=True to "
                f"{self.owner}."
            )
        return P / sums[:, None] if eps is not None else P

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
        P = self.probabilities(P, where)
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
        ``decision``.
    renormalize : bool, default False
        Divide each row of predictions by its sum before the metrics see it. By default a
        row must sum to 1 within the tolerance of its dtype (see Notes) and the callback
        raises otherwise."""

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
