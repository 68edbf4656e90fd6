"""Warnings raised by ordmetrics."""

from __future__ import annotations

import warnings


class UndefinedMetricWarning(RuntimeWarning):
    """A metric is undefined for the data given (e.g. kappa when every row has one class).

    The metric returns NaN with this warning instead of raising, so that a bootstrap or a
    retention curve never stops half-way because one resample is degenerate.
    """


def warn_undefined(metric: str, reason: str) -> None:
    """Warn that ``metric`` is undefined (the caller returns NaN)."""
    warnings.warn(
        f"{metric} is undefined: {reason}; returning NaN.", UndefinedMetricWarning, stacklevel=3
    )
