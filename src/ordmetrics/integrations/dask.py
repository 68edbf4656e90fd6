"""Metrics of the predictions held in a Dask DataFrame, on any Dask scheduler or cluster.

:func:`evaluate` is the Dask counterpart of :func:`ordmetrics.evaluate`. Each partition is
read by one task, which feeds an :class:`~ordmetrics.stream.Evaluator` (one per group with
``by``) and returns its :meth:`~ordmetrics.stream.Evaluator.state_dict`: NumPy arrays, numbers
and strings of a fixed size, whatever the number of rows. The states are merged by a tree
reduction (at most ``split_every`` states per task, with
:meth:`~ordmetrics.stream.Evaluator.merge`), and the client computes the metrics from the one
state left. Only these states travel between the tasks; nothing recomputes a metric outside
the evaluator, so the estimates are those of :func:`ordmetrics.evaluate` on the collected frame
up to floating-point rounding (sums added in another order, about 1e-15 relative), and, for the
ranking metrics once more than ``max_exact`` distinct expected grades have been seen, within
the error bound that the ``bound`` column reports (see :mod:`ordmetrics.stream`).

The computation runs on the scheduler that Dask would use for ``ddf.compute()``: the threaded
scheduler by default, another one chosen with ``dask.config.set(scheduler=...)``, or a
``distributed`` cluster once a ``distributed.Client`` is the default client.

Needs Dask with its DataFrame support, an optional dependency:
``pip install ordmetrics[dask]``. Dask is imported when :func:`evaluate` is called;
``import ordmetrics.dask`` does not import it.

Examples
--------
>>> import numpy as np
>>> import pandas as pd
>>> import dask.dataframe as dd
>>> import ordmetrics
>>> import ordmetrics.dask
>>> rng = np.random.default_rng(0)
>>> P = rng.dirichlet(np.ones(3), size=1000)
>>> pdf = pd.DataFrame({"grade": rng.integers(0, 3, 1000), "site": rng.choice(["a", "b"], 1000),
...                     "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2]})
>>> ddf = dd.from_pandas(pdf, npartitions=4)
>>> out = ordmetrics.dask.evaluate(ddf, truth="grade", proba="p", metrics=["rps", "qwk"])
>>> out.round(4)
  metric   estimator  estimate direction  bound
0    rps  multiclass    0.2725  minimize    0.0
1    qwk  multiclass    0.0245  maximize    0.0
>>> expected = ordmetrics.evaluate(pdf, truth="grade", proba="p", metrics=["rps", "qwk"])
>>> np.allclose(out["estimate"], expected["estimate"], rtol=1e-12, atol=0)
True
>>> ordmetrics.dask.evaluate(ddf, truth="grade", proba="p", metrics=["rps"], by="site").round(4)
  site metric   estimator  estimate direction  bound
0    a    rps  multiclass    0.2773  minimize    0.0
1    b    rps  multiclass    0.2680  minimize    0.0
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ordmetrics._core.validation import type_name
from ordmetrics.evaluation.streaming import (
    DEFAULT_MAX_EXACT,
    DEFAULT_N_GRID,
    Evaluator,
)
from ordmetrics.io.frame_columns import (
    by_columns,
    check_column,
    check_roles,
    fmt_columns,
    group_key_rows,
    import_narwhals,
    label_proba_columns,
    numeric_column,
)

__all__ = ["DEFAULT_SPLIT_EVERY", "evaluate"]

#: States merged by one task of the tree reduction (its fan-in).
DEFAULT_SPLIT_EVERY = 8

#: The column of the output that :func:`ordmetrics.evaluate` does not have.
_BOUND = "bound"


def _dask() -> tuple[Any, Any]:
    """``dask`` and ``dask.dataframe``, or an ImportError saying how to install them."""
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise ImportError(
            "ordmetrics.dask needs Dask with its DataFrame support, which is not installed "
            f"({exc}). Install it with `pip install ordmetrics[dask]` (or "
            '`pip install "dask[dataframe]"`).'
        ) from None
    return dask, dd


# --------------------------------------------------------------------------------------------
# Checks on the client
# --------------------------------------------------------------------------------------------


def _check_frame(ddf: Any, dd: Any) -> None:
    if isinstance(ddf, dd.DataFrame):
        return
    if isinstance(ddf, dd.Series):
        raise TypeError(
            "ddf must be a Dask DataFrame holding the truth and the probability columns; got a "
            "Dask Series. Pass the frame and name the columns with truth= and proba=."
        )
    module = type(ddf).__module__.partition(".")[0]
    hint = (
        " For an in-memory frame use ordmetrics.evaluate, or wrap it with "
        "dask.dataframe.from_pandas(data, npartitions=...)."
        if module in ("pandas", "polars", "pyarrow")
        else ""
    )
    raise TypeError(f"ddf must be a Dask DataFrame; got {type_name(ddf)}.{hint}")


def _check_numeric(dtypes: Mapping[Any, Any], names: Sequence[Any], arg: str) -> None:
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for name in names:
        dtype = dtypes[name]
        if not is_numeric_dtype(dtype) or is_bool_dtype(dtype):
            raise TypeError(
                f"{arg} column {name!r} must be numeric; it has dtype {dtype}. Convert it "
                f"first, e.g. ddf[{name!r}] = ddf[{name!r}].astype(float)."
            )


def _check_split_every(split_every: Any) -> int:
    if (
        isinstance(split_every, bool)
        or not isinstance(split_every, numbers.Integral)
        or split_every < 2
    ):
        raise ValueError(
            f"split_every must be an integer >= 2 (the states merged by one task); got "
            f"{split_every!r}."
        )
    return int(split_every)


def _truth_labels(ddf: Any, truth: Any, labels: Any, n_proba: int) -> Any:
    """The labels to configure the evaluators with: ``labels``, or an ordered categorical's
    categories (which must be known), or None (integer truth)."""
    import pandas as pd

    dtype = ddf.dtypes[truth]
    if labels is not None:
        return labels
    if isinstance(dtype, pd.CategoricalDtype):
        if not ddf[truth].cat.known:
            raise ValueError(
                f"truth column {truth!r} is a categorical whose categories Dask does not know "
                "(they differ or are unknown from partition to partition). Make them known, "
                f"e.g. ddf[{truth!r}] = ddf[{truth!r}].cat.as_known() (one pass over the "
                "data), or pass labels=[...] listing the classes in ordinal order."
            )
        categories = dtype.categories.tolist()
        if dtype.ordered:
            if len(categories) != n_proba:
                raise ValueError(
                    f"truth column {truth!r} is an ordered categorical with {len(categories)} "
                    f"categories {categories!r} but proba has {n_proba} columns; the categories "
                    "must match the probability columns one to one (or pass labels=)."
                )
            return categories
        if not all(isinstance(c, numbers.Integral) for c in categories):
            raise ValueError(
                f"truth column {truth!r} is an unordered categorical of labels such as "
                f"{fmt_columns(categories, 3)}, whose order ordmetrics cannot know; pass "
                "labels=[...] listing them in ordinal order (the order of the probability "
                "columns), or make the categorical ordered."
            )
        return None
    if isinstance(dtype, pd.StringDtype):
        raise ValueError(
            f"truth column {truth!r} holds strings (dtype {dtype}), whose order ordmetrics "
            "cannot know; pass labels=[...] listing the classes in ordinal order (the order of "
            "the probability columns), or make the column an ordered categorical with known "
            "categories."
        )
    return None


# --------------------------------------------------------------------------------------------
# The tasks (run on the workers; they take and return plain data only)
# --------------------------------------------------------------------------------------------


@contextmanager
def _noted(where: str) -> Iterator[None]:
    """Add ``where`` as a note to a ValueError or TypeError raised inside."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        note = getattr(exc, "add_note", None)  # Python 3.11+
        if note is not None:
            note(where)
        raise


