"""``ordmetrics evaluate``, ``report`` and ``demo``: the metric table of a file (in memory with
bootstrap intervals, or streamed in batches), its HTML report, and the bundled example.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

from ordmetrics._version import __version__
from ordmetrics.io.readers import (
    STDIN,
    InputError,
    MissingDependencyError,
    check_numeric,
    match_label_columns,
    parse_delimiter,
    read_table,
)
from ordmetrics.report.cli_compare import _resolve_models
from ordmetrics.report.cli_input import (
    _check_numbers,
    _check_out,
    _fix_rows,
    _Input,
    _labels,
    _options,
    _read_input,
    _split,
)
from ordmetrics.report.cli_output import (
    _fixed,
    _table,
    format_csv,
    format_json,
    format_table,
    write_atomically,
)

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
    from ordmetrics.report import html  # metric_table: a data frame's, or a ColumnTable's

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
        records = html.metric_table(inp.table, n_resamples=args.bootstrap, **_options(inp, args))
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
    table = read_table(args.file, delimiter=delimiter, labels=_split(args.labels, "--labels"))
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
    from ordmetrics.evaluation.metric_set import DEFAULT_METRICS
    from ordmetrics.io.datasets import (
        CUT_LABELS,
        MODELS,
        load_diamonds_cut,
    )
    from ordmetrics.io.readers import CSV_BACKENDS
    from ordmetrics.report.html import build_report, metric_table

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
    header.append("best")  # the better estimate; the paired test is compare's and the report's
    step = 2 if args.bootstrap else 1
    print(_table(header, rows, right={2 + step * i for i in range(len(MODELS))}))
    if args.bootstrap:
        print(
            f"\n{ci}: bootstrap percentile interval, {args.bootstrap} resamples (seed "
            f"{args.seed}; both models on the same resamples)."
        )
    print(
        "best: the model with the better estimate. Whether the difference is significant (the "
        "paired bootstrap,\nwith its p-value) is in the report below and in `ordmetrics compare`."
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
    write_atomically(out, lambda f: f.write(html_text))  # an older report survives a failure
    print(f"Report of the models {', '.join(MODELS)} written to {out.resolve()}")
    return 0
