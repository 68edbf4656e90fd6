"""Reading tables of predictions from CSV and Parquet files (the command line's input).

:func:`read_table` reads a CSV file (``.csv``, ``.tsv``, either gzip-compressed as ``.gz``) or a
Parquet file (``.parquet``, ``.pq``) into a data frame that :func:`ordmetrics.evaluate` takes:
a pyarrow Table when pyarrow is installed, otherwise a pandas or polars DataFrame, whichever is
installed. Parquet files need pyarrow (``pip install ordmetrics[parquet]``).

The file type is told by the extension and checked against the content, so a binary file named
``.csv``, a Parquet file named ``.csv`` or a text file named ``.parquet`` is reported as such.
:func:`resolve_columns` and :func:`check_numeric` (:mod:`ordmetrics.io.table_columns`) check the
columns that the command line was given, with messages that speak of the file (and suggest a
delimiter when the file seems to be split on another one); file names, kinds, delimiters and
the errors live in :mod:`ordmetrics.io.sources`. This module re-exports both.

Every problem of the input raises :class:`InputError`, a :class:`ValueError` with a one-line
message; a missing optional library raises :class:`MissingDependencyError`, an
:class:`ImportError` that names the extra to install.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import io
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ordmetrics._core.params import Options, validate_params
from ordmetrics.io.sources import (
    CSV_BACKENDS,
    CSV_SUFFIXES,
    GZIP_MAGIC,
    MEMORY_SHARE,
    NULL_VALUES,
    PARQUET_SUFFIXES,
    STDIN,
    STDIN_NAME,
    FrameBackend,
    InputError,
    MissingDependencyError,
    available_memory,
    check_fits_memory,
    check_stored_order,
    csv_backend,
    file_kind,
    looks_binary,
    null_markers,
    one_line,
    parse_delimiter,
    show_delimiter,
    too_large_message,
)
from ordmetrics.io.table_columns import (
    check_numeric,
    fix_row_sums,
    match_label_columns,
    resolve_columns,
)

__all__ = [
    "CSV_BACKENDS",
    "CSV_SUFFIXES",
    "MEMORY_SHARE",
    "NULL_VALUES",
    "PARQUET_SUFFIXES",
    "STDIN",
    "FrameBackend",
    "InputError",
    "MissingDependencyError",
    "available_memory",
    "check_numeric",
    "csv_backend",
    "fix_row_sums",
    "match_label_columns",
    "parse_delimiter",
    "read_stdin",
    "read_table",
    "resolve_columns",
    "stored_order",
]


_PARQUET_MAGIC = b"PAR1"
_BOM = b"\xef\xbb\xbf"
_SNIFF = 1 << 16
#: pyarrow's CSV block (its default), and the largest one: a field must fit in one block.
_CSV_BLOCK = 1 << 20
_CSV_BLOCK_MAX = (1 << 31) - 1


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


#: How much of a file ``read_table(..., head=True)`` reads: enough rows to check the columns
#: (about this many bytes of a CSV file, this many rows of a Parquet file).
HEAD_BYTES = 1 << 20
HEAD_ROWS = 10_000


@validate_params({"backend": [Options(CSV_BACKENDS), None], "head": ["boolean"]})
def read_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    backend: str | None = None,
    head: bool = False,
    labels: Sequence[Any] | None = None,
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
    labels : sequence, optional
        The class labels (``--labels``). A CSV field is a missing value when it is one of
        :data:`NULL_VALUES` (the empty field, ``NA``, ``NaN``, ``null``, ``None``, ...), the
        same list whichever library reads it, unless it is one of ``labels``: a class named
        ``NA`` is a class (see :func:`~ordmetrics.io.sources.null_markers`).

    Returns
    -------
    pyarrow.Table, pandas.DataFrame or polars.DataFrame
        The table, with the column types the reader infers (numbers, strings).

    Raises
    ------
    ValueError, TypeError
        For a ``backend`` that is not one of :data:`CSV_BACKENDS`, a ``head`` that is not
        True or False, or ``labels`` given as one string.
    InputError
        For a file that does not exist, is empty, has a header but no rows, has a repeated
        column name (whichever library reads it), is not of the type its extension says,
        cannot be parsed, or is too large to read whole: more than :data:`MEMORY_SHARE` of
        the memory available (:func:`~ordmetrics.io.sources.available_memory`), uncompressed;
        the message says how to read it in batches.
    MissingDependencyError
        When no library can read the file (``pip install ordmetrics[parquet]``).
    """
    if isinstance(labels, str | bytes):  # its characters would be taken for the labels
        raise TypeError(
            f"labels must be a list of the class labels, e.g. ['NA', 'mild', 'severe']; got "
            f"the string {labels!r}. Split it first, e.g. labels=text.split(',')."
        )
    if isinstance(path, str) and path == STDIN:
        table = _read_stdin_table(delimiter, backend, labels)
        _check_shape(table, STDIN_NAME)
        return table
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {str(p)!r}.")
    if p.is_dir():
        raise InputError(f"{str(p)!r} is a directory, not a CSV or Parquet file.")
    kind = file_kind(p)
    if p.stat().st_size == 0:
        raise InputError(f"{str(p)!r} is empty.")
    if not head:
        check_fits_memory(p, kind)
    try:
        if kind == "parquet":
            table = _read_parquet(p, head)
        else:
            table = _read_csv(p, delimiter, backend, head, labels=labels)
    except MemoryError:  # the estimate fell short (other processes took the memory meanwhile)
        raise InputError(too_large_message(p, None, available_memory())) from None
    _check_shape(table, p)
    return table


