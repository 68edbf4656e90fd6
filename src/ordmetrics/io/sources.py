"""The input of the command line: file names and kinds, delimiters, and the errors of the input.

Every problem of the input raises :class:`InputError`, a :class:`ValueError` with a one-line
message; a missing optional library raises :class:`MissingDependencyError`, an
:class:`ImportError` that names the extra to install.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Literal

from ordmetrics._core.params import Options, validate_params

__all__ = [
    "CSV_BACKENDS",
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "STDIN",
    "STDIN_NAME",
    "FrameBackend",
    "InputError",
    "MissingDependencyError",
    "csv_backend",
    "file_kind",
    "looks_binary",
    "one_line",
    "parse_delimiter",
    "show_delimiter",
]


STDIN = "-"
"""The file name that stands for standard input (CSV, optionally gzip-compressed, or
Parquet), read whole into memory."""


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
