"""Metrics of the predictions stored in a CSV or Parquet file, read in batches.

The public entry point; the implementation lives in :mod:`ordmetrics.io.files`.
"""

from ordmetrics.io.files import (
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    evaluate_file,
)

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "evaluate_file",
]
