"""Class labels: the ``labels`` argument, and truth or hard predictions encoded as class indices."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Hashable, Iterator, Mapping, MappingView, Sequence, Set
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.arrays import (
    check_array_like,
    is_pandas,
    is_polars,
    masked_as_missing_labels,
    squeeze_frame,
)
from ordmetrics._core.messages import fmt_rows, fmt_values, type_name


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
    labels = masked_as_missing_labels(labels)
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
    gaps = [i for i, v in enumerate(out) if is_missing_scalar(v)]
    if gaps:
        raise ValueError(
            f"labels must not hold missing values; got {list(out)!r} (missing at position"
            f"{'s' if len(gaps) > 1 else ''} {', '.join(map(str, gaps))}). Name every class; "
            "missing truth values are handled by nan_policy, not by a label."
        )
    check_bool_mix(out, "labels")
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


def is_missing_scalar(v: Any) -> bool:
    """None, a float NaN, or pandas' NA / NaT."""
    if v is None or (isinstance(v, float | np.floating) and v != v):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (v is pd.NA or v is pd.NaT)


def check_bool_mix(values: Any, name: str) -> None:
    """TypeError when booleans are mixed with other values (NumPy would read True as 1)."""
    if not {bool, np.bool_} & set(map(type, values)):
        return
    if any(not isinstance(v, bool | np.bool_) and not is_missing_scalar(v) for v in values):
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
    """The missing entries of a pandas / polars column (None when nothing is missing or ``y``
    is not a data-frame column)."""
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
    check_array_like(y, name, "a 1-D array of class labels, one per row")
    y = masked_as_missing_labels(squeeze_frame(y, name))
    if isinstance(y, list | tuple):
        check_bool_mix(y, name)
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
        raise ValueError(_not_1d_message(arr, name, labels))
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(
            f"{name} must hold class labels; got complex numbers (dtype {arr.dtype}). Pass the "
            "class index of each row."
        )
    if kind == "O" or kind == "f":
        if kind == "O":
            check_bool_mix(arr, name)
            miss = object_missing(arr)
        else:
            miss = np.isnan(arr)
        if missing is not None:
            miss = miss | missing
        missing = miss if miss.any() else None
    if labels is None:
        return _encode_integers(arr, n_classes, name, missing)
    return _encode_with_labels(arr, labels, name, missing)


def _not_1d_message(arr: np.ndarray, name: str, labels: tuple[Hashable, ...] | None) -> str:
    """Why an array of more than one dimension is not ``name`` and what to pass instead.

    The truth is one class per row (one-hot rows are not accepted). Anything else is a
    prediction: a matrix shaped like probabilities passed where a metric takes decisions.
    """
    if name == "y_true":
        return (
            f"{name} must be 1-D (one class label per row); got an array of shape {arr.shape}. "
            "One-hot truth is not accepted: pass the class index of each row (for one-hot "
            f"rows, {name}.argmax(axis=1))."
        )
    what = f"got a {arr.ndim}-D array of shape {arr.shape}"
    if _looks_like_probabilities(arr):
        what += ", which looks like probabilities"
    lab = "" if labels is None else ", labels=labels"
    return (
        f"{name} must be 1-D class predictions (one class per row); {what}. Pass "
        f"ordmetrics.decide(P{lab}) (the most probable class of each row; "
        f"ordmetrics.decide(P, 'median'{lab}) for the median), or give P itself to "
        "ordmetrics.evaluate or a metric set with decision='argmax'."
    )


def _looks_like_probabilities(arr: np.ndarray) -> bool:
    """Whether ``arr`` is a matrix of rows in [0, 1] summing to 1 (one-hot rows included)."""
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.size == 0 or arr.dtype.kind not in "biuf":
        return False
    a = arr.astype(np.float64)
    with np.errstate(invalid="ignore"):
        in_range = bool(a.min() >= 0.0 and a.max() <= 1.0)
        # loose on the sums: only a hint, and rounded exports or float16 rows count too
        return in_range and bool(np.all(np.abs(a.sum(axis=1) - 1.0) <= 1e-3))


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


def _match_strings(values: np.ndarray, labels: tuple[Hashable, ...]) -> np.ndarray | None:
    """The position in ``labels`` of each string of ``values`` (-2: not a label), by binary
    search in the sorted labels (O(N log K), where ``np.unique`` sorts the N strings); None
    when the values are not NumPy strings or the labels not all ``str``, or a label ends in
    NUL (which NumPy's strings drop): the caller then matches by hashing."""
    if values.dtype.kind != "U" or not labels:
        return None
    if not all(type(v) is str or isinstance(v, np.str_) for v in labels):
        return None
    if any(str(v).endswith("\x00") for v in labels):
        return None
    lab = np.array(labels, dtype=str)
    order = np.argsort(lab, kind="stable")
    sorted_lab = lab[order]
    pos = np.minimum(np.searchsorted(sorted_lab, values), sorted_lab.size - 1)
    return np.where(sorted_lab[pos] == values, order[pos], -2).astype(np.int64, copy=False)


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
    elif (found_sub := _match_strings(values, labels)) is not None:
        sub = found_sub
    else:
        # Python objects: one dictionary look-up per value, O(N) (np.unique would sort them)
        uniq = None
        if values.dtype.kind != "O":
            try:
                uniq, inverse = np.unique(values, return_inverse=True)
            except TypeError:
                uniq = None
        if uniq is None:
            position = {v: i for i, v in enumerate(labels)}
            found = map(position.get, values.tolist(), itertools.repeat(-2))
            sub = np.fromiter(found, dtype=np.int64, count=values.size)
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


def check_lengths(n_true: int, n_proba: int, what: str = "y_proba") -> None:
    """Raise ValueError unless the truth and the other input have the same number of rows."""
    if n_true != n_proba:
        raise ValueError(
            f"y_true has {n_true} rows but {what} has {n_proba}; they must describe the same "
            "samples, one row each."
        )
