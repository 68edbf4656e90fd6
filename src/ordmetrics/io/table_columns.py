"""The columns the command line was given: present, numeric, named after the labels; row sums.

:func:`resolve_columns` and :func:`check_numeric` check the columns of a table read by
:func:`ordmetrics.io.readers.read_table`, with messages that speak of the file (and suggest a
delimiter when the file seems to be split on another one).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Any

from ordmetrics.io.column_table import ColumnTable
from ordmetrics.io.column_table import check_numeric as check_numeric_columns
from ordmetrics.io.sources import PARQUET_SUFFIXES, InputError, show_delimiter

__all__ = [
    "NORMALISATION",
    "check_numeric",
    "columns_and_length",
    "fix_row_sums",
    "match_label_columns",
    "name_key",
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
        :func:`ordmetrics.evaluate` takes a prefix); :func:`match_label_columns` then pairs
        them with the classes by name.
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

#: How a probability column's name (after the prefix) and a label are compared, as the
#: documentation and the error messages state it.
NORMALISATION = (
    "NFKC, casefolded, every character that is not a letter or a digit dropped (spaces, "
    "underscores, hyphens, dots, other punctuation)"
)


def name_key(name: Any) -> str:
    """The form in which a column's name and a label are compared (see :data:`NORMALISATION`).

    Unicode NFKC (so that composed and decomposed accents, or full-width letters, are one
    name), then casefolded, then every character that is neither a letter nor a digit dropped.

    Examples
    --------
    >>> name_key("Strong Dem"), name_key("strong_dem"), name_key(" STRONG-dem."), name_key(2)
    ('strongdem', 'strongdem', 'strongdem', '2')
    """
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def match_label_columns(
    columns: Sequence[Any],
    labels: Sequence[Any] | None,
    *,
    prefix: str | None = None,
    proba_arg: str = "proba",
    labels_arg: str = "labels",
) -> list[Any]:
    """Pair the probability columns with the classes: the columns in the order of the labels.

    The one pairing of columns with classes for every front (:func:`ordmetrics.evaluate` on
    pandas, polars and pyarrow frames, the command line's ``evaluate``, ``report``,
    ``compare`` and ``--stream``, :func:`ordmetrics.files.evaluate_file`, Dask). A column
    whose name says which class it holds is never paired by its place in the file.

    Columns chosen by a **prefix** (their order is the file's, free to change) are read by
    what follows the prefix in their names, the suffix:

    1. Suffixes that are the labels' texts (``p_mild`` for ``"mild"``; a space of a label may
       be written ``_``) follow the order of ``labels``.
    2. Suffixes that are all integers, and not the labels' names, number the columns and
       carry no class names: numbered ``0..K-1`` or ``1..K`` (K columns), the columns are
       taken in the order of their numbers (``p_0`` or ``p1`` is the first class of
       ``labels``); other numbers are an error.
    3. Any other suffixes name classes, compared with the labels after a normalisation:
       Unicode NFKC, casefolded, every character that is not a letter or a digit dropped
       (spaces, underscores, hyphens, dots and other punctuation). So ``p_strong_dem``,
       ``p_Strong Dem`` and ``p_STRONG-DEM`` all name the label ``"Strong Dem"``. Every column
       must name exactly one label and every label exactly one column: a column naming no
       label, a label no column names, two labels or two columns of the same normalised name
       are errors. Without labels (None: the integer classes ``0..K-1``) nothing tells the
       classes of such names: an error, never the file's order.

    Columns **listed** (``prefix`` None) are taken in the order given; only a list that its
    own names contradict is an error: a column whose name ends (after the prefix most of the
    columns share, names normalised as above) in a label, or without labels in a number
    ``0..K-1``, listed at another place than that class's.

    Parameters
    ----------
    columns : sequence
        The probability columns: those a prefix matched (in file order), or the list given.
    labels : sequence or None
        The classes in ordinal order. None: the integer classes ``0..K-1``.
    prefix : str, optional
        The prefix that matched the columns; None for a list, taken in its order.
    proba_arg, labels_arg : str
        The names of the arguments, for the messages (``--proba`` on the command line).

    Returns
    -------
    list
        The columns, in the order of the classes.

    Raises
    ------
    ValueError
        For prefixed columns named after classes that do not match the labels one-to-one
        (naming the columns and labels left unmatched, and the normalisation), two labels or
        two columns of one normalised name, integer suffixes other than ``0..K-1`` and
        ``1..K``; for a list whose names put a class at another place than the labels'.

    Examples
    --------
    >>> match_label_columns(["p_severe", "p_mild", "p_moderate"], ["mild", "moderate", "severe"],
    ...                     prefix="p_")
    ['p_mild', 'p_moderate', 'p_severe']
    >>> match_label_columns(["p_weak dem", "p_STRONG_DEM"], ["Strong Dem", "Weak Dem"],
    ...                     prefix="p_")
    ['p_STRONG_DEM', 'p_weak dem']
    >>> match_label_columns(["p2", "p0", "p1"], ["lo", "mid", "hi"], prefix="p")
    ['p0', 'p1', 'p2']
    """
    cols = list(columns)
    if not cols or not all(isinstance(c, str) for c in cols):
        return cols
    names = _Names(proba_arg, labels_arg, labels, len(cols))
    if prefix is None:
        return _check_listed(cols, names)
    suffixes = [c[len(prefix) :] for c in cols]
    if labels is not None:
        exact = _exact_positions(suffixes, list(labels))
        if exact is not None:
            return _in_order(cols, exact)
    keys = [name_key(s) for s in suffixes]
    numbers = _numbers(keys)
    if numbers is not None and (labels is None or sorted(keys) != sorted(names.keys)):
        return _in_order(cols, _number_positions(cols, numbers, names))
    if labels is None:
        raise ValueError(
            f"the {proba_arg} columns {_fmt_columns(cols)} are named after classes, but no "
            f"{labels_arg} say which class each name is (the truth is integer classes "
            f"0..K-1): list the columns themselves in class order ({proba_arg}=[...]), or "
            "name them by class number (a prefix then 0..K-1 or 1..K). Columns taken by a "
            "prefix are never paired with classes by their place in the file."
        )
    return _in_order(cols, _name_positions(cols, keys, prefix, names))


class _Names:
    """The labels of a pairing (given, or ``0..K-1``) and the arguments' names, for messages."""

    def __init__(self, proba_arg: str, labels_arg: str, labels: Any, k: int) -> None:
        self.proba_arg, self.labels_arg = proba_arg, labels_arg
        self.implicit = labels is None
        self.labels = list(range(k)) if labels is None else list(labels)
        self.keys = [name_key(label) for label in self.labels]
        shown = "0..K-1, the default of integer truth" if self.implicit else None
        self.shown = shown or _fmt_columns(self.labels)

    def fix(self, prefix: str) -> str:
        """The ways out of a failed pairing, for the end of a message."""
        return (
            f"rename the columns '{prefix}<label>' for every label, give as {self.labels_arg} "
            "the classes the columns are named after, or list the columns themselves in the "
            f"order of {self.labels_arg}."
        )


