"""``ordmetrics compare``: the metrics of several models on the same rows, each with a bootstrap
interval, and their paired bootstrap differences (interval, p-value, the better model).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ordmetrics.evaluation.resample_options import DEFAULT_RESAMPLES
from ordmetrics.io.readers import (
    STDIN,
    InputError,
    check_numeric,
    fix_row_sums,
    match_label_columns,
    parse_delimiter,
    read_table,
    resolve_columns,
)
from ordmetrics.report.cli_input import _ROW_OPTIONS, _check_numbers, _check_out, _labels, _split
from ordmetrics.report.cli_output import (
    _compare_csv,
    _compare_json,
    _compare_table,
    write_atomically,
)

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
            f"compare needs --bootstrap of at least 2 resamples (default {DEFAULT_RESAMPLES}) "
            f"for the intervals and p-values of the differences; got {args.bootstrap}."
        )
    delimiter = parse_delimiter(args.delimiter)
    source = "standard input" if args.file == STDIN else str(args.file)
    table = read_table(args.file, delimiter=delimiter, labels=_split(args.labels, "--labels"))
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
    ``compare(metric, y, a, b)`` (see its Notes); :func:`ordmetrics.evaluation.resampling.
    paired_difference` computes the interval, p-value and better side from them as ``compare``
    does, at half the cost of resampling both sides again. The tests check the records against
    ``compare``.
    """
    from ordmetrics.evaluation.resampling import paired_difference

    res = paired_difference(a, b, confidence_level=confidence, metric_kwargs=kwargs)
    return {
        "difference": float(res.difference),
        "low": float(res.low),
        "high": float(res.high),
        "p_value": float(res.p_value),
        "better": res.better,
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
    from ordmetrics.evaluation.metric_set import as_metric_set, decide_rows
    from ordmetrics.evaluation.resampling import bootstrap

    metric_set = as_metric_set(_split(args.metrics, "--metrics") or None)
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
            if entry.input == "decisions":  # the decisions of its rule
                rule = options.pop("decision", args.decision)
                labels = data.agreement_labels
                for m in data.models:
                    inputs[m.name] = decide_rows(m.P, rule, labels, args.nan_policy, None)
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
    if out is not None:  # whole or not at all: a failure leaves an older file as it was
        write_atomically(out, lambda f: f.write(text + "\n"))
    else:
        print(text)
    return 0
