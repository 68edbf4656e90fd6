"""Frequency weights (``sample_weight``): conversion and value checks."""

from __future__ import annotations

from typing import Any

import numpy as np

from ordmetrics._core.arrays import is_pandas, is_polars, real_input, squeeze_frame
from ordmetrics._core.messages import fmt_rows, type_name


def as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Convert ``sample_weight`` to float64 of length ``n`` (values are checked later)."""
    if sample_weight is None:
        return None
    w = squeeze_frame(sample_weight, "sample_weight")
    if is_pandas(w, "Series") or is_polars(w, "Series"):
        w = w.to_numpy()
    w = real_input(w, "sample_weight")  # no text, no complex; masked entries are missing
    try:
        w = np.asarray(w, dtype=np.float64)
    except (ValueError, TypeError):
        raise TypeError(
            f"sample_weight must be numbers (one non-negative frequency weight per row); "
            f"got {type_name(sample_weight)} that could not be converted to float."
        ) from None
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D; got shape {w.shape}.")
    if w.size != n:
        raise ValueError(
            f"sample_weight has {w.size} entries but there are {n} rows; pass one weight per row."
        )
    w = np.ascontiguousarray(w)
    return w if w.flags.writeable else w.copy()


def weights_look_valid(w: np.ndarray | None) -> bool:
    """Cheap screen: no weight negative, NaN or infinite, and one positive (None passes)."""
    if w is None:
        return True
    # no sum: the sum of finite weights can overflow (1e308 each), their maximum cannot
    with np.errstate(invalid="ignore"):
        top = w.max()
        return bool(w.min() >= 0.0 and top <= np.finfo(np.float64).max and top > 0.0)


def check_weight_values(w: np.ndarray, rows: np.ndarray | None = None) -> None:
    """Raise for negative or infinite weights or a zero total (``rows``: positions in messages)."""
    idx = np.arange(w.size) if rows is None else rows
    neg = np.flatnonzero(w < 0)
    if neg.size:
        raise ValueError(
            f"sample_weight must be non-negative frequency weights; got negative values in "
            f"{fmt_rows(idx[neg])} (e.g. {float(w[neg[0]])!r})."
        )
    inf = np.flatnonzero(np.isinf(w))
    if inf.size:
        raise ValueError(
            f"sample_weight must be finite; got infinite values in {fmt_rows(idx[inf])}. Use "
            "finite frequency weights."
        )
    if not (w > 0).any():
        raise ValueError(
            "sample_weight sums to 0 over the rows that are scored; at least one row needs "
            "a positive weight."
        )


def weights_and_missing(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The weights as float64 (or None), and the mask of NaN weights (None when there is none)."""
    w = as_weights(sample_weight, n)
    if w is None:
        return None, None
    nan = np.isnan(w)
    return w, (nan if nan.any() else None)
