"""The input of the ``ordmetrics`` subcommands: the file, its columns and labels, and the checks of
the options (before anything is read where possible).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ordmetrics.io.readers import (
    STDIN,
    InputError,
    check_numeric,
    fix_row_sums,
    match_label_columns,
    parse_delimiter,
    read_table,
    resolve_columns,
    stored_order,
)

# --------------------------------------------------------------------------------------------
# The input of `evaluate` and `report`
# --------------------------------------------------------------------------------------------


def _split(text: str | None, option: str) -> list[str]:
    """A comma-separated option as a list of names (whitespace around each removed)."""
    if text is None:
        return []
    items = [t.strip() for t in text.split(",")]
    if any(not t for t in items):
        raise InputError(
            f"{option} has an empty name in {text!r}; separate names by single commas."
        )
    return items


@dataclass
class _Input:
    """What `evaluate` and `report` read from a file and its options."""

    table: Any
    source: str
    truth: str
    proba: list[str]
    by: list[str]
    weight: str | None
    labels: list[Any] | None
    metrics: list[str] | None


def _labels(text: str | None, table: Any, truth: str, proba: list[str]) -> list[Any] | None:
    """``--labels`` in the type of the truth column; or an error when string truth has none."""
    import narwhals.stable.v2 as nw

    from ordmetrics.io.delimited import (
        ColumnTable,
        labels_option,
    )

    if isinstance(table, ColumnTable):  # read without a data-frame library
        return labels_option(text, table, truth, proba, _split)
    stored = stored_order(table, truth, _split(text, "--labels"), proba)
    if stored is not None:  # an ordered dictionary (Parquet) stores the order of the classes
        return stored
    column = nw.from_native(table, eager_only=True)[truth]
    dtype = column.dtype
    if text is None:
        if dtype.is_numeric():
            return None
        seen = column.drop_nulls().unique(maintain_order=True).head(4).to_list()
        shown = ", ".join(repr(v) for v in seen[:3]) + (", ..." if len(seen) > 3 else "")
        raise InputError(
            f"truth column {truth!r} holds class names ({shown}); give their ordinal order "
            f"with --labels A,B,..., one per probability column ({len(proba)}: "
            f"{', '.join(proba)})."
        )
    names = _split(text, "--labels")
    if len(names) != len(proba):
        raise InputError(
            f"--labels lists {len(names)} classes but there are {len(proba)} probability "
            f"columns ({', '.join(proba)}); give one label per column, in the same order."
        )
    if dtype == nw.Boolean:
        flags = {"true": True, "false": False}
        if any(v.lower() not in flags for v in names) or len({v.lower() for v in names}) < 2:
            raise InputError(
                f"truth column {truth!r} holds True/False, so --labels must be False,True (or "
                f"True,False), in their ordinal order; got {text!r}."
            )
        return [flags[v.lower()] for v in names]
    if dtype.is_integer():
        cast: Any = int
    elif dtype.is_float():
        cast = float
    else:
        return names
    try:
        return [cast(v) for v in names]
    except ValueError:
        raise InputError(
            f"truth column {truth!r} holds numbers, so --labels must be numbers too; got {text!r}."
        ) from None


def _check_numbers(args: argparse.Namespace) -> None:
    if args.bootstrap < 0 or args.bootstrap == 1:
        raise InputError(
            f"--bootstrap must be 0 (no intervals) or at least 2 resamples; got {args.bootstrap}."
        )
    if args.bootstrap > 0:  # the most resamples the core accepts, checked before reading
        from ordmetrics.evaluation import resampling

        most = getattr(resampling, "MAX_RESAMPLES", None)
        if most is not None and args.bootstrap > most:
            raise InputError(
                f"--bootstrap must be at most {most:,} resamples; got {args.bootstrap:,}. Use "
                "1000 to 100,000 resamples."
            )
    if args.seed < 0:
        raise InputError(f"--seed must be a non-negative integer; got {args.seed}.")
    if not 0.0 < args.confidence < 1.0:
        level = args.confidence
        hint = " Pass a fraction, e.g. 0.95 for 95% intervals."
        if 50.0 <= level < 100.0:  # a percentage
            hint = f" Pass a fraction, e.g. {level / 100:g} for {level:g}%."
        raise InputError(f"--confidence must lie strictly between 0 and 1; got {level:g}.{hint}")
    if getattr(args, "stream", False) and args.bootstrap > 0:
        raise InputError(
            "--stream reads the file in batches and computes no bootstrap intervals (they "
            "resample the rows, which needs them all in memory); drop --stream to get "
            f"intervals from --bootstrap {args.bootstrap}, or drop --bootstrap."
        )
    tol = getattr(args, "sum_tolerance", None)
    if tol is not None and not (0.0 <= tol < 1.0):
        raise InputError(
            f"--sum-tolerance must be a number in [0, 1), the largest distance of a row sum "
            f"from 1 that is accepted (e.g. 1e-5); got {tol:g}."
        )


def _check_out(path: str, what: str = "the report") -> Path:
    """The output's path; its directory must exist (checked before the work, not after)."""
    out = Path(path)
    if not out.parent.is_dir():
        raise InputError(
            f"cannot write {what} to {path!r}: the directory {str(out.parent)!r} does not exist."
        )
    if out.is_dir():
        raise InputError(f"cannot write {what} to {path!r}: it is a directory.")
    existed = out.exists()
    try:  # open for appending, which changes nothing, to see that it can be written
        with out.open("ab"):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot write {what} to {path!r}: {exc.strerror or exc}; choose a writable "
            "path with --out."
        ) from None
    if not existed:
        out.unlink()
    return out