def _plain_value(value: Any) -> Any:
    """A group value as a plain Python scalar where it has one (NumPy scalars unwrapped)."""
    return value.item() if isinstance(value, np.generic) else value


def _key(values: Sequence[Any]) -> tuple[Any, ...]:
    """The group key of a row's ``by`` values: every missing value (NaN, None, NA, NaT) is
    None, so that the missing values of all partitions fall into one group."""
    import pandas as pd

    out = []
    for v in values:
        try:
            missing = bool(pd.isna(v))
        except (TypeError, ValueError):  # an array-like value: never missing
            missing = False
        out.append(None if missing else v)
    return tuple(out)


def _groups(part: Any, by: list[Any]) -> list[tuple[tuple[Any, ...], list[Any], np.ndarray]]:
    """(key, values of its first row, row positions) of every group of the partition, groups
    in order of first appearance."""
    codes = part.groupby(by, sort=False, dropna=False, observed=True).ngroup().to_numpy()
    if codes.size == 0:
        return []
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    keep = sizes > 0
    starts, ends = starts[keep], ends[keep]
    first = order[starts]
    by_first = np.argsort(first, kind="stable")
    firsts = part[by].iloc[first[by_first]]
    columns = [firsts[c].tolist() for c in by]
    out = []
    for j, g in enumerate(by_first):
        values = [_plain_value(col[j]) for col in columns]
        out.append((_key(values), values, order[starts[g] : ends[g]]))
    return out