def _in_order(cols: list[Any], positions: list[int]) -> list[Any]:
    return [c for _, c in sorted(zip(positions, cols, strict=True))]


def _exact_positions(suffixes: list[str], labels: list[Any]) -> list[int] | None:
    """The labels' places of suffixes that are the labels' texts, one each; None else."""
    index = {str(label): i for i, label in reversed(list(enumerate(labels)))}
    for i, label in enumerate(labels):  # a space written _, unless another label is so named
        index.setdefault(str(label).replace(" ", "_"), i)
    found = [index.get(s) for s in suffixes]
    if len(labels) != len(suffixes) or None in found or len(set(found)) < len(found):
        return None
    return [int(k) for k in found if k is not None]


def _numbers(keys: Sequence[str | None]) -> list[int] | None:
    """The integers the suffixes are, when every one is digits only; None else."""
    if not all(k is not None and k.isascii() and k.isdigit() for k in keys):
        return None
    return [int(str(k)) for k in keys]


def _number_positions(cols: list[Any], numbers: list[int], names: _Names) -> list[int]:
    """The places of columns numbered ``0..K-1`` or ``1..K``; a ValueError for others."""
    k = len(numbers)
    for first in (0, 1):
        if sorted(numbers) == list(range(first, first + k)):
            return [n - first for n in numbers]
    raise ValueError(
        f"the probability columns {_fmt_columns(cols)} are numbered "
        f"{', '.join(map(str, numbers))}: neither 0..K-1 nor 1..K for their K = {k}, nor the "
        f"classes of {names.labels_arg} ({names.shown}), so which column holds which class "
        "cannot be told; number the columns 0..K-1 in the order of the classes, name them "
        f"after the labels, or give as {names.labels_arg} the classes the numbers name."
    )


