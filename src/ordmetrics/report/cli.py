"""The ``ordmetrics`` command line.

Subcommands:

* ``ordmetrics evaluate FILE --truth COL --proba COL,COL,...``: the metrics of the predictions
  in a CSV or Parquet file, optionally per group and with bootstrap intervals, as a table, JSON
  or CSV.
* ``ordmetrics compare FILE --truth COL --models hgb_,logit_``: the metrics of two or more
  models whose probability columns sit side by side in one file (given as column prefixes, or
  as column lists with a repeated ``--model [NAME=]COL,COL,...``), each with a bootstrap
  interval, and the paired bootstrap difference of every metric between each model and the
  baseline (or every pair): interval, two-sided p-value and the better model.
* ``ordmetrics report FILE ... --out report.html``: the same metrics with bootstrap intervals
  and the figures (retention curves, reliability diagrams, confusion matrix) and worst
  predictions, in one self-contained HTML file.
* ``ordmetrics demo``: evaluate the bundled example (diamonds ``cut`` grades, out-of-fold
  predictions of two models), print the table of both models and write a report.
* ``ordmetrics list``: the registered metrics with their direction, range and properties.
* ``ordmetrics index``: the same as a Markdown table (``docs/metrics.md``).

FILE ``-`` reads standard input (whole, into memory). On a terminal, stderr shows a progress bar
of the bootstrap resamples with the time left, and a one-line notice when the kernels compile
(the first run); neither appears in a pipe or a file, nor ever on stdout.

Exit codes: 0 on success, 2 on bad input (one line ``ordmetrics: error: ...`` on stderr, no
traceback). Any other failure is a bug and shows its traceback.

The commands are a thin front: the numbers come from :func:`ordmetrics.evaluate` and
:func:`ordmetrics.bootstrap` (through :func:`ordmetrics.report.html.metric_table`), the report from
:mod:`ordmetrics.report.html`.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ordmetrics import __version__
from ordmetrics._core.progress import clear as clear_progress
from ordmetrics._core.progress import notice
from ordmetrics._core.registry import (
    PROPERTY_NAMES,
    get_metric,
    list_metrics,
)
from ordmetrics.io.readers import (
    STDIN,
    InputError,
    MissingDependencyError,
    check_numeric,
    fix_row_sums,
    match_label_columns,
    parse_delimiter,
    read_table,
    resolve_columns,
)

#: Output formats of ``ordmetrics evaluate``.
FORMATS = ("table", "json", "csv")

_NAN_POLICIES = ("raise", "omit", "propagate")
_RULES = ("argmax", "median", "expected", "min_cost")
_DEMO_REPORT = "ordmetrics-demo-report.html"


# --------------------------------------------------------------------------------------------
# Text tables
# --------------------------------------------------------------------------------------------


def _fmt_range(lo: float, hi: float) -> str:
    def f(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:g}"

    return f"[{f(lo)}, {f(hi)}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _yes(flag: bool) -> str:
    return "yes" if flag else "-"


def _fixed(value: float | None, digits: int = 6) -> str:
    """A number with fixed decimals (``nan``, ``inf``; empty for None)."""
    if value is None:
        return ""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _text(value: Any) -> str:
    """A group value in a text table (``null`` for a missing value)."""
    if value is None:
        return "null"
    return repr(value) if isinstance(value, float) else str(value)


# --------------------------------------------------------------------------------------------
# Output formats of `evaluate`
# --------------------------------------------------------------------------------------------


def format_table(records: Sequence[dict[str, Any]], by: Sequence[str], intervals: bool) -> str:
    """The metric records as an aligned text table.

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.
    intervals : bool
        Whether to show the ``low`` and ``high`` columns.

    Returns
    -------
    str
        Columns: the group columns, ``metric``, ``estimate``, ``direction`` and, with
        ``intervals``, ``low`` and ``high``; numbers with 6 decimals, a missing group value
        as ``null``.
    """
    header = [*by, "metric", "estimate", "direction"]
    if intervals:
        header += ["low", "high"]
    rows = []
    for r in records:
        row = [_text(r[c]) for c in by]
        row += [r["metric"], _fixed(r["estimate"]), r["direction"]]
        if intervals:
            row += [_fixed(r["low"]), _fixed(r["high"])]
        rows.append(row)
    right = {len(by) + 1, *((len(by) + 3, len(by) + 4) if intervals else ())}
    return _table(header, rows, right)


def _json_number(value: float | None) -> float | str | None:
    """A number for JSON: finite as is, infinite as the string ``"inf"`` / ``"-inf"``, and
    NaN (undefined) or missing as ``null``."""
    if value is None or math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _csv_number(value: float | None) -> str:
    """A number for CSV: full precision, ``inf`` / ``-inf``, ``nan`` (undefined), and an
    empty field when missing (no interval)."""
    return "" if value is None else repr(float(value))


def _group_value(value: Any) -> Any:
    """A group value for JSON and CSV: None for a missing value (None, NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def format_json(records: Sequence[dict[str, Any]], by: Sequence[str]) -> str:
    """The metric records as a JSON list of objects (see :func:`format_table`).

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        The JSON text, indented. Keys: the group columns, ``metric``, ``estimate``,
        ``direction``, ``low``, ``high``. JSON has no NaN or infinity: an infinite number is
        the string ``"inf"`` or ``"-inf"`` (e.g. the log loss of a zero probability on the true
        class), an undefined number (NaN), a missing interval and a missing group value are
        ``null``; a group value of a type JSON lacks (a date) is its text.
    """
    out = []
    for r in records:
        rec: dict[str, Any] = {c: _group_value(r[c]) for c in by}
        rec["metric"] = r["metric"]
        rec["estimate"] = _json_number(r["estimate"])
        rec["direction"] = r["direction"]
        rec["low"] = _json_number(r["low"])
        rec["high"] = _json_number(r["high"])
        out.append(rec)
    # default=str: group values JSON has no type for (dates, decimals) as their text
    return json.dumps(out, indent=2, allow_nan=False, default=str)


def format_csv(records: Sequence[dict[str, Any]], by: Sequence[str]) -> str:
    """The metric records as CSV, the columns of :func:`format_json`.

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        A header line and one line per record, without a final newline. Numbers are written
        in full precision; an infinite number is ``inf`` or ``-inf``, an undefined one (NaN)
        ``nan``, and a missing value (no interval, a missing group value) an empty field.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*by, "metric", "estimate", "direction", "low", "high"])
    for r in records:
        writer.writerow(
            [
                *("" if _group_value(r[c]) is None else r[c] for c in by),
                r["metric"],
                _csv_number(r["estimate"]),
                r["direction"],
                _csv_number(r["low"]),
                _csv_number(r["high"]),
            ]
        )
    return buf.getvalue().rstrip("\n")


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
    table = read_table(args.file, delimiter=delimiter, head=head)
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


# --------------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    """``ordmetrics list``: print the registered metrics and their properties."""
    try:
        names = list_metrics(args.kind)
    except ValueError:
        kinds = list(dict.fromkeys(get_metric(n).kind for n in list_metrics()))
        raise InputError(
            f"--kind must be one of {', '.join(kinds)}; got {args.kind!r}. Leave --kind out to "
            "list every metric."
        ) from None
    rows = []
    for name in names:
        spec = get_metric(name)
        props = [_yes(spec.properties.get(p, False)) for p in PROPERTY_NAMES]
        row = [name, spec.kind, spec.direction, spec.estimator, _fmt_range(*spec.range)]
        rows.append([*row, *props])
    header = ["metric", "kind", "direction", "estimator", "range", *PROPERTY_NAMES]
    print(_table(header, rows, right=set()))
    return 0


#: Files larger than this are read in batches (constant memory) when no bootstrap is asked.
STREAM_ABOVE_BYTES = 1 << 30


def _stream_records(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[str]]:
    """The metric records of a file read in batches by :func:`ordmetrics.files.evaluate_file`.

    The columns and labels are checked on the first rows with the same helpers as the
    in-memory path; then the whole file streams through fixed-size accumulators.
    """
    from ordmetrics.io.files import evaluate_file

    inp = _read_input(args, head=True)
    result: Any = evaluate_file(
        args.file,
        truth=inp.truth,
        proba=inp.proba,
        metrics=inp.metrics,
        labels=inp.labels,
        sample_weight=inp.weight,
        by=inp.by or None,
        nan_policy=args.nan_policy,
        decision=args.decision,
        delimiter=parse_delimiter(args.delimiter),
        progress=True,
        renormalize=args.renormalize,
        sum_tolerance=args.sum_tolerance,
    )
    groups = result.items() if inp.by else [((), result)]
    records = []
    for key, res in groups:
        keys = key if isinstance(key, tuple) else (key,)
        for name, value in res.values.items():
            rec: dict[str, Any] = dict(zip(inp.by, keys, strict=True))
            rec.update(metric=name, estimate=float(value), direction=res.directions[name])
            rec.update(low=None, high=None)
            records.append(rec)
    return records, inp.by


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``ordmetrics evaluate``: print the metric table of a file (table, JSON or CSV)."""
    from ordmetrics.io.delimited import (
        metric_table,  # a data frame's, or a table read without a frame library
    )

    big = Path(args.file).is_file() and Path(args.file).stat().st_size > STREAM_ABOVE_BYTES
    big = big and importlib.util.find_spec("pyarrow") is not None  # streaming reads with pyarrow
    if args.stream and args.file == STDIN:
        raise InputError(
            "--stream reads a file in batches, but FILE is - (standard input), which is read "
            "whole into memory; drop --stream, or give the file's path to stream it."
        )
    if args.stream and importlib.util.find_spec("pyarrow") is None:
        raise MissingDependencyError(
            "--stream reads the file in batches with pyarrow, which is not installed; install "
            "it with `pip install ordmetrics[parquet]`, or leave out --stream."
        )
    if args.bootstrap == 0 and (args.stream or big):
        records, by = _stream_records(args)
        inp_by = by
    else:
        inp = _read_input(args)
        records = metric_table(inp.table, n_resamples=args.bootstrap, **_options(inp, args))
        inp_by = inp.by
    if args.format == "json":
        print(format_json(records, inp_by))
    elif args.format == "csv":
        print(format_csv(records, inp_by))
    else:
        print(format_table(records, inp_by, intervals=args.bootstrap > 0))
        if args.bootstrap > 0:
            print(
                f"\nlow, high: {args.confidence:.0%} bootstrap percentile interval, "
                f"{args.bootstrap} resamples (seed {args.seed})."
            )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``ordmetrics report``: write the HTML report of a file."""
    from ordmetrics.report.html import (
        require_matplotlib,
        write_report,
    )

    require_matplotlib()
    if not any(importlib.util.find_spec(b) for b in ("pyarrow", "pandas", "polars")):
        raise MissingDependencyError(
            "ordmetrics report needs a data-frame library (pyarrow, pandas or polars) and none "
            "is installed; install pyarrow with `pip install ordmetrics[parquet]`."
        )
    out = _check_out(args.out)
    if args.models is None:
        inp = _read_input(args)
        proba: Any = inp.proba
    else:
        inp, proba = _report_models(args)
    path = write_report(
        out,
        inp.table,
        n_resamples=args.bootstrap,
        title=args.title,
        source=inp.source,
        **{**_options(inp, args), "proba": proba},
    )
    print(f"Report written to {path}")
    return 0


def _report_models(args: argparse.Namespace) -> tuple[_Input, dict[str, list[str]]]:
    """``report --models``: the file and every model's probability columns (name: columns)."""
    if len(_split(args.models, "--models")) < 2:
        raise InputError(
            f"--models needs two or more column prefixes (e.g. --models hgb_,logit_); got "
            f"{args.models!r}. For one model use --proba-prefix."
        )
    _check_numbers(args)
    delimiter = parse_delimiter(args.delimiter)
    source = "standard input" if args.file == STDIN else str(args.file)
    table = read_table(args.file, delimiter=delimiter)
    models = _resolve_models(table, args, source)
    if args.weight is not None:
        check_numeric(table, [args.weight], "weight", source)
    labels = _labels(args.labels, table, args.truth, models[0].columns)
    proba: dict[str, list[str]] = {}
    for m in models:
        try:
            columns = match_label_columns(
                m.columns, labels, prefix=m.prefix, proba_arg="--models", labels_arg="--labels"
            )
        except ValueError as exc:
            raise InputError(f"model {m.name!r}: {exc}") from None
        table = _fix_rows(table, columns, args)
        proba[m.name] = columns
    metrics = _split(args.metrics, "--metrics") or None
    by = _split(args.by, "--by")
    first = next(iter(proba.values()))
    return _Input(table, source, args.truth, first, by, args.weight, labels, metrics), proba


# --------------------------------------------------------------------------------------------
# `compare`: several models on the same rows
# --------------------------------------------------------------------------------------------


@dataclass
class _Model:
    """One model of `compare`: its name, probability columns and probability matrix."""

    name: str
    columns: list[str]
    prefix: str | None
    P: Any = None


def _model_specs(args: argparse.Namespace) -> list[tuple[str | None, str | None, list[str]]]:
    """``(name, prefix, columns)`` of every model given (``columns`` empty for a prefix)."""
    specs: list[tuple[str | None, str | None, list[str]]] = []
    if args.models is not None:
        for item in _split(args.models, "--models"):
            name, sep, prefix = item.partition("=")
            if not sep:
                name, prefix = "", item
            if sep and (not name.strip() or not prefix.strip()):
                raise InputError(
                    f"--models item {item!r} must be PREFIX or NAME=PREFIX (e.g. hgb=hgb_)."
                )
            specs.append((name.strip() or None, prefix.strip(), []))
    for item in args.model or []:
        name, sep, cols = item.partition("=")
        if not sep:
            name, cols = "", item
        if sep and not name.strip():
            raise InputError(
                f"--model {item!r} has an empty NAME; write NAME=COL,COL,... (e.g. "
                "hgb=hgb_Fair,hgb_Good,...) or just COL,COL,..."
            )
        specs.append((name.strip() or None, None, _split(cols, "--model")))
    return specs


def _prefix_name(prefix: str) -> str:
    """A model's name from its column prefix: ``hgb_`` -> ``hgb`` (a final _ . - : or space
    removed)."""
    name = prefix.rstrip("_.-: ")
    return name or prefix


def _resolve_models(table: Any, args: argparse.Namespace, source: str) -> list[_Model]:
    """The models' columns, checked: existing, numeric, disjoint, the same number each."""
    specs = _model_specs(args)
    if len(specs) < 2:
        got = "one model" if specs else "no model"
        raise InputError(
            f"compare needs two or more models; got {got}. Give them as column prefixes "
            "(--models hgb_,logit_) or as column lists (--model hgb_0,hgb_1,hgb_2 --model "
            "logit_0,logit_1,logit_2)."
        )
    models: list[_Model] = []
    delimiter = parse_delimiter(args.delimiter)
    for k, (name, prefix, cols) in enumerate(specs, start=1):
        try:
            chosen = resolve_columns(
                table,
                source,
                truth=args.truth,
                proba=cols if prefix is None else None,
                proba_prefix=prefix,
                weight=args.weight,
                delimiter=delimiter,
            )
        except InputError as exc:
            text = str(exc).replace("--proba-prefix", "--models prefix")
            text = text.replace("--proba column", "--model column").replace(
                "--proba has", "--model has"
            )
            raise InputError(text) from None
        if prefix is not None:
            label = name or _prefix_name(prefix)
        else:
            label = name or f"model{k}"
        models.append(_Model(label, chosen, prefix))
    names = [m.name for m in models]
    twice = sorted({n for i, n in enumerate(names) if n in names[:i]})
    if twice:
        raise InputError(
            f"two models are named {twice[0]!r}; name them apart with NAME=... (e.g. --models "
            "a=p_,b=q_ or --model a=COL,COL,...)."
        )
    sizes = {m.name: len(m.columns) for m in models}
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{n}: {k}" for n, k in sizes.items())
        raise InputError(
            f"the models have different numbers of probability columns ({shown}); every model "
            "must give one column per class, the same classes in the same order."
        )
    owner: dict[str, str] = {}
    for m in models:
        for c in m.columns:
            if c in owner:
                raise InputError(
                    f"column {c!r} belongs to both model {owner[c]!r} and model {m.name!r}; "
                    "every model needs its own probability columns (use longer prefixes, e.g. "
                    "hgb_ and hgb2_, or --model with explicit columns)."
                )
            owner[c] = m.name
        for role, col in (("--truth", args.truth), ("--weight", args.weight)):
            if col is not None and col in m.columns:
                raise InputError(
                    f"the {role} column {col!r} is also a probability column of model "
                    f"{m.name!r}; choose prefixes or columns that leave it out."
                )
        check_numeric(table, m.columns, "probability", source)
    if args.baseline is not None and args.baseline not in names:
        raise InputError(
            f"--baseline {args.baseline!r} is not one of the models ({', '.join(names)})."
        )
    return models


def _numpy_column(table: Any, name: str) -> Any:
    """A column as a NumPy array (a missing value None, or NaN in a float column)."""
    import numpy as np

    if isinstance(table, Mapping):  # a table read without a data-frame library
        return np.asarray(table[name])
    import narwhals.stable.v2 as nw

    return nw.from_native(table, eager_only=True)[name].to_numpy()


def _missing(values: Any) -> Any:
    """Rows of a column or matrix with a missing value (None, NaN)."""
    import numpy as np

    from ordmetrics._core.validation import object_missing

    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        return np.isnan(arr).any(axis=1) if arr.ndim == 2 else np.isnan(arr)
    if arr.dtype.kind == "O":
        return object_missing(arr)
    return np.zeros(arr.shape[0], dtype=bool)


@dataclass
class _Compared:
    """The inputs of `compare`: the rows every model is evaluated on."""

    y: Any
    weight: Any
    labels: list[Any] | None
    agreement_labels: list[Any] | None
    models: list[_Model]
    n_rows: int
    n_left_out: int


def _compare_input(args: argparse.Namespace) -> tuple[_Compared, str]:
    """Read the file, the models' columns and the rows they are all evaluated on."""
    import numpy as np

    _check_numbers(args)
    if args.bootstrap < 2:
        raise InputError(
            f"compare needs --bootstrap of at least 2 resamples (default 1000) for the "
            f"intervals and p-values of the differences; got {args.bootstrap}."
        )
    delimiter = parse_delimiter(args.delimiter)
    source = "standard input" if args.file == STDIN else str(args.file)
    table = read_table(args.file, delimiter=delimiter)
    models = _resolve_models(table, args, source)
    if args.weight is not None:
        check_numeric(table, [args.weight], "weight", source)
    labels = _labels(args.labels, table, args.truth, models[0].columns)
    for m in models:
        try:
            m.columns = match_label_columns(
                m.columns, labels, prefix=m.prefix, proba_arg="--model", labels_arg="--labels"
            )
        except ValueError as exc:
            raise InputError(f"model {m.name!r}: {exc}") from None
    y = _numpy_column(table, args.truth)
    weight = None
    if args.weight is not None:
        weight = np.asarray(_numpy_column(table, args.weight), dtype=np.float64)
    for m in models:
        m.P = np.column_stack(
            [np.asarray(_numpy_column(table, c), dtype=np.float64) for c in m.columns]
        )
    n = int(y.shape[0])
    # the union of the missing values of the truth, the weights and every model
    where: list[tuple[str, Any]] = [(args.truth, _missing(y))]
    if weight is not None:
        where.append((args.weight, np.isnan(weight)))
    for m in models:
        where.extend((c, np.isnan(m.P[:, j])) for j, c in enumerate(m.columns))
    missing = np.zeros(n, dtype=bool)
    for _, rows in where:
        missing |= rows
    n_left_out = 0
    if missing.any() and args.nan_policy == "raise":
        row = int(np.flatnonzero(missing)[0])
        column = next(c for c, rows in where if rows[row])
        raise InputError(
            f"row {row} (counted from 0 after the header) has a missing value in column "
            f"{column!r}; pass --nan-policy omit to leave out every row with a missing value "
            "in the truth, the weights or any model (the same rows for all models), or "
            "--nan-policy propagate for NaN results."
        )
    if missing.any() and args.nan_policy == "omit":
        keep = ~missing
        if not keep.any():
            raise InputError(
                "every row has a missing value in the truth, the weights or some model, so "
                "--nan-policy omit leaves no row to compare."
            )
        n_left_out = int(missing.sum())
        y = y[keep]
        weight = None if weight is None else weight[keep]
        for m in models:
            m.P = m.P[keep]
        if y.dtype.kind == "f" and labels is None and np.all(y == np.round(y)):
            y = y.astype(np.int64)  # integer classes read as floats because of a gap
    if y.dtype == object and not any(v is None for v in y.tolist()):
        y = y.astype(str)
    for m in models:
        if args.renormalize or args.sum_tolerance is not None:
            try:
                m.P = fix_row_sums(
                    m.P,
                    renormalize=args.renormalize,
                    sum_tolerance=args.sum_tolerance,
                    options=_ROW_OPTIONS,
                )
            except ValueError as exc:
                raise InputError(f"model {m.name!r}: {exc}") from None
    agreement = labels
    if labels is None and y.dtype.kind in "iuf":
        agreement = list(range(len(models[0].columns)))
    data = _Compared(y, weight, labels, agreement, models, int(y.shape[0]), n_left_out)
    return data, source


def _pairs(names: list[str], baseline: str | None, how: str) -> list[tuple[str, str]]:
    """``(model, reference)`` pairs: every model against the baseline, or every pair."""
    if how == "all":
        return [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    base = baseline if baseline is not None else names[0]
    return [(n, base) for n in names if n != base]


def _paired(
    entry: Any, kwargs: Mapping[str, Any], a: Any, b: Any, confidence: float
) -> dict[str, Any]:
    """The paired comparison a - b of :func:`ordmetrics.compare` from the bootstrap results of
    both sides.

    Both were drawn with the same seed on the same rows, so they hold the same resamples, and
    the resampled differences ``a.distribution - b.distribution`` are exactly those of
    ``compare(metric, y, a, b)`` (see its Notes); the interval, p-value and better side are
    computed from them as ``compare`` does (its percentile interval, its p-value
    ``min(1, 2 (1 + min(#d <= 0, #d >= 0)) / (B + 1))``), at half the cost of resampling both
    sides again. The tests check the records against ``compare``.
    """
    import numpy as np

    from ordmetrics.evaluation import resampling

    difference = float(a.estimate) - float(b.estimate)
    what = f"the difference of {a.metric}"
    valid = resampling._valid(a.distribution - b.distribution, what)
    low, high = resampling._interval(valid, difference, "percentile", confidence, None, what)
    if valid.size:
        extreme = min(np.count_nonzero(valid <= 0), np.count_nonzero(valid >= 0))
        p_value = float(min(1.0, 2.0 * (1 + extreme) / (valid.size + 1)))
    else:
        p_value = math.nan
    direction = resampling._direction(resampling._resolve_metric(entry.metric), kwargs)
    better = None
    if direction is not None and (low > 0.0 or high < 0.0):
        better = "a" if (low > 0.0) == (direction == "maximize") else "b"
    return {
        "difference": difference,
        "low": float(low),
        "high": float(high),
        "p_value": p_value,
        "better": better,
    }


def compare_records(
    args: argparse.Namespace,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The results of ``ordmetrics compare``: a summary, the model records and the pairs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``ordmetrics compare``.

    Returns
    -------
    summary : dict
        ``rows`` (evaluated), ``rows_left_out`` (``--nan-policy omit``), ``n_resamples``,
        ``confidence_level``, ``seed``, ``baseline`` (None with ``--pairs all``) and
        ``models`` (``{"model", "columns"}`` each).
    metrics : list of dict
        One per (model, metric): ``model``, ``metric``, ``estimate``, ``direction``, ``low``,
        ``high`` (the bootstrap percentile interval of the metric).
    comparisons : list of dict
        One per (pair, metric): ``metric``, ``direction``, ``model``, ``baseline``,
        ``estimate`` (of the model), ``baseline_estimate``, ``difference`` (model minus
        baseline), ``low`` and ``high`` (the interval of the difference), ``p_value`` and
        ``better`` (the better model's name when the interval excludes 0, else None).
    """
    from ordmetrics._core.progress import progress
    from ordmetrics.evaluation.resampling import bootstrap
    from ordmetrics.io import frames as _frame

    metric_set = _frame._as_metric_set(_split(args.metrics, "--metrics") or None)
    data, _source = _compare_input(args)
    by_name = {m.name: m for m in data.models}
    names = list(by_name)
    pairs = _pairs(names, args.baseline, args.pairs)
    common = {
        "n_resamples": args.bootstrap,
        "confidence_level": args.confidence,
        "random_state": args.seed,
    }
    entries = list(metric_set)
    metric_rows: list[dict[str, Any]] = []
    pair_rows: list[dict[str, Any]] = []
    total = len(entries) * len(names) * args.bootstrap
    with progress(total, "bootstrap", unit="resamples") as step:
        for entry in entries:
            options = dict(entry.options)
            inputs: dict[str, Any] = {}
            if entry.kind in _frame._DECISION_KINDS:
                rule = options.pop("decision", args.decision)
                labels = data.agreement_labels
                for m in data.models:
                    inputs[m.name] = _frame._decisions(m.P, rule, labels, args.nan_policy, None)
            else:
                labels = data.labels
                inputs = {m.name: m.P for m in data.models}
            kwargs = {
                "labels": labels,
                "sample_weight": data.weight,
                "nan_policy": args.nan_policy,
                **options,
            }
            results: dict[str, Any] = {}
            for name in names:
                try:
                    res = bootstrap(entry.metric, data.y, inputs[name], **common, **kwargs)
                except (ValueError, TypeError) as exc:
                    note = getattr(exc, "add_note", None)  # Python 3.11+
                    if note is not None:
                        note(f"(raised by metric {entry.name!r} of model {name!r})")
                    raise
                results[name] = res
                metric_rows.append(
                    {
                        "model": name,
                        "metric": entry.name,
                        "estimate": float(res.estimate),
                        "direction": entry.direction,
                        "low": float(res.low),
                        "high": float(res.high),
                    }
                )
                step(args.bootstrap)
            for model, base in pairs:
                rec = _paired(entry, kwargs, results[model], results[base], args.confidence)
                better = {"a": model, "b": base}.get(rec.pop("better") or "")
                pair_rows.append(
                    {
                        "metric": entry.name,
                        "direction": entry.direction,
                        "model": model,
                        "baseline": base,
                        "estimate": float(results[model].estimate),
                        "baseline_estimate": float(results[base].estimate),
                        **rec,
                        "better": better,
                    }
                )
    summary = {
        "rows": data.n_rows,
        "rows_left_out": data.n_left_out,
        "n_resamples": args.bootstrap,
        "confidence_level": args.confidence,
        "seed": args.seed,
        "baseline": None if args.pairs == "all" else pairs[0][1],
        "models": [{"model": m.name, "columns": list(m.columns)} for m in data.models],
    }
    return summary, metric_rows, pair_rows


def _compare_json(
    summary: dict[str, Any], metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]
) -> str:
    numbers = ("estimate", "low", "high", "baseline_estimate", "difference", "p_value")

    def clean(rec: dict[str, Any]) -> dict[str, Any]:
        return {k: _json_number(v) if k in numbers else v for k, v in rec.items()}

    out = {
        **summary,
        "metrics": [clean(r) for r in metrics],
        "comparisons": [clean(r) for r in pairs],
    }
    return json.dumps(out, indent=2, allow_nan=False)


#: Columns of ``ordmetrics compare --format csv``.
COMPARE_CSV_COLUMNS: tuple[str, ...] = (
    "kind",
    "metric",
    "direction",
    "model",
    "baseline",
    "estimate",
    "low",
    "high",
    "p_value",
    "better",
)


def _compare_csv(metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COMPARE_CSV_COLUMNS)
    for r in metrics:
        writer.writerow(
            [
                "metric",
                r["metric"],
                r["direction"],
                r["model"],
                "",
                _csv_number(r["estimate"]),
                _csv_number(r["low"]),
                _csv_number(r["high"]),
                "",
                "",
            ]
        )
    for r in pairs:
        writer.writerow(
            [
                "difference",
                r["metric"],
                r["direction"],
                r["model"],
                r["baseline"],
                _csv_number(r["difference"]),
                _csv_number(r["low"]),
                _csv_number(r["high"]),
                _csv_number(r["p_value"]),
                r["better"] or "",
            ]
        )
    return buf.getvalue().rstrip("\n")


def _p_text(p: float) -> str:
    return "nan" if math.isnan(p) else f"{p:.4f}"


def _compare_table(
    summary: dict[str, Any], metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]
) -> str:
    names = [m["model"] for m in summary["models"]]
    ci = f"{summary['confidence_level']:.0%} interval"
    order = list(dict.fromkeys(r["metric"] for r in metrics))
    cell = {(r["model"], r["metric"]): r for r in metrics}
    rows = []
    for metric in order:
        first = cell[(names[0], metric)]
        row = [metric, first["direction"]]
        for n in names:
            r = cell[(n, metric)]
            row += [_fixed(r["estimate"]), f"[{_fixed(r['low'])}, {_fixed(r['high'])}]"]
        rows.append(row)
    header = ["metric", "direction"]
    for n in names:
        header += [n, ci]
    left_out = summary["rows_left_out"]
    lines = [
        f"Metrics of {len(names)} models on the same {summary['rows']:,} rows"
        + (f" ({left_out:,} rows with a missing value left out)" if left_out else "")
        + ":",
        "",
        _table(header, rows, right={2 + 2 * i for i in range(len(names))}),
        "",
    ]
    prows = [
        [
            r["metric"],
            r["model"],
            r["baseline"],
            _fixed(r["difference"]),
            f"[{_fixed(r['low'])}, {_fixed(r['high'])}]",
            _p_text(r["p_value"]),
            r["better"] or "-",
        ]
        for r in pairs
    ]
    pheader = ["metric", "model", "baseline", "difference", ci, "p_value", "better"]
    lines += [
        "Paired differences (model - baseline, on the same resamples):",
        "",
        _table(pheader, prows, right={3, 5}),
        "",
        f"{ci}: bootstrap percentile interval, {summary['n_resamples']} resamples (seed "
        f"{summary['seed']}; every model on the same resamples). p_value: two-sided bootstrap "
        "p-value of no difference. better: the better model when the interval of the "
        "difference excludes 0, else -.",
    ]
    return "\n".join(lines)


def cmd_compare(args: argparse.Namespace) -> int:
    """``ordmetrics compare``: the metrics of several models on the same rows and their
    paired bootstrap differences (table, JSON or CSV)."""
    out = None if args.out is None else _check_out(args.out, "the comparison")
    summary, metrics, pairs = compare_records(args)
    if args.format == "json":
        text = _compare_json(summary, metrics, pairs)
    elif args.format == "csv":
        text = _compare_csv(metrics, pairs)
    else:
        text = _compare_table(summary, metrics, pairs)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def _demo_frame(data: dict[str, Any], backend: Any) -> Any:
    """The example of every model in long form: model, cut and one column per grade."""
    import narwhals.stable.v2 as nw
    import numpy as np

    from ordmetrics.io.datasets import CUT_LABELS

    models = list(data)
    columns: dict[str, Any] = {
        "model": [m for m in models for _ in range(data[m].y_true.size)],
        "cut": np.concatenate([data[m].y_true for m in models]).tolist(),
    }
    for j, label in enumerate(CUT_LABELS):
        columns[f"p_{label.replace(' ', '_')}"] = np.concatenate(
            [data[m].y_proba[:, j] for m in models]
        )
    if backend is None:
        from ordmetrics.io.delimited import ColumnTable

        return ColumnTable(columns)
    return nw.from_dict(columns, backend=backend).to_native()


def cmd_demo(args: argparse.Namespace) -> int:
    """``ordmetrics demo``: the metric table of both example models, and a report."""
    from ordmetrics.io.datasets import (
        CUT_LABELS,
        MODELS,
        load_diamonds_cut,
    )
    from ordmetrics.io.delimited import metric_table
    from ordmetrics.io.frames import DEFAULT_METRICS
    from ordmetrics.io.readers import CSV_BACKENDS
    from ordmetrics.report.html import build_report

    t0 = time.perf_counter()
    out = _check_out(args.out)
    # a data-frame library for the report: pyarrow, pandas or polars (None: the table only)
    backend = next((b for b in CSV_BACKENDS if importlib.util.find_spec(b)), None)
    data = {m: load_diamonds_cut(m) for m in MODELS}
    n = data[MODELS[0]].y_proba.shape[0]
    print(f"ordmetrics {__version__} demo")
    print(
        f"Diamonds `cut` grades ({' < '.join(CUT_LABELS)}): {n:,} out-of-fold predictions of\n"
        "two models, hgb (gradient-boosted trees) and logit (multinomial logistic regression).\n"
        "Data: ggplot2 `diamonds` (MIT licence).\n"
    )
    frame = _demo_frame(data, backend)
    common: dict[str, Any] = {"truth": "cut", "proba": "p_", "labels": list(CUT_LABELS)}
    records = metric_table(
        frame, by="model", n_resamples=args.bootstrap, random_state=args.seed, **common
    )

    ci = "95% interval"
    rows = []
    for name in DEFAULT_METRICS:
        by_model = {r["model"]: r for r in records if r["metric"] == name}
        values = [by_model[m]["estimate"] for m in MODELS]
        direction = by_model[MODELS[0]]["direction"]
        pick = max if direction == "maximize" else min
        best = pick(values)
        better = "-" if values.count(best) > 1 else MODELS[values.index(best)]
        row = [name, direction]
        for m in MODELS:
            r = by_model[m]
            row.append(_fixed(r["estimate"]))
            if args.bootstrap:
                row.append(f"[{_fixed(r['low'])}, {_fixed(r['high'])}]")
        rows.append([*row, better])
    header = ["metric", "direction"]
    for m in MODELS:
        header += [m, ci] if args.bootstrap else [m]
    header.append("better")
    step = 2 if args.bootstrap else 1
    print(_table(header, rows, right={2 + step * i for i in range(len(MODELS))}))
    if args.bootstrap:
        print(
            f"\n{ci}: bootstrap percentile interval, {args.bootstrap} resamples (seed "
            f"{args.seed}; both models on the same resamples)."
        )
    print(f"Computed in {time.perf_counter() - t0:.1f} s.\n")

    try:
        from ordmetrics.report.html import require_matplotlib

        require_matplotlib()
    except MissingDependencyError:
        print(
            "The HTML report needs matplotlib: install it with `pip install ordmetrics[plot]` "
            "and run `ordmetrics demo` again."
        )
        return 0
    if backend is None:
        print(
            "The HTML report needs a data-frame library: install pyarrow with "
            "`pip install ordmetrics[parquet]` and run `ordmetrics demo` again."
        )
        return 0
    import narwhals.stable.v2 as nw

    # both models side by side, in the columns of the example file (cut, hgb_Fair, ...)
    wide: dict[str, Any] = {"cut": data[MODELS[0]].y_true.tolist()}
    for m in MODELS:
        for j, label in enumerate(CUT_LABELS):
            wide[f"{m}_{label.replace(' ', '_')}"] = data[m].y_proba[:, j]
    library: Any = backend  # pyarrow, pandas or polars, found above
    html_text = build_report(
        nw.from_dict(wide, backend=library).to_native(),
        truth="cut",
        proba={m: f"{m}_" for m in MODELS},
        labels=list(CUT_LABELS),
        table=records,
        n_resamples=args.bootstrap,
        random_state=args.seed,
        title="ordmetrics demo: diamonds cut grades",
        source="ordmetrics.datasets.example_path() (bundled example)",
        description=(
            f"Out-of-fold predictions of the cut grade of {n:,} diamonds by two models, "
            f"{' and '.join(MODELS)}, side by side."
        ),
    )
    out.write_text(html_text, encoding="utf-8")
    print(f"Report of the models {', '.join(MODELS)} written to {out.resolve()}")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    """``ordmetrics index``: print the Markdown metric index."""
    from ordmetrics._core.index import metric_index

    print(metric_index(), end="")
    return 0


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------


def _add_input_options(
    p: argparse.ArgumentParser, default_bootstrap: int, *, models: bool = False
) -> None:
    """The options of `evaluate` and `report` (``models``: those of `compare` instead of
    --proba, --proba-prefix and --by)."""
    p.add_argument(
        "file",
        metavar="FILE",
        help="CSV (.csv, .tsv, optionally .gz) or Parquet (.parquet) file, one row per "
        "prediction; - reads a CSV (or gzip CSV, or Parquet) file from standard input",
    )
    p.add_argument("--truth", required=True, metavar="COL", help="the column of true classes")
    if models:
        _add_model_options(p)
    else:
        _add_proba_options(p)
    p.add_argument(
        "--labels",
        metavar="A,B,...",
        help="the classes in ordinal order, one per probability column (needed when the "
        "truth column holds names; default for integer truth: 0..K-1)",
    )
    if not models:
        p.add_argument("--by", metavar="COL[,COL]", help="compute the metrics per group of rows")
    _add_common_options(p, default_bootstrap, at_least_2=models)


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--models",
        metavar="PREFIX,PREFIX,...",
        help="the models as column prefixes: model hgb_ is every column starting with hgb_ "
        "(ordered by --labels when the names end in them, else in file order); a model's "
        "name is its prefix without a final _ . - (or NAME=PREFIX)",
    )
    p.add_argument(
        "--model",
        action="append",
        metavar="[NAME=]COL,COL,...",
        help="one model as its probability columns in ordinal order; repeat it for each "
        "model (default names model1, model2, ...); may be combined with --models",
    )
    p.add_argument(
        "--baseline",
        metavar="NAME",
        help="the model every other model is compared with (default the first one)",
    )
    p.add_argument(
        "--pairs",
        choices=("baseline", "all"),
        default="baseline",
        help="baseline: every model against the baseline; all: every pair of models, the "
        "later one against the earlier (default baseline)",
    )


def _add_proba_options(p: argparse.ArgumentParser) -> None:
    proba = p.add_mutually_exclusive_group(required=True)
    proba.add_argument(
        "--proba",
        metavar="COL,COL,...",
        help="the probability columns, one per class, in ordinal order",
    )
    proba.add_argument(
        "--proba-prefix",
        metavar="PREFIX",
        help="take as probability columns every column whose name starts with PREFIX: in "
        "the order of --labels when the names end in them (p_mild, p_moderate, ...; a space "
        "of a label may be _), else in file order",
    )


def _add_common_options(
    p: argparse.ArgumentParser, default_bootstrap: int, at_least_2: bool = False
) -> None:
    p.add_argument("--weight", metavar="COL", help="a column of non-negative row weights")
    p.add_argument(
        "--metrics",
        metavar="NAME,...",
        help="the metrics (see `ordmetrics list`); default rps, sa_rps, brier, log_loss, pbs, "
        "pll, qwk, expected_cost, c_index, ece",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=default_bootstrap,
        metavar="N",
        help=f"bootstrap resamples of the intervals, "
        f"{'at least 2' if at_least_2 else '0 for none'} (default {default_bootstrap})",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the bootstrap resamples (default 0)"
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="coverage of the intervals (default 0.95)",
    )
    p.add_argument(
        "--nan-policy",
        choices=_NAN_POLICIES,
        default="raise",
        help="rows with a missing value: an error, left out, or NaN results (default raise)",
    )
    p.add_argument(
        "--decision",
        choices=_RULES,
        default="argmax",
        help="how the agreement metrics (qwk, expected_cost, ...) turn probabilities into "
        "classes (default argmax)",
    )
    p.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="the CSV field delimiter: one character or 'tab' (default ',', tab for .tsv)",
    )
    p.add_argument(
        "--renormalize",
        action="store_true",
        help="rescale every probability row to sum 1 (default: rows must sum to 1 within 1e-6)",
    )
    p.add_argument(
        "--sum-tolerance",
        type=float,
        default=None,
        metavar="TOL",
        help="accept probability rows whose sums lie within TOL of 1 and rescale them to sum 1 "
        "(e.g. 1e-5 for probabilities rounded to 6 decimals); other rows are an error",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="ordmetrics",
        description="Evaluate probabilistic predictions of ordinal classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"ordmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p_eval = sub.add_parser(
        "evaluate",
        help="the metrics of the predictions in a CSV or Parquet file",
        description="Compute metrics of the predictions in a CSV or Parquet file, optionally "
        "per group and with bootstrap intervals.",
        epilog="example: ordmetrics evaluate preds.csv --truth grade --proba-prefix p_ "
        "--by site --bootstrap 1000 --format json. Exit status 0 on success, 2 on bad input.",
    )
    _add_input_options(p_eval, default_bootstrap=0)
    p_eval.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table: aligned text; json: a list of records (an infinite value is the string "
        '"inf" or "-inf", an undefined value (NaN) or a missing interval null); csv (inf, -inf, '
        "nan; a missing interval an empty field) (default table)",
    )
    p_eval.add_argument(
        "--stream",
        action="store_true",
        help="read the file in batches, in constant memory (an error with --bootstrap); "
        "automatic for files over 1 GiB when no --bootstrap is asked",
    )
    p_eval.set_defaults(func=cmd_evaluate)

    p_compare = sub.add_parser(
        "compare",
        help="compare two or more models on the same rows (paired bootstrap)",
        description="Compute the metrics of two or more models whose probability columns sit "
        "side by side in one CSV or Parquet file, each with a bootstrap interval, and the paired "
        "bootstrap difference of every metric between models: its interval, two-sided p-value "
        "and the better model. Every model is evaluated on the same rows and the same "
        "resamples; with --nan-policy omit a row with a missing value in the truth, the "
        "weights or any model is left out for all models.",
        epilog="examples: ordmetrics compare preds.csv --truth cut --labels "
        "Fair,Good,'Very Good',Premium,Ideal --models hgb_,logit_ ; ordmetrics compare "
        "preds.csv --truth y --model a=pa0,pa1,pa2 --model b=pb0,pb1,pb2 --format json. "
        "Differences are model minus baseline. Exit status 0 on success, 2 on bad input.",
    )
    _add_input_options(p_compare, default_bootstrap=1000, models=True)
    p_compare.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table: aligned text; json: an object with the models, 'metrics' (one record per "
        "model and metric) and 'comparisons' (one per pair and metric; inf as \"inf\", NaN as "
        "null); csv: one line per metric of a model (kind metric) and per difference (kind "
        "difference) (default table)",
    )
    p_compare.add_argument(
        "--out", default=None, metavar="PATH", help="write the output to PATH instead of stdout"
    )
    p_compare.set_defaults(func=cmd_compare)

    p_report = sub.add_parser(
        "report",
        help="an HTML report (metrics with intervals, figures) of a CSV or Parquet file",
        description="Write one self-contained HTML file: the metric table with bootstrap "
        "intervals, retention curves, reliability diagrams, the confusion matrix and the "
        "worst predictions. Needs matplotlib (pip install ordmetrics[plot]).",
        epilog="example: ordmetrics report preds.parquet --truth grade --proba p0,p1,p2 "
        "--out report.html. With --by, the table is per group and the figures are of all rows. "
        "Several models side by side: --models hgb_,logit_ (column prefixes, instead of "
        "--proba).",
    )
    _add_input_options(p_report, default_bootstrap=200)
    # --models: one more choice of the (required, exclusive) --proba / --proba-prefix group
    p_report._mutually_exclusive_groups[0].add_argument(
        "--models",
        metavar="PREFIX,PREFIX,...",
        help="several models side by side, as column prefixes (model hgb_: every column "
        "starting with hgb_; name: the prefix without a final _ . -, or NAME=PREFIX): the "
        "table of every model, their paired bootstrap differences with the first, and the "
        "figures of every model",
    )
    p_report.set_defaults(model=None, baseline=None)
    p_report.add_argument(
        "--out",
        default="ordmetrics-report.html",
        metavar="PATH",
        help="the HTML file to write (default ordmetrics-report.html)",
    )
    p_report.add_argument("--title", default=None, help="the title of the report")
    p_report.set_defaults(func=cmd_report)

    p_demo = sub.add_parser(
        "demo",
        help="evaluate the bundled example data and write a report",
        description="Evaluate the bundled example (two models on the diamonds cut grades), "
        f"print the metric table and write an HTML report ({_DEMO_REPORT}).",
    )
    p_demo.add_argument(
        "--out", default=_DEMO_REPORT, metavar="PATH", help=f"the report (default {_DEMO_REPORT})"
    )
    p_demo.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        metavar="N",
        help="bootstrap resamples of the intervals, 0 for none (default 200)",
    )
    p_demo.add_argument("--seed", type=int, default=0, help="seed of the resamples (default 0)")
    p_demo.set_defaults(func=cmd_demo)

    p_list = sub.add_parser("list", help="list the registered metrics and their properties")
    p_list.add_argument("--kind", default=None, help="only metrics of this kind")
    p_list.set_defaults(func=cmd_list)
    p_index = sub.add_parser("index", help="print the Markdown metric index (docs/metrics.md)")
    p_index.set_defaults(func=cmd_index)
    return parser


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------

#: The core's wording of arguments, in the command line's terms.
_WORDING: tuple[tuple[str, str], ...] = (
    (r"nan_policy='(\w+)'", r"--nan-policy \1"),
    (
        r"Pass renormalize=True to rescale each row to sum 1\.",
        "Pass --renormalize to rescale every row to sum 1, or --sum-tolerance TOL to accept "
        "rows whose sums lie within TOL of 1 (e.g. 1e-5 for probabilities rounded to 6 "
        "decimals).",
    ),
    (r"\brandom_state=0\b", "--seed 0"),
    (r"\brandom_state\b", "--seed"),
    (r"\bn_resamples\b", "--bootstrap"),
    (r"\bconfidence_level\b", "--confidence"),
    (r"\bnan_policy\b", "--nan-policy"),
    (r"rows of y_proba", "probability rows"),
    (r"\by_proba has\b", "the probabilities have"),
    (r"\by_proba\b", "the probabilities"),
    (r"\by_true\b", "the truth column"),
    (r"\bsample_weight\b", "the weights"),
    (r"labels=\[\.\.\.\]", "--labels"),
    (r"\blabels= ", "--labels "),
    (r"\blabels is ", "--labels is "),
    (r"not in labels\b", "not in --labels"),
    (r"^by (contains|column)\b", r"--by \1"),
)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def error_message(exc: BaseException) -> str:
    """The one-line message of an input error, in the terms of the command line.

    Parameters
    ----------
    exc : BaseException
        The error.

    Returns
    -------
    str
        Its message on one line, the core's argument names replaced by the options (e.g.
        ``nan_policy='omit'`` by ``--nan-policy omit``), with the notes of the exception
        (which metric and group raised it) appended, and a reminder that the core counts
        rows from 0 after the header (within the group, if there is one).
    """
    if isinstance(exc, InputError | MissingDependencyError):
        return _one_line(str(exc))
    text = str(exc)
    if isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    for pattern, repl in _WORDING:
        text = re.sub(pattern, repl, text)
    notes = [str(n) for n in getattr(exc, "__notes__", ())]
    if re.search(r"\brows? \d", text):
        where = " within the group" if any("in the group" in n for n in notes) else ""
        notes.append(f"(rows are counted from 0 after the header{where})")
    return _one_line(" ".join([text, *notes]))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    clear_progress()
    print(f"ordmetrics: warning: {_one_line(str(message))}", file=sys.stderr)


#: The notice shown (once per process, on a terminal) when numba compiles the kernels.
COMPILE_NOTICE = "ordmetrics: compiling kernels (first run only; later runs start at once)..."
_NOTICED: list[bool] = []


def _compile_notice(kernel: str) -> None:
    """Say once, on stderr when it is a terminal, that the kernels are being compiled."""
    if not _NOTICED and notice(COMPILE_NOTICE):
        _NOTICED.append(True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (without the program name); default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 on bad input (after one line ``ordmetrics: error: ...`` on stderr).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from ordmetrics._core.jit import set_compile_hook

    previous = set_compile_hook(_compile_notice)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (InputError, MissingDependencyError, ValueError, TypeError, OSError) as exc:
        clear_progress()
        print(f"ordmetrics: error: {error_message(exc)}", file=sys.stderr)
        return 2
    finally:
        set_compile_hook(previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
