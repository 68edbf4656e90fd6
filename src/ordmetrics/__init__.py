"""ordmetrics: evaluation metrics for probabilistic ordinal classifiers.

Scoring rules (lower is better): :func:`rps`, :func:`sa_rps`, :func:`brier`, :func:`log_loss`,
:func:`pbs`, :func:`pll`. Ranking metrics (higher is better): :func:`c_index`, :func:`spearman`,
:func:`kendall_tau`. Calibration: :func:`ece`, :func:`classwise_ece`, :func:`cumulative_ece`,
:func:`reliability`, :func:`brier_decomposition`, :func:`rps_decomposition`,
:func:`skill_score`. Every metric is registered with its direction, range and properties: see
:func:`get_metric` and :func:`list_metrics`.
"""

from . import scoring as _scoring  # noqa: F401  (registers the scoring rules first)
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
from .ranking import c_index, kendall_tau, spearman
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
    "c_index",
    "classwise_ece",
    "cumulative_ece",
    "ece",
    "get_metric",
    "kendall_tau",
    "list_metrics",
    "log_loss",
    "pbs",
    "pll",
    "reliability",
    "rps",
    "rps_decomposition",
    "sa_rps",
    "skill_score",
    "spearman",
]