def _name_positions(cols: list[Any], keys: list[str], prefix: str, names: _Names) -> list[int]:
    """The labels' places of columns named after them, one-to-one; a ValueError else."""
    how = f"names compared after the prefix {prefix!r} once normalised: {NORMALISATION}"
    for what, items, item_keys in (
        (f"the classes of {names.labels_arg}", names.labels, names.keys),
        ("the probability columns", cols, keys),
    ):
        first: dict[str, Any] = {}
        for item, key in zip(items, item_keys, strict=True):
            if key in first:
                raise ValueError(
                    f"{what} {first[key]!r} and {item!r} are one name once normalised "
                    f"({key!r}; {how}), so which column holds which class cannot be told; "
                    f"list the columns themselves in the order of {names.labels_arg}."
                )
            first[key] = item
    index = {key: i for i, key in enumerate(names.keys)}
    found = [index.get(key) for key in keys]
    other = [c for c, i in zip(cols, found, strict=True) if i is None]
    missing = [label for i, label in enumerate(names.labels) if i not in found]
    if not other and not missing:
        return [int(i) for i in found if i is not None]
    matched = [c for c, i in zip(cols, found, strict=True) if i is not None]
    if not matched:
        said = (
            f"none of the probability columns {_fmt_columns(cols)} is named after a class of "
            f"{names.labels_arg} ({names.shown})"
        )
    elif other:
        said = (
            f"the probability columns {_fmt_columns(matched)} are named after classes of "
            f"{names.labels_arg} ({names.shown}) but {_fmt_columns(other)} are not"
        )
    else:
        said = (
            f"the probability columns {_fmt_columns(cols)} are named after classes of "
            f"{names.labels_arg} ({names.shown}) but not all of them"
        )
    unmatched = f"columns left unmatched: {_fmt_columns(other) or 'none'}; labels left "
    unmatched += f"unmatched: {_fmt_columns(missing) or 'none'}"
    raise ValueError(
        f"{said}, so which column holds which class cannot be told ({unmatched}; {how}); "
        + names.fix(prefix)
    )


def _shared_prefix(keys: list[str], label_keys: list[str]) -> str | None:
    """The normalised prefix that the most names share before a label; None if none is.

    A prefix counts when at least two names and half of them share it: one name ending in a
    short label (``score_hgb`` in ``"b"``) is a coincidence, not a naming.
    """
    counts: dict[str, int] = {}
    for key in keys:
        for pre in {key[: len(key) - len(lk)] for lk in label_keys if lk and key.endswith(lk)}:
            counts[pre] = counts.get(pre, 0) + 1
    if not counts:
        return None
    best = max(counts, key=lambda p: (counts[p], len(p)))
    return best if counts[best] >= max(2, (len(keys) + 1) // 2) else None


def _check_listed(cols: list[Any], names: _Names) -> list[Any]:
    """A list of columns, in its order; a ValueError when its names put a class elsewhere."""
    if len(set(names.keys)) < len(names.keys):
        return cols  # labels that names cannot tell apart: the list's order is all there is
    keys = [name_key(c) for c in cols]
    pre = _shared_prefix(keys, names.keys)
    if pre is None:
        return cols
    suffixes = [k[len(pre) :] if k.startswith(pre) else None for k in keys]
    numbers = _numbers(suffixes)
    positions: list[int | None]
    if numbers is not None and sorted(str(s) for s in suffixes) != sorted(names.keys):
        try:  # numbered columns, not named: 1..K in order is the order of the classes too
            positions = list(_number_positions(cols, numbers, names))
        except ValueError:
            return cols
    else:
        index = {key: i for i, key in enumerate(names.keys)}
        positions = [None if s is None else index.get(s) for s in suffixes]
    if all(i is None or i == j for j, i in enumerate(positions)):
        return cols
    if None in positions or len(set(positions)) < len(positions):
        j, i = next((j, i) for j, i in enumerate(positions) if i is not None and i != j)
        where = f"{cols[j]!r} is listed at place {j + 1} but named after {names.labels[i]!r}"
        raise ValueError(
            f"{names.proba_arg} lists the columns {_fmt_columns(cols)}, named after the classes "
            f"in another order than {names.labels_arg} ({names.shown}): {where}, class "
            f"{i + 1} (names compared once normalised: {NORMALISATION}); list them in the "
            "order of the labels."
        )
    ordered = _in_order(cols, [int(i) for i in positions if i is not None])
    listed = ",".join(ordered) if names.proba_arg.startswith("--") else repr(ordered)
    raise ValueError(
        f"{names.proba_arg} lists the columns {_fmt_columns(cols)}, named after the classes in "
        f"another order than {names.labels_arg} ({names.shown}); list them in the order of the "
        f"labels: {listed}."
    )


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
