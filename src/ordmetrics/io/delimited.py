"""Reading CSV files and computing the metric table without a data-frame library.

A base install of ordmetrics (NumPy, numba, narwhals, array-api-compat) has no library that
reads CSV files into a data frame, and narwhals needs one to work on. This module is the
fallback of the command line for that case:

* :func:`read_csv` reads a CSV file with the standard library's :mod:`csv` module into a
  :class:`ColumnTable`, a mapping of column names to NumPy arrays. Each column is typed as
  pyarrow and pandas type it: ``int64`` when every field is an integer, ``float64`` when every
  field is a number or missing (a missing integer column is ``float64`` with NaN, as pandas
  reads it), else text (an object array of ``str``, None where missing). A field is missing
  when it is one of :data:`~ordmetrics.io.sources.NULL_VALUES` (the empty field, ``NA``,
  ``NaN``, ``null``, ``None``, ...: the one list of every reader), unless it is one of the
  class labels.
* :func:`metric_table` computes the records of :func:`ordmetrics.report.html.metric_table` from a
  :class:`ColumnTable` by calling the metric functions of the core on the rows of every group
  (the groups in order of first appearance, a row with a missing group value handled as
  ``nan_policy`` says, as :func:`ordmetrics.evaluate` forms them), with bootstrap intervals from
  :func:`ordmetrics.bootstrap`. :func:`ordmetrics.report.html.metric_table` sends a
  :class:`ColumnTable` here.

The numbers are the same as through a data frame: the same public functions are called with
the same arrays.

Examples
--------
>>> import io
>>> from ordmetrics.io.delimited import read_csv, metric_table
>>> text = b"grade,p0,p1,p2\\n0,0.7,0.2,0.1\\n1,0.2,0.6,0.2\\n2,0.1,0.3,0.6\\n"
>>> table = read_csv(io.BytesIO(text), ",", "preds.csv")
>>> table
ColumnTable(3 rows: grade int64, p0 float64, p1 float64, p2 float64)
>>> rec = metric_table(table, truth="grade", proba="p", metrics=["rps"])
>>> rec[0]["metric"], round(rec[0]["estimate"], 4)
('rps', 0.05)
"""

from __future__ import annotations

import csv
import io
import math
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ordmetrics.io.column_table import ColumnTable, check_numeric, is_numeric
from ordmetrics.io.sources import NULL_VALUES, InputError, null_markers, show_delimiter

__all__ = [
    "NULL_VALUES",
    "ColumnTable",
    "check_numeric",
    "labels_option",
    "metric_table",
    "read_csv",
]

# one field per line: what float() must parse the same way as pyarrow and pandas (no
# underscores, no surrounding blanks)
_FLOATS = re.compile(
    r"(?:[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)\n)*",
    re.IGNORECASE,
)
_INTS = re.compile(r"(?:[+-]?\d{1,18}\n)*")
# the characters of columns that need no regular expression: digits only are integers; with
# these, float() of each field decides (it fails on what is not a number, e.g. 2020-01-02)
_DIGITS = frozenset("0123456789\n")
_DECIMALS = frozenset("0123456789\n.+-eE")


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def _error(source: str, delimiter: str, why: str) -> ValueError:
    return InputError(
        f"could not parse {source!r} as CSV with delimiter {show_delimiter(delimiter)}: {why}"
    )


