"""The input of the command line: file names and kinds, delimiters, and the errors of the input.

Every problem of the input raises :class:`InputError`, a :class:`ValueError` with a one-line
message; a missing optional library raises :class:`MissingDependencyError`, an
:class:`ImportError` that names the extra to install.
"""

from __future__ import annotations

import importlib.util
import os
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from ordmetrics._core.params import Options, validate_params

__all__ = [
    "CSV_BACKENDS",
    "CSV_SUFFIXES",
    "NULL_VALUES",
    "PARQUET_SUFFIXES",
    "STDIN",
    "STDIN_NAME",
    "FrameBackend",
    "InputError",
    "MissingDependencyError",
    "check_fits_memory",
    "check_stored_order",
    "csv_backend",
    "file_kind",
    "looks_binary",
    "null_markers",
    "one_line",
    "parse_delimiter",
    "show_delimiter",
    "too_large_message",
]


STDIN = "-"
"""The file name that stands for standard input (CSV, optionally gzip-compressed, or
Parquet), read whole into memory."""


#: The first bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"

#: The name standard input goes by in messages.
STDIN_NAME = Path("<stdin>")


CSV_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
"""File name endings read as CSV (``.tsv``: tab-delimited by default)."""


PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
"""File name endings read as Parquet."""


#: The data-frame libraries that read CSV, in order of preference.
FrameBackend = Literal["pyarrow", "pandas", "polars"]
CSV_BACKENDS: tuple[FrameBackend, ...] = ("pyarrow", "pandas", "polars")
"""The libraries that can read CSV files, in order of preference."""


class InputError(ValueError):
    """A problem of the input file or of the columns asked for; the message is one line."""


class MissingDependencyError(ImportError):
    """An optional library is needed and not installed; the message names the extra."""


NULL_VALUES: frozenset[str] = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)
"""The fields of a CSV file read as a missing value, by every reader (the standard library's,
pyarrow's, pandas' and polars'): the empty field and the default null markers of pandas
(those of pyarrow, plus ``None`` and ``<NA>``). A field that is one of the class labels is
a label, not a missing value (see :func:`null_markers`)."""


def null_markers(labels: Iterable[Any] | None = None) -> list[str]:
    """The null markers of a CSV file whose classes are ``labels``: :data:`NULL_VALUES`
    without the text of any label, so that a class named ``NA``, ``None`` or ``null`` is read
    as a class; the empty field stays a missing value.

    Every CSV reader takes this one list, so that the rows read, and the numbers computed, do
    not depend on which data-frame library is installed. A label is kept as text in every
    column (no reader takes a list per column), so a probability column whose missing values
    are written as a label (``NA`` with a class ``NA``) is not numeric: leave such fields empty.

    Parameters
    ----------
    labels : iterable, optional
        The class labels (``--labels``); each is compared as its text, ``str(label)``.

    Returns
    -------
    list of str
        The markers, sorted.

    Raises
    ------
    InputError
        When a label is the empty string: an empty field is always a missing value.

    Examples
    --------
    >>> "NA" in null_markers(), "NA" in null_markers(["NA", "mild", "severe"])
    (True, False)
    """
    names = set() if labels is None else {str(v) for v in labels}
    if "" in names:
        # the empty field is a missing value in every reader and in every writer of CSV
        raise InputError(
            "labels holds the empty string '', which a CSV file cannot tell from a missing "
            "value (an empty field); give that class a name, in the file and in labels."
        )
    return sorted(NULL_VALUES - names)


def check_stored_order(
    stored: Sequence[Any],
    given: Sequence[Any] | None,
    truth: str,
    where: str,
    labels_arg: str = "labels",
) -> None:
    """An :class:`InputError` when ``given`` labels are not the order a file stores.

    An ordered dictionary column (a pandas ordered Categorical saved to Parquet) stores its
    classes in their order; labels that list other classes, or the same in another order,
    would score every row against another class than the file says, so they are refused.

    Parameters
    ----------
    stored : sequence
        The classes in the order the truth column stores.
    given : sequence or None
        The labels given (None or empty: none given); compared as text, ``str(label)``.
    truth : str
        The truth column, for the message.
    where : str
        The file, for the message (e.g. ``"'preds.parquet'"``).
    labels_arg : str, default "labels"
        The argument that gave the labels (``"--labels"`` on the command line).

    Examples
    --------
    >>> check_stored_order(["lo", "mid", "hi"], ["lo", "mid", "hi"], "grade", "'p.parquet'")
    >>> check_stored_order(["lo", "mid", "hi"], None, "grade", "'p.parquet'")
    """
    if not given or [str(v) for v in given] == [str(v) for v in stored]:
        return
    raise InputError(
        f"{labels_arg} gives the classes {', '.join(map(str, given))} but the truth column "
        f"{truth!r} of {where} is an ordered dictionary (an ordered categorical) that stores "
        f"the order {', '.join(map(str, stored))}; drop {labels_arg} to use the stored order, "
        "or give exactly that order."
    )


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def one_line(text: object) -> str:
    """``text`` on one line (runs of white space as one space), for messages."""
    return " ".join(str(text).split())


