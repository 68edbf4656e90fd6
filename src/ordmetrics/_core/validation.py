"""Input handling: labels, probabilities, weights and missing values -> canonical arrays.

Every public metric passes its inputs through this module, and every message about bad input
is written here, so that the same mistake always gets the same clear explanation: which
argument, what was expected, what arrived, and how to fix it.

The canonical form is

* ``y``: ``int64`` class indices ``0..K-1`` (``-1`` marks a missing value),
* ``proba``: a C-contiguous ``float64`` or ``float32`` array of shape ``(N, K)``,
* ``weight``: ``float64`` frequency weights of shape ``(N,)``, or ``None`` for unit weights.

Value checks on the probabilities (range, row sums, NaN) run inside the compiled scoring kernels
in one pass; only when a kernel reports a problem does :func:`find_problems` look at the data
again to write a precise message or to apply the ``nan_policy``.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterator, Mapping, MappingView, Sequence, Set
from dataclasses import dataclass
from typing import Any

import numpy as np

NAN_POLICIES = ("raise", "omit", "propagate")
REDUCTIONS = ("mean", "sum", "none")

#: Absolute tolerance on the row sums of ``y_proba`` for float64 input.
SUM_TOLERANCE = 1e-6


def sum_tolerance(dtype: np.dtype, n_classes: int) -> float:
    """Row-sum tolerance: 1e-6, widened for float32 input with many classes."""
    return max(SUM_TOLERANCE, 4.0 * n_classes * float(np.finfo(dtype).eps))


# --------------------------------------------------------------------------------------------
# Small helpers for messages
# --------------------------------------------------------------------------------------------


def fmt_rows(rows: np.ndarray, limit: int = 5) -> str:
    rows = np.asarray(rows)
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    noun = "row" if rows.size == 1 else "rows"
    return f"{noun} {shown}{more}"


def fmt_values(values: Sequence[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    more = f", ... ({len(values) - limit} more)" if len(values) > limit else ""
    return shown + more


def type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}" if t.__module__ != "builtins" else t.__qualname__


def check_option(value: Any, name: str, allowed: Sequence[str]) -> str:
    """Check a string option against its allowed values."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{name} must be one of {', '.join(repr(a) for a in allowed)}; got {value!r}."
        )
    return value


