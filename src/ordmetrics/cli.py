"""The ``ordmetrics`` command line.

Subcommands:

* ``ordmetrics evaluate FILE --truth COL --proba COL,COL,...``: the metrics of the predictions
  in a CSV or Parquet file, optionally per group and with bootstrap intervals, as a table, JSON
  or CSV.
* ``ordmetrics report FILE ... --out report.html``: the same metrics with bootstrap intervals
  and the figures (retention curves, reliability diagrams, confusion matrix) and worst
  predictions, in one self-contained HTML file.
* ``ordmetrics demo``: evaluate the bundled example (diamonds ``cut`` grades, out-of-fold
  predictions of two models), print the table of both models and write a report.
* ``ordmetrics list``: the registered metrics with their direction, range and properties.
* ``ordmetrics index``: the same as a Markdown table (``docs/metrics.md``).

Exit codes: 0 on success, 2 on bad input (one line ``ordmetrics: error: ...`` on stderr, no
traceback). Any other failure is a bug and shows its traceback.

The commands are a thin front: the numbers come from :func:`ordmetrics.evaluate` and
:func:`ordmetrics.bootstrap` (through :func:`ordmetrics.report.metric_table`), the report from
:mod:`ordmetrics.report`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from ._io import (
    InputError,
    MissingDependencyError,
    check_numeric,
    parse_delimiter,
    read_table,
    resolve_columns,
)
from ._progress import clear as clear_progress
from ._registry import PROPERTY_NAMES, get_metric, list_metrics

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
        The records of :func:`ordmetrics.report.metric_table`.
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


def _json_number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


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
        The records of :func:`ordmetrics.report.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        The JSON text, indented. Keys: the group columns, ``metric``, ``estimate``,
        ``direction``, ``low``, ``high``. A number that is NaN or infinite, a missing
        interval and a missing group value are ``null`` (JSON has no NaN or infinity); a
        group value of a type JSON lacks (a date) is its text.
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
        The records of :func:`ordmetrics.report.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        A header line and one line per record, without a final newline. Numbers are written
        in full precision (``nan``, ``inf``); a missing value (no interval, a missing group
        value) is an empty field.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*by, "metric", "estimate", "direction", "low", "high"])
    for r in records:
        writer.writerow(
            [
                *("" if _group_value(r[c]) is None else r[c] for c in by),
                r["metric"],
                repr(float(r["estimate"])),
                r["direction"],
                "" if r["low"] is None else repr(float(r["low"])),
                "" if r["high"] is None else repr(float(r["high"])),
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
    if not 0.0 < args.confidence < 1.0:
        hint = f" Pass a fraction, e.g. {args.confidence / 100:g}." if args.confidence > 1 else ""
        raise InputError(
            f"--confidence must lie strictly between 0 and 1; got {args.confidence:g}.{hint}"
        )


def _check_out(path: str) -> Path:
    """The report's path; its directory must exist (checked before the work, not after)."""
    out = Path(path)
    if not out.parent.is_dir():
        raise InputError(
            f"cannot write the report to {path!r}: the directory {str(out.parent)!r} does not "
            "exist."
        )
    if out.is_dir():
        raise InputError(f"cannot write the report to {path!r}: it is a directory.")
    return out


def _read_input(args: argparse.Namespace, head: bool = False) -> _Input:
    """Read and check the file (``head``: only its first rows, to check columns and labels)."""
    _check_numbers(args)
    delimiter = parse_delimiter(args.delimiter)
    source = str(args.file)
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
    metrics = _split(args.metrics, "--metrics") or None
    return _Input(table, source, args.truth, proba, by, args.weight, labels, metrics)


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
    rows = []
    for name in list_metrics(args.kind):
        spec = get_metric(name)
        props = [_yes(spec.properties.get(p, False)) for p in PROPERTY_NAMES]
        rows.append([name, spec.kind, spec.direction, _fmt_range(*spec.range), *props])
    header = ["metric", "kind", "direction", "range", *PROPERTY_NAMES]
    print(_table(header, rows, right=set()))
    return 0


#: Files larger than this are read in batches (constant memory) when no bootstrap is asked.
STREAM_ABOVE_BYTES = 1 << 30