def _partition_state(part: Any, index: int, spec: Mapping[str, Any]) -> Any:
    """The state of the rows of one partition: a state dict, or with ``by`` a dict from group
    key to (the group's first ``by`` values, its state dict)."""
    by = spec["by"]
    if by:
        keep = group_key_rows(
            by,
            [part[c].isna().to_numpy(dtype=bool) for c in by],
            spec["nan_policy"],
            f" of partition {index} of the Dask frame (counted from its first row)",
        )
        if keep is not None:
            part = part[keep]
    where = (
        f"(in partition {index} of the Dask frame; the row numbers above count from the first "
        "row of that partition)"
    )
    weight = spec["weight"]
    with _noted(where):
        P = _float_columns(part, spec["proba"], "proba")
        w = None if weight is None else _float_columns(part, [weight], "sample_weight")[:, 0]
    y = part[spec["truth"]]
    ev = Evaluator.from_state_dict(spec["state"])
    if not by:
        with _noted(where):
            ev.update(y, P, w)
        return ev.state_dict()
    out = {}
    for key, values, rows in _groups(part, by):
        ev.load_state_dict(spec["state"])
        where = (
            f"(in the group {_fmt_group(by, values)} of partition {index} of the Dask frame; "
            "the row numbers above count the rows of that group in that partition from 0)"
        )
        with _noted(where):
            ev.update(y.iloc[rows], P[rows], None if w is None else w[rows])
        out[key] = (values, ev.state_dict())
    return out


def _float_columns(part: Any, names: Sequence[Any], arg: str) -> np.ndarray:
    """The columns of a partition as float64, read as :func:`ordmetrics.evaluate` reads a
    frame's: a column of text is refused with its TypeError, even where the frame's metadata
    (which Dask infers from a sample) calls it numeric."""
    nw = import_narwhals()
    frame = nw.from_native(part, eager_only=True)
    out = np.empty((len(part), len(names)), dtype=np.float64)
    for j, name in enumerate(names):
        out[:, j] = numeric_column(frame, name, arg, nw)
    return out


def _merge_states(states: list[Mapping[str, Any]], scratch: list[Evaluator]) -> Any:
    """The state dict of the union of the rows of ``states`` (in any order), merged with the
    two evaluators of ``scratch`` (configured like the states; their state is replaced)."""
    if len(states) == 1:
        return states[0]
    first, other = scratch
    first.load_state_dict(states[0])
    total = first
    for state in states[1:]:
        other.load_state_dict(state)
        total.merge(other)  # in place: ``first`` accumulates, ``other`` is reused
    return total.state_dict()


