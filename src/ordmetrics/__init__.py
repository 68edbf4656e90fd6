"""ordmetrics: evaluation metrics for probabilistic ordinal classifiers.

Scoring rules (lower is better): :func:`rps`, :func:`sa_rps`, :func:`brier`, :func:`log_loss`,
:func:`pbs`, :func:`pll`. Every metric is registered with its direction, range and properties:
see :func:`get_metric` and :func:`list_metrics`.
"""

from ._registry import MetricSpec, get_metric, list_metrics
from .scoring import brier, log_loss, pbs, pll, rps, sa_rps

__version__ = "0.1.0"

__all__ = [
    "MetricSpec",
    "__version__",
    "brier",
    "get_metric",
    "list_metrics",
    "log_loss",
    "pbs",
    "pll",
    "rps",
    "sa_rps",
]
