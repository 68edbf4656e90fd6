"""The columns the command line was given: present, numeric, named after the labels; row sums.

:func:`resolve_columns` and :func:`check_numeric` check the columns of a table read by
:func:`ordmetrics.io.readers.read_table`, with messages that speak of the file (and suggest a
delimiter when the file seems to be split on another one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ordmetrics.io.column_table import ColumnTable
from ordmetrics.io.column_table import check_numeric as check_numeric_columns
from ordmetrics.io.sources import PARQUET_SUFFIXES, InputError, show_delimiter

__all__ = [
    "check_numeric",
    "columns_and_length",
    "fix_row_sums",
    "match_label_columns",
    "resolve_columns",
]


#: The delimiters suggested when the header of a file seems to be split on one of them.
_CANDIDATES = (",", ";", "\t", "|")


# --------------------------------------------------------------------------------------------
# Columns
# --------------------------------------------------------------------------------------------


def columns_and_length(table: Any) -> tuple[list[Any], int]:
    """The column names and the number of rows of a table read by ``read_table``."""
    import narwhals.stable.v2 as nw

    if isinstance(table, ColumnTable):
        return table.column_names, table.num_rows
    frame = nw.from_native(table, eager_only=True)
    return list(frame.columns), len(frame)


def _fmt_columns(columns: Sequence[Any], limit: int = 12) -> str:
    shown = ", ".join(repr(str(c)) for c in columns[:limit])
    more = f", ... ({len(columns)} in all)" if len(columns) > limit else ""
    return shown + more


def _delimiter_hint(columns: Sequence[Any], delimiter: str | None) -> str:
    """A suggestion of another delimiter when the header seems to be split on one."""
    names = [str(c) for c in columns]
    used = delimiter or ","
    for cand in _CANDIDATES:
        if cand == used:
            continue
        if any(cand in n for n in names) and (len(names) == 1 or all(cand in n for n in names)):
            flag = "tab" if cand == "\t" else f"'{cand}'"
            return (
                f" The header seems to be split on {show_delimiter(cand)} rather than "
                f"{show_delimiter(used)}: pass --delimiter {flag}."
            )
    return ""


def resolve_columns(
    table: Any,
    source: str,
    *,
    truth: str,
    proba: Sequence[str] | None = None,
    proba_prefix: str | None = None,
    by: Sequence[str] = (),
    weight: str | None = None,
    delimiter: str | None = None,
) -> list[str]:
    """Check that the named columns exist and return the probability columns.

    Parameters
    ----------
    table : data frame
        The table read by :func:`read_table`.
    source : str
        The file name, for the messages.
    truth, weight : str
        Column names (``weight`` optional).
    proba : sequence of str, optional
        The probability columns in ordinal order; or else
    proba_prefix : str, optional
        Their common prefix: every column whose name starts with it, in file order (as
        :func:`ordmetrics.evaluate` takes a prefix).
    by : sequence of str
        Group columns.
    delimiter : str, optional
        The CSV delimiter used, for the hint of another one.

    Returns
    -------
    list of str
        The probability columns.

    Raises
    ------
    InputError
        For a missing column (naming the columns found, and suggesting a delimiter when the
        header seems split on another one), a prefix matching no column, or fewer than two
        probability columns.
    """
    columns, _ = columns_and_length(table)
    hint = (
        _delimiter_hint(columns, delimiter) if not source.lower().endswith(PARQUET_SUFFIXES) else ""
    )
    found = f"columns found in {source!r}: {_fmt_columns(columns)}."
    if proba_prefix is not None:
        chosen = [c for c in columns if isinstance(c, str) and c.startswith(proba_prefix)]
        if not chosen:
            raise InputError(
                f"no column starts with the --proba-prefix {proba_prefix!r}; {found}{hint}"
            )
    else:
        chosen = list(proba or [])
    wanted = [("truth", truth), *(("proba", c) for c in chosen)]
    wanted += [("by", c) for c in by]
    if weight is not None:
        wanted.append(("weight", weight))
    missing = [(role, c) for role, c in wanted if c not in columns]
    if missing:
        role, name = missing[0]
        more = f" (and {len(missing) - 1} more missing)" if len(missing) > 1 else ""
        raise InputError(f"--{role} column {name!r} is not in the file{more}; {found}{hint}")
    if len(chosen) < 2:
        how = f"the prefix {proba_prefix!r} matches" if proba_prefix is not None else "--proba has"
        raise InputError(
            f"{how} {len(chosen)} column ({_fmt_columns(chosen)}); an ordinal prediction needs "
            "one probability column per class, at least two."
        )
    return chosen


def check_numeric(table: Any, columns: Sequence[str], role: str, source: str) -> None:
    """Raise :class:`InputError` when a column is not numeric, naming a value that is not.

    Parameters
    ----------
    table : data frame
        The table read by :func:`read_table`.
    columns : sequence of str
        The columns that must hold numbers.
    role : str
        What they are (``"probability"``, ``"weight"``), for the message.
    source : str
        The file name, for the message.
    """
    import narwhals.stable.v2 as nw

    if isinstance(table, ColumnTable):
        return check_numeric_columns(table, columns, role, source)
    frame = nw.from_native(table, eager_only=True)
    for c in columns:
        dtype = frame.schema[c]
        if dtype.is_numeric():
            continue
        values = frame[c].to_list()
        for i, v in enumerate(values):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            try:
                float(v)
            except (TypeError, ValueError):
                raise InputError(
                    f"{role} column {c!r} of {source!r} is not numeric: row {i} (counted from 0 "
                    f"after the header) holds {v!r}."
                ) from None
        raise InputError(f"{role} column {c!r} of {source!r} is not numeric (type {dtype}).")


# --------------------------------------------------------------------------------------------
# Probability columns named after the labels
# --------------------------------------------------------------------------------------------


def _label_names(label: Any) -> tuple[str, ...]:
    """The names a column suffix may give a label: its text, and with spaces as ``_``."""
    text = str(label)
    return (text,) if " " not in text else (text, text.replace(" ", "_"))


def match_label_columns(
    columns: Sequence[Any],
    labels: Sequence[Any] | None,
    *,
    prefix: str | None = None,
    proba_arg: str = "proba",
    labels_arg: str = "labels",
) -> list[Any]:
    """The probability columns in the order of the labels when their names end in the labels.

    A probability column named after its class (``p_mild`` for the label ``mild``; a space of a
    label may be written ``_``: ``p_Very_Good``) tells which class it holds. When every column
    is named so, the columns are put in the order of ``labels``; columns named by some labels
    only, or (for an explicit list) listed in another order than the labels, are an error,
    since the order cannot be told. Columns whose names hold no label are returned as given.

    Parameters
    ----------
    columns : sequence
        The probability columns: those a prefix matched (in file order), or the list given.
    labels : sequence or None
        The classes in ordinal order. None: the integer classes ``0..K-1``, which only reorder
        columns that name exactly these classes (``p2, p0, p1``).
    prefix : str, optional
        The prefix that matched the columns (their order is then the file's, free to change);
        None for an explicit list, whose order must agree with the labels.
    proba_arg, labels_arg : str
        The names of the arguments, for the messages (``--proba`` on the command line).

    Returns
    -------
    list
        The columns, in the order of the labels when they name them.

    Raises
    ------
    ValueError
        When the names of some columns only are labels, when two columns name the same
        label, or when an explicit list names the labels in another order than ``labels``.

    Examples
    --------
    >>> match_label_columns(["p_severe", "p_mild", "p_moderate"], ["mild", "moderate", "severe"],
    ...                     prefix="p_")
    ['p_mild', 'p_moderate', 'p_severe']
    >>> match_label_columns(["p0", "p1"], None, prefix="p")
    ['p0', 'p1']
    """
    cols = list(columns)
    if not cols or not all(isinstance(c, str) for c in cols):
        return cols
    implicit = labels is None
    names = [str(i) for i in range(len(cols))] if implicit else None
    label_list = list(range(len(cols))) if implicit else list(labels or [])
    index: dict[str, int] = {}
    for i, label in enumerate(label_list):
        for name in _label_names(label) if names is None else (names[i],):
            index.setdefault(name, i)
    if prefix is not None:
        prefixes = [prefix]
    else:  # the prefix shared by the most columns whose remainder is a label
        counts: dict[str, int] = {}
        for c in cols:
            for name in index:
                if c.endswith(name) and len(c) > len(name):
                    counts[c[: -len(name)]] = counts.get(c[: -len(name)], 0) + 1
        if not counts:
            return cols
        prefixes = [max(counts, key=lambda p: (counts[p], len(p)))]
    pre = prefixes[0]
    found = [index.get(c[len(pre) :]) if c.startswith(pre) else None for c in cols]
    matched = [c for c, k in zip(cols, found, strict=True) if k is not None]
    if not matched:
        return cols
    shown = "0..K-1 (the default of integer truth)" if implicit else _fmt_columns(label_list)
    if len(matched) < len(cols):
        if implicit:
            return cols  # e.g. p1..pK for the classes 0..K-1: names that are not labels
        other = [c for c, k in zip(cols, found, strict=True) if k is None]
        raise ValueError(
            f"the probability columns {_fmt_columns(matched)} are named after classes of "
            f"{labels_arg} ({shown}) but {_fmt_columns(other)} are not, so which column holds "
            f"which class cannot be told; rename the columns '{pre}<label>' for every label, "
            "or give the labels the columns are named after."
        )
    ks = [int(k) for k in found if k is not None]
    if len(set(ks)) < len(ks):
        dup = next(k for i, k in enumerate(ks) if k in ks[:i])
        raise ValueError(
            f"two probability columns are named after the class {label_list[dup]!r}: "
            f"{_fmt_columns([c for c, k in zip(cols, ks, strict=True) if k == dup])}."
        )
    ordered = [c for _, c in sorted(zip(ks, cols, strict=True))]
    if prefix is None and ordered != cols:
        raise ValueError(
            f"{proba_arg} lists the columns {_fmt_columns(cols)}, named after the classes in "
            f"another order than {labels_arg} ({shown}); list them in the order of the labels: "
            f"{','.join(ordered) if proba_arg.startswith('--') else ordered!r}."
        )
    return ordered


# --------------------------------------------------------------------------------------------
# Row sums
# --------------------------------------------------------------------------------------------


def fix_row_sums(
    P: Any,
    *,
    renormalize: bool = False,
    sum_tolerance: float | None = None,
    options: tuple[str, str] = ("renormalize=True", "sum_tolerance"),
) -> Any:
    """Rescale the rows of a probability matrix to sum 1, as the command line's options ask.

    Parameters
    ----------
    P : numpy.ndarray of shape (n_samples, n_classes)
        The probabilities (float64); rows with a missing (NaN) or infinite value are left as
        they are.
    renormalize : bool, default False
        Rescale every row whose sum is positive to sum 1.
    sum_tolerance : float, optional
        Accept the rows whose sums lie within this distance of 1, and rescale them to sum 1;
        any other row is an error. None (and ``renormalize`` False): ``P`` unchanged.
    options : (str, str)
        The names of the two options, for the messages.

    Returns
    -------
    numpy.ndarray
        ``P``, or a rescaled copy.

    Raises
    ------
    ValueError
        For a row whose sum is 0 or negative (it cannot be rescaled), or one farther than
        ``sum_tolerance`` from 1.

    Examples
    --------
    >>> import numpy as np
    >>> P = fix_row_sums(np.array([[0.333333, 0.333333, 0.333333]]), sum_tolerance=1e-5)
    >>> P.tolist()
    [[0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    """
    import numpy as np

    if not renormalize and sum_tolerance is None:
        return P
    P = np.asarray(P, dtype=np.float64)
    sums = P.sum(axis=1)
    # rows with a missing (NaN) or infinite value are left as they are, for the metrics to
    # treat or report
    complete = np.isfinite(sums)
    bad = complete & ~(sums > 0)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"the probabilities of row {r} sum to {sums[r]:.10g}, which cannot be rescaled to "
            "sum 1; every row needs a positive sum."
        )
    if not renormalize:
        far = complete & ~(np.abs(sums - 1.0) <= sum_tolerance)
        if far.any():
            rows = np.flatnonzero(far)
            r = int(rows[0])
            more = f" (and {rows.size - 1} more rows)" if rows.size > 1 else ""
            raise ValueError(
                f"the probabilities of row {r} sum to {sums[r]:.10g}{more}, farther from 1 than "
                f"{options[1]} {sum_tolerance:g}; pass {options[0]} to rescale every row to sum "
                "1, or a larger tolerance."
            )
    out = P.copy()
    out[complete] /= sums[complete, None]
    return out
