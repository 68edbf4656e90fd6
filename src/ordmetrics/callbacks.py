"""Keras and PyTorch Lightning callbacks: ordmetrics metrics on validation data every epoch.

The public entry point; the implementation lives in :mod:`ordmetrics.integrations.callbacks`.
``KerasOrdmetricsCallback`` and ``LightningOrdmetricsCallback`` are created on first access,
so that importing this module imports neither framework.
"""

from typing import Any

from ordmetrics.integrations import callbacks as _impl
from ordmetrics.integrations.callbacks import monitor_mode

__all__ = ["monitor_mode"]


def __getattr__(name: str) -> Any:
    """``KerasOrdmetricsCallback`` and ``LightningOrdmetricsCallback``, made on first access."""
    return getattr(_impl, name)
