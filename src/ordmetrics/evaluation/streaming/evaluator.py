"""The streaming :class:`Evaluator`: metrics accumulated batch by batch in a fixed-size state.

It loops over its accumulators (:mod:`ordmetrics.evaluation.streaming.accumulators`), one per
shared table, never over kinds of metrics; see :mod:`ordmetrics.evaluation.streaming` for the
notes on exactness, bounds and the weight scale.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from ordmetrics._core.numerics import weight_exponent
from ordmetrics._core.validation import NAN_POLICIES, check_labels, check_option, type_name
from ordmetrics.evaluation.metric_set import MetricEntry, MetricSet, as_metric_set, metric_set
from ordmetrics.evaluation.streaming.accumulators import (
    FAMILIES,
    Accumulator,
    Settings,
    family_of,
    in_caller_units,
)
from ordmetrics.evaluation.streaming.batches import check_count, read_batch
from ordmetrics.evaluation.streaming.ranks import DEFAULT_MAX_EXACT, DEFAULT_N_GRID
from ordmetrics.evaluation.streaming.result import StreamResult
from ordmetrics.evaluation.streaming.state import (
    FORMAT,
    STATE_VERSION,
    StateReader,
    check_header,
    check_same_data,
    config_difference,
    plain,
    plain_labels,
    state_error,
)
from ordmetrics.metrics.decisions import RULES

__all__ = ["Evaluator"]


class Evaluator:
    """Metrics of probabilistic ordinal predictions accumulated batch by batch.

    Parameters
    ----------
    metrics : list or MetricSet, optional
        As in :func:`ordmetrics.evaluate`: registered metric names, ``(name, options)`` pairs,
        entries and sets of :func:`~ordmetrics.metric_set`, or one :class:`~ordmetrics.MetricSet`;
        the default is :data:`~ordmetrics.DEFAULT_METRICS`. Options mean what they mean there
        (e.g. ``("rps", {"normalize": False})``, ``("expected_cost", {"costs": "squared"})``,
        ``("qwk", {"decision": "median"})``). Calibration metrics must use
        ``strategy="uniform"`` (the default): quantile bins cannot be streamed. Every metric
        must name an accumulator family in its spec (``accumulates``); one that needs all
        the rows at once is refused, with a message naming it.
    labels : sequence, optional
        The class labels in ordinal order, the class of each column of ``y_proba``; needed for
        string truth. It fixes K. Without it K is the number of columns of the first batch, and
        an ordered pandas Categorical / polars Enum truth in the first batch supplies the labels
        of all later batches.
    nan_policy : {"raise", "omit", "propagate"}, default "raise"
        Rows with a missing value (truth, probability or weight): raise an error, drop them,
        or make every result NaN from then on (also after merging).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule giving the predicted classes of the agreement
        metrics, unless an entry fixes its own ``decision``.
    max_exact : int, default 4096
        Distinct expected grades (of rows of positive weight) kept exactly for the ranking
        metrics; beyond, the grid. At most :data:`MAX_TABLE` = 2^24.
    n_grid : int, default 65536
        Cells of the grid over [0, K - 1] of the expected grade, at most :data:`MAX_TABLE`
        = 2^24 (the table holds K numbers per cell).

    See Also
    --------
    ordmetrics.files.evaluate_file : An Evaluator fed from a CSV or Parquet file.

    Notes
    -----
    :meth:`compute` returns a :class:`StreamResult`: the values, and for each a bound on its
    distance from the in-memory value, 0 for every metric but the ranking metrics once their
    table is on the grid (see the module notes for the bounds).

    The state has a fixed size: one number per scoring rule, K^2 per decision rule, 3 B (E)
    per calibration view and bin count (B bins, E events), and K max(max_exact, n_grid)
    numbers for the ranking table. It never grows with the number of rows.

    Every batch is validated like the inputs of the metric functions (the same checks and
    messages), and K must be the same in every batch. A batch of zero rows changes nothing;
    rows of weight 0 are validated and then take no part, as in the functions.

    ``a.merge(b)`` adds the rows of ``b`` to ``a`` in place and returns ``a`` (as :meth:`update`
    changes the evaluator in place); ``a + b`` and ``sum(evaluators)`` return a new evaluator
    and leave the operands unchanged. Evaluators pickle (via
    their :meth:`state_dict`), so they can be sent between processes.

    Examples
    --------
    >>> from ordmetrics.stream import Evaluator
    >>> a = Evaluator(["rps", ("expected_cost", {"costs": "squared"})])
    >>> b = Evaluator(["rps", ("expected_cost", {"costs": "squared"})])
    >>> a.update([0, 1], [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2]])
    >>> b.update([2, 2], [[0.1, 0.3, 0.6], [0.5, 0.3, 0.2]])
    >>> r = (a + b).compute()
    >>> round(r["rps"], 6), r["expected_cost(costs=squared)"]
    (0.155, 1.0)
    """

    def __init__(
        self,
        metrics: Any = None,
        *,
        labels: Any = None,
        nan_policy: str = "raise",
        decision: str = "argmax",
        max_exact: int = DEFAULT_MAX_EXACT,
        n_grid: int = DEFAULT_N_GRID,
    ) -> None:
        ms = as_metric_set(metrics)
        check_option(nan_policy, "nan_policy", NAN_POLICIES)
        check_option(decision, "decision", RULES)
        self._max_exact = check_count(max_exact, "max_exact", 0)
        self._n_grid = check_count(n_grid, "n_grid", 1)
        self._nan_policy = nan_policy
        self._decision = decision
        self._labels_arg = None if labels is None else check_labels(labels, None)
        entries = []
        for e in ms:
            options = {
                key: plain(value, f"option {key!r} of metric {e.name!r}")
                for key, value in e.options.items()
            }
            entries.append(MetricEntry(e.metric, options, e.name))
        self._ms = MetricSet(tuple(entries))
        self._settings = Settings(decision, self._max_exact, self._n_grid)
        # the accumulator of every entry: entries of one key share one accumulator
        plan: list[tuple[type[Accumulator], Hashable]] = []
        members: dict[Hashable, list[MetricEntry]] = {}
        for e in self._ms:
            family = family_of(e)
            family.check(e)
            key = family.key(e, self._settings)
            plan.append((family, key))
            members.setdefault(key, []).append(e)
        self._plan = tuple(plan)
        self._members = members
        self._reset()
        if self._labels_arg is not None:
            self._start(len(self._labels_arg), self._labels_arg)

    def _reset(self) -> None:
        self._k: int | None = None
        self._labels: tuple[Hashable, ...] | None = None
        self._n_rows = 0
        self._n_missing = 0
        self._total_weight = 0.0
        self._weight_exp = 0
        self._propagated = False
        self._accs: dict[Hashable, Accumulator] = {}

    def _start(self, k: int, labels: tuple[Hashable, ...] | None) -> None:
        """Fix K (and the labels) and allocate the state; options that need K are checked."""
        accs: dict[Hashable, Accumulator] = {}
        for e, (family, key) in zip(self._ms, self._plan, strict=True):
            if key in accs:
                accs[key].attach(e)
            else:
                accs[key] = family(e, k, self._settings)
        self._accs = accs
        self._k, self._labels = k, labels

    def _groups(self, family: type[Accumulator]) -> list[tuple[Accumulator, list[MetricEntry]]]:
        """The accumulators of one family with their entries, one pair per entry in the order
        of the metric set (the order of the fields of the state)."""
        if not self._accs:
            return []
        return [
            (self._accs[key], [e])
            for e, (cls, key) in zip(self._ms, self._plan, strict=True)
            if cls is family
        ]

    # ---- properties -----------------------------------------------------------------------

    @property
    def metrics(self) -> MetricSet:
        """The metric set, in output order."""
        return self._ms

    @property
    def n_classes(self) -> int | None:
        """K, once fixed by ``labels`` or the first batch (None before)."""
        return self._k

    @property
    def labels(self) -> tuple[Hashable, ...] | None:
        """The class labels in ordinal order, when given or taken from a categorical truth."""
        return self._labels

    @property
    def n_rows(self) -> int:
        """Rows scored so far (without the rows dropped by ``nan_policy="omit"``)."""
        return self._n_rows

    @property
    def total_weight(self) -> float:
        """Total weight of the rows scored so far (``inf`` beyond the largest float)."""
        return in_caller_units(self._total_weight, self._weight_exp)

    # ---- weight scale -----------------------------------------------------------------------

    def _exponent_for(self, w: np.ndarray | None) -> int:
        """The unit exponent of the state once a batch of weights ``w`` is added."""
        if w is None:
            top = 0  # unit weights: 1 = 2^0
        else:
            e = weight_exponent(w)
            if e == 0 and not (w > 0.0).any():
                return self._weight_exp  # weights all 0: nothing to accommodate
            top = e - 1  # the largest weight in [1, 2) units of 2^top
        if self._total_weight == 0.0:
            return top  # an empty state (all sums 0) takes the batch's unit
        return max(self._weight_exp, top)

    def _rescale(self, e: int) -> None:
        """Express every weight-valued sum of the state in units of 2^e (e >= the current)."""
        shift = self._weight_exp - e
        self._weight_exp = e
        if shift == 0:
            return
        with np.errstate(over="ignore", under="ignore"):
            self._total_weight = float(np.ldexp(self._total_weight, shift))
        for acc in self._accs.values():
            acc.rescale(shift)

    def __repr__(self) -> str:
        k = "K unknown" if self._k is None else f"K = {self._k}"
        return f"Evaluator({', '.join(self._ms.names)}; {k}, {self._n_rows} rows)"

    # ---- update ---------------------------------------------------------------------------

    def update(self, y_true: Any, y_proba: Any, sample_weight: Any = None) -> None:
        """Add a batch of rows.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True classes: integers ``0..K-1`` without ``labels``, values of ``labels``, or an
            ordered pandas Categorical / polars Enum.
        y_proba : array-like of shape (n_samples, K)
            Predicted probabilities, one column per class in ordinal order; rows in [0, 1]
            summing to 1.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative frequency weights.

        Raises
        ------
        ValueError, TypeError
            For input the metric functions would refuse (with their messages), and for a batch
            whose number of columns differs from K. The evaluator is unchanged when an error
            is raised.
        """
        batch = read_batch(
            y_true,
            y_proba,
            sample_weight,
            k=self._k,
            labels=self._labels,
            fixed_by_labels=self._labels_arg is not None,
            nan_policy=self._nan_policy,
            channels={bool(e.options.get("renormalize", False)) for e in self._ms},
        )
        if batch is None:
            return
        y, mats, w, missing = batch.y, batch.mats, batch.w, batch.missing
        if self._k is None:
            self._start(batch.k, batch.labels)
        if missing is not None:
            keep = ~missing
            self._n_missing += int(missing.sum())
            if self._nan_policy == "propagate":
                self._propagated = True
            y = y[keep]
            mats = {flag: Q[keep] for flag, Q in mats.items()}
            w = None if w is None else w[keep]
        if y.size:
            self._add(y, mats, w)

    def _add(self, y: np.ndarray, mats: dict[bool, np.ndarray], w: np.ndarray | None) -> None:
        # the state holds weights in units of 2^e (see the module notes): the batch's weights
        # are scaled by the same exact power of two before any sum is taken
        unit = self._exponent_for(w)
        if unit != 0:
            w = np.ldexp(np.ones(y.size) if w is None else w, -unit)
        batch_weight = float(y.size) if w is None else float(w.sum())
        parts = []
        if batch_weight > 0.0:
            for acc in self._accs.values():
                parts.append((acc, acc.prepare(y, mats[acc.channel], w)))
        # everything is computed: now change the state (an error above leaves it unchanged)
        self._rescale(unit)
        for acc, part in parts:
            acc.commit(part)
        self._n_rows += int(y.size)
        self._total_weight += batch_weight

    # ---- merge ----------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {
            "metrics": [
                {"metric": e.metric, "name": e.name, "options": dict(e.options)} for e in self._ms
            ],
            "labels": plain_labels(self._labels_arg),
            "nan_policy": self._nan_policy,
            "decision": self._decision,
            "max_exact": self._max_exact,
            "n_grid": self._n_grid,
        }

    def _difference(self, config: Mapping[str, Any]) -> str | None:
        """What differs between this evaluator's configuration and ``config`` (None if equal)."""
        return config_difference(self._config(), config)

    def merge(self, other: Evaluator) -> Evaluator:
        """Add the rows of ``other`` to this evaluator, in place (like :meth:`update`).

        Parameters
        ----------
        other : Evaluator
            An evaluator made with the same metrics, options, ``labels``, ``nan_policy``,
            ``decision``, ``max_exact`` and ``n_grid``. It is left unchanged.

        Returns
        -------
        Evaluator
            ``self``, now the evaluator of the rows of both (the convention of torchmetrics'
            ``merge_state``), so that calls chain: ``a.merge(b).merge(c)``. Use ``a + b`` for a
            new evaluator that leaves both unchanged. Merging is associative and commutative
            (up to floating-point rounding of the sums).

        Raises
        ------
        TypeError
            If ``other`` is not an Evaluator.
        ValueError
            If the two were configured differently or have seen different classes. ``self``
            is unchanged when an error is raised.

        Examples
        --------
        >>> from ordmetrics.stream import Evaluator
        >>> a, b = Evaluator(["rps"]), Evaluator(["rps"])
        >>> a.update([0], [[0.8, 0.2]])
        >>> b.update([1], [[0.3, 0.7]])
        >>> a.merge(b) is a, a.n_rows, b.n_rows
        (True, 2, 1)
        """
        merged = self._merged(other)
        self.__dict__.update(merged.__dict__)
        return self

    def _merged(self, other: Any) -> Evaluator:
        """A new evaluator of the rows of ``self`` and ``other`` (both unchanged)."""
        if not isinstance(other, Evaluator):
            raise TypeError(
                f"can only merge an Evaluator with another Evaluator; got {type_name(other)}."
            )
        diff = self._difference(other._config())
        if diff is not None:
            raise ValueError(f"cannot merge evaluators configured differently: {diff}.")
        other_labels = plain_labels(other._labels) if other._k is not None else None
        check_same_data(self._k, self._labels, other._k, other_labels, "merge")
        out = self._copy()
        if other._k is None:
            return out
        if out._k is None:
            out._start(other._k, other._labels)
        # bring both to the larger unit of weight (the smaller scaled exactly, by 2^-j)
        if other._total_weight > 0.0:
            unit = other._weight_exp
            if out._total_weight > 0.0:
                unit = max(unit, out._weight_exp)
            out._rescale(unit)
        theirs = other._copy()
        theirs._rescale(out._weight_exp)
        for key, acc in theirs._accs.items():
            out._accs[key].merge(acc)
        out._n_rows += other._n_rows
        out._n_missing += other._n_missing
        out._total_weight += theirs._total_weight
        out._propagated = out._propagated or other._propagated
        return out

    def __add__(self, other: Any) -> Evaluator:
        if not isinstance(other, Evaluator):
            return NotImplemented
        return self._merged(other)

    def __radd__(self, other: Any) -> Evaluator:
        if isinstance(other, int) and other == 0:  # sum(evaluators) starts from 0
            return self._copy()
        return NotImplemented

    def _copy(self) -> Evaluator:
        out = Evaluator.__new__(Evaluator)
        out.__dict__.update(self.__dict__)
        out._accs = {key: acc.copy() for key, acc in self._accs.items()}
        return out

    # ---- state ----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The configuration and the accumulated state, as plain values.

        Returns
        -------
        dict
            Nested dicts and lists of NumPy arrays, Python scalars and strings only (picklable,
            and easy to send between processes): ``format``, ``version``
            (:data:`STATE_VERSION`), ``config`` (metrics with options and display names,
            ``labels``, ``nan_policy``, ``decision``, ``max_exact``, ``n_grid``), and the data
            part: ``n_classes``, ``labels``, ``n_rows``, ``n_missing``, ``total_weight``,
            ``weight_exponent``, ``propagated``, and one field per accumulator family:
            ``scoring`` (weighted score sums, per metric), ``confusion`` (per decision rule),
            ``calibration`` (per metric: ``weight``, ``sum_forecast``, ``sum_event``; metrics
            of one view and bin count hold the same table) and ``ranking`` (``mode``,
            ``values``, ``counts``). Arrays are copies. Every weighted sum (``total_weight``
            included) is in units of ``2 ** weight_exponent`` of the caller's weights (0 for
            weights up to about 1; see the module notes); a state without
            ``weight_exponent`` (written before it existed) is read with 0.

        Examples
        --------
        >>> from ordmetrics.stream import Evaluator
        >>> ev = Evaluator(["rps"])
        >>> ev.update([0, 1], [[0.8, 0.2], [0.3, 0.7]])
        >>> state = ev.state_dict()
        >>> state["version"], state["n_classes"], state["scoring"]
        (1, 2, {'rps': 0.13})
        >>> Evaluator.from_state_dict(state).compute()["rps"]
        0.065
        """
        state: dict[str, Any] = {
            "format": FORMAT,
            "version": STATE_VERSION,
            "config": self._config(),
            "n_classes": self._k,
            "labels": plain_labels(self._labels),
            "n_rows": self._n_rows,
            "n_missing": self._n_missing,
            "total_weight": self._total_weight,
            "weight_exponent": self._weight_exp,
            "propagated": self._propagated,
        }
        for family in FAMILIES.values():
            state[family.section] = family.dump_section(self._groups(family))
        return state

    @classmethod
    def from_state_dict(cls, state: Mapping[str, Any]) -> Evaluator:
        """A new evaluator with the configuration and the state of ``state``.

        Parameters
        ----------
        state : dict
            A :meth:`state_dict`, possibly from another process.

        Returns
        -------
        Evaluator
        """
        config = check_header(state)
        entries = []
        for m in config["metrics"]:
            entries.append(MetricEntry(m["metric"], m["options"], m["name"]))
        ev = cls(
            metric_set(*entries),
            labels=config["labels"],
            nan_policy=config["nan_policy"],
            decision=config["decision"],
            max_exact=config["max_exact"],
            n_grid=config["n_grid"],
        )
        ev.load_state_dict(state)
        return ev

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace the accumulated state by that of ``state`` (of the same configuration).

        Parameters
        ----------
        state : dict
            A :meth:`state_dict` of an evaluator configured like this one.

        Raises
        ------
        ValueError
            If ``state`` is not a state of this version, was made by an evaluator configured
            differently, or any field is missing or damaged: every field is checked (presence,
            type, shape, dtype, finiteness, sign, and consistency: sorted distinct ranking
            values in [0, K - 1], every table adding up to ``total_weight``, every score sum
            within the metric's range times ``total_weight``, ...), and the message names the
            field. The evaluator is unchanged when an error is raised.

        Notes
        -----
        These checks see the state once it is a dict: unpickling a file runs whatever code it
        holds before any check, so unpickle only states you trust.

        Examples
        --------
        >>> from ordmetrics.stream import Evaluator
        >>> ev = Evaluator(["rps"])
        >>> ev.update([0, 1], [[0.8, 0.2], [0.3, 0.7]])
        >>> state = ev.state_dict()
        >>> state["total_weight"] = float("inf")
        >>> try:
        ...     Evaluator(["rps"]).load_state_dict(state)
        ... except ValueError as exc:
        ...     print(exc)
        cannot load the state: field 'total_weight' must be a finite number >= 0; got inf.
        """
        config = check_header(state)
        diff = self._difference(config)
        if diff is not None:
            raise ValueError(f"cannot load a state of an evaluator configured differently: {diff}.")
        new = Evaluator.__new__(Evaluator)
        new.__dict__.update(self.__dict__)
        new._reset()
        new._load(StateReader(state), self._k)  # validates every field first
        self.__dict__.update(new.__dict__)

    def _load(self, reader: StateReader, own_k: int | None) -> None:
        """Read the data part of a state into this (reset) evaluator, checking every field
        (``own_k``: the K of the evaluator being replaced, if fixed)."""
        state = reader.state
        k_raw = reader.get(state, "n_classes", "n_classes")
        labels = reader.get(state, "labels", "labels")
        scalars = reader.scalars(self._nan_policy)
        if k_raw is None:
            if scalars["n_rows"] or scalars["n_missing"] or labels is not None:
                raise state_error(
                    "n_classes",
                    "is None (no batch seen) but the state has rows or labels; it is damaged",
                )
            return
        k, found = reader.classes(k_raw, labels, own_k, self._labels_arg)
        self._start(k, found)
        for family in FAMILIES.values():
            family.load_section(reader, self._groups(family), scalars["total_weight"])
        self._n_rows = scalars["n_rows"]
        self._n_missing = scalars["n_missing"]
        self._total_weight = scalars["total_weight"]
        self._weight_exp = scalars["weight_exp"]
        self._propagated = scalars["propagated"]

    def __reduce__(self) -> tuple[Any, ...]:
        return (Evaluator.from_state_dict, (self.state_dict(),))

    # ---- compute --------------------------------------------------------------------------

    def compute(self) -> StreamResult:
        """The value of every metric on all the rows added (and merged) so far.

        Returns
        -------
        StreamResult
            ``values`` and ``bounds`` (see the module notes) by display name. Under
            ``nan_policy="propagate"`` every value is NaN once a row had a missing value.
            Undefined values are NaN with an :class:`~ordmetrics.UndefinedMetricWarning`, as
            in the metric functions.

        Raises
        ------
        ValueError
            If no row of positive weight has been added.
        """
        names = self._ms.names
        directions = dict(zip(names, self._ms.directions, strict=True))
        if self._propagated:
            nan = dict.fromkeys(names, math.nan)
            return self._result(nan, dict.fromkeys(names, 0.0), directions)
        if self._k is None or not self._total_weight > 0.0:
            what = "no rows have been added" if self._n_rows == 0 else "every row has weight 0"
            raise ValueError(
                f"nothing to compute: {what}. Call update(y_true, y_proba) with rows of positive "
                "weight first."
            )
        found: dict[str, tuple[float, float]] = {}
        for key, acc in self._accs.items():
            found.update(acc.finalize(self._members[key], self._total_weight, self._weight_exp))
        values = {name: found[name][0] for name in names}
        bounds = {name: found[name][1] for name in names}
        return self._result(values, bounds, directions)

    def _result(
        self, values: dict[str, float], bounds: dict[str, float], directions: dict[str, str]
    ) -> StreamResult:
        return StreamResult(
            values=MappingProxyType(values),
            bounds=MappingProxyType(bounds),
            directions=MappingProxyType(directions),
            n_rows=self._n_rows,
            total_weight=in_caller_units(self._total_weight, self._weight_exp),
        )