def _read_parquet(p: Path, head_only: bool = False) -> Any:
    with p.open("rb") as fh:
        first = fh.read(_SNIFF)
        fh.seek(max(0, p.stat().st_size - 4))
        tail = fh.read(4)
    if not (first.startswith(_PARQUET_MAGIC) and tail == _PARQUET_MAGIC):
        what = "like text (a CSV file should end in .csv)"
        if first.startswith(GZIP_MAGIC):
            what = "gzip-compressed (a compressed CSV file should end in .csv.gz)"
        elif looks_binary(first) is not None:
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
        # the names first: a repeated one would fail the read with a message of pyarrow's
        _check_names(pq.read_schema(p).names, p)
        if head_only:
            batch = next(pq.ParquetFile(p).iter_batches(batch_size=HEAD_ROWS), None)
            if batch is not None:
                return pa.Table.from_batches([batch])
        return pq.read_table(p)
    except MemoryError:  # pyarrow's ArrowMemoryError too: the caller says the file is too large
        raise
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"could not read {str(p)!r} as Parquet: {one_line(exc)}") from None


def _csv_bytes(p: Path) -> tuple[bytes | None, bytes]:
    """The whole decompressed content of a gzip file (else None) and the first bytes of text."""
    with p.open("rb") as fh:
        head = fh.read(_SNIFF)
    if head.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(p.read_bytes())
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"{str(p)!r} is gzip-compressed but cannot be decompressed: {one_line(exc)}"
            ) from None
        return data, data[:_SNIFF]
    if p.name.lower().endswith(".gz"):
        raise InputError(f"{str(p)!r} ends in .gz but is not gzip-compressed.")
    return None, head


def _head_bytes(p: Path) -> bytes:
    """The first complete lines (about HEAD_BYTES) of a CSV file, decompressed if gzip."""
    with p.open("rb") as fh:
        magic = fh.read(len(GZIP_MAGIC))
    opener = gzip.open if magic == GZIP_MAGIC else open
    try:
        with opener(p, "rb") as fh:
            text = fh.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{str(p)!r} cannot be read: {one_line(exc)}") from None
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


def _read_stdin_table(delimiter: str | None, backend: str | None, labels: Any) -> Any:
    """The table piped into standard input: CSV (gzip-compressed or not) or Parquet."""
    p = STDIN_NAME
    data = read_stdin()
    if not data:
        raise InputError(f"{str(p)!r} is empty: nothing was piped into standard input.")
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"{str(p)!r} is gzip-compressed but cannot be decompressed: {one_line(exc)}"
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
            _check_names(pq.read_schema(pa.BufferReader(data)).names, p)
            return pq.read_table(pa.BufferReader(data))
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"could not read {str(p)!r} as Parquet: {one_line(exc)}") from None
    return _read_csv(p, delimiter, backend, data=data, labels=labels)


def _read_csv(
    p: Path,
    delimiter: str | None,
    backend: str | None,
    head_only: bool = False,
    data: bytes | None = None,
    labels: Any = None,
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
    why = looks_binary(head)
    if why is not None:
        raise InputError(f"{str(p)!r} is not a CSV file: {why}.")
    if head.startswith(_BOM):
        data = (p.read_bytes() if data is None else data)[len(_BOM) :]
        head = head[len(_BOM) :]
    if not head.strip():
        raise InputError(f"{str(p)!r} is empty (no header line).")
    if delimiter is None:
        delimiter = "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else ","
    # before a reader renames a repeated name (pandas "p1.1", polars "p1_duplicated_0")
    _check_names(_header(head, delimiter), p)
    nulls = null_markers(labels)  # one list for every reader
    source: Any = p if data is None else io.BytesIO(data)
    if backend is None and not any(importlib.util.find_spec(b) for b in CSV_BACKENDS):
        from ordmetrics.io.delimited import (
            read_csv,  # no data-frame library: the standard library's reader
        )

        return read_csv(source, delimiter, p, labels=labels)
    lib = csv_backend(backend)
    reader = {"pyarrow": _csv_pyarrow, "pandas": _csv_pandas, "polars": _csv_polars}[lib]
    return reader(source, delimiter, p, nulls)


def _header(head: bytes, delimiter: str) -> list[str]:
    """The column names of the header line at the start of ``head`` (those read whole)."""
    text = head.decode("utf-8", errors="replace")
    end = text.find("\n")
    try:
        names = next(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), [])
    except csv.Error:  # e.g. a quote left open: the reader reports the file
        return []
    # a header longer than head is cut: its last name may be part of one
    return names if end >= 0 or len(head) < _SNIFF else names[:-1]