def _read_input(args: argparse.Namespace, head: bool = False) -> _Input:
    """Read and check the file (``head``: only its first rows, to check columns and labels)."""
    _check_numbers(args)
    delimiter = parse_delimiter(args.delimiter)
    source = "standard input" if args.file == STDIN else str(args.file)
    table = read_table(
        args.file, delimiter=delimiter, head=head, labels=_split(args.labels, "--labels")
    )
    by = _split(args.by, "--by")
    proba = resolve_columns(
        table,
        source,
        truth=args.truth,
        proba=_split(args.proba, "--proba") if args.proba is not None else None,
        proba_prefix=args.proba_prefix,
        by=by,
        weight=args.weight,
        delimiter=delimiter,
    )
    check_numeric(table, proba, "probability", source)
    if args.weight is not None:
        check_numeric(table, [args.weight], "weight", source)
    labels = _labels(args.labels, table, args.truth, proba)
    try:
        proba = match_label_columns(
            proba, labels, prefix=args.proba_prefix, proba_arg="--proba", labels_arg="--labels"
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if not head:
        table = _fix_rows(table, proba, args)
    metrics = _split(args.metrics, "--metrics") or None
    return _Input(table, source, args.truth, proba, by, args.weight, labels, metrics)


#: The options of the row sums, as the messages of fix_row_sums name them.
_ROW_OPTIONS = ("--renormalize", "--sum-tolerance")


def _fix_rows(table: Any, proba: list[str], args: argparse.Namespace) -> Any:
    """The table with its probability rows rescaled to sum 1 (``--renormalize``,
    ``--sum-tolerance``); the table itself without those options."""
    import numpy as np

    renormalize, tol = args.renormalize, args.sum_tolerance
    if not renormalize and tol is None:
        return table
    if isinstance(table, Mapping):  # a table of NumPy columns, read without a frame library
        P = np.column_stack([np.asarray(table[c], dtype=np.float64) for c in proba])
        fixed = fix_row_sums(P, renormalize=renormalize, sum_tolerance=tol, options=_ROW_OPTIONS)
        columns = dict(table)
        columns.update({c: fixed[:, j] for j, c in enumerate(proba)})
        make: Any = type(table)
        return make(columns)
    import narwhals.stable.v2 as nw

    frame = nw.from_native(table, eager_only=True)
    P = np.column_stack([frame[c].cast(nw.Float64).to_numpy() for c in proba]).astype(np.float64)
    fixed = fix_row_sums(P, renormalize=renormalize, sum_tolerance=tol, options=_ROW_OPTIONS)
    series = [
        nw.new_series(c, fixed[:, j], nw.Float64(), backend=frame.implementation)
        for j, c in enumerate(proba)
    ]
    return frame.with_columns(*series).to_native()


def _options(inp: _Input, args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of metric_table / build_report."""
    return {
        "truth": inp.truth,
        "proba": inp.proba,
        "metrics": inp.metrics,
        "by": inp.by or None,
        "labels": inp.labels,
        "sample_weight": inp.weight,
        "nan_policy": args.nan_policy,
        "decision": args.decision,
        "confidence_level": args.confidence,
        "random_state": args.seed,
    }