def show_delimiter(delimiter: str) -> str:
    """A delimiter as a message shows it: ``tab`` or its repr."""
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


def file_kind(path: Path) -> str:
    """``"parquet"`` or ``"csv"`` by the file's name; :class:`InputError` for another name."""
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


def looks_binary(sample: bytes) -> str | None:
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


@validate_params({"backend": [Options(CSV_BACKENDS), None]})
def csv_backend(backend: str | None = None) -> str:
    """The library that reads CSV files: ``backend``, or the first installed of pyarrow,
    pandas and polars.

    Raises
    ------
    ValueError
        When ``backend`` is not one of :data:`CSV_BACKENDS` (or None).
    MissingDependencyError
        When none is installed (or not ``backend``).
    """
    if backend is not None:
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
# Files too large to read whole
# --------------------------------------------------------------------------------------------


#: The share of the available memory that a file read whole may take (its uncompressed size):
#: parsing needs the text, or the pages, and the table built from them at once, about twice
#: the size, so that a larger file fails part-way (or swaps) rather than being read.
MEMORY_SHARE = 0.5


def available_memory() -> int | None:
    """The bytes of memory available to this process now, or None where it cannot be told.

    psutil's figure when psutil is installed; else ``MemAvailable`` of ``/proc/meminfo``
    (Linux: free memory plus the caches the kernel can drop); else the free pages that
    ``os.sysconf`` reports.
    """
    try:  # by name: psutil is optional and has no type hints of its own
        psutil = importlib.import_module("psutil")
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):  # not a POSIX system
        return None


def _data_size(p: Path, kind: str) -> int:
    """The bytes of a file once uncompressed: the pages of a Parquet file, the text of a CSV
    file (a gzip file's estimated from the ratio of its first megabyte, which its size field,
    modulo 4 GiB, cannot give for a larger file)."""
    size = p.stat().st_size
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(p).metadata
            return sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        except Exception:  # no pyarrow, or no valid footer: the reader reports it
            return size
    with p.open("rb") as fh:
        if fh.read(len(GZIP_MAGIC)) != GZIP_MAGIC:
            return size
        fh.seek(0)
        chunk = fh.read(1 << 20)
    try:
        text = zlib.decompressobj(wbits=31).decompress(chunk, 64 << 20)
    except zlib.error:  # not valid gzip: the reader reports it
        return size
    return max(size, int(size * len(text) / max(1, len(chunk))))


def too_large_message(p: Path, need: int | None, avail: int | None) -> str:
    """The message of a file too large to read whole: the sizes (when known), how to stream."""

    def gib(n: int) -> str:
        return f"{n / (1 << 30):.2f} GiB"

    what = (
        f": about {gib(need)} of data, over {MEMORY_SHARE:.0%} of the {gib(avail)} of memory "
        "available"
        if need is not None and avail is not None
        else ""
    )
    return (
        f"{str(p)!r} is too large to read into memory{what}. Read it in batches, in constant "
        "memory, with `ordmetrics evaluate --stream` (drop --bootstrap to stream it: bootstrap "
        "intervals, `report` and `compare` need every row in memory) or "
        "ordmetrics.evaluate_file in Python."
    )


def check_fits_memory(p: Path, kind: str) -> None:
    """An :class:`InputError` when the file, uncompressed, takes more than
    :data:`MEMORY_SHARE` of the memory available (nothing where that cannot be told)."""
    avail = available_memory()
    if avail is None:
        return
    need = _data_size(p, kind)
    if need > MEMORY_SHARE * avail:
        raise InputError(too_large_message(p, need, avail))