def check_flag(value: Any, name: str) -> bool:
    """Check a yes/no option: only ``True`` and ``False`` (Python or NumPy booleans) pass.

    Flags are never read by truthiness: ``normalize=None`` or ``renormalize="no"`` would
    otherwise silently mean False or True.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise TypeError(
        f"{name} must be True or False; got {type_name(value)} {value!r}. Flags are not read "
        f"by truthiness: pass {name}=True or {name}=False."
    )


#: Element types that are never numbers to ordmetrics, even when NumPy could convert them.
_NOT_REAL = (str, bytes, np.str_, np.bytes_, complex, np.complexfloating)


def _unmask(x: Any, name: str) -> Any:
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


def _masked_as_missing_labels(x: Any) -> Any:
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
    x = _unmask(x, name)
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
    pd = sys.modules.get("pandas")
    return pd is not None and any(isinstance(x, getattr(pd, n)) for n in names)


def is_polars(x: Any, *names: str) -> bool:
    pl = sys.modules.get("polars")
    return pl is not None and any(isinstance(x, getattr(pl, n)) for n in names)


def _check_array_like(x: Any, name: str, expected: str) -> None:
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


def _squeeze_frame(x: Any, name: str) -> Any:
    """A one-column data frame becomes its column; more columns is an error."""
    if is_pandas(x, "DataFrame") or is_polars(x, "DataFrame"):
        if x.shape[1] != 1:
            raise ValueError(
                f"{name} must be one column of class labels; got a data frame with "
                f"{x.shape[1]} columns. Pass the column itself, e.g. df['grade']."
            )
        return x.iloc[:, 0] if is_pandas(x, "DataFrame") else x.to_series(0)
    return x


# --------------------------------------------------------------------------------------------
# Probabilities
# --------------------------------------------------------------------------------------------


def as_proba(y_proba: Any, *, renormalize: bool = False, name: str = "y_proba") -> np.ndarray:
    """Convert ``y_proba`` to a C-contiguous float array of shape ``(N, K)``.

    Value checks (range, NaN, row sums) are left to the kernels and :func:`find_problems`.
    """
    renormalize = check_flag(renormalize, "renormalize")
    if is_pandas(y_proba, "DataFrame") or is_polars(y_proba, "DataFrame"):
        arr = y_proba.to_numpy()
    else:
        _check_array_like(y_proba, name, "a 2-D array of probabilities (n_samples, n_classes)")
        try:
            arr = np.asarray(_unmask(y_proba, name))
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"{name} must be a 2-D array of probabilities (n_samples, n_classes); "
                f"could not convert {type_name(y_proba)} to an array ({exc})."
            ) from None
    check_real(arr, name)
    if arr.dtype == object or arr.dtype.kind not in "fiub":
        try:
            arr = arr.astype(np.float64)
        except (ValueError, TypeError):
            raise TypeError(
                f"{name} must hold numbers; got values of dtype {arr.dtype} that are not "
                "numeric. Convert the probability columns to float first."
            ) from None
    if arr.ndim != 2:
        hint = (
            " For a binary problem with P(class 1) = p, pass np.column_stack([1 - p, p])."
            if arr.ndim == 1
            else ""
        )
        raise ValueError(
            f"{name} must be 2-D with shape (n_samples, n_classes); got a {arr.ndim}-D array "
            f"of shape {arr.shape}.{hint}"
        )
    n, k = arr.shape
    if k < 2:
        raise ValueError(
            f"{name} must have at least 2 columns (one per ordered class); got {k}. "
            "An ordinal problem needs K >= 2 classes."
        )
    if n == 0:
        raise ValueError(f"{name} is empty (0 rows); there is nothing to score.")
    if arr.dtype != np.float32:
        arr = arr.astype(np.float64, copy=False)
    arr = np.ascontiguousarray(arr)
    if not arr.flags.writeable:
        # read-only views (pyarrow, memory maps) would make numba compile every kernel again
        arr = arr.copy()
    if renormalize:
        arr = _renormalize(arr, name)
    return arr


def _renormalize(p: np.ndarray, name: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        negative = (p < 0).any(axis=1)
    if negative.any():
        raise ValueError(
            f"{name} has negative values in {fmt_rows(np.flatnonzero(negative))}; "
            "renormalize=True only rescales rows of non-negative values."
        )
    s = p.sum(axis=1, keepdims=True, dtype=np.float64)
    zero = s[:, 0] == 0
    if zero.any():
        raise ValueError(
            f"{name} sums to 0 in {fmt_rows(np.flatnonzero(zero))}, which cannot be renormalized."
        )
    with np.errstate(invalid="ignore"):
        return np.ascontiguousarray(p / s, dtype=p.dtype)


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoded:
    """Class indices with a mask of missing values (``None`` when nothing is missing)."""

    codes: np.ndarray
    missing: np.ndarray | None
    labels: tuple[Hashable, ...] | None


def check_labels(
    labels: Any, n_classes: int | None, proba_name: str = "y_proba"
) -> tuple[Hashable, ...]:
    """Validate ``labels``: an ordered sequence of distinct hashable values, one per column.

    Sets, dicts and their views have no order of their own (a set's order changes with the
    hash seed), so they are refused, as are iterators, missing values and booleans mixed with
    other values (``True == 1`` in Python).
    """
    if isinstance(labels, Set | Mapping | MappingView):
        raise TypeError(
            f"labels must list the class labels in ordinal order; got {type_name(labels)} "
            f"{labels!r}, which has no order (its iteration order is not the order of the "
            "classes). Pass a list, tuple or array in ordinal order, e.g. labels=[...]."
        )
    if isinstance(labels, Iterator):
        raise TypeError(
            f"labels must list the class labels in ordinal order; got an iterator "
            f"({type_name(labels)}), which can be read only once. Pass a list, e.g. "
            "labels=list(...)."
        )
    if is_pandas(labels, "Index", "Series") or is_polars(labels, "Series"):
        labels = labels.to_list()
    labels = _masked_as_missing_labels(labels)
    if isinstance(labels, np.ndarray):
        if labels.ndim != 1:
            raise ValueError(
                f"labels must be 1-D, one label per column of {proba_name}; got an array of "
                f"shape {labels.shape}."
            )
        out = tuple(labels.astype(object).tolist())
    elif isinstance(labels, Sequence) and not isinstance(labels, str | bytes):
        out = tuple(labels)
    else:
        raise TypeError(
            f"labels must be a list of the class labels in ordinal order; got "
            f"{type_name(labels)} {labels!r}."
        )
    try:
        distinct = len(set(out))
    except TypeError:
        raise TypeError(
            f"labels must be hashable values (numbers or strings); got {fmt_values(out)}."
        ) from None
    gaps = [i for i, v in enumerate(out) if _is_missing_scalar(v)]
    if gaps:
        raise ValueError(
            f"labels must not hold missing values; got {list(out)!r} (missing at position"
            f"{'s' if len(gaps) > 1 else ''} {', '.join(map(str, gaps))}). Name every class; "
            "missing truth values are handled by nan_policy, not by a label."
        )
    _check_bool_mix(out, "labels")
    if distinct != len(out):
        seen: set[Hashable] = set()
        dups = [v for v in out if v in seen or seen.add(v)]  # type: ignore[func-returns-value]
        verb = "appears" if len(dups) == 1 else "appear"
        raise ValueError(
            f"labels must be distinct; {fmt_values(dups)} {verb} more than once in {list(out)!r}."
        )
    if n_classes is not None and len(out) != n_classes:
        raise ValueError(
            f"labels has {len(out)} entries but {proba_name} has {n_classes} columns; labels "
            f"must name every column of {proba_name}, in the same (ordinal) order."
        )
    if len(out) < 2:
        raise ValueError(f"labels must name at least 2 classes; got {list(out)!r}.")
    return out


def _is_missing_scalar(v: Any) -> bool:
    """None, a float NaN, or pandas' NA / NaT."""
    if v is None or (isinstance(v, float | np.floating) and v != v):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (v is pd.NA or v is pd.NaT)