def _stream_records(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[str]]:
    """The metric records of a file read in batches by :func:`ordmetrics.files.evaluate_file`.

    The columns and labels are checked on the first rows with the same helpers as the
    in-memory path; then the whole file streams through fixed-size accumulators.
    """
    from .files import evaluate_file

    inp = _read_input(args, head=True)
    result = evaluate_file(
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
    from .report import metric_table

    big = Path(args.file).is_file() and Path(args.file).stat().st_size > STREAM_ABOVE_BYTES
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
    from .report import require_matplotlib, write_report

    require_matplotlib()
    out = _check_out(args.out)
    inp = _read_input(args)
    path = write_report(
        out,
        inp.table,
        n_resamples=args.bootstrap,
        title=args.title,
        source=inp.source,
        **_options(inp, args),
    )
    print(f"Report written to {path}")
    return 0


def _demo_frame(data: dict[str, Any], backend: str) -> Any:
    """The example of every model in long form: model, cut and one column per grade."""
    import narwhals.stable.v2 as nw
    import numpy as np

    from .datasets import CUT_LABELS

    models = list(data)
    columns: dict[str, Any] = {
        "model": [m for m in models for _ in range(data[m].y_true.size)],
        "cut": np.concatenate([data[m].y_true for m in models]).tolist(),
    }
    for j, label in enumerate(CUT_LABELS):
        columns[f"p_{label.replace(' ', '_')}"] = np.concatenate(
            [data[m].y_proba[:, j] for m in models]
        )
    return nw.from_dict(columns, backend=backend).to_native()


def cmd_demo(args: argparse.Namespace) -> int:
    """``ordmetrics demo``: the metric table of both example models, and a report."""
    from ._io import csv_backend
    from .datasets import CUT_LABELS, MODELS, load_diamonds_cut
    from .frame import DEFAULT_METRICS
    from .report import build_report, metric_table

    t0 = time.perf_counter()
    out = _check_out(args.out)
    backend = csv_backend()  # a data-frame library for evaluate: pyarrow, pandas or polars
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
        from .report import require_matplotlib

        require_matplotlib()
    except MissingDependencyError:
        print(
            "The HTML report needs matplotlib: install it with `pip install ordmetrics[plot]` "
            "and run `ordmetrics demo` again."
        )
        return 0
    model = MODELS[0]
    report_frame = _demo_frame({model: data[model]}, backend)
    html_text = build_report(
        report_frame,
        table=records,
        n_resamples=args.bootstrap,
        random_state=args.seed,
        title="ordmetrics demo: diamonds cut grades",
        source="ordmetrics.datasets.example_path() (bundled example)",
        description=(
            f"Out-of-fold predictions of the cut grade of {n:,} diamonds by two models. The "
            f"metric table holds both models; the figures and the worst predictions are of "
            f"the {model} model."
        ),
        **common,
    )
    out.write_text(html_text, encoding="utf-8")
    print(f"Report of the {model} model written to {out.resolve()}")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    """``ordmetrics index``: print the Markdown metric index."""
    from ._index import metric_index

    print(metric_index(), end="")
    return 0


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------


def _add_input_options(p: argparse.ArgumentParser, default_bootstrap: int) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="CSV (.csv, .tsv, optionally .gz) or Parquet (.parquet) file, one row per prediction",
    )
    p.add_argument("--truth", required=True, metavar="COL", help="the column of true classes")
    proba = p.add_mutually_exclusive_group(required=True)
    proba.add_argument(
        "--proba",
        metavar="COL,COL,...",
        help="the probability columns, one per class, in ordinal order",
    )
    proba.add_argument(
        "--proba-prefix",
        metavar="PREFIX",
        help="take as probability columns every column whose name starts with PREFIX, in "
        "file order",
    )
    p.add_argument(
        "--labels",
        metavar="A,B,...",
        help="the classes in ordinal order, one per probability column (needed when the "
        "truth column holds names; default for integer truth: 0..K-1)",
    )
    p.add_argument("--by", metavar="COL[,COL]", help="compute the metrics per group of rows")
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
        help=f"bootstrap resamples of the intervals, 0 for none (default {default_bootstrap})",
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
        help="table: aligned text; json: a list of records; csv (default table)",
    )
    p_eval.add_argument(
        "--stream",
        action="store_true",
        help="read the file in batches, in constant memory (no --bootstrap); automatic for "
        "files over 1 GiB",
    )
    p_eval.set_defaults(func=cmd_evaluate)

    p_report = sub.add_parser(
        "report",
        help="an HTML report (metrics with intervals, figures) of a CSV or Parquet file",
        description="Write one self-contained HTML file: the metric table with bootstrap "
        "intervals, retention curves, reliability diagrams, the confusion matrix and the "
        "worst predictions. Needs matplotlib (pip install ordmetrics[plot]).",
        epilog="example: ordmetrics report preds.parquet --truth grade --proba p0,p1,p2 "
        "--out report.html. With --by, the table is per group and the figures are of all rows.",
    )
    _add_input_options(p_report, default_bootstrap=200)
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
    (r"Pass renormalize=True to rescale each row to sum 1\.", "Fix the probabilities in the file."),
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
