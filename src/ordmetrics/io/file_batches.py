"""Batches of a CSV or Parquet file read with pyarrow (for :func:`~ordmetrics.files.evaluate_file`).

:class:`FileSource` reads the needed columns batch by batch (Parquet with
``ParquetFile.iter_batches``, CSV with pyarrow's streaming reader in small blocks joined into
batches), so that memory stays constant; the helpers turn the columns of a batch into NumPy
arrays and its rows into groups, and :class:`ProgressHook` reports the progress made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ordmetrics.io.sources import null_markers

__all__ = [
    "CSV_BLOCK",
    "CSV_BLOCK_MAX",
    "FileSource",
    "ProgressHook",
    "batch_groups",
    "csv_truth_type",
    "float_column",
    "import_pyarrow",
    "missing_keys",
    "read_batches",
    "truth_column",
]


#: Largest CSV block read at once (pyarrow reads up to 32 blocks ahead).
CSV_BLOCK = 1 << 20

#: Largest block of a CSV file holding a field longer than CSV_BLOCK: a field must fit in one.
CSV_BLOCK_MAX = 1 << 26


def import_pyarrow() -> Any:
    """The pyarrow module; an ImportError naming the extra to install when it is absent."""
    try:
        import pyarrow
    except ImportError:
        raise ImportError(
            "ordmetrics.files.evaluate_file needs pyarrow to read CSV and Parquet files; "
            "install it with `pip install ordmetrics[parquet]` (or `pip install pyarrow`)."
        ) from None
    return pyarrow


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class FileSource:
    """Batches of the needed columns, with the progress made (rows, or bytes for CSV).

    A CSV field is missing when it is one of the null markers of every reader
    (:func:`~ordmetrics.io.sources.null_markers`), unless it is one of ``labels``.
    """

    def __init__(
        self, pa: Any, path: Path, kind: str, delimiter: str | None, labels: Any = None
    ) -> None:
        self.pa = pa
        self.path = path
        self.kind = kind
        self.delimiter = delimiter or ("\t" if ".tsv" in path.name.lower() else ",")
        self.nulls = null_markers(labels) if kind == "csv" else []
        self.file: Any = None
        self.raw: Any = None
        self.block = CSV_BLOCK
        try:
            self._open()
        except (pa.ArrowInvalid, OSError) as exc:
            raise ValueError(
                f"could not read {path.name!r} as a {'Parquet' if kind == 'parquet' else 'CSV'} "
                f"file: {exc}"
            ) from None
        self.columns = [str(c) for c in self.schema.names]
        seen: set[str] = set()
        for c in self.columns:  # a repeated name would be ambiguous (or renamed elsewhere)
            if c in seen:
                raise ValueError(
                    f"{path.name!r} has the column {c!r} more than once; column names must be "
                    "unique: rename one of them."
                )
            seen.add(c)

    def _open(self) -> None:
        path, kind = self.path, self.kind
        if kind == "parquet":
            import pyarrow.parquet as pq

            # no pre-buffering: it would keep every column chunk read so far in memory
            # (the whole file by the end); pages are read through a 1 MiB buffer instead
            self.file = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
            self.schema = self.file.schema_arrow
            self.total = int(self.file.metadata.num_rows)
        else:
            import pyarrow.csv as pacsv

            self.pacsv = pacsv
            block = CSV_BLOCK
            while True:
                try:
                    self.schema = self._csv_reader(block, [], {}).schema
                    break
                except self.pa.ArrowInvalid as exc:  # a field longer than the block: larger blocks
                    if "straddling" not in str(exc) or block >= CSV_BLOCK_MAX:
                        raise
                    block = min(8 * block, CSV_BLOCK_MAX)
                finally:
                    self.close()
            self.total = path.stat().st_size

    def close(self) -> None:
        raw, self.raw = self.raw, None
        if raw is not None:
            raw.close()

    def _csv_reader(self, block_size: int, include: list[str], types: dict) -> Any:
        pa, pacsv = self.pa, self.pacsv
        self.raw = pa.OSFile(str(self.path), "rb")
        stream = self.raw
        if self.path.name.lower().endswith(".gz"):
            stream = pa.CompressedInputStream(self.raw, "gzip")
        return pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(block_size=block_size),
            parse_options=pacsv.ParseOptions(delimiter=self.delimiter),
            convert_options=pacsv.ConvertOptions(
                include_columns=include,
                column_types=types,
                null_values=self.nulls,
                strings_can_be_null=True,
            ),
        )

    def _row_bytes(self) -> float:
        """Average bytes per row of the first 256 KiB (decompressed) of a CSV file."""
        pa = self.pa
        with pa.OSFile(str(self.path), "rb") as raw:
            stream = raw
            if self.path.name.lower().endswith(".gz"):
                stream = pa.CompressedInputStream(raw, "gzip")
            head = stream.read(1 << 18)
        return len(head) / max(1, head.count(b"\n"))

    def batches(self, columns: list[str], types: dict, batch_size: int) -> Iterator[Any]:
        if self.kind == "parquet":
            try:
                yield from self.file.iter_batches(batch_size=batch_size, columns=columns)
            finally:
                self.file.close()
            return
        # pyarrow's reader reads up to 32 blocks ahead of the parser, so the blocks are kept
        # small (memory ~ 32 blocks) and joined into batches of batch_size rows here
        block = int(min(CSV_BLOCK, max(1 << 16, 1.1 * batch_size * self._row_bytes())))
        done = 0  # rows yielded, which a new pass with larger blocks skips
        while True:
            self.block = block
            try:
                for batch in self._csv_batches(block, columns, types, batch_size, done):
                    done += batch.num_rows
                    yield batch
                return
            except self.pa.ArrowInvalid as exc:
                if "straddling" not in str(exc) or block >= CSV_BLOCK_MAX:
                    raise
                # a field longer than a block (pyarrow cannot split it): read the file again
                # with larger blocks, past the rows already evaluated
                block = min(8 * block, CSV_BLOCK_MAX)

    def _csv_batches(
        self, block: int, columns: list[str], types: dict, batch_size: int, skip: int
    ) -> Iterator[Any]:
        """Batches of ``batch_size`` rows of a CSV file read in blocks, after ``skip`` rows."""
        pa = self.pa
        pending: list[Any] = []
        rows = 0
        try:
            for rb in self._csv_reader(block, columns, types):
                if skip:
                    if rb.num_rows <= skip:
                        skip -= rb.num_rows
                        continue
                    rb, skip = rb.slice(skip), 0
                pending.append(rb)
                rows += rb.num_rows
                if rows < batch_size:
                    continue
                joined = pa.Table.from_batches(pending).combine_chunks().to_batches()[0]
                start = 0
                while rows - start >= batch_size:
                    yield joined.slice(start, batch_size)
                    start += batch_size
                pending = [joined.slice(start)] if start < rows else []
                rows -= start
            if rows:
                yield pa.Table.from_batches(pending).combine_chunks().to_batches()[0]
        finally:
            self.close()

    def position(self, rows_done: int) -> int:
        if self.kind == "parquet":
            return rows_done
        try:
            return int(self.raw.tell())
        except (AttributeError, OSError, ValueError):  # pragma: no cover - a closed file
            return self.total


def read_batches(
    source: FileSource, columns: list[str], types: dict, batch_size: int, path: Path
) -> Any:
    """The batches, with a reading error of pyarrow turned into a ValueError naming the file."""
    pa = source.pa
    it = source.batches(columns, types, batch_size)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except pa.ArrowInvalid as exc:
            if "straddling" in str(exc):
                raise ValueError(
                    f"could not read {path.name!r} in batches: a row holds a field longer than "
                    f"{CSV_BLOCK_MAX >> 20} MiB, the largest block of the reader (a stray quote "
                    "can make the rest of a file one field). Check the file's quoting."
                ) from None
            raise ValueError(
                f"could not read {path.name!r}: {exc}. The probability and weight columns must "
                "hold numbers; a truth column of strings needs labels=[...]."
            ) from None
        yield batch


# --------------------------------------------------------------------------------------------
# Columns and groups of a batch
# --------------------------------------------------------------------------------------------


def csv_truth_type(pa: Any, labels: Any) -> Any:
    """The type to read the truth column of a CSV file as, given the labels (None: inferred)."""
    if labels is None:
        return None
    values = list(labels)
    if all(isinstance(v, bool | np.bool_) for v in values):
        return pa.bool_()
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return pa.int64()
    if all(isinstance(v, float | int | np.floating | np.integer) for v in values):
        return pa.float64()
    return pa.string()


def float_column(pa: Any, column: Any) -> np.ndarray:
    """A numeric column as float64, nulls as NaN."""
    if pa.types.is_dictionary(column.type):  # pragma: no cover - numbers are rarely encoded
        column = column.dictionary_decode()
    # a writable copy: arrow's zero-copy arrays are read-only, which the compiled kernels
    # would treat as another type (and compile again)
    return np.array(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def truth_column(pa: Any, column: Any) -> tuple[np.ndarray, list[Any] | None]:
    """The truth column as NumPy (nulls as NaN/None), and the categories of an ordered one."""
    categories = None
    if pa.types.is_dictionary(column.type):
        if column.type.ordered:
            categories = column.dictionary.to_pylist()
        column = column.dictionary_decode()
    return np.array(column.to_numpy(zero_copy_only=False)), categories  # writable, as above


def _group_key(values: list[Any]) -> Any:
    out = tuple(None if isinstance(v, float) and v != v else v for v in values)
    return out[0] if len(out) == 1 else out


def missing_keys(pa: Any, batch: Any, by: list[str]) -> list[np.ndarray]:
    """Where each ``by`` column of the batch is missing (null, or NaN)."""
    import pyarrow.compute as pc

    out = []
    for name in by:
        column = batch.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        missing = pc.is_null(column, nan_is_null=True)
        out.append(np.asarray(missing.to_numpy(zero_copy_only=False), dtype=bool))
    return out


def batch_groups(pa: Any, batch: Any, by: list[str]) -> list[tuple[Any, np.ndarray]]:
    """(key, row positions) of every group of the batch, in order of first appearance."""
    import pyarrow.compute as pc

    codes, dictionaries = [], []
    for name in by:
        column = batch.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        enc = pc.dictionary_encode(column, null_encoding="encode")
        codes.append(np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64))
        dictionaries.append(enc.dictionary.to_pylist())
    if len(codes) == 1:
        combos, inverse = np.unique(codes[0], return_inverse=True)
        combos = combos[:, None]
    else:
        combos, inverse = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.cumsum(np.bincount(inverse, minlength=len(combos)))
    starts = bounds - np.bincount(inverse, minlength=len(combos))
    out = []
    for g in np.argsort(order[starts], kind="stable"):  # first appearance
        rows = order[starts[g] : bounds[g]]
        key = _group_key([dictionaries[j][combos[g, j]] for j in range(len(by))])
        out.append((key, rows))
    return out


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------


class ProgressHook:
    """A context giving ``step(n_rows)``: a progress bar, a user's callable, or nothing."""

    def __init__(self, progress: Any, source: FileSource, path: Path) -> None:
        self.progress, self.source, self.path = progress, source, path
        self.bar: Any = None
        self.rows = 0
        self.shown = 0

    def __enter__(self) -> Callable[[int], None]:
        if self.progress is True:
            bar: Any
            try:
                from ordmetrics._core.progress import progress as bar
            except ImportError:  # pragma: no cover - the command-line helpers are absent
                bar = None
            if bar is not None:
                unit = "rows" if self.source.kind == "parquet" else "bytes"
                self.bar = bar(self.source.total, f"{self.path.name} ({unit})")
                self.tick = self.bar.__enter__()
        return self.step

    def step(self, n: int) -> None:
        self.rows += n
        if callable(self.progress):
            self.progress(n)
        elif self.bar is not None:
            done = self.source.position(self.rows)
            self.tick(max(0, done - self.shown))
            self.shown = max(self.shown, done)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)