def _combine(spec: Mapping[str, Any], *parts: Any) -> Any:
    """One task of the tree: the merged state of ``parts`` (of consecutive partitions, in
    order); with ``by``, groups in order of first appearance."""
    scratch = [Evaluator.from_state_dict(spec["state"]) for _ in range(2)]
    if not spec["by"]:
        return _merge_states(list(parts), scratch)
    pending: dict[tuple[Any, ...], tuple[list[Any], list[Any]]] = {}
    for groups in parts:
        for key, (values, state) in groups.items():
            if key in pending:
                pending[key][1].append(state)
            else:
                pending[key] = (values, [state])
    return {
        key: (values, _merge_states(states, scratch)) for key, (values, states) in pending.items()
    }


# --------------------------------------------------------------------------------------------
# The output
# --------------------------------------------------------------------------------------------


def _fmt_group(by: Sequence[Any], values: Sequence[Any]) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in zip(by, values, strict=True))


def _compute(ev: Evaluator, state: Mapping[str, Any], where: str | None) -> Any:
    """The :class:`~ordmetrics.stream.StreamResult` of a state, computed by ``ev`` (configured
    like the state; its own state is replaced), on the client."""
    ev.load_state_dict(state)
    if where is None:
        return ev.compute()
    with _noted(where):
        return ev.compute()