def _check_bool_mix(values: Any, name: str) -> None:
    """TypeError when booleans are mixed with other values (NumPy would read True as 1)."""
    if not {bool, np.bool_} & set(map(type, values)):
        return
    if any(not isinstance(v, bool | np.bool_) and not _is_missing_scalar(v) for v in values):
        raise TypeError(
            f"{name} mixes booleans with other values ({fmt_values(list(values)[:6])}); "
            "True would silently count as 1 and False as 0. Use class indices (integers) "
            "throughout, or booleans throughout with labels=[False, True]."
        )


def _categorical_parts(y: Any) -> tuple[np.ndarray, list[Any], bool] | None:
    """(codes, categories, ordered) of a pandas Categorical / polars Enum or Categorical."""
    if is_pandas(y, "Series", "Index", "Categorical"):
        import pandas as pd

        dtype = y.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            cat = y if isinstance(y, pd.Categorical) else pd.Categorical(y)
            return (
                np.asarray(cat.codes, dtype=np.int64),
                list(cat.categories),
                bool(dtype.ordered),
            )
        return None
    if is_polars(y, "Series"):
        import polars as pl

        dtype = y.dtype
        if isinstance(dtype, pl.Enum):
            cats = dtype.categories.to_list()
            codes = y.to_physical().fill_null(-1).to_numpy().astype(np.int64)
            return codes, cats, True
    return None


def missing_of_frame_column(y: Any) -> np.ndarray | None:
    if is_pandas(y, "Series", "Index"):
        m = np.asarray(y.isna())
        return m if m.any() else None
    if is_polars(y, "Series"):
        m = y.is_null().to_numpy()
        if y.dtype.is_float():
            m = m | y.is_nan().fill_null(False).to_numpy()
        return m if m.any() else None
    return None


def object_missing(arr: np.ndarray) -> np.ndarray:
    """Missing entries of an object array: None, float NaN, pandas NA/NaT."""
    pd = sys.modules.get("pandas")
    if pd is not None:
        return np.asarray(pd.isna(arr), dtype=bool)
    with np.errstate(invalid="ignore"):
        miss = np.asarray(np.equal(arr, np.array(None)), dtype=bool)
        try:
            miss |= np.asarray(arr != arr, dtype=bool)
        except (TypeError, ValueError):
            miss = np.fromiter(
                (v is None or (isinstance(v, float) and v != v) for v in arr),
                dtype=bool,
                count=arr.size,
            )
    return miss


