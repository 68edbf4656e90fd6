"""Array-likes made arrays: real numbers only, masked entries missing, data frames recognised."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, MappingView, Set
from typing import Any

import numpy as np

from ordmetrics._core.messages import fmt_rows, type_name

#: Element types that are never numbers to ordmetrics, even when NumPy could convert them.
_NOT_REAL = (str, bytes, np.str_, np.bytes_, complex, np.complexfloating)


def unmask(x: Any, name: str) -> Any:
    """Honour the mask of a NumPy masked array: masked entries become missing values.

    Float data get NaN and other data ``None`` where masked, so the ``nan_policy`` of the
    caller applies to them exactly as to NaN; an array with nothing masked is its data.
    """
    if not isinstance(x, np.ma.MaskedArray):
        return x
    mask = np.ma.getmaskarray(x)
    data = np.asarray(x.data)
    if not mask.any():
        return data
    if data.dtype.kind in "fiub":
        return np.asarray(np.ma.filled(x.astype(np.float64), np.nan))
    out = data.astype(object)
    out[mask] = None
    return out


def masked_as_missing_labels(x: Any) -> Any:
    """Masked class labels: masked entries become ``None`` (missing), the dtype kept otherwise."""
    if not isinstance(x, np.ma.MaskedArray):
        return x
    mask = np.ma.getmaskarray(x)
    data = np.asarray(x.data)
    if not mask.any():
        return data
    out = data.astype(object)
    out[mask] = None
    return out


def check_real(arr: np.ndarray, name: str) -> None:
    """Raise TypeError when ``arr`` holds text or complex numbers (never converted silently).

    NumPy would parse ``"0.5"`` as 0.5 and cut ``0.5+1j`` to 0.5; either means the input is
    not what the caller thinks it is.
    """
    kind = arr.dtype.kind
    found: Any = None
    if kind in "USc":
        found = arr.reshape(-1)[0] if arr.size else arr.dtype
    elif kind == "O":
        for v in arr.reshape(-1):
            if isinstance(v, _NOT_REAL):
                found = v
                break
    elif kind in "VMm":
        raise TypeError(f"{name} must hold real numbers; got an array of dtype {arr.dtype}.")
    if found is None:
        return
    if isinstance(found, complex | np.complexfloating) or kind == "c":
        raise TypeError(
            f"{name} must be real numbers; got complex values (e.g. {found!r}). The imaginary "
            f"part is never dropped silently: pass {name}.real if the real part is what you mean."
        )
    raise TypeError(
        f"{name} must hold numbers; got text (e.g. {found!r}). Strings are never parsed, so "
        f"{name} must be numbers: convert first, e.g. np.asarray({name}, dtype=float), or read "
        "the file with numeric columns."
    )


def real_input(x: Any, name: str) -> Any:
    """``x`` as an array checked by :func:`check_real`, masked entries made missing (NaN).

    Input NumPy cannot convert is returned unchanged, for the caller to explain.
    """
    x = unmask(x, name)
    if isinstance(x, np.ndarray):
        check_real(x, name)
        return x
    if not isinstance(x, list | tuple):
        return x
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):
        return x
    check_real(arr, name)
    return arr


# --------------------------------------------------------------------------------------------
# Data-frame libraries, recognised without importing them
# --------------------------------------------------------------------------------------------


def is_pandas(x: Any, *names: str) -> bool:
    """Whether ``x`` is one of the named pandas types, without importing pandas."""
    pd = sys.modules.get("pandas")
    return pd is not None and any(isinstance(x, getattr(pd, n)) for n in names)


def is_polars(x: Any, *names: str) -> bool:
    """Whether ``x`` is one of the named polars types, without importing polars."""
    pl = sys.modules.get("polars")
    return pl is not None and any(isinstance(x, getattr(pl, n)) for n in names)


def check_array_like(x: Any, name: str, expected: str) -> None:
    """TypeError for containers that are not arrays: None, scalars, strings, sets, dicts, iterators.

    NumPy would turn each of them into a 0-D object array, whose message says nothing useful.
    """
    if x is None or isinstance(x, str | bytes | int | float | complex | np.generic):
        what = "None" if x is None else f"{type_name(x)} {x!r}"
        raise TypeError(f"{name} must be {expected}; got {what}.")
    if isinstance(x, Set | Mapping | MappingView):
        kind = "a set" if isinstance(x, Set) else f"a {type_name(x)}"
        raise TypeError(
            f"{name} must be {expected}; got {kind}, which has no row order. Pass a list, tuple "
            "or NumPy array."
        )
    if isinstance(x, Iterator):
        raise TypeError(
            f"{name} must be {expected}; got an iterator ({type_name(x)}), which can be read "
            f"only once. Pass a list or NumPy array, e.g. {name}=list(...)."
        )


def squeeze_frame(x: Any, name: str) -> Any:
    """A one-column data frame becomes its column; more columns is an error.

    Except for ``y_pred`` of several numeric columns, most likely the probability columns of
    a model passed where a metric takes decisions: it becomes its 2-D array, which the label
    checks reject with the message of any matrix of predictions (pointing to
    ``ordmetrics.decide``, and saying so when the rows look like probabilities).
    """
    if is_pandas(x, "DataFrame") or is_polars(x, "DataFrame"):
        if x.shape[1] != 1 and name == "y_pred":
            matrix = np.asarray(x.to_numpy())
            if matrix.dtype.kind in "biuf":
                return matrix
        if x.shape[1] != 1:
            raise ValueError(
                f"{name} must be one column of class labels; got a data frame with "
                f"{x.shape[1]} columns. Pass the column itself, e.g. df['grade']."
            )
        return x.iloc[:, 0] if is_pandas(x, "DataFrame") else x.to_series(0)
    return x


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def as_scores(y_score: Any, name: str = "y_score") -> np.ndarray:
    """A 1-D float64 array of scores (NaN allowed; the caller applies the nan_policy)."""
    check_array_like(y_score, name, "a 1-D array of scores, one per row")
    s = squeeze_frame(y_score, name)
    if is_pandas(s, "Series") or is_polars(s, "Series"):
        s = s.to_numpy()
    s = real_input(s, name)  # no text, no complex numbers; masked entries are missing
    try:
        arr = np.asarray(s, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers; got {type_name(y_score)}.") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one score per row); got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (0 rows); there is nothing to score.")
    if np.isinf(arr).any():
        rows = np.flatnonzero(np.isinf(arr))
        raise ValueError(f"{name} must be finite; got infinite values in {fmt_rows(rows)}.")
    return arr
