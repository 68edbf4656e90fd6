"""Example data: out-of-fold predictions of two real models on the diamonds ``cut`` grades.

The public entry point; the implementation lives in :mod:`ordmetrics.io.datasets`.
"""

from ordmetrics.io.datasets import (
    CUT_LABELS,
    MODELS,
    ExampleData,
    example_path,
    load_diamonds_cut,
    load_diamonds_cut_frame,
)

__all__ = [
    "CUT_LABELS",
    "MODELS",
    "ExampleData",
    "example_path",
    "load_diamonds_cut",
    "load_diamonds_cut_frame",
]