def encode_labels(
    y: Any,
    *,
    labels: Any,
    n_classes: int | None,
    name: str = "y_true",
    proba_name: str = "y_proba",
) -> Encoded:
    """Turn ``y`` into class indices ``0..n_classes-1`` (``-1`` where missing).

    Parameters
    ----------
    y : array-like
        Class labels: integers ``0..K-1`` (when ``labels`` is None), any hashable values listed
        in ``labels``, or an ordered pandas Categorical / polars Enum.
    labels : sequence or None
        The class labels in ordinal order, i.e. the column order of ``y_proba``.
    n_classes : int or None
        K, the number of columns of ``y_proba``; None when not known (hard labels).
    name : str
        Argument name used in error messages.
    proba_name : str
        Name of the probability matrix whose columns ``labels`` names, for messages.
    """
    _check_array_like(y, name, "a 1-D array of class labels, one per row")
    y = _masked_as_missing_labels(_squeeze_frame(y, name))
    if isinstance(y, list | tuple):
        _check_bool_mix(y, name)
    if labels is not None:
        labels = check_labels(labels, n_classes, proba_name)

    parts = _categorical_parts(y)
    if parts is not None:
        codes, cats, ordered = parts
        missing = codes < 0
        if labels is None:
            if not ordered:
                return _encode_array(np.asarray(y, dtype=object), None, n_classes, name)
            if n_classes is not None and len(cats) != n_classes:
                raise ValueError(
                    f"{name} is an ordered categorical with {len(cats)} categories "
                    f"{fmt_values(cats)} but {proba_name} has {n_classes} columns; the "
                    f"categories must match the columns of {proba_name} one to one (or pass "
                    "labels=)."
                )
            out_labels: tuple[Hashable, ...] = tuple(cats)
            result = codes
        else:
            position = {v: i for i, v in enumerate(labels)}
            mapping = np.array([position.get(c, -2) for c in cats] + [-1], dtype=np.int64)
            result = mapping[codes]  # code -1 (missing) indexes the trailing -1
            unknown = result == -2
            if unknown.any():
                bad = sorted({cats[c] for c in codes[unknown]}, key=str)
                raise ValueError(
                    f"{name} has values not in labels: {fmt_values(bad)} (in "
                    f"{fmt_rows(np.flatnonzero(unknown))}). labels is {list(labels)!r}; add "
                    "the missing classes to labels (and columns to y_proba) or drop those rows."
                )
            if ordered:
                present = [position[c] for c in cats if c in position]
                if present != sorted(present):
                    raise ValueError(
                        f"{name} is an ordered categorical whose order {list(cats)!r} "
                        f"contradicts labels={list(labels)!r}; make them agree, or pass "
                        "labels=None to use the categorical's own order."
                    )
            out_labels = labels
        return Encoded(result, missing if missing.any() else None, out_labels)

    if is_polars(y, "Series"):
        import polars as pl

        if isinstance(y.dtype, pl.Categorical):  # unordered: its values, like any strings
            y = y.cast(pl.String)
    frame_missing = missing_of_frame_column(y)
    if is_pandas(y, "Series", "Index") or is_polars(y, "Series"):
        if frame_missing is not None and is_polars(y, "Series"):
            arr = np.asarray(y.to_list(), dtype=object)
        else:
            arr = y.to_numpy()
    else:
        try:
            arr = np.asarray(y)
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"{name} must be a 1-D array of class labels; could not convert "
                f"{type_name(y)} ({exc})."
            ) from None
    if (
        isinstance(y, list | tuple)
        and arr.dtype.kind == "f"
        and all(isinstance(v, int | np.integer) for v in y)
    ):
        arr = np.array(y, dtype=object)  # integers beyond int64 are never rounded to floats
    enc = _encode_array(arr, labels, n_classes, name, frame_missing)
    return enc


def _encode_array(
    arr: np.ndarray,
    labels: tuple[Hashable, ...] | None,
    n_classes: int | None,
    name: str,
    missing: np.ndarray | None = None,
) -> Encoded:
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one class label per row); got an array of shape {arr.shape}. "
            "One-hot truth is not accepted: pass the class index of each row."
        )
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(
            f"{name} must hold class labels; got complex numbers (dtype {arr.dtype}). Pass the "
            "class index of each row."
        )
    if kind == "O" or kind == "f":
        if kind == "O":
            _check_bool_mix(arr, name)
            miss = object_missing(arr)
        else:
            miss = np.isnan(arr)
        if missing is not None:
            miss = miss | missing
        missing = miss if miss.any() else None
    if labels is None:
        return _encode_integers(arr, n_classes, name, missing)
    return _encode_with_labels(arr, labels, name, missing)


def _encode_integers(
    arr: np.ndarray, n_classes: int | None, name: str, missing: np.ndarray | None
) -> Encoded:
    kind = arr.dtype.kind
    span = "0, 1, 2, ..." if n_classes is None else f"0..{n_classes - 1}"
    if kind == "b":
        raise TypeError(
            f"{name} is boolean; class labels must be integers {span}. Pass "
            "labels=[False, True] to use booleans as labels, or convert with .astype(int)."
        )
    if kind in "iu":
        if kind == "u" and arr.size and int(arr.max()) > _INT64_MAX:
            _raise_too_large(arr, np.flatnonzero(arr > _INT64_MAX), name, span)
        codes = np.ascontiguousarray(arr, dtype=np.int64)
        return Encoded(codes if codes.flags.writeable else codes.copy(), None, None)
    if kind == "f":
        vals = arr if missing is None else np.where(missing, 0.0, arr)
        frac = vals != np.floor(vals)
        if frac.any():
            rows = np.flatnonzero(frac)
            raise ValueError(
                f"{name} must hold integer class indices {span}; got non-integer "
                f"values {fmt_values(arr[rows].tolist())} in {fmt_rows(rows)}. Pass the class "
                "index of each row (or labels= if the classes have other names)."
            )
        big = np.abs(vals) > 2**53
        if big.any():
            rows = np.flatnonzero(big)
            shown = fmt_values(arr[rows].tolist())
            raise ValueError(
                f"{name} must hold integer class indices {span}; got {shown} in "
                f"{fmt_rows(rows)}. Pass the class index of each row."
            )
        codes = vals.astype(np.int64)
        if missing is not None:
            codes[missing] = -1
        return Encoded(codes, missing, None)
    if kind == "O":
        present = arr if missing is None else arr[~missing]
        if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in present):
            huge = np.fromiter(
                (v is not None and not -_INT64_MAX <= v <= _INT64_MAX for v in arr.tolist())
                if missing is not None
                else (not -_INT64_MAX <= v <= _INT64_MAX for v in arr.tolist()),
                dtype=bool,
                count=arr.size,
            )
            if missing is not None:
                huge &= ~missing
            if huge.any():
                _raise_too_large(arr, np.flatnonzero(huge), name, span)
            codes = np.full(arr.size, -1, dtype=np.int64)
            if missing is None:
                codes[:] = present.astype(np.int64)
            else:
                codes[~missing] = present.astype(np.int64)
            return Encoded(codes, missing, None)
        if all(isinstance(v, float | np.floating) for v in present):
            return _encode_integers(
                np.array(arr.tolist(), dtype=float) if missing is None else _float_or_nan(arr),
                n_classes,
                name,
                missing,
            )
    if kind in "OUS":
        sample = arr if missing is None else arr[~missing]
        values = list(dict.fromkeys(sample[:1000].tolist()))
        raise TypeError(
            f"{name} holds labels such as {fmt_values(values, 4)} but labels= was not given. "
            "Non-integer labels have no order that ordmetrics could know (they are never sorted "
            "silently): pass labels=[...] listing them in ordinal order, which is the column "
            "order of y_proba, or use an ordered pandas Categorical / polars Enum."
        )
    raise TypeError(f"{name} must hold class labels; got dtype {arr.dtype}.")


