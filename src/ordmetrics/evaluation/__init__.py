"""Evaluation methods of the source papers: retention curves and AURSC, bootstrap intervals,
paired comparisons, worst predictions and checkpoint selection; metric sets, evaluated
together on arrays by every front (the module :mod:`ordmetrics.evaluation.metric_set`, whose
function ``metric_set`` is ``ordmetrics.metric_set``)."""

from ordmetrics.evaluation.checkpoints import (
    EpochSelection,
    select_epoch,
    trajectory_correlation,
)
from ordmetrics.evaluation.metric_set import (
    DEFAULT_METRICS,
    MetricEntry,
    MetricSet,
    as_metric_set,
)
from ordmetrics.evaluation.resampling import (
    BootstrapResult,
    ComparisonResult,
    bootstrap,
    compare,
)
from ordmetrics.evaluation.retention import (
    DEFAULT_FRACTIONS,
    RetentionCurve,
    aursc,
    retention_curve,
)
from ordmetrics.evaluation.worst import (
    WorstPredictions,
    worst_predictions,
)

__all__ = [
    "DEFAULT_FRACTIONS",
    "DEFAULT_METRICS",
    "BootstrapResult",
    "ComparisonResult",
    "EpochSelection",
    "MetricEntry",
    "MetricSet",
    "RetentionCurve",
    "WorstPredictions",
    "as_metric_set",
    "aursc",
    "bootstrap",
    "compare",
    "retention_curve",
    "select_epoch",
    "trajectory_correlation",
    "worst_predictions",
]
