"""scikit-learn scorers for every registered ordmetrics metric.

The public entry point; the implementation lives in :mod:`ordmetrics.integrations.sklearn`.
"""

from ordmetrics.integrations.sklearn import (
    OrdinalScorer,
    get_scorer,
    get_scorer_names,
)

__all__ = [
    "OrdinalScorer",
    "get_scorer",
    "get_scorer_names",
]
