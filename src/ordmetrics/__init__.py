"""ordmetrics: evaluation metrics for probabilistic ordinal classifiers.

Scoring rules (lower is better): :func:`rps`, :func:`sa_rps`, :func:`brier`, :func:`log_loss`,
:func:`pbs`, :func:`pll`. Every metric is registered with its direction, range and properties:
see :func:`get_metric` and :func:`list_metrics`.
"""

from ._registry import MetricSpec, get_metric, list_metrics
from ._warnings import UndefinedMetricWarning
from .calibration import (
    ReliabilityDiagram,
    ScoreDecomposition,
    brier_decomposition,
    classwise_ece,
    cumulative_ece,
    ece,
    reliability,
    rps_decomposition,
    skill_score,
)
from .scoring import brier, log_loss, pbs, pll, rps, sa_rps

__version__ = "0.1.0"

__all__ = [
    "MetricSpec",
    "ReliabilityDiagram",
    "ScoreDecomposition",
    "UndefinedMetricWarning",
    "__version__",
    "brier",
    "brier_decomposition",
    "classwise_ece",
    "cumulative_ece",
    "ece",
    "get_metric",
    "list_metrics",
    "log_loss",
    "pbs",
    "pll",
    "reliability",
    "rps",
    "rps_decomposition",
    "sa_rps",
    "skill_score",
]