def _key_column(values: list[Any], dtype: Any, known: bool) -> Any:
    """A group column of the output: ``values`` with the dtype of the input column."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype) and not known:
        return pd.Series(pd.Categorical(values, ordered=dtype.ordered))
    try:
        return pd.Series(values, dtype=dtype)
    except (TypeError, ValueError):
        return pd.Series(values)


def _output(
    results: list[tuple[list[Any], Any]],
    names: Sequence[str],
    estimators: Sequence[str],
    directions: Sequence[str],
    by: list[Any],
    key_dtypes: Mapping[Any, tuple[Any, bool]],
) -> Any:
    import pandas as pd

    nw = import_narwhals()
    n = len(results)
    estimate = [r.values[name] for _, r in results for name in names]
    bound = [r.bounds[name] for _, r in results for name in names]
    out = nw.from_dict(
        {
            "metric": list(names) * n,
            "estimator": list(estimators) * n,
            "estimate": np.asarray(estimate, dtype=np.float64),
            "direction": list(directions) * n,
            _BOUND: np.asarray(bound, dtype=np.float64),
        },
        schema={
            "metric": nw.String(),
            "estimator": nw.String(),
            "estimate": nw.Float64(),
            "direction": nw.String(),
            _BOUND: nw.Float64(),
        },
        backend="pandas",
    ).to_native()
    if not by:
        return out
    m = len(names)
    keys = pd.DataFrame(
        {
            c: _key_column([values[j] for values, _ in results for _ in range(m)], *key_dtypes[c])
            for j, c in enumerate(by)
        }
    )
    return pd.concat([keys, out], axis=1)


# --------------------------------------------------------------------------------------------
# The front
# --------------------------------------------------------------------------------------------


def evaluate(
    ddf: Any,
    *,
    truth: Any,
    proba: Any,
    metrics: Any = None,
    by: Any = None,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    decision: str = "argmax",
    max_exact: int = DEFAULT_MAX_EXACT,
    n_grid: int = DEFAULT_N_GRID,
    split_every: int = DEFAULT_SPLIT_EVERY,
) -> Any:
    """Compute metrics of the predictions in a Dask DataFrame, optionally per group.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        The rows to score, in any number of partitions.
    truth : str
        The column of true classes: integers ``0..K-1``, values listed in ``labels``, or an
        ordered categorical with known categories (``ddf[truth].cat.known``), which carries
        its own order.
    proba : str or list of str
        The probability columns, one per class in ordinal order: a list of column names, or a
        prefix, which takes every column whose name starts with it, in frame order. Columns
        named after the classes (``p_mild`` for the label ``mild``) are taken in the order of
        ``labels`` (or of an ordered categorical truth), as :func:`ordmetrics.evaluate` takes
        them.
    metrics : list or MetricSet, optional
        As in :func:`ordmetrics.evaluate`; default :data:`~ordmetrics.DEFAULT_METRICS`.
        Calibration metrics must use uniform bins (see :class:`~ordmetrics.stream.Evaluator`).
    by : str or list of str, optional
        Column(s) to group by: each partition keeps one evaluator per group it holds, merged
        across partitions. Rows with a missing key (NaN, None, NA) are handled as
        ``nan_policy`` says, as in :func:`ordmetrics.evaluate`: an error naming the column,
        the partition and the first such row in it (``"raise"``), dropped (``"omit"``), or
        kept, every missing value of a column falling into one group (``"propagate"``).
    labels : sequence, optional
        The class labels in ordinal order, the class of each probability column; needed for
        string truth, not for an ordered categorical.
    sample_weight : str, optional
        A column of non-negative frequency weights.
    nan_policy : {"raise", "omit", "propagate"}, default "raise"
        Rows with a missing value in the truth, probability or weight columns: raise an error,
        drop them, or give NaN for every metric of their group; and rows with a missing group
        key (see ``by``).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule of the agreement metrics, unless an entry of
        ``metrics`` fixes its own ``decision``.
    max_exact : int, default 4096
        Distinct expected grades kept exactly by the ranking metrics before their table
        switches to the grid (per group, counted over all partitions).
    n_grid : int, default 65536
        Cells of that grid.
    split_every : int, default 8
        The fan-in of the tree reduction: states merged by one task (at least 2).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`ordmetrics.evaluate` on the collected frame (the ``by`` columns
        with the dtypes of ``ddf``, ``metric``, ``estimator``, ``estimate``, ``direction``),
        then ``bound``:
        a bound on ``|estimate - the in-memory estimate|``, 0.0 for every metric but the
        ranking metrics once their table is on the grid (``inf`` where the binned value is
        undefined but the exact one may not be). One row per group and metric: groups in
        order of their first appearance in ``ddf`` (partition by partition, row by row), as
        :func:`ordmetrics.evaluate` orders them, and within a group the metrics in the order
        given.

    Raises
    ------
    ImportError
        If Dask (with ``dask.dataframe``) is not installed.
    TypeError
        If ``ddf`` is not a Dask DataFrame, a column argument is not a column name, or a
        probability or weight column is not numeric.
    ValueError
        For an unknown column (with the columns that exist), a prefix that matches no column,
        overlapping roles, ``labels`` (or the categories of an ordered categorical truth) of
        another length than ``proba``, and, without ``labels``, a truth column of dtype
        string, a categorical truth whose categories Dask does not know, or an unordered one
        of non-integer categories; an invalid option (as
        :class:`~ordmetrics.stream.Evaluator` raises it).
    ValueError, TypeError
        The errors of :meth:`~ordmetrics.stream.Evaluator.update` on the rows of a partition
        (missing values under ``nan_policy="raise"``, invalid probabilities or weights,
        strings in an object column without ``labels``), raised when the graph runs, with a
        note naming the partition and group; and of
        :meth:`~ordmetrics.stream.Evaluator.compute` (a group whose rows were all dropped),
        with a note naming the group.

    See Also
    --------
    ordmetrics.evaluate : The same table from a pandas or polars frame in memory.
    ordmetrics.stream.Evaluator : The accumulator each partition feeds.

    Notes
    -----
    The graph has one task per partition, which reads the needed columns of its partition and
    returns the state of its evaluator(s), then ``ceil(n / split_every)`` merging tasks per
    level of the tree until one state is left; the client computes the metrics from it. A
    task sends on a few kilobytes per evaluator for the scoring, agreement and calibration
    metrics, plus the ranking table (at most ``K * max(max_exact, n_grid)`` float64 numbers,
    about 2.6 MB for K = 5 with the defaults once on the grid). With ``by``, the states grow
    with the number of groups that each partition holds, and each partition makes one
    :meth:`~ordmetrics.stream.Evaluator.update` call per group it holds: with many small
    groups that per-call cost (under a millisecond) dominates, and fewer, larger partitions
    are faster.

    The result is computed, not lazy: the call returns once the graph has run.

    Every number comes from the evaluator: the scoring rules, agreement and calibration
    metrics equal those of :func:`ordmetrics.evaluate` up to rounding, and so do the ranking
    metrics while at most ``max_exact`` distinct expected grades were seen in a group;
    beyond, they are within ``bound`` of them (about 1e-5 or less with the defaults). Pass a
    larger ``max_exact`` to keep them exact, at the cost of a larger state.
    """
    dask, dd = _dask()
    _check_frame(ddf, dd)
    columns = list(ddf.columns)
    truth_col = check_column(truth, "truth", columns)
    proba_cols = label_proba_columns(proba, columns, labels, _ordered_categories(ddf, truth_col))
    by_cols = by_columns(by, columns)
    weight_col = (
        None if sample_weight is None else check_column(sample_weight, "sample_weight", columns)
    )
    check_roles(truth_col, proba_cols, by_cols, weight_col, proba)
    if _BOUND in by_cols:
        raise ValueError(
            f"by column {_BOUND!r} has the name of an output column (metric, estimator, "
            f"estimate, direction, {_BOUND}); rename it first."
        )
    dtypes = ddf.dtypes
    _check_numeric(dtypes, proba_cols, "proba")
    if weight_col is not None:
        _check_numeric(dtypes, [weight_col], "sample_weight")
    split_every = _check_split_every(split_every)
    config_labels = _truth_labels(ddf, truth_col, labels, len(proba_cols))
    template = Evaluator(
        metrics,
        labels=config_labels,
        nan_policy=nan_policy,
        decision=decision,
        max_exact=max_exact,
        n_grid=n_grid,
    )
    if template.n_classes is not None and template.n_classes != len(proba_cols):
        raise ValueError(
            f"labels has {template.n_classes} classes but proba has {len(proba_cols)} columns "
            f"({fmt_columns(proba_cols)}); give one label per probability column, in the "
            "order of the columns."
        )
    spec = {
        "truth": truth_col,
        "proba": proba_cols,
        "weight": weight_col,
        "by": by_cols,
        "nan_policy": nan_policy,
        "state": template.state_dict(),
    }
    weight_cols = [] if weight_col is None else [weight_col]
    needed = list(dict.fromkeys([truth_col, *proba_cols, *by_cols, *weight_cols]))

    parts = ddf[needed].to_delayed()
    partition = dask.delayed(_partition_state, pure=True, traverse=False)
    combine = dask.delayed(_combine, pure=True, traverse=False)
    level = [partition(p, i, spec) for i, p in enumerate(parts)]
    while len(level) > 1:
        level = [
            combine(spec, *level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    (state,) = dask.compute(level[0])

    names, directions = template.metrics.names, template.metrics.directions
    estimators = template.metrics.estimators(len(proba_cols))
    if not by_cols:
        return _output(
            [([], _compute(template, state, None))], names, estimators, directions, by_cols, {}
        )
    results = [
        (values, _compute(template, s, f"(in the group {_fmt_group(by_cols, values)})"))
        for values, s in state.values()
    ]
    key_dtypes = {c: (dtypes[c], _known(ddf, c, dtypes[c])) for c in by_cols}
    return _output(results, names, estimators, directions, by_cols, key_dtypes)


def _ordered_categories(ddf: Any, truth: Any) -> list[Any] | None:
    """The categories of an ordered categorical truth Dask knows, which name the classes."""
    import pandas as pd

    dtype = ddf.dtypes[truth]
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered and ddf[truth].cat.known:
        return dtype.categories.tolist()
    return None


def _known(ddf: Any, column: Any, dtype: Any) -> bool:
    """False for a categorical column whose categories Dask does not know."""
    import pandas as pd

    return not isinstance(dtype, pd.CategoricalDtype) or bool(ddf[column].cat.known)
