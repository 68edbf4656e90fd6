"""Metrics of the predictions held in a Dask DataFrame, on any Dask scheduler or cluster.

The public entry point; the implementation lives in :mod:`ordmetrics.integrations.dask`.
"""

from ordmetrics.integrations.dask import (
    DEFAULT_SPLIT_EVERY,
    evaluate,
)

__all__ = [
    "DEFAULT_SPLIT_EVERY",
    "evaluate",
]
