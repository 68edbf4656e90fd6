"""Streaming evaluation: accumulators with a fixed-size state (update, merge, compute).

The public entry point; the implementation lives in :mod:`ordmetrics.evaluation.streaming`.
"""

from ordmetrics.evaluation.streaming import (
    DEFAULT_MAX_EXACT,
    DEFAULT_N_GRID,
    MAX_TABLE,
    STATE_VERSION,
    Evaluator,
    StreamResult,
)

__all__ = [
    "DEFAULT_MAX_EXACT",
    "DEFAULT_N_GRID",
    "MAX_TABLE",
    "STATE_VERSION",
    "Evaluator",
    "StreamResult",
]
