"""Evaluation methods of the source papers: retention curves and AURSC, bootstrap intervals,
paired comparisons, worst predictions and checkpoint selection."""

from ordmetrics.evaluation.checkpoints import (
    EpochSelection,
    select_epoch,
    trajectory_correlation,
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
    "BootstrapResult",
    "ComparisonResult",
    "EpochSelection",
    "RetentionCurve",
    "WorstPredictions",
    "aursc",
    "bootstrap",
    "compare",
    "retention_curve",
    "select_epoch",
    "trajectory_correlation",
    "worst_predictions",
]
