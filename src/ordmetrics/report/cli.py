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
:mod:`ordmetrics.report.html`. This module holds the parser, ``list``, ``index`` and
:func:`main` (messages, warnings, exit codes); the other subcommands live in
:mod:`ordmetrics.report.cli_evaluate` (``evaluate``, ``report``, ``demo``) and
:mod:`ordmetrics.report.cli_compare` (``compare``), reading their input with
:mod:`ordmetrics.report.cli_input` and printing with :mod:`ordmetrics.report.cli_output`.
The parser is built from static data and each subcommand imports its module when it runs, so
that ``ordmetrics --help`` and ``--version`` import neither NumPy nor numba nor any metric.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from ordmetrics._core.progress import clear as clear_progress
from ordmetrics._core.progress import notice
from ordmetrics._version import __version__

# The parser is built from the static data below, and every subcommand imports what it needs
# when it runs: ``ordmetrics --help`` and ``--version`` import neither numpy nor the metrics.
# tests/test_cli.py checks that these tuples equal the core's.

#: The values of ``--nan-policy`` (``ordmetrics._core.options.NAN_POLICIES``).
NAN_POLICIES = ("raise", "omit", "propagate")

#: The values of ``--decision`` (``ordmetrics.metrics.decisions.RULES``).
DECISION_RULES = ("argmax", "median", "expected", "min_cost")

#: The default ``--bootstrap`` of every command that names a better model (``compare``,
#: ``report``, ``demo``): ``ordmetrics.evaluation.resampling.DEFAULT_RESAMPLES``, the default
#: of ``ordmetrics.bootstrap`` and ``ordmetrics.compare``, so that all reach one verdict.
DEFAULT_RESAMPLES = 999

#: Names re-exported from the modules of the subcommands, imported on first use.
_LAZY = {
    "compare_records": "ordmetrics.report.cli_compare",
    "STREAM_ABOVE_BYTES": "ordmetrics.report.cli_evaluate",
    "COMPARE_CSV_COLUMNS": "ordmetrics.report.cli_output",
    "format_csv": "ordmetrics.report.cli_output",
    "format_json": "ordmetrics.report.cli_output",
    "format_table": "ordmetrics.report.cli_output",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


#: Output formats of ``ordmetrics evaluate``.
FORMATS = ("table", "json", "csv")

_DEMO_REPORT = "ordmetrics-demo-report.html"


# --------------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------------


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``ordmetrics evaluate`` (:mod:`ordmetrics.report.cli_evaluate`)."""
    from ordmetrics.report.cli_evaluate import cmd_evaluate as run

    return run(args)


def cmd_report(args: argparse.Namespace) -> int:
    """``ordmetrics report`` (:mod:`ordmetrics.report.cli_evaluate`)."""
    from ordmetrics.report.cli_evaluate import cmd_report as run

    return run(args)


def cmd_demo(args: argparse.Namespace) -> int:
    """``ordmetrics demo`` (:mod:`ordmetrics.report.cli_evaluate`)."""
    from ordmetrics.report.cli_evaluate import cmd_demo as run

    return run(args)


def cmd_compare(args: argparse.Namespace) -> int:
    """``ordmetrics compare`` (:mod:`ordmetrics.report.cli_compare`)."""
    from ordmetrics.report.cli_compare import cmd_compare as run

    return run(args)


def cmd_list(args: argparse.Namespace) -> int:
    """``ordmetrics list``: print the registered metrics and their properties."""
    from ordmetrics._core.registry import PROPERTY_NAMES, get_metric, list_metrics
    from ordmetrics.io.readers import InputError
    from ordmetrics.report.cli_output import _fmt_range, _table, _yes

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
        "truth column holds names; default for integer truth: 0..K-1, for a Parquet ordered "
        "dictionary its stored order)",
    )
    if not models:
        p.add_argument("--by", metavar="COL[,COL]", help="compute the metrics per group of rows")
    _add_common_options(p, default_bootstrap, at_least_2=models)


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--models",
        metavar="PREFIX,PREFIX,...",
        help="the models as column prefixes: model hgb_ is every column starting with hgb_ "
        "(paired with the classes by name or number, as with --proba-prefix); a model's "
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
        help="take as probability columns every column whose name starts with PREFIX, paired "
        "with the classes by name (p_mild, p_strong_dem for 'Strong Dem': case, spaces, _ and "
        "punctuation aside; a name that is no label is an error) or by number (p0.., p1..)",
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
        choices=NAN_POLICIES,
        default="raise",
        help="rows with a missing value (an empty field or a null marker: NA, NaN, null, None, "
        "N/A, ...; never a class of --labels): an error, left out, or NaN results (default "
        "raise)",
    )
    p.add_argument(
        "--decision",
        choices=DECISION_RULES,
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
        help="rescale every probability row to sum 1 (default: rows must sum to 1 within "
        "max(1e-6, K x 5e-7) for K classes, which accepts probabilities rounded to 6 decimals)",
    )
    p.add_argument(
        "--sum-tolerance",
        type=float,
        default=None,
        metavar="TOL",
        help="accept probability rows whose sums lie within TOL of 1 and rescale them to sum 1 "
        "(e.g. 1e-4 for probabilities rounded to 5 decimals); other rows are an error",
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
    _add_input_options(p_compare, default_bootstrap=DEFAULT_RESAMPLES, models=True)
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
    _add_input_options(p_report, default_bootstrap=DEFAULT_RESAMPLES)
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
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples of the intervals, 0 for none (default {DEFAULT_RESAMPLES})",
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
        "rows whose sums lie within TOL of 1 (e.g. 1e-4 for probabilities rounded to 5 "
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
    from ordmetrics.io.readers import InputError, MissingDependencyError

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
    from ordmetrics.io.readers import InputError, MissingDependencyError

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