def _column(values: tuple[str, ...], nulls: frozenset[str] = NULL_VALUES) -> np.ndarray:
    """One column of fields typed as pyarrow / pandas type it (see the module docstring);
    the fields in ``nulls`` are missing."""
    n = len(values)
    missing = np.fromiter(map(nulls.__contains__, values), dtype=bool, count=n)
    any_missing = bool(missing.any())
    present = (
        [v for v, m in zip(values, missing.tolist(), strict=True) if not m]
        if any_missing
        else values
    )
    joined = "\n".join(present) + ("\n" if n else "")
    chars = set(joined)
    if n and not any_missing:
        if (chars <= _DIGITS and max(map(len, values)) <= 18) or (
            chars <= _DIGITS | {"+", "-"} and _INTS.fullmatch(joined)
        ):
            return np.fromiter(map(int, values), dtype=np.int64, count=n)
    if chars <= _DECIMALS or _FLOATS.fullmatch(joined):
        try:
            # float() of every field: the correctly rounded double of the decimal
            numbers = np.fromiter(map(float, present), dtype=np.float64, count=len(present))
        except ValueError:  # e.g. dates: not numbers
            pass
        else:
            if not any_missing:
                return numbers
            out = np.full(n, np.nan)
            out[~missing] = numbers
            return out
    text = np.empty(n, dtype=object)
    text[:] = values
    text[missing] = None
    return text


def read_csv(
    source: Path | io.BytesIO | bytes, delimiter: str, name: Any, labels: Any = None
) -> ColumnTable:
    """Read a CSV file into a :class:`ColumnTable` with the standard library.

    Parameters
    ----------
    source : Path, bytes or binary stream
        The file, or its (decompressed) content; UTF-8 text with a header line.
    delimiter : str
        The field delimiter (one character).
    name : str or Path
        The file's name, for the messages.
    labels : sequence, optional
        The class labels: a field that is one of them is that label, never a missing value
        (see :func:`~ordmetrics.io.sources.null_markers`).

    Returns
    -------
    ColumnTable
        The columns typed as described in the module docstring. Blank lines are skipped.

    Raises
    ------
    ordmetrics.io.readers.InputError
        For a file that is not UTF-8, is empty, or has a row with more or fewer fields than
        the header (naming the line).
    """
    source_name = str(name)
    if isinstance(source, Path):
        data = source.read_bytes()
    elif isinstance(source, bytes | bytearray):
        data = bytes(source)
    else:
        data = source.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{source_name!r} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8."
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if r]
    except csv.Error as exc:
        raise _error(source_name, delimiter, str(exc)) from None
    if not rows:
        raise InputError(f"{source_name!r} is empty (no header line).")
    header = rows[0]
    width = len(header)
    dups = sorted({h for i, h in enumerate(header) if h in header[:i]})
    if dups:
        raise InputError(
            f"{source_name!r} has the column {dups[0]!r} more than once; column names must be "
            "unique: rename one of them."
        )
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    bad = np.flatnonzero(lengths != width)
    if bad.size:
        i = int(bad[0])
        raise _error(
            source_name,
            delimiter,
            f"row {i - 1} (counted from 0 after the header) has {lengths[i]} fields, the "
            f"header {width}.",
        )
    fields = list(zip(*rows[1:], strict=True)) if len(rows) > 1 else [()] * width
    nulls = frozenset(null_markers(labels))
    return ColumnTable({h: _column(tuple(f), nulls) for h, f in zip(header, fields, strict=True)})


# --------------------------------------------------------------------------------------------
# Checks of the command line (what _io.check_numeric and cli._labels do for data frames)
# --------------------------------------------------------------------------------------------


def labels_option(
    text: str | None, table: ColumnTable, truth: str, proba: list[str], split: Any
) -> list[Any] | None:
    """``--labels`` in the type of the truth column (what ``cli._labels`` does for frames)."""
    column = table[truth]
    if text is None:
        if is_numeric(column):
            return None
        seen: list[Any] = []
        for v in column.tolist():
            if v is not None and v not in seen:
                seen.append(v)
                if len(seen) == 4:
                    break
        shown = ", ".join(repr(v) for v in seen[:3]) + (", ..." if len(seen) > 3 else "")
        raise InputError(
            f"truth column {truth!r} holds class names ({shown}); give their ordinal order "
            f"with --labels A,B,..., one per probability column ({len(proba)}: "
            f"{', '.join(proba)})."
        )
    names = split(text, "--labels")
    if len(names) != len(proba):
        raise InputError(
            f"--labels lists {len(names)} classes but there are {len(proba)} probability "
            f"columns ({', '.join(proba)}); give one label per column, in the same order."
        )
    kind = column.dtype.kind
    if kind not in "iuf":
        return list(names)
    cast: Any = int if kind in "iu" else float
    try:
        return [cast(v) for v in names]
    except ValueError:
        raise InputError(
            f"truth column {truth!r} holds numbers, so --labels must be numbers too; got {text!r}."
        ) from None