def _parse_error(p: Path, delimiter: str, exc: BaseException) -> InputError:
    return InputError(
        f"could not parse {str(p)!r} as CSV with delimiter {show_delimiter(delimiter)}: "
        f"{one_line(exc)}"
    )


def _csv_pyarrow(source: Any, delimiter: str, p: Path, nulls: list[str]) -> Any:
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
                # a null marker in a text column (the truth) is a missing value, as in numbers
                convert_options=pcsv.ConvertOptions(null_values=nulls, strings_can_be_null=True),
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


def _csv_pandas(source: Any, delimiter: str, p: Path, nulls: list[str]) -> Any:
    import pandas as pd

    try:
        # the correctly rounded float of every decimal, as pyarrow and polars read it: the
        # default from pandas 3 on, float_precision="round_trip" before
        major = int(pd.__version__.split(".", 1)[0])
        precision = {"float_precision": "round_trip"} if major < 3 else {}
        return pd.read_csv(
            source, sep=delimiter, keep_default_na=False, na_values=nulls, **precision
        )
    except pd.errors.EmptyDataError:
        raise InputError(f"{str(p)!r} is empty (no header line).") from None
    except pd.errors.ParserError as exc:
        raise _parse_error(p, delimiter, exc) from None


def _csv_polars(source: Any, delimiter: str, p: Path, nulls: list[str]) -> Any:
    import polars as pl

    try:
        return pl.read_csv(source, separator=delimiter, infer_schema_length=None, null_values=nulls)
    except pl.exceptions.NoDataError:
        raise InputError(f"{str(p)!r} is empty (no header line).") from None
    except pl.exceptions.PolarsError as exc:
        raise _parse_error(p, delimiter, exc) from None


def _check_names(columns: Sequence[Any], p: Path) -> None:
    """An :class:`InputError` naming the first column name that is repeated."""
    seen: set[Any] = set()
    for c in columns:
        if c in seen:
            raise InputError(
                f"{str(p)!r} has the column {str(c)!r} more than once; column names must be "
                "unique: rename one of them."
            )
        seen.add(c)


def _check_shape(table: Any, p: Path) -> None:
    # the names as read (narwhals refuses a frame with a repeated name)
    _check_names(list(getattr(table, "column_names", None) or table.columns), p)
    n_rows = table.num_rows if hasattr(table, "num_rows") else len(table)
    if n_rows == 0:
        raise InputError(f"{str(p)!r} has a header but no rows.")


# --------------------------------------------------------------------------------------------
# The order an ordered dictionary stores
# --------------------------------------------------------------------------------------------


def stored_order(
    table: Any,
    truth: str,
    given: Sequence[Any] | None,
    proba: Sequence[Any],
    source: str | None = None,
) -> list[Any] | None:
    """The classes in the order an ordered dictionary truth column stores, or None.

    A pandas ordered Categorical saved to Parquet is read by pyarrow as an ordered dictionary
    column, which carries the order of the classes: it serves as ``--labels`` when they are
    not given, as :func:`ordmetrics.evaluate_file` reads it.

    Parameters
    ----------
    table : data frame
        The table read by :func:`read_table`.
    truth : str
        The truth column.
    given : sequence or None
        The labels given (``--labels``, as text; None or empty: none given).
    proba : sequence
        The probability columns, one per class.
    source : str, optional
        The file's name, for the messages.

    Returns
    -------
    list or None
        The classes in the stored order; None for any other column (not a pyarrow ordered
        dictionary), and for one whose chunks store different orders when ``given`` is.

    Raises
    ------
    InputError
        When ``given`` disagrees with the stored order, when the stored classes are not one
        per probability column, or when chunks store different orders and none is given.
    """
    dictionaries = _ordered_dictionaries(table, truth)
    if not dictionaries:
        return None
    where = "the file" if source is None else repr(source)
    if any(d != dictionaries[0] for d in dictionaries):
        if given:
            return None  # no one stored order: the given one rules
        raise InputError(
            f"truth column {truth!r} of {where} is an ordered dictionary whose parts store "
            "different orders of the classes; give their ordinal order with --labels A,B,..."
        )
    stored = dictionaries[0]
    check_stored_order(stored, given, truth, where, "--labels")
    if len(stored) != len(proba):
        raise InputError(
            f"truth column {truth!r} of {where} is an ordered dictionary of {len(stored)} "
            f"classes ({', '.join(map(str, stored))}) but there are {len(proba)} probability "
            f"columns ({', '.join(map(str, proba))}); give one probability column per class."
        )
    return stored


def _ordered_dictionaries(table: Any, truth: str) -> list[list[Any]]:
    """The classes of every chunk of a pyarrow ordered dictionary column (else none)."""
    if type(table).__module__.partition(".")[0] != "pyarrow" or not hasattr(table, "schema"):
        return []
    import pyarrow as pa

    t = table.schema.field(truth).type
    if not (pa.types.is_dictionary(t) and t.ordered):
        return []
    return [chunk.dictionary.to_pylist() for chunk in table.column(truth).chunks]
