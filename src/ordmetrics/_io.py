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
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "InputError",
    "MissingDependencyError",
    "check_numeric",
    "csv_backend",
    "parse_delimiter",
    "read_table",
    "resolve_columns",
]

CSV_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
"""File name endings read as CSV (``.tsv``: tab-delimited by default)."""

PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
"""File name endings read as Parquet."""

CSV_BACKENDS: tuple[str, ...] = ("pyarrow", "pandas", "polars")
"""The libraries that can read CSV files, in order of preference."""

_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_BOM = b"\xef\xbb\xbf"
_SNIFF = 1 << 16
_DELIMITER_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe", " ": "space"}
_CANDIDATES = (",", ";", "\t", "|")


class InputError(ValueError):
    """A problem of the input file or of the columns asked for; the message is one line."""


class MissingDependencyError(ImportError):
    """An optional library is needed and not installed; the message names the extra."""


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _one_line(text: str) -> str:
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


#: How much of a file ``read_table(..., head=True)`` reads: enough rows to check the columns.
HEAD_BYTES = 1 << 20


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
        The file: ``.csv``, ``.tsv`` (optionally ``.gz``-compressed), ``.parquet`` or ``.pq``.
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


def _read_parquet(p: Path, head: bool = False) -> Any:
    with p.open("rb") as fh:
        head = fh.read(_SNIFF)
        fh.seek(max(0, p.stat().st_size - 4))
        tail = fh.read(4)
    if not (head.startswith(_PARQUET_MAGIC) and tail == _PARQUET_MAGIC):
        what = "like text (a CSV file should end in .csv)"
        if head.startswith(_GZIP_MAGIC):
            what = "gzip-compressed (a compressed CSV file should end in .csv.gz)"
        elif _looks_binary(head) is not None:
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
        if head:
            first = next(pq.ParquetFile(p).iter_batches(batch_size=10_000), None)
            if first is not None:
                return pa.Table.from_batches([first])
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


def _read_csv(p: Path, delimiter: str | None, backend: str | None, head_only: bool = False) -> Any:
    if head_only:
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

    try:
        return pcsv.read_csv(
            source if not isinstance(source, Path) else str(source),
            parse_options=pcsv.ParseOptions(delimiter=delimiter),
        )
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            raise InputError(f"{str(p)!r} is empty (no header line).") from None
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
