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
import numbers
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ordmetrics._core.params import Interval, Options, validate_params
from ordmetrics._core.validation import NAN_POLICIES, type_name
from ordmetrics.evaluation.streaming import (
    DEFAULT_MAX_EXACT,
    DEFAULT_N_GRID,
    Evaluator,
    StreamResult,
)
from ordmetrics.io.file_batches import (
    FileSource,
    ProgressHook,
    batch_groups,
    csv_truth_type,
    float_column,
    import_pyarrow,
    missing_keys,
    read_batches,
    truth_column,
)
from ordmetrics.io.frame_columns import group_key_rows
from ordmetrics.io.sources import CSV_SUFFIXES, PARQUET_SUFFIXES, check_stored_order, file_kind
from ordmetrics.io.table_columns import fix_row_sums, match_label_columns

__all__ = ["CSV_SUFFIXES", "PARQUET_SUFFIXES", "evaluate_file"]

_NO_GROUP = object()


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
# The front
# --------------------------------------------------------------------------------------------


@validate_params(
    {
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "nan_policy": [Options(NAN_POLICIES)],
        "renormalize": ["boolean"],
        "sum_tolerance": [
            None,
            Interval(
                numbers.Real,
                0,
                1,
                closed="left",
                description="a number in [0, 1), the largest distance of a row sum from 1 that "
                "is accepted",
            ),
        ],
        "progress": ["boolean", "callable", None],
    },
    hints={
        "batch_size": "Pass the rows of a batch, e.g. batch_size=65536.",
        "sum_tolerance": "Pass e.g. sum_tolerance=1e-5.",
        "progress": "Pass progress=True for a progress bar.",
    },
    descriptions={
        "batch_size": "a positive integer (rows)",
        "progress": "True, False or a callable taking the rows of a batch",
    },
)
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
        prefix, which takes every column whose name starts with it, paired with the classes
        by name (:func:`ordmetrics.io.table_columns.match_label_columns`): columns numbered
        ``0..K-1`` or ``1..K`` in the order of their numbers, columns named after the classes
        (``p_mild`` for the label ``mild``, ``p_very_good`` for ``"Very Good"``: compared
        after casefolding and dropping every character that is not a letter or digit) in the
        order of ``labels``; names that do not match the labels one-to-one, or a list naming
        them in another order, raise a ValueError. The file's order is never used.
    metrics : list or MetricSet, optional
        As in :func:`ordmetrics.evaluate`; default :data:`~ordmetrics.DEFAULT_METRICS`.
        Calibration metrics must use uniform bins (see :class:`~ordmetrics.stream.Evaluator`).
    labels : sequence, optional
        The class labels in ordinal order; needed for string truth, unless the truth column
        is an ordered dictionary, whose stored order they must then repeat (a ValueError
        otherwise). A CSV field that is one of them is that class, never a missing value.
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
        Rows with a missing value (a null or NaN in the truth, probability or weight columns;
        in a CSV file, a field that is one of the null markers
        :data:`~ordmetrics.io.sources.NULL_VALUES`, the empty field, ``NA``, ``NaN``,
        ``null``, ``None``, ..., and not one of ``labels``): raise an error, drop them, or give
        NaN for every metric; and rows with a missing group key (see ``by``).
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
        Rescale every probability row to sum 1 (by default each must sum to 1 within
        max(1e-6, K x 5e-7), which accepts probabilities rounded to 6 decimals).
    sum_tolerance : float, optional
        Accept the probability rows whose sums lie within this distance of 1 (e.g. 1e-4 for
        probabilities rounded to 5 decimals) and rescale them to sum 1; any other row is an
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
        For an option out of range or of the wrong type (``batch_size``, ``renormalize``,
        ``sum_tolerance``, ``progress``, ``nan_policy``: checked before anything is read), a
        file type that is not recognised, a column that is not in the file (with the columns
        that are), a column name that the file repeats, non-numeric probability or weight
        columns, ``labels`` that disagree with the order an ordered dictionary truth column
        stores, an empty string among the ``labels`` of a CSV file, and the errors of
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
    pa = import_pyarrow()
    path = Path(path)
    kind = file_kind(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if delimiter is not None and (
        not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in ('"', "\n", "\r")
    ):
        raise ValueError(
            f"delimiter must be one character, e.g. ';' or '\\t'; got {delimiter!r}. Pass "
            "None for the default (',', or a tab for .tsv files)."
        )
    source = FileSource(pa, path, kind, delimiter, labels)
    where = f"the file {path.name!r}"
    columns = source.columns
    truth_col = _column(truth, "truth", columns, where)
    proba_cols = _proba_columns(proba, columns, where)
    weight_col = (
        None if sample_weight is None else _column(sample_weight, "sample_weight", columns, where)
    )
    by_cols = _by_columns(by, columns, where)
    _check_roles(truth_col, proba_cols, weight_col, by_cols)
    prefix = proba if isinstance(proba, str) else None
    # without labels a Parquet truth column may store the classes: the names are paired with
    # them once the first batch is read (never with the file's order)
    paired = labels is not None or kind != "parquet"
    if paired:
        proba_cols = match_label_columns(proba_cols, labels, prefix=prefix)
    numeric = proba_cols + ([] if weight_col is None else [weight_col])
    if kind == "parquet":
        _check_numeric(pa, source.schema, proba_cols, "proba", where)
        if weight_col is not None:
            _check_numeric(pa, source.schema, [weight_col], "sample_weight", where)
        types: dict[str, Any] = {}
    else:
        types = dict.fromkeys(numeric, pa.float64())
        truth_type = csv_truth_type(pa, labels)
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

    with ProgressHook(progress, source, path) as step:
        start = 0
        for batch in read_batches(source, needed, types, batch_size, path):
            n = batch.num_rows
            if n == 0:
                continue
            y, categories = truth_column(pa, batch.column(truth_col))
            if labels is not None and categories is not None:  # the file's order, or an error
                check_stored_order(categories, list(labels), truth_col, repr(path.name))
            if not paired:  # the stored classes (or, without them, 0..K-1) name the columns
                proba_cols = match_label_columns(proba_cols, categories, prefix=prefix)
                paired = True
            if file_labels is None and categories is not None:
                file_labels = categories
                first = Evaluator(labels=file_labels, **options)
                if not by_cols:
                    evaluators[None] = first
            P = np.empty((n, len(proba_cols)))
            for j, c in enumerate(proba_cols):
                P[:, j] = float_column(pa, batch.column(c))
            w = None if weight_col is None else float_column(pa, batch.column(weight_col))
            key: Any = _NO_GROUP
            try:
                P = fix_row_sums(P, renormalize=bool(renormalize), sum_tolerance=sum_tolerance)
                if by_cols:
                    keep = group_key_rows(  # rows counted as the note below counts them
                        by_cols, missing_keys(pa, batch, by_cols), nan_policy
                    )
                    for key, rows in batch_groups(pa, batch, by_cols):
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
