"""The four accumulator families of the stream, each implemented once for every metric.

A metric's family is its spec's ``accumulates`` (one of
:data:`ordmetrics._core.registry.ACCUMULATORS`):

* ``mean_score``: the weighted sum of the per-sample scores, by the metric's own function with
  ``reduction="sum"``; one accumulator per metric.
* ``confusion_matrix``: the weighted K x K counts of (true class, decided class), one per
  decision rule, shared by every metric of that rule; each metric's value comes from its
  counts formula (:func:`ordmetrics.metrics.agreement.counts_evaluator`).
* ``calibration_bins``: weight, forecast sum and event sum per (event, uniform bin), one table
  per calibration view (the spec's ``accumulate_options["view"]``), bin count and probability
  channel; the value is :func:`ordmetrics.metrics.calibration.ece_from_sums` averaged over the
  events.
* ``rank_table``: weights per (expected grade, true class) (:class:`RankTable`), one for all
  the ranking metrics; each value is the metric's own function on the table, with the bound of
  its ``accumulate_options["grid_bound"]`` once on the grid.

Every accumulator has ``update(y, P, w)`` (``prepare`` the sums of a batch, then ``commit``
them: an error leaves it unchanged), ``merge(other)``, ``finalize(entries, total_weight,
weight_exp)``, and its state as plain arrays (``dump`` / ``read`` + ``set``). Weighted sums are
held in units of 2^e of the caller's weights, e shared by the evaluator (``rescale``).

Examples
--------
>>> import numpy as np
>>> from ordmetrics.evaluation.metric_set import MetricEntry
>>> from ordmetrics.evaluation.streaming.accumulators import Settings, family_of
>>> entries = [MetricEntry("accuracy"), MetricEntry("mae")]
>>> family = family_of(entries[0])
>>> family.family
'confusion_matrix'
>>> settings = Settings(decision="argmax", max_exact=4096, n_grid=2**16)
>>> a = family(entries[0], 3, settings)
>>> a.attach(entries[1])  # both metrics read one confusion matrix
>>> b = a.copy()
>>> a.update(np.array([0, 1]), np.array([[0.8, 0.1, 0.1], [0.2, 0.3, 0.5]]), None)
>>> b.update(np.array([2]), np.array([[0.1, 0.2, 0.7]]), None)
>>> a.merge(b)
>>> a.finalize(entries, total_weight=3.0, weight_exp=0)
{'accuracy': (0.6666666666666666, 0.0), 'mae': (0.3333333333333333, 0.0)}
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ordmetrics._core.numerics import snap
from ordmetrics._core.validation import Prepared, check_option, sum_tolerance
from ordmetrics.evaluation.metric_set import MetricEntry
from ordmetrics.evaluation.streaming.ranks import RankTable, grid_bounds, read_rank_table
from ordmetrics.evaluation.streaming.state import STATE_RTOL, StateReader, state_error
from ordmetrics.metrics import agreement, calibration
from ordmetrics.metrics.decisions import decide
from ordmetrics.metrics.ranking import expected_grade

__all__ = [
    "FAMILIES",
    "Accumulator",
    "CalibrationBins",
    "ConfusionMatrix",
    "MeanScore",
    "RankTableAccumulator",
    "Settings",
    "family_of",
]


@dataclass(frozen=True)
class Settings:
    """What an evaluator fixes for all its accumulators."""

    decision: str
    max_exact: int
    n_grid: int


def entry_name(e: MetricEntry) -> str:
    """The display name of an entry (a MetricEntry sets it on creation)."""
    name = e.name
    if name is None:  # pragma: no cover - MetricEntry.__post_init__ sets it
        raise RuntimeError("internal error: a metric entry without a name; please report it")
    return name


def channel(e: MetricEntry) -> bool:
    """Which probability matrix an entry reads: as given (False) or renormalized (True)."""
    return bool(e.options.get("renormalize", False))


Values = dict[str, tuple[float, float]]


class Accumulator:
    """The base of the families: one accumulator serves every entry of its :meth:`key`."""

    #: The registry's name of the family (a value of ``MetricSpec.accumulates``).
    family: ClassVar[str]
    #: The field of the state that holds the family's accumulators.
    section: ClassVar[str]

    def __init__(self, entry: MetricEntry, k: int, settings: Settings) -> None:
        self.k = k
        self.channel = channel(entry)
        self.attach(entry)

    # ---- configuration --------------------------------------------------------------------

    @classmethod
    def check(cls, entry: MetricEntry) -> None:
        """Check the options of ``entry`` where that needs no data (errors name the metric)."""

    @classmethod
    def key(cls, entry: MetricEntry, settings: Settings) -> Hashable:
        """Entries of one key share one accumulator."""
        return (cls.family, entry_name(entry))

    def attach(self, entry: MetricEntry) -> None:
        """Prepare what ``entry`` needs once K is known (its options are checked here)."""

    # ---- data -----------------------------------------------------------------------------

    def prepare(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> Any:
        """The sums of a batch (classes ``y``, probabilities ``P``, weights ``w`` in state
        units), without changing the accumulator."""
        raise NotImplementedError

    def commit(self, part: Any) -> None:
        """Add the sums of :meth:`prepare`."""
        raise NotImplementedError

    def update(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> None:
        """Add a batch (:meth:`prepare`, then :meth:`commit`)."""
        self.commit(self.prepare(y, P, w))

    def merge(self, other: Any) -> None:
        """Add ``other`` (same key, same units; left unchanged), in place."""
        raise NotImplementedError

    def rescale(self, shift: int) -> None:
        """Multiply every weighted sum by 2^shift (exact)."""
        raise NotImplementedError

    def copy(self) -> Any:
        """An independent copy (the arrays copied)."""
        raise NotImplementedError

    def finalize(
        self, entries: Sequence[MetricEntry], total_weight: float, weight_exp: int
    ) -> Values:
        """(value, error bound) of every entry, by display name."""
        raise NotImplementedError

    # ---- state ----------------------------------------------------------------------------

    def state_names(self, entries: Sequence[MetricEntry]) -> list[str]:
        """The keys of the section under which this accumulator is stored."""
        return [entry_name(e) for e in entries]

    def dump(self) -> Any:
        """The state as plain values (copies)."""
        raise NotImplementedError

    def read(self, raw: Any, field: str, reader: StateReader, total_weight: float) -> Any:
        """The state ``raw``, checked (:class:`StateReader` errors name ``field``)."""
        raise NotImplementedError

    def set(self, state: Any) -> None:
        """Take the state returned by :meth:`read`."""
        raise NotImplementedError

    @staticmethod
    def same_state(a: Any, b: Any) -> bool:
        """Whether two states read by :meth:`read` are equal (copies of one shared table)."""
        return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))

    @classmethod
    def dump_section(cls, group: Sequence[tuple[Accumulator, list[MetricEntry]]]) -> Any:
        """The family's field of the state: every accumulator under each of its names."""
        return {name: acc.dump() for acc, entries in group for name in acc.state_names(entries)}

    @classmethod
    def load_section(
        cls,
        reader: StateReader,
        group: Sequence[tuple[Accumulator, list[MetricEntry]]],
        total_weight: float,
    ) -> None:
        """Read the family's field of the state into the accumulators of ``group`` (checked;
        the copies of one shared table must agree)."""
        section = reader.get(reader.state, cls.section, cls.section)
        wanted = {name: acc for acc, entries in group for name in acc.state_names(entries)}
        reader.exact_keys(section, wanted, cls.section)
        first: dict[int, tuple[str, Any]] = {}
        for name, acc in wanted.items():
            field = f"{cls.section}.{name}"
            state = acc.read(section[name], field, reader, total_weight)
            if id(acc) not in first:
                first[id(acc)] = (name, state)
                acc.set(state)
            elif not acc.same_state(first[id(acc)][1], state):
                raise state_error(
                    field,
                    f"differs from field '{cls.section}.{first[id(acc)][0]}', which holds the "
                    "same table (the state is damaged or was edited)",
                )


