"""Argument checks shared by the splitter and the window builder.

The integer parameters are checked with :func:`ordmetrics._core.params.check_param` (their values
are attributes, which ``set_params`` may change after construction) or declared with
:func:`~ordmetrics._core.params.validate_params`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ordmetrics._core.validation import type_name


def _n_samples(X: Any, name: str = "X") -> int:
    """Number of rows of an array-like (arrays, data frames, lists)."""
    shape = getattr(X, "shape", None)
    if shape is not None:
        try:
            if len(shape) >= 1:
                return int(shape[0])
        except TypeError:
            pass
    try:
        return len(X)
    except TypeError:
        raise TypeError(
            f"{name} must be an array-like with one row per sample (an array, a data frame or a "
            f"list); got {type_name(X)}, which has no length. Pass the data, or np.arange(n)."
        ) from None


def _labels_1d(values: Any, name: str, n: int | None = None) -> np.ndarray:
    """A 1-D array of per-sample labels (block ids, series ids), checked for length."""
    if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
        raise TypeError(
            f"{name} must be a 1-D array-like with one label per sample; got "
            f"{type_name(values)} {values!r}."
        )
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D with one label per sample; got an array of shape {arr.shape}."
        )
    if n is not None and arr.shape[0] != n:
        raise ValueError(
            f"{name} must have one label per sample: {n} labels expected, got {arr.shape[0]}."
        )
    return arr


def _codes(arr: np.ndarray, name: str) -> np.ndarray:
    """Integer codes of the labels in ``arr`` (equal labels, equal codes)."""
    try:
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN; give every sample a label.")
        return np.unique(arr, return_inverse=True)[1].reshape(-1)
    except TypeError:
        raise TypeError(
            f"{name} must hold labels of one comparable type (numbers or strings); got values "
            f"of dtype {arr.dtype} that cannot be sorted."
        ) from None
