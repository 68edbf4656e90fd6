"""Differentiable ranked probability scores for PyTorch: losses to train ordinal classifiers.

The public entry point; the implementation lives in :mod:`ordmetrics.integrations.torch`.
"""

from ordmetrics.integrations.torch import (
    RPSLoss,
    SARPSLoss,
    rps_loss,
    sa_rps_loss,
)

__all__ = [
    "RPSLoss",
    "SARPSLoss",
    "rps_loss",
    "sa_rps_loss",
]
