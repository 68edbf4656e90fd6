"""A table of NumPy columns read without a data-frame library, and its numeric-column check.

:class:`ColumnTable` is what :func:`ordmetrics.io.delimited.read_csv` returns on a base install
(no pyarrow, pandas or polars): a mapping of column names to one-dimensional NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ordmetrics.io.sources import InputError

__all__ = ["ColumnTable", "check_numeric", "is_numeric"]


class ColumnTable(Mapping[str, np.ndarray]):
    """Columns of equal length as NumPy arrays, read without a data-frame library.

    Parameters
    ----------
    columns : mapping of str to array-like
        The columns, in order. Each becomes a one-dimensional NumPy array.

    Attributes
    ----------
    column_names : list of str
        The names, in order (also ``columns``).
    num_rows : int
        The number of rows (also ``len(table.column(name))``).

    Examples
    --------
    >>> t = ColumnTable({"a": [1, 2], "b": ["x", None]})
    >>> t.column_names, t.num_rows, t["a"].dtype.name, t["b"].tolist()
    (['a', 'b'], 2, 'int64', ['x', None])
    """

    def __init__(self, columns: Mapping[str, Any]) -> None:
        cols: dict[str, np.ndarray] = {}
        for name, values in columns.items():
            arr = np.asarray(values)
            if arr.dtype.kind == "U":
                arr = arr.astype(object)
            if arr.ndim != 1:
                raise ValueError(f"column {name!r} must be one-dimensional; got shape {arr.shape}.")
            cols[str(name)] = arr
        lengths = {len(a) for a in cols.values()}
        if len(lengths) > 1:
            raise ValueError(f"the columns must have equal lengths; got {sorted(lengths)} rows.")
        self._cols = cols
        self.num_rows = lengths.pop() if lengths else 0

    @property
    def column_names(self) -> list[str]:
        return list(self._cols)

    @property
    def columns(self) -> list[str]:
        return list(self._cols)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._cols[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def __len__(self) -> int:
        return len(self._cols)

    def __repr__(self) -> str:
        cols = ", ".join(f"{k} {_dtype_name(v)}" for k, v in self._cols.items())
        return f"ColumnTable({self.num_rows} rows: {cols})"


def _dtype_name(arr: np.ndarray) -> str:
    return "str" if arr.dtype == object else arr.dtype.name


def is_numeric(arr: np.ndarray) -> bool:
    """Whether a column holds numbers (integers, floats or booleans), not text."""
    return arr.dtype.kind in "iufb"


def check_numeric(table: ColumnTable, columns: Sequence[str], role: str, source: str) -> None:
    """Raise ``InputError`` when a column is not numeric, naming the first value that is not.

    Examples
    --------
    >>> check_numeric(ColumnTable({"p": ["0.5", "x"]}), ["p"], "probability", "f.csv")
    Traceback (most recent call last):
    ...
    ordmetrics.io.sources.InputError: probability column 'p' of 'f.csv' is not numeric: row 1
    (counted from 0 after the header) holds 'x'.
    """
    for c in columns:
        values = table[c]
        if is_numeric(values):
            continue
        for i, v in enumerate(values.tolist()):
            if v is None:
                continue
            try:
                float(v)
                continue
            except ValueError:
                pass
            raise InputError(
                f"{role} column {c!r} of {source!r} is not numeric: row {i} (counted from 0 "
                f"after the header) holds {v!r}."
            )
        raise InputError(f"{role} column {c!r} of {source!r} is not numeric (type str).")
