"""Reading tables of predictions from CSV and Parquet files (the command line's input).

:func:`read_table` reads a CSV file (``.csv``, ``.tsv``, either gzip-compressed as ``.gz``) or a
Parquet file (``.parquet``, ``.pq``) into a data frame that :func:`ordmetrics.evaluate` takes:
a pyarrow Table when pyarrow is installed, otherwise a pandas or polars DataFrame, whichever is
installed. Parquet files need pyarrow (``pip install ordmetrics[parquet]``).

The file type is told by the extension and checked against the content, so a binary file named
``.csv``, a Parquet file named ``.csv`` or a text file named ``.parquet`` is reported as such.
:func:`resolve_columns` and :func:`check_numeric` check the columns that the command line was
given, with messages that speak of the file (and suggest a delimiter when the file seems to be
split on another one).

Every problem of the input raises :class:`InputError`, a :class:`ValueError` with a one-line
message; a missing optional library raises :class:`MissingDependencyError`, an
:class:`ImportError` that names the extra to install.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import math
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "STDIN",
    "InputError",
    "MissingDependencyError",
    "check_numeric",
    "csv_backend",
    "match_label_columns",
    "parse_delimiter",
    "read_stdin",
    "read_table",
    "resolve_columns",
]

STDIN = "-"
"""The file name that stands for standard input (CSV, optionally gzip-compressed, or
Parquet), read whole into memory."""

_STDIN_NAME = Path("<stdin>")

CSV_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
"""File name endings read as CSV (``.tsv``: tab-delimited by default)."""

PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
"""File name endings read as Parquet."""

#: The data-frame libraries that read CSV, in order of preference.
FrameBackend = Literal["pyarrow", "pandas", "polars"]
CSV_BACKENDS: tuple[FrameBackend, ...] = ("pyarrow", "pandas", "polars")
"""The libraries that can read CSV files, in order of preference."""

_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_BOM = b"\xef\xbb\xbf"
_SNIFF = 1 << 16
#: pyarrow's CSV block (its default), and the largest one: a field must fit in one block.
_CSV_BLOCK = 1 << 20
_CSV_BLOCK_MAX = (1 << 31) - 1
_DELIMITER_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe", " ": "space"}
_CANDIDATES = (",", ";", "\t", "|")


class InputError(ValueError):
    """A problem of the input file or of the columns asked for; the message is one line."""


class MissingDependencyError(ImportError):
    """An optional library is needed and not installed; the message names the extra."""


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _show_delimiter(delimiter: str) -> str:
    return "tab" if delimiter == "\t" else repr(delimiter)


def parse_delimiter(text: str | None) -> str | None:
    """The delimiter given on the command line: one character, or ``tab`` / ``\\t``.

    Parameters
    ----------
    text : str or None
        The ``--delimiter`` option; None when it was not given.

    Returns
    -------
    str or None
        The delimiter character, or None.

    Raises
    ------
    InputError
        When ``text`` is not a single character.

    Examples
    --------
    >>> parse_delimiter("tab"), parse_delimiter(";"), parse_delimiter(None)
    ('\\t', ';', None)
    """
    if text is None:
        return None
    if text in ("tab", "\\t", "\t"):
        return "\t"
    if len(text) != 1 or text in ('"', "\n", "\r"):
        raise InputError(f"--delimiter must be one character (e.g. ';') or 'tab'; got {text!r}.")
    return text


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    suffix = "".join(path.suffixes[-2:]) or "(no extension)"
    raise InputError(
        f"cannot tell the type of {str(path)!r} from its name: unknown file type {suffix!r}; "
        f"ordmetrics reads CSV files ({', '.join(CSV_SUFFIXES)}) and Parquet files "
        f"({', '.join(PARQUET_SUFFIXES)})."
    )


def _looks_binary(sample: bytes) -> str | None:
    """Why ``sample`` is not UTF-8 text, or None when it is."""
    if b"\x00" in sample:
        return "it holds NUL bytes (a binary file)"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # the sample may end inside a multi-byte character: allow up to 3 bytes cut off
        if exc.start < len(sample) - 3:
            return (
                f"it is not UTF-8 text (byte 0x{sample[exc.start]:02x} at offset {exc.start}); "
                "save it as UTF-8"
            )
    return None


def csv_backend(backend: str | None = None) -> str:
    """The library that reads CSV files: ``backend``, or the first installed of pyarrow,
    pandas and polars.

    Raises
    ------
    MissingDependencyError
        When none is installed (or not ``backend``).
    """
    if backend is not None:
        if backend not in CSV_BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(CSV_BACKENDS)}; got {backend!r}.")
        if importlib.util.find_spec(backend) is None:
            raise MissingDependencyError(f"reading CSV with {backend} needs {backend} installed.")
        return backend
    for name in CSV_BACKENDS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise MissingDependencyError(
        "reading CSV files needs pyarrow, pandas or polars, and none is installed; install "
        "pyarrow with `pip install ordmetrics[parquet]`."
    )


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


#: How much of a file ``read_table(..., head=True)`` reads: enough rows to check the columns
#: (about this many bytes of a CSV file, this many rows of a Parquet file).
HEAD_BYTES = 1 << 20
HEAD_ROWS = 10_000


def read_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    backend: str | None = None,
    head: bool = False,
) -> Any:
    """Read a CSV or Parquet file of predictions into a data frame.

    Parameters
    ----------
    path : str or Path
        The file: ``.csv``, ``.tsv`` (optionally ``.gz``-compressed), ``.parquet`` or ``.pq``;
        or ``"-"``: standard input, read whole into memory once (CSV, gzip-compressed CSV or
        Parquet, told by the content; ``head`` is ignored).
    delimiter : str, optional
        The CSV field delimiter; default ``","`` (a tab for ``.tsv``). Ignored for Parquet.
    backend : {"pyarrow", "pandas", "polars"}, optional
        The library that reads a CSV file; default the first of them installed. Parquet is
        always read with pyarrow.
    head : bool, default False
        Read only the first rows (about ``HEAD_BYTES`` of text, or the first batch of a
        Parquet file): enough to check columns and labels before a batched pass over a file
        larger than memory.

    Returns
    -------
    pyarrow.Table, pandas.DataFrame or polars.DataFrame
        The table, with the column types the reader infers (numbers, strings).

    Raises
    ------
    InputError
        For a file that does not exist, is empty, has a header but no rows, has a repeated
        column name, is not of the type its extension says, or cannot be parsed.
    MissingDependencyError
        When no library can read the file (``pip install ordmetrics[parquet]``).
    """
    if isinstance(path, str) and path == STDIN:
        table = _read_stdin_table(delimiter, backend)
        _check_shape(table, _STDIN_NAME)
        return table
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {str(p)!r}.")
    if p.is_dir():
        raise InputError(f"{str(p)!r} is a directory, not a CSV or Parquet file.")
    kind = _kind(p)
    if p.stat().st_size == 0:
        raise InputError(f"{str(p)!r} is empty.")
    if kind == "parquet":
        table = _read_parquet(p, head)
    else:
        table = _read_csv(p, delimiter, backend, head)
    _check_shape(table, p)
    return table


def _read_parquet(p: Path, head_only: bool = False) -> Any:
    with p.open("rb") as fh:
        first = fh.read(_SNIFF)
        fh.seek(max(0, p.stat().st_size - 4))
        tail = fh.read(4)
    if not (first.startswith(_PARQUET_MAGIC) and tail == _PARQUET_MAGIC):
        what = "like text (a CSV file should end in .csv)"
        if first.startswith(_GZIP_MAGIC):
            what = "gzip-compressed (a compressed CSV file should end in .csv.gz)"
        elif _looks_binary(first) is not None:
            what = "like some other binary file"
        raise InputError(
            f"{str(p)!r} is not a Parquet file: it lacks the PAR1 signature and looks {what}."
        )
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError(
            f"reading the Parquet file {str(p)!r} needs pyarrow; install it with "
            "`pip install ordmetrics[parquet]`."
        ) from None
    import pyarrow as pa

    try:
        if head_only:
            batch = next(pq.ParquetFile(p).iter_batches(batch_size=HEAD_ROWS), None)
            if batch is not None:
                return pa.Table.from_batches([batch])
        return pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"could not read {str(p)!r} as Parquet: {_one_line(exc)}") from None


def _csv_bytes(p: Path) -> tuple[bytes | None, bytes]:
    """The whole decompressed content of a gzip file (else None) and the first bytes of text."""
    with p.open("rb") as fh:
        head = fh.read(_SNIFF)
    if head.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(p.read_bytes())
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"{str(p)!r} is gzip-compressed but cannot be decompressed: {_one_line(exc)}"
            ) from None
        return data, data[:_SNIFF]
    if p.name.lower().endswith(".gz"):
        raise InputError(f"{str(p)!r} ends in .gz but is not gzip-compressed.")
    return None, head


def _head_bytes(p: Path) -> bytes:
    """The first complete lines (about HEAD_BYTES) of a CSV file, decompressed if gzip."""
    with p.open("rb") as fh:
        magic = fh.read(len(_GZIP_MAGIC))
    opener = gzip.open if magic == _GZIP_MAGIC else open
    try:
        with opener(p, "rb") as fh:
            text = fh.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{str(p)!r} cannot be read: {_one_line(exc)}") from None
    if len(text) == HEAD_BYTES and b"\n" in text:
        text = text[: text.rindex(b"\n") + 1]
    return text


def read_stdin(stream: Any = None) -> bytes:
    """All of standard input as bytes, read once.

    Parameters
    ----------
    stream : text or binary stream, optional
        Default ``sys.stdin``; its ``buffer`` (bytes) is read when it has one, else its text,
        encoded as UTF-8.

    Returns
    -------
    bytes
        The content.

    Raises
    ------
    InputError
        When there is no standard input, or it is a terminal (nothing was piped in).

    Examples
    --------
    >>> import io
    >>> read_stdin(io.StringIO("y,p0,p1\\n0,0.5,0.5\\n"))
    b'y,p0,p1\\n0,0.5,0.5\\n'
    """
    stream = sys.stdin if stream is None else stream
    if stream is None:
        raise InputError(
            "FILE is '-' (standard input) but this process has no standard input; give the "
            "file's path instead."
        )
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        tty = False
    if tty:
        raise InputError(
            "FILE is '-' (standard input) but standard input is a terminal, not a file; pipe "
            "the CSV in (e.g. `cat preds.csv | ordmetrics evaluate - ...`) or give its path."
        )
    binary = getattr(stream, "buffer", None)
    data = binary.read() if binary is not None else stream.read()
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _read_stdin_table(delimiter: str | None, backend: str | None) -> Any:
    """The table piped into standard input: CSV (gzip-compressed or not) or Parquet."""
    p = _STDIN_NAME
    data = read_stdin()
    if not data:
        raise InputError(f"{str(p)!r} is empty: nothing was piped into standard input.")
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"{str(p)!r} is gzip-compressed but cannot be decompressed: {_one_line(exc)}"
            ) from None
    if data.startswith(_PARQUET_MAGIC):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise MissingDependencyError(
                "reading Parquet from standard input needs pyarrow; install it with "
                "`pip install ordmetrics[parquet]`."
            ) from None
        try:
            return pq.read_table(pa.BufferReader(data))
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"could not read {str(p)!r} as Parquet: {_one_line(exc)}") from None
    return _read_csv(p, delimiter, backend, data=data)


def _read_csv(
    p: Path,
    delimiter: str | None,
    backend: str | None,
    head_only: bool = False,
    data: bytes | None = None,
) -> Any:
    if data is not None:  # already in memory (standard input)
        head = data[:_SNIFF]
    elif head_only:
        first = _head_bytes(p)
        data, head = first, first[:_SNIFF]
    else:
        data, head = _csv_bytes(p)
    if head.startswith(_PARQUET_MAGIC):
        raise InputError(f"{str(p)!r} is a Parquet file, not CSV; give it the extension .parquet.")
    why = _looks_binary(head)
    if why is not None:
        raise InputError(f"{str(p)!r} is not a CSV file: {why}.")
    if head.startswith(_BOM):
        data = (p.read_bytes() if data is None else data)[len(_BOM) :]
        head = head[len(_BOM) :]
    if not head.strip():
        raise InputError(f"{str(p)!r} is empty (no header line).")
    if delimiter is None:
        delimiter = "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else ","
    source: Any = p if data is None else io.BytesIO(data)
    if backend is None and not any(importlib.util.find_spec(b) for b in CSV_BACKENDS):
        from ordmetrics.io.delimited import (
            read_csv,  # no data-frame library: the standard library's reader
        )

        return read_csv(source, delimiter, p)
    lib = csv_backend(backend)
    reader = {"pyarrow": _csv_pyarrow, "pandas": _csv_pandas, "polars": _csv_polars}[lib]
    return reader(source, delimiter, p)


def _parse_error(p: Path, delimiter: str, exc: BaseException) -> InputError:
    return InputError(
        f"could not parse {str(p)!r} as CSV with delimiter {_show_delimiter(delimiter)}: "
        f"{_one_line(exc)}"
    )


def _csv_pyarrow(source: Any, delimiter: str, p: Path) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    size = source.getbuffer().nbytes if isinstance(source, io.BytesIO) else p.stat().st_size
    block = _CSV_BLOCK
    while True:
        if isinstance(source, io.BytesIO):
            source.seek(0)
        try:
            return pcsv.read_csv(
                source if not isinstance(source, Path) else str(source),
                read_options=pcsv.ReadOptions(block_size=block),
                parse_options=pcsv.ParseOptions(delimiter=delimiter),
                # an empty field of a text column (the truth) is a missing value, as in numbers
                convert_options=pcsv.ConvertOptions(strings_can_be_null=True),
            )
        except pa.ArrowInvalid as exc:
            if "Empty CSV file" in str(exc):
                raise InputError(f"{str(p)!r} is empty (no header line).") from None
            if "straddling" in str(exc) and block < min(size + 1, _CSV_BLOCK_MAX):
                # a field longer than a block: read the file in one block (it is read whole)
                block = min(size + 1, _CSV_BLOCK_MAX)
                continue
            if "straddling" in str(exc):
                raise InputError(
                    f"could not parse {str(p)!r} as CSV: a field is longer than "
                    f"{_CSV_BLOCK_MAX >> 20:,} MiB (a stray quote can make the rest of a file "
                    "one field); check the file's quoting."
                ) from None
            raise _parse_error(p, delimiter, exc) from None


def _csv_pandas(source: Any, delimiter: str, p: Path) -> Any:
    import pandas as pd

    try:
        # the correctly rounded float of every decimal, as pyarrow and polars read it: the
        # default from pandas 3 on, float_precision="round_trip" before
        major = int(pd.__version__.split(".", 1)[0])
        precision = {"float_precision": "round_trip"} if major < 3 else {}
        return pd.read_csv(source, sep=delimiter, **precision)
    except pd.errors.EmptyDataError:
        raise InputError(f"{str(p)!r} is empty (no header line).") from None
    except pd.errors.ParserError as exc:
        raise _parse_error(p, delimiter, exc) from None


def _csv_polars(source: Any, delimiter: str, p: Path) -> Any:
    import polars as pl

    try:
        return pl.read_csv(source, separator=delimiter, infer_schema_length=None)
    except pl.exceptions.NoDataError:
        raise InputError(f"{str(p)!r} is empty (no header line).") from None
    except pl.exceptions.PolarsError as exc:
        raise _parse_error(p, delimiter, exc) from None


def _columns_and_length(table: Any) -> tuple[list[Any], int]:
    import narwhals.stable.v2 as nw

    from ordmetrics.io.delimited import ColumnTable

    if isinstance(table, ColumnTable):
        return table.column_names, table.num_rows
    frame = nw.from_native(table, eager_only=True)
    return list(frame.columns), len(frame)


def _check_shape(table: Any, p: Path) -> None:
    # the names as read (narwhals refuses a frame with a repeated name)
    columns = list(getattr(table, "column_names", None) or table.columns)
    n_rows = table.num_rows if hasattr(table, "num_rows") else len(table)
    dups = sorted({str(c) for i, c in enumerate(columns) if c in columns[:i]})
    if dups:
        raise InputError(
            f"{str(p)!r} has the column {dups[0]!r} more than once; column names must be unique."
        )
    if n_rows == 0:
        raise InputError(f"{str(p)!r} has a header but no rows.")


# --------------------------------------------------------------------------------------------
# Columns
# --------------------------------------------------------------------------------------------


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
                f" The header seems to be split on {_show_delimiter(cand)} rather than "
                f"{_show_delimiter(used)}: pass --delimiter {flag}."
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
    columns, _ = _columns_and_length(table)
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

    from ordmetrics.io.delimited import ColumnTable
    from ordmetrics.io.delimited import check_numeric as check_numeric_columns

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