_INT64_MAX = int(np.iinfo(np.int64).max)


def _raise_too_large(arr: np.ndarray, rows: np.ndarray, name: str, span: str) -> None:
    """Class indices beyond int64 are out of range whatever K is: say so with their values."""
    shown = fmt_values(list(dict.fromkeys(int(v) for v in arr[rows].tolist())))
    raise ValueError(
        f"{name} must hold class indices {span}; got {shown} in {fmt_rows(rows)}. If your "
        "classes are numbered differently, pass labels=[...] with the class of each column."
    )


def _float_or_nan(arr: np.ndarray) -> np.ndarray:
    out = np.full(arr.size, np.nan)
    keep = ~object_missing(arr)
    out[keep] = np.asarray(arr[keep].tolist(), dtype=float)
    return out


def _float_exact(labels: tuple[Hashable, ...], values: np.ndarray) -> bool:
    """Whether matching ``values`` to ``labels`` through float64 is exact (|integers| <= 2^53)."""
    limit = 2**53
    for v in labels:
        if not isinstance(v, float | np.floating) and abs(int(v)) > limit:  # type: ignore[call-overload]
            return False
    if values.dtype.kind in "iu" and values.size:
        return int(values.max()) <= limit and int(values.min()) >= -limit
    return True


def _encode_with_labels(
    arr: np.ndarray, labels: tuple[Hashable, ...], name: str, missing: np.ndarray | None
) -> Encoded:
    n = arr.size
    codes = np.full(n, -1, dtype=np.int64)
    keep = slice(None) if missing is None else ~missing
    values = arr[keep]
    lab = np.asarray(labels, dtype=object)
    numeric_labels = all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in labels
    )
    if values.dtype.kind in "iuf" and numeric_labels and _float_exact(labels, values):
        lab_num = np.asarray(labels, dtype=np.float64)
        order = np.argsort(lab_num, kind="stable")
        sorted_lab = lab_num[order]
        vals = values.astype(np.float64, copy=False)
        pos = np.searchsorted(sorted_lab, vals)
        pos_c = np.minimum(pos, sorted_lab.size - 1)
        found = sorted_lab[pos_c] == vals
        sub = np.where(found, order[pos_c], -2)
    else:
        try:
            uniq, inverse = np.unique(values, return_inverse=True)
        except TypeError:
            position = {v: i for i, v in enumerate(labels)}
            sub = np.fromiter(
                (position.get(v, -2) for v in values.tolist()), dtype=np.int64, count=values.size
            )
        else:
            position = {v: i for i, v in enumerate(labels)}
            if values.dtype.kind in "US":
                # numpy string scalars hash like str, so the dict lookups below match
                pass
            table = np.array([position.get(u, -2) for u in uniq.tolist()], dtype=np.int64)
            sub = table[inverse.reshape(-1)] if table.size else np.empty(0, dtype=np.int64)
        del lab
    sub = np.asarray(sub, dtype=np.int64)
    bad = sub == -2
    if bad.any():
        rows = np.flatnonzero(bad)
        if missing is not None:
            rows = np.flatnonzero(~missing)[rows]
        unknown = list(dict.fromkeys(values[bad].tolist()))
        raise ValueError(
            f"{name} has values not in labels: {fmt_values(unknown)} (in {fmt_rows(rows)}). "
            f"labels is {list(labels)!r}; every label must be listed, in ordinal order."
        )
    codes[keep] = sub
    return Encoded(codes, missing, labels)


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


