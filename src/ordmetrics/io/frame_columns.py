"""The columns of a data frame: reading them, checking their roles, grouping their rows.

What every data-frame front shares (:func:`ordmetrics.evaluate`, :func:`ordmetrics.dask.evaluate`,
the HTML report, the CSV reader of the base install): one reading of ``truth``, ``proba``,
``by`` and ``sample_weight`` with one set of error messages, and one treatment of missing
group keys. Frames are read through narwhals, so pandas, polars and the other eager frames
narwhals supports are handled alike.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ordmetrics._core.validation import type_name
from ordmetrics.io.table_columns import match_label_columns

__all__ = [
    "OUTPUT_COLUMNS",
    "as_frame",
    "by_columns",
    "check_column",
    "check_roles",
    "fmt_columns",
    "group_key_rows",
    "group_rows",
    "import_narwhals",
    "label_proba_columns",
    "missing_rows",
    "numeric_column",
    "proba_columns",
]

#: Names of the output columns of :func:`ordmetrics.evaluate` besides the group columns.
OUTPUT_COLUMNS = ("metric", "estimator", "estimate", "direction")


# --------------------------------------------------------------------------------------------
# Reading the frame
# --------------------------------------------------------------------------------------------


def import_narwhals() -> Any:
    """The ``narwhals.stable.v2`` module, or an ImportError saying how to install it."""
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # pragma: no cover - narwhals is a dependency
        raise ImportError(
            "ordmetrics.evaluate needs the narwhals package to read data frames; install it "
            "with `pip install narwhals`."
        ) from None
    return nw


_SUPPORTED = "a pandas or polars DataFrame (or another eager frame narwhals supports, e.g. pyarrow)"


def as_frame(data: Any) -> Any:
    """``data`` as an eager narwhals DataFrame; a TypeError for anything else.

    Examples
    --------
    >>> import pandas as pd
    >>> from ordmetrics.io.frame_columns import as_frame
    >>> as_frame(pd.DataFrame({"y": [0, 1]})).columns
    ['y']
    >>> as_frame([0, 1])
    Traceback (most recent call last):
    ...
    TypeError: data must be a pandas or polars DataFrame (or another eager frame narwhals
    supports, e.g. pyarrow); got list. Build a frame first, e.g. pandas.DataFrame({...}), with
    the truth and the probability columns.
    """
    nw = import_narwhals()
    try:
        return nw.from_native(data, eager_only=True)
    except TypeError:
        pass
    kind = "a lazy frame" if _is_lazy(data, nw) else f"{type_name(data)}"
    fix = (
        " Collect it first (e.g. lf.collect())."
        if kind == "a lazy frame"
        else " Build a frame first, e.g. pandas.DataFrame({...}), with the truth and the "
        "probability columns."
    )
    raise TypeError(f"data must be {_SUPPORTED}; got {kind}.{fix}")


def _is_lazy(data: Any, nw: Any) -> bool:
    try:
        nw.from_native(data)
    except TypeError:
        return False
    return True


def fmt_columns(columns: Sequence[Any], limit: int = 20) -> str:
    """The column names for an error message: the first ``limit``, then how many in all.

    Examples
    --------
    >>> from ordmetrics.io.frame_columns import fmt_columns
    >>> fmt_columns(["y", "p_0", "p_1"])
    "'y', 'p_0', 'p_1'"
    >>> fmt_columns([f"c{i}" for i in range(5)], limit=2)
    "'c0', 'c1', ... (5 in all)"
    """
    shown = ", ".join(repr(c) for c in columns[:limit])
    more = f", ... ({len(columns)} in all)" if len(columns) > limit else ""
    return shown + more


def check_column(name: Any, arg: str, columns: list[Any]) -> Any:
    """``name`` must be one column of ``columns``; say which exist and which are close."""
    if not isinstance(name, str | numbers.Integral) or isinstance(name, bool):
        raise TypeError(
            f"{arg} must be the name of a column of data (a string); got {type_name(name)}. "
            "Add the values to the frame as a column and pass the column's name."
        )
    if name not in columns:
        str_cols = [c for c in columns if isinstance(c, str)]
        close = difflib.get_close_matches(str(name), str_cols, n=3) if str_cols else []
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(
            f"{arg} column {name!r} is not in data.{hint} Columns: {fmt_columns(columns)}."
        )
    return name


def proba_columns(proba: Any, columns: list[Any]) -> list[Any]:
    """The columns that ``proba`` names: a list of column names, or a prefix (table order).

    :func:`label_proba_columns` then pairs them with the classes by name.
    """
    if isinstance(proba, str):
        chosen = [c for c in columns if isinstance(c, str) and c.startswith(proba)]
        if not chosen:
            raise ValueError(
                f"proba prefix {proba!r} matches no column of data; pass the prefix the "
                f"probability columns share (e.g. 'p_' for p_0, p_1, ...) or a list of their "
                f"names. Columns: {fmt_columns(columns)}."
            )
        return chosen
    if isinstance(proba, set | frozenset | Mapping) or not hasattr(proba, "__iter__"):
        raise TypeError(
            "proba must be a list of column names in ordinal order, or a prefix string that "
            f"the probability columns share; got {type_name(proba)} {proba!r}."
        )
    chosen = list(proba)
    if not chosen:
        raise ValueError("proba is an empty list; list the probability columns in ordinal order.")
    for c in chosen:
        check_column(c, "proba", columns)
    dups = [c for i, c in enumerate(chosen) if c in chosen[:i]]
    if dups:
        raise ValueError(
            f"proba lists column {dups[0]!r} more than once; each class needs its own column."
        )
    return chosen


def by_columns(by: Any, columns: list[Any]) -> list[Any]:
    """The group columns of ``by`` (None, a name or a list of names) as a checked list.

    Examples
    --------
    >>> from ordmetrics.io.frame_columns import by_columns
    >>> by_columns("site", ["y", "site", "fold"]), by_columns(None, ["y"])
    (['site'], [])
    """
    if by is None:
        return []
    names = [by] if isinstance(by, str) or not isinstance(by, list | tuple) else list(by)
    if not names:
        raise ValueError("by is an empty list; pass None for no grouping, or column names.")
    for c in names:
        check_column(c, "by", columns)
    dups = [c for i, c in enumerate(names) if c in names[:i]]
    if dups:
        raise ValueError(f"by lists column {dups[0]!r} more than once.")
    return names


def check_roles(truth: Any, proba: list[Any], by: list[Any], weight: Any, proba_arg: Any) -> None:
    """The truth, probability, group and weight columns must not overlap."""
    if truth in proba:
        how = f"prefix {proba_arg!r} matches" if isinstance(proba_arg, str) else "lists"
        raise ValueError(
            f"proba {how} the truth column {truth!r}; the probability columns must not include "
            "the truth. Use a longer prefix or list the probability columns."
        )
    for c in by:
        if c == truth:
            raise ValueError(
                f"by contains the truth column {truth!r}; group by other columns (metrics "
                "within one true class are rarely meaningful), or copy the column under "
                "another name if this is intended."
            )
        if c in proba:
            raise ValueError(
                f"by contains {c!r}, which is also a probability column; group by other columns."
            )
        if c in OUTPUT_COLUMNS:
            raise ValueError(
                f"by column {c!r} has the name of an output column ({', '.join(OUTPUT_COLUMNS)});"
                " rename it first."
            )
    if weight is not None and (weight == truth or weight in proba):
        role = "the truth column" if weight == truth else "a probability column"
        raise ValueError(
            f"sample_weight column {weight!r} is {role}; pass the column of row weights."
        )


def numeric_column(frame: Any, name: Any, arg: str, nw: Any) -> np.ndarray:
    """A numeric column of a narwhals frame as float64; a TypeError naming ``arg`` else."""
    dtype = frame.schema[name]
    if not dtype.is_numeric():
        raise TypeError(
            f"{arg} column {name!r} must be numeric; it has dtype {dtype}. Convert it first, "
            "e.g. with .astype(float) (pandas) or .cast(pl.Float64) (polars)."
        )
    # get_column: frame[name] would take an integer name as a row position
    return np.asarray(frame.get_column(name).cast(nw.Float64).to_numpy(), dtype=np.float64)


def group_key_rows(
    by: list[Any],
    missing: list[np.ndarray],
    nan_policy: str,
    where: str = "",
    offset: int = 0,
) -> np.ndarray | None:
    """The rows to keep under ``nan_policy`` given where each ``by`` column is missing.

    Every front that groups rows (:func:`ordmetrics.evaluate`, the report, the CSV reader of
    the base install, :func:`ordmetrics.evaluate_file`, :func:`ordmetrics.dask.evaluate`)
    treats a missing group key so:

    - ``"raise"``: a ValueError naming the column and the first row whose key is missing;
    - ``"omit"``: those rows are dropped (the boolean mask of the rows kept is returned);
    - ``"propagate"``: they are kept, the rows with a missing value in a column forming one
      group (with the other columns' values), as ``dplyr::group_by`` keeps ``NA`` groups.

    Parameters
    ----------
    by : list
        The group columns.
    missing : list of ndarray of bool
        For each column of ``by``, where its value is missing (None, NaN, NA).
    nan_policy : {"raise", "omit", "propagate"}
        The policy of the call.
    where : str, optional
        Words placing the rows, appended to the row numbers (e.g. ``" of partition 3"``).
    offset : int, optional
        The number of the first row of ``missing`` in the message (rows of a batch).

    Returns
    -------
    ndarray of bool or None
        None when every row is kept, else the rows kept (``"omit"``).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.io.frame_columns import group_key_rows
    >>> miss = [np.array([False, True, False]), np.array([False, False, True])]
    >>> group_key_rows(["site", "fold"], miss, "omit")
    array([ True, False, False])
    >>> group_key_rows(["site", "fold"], miss, "propagate") is None
    True
    >>> group_key_rows(["site", "fold"], miss, "raise")
    Traceback (most recent call last):
    ...
    ValueError: by column 'site' is missing (NaN/None) in row 1 (the first of 2 rows with a
    missing group key); with nan_policy='raise' every row needs a group. Pass nan_policy='omit'
    to drop those rows, or nan_policy='propagate' to keep them as a group whose key is missing.
    """
    if nan_policy == "propagate" or not missing:
        return None
    any_missing = np.logical_or.reduce([np.asarray(m, dtype=bool) for m in missing])
    if not any_missing.any():
        return None
    if nan_policy == "raise":
        first = int(np.argmax(any_missing))
        column = next(c for c, m in zip(by, missing, strict=True) if m[first])
        n = int(any_missing.sum())
        count = "the only row" if n == 1 else f"the first of {n} rows"
        row = offset + first
        raise ValueError(
            f"by column {column!r} is missing (NaN/None) in row {row}{where} ({count} with "
            "a missing group key); with nan_policy='raise' every row needs a group. Pass "
            "nan_policy='omit' to drop those rows, or nan_policy='propagate' to keep them as a "
            "group whose key is missing."
        )
    return ~any_missing


def missing_rows(series: Any) -> np.ndarray:
    """Where a narwhals series is missing: null, or NaN in a float column."""
    m = series.is_null()
    if series.dtype.is_float():
        m = m | series.is_nan().fill_null(True)
    return np.asarray(m.to_numpy(), dtype=bool)


def group_rows(
    frame: Any, by: list[Any], nw: Any, nan_policy: str = "propagate"
) -> list[np.ndarray]:
    """Row positions of every group, groups in order of first appearance (one pass).

    Rows with a missing key are handled as :func:`group_key_rows` says; all the missing values
    of a column (None and NaN alike) fall into one group.
    """
    missing = [missing_rows(frame.get_column(c)) for c in by]
    keep = group_key_rows(by, missing, nan_policy)
    index = nw.generate_temporary_column_name(8, columns=[str(c) for c in frame.columns])
    keys = [nw.col(c).fill_nan(None) if frame.schema[c].is_float() else nw.col(c) for c in by]
    keyed = frame.select(keys).with_row_index(index)
    if keep is not None:
        keyed = keyed.filter(nw.new_series(index, keep, nw.Boolean(), backend=frame.implementation))
    groups = [
        np.sort(np.asarray(sub[index].to_numpy(), dtype=np.int64))
        for _, sub in keyed.group_by(by, drop_null_keys=False)
    ]
    groups = [g for g in groups if g.size]
    groups.sort(key=lambda g: int(g[0]))
    return groups


def label_proba_columns(
    proba: Any, columns: list[Any], labels: Any, categories: Any = None
) -> list[Any]:
    """The probability columns that ``proba`` selects, in the order of the classes.

    The one reader of ``proba`` for every front (data frames, Dask frames, the CSV reader of
    the base install): a list of names (taken in its order) or a prefix, whose columns are
    paired with the classes by name, in the order of ``labels`` (or, without labels, of
    ``categories``, those of an ordered categorical truth), as
    :func:`ordmetrics.io.table_columns.match_label_columns` states: names compared once
    normalised (case, spaces, underscores, punctuation aside), numbered columns ``p_0..p_{K-1}``
    or ``p1..pK`` in the order of their numbers, and an error for names that do not match the
    labels one-to-one.

    Examples
    --------
    >>> from ordmetrics.io.frame_columns import label_proba_columns
    >>> label_proba_columns("p_", ["y", "p_hi", "p_lo"], ["lo", "hi"])
    ['p_lo', 'p_hi']
    >>> label_proba_columns("p_", ["y", "p_weak_dem", "p_strong_dem"], ["Strong Dem", "Weak Dem"])
    ['p_strong_dem', 'p_weak_dem']
    """
    chosen = proba_columns(proba, columns)
    named, what = labels, "labels"
    if labels is None and categories is not None:
        named, what = categories, "the categories of the ordered truth"
    prefix = proba if isinstance(proba, str) else None
    return match_label_columns(chosen, named, prefix=prefix, labels_arg=what)