# --------------------------------------------------------------------------------------------
# The metric table
# --------------------------------------------------------------------------------------------


def _codes(values: np.ndarray) -> np.ndarray:
    """Integer codes of a column's values; every missing value (None, NaN) shares code 0."""
    if values.dtype == object:
        missing = np.array([v is None for v in values.tolist()], dtype=bool)
        filled = np.where(missing, "", values).astype(str)
    elif values.dtype.kind == "f":
        missing = np.isnan(values)
        filled = np.where(missing, 0.0, values)
    else:
        missing = np.zeros(values.shape, dtype=bool)
        filled = values
    _, inverse = np.unique(filled, return_inverse=True)
    return np.where(missing, 0, inverse.reshape(-1) + 1)


def _groups(table: ColumnTable, by: Sequence[str]) -> list[np.ndarray]:
    """Row positions of every group, in order of first appearance."""
    codes = np.stack([_codes(table[c]) for c in by], axis=1)
    _, inverse = np.unique(codes, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    groups = np.split(order, bounds)
    groups.sort(key=lambda g: int(g[0]))
    return groups


def _scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _truth(values: np.ndarray) -> np.ndarray:
    """The truth as the core reads it fastest: class names without a missing one as ``str``."""
    if values.dtype == object and not any(v is None for v in values.tolist()):
        return values.astype(str)
    return values


def metric_table(
    data: Any,
    *,
    truth: str,
    proba: Any,
    metrics: Any = None,
    by: Any = None,
    labels: Any = None,
    sample_weight: str | None = None,
    nan_policy: str = "raise",
    decision: str = "argmax",
    n_resamples: int = 0,
    confidence_level: float = 0.95,
    random_state: int = 0,
) -> list[dict[str, Any]]:
    """The records of :func:`ordmetrics.report.html.metric_table` for a :class:`ColumnTable`.

    :func:`ordmetrics.report.html.metric_table` sends a :class:`ColumnTable` here (a table
    read without a data-frame library) and computes the records of a data frame itself.

    Parameters
    ----------
    data : ColumnTable
        The table read by :func:`read_csv`.
    truth, proba, metrics, by, labels, sample_weight, nan_policy, decision, n_resamples, \
confidence_level, random_state
        As for :func:`ordmetrics.report.html.metric_table`.

    Returns
    -------
    list of dict
        One record per (group, metric): the ``by`` columns (None for a missing value),
        ``metric``, ``estimate``, ``direction``, ``low`` and ``high``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`ColumnTable`.
    """
    if not isinstance(data, ColumnTable):
        raise TypeError(
            f"data must be a ColumnTable (a table read without a data-frame library); got "
            f"{type(data).__name__}. Data frames go to ordmetrics.report.html.metric_table."
        )
    from ordmetrics._core.progress import progress
    from ordmetrics._core.validation import (
        NAN_POLICIES,
        check_option,
    )
    from ordmetrics.evaluation import bootstrap
    from ordmetrics.evaluation.metric_set import as_float, as_metric_set, decide_rows
    from ordmetrics.evaluation.resampling import check_resamples
    from ordmetrics.io.frame_columns import (
        by_columns,
        check_column,
        check_roles,
        group_key_rows,
        label_proba_columns,
    )
    from ordmetrics.metrics.decisions import RULES

    n_resamples = check_resamples(n_resamples)
    ms = as_metric_set(metrics)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    check_option(decision, "decision", RULES)
    columns = table_columns = data.column_names
    truth_col = check_column(truth, "truth", table_columns)
    proba_cols = label_proba_columns(proba, columns, labels)
    by_cols = by_columns(by, columns)
    weight_col = (
        None if sample_weight is None else check_column(sample_weight, "sample_weight", columns)
    )
    check_roles(truth_col, proba_cols, by_cols, weight_col, proba)
    clash = [c for c in by_cols if c in ("low", "high")]
    if clash:
        raise ValueError(
            f"by column {clash[0]!r} has the name of an interval column (low, high); rename it."
        )
    for c in [*proba_cols, *([] if weight_col is None else [weight_col])]:
        if not is_numeric(data[c]):
            arg = "proba" if c in proba_cols else "sample_weight"
            raise TypeError(f"{arg} column {c!r} must be numeric; it holds text.")

    y_all = _truth(data[truth_col])
    P_all = np.column_stack([data[c].astype(np.float64) for c in proba_cols])
    w_all = None if weight_col is None else data[weight_col].astype(np.float64)
    agreement_labels = labels
    if labels is None and is_numeric(y_all):
        agreement_labels = list(range(len(proba_cols)))
    groups: list[np.ndarray | None] = list(_groups(data, by_cols)) if by_cols else [None]
    if by_cols:  # rows with a missing group key, as nan_policy says (as evaluate does)
        missing = [_codes(data[c]) == 0 for c in by_cols]
        keep = group_key_rows(by_cols, missing, nan_policy)
        if keep is not None:
            groups = [g for g in groups if g is not None and keep[g[0]]]

    records: list[dict[str, Any]] = []
    for rows in groups:
        keys = {c: _scalar(data[c][rows[0]]) for c in by_cols} if rows is not None else {}
        where = ", ".join(f"{c}={v!r}" for c, v in keys.items())
        y = y_all if rows is None else y_all[rows]
        P = P_all if rows is None else P_all[rows]
        w = w_all if (w_all is None or rows is None) else w_all[rows]
        preds: dict[str, Any] = {}
        for entry in ms:
            options = dict(entry.options)
            if entry.spec.input == "decisions":
                rule = options.pop("decision", decision)
                if rule not in preds:
                    preds[rule] = decide_rows(P, rule, agreement_labels, nan_policy, rows)
                x, lab = preds[rule], agreement_labels
            else:
                x, lab = P, labels
            try:
                value = entry.spec.func(
                    y, x, labels=lab, sample_weight=w, nan_policy=nan_policy, **options
                )
            except Exception as exc:
                note = getattr(exc, "add_note", None)  # Python 3.11+
                if note is not None:
                    group = f" in the group {where}" if where else ""
                    note(f"(raised by metric {entry.name!r}{group})")
                raise
            rec: dict[str, Any] = dict(keys)
            rec.update(
                metric=entry.name,
                estimate=as_float(value, entry),
                direction=entry.direction,
                low=None,
                high=None,
            )
            records.append(rec)
            rec["_call"] = (entry, y, x, lab, w, options)
    if n_resamples:
        with progress(len(records) * n_resamples, "bootstrap", unit="resamples") as step:
            for rec in records:
                entry, y, x, lab, w, options = rec["_call"]
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    res = bootstrap(
                        entry.metric,
                        y,
                        x,
                        n_resamples=n_resamples,
                        confidence_level=confidence_level,
                        random_state=random_state,
                        labels=lab,
                        sample_weight=w,
                        nan_policy=nan_policy,
                        **options,
                    )
                where = ", ".join(f"{c}={rec[c]!r}" for c in by_cols)
                for caught_warning in caught:
                    text = str(caught_warning.message)
                    message = f"{text} (group {where})" if where else text
                    warnings.warn(message, caught_warning.category, stacklevel=2)
                rec["low"], rec["high"] = float(res.low), float(res.high)
                step(n_resamples)
    for rec in records:
        del rec["_call"]
    return records
