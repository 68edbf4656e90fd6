"""Metrics of the predictions stored in a CSV or Parquet file, read in batches.

:func:`evaluate_file` reads a file batch by batch (Parquet with ``ParquetFile.iter_batches``,
CSV with pyarrow's streaming CSV reader) and feeds an :class:`~ordmetrics.stream.Evaluator`, so
a file larger than memory is evaluated in constant memory: one batch of rows (for Parquet, the
pages of the row group being read; for CSV, one block), plus the evaluator's fixed-size state.
The result is the evaluator's :class:`~ordmetrics.stream.StreamResult`: the same numbers as
:func:`ordmetrics.evaluate` on the whole table, with the error bounds of the streaming ranking
metrics (see :mod:`ordmetrics.stream`).

Needs pyarrow, an optional dependency: ``pip install ordmetrics[parquet]``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ordmetrics._core.validation import (
    check_flag,
    type_name,
)
from ordmetrics.evaluation.streaming import (
    DEFAULT_MAX_EXACT,
    DEFAULT_N_GRID,
    Evaluator,
    StreamResult,
)
from ordmetrics.io.frames import group_key_rows
from ordmetrics.io.readers import (
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    _kind,
    fix_row_sums,
    match_label_columns,
)

__all__ = ["CSV_SUFFIXES", "PARQUET_SUFFIXES", "evaluate_file"]

#: Largest CSV block read at once (pyarrow reads up to 32 blocks ahead).
_CSV_BLOCK = 1 << 20
#: Largest block of a CSV file holding a field longer than _CSV_BLOCK: a field must fit in one.
_CSV_BLOCK_MAX = 1 << 26
_NO_GROUP = object()


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise ImportError(
            "ordmetrics.files.evaluate_file needs pyarrow to read CSV and Parquet files; "
            "install it with `pip install ordmetrics[parquet]` (or `pip install pyarrow`)."
        ) from None
    return pyarrow


# --------------------------------------------------------------------------------------------
# Columns
# --------------------------------------------------------------------------------------------


def _fmt_columns(columns: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(repr(c) for c in columns[:limit])
    return shown + (f", ... ({len(columns)} in all)" if len(columns) > limit else "")


def _column(name: Any, arg: str, columns: list[str], where: str) -> str:
    if not isinstance(name, str):
        raise TypeError(
            f"{arg} must be the name of a column of the file (a string); got "
            f"{type_name(name)} {name!r}."
        )
    if name not in columns:
        close = difflib.get_close_matches(name, columns, n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(
            f"{arg} column {name!r} is not in {where}.{hint} Columns: {_fmt_columns(columns)}."
        )
    return name


def _proba_columns(proba: Any, columns: list[str], where: str) -> list[str]:
    if isinstance(proba, str):
        chosen = [c for c in columns if c.startswith(proba)]
        if not chosen:
            raise ValueError(
                f"proba prefix {proba!r} matches no column of {where}; pass the prefix the "
                "probability columns share (e.g. 'p_' for p_0, p_1, ...) or a list of their "
                f"names. Columns: {_fmt_columns(columns)}."
            )
        return chosen
    if not isinstance(proba, list | tuple):
        raise TypeError(
            "proba must be a list of column names in ordinal order, or a prefix string that the "
            f"probability columns share; got {type_name(proba)} {proba!r}."
        )
    if not proba:
        raise ValueError("proba is an empty list; list the probability columns in ordinal order.")
    chosen = [_column(c, "proba", columns, where) for c in proba]
    dups = [c for i, c in enumerate(chosen) if c in chosen[:i]]
    if dups:
        raise ValueError(
            f"proba lists column {dups[0]!r} more than once; each class needs its own column."
        )
    return chosen


def _by_columns(by: Any, columns: list[str], where: str) -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by) if isinstance(by, list | tuple) else [by]
    if not names:
        raise ValueError("by is an empty list; pass None for no grouping, or column names.")
    out = [_column(c, "by", columns, where) for c in names]
    if len(set(out)) != len(out):
        raise ValueError("by lists a column more than once.")
    return out


def _check_roles(truth: str, proba: list[str], weight: str | None, by: list[str]) -> None:
    if truth in proba:
        raise ValueError(
            f"proba includes the truth column {truth!r}; the probability columns must not "
            "include the truth. Use a longer prefix or list the probability columns."
        )
    if weight is not None and (weight == truth or weight in proba):
        role = "the truth column" if weight == truth else "a probability column"
        raise ValueError(f"sample_weight column {weight!r} is {role}; pass the column of weights.")
    for c in by:
        if c == truth or c in proba or c == weight:
            raise ValueError(
                f"by column {c!r} is also the truth, a probability or the weight column; group "
                "by other columns."
            )


def _check_numeric(pa: Any, schema: Any, names: list[str], arg: str, where: str) -> None:
    for name in names:
        t = schema.field(name).type
        if not (
            pa.types.is_integer(t)
            or pa.types.is_floating(t)
            or pa.types.is_decimal(t)
            or pa.types.is_null(t)
        ):
            raise TypeError(
                f"{arg} column {name!r} of {where} must be numeric; it has type {t}. Store the "
                "probabilities and weights as numbers."
            )


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


class _Source:
    """Batches of the needed columns, with the progress made (rows, or bytes for CSV)."""

    def __init__(self, pa: Any, path: Path, kind: str, delimiter: str | None) -> None:
        self.pa = pa
        self.path = path
        self.kind = kind
        self.delimiter = delimiter or ("\t" if ".tsv" in path.name.lower() else ",")
        self.file: Any = None
        self.raw: Any = None
        self.block = _CSV_BLOCK
        try:
            self._open()
        except (pa.ArrowInvalid, OSError) as exc:
            raise ValueError(
                f"could not read {path.name!r} as a {'Parquet' if kind == 'parquet' else 'CSV'} "
                f"file: {exc}"
            ) from None
        self.columns = [str(c) for c in self.schema.names]

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
            block = _CSV_BLOCK
            while True:
                try:
                    self.schema = self._csv_reader(block, [], {}).schema
                    break
                except self.pa.ArrowInvalid as exc:  # a field longer than the block: larger blocks
                    if "straddling" not in str(exc) or block >= _CSV_BLOCK_MAX:
                        raise
                    block = min(8 * block, _CSV_BLOCK_MAX)
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
        block = int(min(_CSV_BLOCK, max(1 << 16, 1.1 * batch_size * self._row_bytes())))
        done = 0  # rows yielded, which a new pass with larger blocks skips
        while True:
            self.block = block
            try:
                for batch in self._csv_batches(block, columns, types, batch_size, done):
                    done += batch.num_rows
                    yield batch
                return
            except self.pa.ArrowInvalid as exc:
                if "straddling" not in str(exc) or block >= _CSV_BLOCK_MAX:
                    raise
                # a field longer than a block (pyarrow cannot split it): read the file again
                # with larger blocks, past the rows already evaluated
                block = min(8 * block, _CSV_BLOCK_MAX)

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


def _csv_truth_type(pa: Any, labels: Any) -> Any:
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


def _numbers(pa: Any, column: Any) -> np.ndarray:
    """A numeric column as float64, nulls as NaN."""
    if pa.types.is_dictionary(column.type):  # pragma: no cover - numbers are rarely encoded
        column = column.dictionary_decode()
    # a writable copy: arrow's zero-copy arrays are read-only, which the compiled kernels
    # would treat as another type (and compile again)
    return np.array(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def _truth(pa: Any, column: Any) -> tuple[np.ndarray, list[Any] | None]:
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


def _missing_keys(pa: Any, batch: Any, by: list[str]) -> list[np.ndarray]:
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


def _groups(pa: Any, batch: Any, by: list[str]) -> list[tuple[Any, np.ndarray]]:
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
# The front
# --------------------------------------------------------------------------------------------


def evaluate_file(
    path: str | Path,
    *,
    truth: str,
    proba: str | Sequence[str],
    metrics: Any = None,
    labels: Any = None,
    sample_weight: str | None = None,
    by: str | Sequence[str] | None = None,
    batch_size: int = 65_536,
    nan_policy: str = "raise",
    decision: str = "argmax",
    delimiter: str | None = None,
    progress: bool | Callable[[int], Any] = False,
    max_exact: int = DEFAULT_MAX_EXACT,
    n_grid: int = DEFAULT_N_GRID,
    renormalize: bool = False,
    sum_tolerance: float | None = None,
) -> StreamResult | dict[Any, StreamResult]:
    """Compute metrics of the predictions in a CSV or Parquet file, in constant memory.

    Parameters
    ----------
    path : str or Path
        A Parquet file (``.parquet``, ``.pq``) or a CSV file (``.csv``, ``.tsv``, either
        gzip-compressed as ``.gz``) with a header line.
    truth : str
        The column of true classes: integers ``0..K-1``, values listed in ``labels``, or (in
        Parquet) an ordered dictionary column, such as a pandas ordered Categorical, which
        carries its own order.
    proba : str or list of str
        The probability columns, one per class in ordinal order: a list of column names, or a
        prefix, which takes every column whose name starts with it, in file order. Columns
        named after the classes (``p_mild`` for the label ``mild``, ``p_Very_Good`` for
        ``"Very Good"``, ``p_2`` for the class 2 of integer truth) are taken in the order of
        ``labels``; a list naming them in another order, or columns of which only some are
        named after labels, raise a ValueError.
    metrics : list or MetricSet, optional
        As in :func:`ordmetrics.evaluate`; default :data:`~ordmetrics.DEFAULT_METRICS`.
        Calibration metrics must use uniform bins (see :class:`~ordmetrics.stream.Evaluator`).
    labels : sequence, optional
        The class labels in ordinal order; needed for string truth.
    sample_weight : str, optional
        A column of non-negative frequency weights.
    by : str or list of str, optional
        Column(s) to group by: one evaluator per group, so the state grows with the number of
        groups (each holds up to K (max_exact or n_grid) numbers for the ranking metrics). Rows
        with a missing key (an empty cell, null or NaN) are handled as ``nan_policy`` says, as
        in :func:`ordmetrics.evaluate`: an error naming the column and the first such row
        (``"raise"``), dropped (``"omit"``), or kept, a missing value forming a group of its
        own keyed ``None`` (``"propagate"``).
    batch_size : int, default 65536
        Rows per batch. A Parquet file is read in batches of at most this many rows (never
        across row groups), a CSV file in blocks of at most 1 MiB (pyarrow reads up to 32
        blocks ahead) joined into batches of this many rows.
    nan_policy : {"raise", "omit", "propagate"}, default "raise"
        Rows with a missing value (an empty cell or NaN in the truth, probability or weight
        columns): raise an error, drop them, or give NaN for every metric; and rows with a
        missing group key (see ``by``).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule of the agreement metrics.
    delimiter : str, optional
        The CSV delimiter; default ``","`` (``"\\t"`` for ``.tsv``). Unused for Parquet.
    progress : bool or callable, default False
        ``True``: a progress bar on stderr while it is a terminal (rows for Parquet, bytes for
        CSV). A callable: called as ``progress(n_rows)`` after every batch with the rows of
        that batch.
    max_exact, n_grid : int
        The ranking table of the :class:`~ordmetrics.stream.Evaluator`.
    renormalize : bool, default False
        Rescale every probability row to sum 1 (by default each must sum to 1 within 1e-6).
    sum_tolerance : float, optional
        Accept the probability rows whose sums lie within this distance of 1 (e.g. 1e-5 for
        probabilities rounded to 6 decimals) and rescale them to sum 1; any other row is an
        error.

    Returns
    -------
    StreamResult or dict
        Without ``by``: the :class:`~ordmetrics.stream.StreamResult` (``values`` and
        ``bounds`` by metric display name). With ``by``: a dict from group key (the value of
        the ``by`` column, or a tuple of values for several columns) to its StreamResult,
        groups in order of first appearance.

    Raises
    ------
    ImportError
        If pyarrow is not installed.
    ValueError, TypeError
        For a file type that is not recognised, a column that is not in the file (with the
        columns that are), non-numeric probability or weight columns, and the errors of
        :meth:`~ordmetrics.stream.Evaluator.update`, with a note naming the rows of the batch.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import pandas as pd
    >>> import ordmetrics
    >>> from ordmetrics.files import evaluate_file
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet(np.ones(3), size=1000)
    >>> df = pd.DataFrame({"grade": rng.integers(0, 3, 1000), "p0": P[:, 0], "p1": P[:, 1],
    ...                    "p2": P[:, 2]})
    >>> path = os.path.join(tempfile.mkdtemp(), "predictions.parquet")
    >>> df.to_parquet(path)
    >>> result = evaluate_file(path, truth="grade", proba="p", metrics=["rps", "qwk"],
    ...                        batch_size=128)
    >>> expected = ordmetrics.evaluate(df, truth="grade", proba="p", metrics=["rps", "qwk"])
    >>> np.allclose(list(result.values.values()), expected["estimate"], rtol=1e-12)
    True
    >>> os.remove(path)
    """
    pa = _pyarrow()
    path = Path(path)
    kind = _kind(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer (rows); got {batch_size!r}.")
    if delimiter is not None and (
        not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in ('"', "\n", "\r")
    ):
        raise ValueError(
            f"delimiter must be one character, e.g. ';' or '\\t'; got {delimiter!r}. Pass "
            "None for the default (',', or a tab for .tsv files)."
        )
    renormalize = check_flag(renormalize, "renormalize")
    if sum_tolerance is not None and (
        isinstance(sum_tolerance, bool)
        or not isinstance(sum_tolerance, int | float | np.integer | np.floating)
        or not 0.0 <= float(sum_tolerance) < 1.0
    ):
        raise ValueError(
            "sum_tolerance must be None or a number in [0, 1), the largest distance of a row "
            f"sum from 1 that is accepted (e.g. 1e-5); got {sum_tolerance!r}."
        )
    if not (progress is True or progress is False or progress is None or callable(progress)):
        raise TypeError(
            f"progress must be True, False or a callable taking the rows of a batch; got "
            f"{type_name(progress)}."
        )
    source = _Source(pa, path, kind, delimiter)
    where = f"the file {path.name!r}"
    columns = source.columns
    truth_col = _column(truth, "truth", columns, where)
    proba_cols = _proba_columns(proba, columns, where)
    proba_cols = match_label_columns(
        proba_cols, labels, prefix=proba if isinstance(proba, str) else None
    )
    weight_col = (
        None if sample_weight is None else _column(sample_weight, "sample_weight", columns, where)
    )
    by_cols = _by_columns(by, columns, where)
    _check_roles(truth_col, proba_cols, weight_col, by_cols)
    numeric = proba_cols + ([] if weight_col is None else [weight_col])
    if kind == "parquet":
        _check_numeric(pa, source.schema, proba_cols, "proba", where)
        if weight_col is not None:
            _check_numeric(pa, source.schema, [weight_col], "sample_weight", where)
        types: dict[str, Any] = {}
    else:
        types = dict.fromkeys(numeric, pa.float64())
        truth_type = _csv_truth_type(pa, labels)
        if truth_type is not None:
            types[truth_col] = truth_type
    needed = list(dict.fromkeys([truth_col, *proba_cols, *numeric, *by_cols]))

    options = {
        "metrics": metrics,
        "nan_policy": nan_policy,
        "decision": decision,
        "max_exact": max_exact,
        "n_grid": n_grid,
    }
    first = Evaluator(labels=labels, **options)  # checks every option before reading
    evaluators: dict[Any, Evaluator] = {}
    if not by_cols:
        evaluators[None] = first
    file_labels = labels

    def describe(start: int, stop: int, key: Any) -> str:
        where = "" if key is _NO_GROUP else f" the rows of group {key!r} among"
        return (
            f"(in{where} rows {start}..{stop - 1} of {path.name}; the row numbers above count "
            f"from the first of those rows; y_true is column {truth_col!r}, y_proba columns "
            f"{proba_cols})"
        )

    with _ProgressHook(progress, source, path) as step:
        start = 0
        for batch in _read(source, needed, types, batch_size, path):
            n = batch.num_rows
            if n == 0:
                continue
            y, categories = _truth(pa, batch.column(truth_col))
            if file_labels is None and categories is not None:
                file_labels = categories
                first = Evaluator(labels=file_labels, **options)
                if not by_cols:
                    evaluators[None] = first
            P = np.empty((n, len(proba_cols)))
            for j, c in enumerate(proba_cols):
                P[:, j] = _numbers(pa, batch.column(c))
            w = None if weight_col is None else _numbers(pa, batch.column(weight_col))
            key: Any = _NO_GROUP
            try:
                P = fix_row_sums(P, renormalize=bool(renormalize), sum_tolerance=sum_tolerance)
                if by_cols:
                    keep = group_key_rows(  # rows counted as the note below counts them
                        by_cols, _missing_keys(pa, batch, by_cols), nan_policy
                    )
                    for key, rows in _groups(pa, batch, by_cols):
                        if keep is not None and not keep[rows[0]]:
                            continue  # omitted: a missing key (every row of the group has one)
                        ev = evaluators.get(key)
                        if ev is None:
                            ev = evaluators[key] = first._copy()
                        ev.update(y[rows], P[rows], None if w is None else w[rows])
                else:
                    first.update(y, P, w)
            except (ValueError, TypeError) as exc:
                note = getattr(exc, "add_note", None)
                if note is not None:
                    note(describe(start, start + n, key))
                raise
            start += n
            step(n)
    if by_cols:
        return {key: ev.compute() for key, ev in evaluators.items()}
    return evaluators[None].compute()


def _read(source: _Source, columns: list[str], types: dict, batch_size: int, path: Path) -> Any:
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
                    f"{_CSV_BLOCK_MAX >> 20} MiB, the largest block of the reader (a stray quote "
                    "can make the rest of a file one field). Check the file's quoting."
                ) from None
            raise ValueError(
                f"could not read {path.name!r}: {exc}. The probability and weight columns must "
                "hold numbers; a truth column of strings needs labels=[...]."
            ) from None
        yield batch


class _ProgressHook:
    """A context giving ``step(n_rows)``: a progress bar, a user's callable, or nothing."""

    def __init__(self, progress: Any, source: _Source, path: Path) -> None:
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