def as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Convert ``sample_weight`` to float64 of length ``n`` (values are checked later)."""
    if sample_weight is None:
        return None
    w = _squeeze_frame(sample_weight, "sample_weight")
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


def check_lengths(n_true: int, n_proba: int, what: str = "y_proba") -> None:
    if n_true != n_proba:
        raise ValueError(
            f"y_true has {n_true} rows but {what} has {n_proba}; they must describe the same "
            "samples, one row each."
        )


# --------------------------------------------------------------------------------------------
# Full diagnosis (slow path, only after a kernel reported a problem or for NaN handling)
# --------------------------------------------------------------------------------------------


def proba_looks_valid(P: np.ndarray) -> bool:
    """Cheap screen: entries in [0, 1] and row sums within tolerance (NaN fails).

    Valid input passes with three vectorised passes; only input that fails it needs the full
    diagnosis of :func:`find_problems`.
    """
    k = P.shape[1]
    with np.errstate(invalid="ignore"):
        if not (P.min() >= 0.0 and P.max() <= 1.0):
            return False
        sums = P @ np.ones(k, dtype=P.dtype)
        tol = sum_tolerance(P.dtype, k)
        return bool(sums.min() >= 1.0 - tol and sums.max() <= 1.0 + tol)


def _weights_look_valid(w: np.ndarray | None) -> bool:
    if w is None:
        return True
    # no sum: the sum of finite weights can overflow (1e308 each), their maximum cannot
    with np.errstate(invalid="ignore"):
        top = w.max()
        return bool(w.min() >= 0.0 and top <= np.finfo(np.float64).max and top > 0.0)


def find_problems(
    y: np.ndarray,
    proba: np.ndarray,
    weight: np.ndarray | None,
    *,
    y_missing: np.ndarray | None,
    nan_policy: str,
    labels: tuple[Hashable, ...] | None,
    name: str = "y_proba",
    renormalize_hint: bool = True,
) -> np.ndarray | None:
    """Raise for invalid values; return the mask of rows with missing values (or ``None``).

    Missing values (NaN in ``y_proba`` or ``sample_weight``, missing ``y_true``) raise under
    ``nan_policy="raise"`` and are returned as a mask otherwise. Everything else that is wrong
    (infinite or out-of-range probabilities, rows not summing to 1, labels out of range,
    negative weights, zero total weight) raises whatever the policy.
    """
    k = proba.shape[1]
    proba_nan = np.isnan(proba).any(axis=1)
    missing = proba_nan.copy()
    if y_missing is not None:
        missing |= y_missing
    w_nan = None
    if weight is not None:
        w_nan = np.isnan(weight)
        missing |= w_nan
    if missing.any() and nan_policy == "raise":
        parts = []
        if proba_nan.any():
            parts.append(f"{name} has NaN in {fmt_rows(np.flatnonzero(proba_nan))}")
        if y_missing is not None and y_missing.any():
            parts.append(f"y_true is missing in {fmt_rows(np.flatnonzero(y_missing))}")
        if w_nan is not None and w_nan.any():
            parts.append(f"sample_weight is NaN in {fmt_rows(np.flatnonzero(w_nan))}")
        raise ValueError(
            "; ".join(parts) + ". Pass nan_policy='omit' to drop those rows or "
            "nan_policy='propagate' to get NaN."
        )
    ok = ~missing
    with np.errstate(invalid="ignore"):
        inf_rows = np.isinf(proba).any(axis=1) & ok
        if inf_rows.any():
            raise ValueError(
                f"{name} has infinite values in {fmt_rows(np.flatnonzero(inf_rows))}; "
                "probabilities must be finite numbers in [0, 1]."
            )
        out = ((proba < 0) | (proba > 1)).any(axis=1) & ok
    if out.any():
        rows = np.flatnonzero(out)
        r = rows[0]
        raise ValueError(
            f"{name} must lie in [0, 1]; values outside it in {fmt_rows(rows)} (row {r}: "
            f"{proba[r].tolist()}). Are these logits or scores? Apply a softmax first; "
            "ordmetrics never clips silently."
        )
    tol = sum_tolerance(proba.dtype, k)
    sums = proba.sum(axis=1, dtype=np.float64)
    off = (np.abs(sums - 1.0) > tol) & ok
    if off.any():
        rows = np.flatnonzero(off)
        r = rows[0]
        raise ValueError(
            f"rows of {name} must sum to 1 (tolerance {tol:g}); they do not in "
            f"{fmt_rows(rows)} (row {r} sums to {sums[r]:.10g}). "
            + (
                "Pass renormalize=True to rescale each row to sum 1."
                if renormalize_hint
                else f"Rescale each row to sum 1 first, e.g. {name} / "
                f"{name}.sum(axis=1, keepdims=True)."
            )
        )
    yy = y[ok] if y_missing is not None or missing.any() else y
    bad_y = (yy < 0) | (yy >= k)
    if bad_y.any():
        rows = np.flatnonzero(ok)[np.flatnonzero(bad_y)]
        vals = list(dict.fromkeys(y[rows].tolist()))
        if labels is None:
            raise ValueError(
                f"y_true must hold class indices 0..{k - 1} ({name} has {k} columns); got "
                f"{fmt_values(vals)} in {fmt_rows(rows)}. If your classes are numbered "
                "differently (e.g. from 1), pass labels=[...] with the class of each column."
            )
        raise ValueError(f"y_true has codes outside 0..{k - 1} in {fmt_rows(rows)}.")
    if weight is not None:
        wk = weight[ok]
        with np.errstate(invalid="ignore"):
            neg = np.flatnonzero(ok)[np.flatnonzero(wk < 0)]
            inf = np.flatnonzero(ok)[np.flatnonzero(np.isinf(wk))]
        if neg.size:
            raise ValueError(
                f"sample_weight must be non-negative frequency weights; got negative values in "
                f"{fmt_rows(neg)} (e.g. {float(weight[neg[0]])!r})."
            )
        if inf.size:
            raise ValueError(
                f"sample_weight must be finite; got infinite values in {fmt_rows(inf)}. Use "
                "finite frequency weights."
            )
    if not ok.any() and nan_policy == "omit":
        raise ValueError(
            "every row has a missing value, so nan_policy='omit' leaves nothing to score."
        )
    if weight is not None and not (weight[ok] > 0).any():
        if not (nan_policy == "propagate" and missing.any()):  # else the result is NaN anyway
            raise ValueError(
                "sample_weight sums to 0 over the rows that are scored; at least one row needs "
                "a positive weight."
            )
    return missing if missing.any() else None


# --------------------------------------------------------------------------------------------
# Prepared inputs for the metrics beyond the scoring rules
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    """Validated inputs with the ``nan_policy`` applied.

    ``y_true`` holds class indices ``0..n_classes-1``; ``other`` holds the second input in
    canonical form (class indices for hard labels, float64 scores, or a probability matrix);
    ``weight`` is ``None`` for unit weights. When ``nan_policy="propagate"`` and a value is
    missing, ``propagate`` is True and the metric must return NaN (the arrays are then the
    complete rows only, so that everything else has still been validated).
    """

    y_true: np.ndarray
    other: np.ndarray
    weight: np.ndarray | None
    n_classes: int
    labels: tuple[Hashable, ...] | None
    propagate: bool = False


def _check_weight_values(w: np.ndarray, rows: np.ndarray | None = None) -> None:
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


def _apply_missing(
    missing: np.ndarray | None, parts: dict[str, np.ndarray | None], nan_policy: str
) -> tuple[np.ndarray | None, bool]:
    """Raise for missing values under "raise"; otherwise return the mask of complete rows."""
    if missing is None or not missing.any():
        return None, False
    if nan_policy == "raise":
        where = "; ".join(
            f"{name} is missing (NaN/None) in {fmt_rows(np.flatnonzero(m))}"
            for name, m in parts.items()
            if m is not None and m.any()
        )
        raise ValueError(
            f"{where}. Pass nan_policy='omit' to drop those rows or nan_policy='propagate' "
            "to get NaN."
        )
    keep = ~missing
    if not keep.any() and nan_policy == "omit":
        raise ValueError(
            "every row has a missing value, so nan_policy='omit' leaves nothing to score."
        )
    return keep, nan_policy == "propagate"


def _weights_and_missing(sample_weight: Any, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    w = as_weights(sample_weight, n)
    if w is None:
        return None, None
    nan = np.isnan(w)
    return w, (nan if nan.any() else None)


def _or(*masks: np.ndarray | None) -> np.ndarray | None:
    out = None
    for m in masks:
        if m is not None:
            out = m.copy() if out is None else out | m
    return out


def _finish(
    y: np.ndarray,
    other: np.ndarray,
    w: np.ndarray | None,
    keep: np.ndarray | None,
    propagate: bool,
    n_classes: int,
    labels: tuple[Hashable, ...] | None,
) -> Prepared:
    if keep is not None:
        y, other = y[keep], other[keep]
        w = None if w is None else w[keep]
    if w is not None and y.size:
        _check_weight_values(w, None if keep is None else np.flatnonzero(keep))
    return Prepared(y, other, w, n_classes, labels, propagate)


def check_non_negative_codes(codes: np.ndarray, name: str, keep: np.ndarray | None) -> None:
    """Integer classes without ``labels`` must be 0, 1, 2, ... (rows counted before ``keep``)."""
    if codes.size and codes.min() < 0:
        bad = np.flatnonzero(codes < 0)
        rows = bad if keep is None else np.flatnonzero(keep)[bad]
        raise ValueError(
            f"{name} must hold class indices 0, 1, 2, ...; got negative values "
            f"{fmt_values(sorted(set(codes[bad].tolist())))} in {fmt_rows(rows)}. Pass "
            "labels=[...] to name the classes in ordinal order."
        )


def prepare_hard(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    pred_name: str = "y_pred",
) -> Prepared:
    """Validate truth and hard predictions (both class labels) against one label set.

    Without ``labels`` both must be integer class indices and the label set is
    ``0..max(y_true, y_pred)``: classes absent from the data but inside that range still count.
    """
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    if labels is not None:
        lab = check_labels(labels, None)
        k = len(lab)
    else:
        lab, k = None, 0
    yt = encode_labels(y_true, labels=lab, n_classes=k or None, name="y_true")
    yp = encode_labels(y_pred, labels=lab, n_classes=k or None, name=pred_name)
    check_lengths(yt.codes.size, yp.codes.size, pred_name)
    if yt.codes.size == 0:
        raise ValueError("y_true is empty (0 rows); there is nothing to score.")
    w, w_nan = _weights_and_missing(sample_weight, yt.codes.size)
    if lab is None:
        lab = yt.labels if yt.labels is not None else yp.labels
        if yt.labels is not None and yp.labels is not None and yt.labels != yp.labels:
            raise ValueError(
                f"y_true and {pred_name} are ordered categoricals with different categories "
                f"({list(yt.labels)!r} vs {list(yp.labels)!r}); pass labels= to say which "
                "order is meant."
            )
    missing = _or(yt.missing, yp.missing, w_nan)
    keep, propagate = _apply_missing(
        missing, {"y_true": yt.missing, pred_name: yp.missing, "sample_weight": w_nan}, nan_policy
    )
    ok = slice(None) if keep is None else keep
    ytc, ypc = yt.codes[ok], yp.codes[ok]
    if lab is not None:
        k = len(lab)
    else:
        check_non_negative_codes(ytc, "y_true", keep)
        check_non_negative_codes(ypc, pred_name, keep)
        k = int(max(ytc.max(initial=0), ypc.max(initial=0))) + 1
        k = max(k, 2)
    return _finish(yt.codes, yp.codes, w, keep, propagate, k, lab)


def prepare_proba(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool = False,
    name: str = "y_proba",
    renormalize_hint: bool = True,
) -> Prepared:
    """Validate truth and a probability matrix completely (``other`` is the float matrix).

    ``name`` is the argument name used in messages; ``renormalize_hint`` says whether the
    caller offers ``renormalize=True``.
    """
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    P = as_proba(y_proba, renormalize=renormalize, name=name)
    n, k = P.shape
    enc = encode_labels(y_true, labels=labels, n_classes=k, proba_name=name)
    check_lengths(enc.codes.size, n, name)
    w = as_weights(sample_weight, n)
    y = enc.codes
    if (
        enc.missing is None
        and y.min() >= 0
        and y.max() < k
        and _weights_look_valid(w)
        and proba_looks_valid(P)
    ):
        return Prepared(y, P, w, k, enc.labels)
    missing = find_problems(
        enc.codes,
        P,
        w,
        y_missing=enc.missing,
        nan_policy=nan_policy,
        labels=enc.labels,
        name=name,
        renormalize_hint=renormalize_hint,
    )
    keep = None if missing is None else ~missing
    propagate = missing is not None and nan_policy == "propagate"
    if keep is not None:
        P, y = P[keep], enc.codes[keep]
        w = None if w is None else w[keep]
    else:
        y = enc.codes
    if propagate and y.size == 0:
        return Prepared(y, P, w, k, enc.labels, True)
    return Prepared(y, P, w, k, enc.labels, propagate)


def as_scores(y_score: Any, name: str = "y_score") -> np.ndarray:
    """A 1-D float64 array of scores (NaN allowed; the caller applies the nan_policy)."""
    _check_array_like(y_score, name, "a 1-D array of scores, one per row")
    s = _squeeze_frame(y_score, name)
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


def prepare_scores(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    name: str = "y_score",
) -> Prepared:
    """Validate ordinal truth and a 1-D score with the nan_policy applied (K not needed)."""
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    s = as_scores(y_score, name)
    enc = encode_labels(y_true, labels=labels, n_classes=None, name="y_true")
    check_lengths(enc.codes.size, s.size, name)
    w, w_nan = _weights_and_missing(sample_weight, s.size)
    s_nan = np.isnan(s)
    s_nan = s_nan if s_nan.any() else None
    keep, propagate = _apply_missing(
        _or(enc.missing, s_nan, w_nan),
        {"y_true": enc.missing, name: s_nan, "sample_weight": w_nan},
        nan_policy,
    )
    codes = enc.codes if keep is None else enc.codes[keep]
    if enc.labels is not None:
        k = len(enc.labels)
    else:
        check_non_negative_codes(codes, "y_true", keep)
        k = int(codes.max(initial=0)) + 1
    return _finish(enc.codes, s, w, keep, propagate, k, enc.labels)