def in_caller_units(value: float, e: int) -> float:
    """``value 2^e`` (a sum of the state in the caller's units); ``inf`` beyond the float range."""
    if e == 0 or not math.isfinite(value):
        return value
    with np.errstate(over="ignore"):
        return float(np.ldexp(value, e))


# --------------------------------------------------------------------------------------------
# mean_score
# --------------------------------------------------------------------------------------------


class MeanScore(Accumulator):
    """The weighted sum of the per-sample scores of one metric."""

    family = "mean_score"
    section = "scoring"

    def __init__(self, entry: MetricEntry, k: int, settings: Settings) -> None:
        self.entry = entry
        self.total = 0.0
        super().__init__(entry, k, settings)

    @classmethod
    def check(cls, entry: MetricEntry) -> None:
        opts = dict(entry.options)
        opts.pop("renormalize", None)
        try:
            entry.spec.func([0, 1], [[1.0, 0.0], [0.0, 1.0]], **opts)
        except Exception as exc:
            note = getattr(exc, "add_note", None)
            if note is not None:
                note(f"(an option of metric {entry.name!r})")
            raise

    def prepare(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> float:
        opts = {key: v for key, v in self.entry.options.items() if key != "renormalize"}
        opts["reduction"] = "sum"
        return float(self.entry.spec.func(y, P, sample_weight=w, **opts))

    def commit(self, part: float) -> None:
        self.total += part

    def merge(self, other: MeanScore) -> None:
        self.total += other.total

    def rescale(self, shift: int) -> None:
        with np.errstate(over="ignore", under="ignore"):
            self.total = float(np.ldexp(self.total, shift))

    def copy(self) -> MeanScore:
        out = MeanScore.__new__(MeanScore)
        out.__dict__.update(self.__dict__)
        return out

    def finalize(
        self, entries: Sequence[MetricEntry], total_weight: float, weight_exp: int
    ) -> Values:
        out = {}
        for e in entries:
            mean = e.options.get("reduction", "mean") == "mean"
            value = self.total / total_weight if mean else in_caller_units(self.total, weight_exp)
            out[entry_name(e)] = (value, 0.0)
        return out

    def dump(self) -> float:
        return self.total

    def read(self, raw: Any, field: str, reader: StateReader, total_weight: float) -> float:
        total = reader.number(raw, field, allow_inf=self.entry.spec.range[1] == math.inf)
        most = self.largest_score()
        # a row off 1 by the row-sum tolerance t scales a score by at most (1 + t)^2 < 1 + 3 t
        margin = 1.0 + 3.0 * sum_tolerance(np.dtype(np.float32), self.k) + STATE_RTOL
        if math.isfinite(most) and total > most * margin * total_weight:
            raise state_error(
                field,
                f"must lie in [0, {most:g} x total_weight] = [0, {most * total_weight:.10g}] "
                f"(every per-sample score of {self.entry.name} lies in [0, {most:g}] at "
                f"K = {self.k}); got {total!r} (the state is damaged or was edited)",
            )
        return total

    def largest_score(self) -> float:
        """The largest per-sample score of the entry's metric and options at K classes (inf
        if unbounded).

        The registry's upper bound holds for every K with the default options; an option that
        scales the score (``normalize=False`` gives [0, K-1]) is caught by scoring the corners
        of the simplex, every class against all mass on the first or on the last class, where
        the ordinal scores reach their largest values.
        """
        hi = self.entry.spec.range[1]
        if not math.isfinite(hi):
            return math.inf
        k = self.k
        y = np.concatenate([np.arange(k), np.arange(k)])
        P = np.zeros((2 * k, k))
        P[:k, 0] = 1.0
        P[k:, k - 1] = 1.0
        opts = {key: v for key, v in self.entry.options.items() if key != "renormalize"}
        opts["reduction"] = "none"
        corners = np.asarray(self.entry.spec.func(y, P, **opts), dtype=np.float64)
        return max(hi, float(corners.max()))

    def set(self, state: float) -> None:
        self.total = state

    @staticmethod
    def same_state(a: Any, b: Any) -> bool:
        return bool(a == b)


# --------------------------------------------------------------------------------------------
# confusion_matrix
# --------------------------------------------------------------------------------------------


class ConfusionMatrix(Accumulator):
    """The weighted K x K counts of (true class, decided class) of one decision rule."""

    family = "confusion_matrix"
    section = "confusion"

    def __init__(self, entry: MetricEntry, k: int, settings: Settings) -> None:
        self.rule = self.rule_of(entry, settings)
        self.counts = np.zeros((k, k))
        self.formulas: dict[str, Any] = {}
        super().__init__(entry, k, settings)

    @staticmethod
    def rule_of(entry: MetricEntry, settings: Settings) -> str:
        return str(entry.options.get("decision", settings.decision))

    @classmethod
    def key(cls, entry: MetricEntry, settings: Settings) -> Hashable:
        return (cls.family, cls.rule_of(entry, settings))

    def attach(self, entry: MetricEntry) -> None:
        opts = {key: v for key, v in entry.options.items() if key != "decision"}
        self.formulas[entry_name(entry)] = agreement.counts_evaluator(entry.metric, self.k, **opts)

    def prepare(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> np.ndarray:
        pred = decide(P, self.rule)
        return agreement.confusion_counts(Prepared(y, pred, w, self.k, None))

    def commit(self, part: np.ndarray) -> None:
        self.counts += part

    def merge(self, other: ConfusionMatrix) -> None:
        self.counts += other.counts

    def rescale(self, shift: int) -> None:
        self.counts = np.ldexp(self.counts, shift)

    def copy(self) -> ConfusionMatrix:
        out = ConfusionMatrix.__new__(ConfusionMatrix)
        out.__dict__.update(self.__dict__)
        out.counts = self.counts.copy()
        out.formulas = dict(self.formulas)
        return out

    def finalize(
        self, entries: Sequence[MetricEntry], total_weight: float, weight_exp: int
    ) -> Values:
        out = {}
        for e in entries:
            value = float(self.formulas[entry_name(e)](self.counts))
            out[entry_name(e)] = (agreement.warn_if_undefined(e.metric, value, e.name), 0.0)
        return out

    def state_names(self, entries: Sequence[MetricEntry]) -> list[str]:
        return [self.rule]

    def dump(self) -> np.ndarray:
        return self.counts.copy()

    def read(self, raw: Any, field: str, reader: StateReader, total_weight: float) -> np.ndarray:
        arr = reader.array(raw, self.counts.shape, field)
        reader.total(arr, total_weight, field)
        return arr

    def set(self, state: np.ndarray) -> None:
        self.counts = state

    @staticmethod
    def same_state(a: Any, b: Any) -> bool:
        return bool(np.array_equal(a, b))


# --------------------------------------------------------------------------------------------
# calibration_bins
# --------------------------------------------------------------------------------------------

_PARTS = ("weight", "sum_forecast", "sum_event")


class CalibrationBins(Accumulator):
    """Weight, forecast sum and event sum per (event, uniform bin) of one calibration view."""

    family = "calibration_bins"
    section = "calibration"

    def __init__(self, entry: MetricEntry, k: int, settings: Settings) -> None:
        self.view = self.view_of(entry)
        self.n_bins = int(entry.options.get("n_bins", 15))
        shape = (len(calibration.event_names(self.view, None, k)), self.n_bins)
        self.parts = [np.zeros(shape), np.zeros(shape), np.zeros(shape)]
        super().__init__(entry, k, settings)

    @staticmethod
    def view_of(entry: MetricEntry) -> str:
        view = entry.spec.accumulate_options.get("view")
        if view not in calibration.VIEWS:
            raise ValueError(
                f"metric {entry.metric!r} accumulates 'calibration_bins' but its spec names no "
                f"calibration view: register it with accumulate_options={{'view': ...}}, one of "
                f"{', '.join(repr(v) for v in calibration.VIEWS)}; got {view!r}."
            )
        return str(view)

    @classmethod
    def check(cls, entry: MetricEntry) -> None:
        cls.view_of(entry)
        opts = entry.options
        calibration.check_n_bins(opts.get("n_bins", 15))
        strategy = check_option(opts.get("strategy", "uniform"), "strategy", calibration.STRATEGIES)
        if strategy == "quantile":
            raise ValueError(
                f"{entry.name}: strategy='quantile' cannot be computed in a stream: its bin "
                "edges are quantiles of all the forecasts, unknown until the last batch. "
                "Use strategy='uniform' (bins of equal width), or compute the quantile ECE "
                "in memory with ordmetrics." + entry.metric + "."
            )

    @classmethod
    def key(cls, entry: MetricEntry, settings: Settings) -> Hashable:
        n_bins = int(entry.options.get("n_bins", 15))
        return (cls.family, cls.view_of(entry), n_bins, channel(entry))

    def prepare(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> list[np.ndarray]:
        f, o = calibration.event_forecasts(np.asarray(P, dtype=np.float64), y, self.view)
        ww = np.ones(y.size) if w is None else w
        b = calibration.bin_sums(f, o, ww, self.n_bins, "uniform")
        return [b.weight, b.sum_forecast, b.sum_event]

    def commit(self, part: list[np.ndarray]) -> None:
        for acc, add in zip(self.parts, part, strict=True):
            acc += add

    def merge(self, other: CalibrationBins) -> None:
        self.commit(other.parts)

    def rescale(self, shift: int) -> None:
        self.parts = [np.ldexp(p, shift) for p in self.parts]

    def copy(self) -> CalibrationBins:
        out = CalibrationBins.__new__(CalibrationBins)
        out.__dict__.update(self.__dict__)
        out.parts = [p.copy() for p in self.parts]
        return out

    def finalize(
        self, entries: Sequence[MetricEntry], total_weight: float, weight_exp: int
    ) -> Values:
        # the mean over the events (one event for the top-label view), as in memory
        weight, s_f, s_o = self.parts
        value = float(np.mean(calibration.ece_from_sums(weight, s_f, s_o, total_weight)))
        return {entry_name(e): (value, 0.0) for e in entries}

    def dump(self) -> dict[str, np.ndarray]:
        return {key: p.copy() for key, p in zip(_PARTS, self.parts, strict=True)}

    def read(
        self, raw: Any, field: str, reader: StateReader, total_weight: float
    ) -> list[np.ndarray]:
        shape = self.parts[0].shape
        weight, s_f, s_o = (
            reader.array(reader.get(raw, key, f"{field}.{key}"), shape, f"{field}.{key}")
            for key in _PARTS
        )
        for j in range(weight.shape[0]):  # every event bins every row once
            reader.total(weight[j], total_weight, f"{field}.weight")
        slack = STATE_RTOL * max(total_weight, 1e-300)
        for key, arr in (("sum_forecast", s_f), ("sum_event", s_o)):
            if (arr > weight * (1.0 + STATE_RTOL) + slack).any():
                raise state_error(
                    f"{field}.{key}",
                    "exceeds the weight of its bin somewhere (forecasts and events lie in "
                    "[0, 1]); the state is damaged",
                )
        return [weight, s_f, s_o]

    def set(self, state: list[np.ndarray]) -> None:
        self.parts = state


# --------------------------------------------------------------------------------------------
# rank_table
# --------------------------------------------------------------------------------------------


class RankTableAccumulator(Accumulator):
    """Weights per (expected grade, true class), shared by every ranking metric."""

    family = "rank_table"
    section = "ranking"

    def __init__(self, entry: MetricEntry, k: int, settings: Settings) -> None:
        self.table = RankTable(k, settings.max_exact, settings.n_grid)
        super().__init__(entry, k, settings)

    @classmethod
    def key(cls, entry: MetricEntry, settings: Settings) -> Hashable:
        return (cls.family,)

    def prepare(self, y: np.ndarray, P: np.ndarray, w: np.ndarray | None) -> Any:
        return expected_grade(P), y, w

    def commit(self, part: Any) -> None:
        self.table.add(*part)

    def merge(self, other: RankTableAccumulator) -> None:
        self.table.absorb(other.table)

    def rescale(self, shift: int) -> None:
        self.table.counts = np.ldexp(self.table.counts, shift)

    def copy(self) -> RankTableAccumulator:
        out = RankTableAccumulator.__new__(RankTableAccumulator)
        out.__dict__.update(self.__dict__)
        out.table = self.table.copy()
        return out

    def finalize(
        self, entries: Sequence[MetricEntry], total_weight: float, weight_exp: int
    ) -> Values:
        table = self.table
        cls, score, w, grid_table = table.cells()
        if table.mode == "exact":  # near-tied grades are ties, as in memory
            score = snap(score)
        values: dict[str, float] = {}
        for e in entries:
            if e.metric not in values:
                values[e.metric] = float(e.spec.func(cls, score, sample_weight=w))
        if table.mode == "exact":
            bounds = dict.fromkeys(values, 0.0)
        else:
            wanted = {
                e.metric: (e.spec.accumulate_options.get("grid_bound"), values[e.metric])
                for e in entries
            }
            bounds = grid_bounds(grid_table, cls, score, w, wanted)
        return {entry_name(e): (values[e.metric], bounds[e.metric]) for e in entries}

    @classmethod
    def dump_section(cls, group: Sequence[tuple[Accumulator, list[MetricEntry]]]) -> Any:
        if not group:
            return None
        table = group[0][0].table  # type: ignore[attr-defined]
        return {"mode": table.mode, "values": table.values.copy(), "counts": table.counts.copy()}

    @classmethod
    def load_section(
        cls,
        reader: StateReader,
        group: Sequence[tuple[Accumulator, list[MetricEntry]]],
        total_weight: float,
    ) -> None:
        if not group:
            return
        acc = group[0][0]
        acc.set(
            acc.read(
                reader.get(reader.state, cls.section, cls.section),
                cls.section,
                reader,
                total_weight,
            )
        )

    def read(self, raw: Any, field: str, reader: StateReader, total_weight: float) -> RankTable:
        return read_rank_table(raw, field, reader, self.table, total_weight)

    def set(self, state: RankTable) -> None:
        self.table = state


#: The accumulator class of every family, in the order of the state's sections.
FAMILIES: Mapping[str, type[Accumulator]] = {
    cls.family: cls for cls in (MeanScore, ConfusionMatrix, CalibrationBins, RankTableAccumulator)
}


def family_of(entry: MetricEntry) -> type[Accumulator]:
    """The accumulator class of an entry's family (its spec's ``accumulates``).

    Raises
    ------
    ValueError
        For a metric that cannot be streamed (``accumulates`` None, or a family unknown here).
    """
    family = entry.spec.accumulates
    if family is None or family not in FAMILIES:
        reason = (
            "it needs every row at once (its spec declares no accumulator family)"
            if family is None
            else f"its accumulator family {family!r} is not one of {', '.join(FAMILIES)}"
        )
        raise ValueError(
            f"metric {entry.name!r} cannot be computed in a stream: {reason}. Compute it in "
            f"memory on all the rows, with ordmetrics.{entry.metric}(...) or "
            "ordmetrics.evaluate(...)."
        )
    return FAMILIES[family]
