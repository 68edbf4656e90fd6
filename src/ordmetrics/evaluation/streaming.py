r"""Streaming evaluation: accumulators with a fixed-size state (update, merge, compute).

An :class:`Evaluator` is fed the predictions batch by batch with :meth:`Evaluator.update` and
keeps, whatever the number of rows N, only

* the weighted sum of the per-sample scores of every scoring rule (computed by the rule's own
  function with ``reduction="sum"``) and the total weight;
* one weighted K x K confusion matrix per decision rule, from which
  :func:`ordmetrics.metrics.agreement.counts_evaluator` computes every agreement metric;
* the binned sums of the calibration errors (weight, forecast sum and event sum per bin, made
  by the binning of :mod:`ordmetrics.metrics.calibration`); uniform bins only, since quantile bin
  edges depend on all the forecasts at once;
* for the ranking metrics (``c_index``, ``spearman``, ``kendall_tau``) one table of weights per
  (value of the expected grade g = sum_k k p_k, true class): exact while the grade takes at
  most ``max_exact`` distinct values, afterwards a grid of ``n_grid`` equal cells over
  [0, K - 1], rows in the same cell counting as tied.

Evaluators of parts of the data merge into the evaluator of their union: ``a.merge(b)`` adds
``b`` to ``a`` in place (and returns ``a``), ``a + b`` makes a new evaluator and leaves both
unchanged; merging is associative and commutative. :meth:`Evaluator.compute`
returns a :class:`StreamResult`: the value of every metric and a bound on its error.

Exactness. The scoring rules, the agreement metrics and the calibration errors are exact: any
split of the rows into batches, fed in any order or merged in any tree, gives the value of
:func:`ordmetrics.evaluate` on all rows up to floating-point rounding (sums are added in another
order; about 1e-15 relative). So are the ranking metrics while the table is exact. On the grid,
rows whose grades fall into the same cell become tied; values in different cells keep their
order. Writing W_hc for the weight of class c in cell h, W_h = sum_c W_hc and W the total:

* C-index: binning can only turn an ordered pair of different classes into a tie, which moves
  its contribution by at most 1/2, so
  ``|error| <= T / (2 n_y)`` with T = sum_h sum_{c < c'} W_hc W_hc' (pairs of different
  classes in the same cell) and n_y the weight of all pairs of different classes.
* Kendall's tau-b = S / sqrt(n_y n_s): the true S differs from the binned one by at most T, and
  the true n_s (pairs with different scores) exceeds the binned one by at most
  A = sum_h W_h^2 / 2. The bound is the largest distance from the binned value to
  (S +- T) / sqrt(n_y (n_s + a)), a in [0, A].
* Spearman's rho = cov / sqrt(var_y var_s) of the centred mid-ranks: a row's true mid-rank
  differs from its cell's by at most W_h / 2, and these differences sum to 0 within a cell, so
  the covariance moves by at most sum_h (W_h / 2) sum_c W_hc |d_c - m_h| (d_c the mid-rank of
  class c, m_h its mean in cell h) and the score variance grows by at most sum_h W_h^3 / 12.
  The bound is computed as for tau.

Weight scale. Weights count only through their ratios, and the state is kept safe from
overflow and underflow whatever their scale: every weighted sum of the state is held in units of
2^e of the caller's weights, with one binary exponent e per evaluator chosen so that the largest
weight seen lies in [1, 2) (e = 0 for unit weights). A batch with larger weights raises e and
scales the state down by the exact power of two 2^-j; merging two evaluators scales the one of
smaller e the same way. The values are therefore those of the in-memory functions (which scale
the weights of all the rows by the same rule) for weights of any scale, from subnormals up to
the float maximum, in one batch or many. What float64 cannot represent is lost in both the same
way: a weight smaller than about 2^-1074 times the largest weight seen counts as 0 (weights of
1e-300 in a stream that also holds weights of 1e300 contribute nothing, as in memory), and
``total_weight`` and sums with ``reduction="sum"``, reported in the caller's units, are ``inf``
beyond the float maximum (1.8e308) while the means stay exact.

The bounds are exact computations from the table (0 for every exact metric); they hold for
every data set with that table. With the defaults (2^16 cells) and continuous grades they are
of the order of 1e-5 or smaller.

Examples
--------
>>> import numpy as np
>>> import ordmetrics
>>> from ordmetrics.stream import Evaluator
>>> rng = np.random.default_rng(0)
>>> y = rng.integers(0, 4, size=1000)
>>> P = rng.dirichlet(np.ones(4), size=1000)
>>> ev = Evaluator(["rps", "qwk", "c_index", "ece"])
>>> for start in range(0, 1000, 300):
...     ev.update(y[start:start + 300], P[start:start + 300])
>>> result = ev.compute()
>>> abs(result["rps"] - ordmetrics.rps(y, P)) < 1e-12
True
>>> result.bounds["c_index"]  # 1000 distinct grades <= max_exact: exact
0.0

With fewer exact values allowed, the C-index comes from the grid, with its bound:

>>> small = Evaluator(["c_index"], max_exact=100, n_grid=256)
>>> small.update(y, P)
>>> r = small.compute()
>>> abs(r["c_index"] - ordmetrics.c_index(y, P)) <= r.bounds["c_index"]
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ordmetrics._core import numerics as _numerics
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import (
    NAN_POLICIES,
    Prepared,
    as_proba,
    as_weights,
    check_labels,
    check_lengths,
    check_option,
    encode_labels,
    find_problems,
    proba_looks_valid,
    type_name,
)
from ordmetrics.io.frames import (
    MetricEntry,
    MetricSet,
    _as_metric_set,
    metric_set,
)
from ordmetrics.metrics import agreement as _agreement
from ordmetrics.metrics import calibration as _calibration
from ordmetrics.metrics import ranking as _ranking
from ordmetrics.metrics.decisions import (
    RULES,
    decide,
)

__all__ = [
    "DEFAULT_MAX_EXACT",
    "DEFAULT_N_GRID",
    "MAX_TABLE",
    "STATE_VERSION",
    "Evaluator",
    "StreamResult",
]

#: Version of the layout of :meth:`Evaluator.state_dict`; a state of another version is refused.
STATE_VERSION = 1
_FORMAT = "ordmetrics.stream.Evaluator"

#: Distinct expected grades kept exactly before the ranking table switches to the grid.
DEFAULT_MAX_EXACT = 4096
#: Cells of the grid over [0, K - 1] once the grades are too many to keep exactly.
DEFAULT_N_GRID = 2**16
#: The largest ``n_grid`` and ``max_exact`` accepted: the ranking table holds K numbers per
#: cell (or exact value), 8 bytes each, so 2^24 cells take 128 MiB per class, and its bound
#: is then already far below 1e-9: larger tables would only exhaust the memory.
MAX_TABLE = 2**24

_SCORING = "scoring_rule"
_AGREEMENT = "agreement"
_RANKING = "ranking"
_CALIBRATION = "calibration"
_VIEWS = {"ece": "top_label", "classwise_ece": "classwise", "cumulative_ece": "cumulative"}
_RANKING_ORDER = ("c_index", "kendall_tau", "spearman")


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StreamResult:
    """The values computed by :meth:`Evaluator.compute`, with a bound on each one's error.

    Attributes
    ----------
    values : mapping of str to float
        The value of every metric, by display name (the names of
        :func:`~ordmetrics.metric_set`), in the order of the metric set. ``result[name]`` is
        ``result.values[name]``.
    bounds : mapping of str to float
        For every metric, a bound on ``|value - exact value|``, where the exact value is that of
        :func:`ordmetrics.evaluate` on all the rows: 0.0 for the exact metrics (every metric
        but the ranking ones once their table is on the grid), up to floating-point rounding;
        ``inf`` where the binned value is undefined but the exact one may not be.
    directions : mapping of str to str
        ``"minimize"`` or ``"maximize"`` for every metric.
    n_rows : int
        The rows scored (rows dropped by ``nan_policy="omit"`` not included).
    total_weight : float
        Their total weight (``n_rows`` without weights); ``inf`` when it exceeds the largest
        float (1.8e308), the values being exact all the same (see the module notes).

    Examples
    --------
    >>> from ordmetrics.stream import Evaluator
    >>> ev = Evaluator(["brier", "accuracy"])
    >>> ev.update([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    >>> r = ev.compute()
    >>> {name: round(v, 6) for name, v in r.values.items()}
    {'brier': 0.273333, 'accuracy': 0.666667}
    >>> r.exact, r.n_rows
    (True, 3)
    """

    values: Mapping[str, float]
    bounds: Mapping[str, float]
    directions: Mapping[str, str]
    n_rows: int
    total_weight: float

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    @property
    def exact(self) -> bool:
        """True when every bound is 0 (the values are those of the in-memory evaluation)."""
        return all(b == 0.0 for b in self.bounds.values())

    def __repr__(self) -> str:
        width = max(len(n) for n in self.values)
        lines = [f"StreamResult({self.n_rows} rows, total weight {self.total_weight:g})"]
        for name, value in self.values.items():
            bound = self.bounds[name]
            extra = "" if bound == 0.0 else f"  (+- {bound:.3g})"
            lines.append(f"  {name:<{width}}  {value:.10g}{extra}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Plain values for the state
# --------------------------------------------------------------------------------------------


def _plain(value: Any, what: str) -> Any:
    """``value`` as a plain Python scalar or string, or a copy as a NumPy array of numbers."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    try:
        arr = np.array(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{what} must be a string, a number, a bool, None or an array of numbers to be kept "
            f"in an evaluator's state; got {type_name(value)}."
        )
    return arr


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return type(a) is type(b) and a == b


def _plain_labels(labels: tuple[Hashable, ...] | None) -> list[Any] | None:
    if labels is None:
        return None
    out = []
    for v in labels:
        v = v.item() if isinstance(v, np.generic) else v
        if not (v is None or isinstance(v, str | bool | int | float)):
            raise TypeError(
                f"the class labels must be strings, numbers or booleans for the state of an "
                f"evaluator to hold them; got {type_name(v)} {v!r}."
            )
        out.append(v)
    return out


# --------------------------------------------------------------------------------------------
# The ranking table
# --------------------------------------------------------------------------------------------


class _RankTable:
    """Weights per (expected grade, true class): exact values, or cells of a grid."""

    __slots__ = ("counts", "k", "max_exact", "mode", "n_grid", "values")

    def __init__(self, k: int, max_exact: int, n_grid: int) -> None:
        self.k = k
        self.max_exact = max_exact
        self.n_grid = n_grid
        self.mode = "exact"
        self.values = np.empty(0)
        self.counts = np.zeros((0, k))

    def copy(self) -> _RankTable:
        out = _RankTable(self.k, self.max_exact, self.n_grid)
        out.mode, out.values, out.counts = self.mode, self.values.copy(), self.counts.copy()
        return out

    def _cells(self, grade: np.ndarray) -> np.ndarray:
        scale = self.n_grid / (self.k - 1)
        cell = np.floor(grade * scale)
        np.clip(cell, 0, self.n_grid - 1, out=cell)
        return cell.astype(np.int64)

    def _to_grid(self) -> None:
        grid = np.zeros((self.n_grid, self.k))
        np.add.at(grid, self._cells(self.values), self.counts)
        self.mode, self.values, self.counts = "grid", np.empty(0), grid

    def _add_exact(self, values: np.ndarray, counts: np.ndarray) -> None:
        """Add a table of distinct ``values`` (sorted) with ``counts`` (len(values), K)."""
        keep = counts.sum(axis=1) > 0  # rows of weight 0 take no part in a ranking metric
        values, counts = values[keep], counts[keep]
        if self.mode == "exact":
            union = np.union1d(self.values, values)
            if union.size <= self.max_exact:
                table = np.zeros((union.size, self.k))
                table[np.searchsorted(union, self.values)] += self.counts
                table[np.searchsorted(union, values)] += counts
                self.values, self.counts = union, table
                return
            self._to_grid()
        np.add.at(self.counts, self._cells(values), counts)

    def add(self, grade: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        k = self.k
        if self.mode == "exact":
            values, inverse = np.unique(grade, return_inverse=True)
            if values.size <= self.max_exact:
                flat = inverse.reshape(-1) * k + y
                counts = np.bincount(flat, weights=w, minlength=values.size * k)
                self._add_exact(values, counts.reshape(values.size, k).astype(np.float64))
                return
            self._to_grid()
        cell = self._cells(grade)
        if 8 * grade.size < self.counts.size:  # a small batch: scatter instead of a full count
            np.add.at(self.counts, (cell, y), 1.0 if w is None else w)
        else:
            flat = np.bincount(cell * k + y, weights=w, minlength=self.counts.size)
            self.counts += flat.reshape(self.counts.shape)

    def merge(self, other: _RankTable) -> _RankTable:
        out = self.copy()
        if other.mode == "exact":
            out._add_exact(other.values, other.counts)
        else:
            if out.mode == "exact":
                out._to_grid()
            out.counts += other.counts
        return out

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(class, score, weight) of the cells of positive weight, and the (H, K) table."""
        rows = self.counts.sum(axis=1) > 0
        table = self.counts[rows]
        score = self.values[rows] if self.mode == "exact" else np.flatnonzero(rows).astype(float)
        r, c = np.nonzero(table)
        return c.astype(np.int64), score[r], table[r, c], table


def _interval_bound(
    value: float, num: float, d_num: float, den: float, d_den: float, scale: float
) -> float:
    """Largest distance from ``value`` to (num + a) / sqrt(scale (den + b)), |a| <= d_num,
    0 <= b <= d_den, clipped to [-1, 1]."""
    if not (den > 0.0 and scale > 0.0):
        return math.inf

    def extreme(n: float, up: bool) -> float:
        # the largest value divides a positive numerator by the smallest denominator and a
        # negative one by the largest; the smallest value the other way round
        small = (n >= 0.0) == up
        return n / math.sqrt(scale * (den if small else den + d_den))

    hi = min(1.0, extreme(num + d_num, True))
    lo = max(-1.0, extreme(num - d_num, False))
    return max(hi - value, value - lo, 0.0)


def _rank_bounds(
    table: np.ndarray,
    cls: np.ndarray,
    score: np.ndarray,
    w: np.ndarray,
    values: Mapping[str, float],
) -> dict[str, float]:
    """Error bounds of the ranking ``values`` computed on a grid table (see the module notes)."""
    # the sums of the ranking metrics scale the weights by a power of two (exact, against
    # overflow): scale the table the same way, so that every quantity below has one unit
    scaled, e = scale_weights(w)
    w = w if scaled is None else scaled
    table = np.ldexp(table, -e)
    sums = _ranking._Sums(Prepared(cls, score, w, table.shape[1], None), pairs=True, ranks=True)
    w_h = table.sum(axis=1)
    before = np.cumsum(table, axis=1) - table
    cross = float((table * before).sum())  # pairs of different classes in one cell
    if sums.y_groups < 2:  # no pair of different classes: every value is undefined, exactly
        return dict.fromkeys(_RANKING_ORDER, 0.0)
    out = {"c_index": cross / (2.0 * sums.n_y)}
    if sums.score_groups < 2:
        out["kendall_tau"] = out["spearman"] = math.inf
        return out
    tau = values.get("kendall_tau", sums.S / math.sqrt(sums.n_y * sums.n_s))
    out["kendall_tau"] = _interval_bound(
        tau, sums.S, cross, sums.n_s, float((w_h * w_h).sum()) / 2.0, sums.n_y
    )
    wk = table.sum(axis=0)
    total = float(wk.sum())
    d = np.cumsum(wk) - wk + 0.5 * wk - 0.5 * total  # centred mid-rank of each class
    m = (table @ d) / w_h
    spread = (table * np.abs(d[None, :] - m[:, None])).sum(axis=1)
    d_cov = float((0.5 * w_h * spread).sum())
    d_var = float((w_h**3).sum()) / 12.0
    rho = values.get("spearman", sums.cov / math.sqrt(sums.var_y * sums.var_s))
    out["spearman"] = _interval_bound(rho, sums.cov, d_cov, sums.var_s, d_var, sums.var_y)
    return out


# --------------------------------------------------------------------------------------------
# The evaluator
# --------------------------------------------------------------------------------------------


def _check_count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {least}; got {type_name(value)} {value!r}.")
    value = int(value)
    if value < least:
        raise ValueError(f"{name} must be an integer >= {least}; got {value!r}.")
    if value > MAX_TABLE:
        raise ValueError(
            f"{name} must be at most {MAX_TABLE} (2^24, MAX_TABLE); got {value!r}. The ranking "
            f"table keeps K numbers per cell (8 bytes each), so {value!r} cells would need "
            f"{8 * value / 2**30:,.3g} GiB per class; the default {DEFAULT_N_GRID} already "
            "bounds the error of the ranking metrics by about 1e-5 or less."
        )
    return int(value)


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
        ``strategy="uniform"`` (the default): quantile bins cannot be streamed.
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
    per calibration metric (B bins, E events), and K max(max_exact, n_grid) numbers for the
    ranking table. It never grows with the number of rows.

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
        ms = _as_metric_set(metrics)
        check_option(nan_policy, "nan_policy", NAN_POLICIES)
        check_option(decision, "decision", RULES)
        self._max_exact = _check_count(max_exact, "max_exact", 0)
        self._n_grid = _check_count(n_grid, "n_grid", 1)
        self._nan_policy = nan_policy
        self._decision = decision
        self._labels_arg = None if labels is None else check_labels(labels, None)
        entries = []
        for e in ms:
            options = {
                key: _plain(value, f"option {key!r} of metric {e.name!r}")
                for key, value in e.options.items()
            }
            entries.append(MetricEntry(e.metric, options, e.name))
        self._ms = MetricSet(tuple(entries))
        for e in self._ms:
            self._check_entry(e)
        self._reset()
        if self._labels_arg is not None:
            self._start(len(self._labels_arg), self._labels_arg)

    # ---- configuration --------------------------------------------------------------------

    def _check_entry(self, e: MetricEntry) -> None:
        """Check an entry's options now, where that needs no data."""
        opts = dict(e.options)
        if e.kind == _SCORING:
            opts.pop("renormalize", None)
            try:
                e.spec.func([0, 1], [[1.0, 0.0], [0.0, 1.0]], **opts)
            except Exception as exc:
                note = getattr(exc, "add_note", None)
                if note is not None:
                    note(f"(an option of metric {e.name!r})")
                raise
        elif e.kind == _CALIBRATION:
            _calibration._check_n_bins(opts.get("n_bins", 15))
            strategy = check_option(
                opts.get("strategy", "uniform"), "strategy", _calibration.STRATEGIES
            )
            if strategy == "quantile":
                raise ValueError(
                    f"{e.name}: strategy='quantile' cannot be computed in a stream: its bin "
                    "edges are quantiles of all the forecasts, unknown until the last batch. "
                    "Use strategy='uniform' (bins of equal width), or compute the quantile ECE "
                    "in memory with ordmetrics." + e.metric + "."
                )

    def _reset(self) -> None:
        self._k: int | None = None
        self._labels: tuple[Hashable, ...] | None = None
        self._n_rows = 0
        self._n_missing = 0
        self._total_weight = 0.0
        self._weight_exp = 0
        self._propagated = False
        self._scoring: dict[str, float] = {}
        self._confusion: dict[str, np.ndarray] = {}
        self._calib: dict[str, list[np.ndarray]] = {}
        self._table: _RankTable | None = None
        self._counts_fns: dict[str, Any] = {}

    def _rule(self, e: MetricEntry) -> str:
        return str(e.options.get("decision", self._decision))

    def _start(self, k: int, labels: tuple[Hashable, ...] | None) -> None:
        """Fix K (and the labels) and allocate the state; options that need K are checked."""
        fns = {}
        for e in self._ms:
            if e.kind == _AGREEMENT:
                opts = {key: v for key, v in e.options.items() if key != "decision"}
                fns[_name(e)] = _agreement.counts_evaluator(e.metric, k, **opts)
        self._counts_fns = fns
        self._k, self._labels = k, labels
        for e in self._ms:
            if e.kind == _SCORING:
                self._scoring[_name(e)] = 0.0
            elif e.kind == _AGREEMENT:
                self._confusion.setdefault(self._rule(e), np.zeros((k, k)))
            elif e.kind == _CALIBRATION:
                n_events = {"top_label": 1, "classwise": k, "cumulative": k - 1}
                shape = (n_events[_VIEWS[e.metric]], int(e.options.get("n_bins", 15)))
                self._calib[_name(e)] = [np.zeros(shape), np.zeros(shape), np.zeros(shape)]
            elif e.kind == _RANKING and self._table is None:
                self._table = _RankTable(k, self._max_exact, self._n_grid)

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
        return _in_caller_units(self._total_weight, self._weight_exp)

    # ---- weight scale -----------------------------------------------------------------------

    def _exponent_for(self, w: np.ndarray | None) -> int:
        """The unit exponent of the state once a batch of weights ``w`` is added."""
        if w is None:
            top = 0  # unit weights: 1 = 2^0
        else:
            e = _numerics.weight_exponent(w)
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
            for name, total in self._scoring.items():
                self._scoring[name] = float(np.ldexp(total, shift))
        for rule, m in self._confusion.items():
            self._confusion[rule] = np.ldexp(m, shift)
        for parts in self._calib.values():
            parts[:] = [np.ldexp(p, shift) for p in parts]
        if self._table is not None:
            self._table.counts = np.ldexp(self._table.counts, shift)

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
        if _is_empty(y_proba):
            check_lengths(_length(y_true), 0)
            return
        P = as_proba(y_proba)
        n, k = P.shape
        if self._k is not None and k != self._k:
            origin = "labels=" if self._labels_arg is not None else "the first batch"
            raise ValueError(
                f"y_proba has {k} columns in this batch, but the evaluator has K = {self._k} "
                f"classes (fixed by {origin}); every batch needs one column per class."
            )
        if k < 2:  # pragma: no cover - as_proba refuses it
            raise ValueError("y_proba needs at least 2 columns")
        enc = encode_labels(y_true, labels=self._labels, n_classes=k)
        check_lengths(enc.codes.size, n)
        w = as_weights(sample_weight, n)
        mats = {flag: _channel(P, flag) for flag in self._channels()}
        missing = None
        for Q in mats.values():  # the same rows are missing in both matrices
            missing = _problems(enc.codes, Q, w, enc, self._nan_policy)
        if self._k is None:
            self._start(k, enc.labels)
        y = enc.codes
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

    def _channels(self) -> list[bool]:
        """Which probability matrices the metrics read: as given (False), renormalized (True)."""
        flags = {bool(e.options.get("renormalize", False)) for e in self._ms}
        return sorted(flags)

    def _add(self, y: np.ndarray, mats: dict[bool, np.ndarray], w: np.ndarray | None) -> None:
        k = self._k
        assert k is not None
        # the state holds weights in units of 2^e (see the module notes): the batch's weights
        # are scaled by the same exact power of two before any sum is taken
        unit = self._exponent_for(w)
        if unit != 0:
            w = np.ldexp(np.ones(y.size) if w is None else w, -unit)
        batch_weight = float(y.size) if w is None else float(w.sum())
        scoring: dict[str, float] = {}
        confusion: dict[str, np.ndarray] = {}
        calib: dict[str, list[np.ndarray]] = {}
        grade = None
        if batch_weight > 0.0:
            for e in self._ms:
                flag = bool(e.options.get("renormalize", False))
                P = mats[flag]
                if e.kind == _SCORING:
                    opts = {key: v for key, v in e.options.items() if key != "renormalize"}
                    opts["reduction"] = "sum"
                    scoring[_name(e)] = float(e.spec.func(y, P, sample_weight=w, **opts))
                elif e.kind == _AGREEMENT:
                    rule = self._rule(e)
                    if rule not in confusion:
                        pred = decide(P, rule)
                        confusion[rule] = _agreement._counts(Prepared(y, pred, w, k, None))
                elif e.kind == _CALIBRATION:
                    f, o = _calibration.event_forecasts(
                        np.asarray(P, dtype=np.float64), y, _VIEWS[e.metric]
                    )
                    ww = np.ones(y.size) if w is None else w
                    b = _calibration._bin_sums(
                        f, o, ww, int(e.options.get("n_bins", 15)), "uniform"
                    )
                    calib[_name(e)] = [b.weight, b.sum_forecast, b.sum_event]
                elif e.kind == _RANKING and grade is None:
                    grade = _ranking._expected_grade(P)
        # everything is computed: now change the state (an error above leaves it unchanged)
        self._rescale(unit)
        for name, total in scoring.items():
            self._scoring[name] += total
        for rule, counts in confusion.items():
            self._confusion[rule] += counts
        for name, parts in calib.items():
            for acc, part in zip(self._calib[name], parts, strict=True):
                acc += part
        if grade is not None and self._table is not None:
            self._table.add(grade, y, w)
        self._n_rows += int(y.size)
        self._total_weight += batch_weight

    # ---- merge ----------------------------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        return {
            "metrics": [
                {"metric": e.metric, "name": e.name, "options": dict(e.options)} for e in self._ms
            ],
            "labels": _plain_labels(self._labels_arg),
            "nan_policy": self._nan_policy,
            "decision": self._decision,
            "max_exact": self._max_exact,
            "n_grid": self._n_grid,
        }

    def _difference(self, config: Mapping[str, Any]) -> str | None:
        """What differs between this evaluator's configuration and ``config`` (None if equal)."""
        mine = self._config()
        for key in ("labels", "nan_policy", "decision", "max_exact", "n_grid"):
            if key not in config or not _same_list(mine[key], config[key]):
                return f"{key} differs ({mine[key]!r} vs {config.get(key)!r})"
        other = config.get("metrics")
        if not isinstance(other, list) or [m.get("name") for m in other] != [
            m["name"] for m in mine["metrics"]
        ]:
            names = [m.get("name") for m in other] if isinstance(other, list) else other
            return f"the metrics differ ({[m['name'] for m in mine['metrics']]!r} vs {names!r})"
        for a, b in zip(mine["metrics"], other, strict=True):
            oa, ob = a["options"], b.get("options", {})
            if (
                a["metric"] != b.get("metric")
                or set(oa) != set(ob)
                or not all(_same(oa[key], ob[key]) for key in oa)
            ):
                return f"the options of metric {a['name']!r} differ ({oa!r} vs {ob!r})"
        return None

    def _check_data(self, k: int | None, labels: Any, what: str) -> None:
        if self._k is not None and k is not None:
            if k != self._k:
                raise ValueError(
                    f"cannot {what}: K = {self._k} classes here but K = {k} in the other; "
                    "both must see the same classes."
                )
            if not _same_list(_plain_labels(self._labels), labels):
                raise ValueError(
                    f"cannot {what}: the class labels differ ({_plain_labels(self._labels)!r} "
                    f"vs {labels!r})."
                )

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
        other_labels = _plain_labels(other._labels) if other._k is not None else None
        self._check_data(other._k, other_labels, "merge")
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
        for name, total in theirs._scoring.items():
            out._scoring[name] += total
        for rule, counts in theirs._confusion.items():
            out._confusion[rule] += counts
        for name, parts in theirs._calib.items():
            for acc, part in zip(out._calib[name], parts, strict=True):
                acc += part
        if theirs._table is not None and out._table is not None:
            out._table = out._table.merge(theirs._table)
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
        out._scoring = dict(self._scoring)
        out._confusion = {rule: m.copy() for rule, m in self._confusion.items()}
        out._calib = {name: [p.copy() for p in parts] for name, parts in self._calib.items()}
        out._table = None if self._table is None else self._table.copy()
        out._counts_fns = dict(self._counts_fns)
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
            ``weight_exponent``, ``propagated``, ``scoring`` (weighted score sums),
            ``confusion`` (per decision rule), ``calibration`` (per metric: ``weight``,
            ``sum_forecast``, ``sum_event``) and ``ranking`` (``mode``, ``values``,
            ``counts``). Arrays are copies. Every weighted sum (``total_weight`` included) is
            in units of ``2 ** weight_exponent`` of the caller's weights (0 for weights up to
            about 1; see the module notes); a state without ``weight_exponent`` (written
            before it existed) is read with 0.

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
        table = self._table
        return {
            "format": _FORMAT,
            "version": STATE_VERSION,
            "config": self._config(),
            "n_classes": self._k,
            "labels": _plain_labels(self._labels),
            "n_rows": self._n_rows,
            "n_missing": self._n_missing,
            "total_weight": self._total_weight,
            "weight_exponent": self._weight_exp,
            "propagated": self._propagated,
            "scoring": dict(self._scoring),
            "confusion": {rule: m.copy() for rule, m in self._confusion.items()},
            "calibration": {
                name: {
                    "weight": p[0].copy(),
                    "sum_forecast": p[1].copy(),
                    "sum_event": p[2].copy(),
                }
                for name, p in self._calib.items()
            },
            "ranking": None
            if table is None
            else {"mode": table.mode, "values": table.values.copy(), "counts": table.counts.copy()},
        }

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
        config = _check_header(state)
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
            values in [0, K - 1], every table adding up to ``total_weight``, ...), and the
            message names the field. The evaluator is unchanged when an error is raised.

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
        config = _check_header(state)
        diff = self._difference(config)
        if diff is not None:
            raise ValueError(f"cannot load a state of an evaluator configured differently: {diff}.")
        new = Evaluator.__new__(Evaluator)
        new.__dict__.update(self.__dict__)
        new._reset()
        _StateReader(state, self).load_into(new)  # validates every field first
        self.__dict__.update(new.__dict__)

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
            return _result(nan, dict.fromkeys(names, 0.0), directions, self)
        if self._k is None or not self._total_weight > 0.0:
            what = "no rows have been added" if self._n_rows == 0 else "every row has weight 0"
            raise ValueError(
                f"nothing to compute: {what}. Call update(y_true, y_proba) with rows of positive "
                "weight first."
            )
        values: dict[str, float] = {}
        bounds = dict.fromkeys(names, 0.0)
        ranking = self._ranking_values() if self._table is not None else ({}, {})
        for e in self._ms:
            if e.kind == _SCORING:
                total = self._scoring[_name(e)]
                mean = e.options.get("reduction", "mean") == "mean"
                values[_name(e)] = (
                    total / self._total_weight
                    if mean
                    else _in_caller_units(total, self._weight_exp)
                )
            elif e.kind == _AGREEMENT:
                value = float(self._counts_fns[_name(e)](self._confusion[self._rule(e)]))
                values[_name(e)] = _agreement.warn_if_undefined(e.metric, value, e.name)
            elif e.kind == _CALIBRATION:
                weight, s_f, s_o = self._calib[_name(e)]
                per_event = _calibration.ece_from_sums(weight, s_f, s_o, self._total_weight)
                values[_name(e)] = (
                    float(per_event[0]) if e.metric == "ece" else float(np.mean(per_event))
                )
            else:
                values[_name(e)] = ranking[0][e.metric]
                bounds[_name(e)] = ranking[1][e.metric]
        return _result(values, bounds, directions, self)

    def _ranking_values(self) -> tuple[dict[str, float], dict[str, float]]:
        table = self._table
        assert table is not None
        wanted = {e.metric for e in self._ms if e.kind == _RANKING}
        cls, score, w, grid_table = table.cells()
        if table.mode == "exact":  # near-tied grades are ties, as in memory (_numerics)
            score = _numerics.snap(score)
        funcs = {"c_index": _ranking.c_index, "kendall_tau": _ranking.kendall_tau}
        funcs["spearman"] = _ranking.spearman
        values = {m: float(funcs[m](cls, score, sample_weight=w)) for m in sorted(wanted)}
        if table.mode == "exact":
            return values, dict.fromkeys(values, 0.0)
        bounds = _rank_bounds(grid_table, cls, score, w, values)
        return values, {m: bounds[m] for m in values}


def _result(
    values: dict[str, float], bounds: dict[str, float], directions: dict[str, str], ev: Evaluator
) -> StreamResult:
    return StreamResult(
        values=MappingProxyType(values),
        bounds=MappingProxyType(bounds),
        directions=MappingProxyType(directions),
        n_rows=ev._n_rows,
        total_weight=_in_caller_units(ev._total_weight, ev._weight_exp),
    )


def _in_caller_units(value: float, e: int) -> float:
    """``value 2^e`` (a sum of the state in the caller's units); ``inf`` beyond the float range."""
    if e == 0 or not math.isfinite(value):
        return value
    with np.errstate(over="ignore"):
        return float(np.ldexp(value, e))


# --------------------------------------------------------------------------------------------
# Batch helpers
# --------------------------------------------------------------------------------------------


def _name(e: MetricEntry) -> str:
    """The display name of an entry (a MetricEntry sets it on creation)."""
    name = e.name
    if name is None:  # pragma: no cover - MetricEntry.__post_init__ sets it
        raise RuntimeError("internal error: a metric entry without a name; please report it")
    return name


def _length(x: Any) -> int:
    try:
        return len(x)
    except TypeError:
        return int(np.size(x))


def _is_empty(y_proba: Any) -> bool:
    try:
        return len(y_proba) == 0
    except TypeError:
        return False


def _channel(P: np.ndarray, renormalize: bool) -> np.ndarray:
    """The probability matrix as a metric with ``renormalize`` reads it."""
    return as_proba(P, renormalize=True) if renormalize else P


def _problems(
    y: np.ndarray, P: np.ndarray, w: np.ndarray | None, enc: Any, nan_policy: str
) -> np.ndarray | None:
    """Raise for invalid values (the functions' checks and messages); the rows with a missing
    value otherwise (None when complete).

    A batch whose weights are all 0 is valid here (it adds nothing); whether any row of
    positive weight was seen is checked by :meth:`Evaluator.compute`.
    """
    k = P.shape[1]
    with np.errstate(invalid="ignore"):
        w_ok = w is None or bool(w.min() >= 0.0 and w.max() < np.inf)
    if enc.missing is None and w_ok and y.min() >= 0 and y.max() < k and proba_looks_valid(P):
        return None
    w_check = w
    if w is not None:
        nan = np.isnan(w)
        rest = w[~nan]
        if rest.size and not (rest > 0).any() and (rest == 0).all():
            w_check = np.where(nan, np.nan, 1.0)  # all 0 (or NaN): only the NaN need checking
    # "propagate" only returns the rows with a missing value: "omit" may drop a whole batch
    return find_problems(
        y,
        P,
        w_check,
        y_missing=enc.missing,
        nan_policy="raise" if nan_policy == "raise" else "propagate",
        labels=enc.labels,
        renormalize_hint=False,
    )


def _same_list(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return _same(a, b)


def _check_header(state: Any) -> Mapping[str, Any]:
    if not isinstance(state, Mapping) or state.get("format") != _FORMAT:
        raise ValueError(
            "state must be a dict made by Evaluator.state_dict() (with format "
            f"{_FORMAT!r}); got {type_name(state)}."
        )
    version = state.get("version")
    if version != STATE_VERSION:
        raise ValueError(
            f"the state has version {version!r}, but this ordmetrics reads states of version "
            f"{STATE_VERSION}; compute it again with this version."
        )
    config = state.get("config")
    if not isinstance(config, Mapping):
        raise ValueError("the state has no configuration ('config'); it is damaged.")
    return config


# --------------------------------------------------------------------------------------------
# Validation of a state
# --------------------------------------------------------------------------------------------

#: Relative tolerance of the consistency checks between sums of one state (rounding of sums
#: added in different orders: about 1e-15 relative; 1e-9 leaves a wide margin).
_STATE_RTOL = 1e-9
#: The range of ``weight_exponent``: e - 1 for e the exponent of a positive float64
#: (2^-1074 = 0.5 * 2^-1073 up to 2^1024 (1 - 2^-53)).
_MIN_EXP, _MAX_EXP = -1074, 1023


def _state_error(field: str, message: str) -> ValueError:
    return ValueError(f"cannot load the state: field {field!r} {message}.")


class _StateReader:
    """Reads and checks the data part of a state (see :meth:`Evaluator.load_state_dict`)."""

    def __init__(self, state: Mapping[str, Any], ev: Evaluator) -> None:
        self.state = state
        self.ev = ev

    # ---- fields ---------------------------------------------------------------------------

    def get(self, mapping: Any, key: str, field: str) -> Any:
        if not isinstance(mapping, Mapping):
            raise _state_error(field.rsplit(".", 1)[0], f"must be a dict; got {type_name(mapping)}")
        if key not in mapping:
            raise _state_error(
                field, "is missing; the state is incomplete (make it with Evaluator.state_dict())"
            )
        return mapping[key]

    @staticmethod
    def count(value: Any, field: str) -> int:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise _state_error(field, f"must be an integer >= 0; got {type_name(value)} {value!r}")
        if value < 0:
            raise _state_error(field, f"must be an integer >= 0; got {value!r}")
        return int(value)

    @staticmethod
    def number(value: Any, field: str, allow_inf: bool = False) -> float:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise _state_error(field, f"must be a number; got {type_name(value)} {value!r}")
        v = float(value)
        ok = v >= 0.0 and (allow_inf or v < math.inf)
        if not ok:
            what = "a number >= 0 (or inf)" if allow_inf else "a finite number >= 0"
            raise _state_error(field, f"must be {what}; got {v!r}")
        return v

    @staticmethod
    def exponent(value: Any, field: str) -> int:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise _state_error(
                field, f"must be an integer (a binary exponent); got {type_name(value)} {value!r}"
            )
        e = int(value)
        if not _MIN_EXP <= e <= _MAX_EXP:
            raise _state_error(
                field,
                f"must be an integer in [{_MIN_EXP}, {_MAX_EXP}] (the binary exponent of a "
                f"float64 weight); got {e!r}",
            )
        return e

    @staticmethod
    def array(value: Any, shape: tuple[int, ...] | None, field: str) -> np.ndarray:
        """A finite, non-negative float64 copy of ``value`` of the given shape."""
        if isinstance(value, np.ndarray):
            arr = value
        else:
            try:
                arr = np.asarray(value)
            except (TypeError, ValueError):
                raise _state_error(
                    field, f"must be an array of numbers; got {type_name(value)}"
                ) from None
        if arr.dtype.kind not in "iuf":
            raise _state_error(
                field, f"must be an array of real numbers; got an array of dtype {arr.dtype}"
            )
        if shape is not None and arr.shape != shape:
            raise _state_error(field, f"must have shape {shape}; got shape {arr.shape}")
        out = np.array(arr, dtype=np.float64)
        if not np.isfinite(out).all():
            raise _state_error(field, "must hold finite numbers only; it holds NaN or inf")
        if (out < 0.0).any():
            raise _state_error(field, f"must hold numbers >= 0; it holds {float(out.min())!r}")
        return out

    def total(self, arr: np.ndarray, total_weight: float, field: str) -> None:
        """Check that ``arr`` adds up to ``total_weight`` (up to rounding)."""
        got = float(arr.sum())
        if abs(got - total_weight) > _STATE_RTOL * max(total_weight, got, 1e-300):
            raise _state_error(
                field,
                f"must add up to total_weight = {total_weight!r}; it adds up to {got!r} (the "
                "state is damaged or was edited)",
            )

    # ---- the whole state ------------------------------------------------------------------

    def load_into(self, new: Evaluator) -> None:
        state, ev = self.state, self.ev
        k_raw = self.get(state, "n_classes", "n_classes")
        labels = self.get(state, "labels", "labels")
        n_rows = self.count(self.get(state, "n_rows", "n_rows"), "n_rows")
        n_missing = self.count(self.get(state, "n_missing", "n_missing"), "n_missing")
        total_weight = self.number(self.get(state, "total_weight", "total_weight"), "total_weight")
        weight_exp = self.exponent(state.get("weight_exponent", 0), "weight_exponent")
        propagated = self.get(state, "propagated", "propagated")
        if not isinstance(propagated, bool | np.bool_):
            raise _state_error(
                "propagated", f"must be True or False; got {type_name(propagated)} {propagated!r}"
            )
        propagated = bool(propagated)
        if propagated and (ev._nan_policy != "propagate" or n_missing == 0):
            raise _state_error(
                "propagated",
                "is True, but only an evaluator with nan_policy='propagate' that has met a "
                f"missing value sets it (nan_policy={ev._nan_policy!r}, n_missing={n_missing})",
            )
        if n_rows == 0 and total_weight != 0.0:
            raise _state_error("total_weight", f"must be 0 when n_rows is 0; got {total_weight!r}")
        if k_raw is None:
            if n_rows or n_missing or labels is not None:
                raise _state_error(
                    "n_classes",
                    "is None (no batch seen) but the state has rows or labels; it is damaged",
                )
            return
        if isinstance(k_raw, bool | np.bool_) or not isinstance(k_raw, numbers.Integral):
            raise _state_error(
                "n_classes", f"must be an integer >= 2; got {type_name(k_raw)} {k_raw!r}"
            )
        k = int(k_raw)
        if k < 2:
            raise _state_error("n_classes", f"must be an integer >= 2; got {k}")
        if ev._k is not None and k != ev._k:
            raise _state_error("n_classes", f"is {k}, but this evaluator has K = {ev._k} classes")
        if labels is not None:
            if not isinstance(labels, list | tuple):
                raise _state_error("labels", f"must be a list or None; got {type_name(labels)}")
            if len(labels) != k:
                raise _state_error(
                    "labels", f"must have n_classes = {k} entries; got {len(labels)}"
                )
            _plain_labels(tuple(labels))
        if ev._labels_arg is not None and not _same_list(_plain_labels(ev._labels_arg), labels):
            raise ValueError(
                f"cannot load the state: its labels {labels!r} differ from this evaluator's "
                f"{_plain_labels(ev._labels_arg)!r}."
            )
        new._start(k, None if labels is None else tuple(labels))

        scoring = self.get(state, "scoring", "scoring")
        self.exact_keys(scoring, new._scoring, "scoring")
        for e in ev._ms:
            if e.kind != _SCORING:
                continue
            field = f"scoring.{e.name}"
            unbounded = e.spec.range[1] == math.inf
            new._scoring[_name(e)] = self.number(scoring[_name(e)], field, allow_inf=unbounded)

        confusion = self.get(state, "confusion", "confusion")
        self.exact_keys(confusion, new._confusion, "confusion")
        for rule, m in new._confusion.items():
            field = f"confusion.{rule}"
            arr = self.array(confusion[rule], m.shape, field)
            self.total(arr, total_weight, field)
            new._confusion[rule] = arr

        calibration = self.get(state, "calibration", "calibration")
        self.exact_keys(calibration, new._calib, "calibration")
        for name, parts in new._calib.items():
            part = calibration[name]
            arrs = [
                self.array(
                    self.get(part, key, f"calibration.{name}.{key}"),
                    parts[0].shape,
                    f"calibration.{name}.{key}",
                )
                for key in ("weight", "sum_forecast", "sum_event")
            ]
            weight, s_f, s_o = arrs
            for j in range(weight.shape[0]):  # every event bins every row once
                self.total(weight[j], total_weight, f"calibration.{name}.weight")
            slack = _STATE_RTOL * max(total_weight, 1e-300)
            for key, arr in (("sum_forecast", s_f), ("sum_event", s_o)):
                if (arr > weight * (1.0 + _STATE_RTOL) + slack).any():
                    raise _state_error(
                        f"calibration.{name}.{key}",
                        "exceeds the weight of its bin somewhere (forecasts and events lie in "
                        "[0, 1]); the state is damaged",
                    )
            new._calib[name] = arrs

        if new._table is not None:
            ranking = self.get(state, "ranking", "ranking")
            self.ranking(ranking, new._table, k, total_weight)
        new._n_rows = n_rows
        new._n_missing = n_missing
        new._total_weight = total_weight
        new._weight_exp = weight_exp
        new._propagated = propagated

    @staticmethod
    def exact_keys(value: Any, wanted: Mapping[str, Any], field: str) -> None:
        if not isinstance(value, Mapping):
            raise _state_error(field, f"must be a dict; got {type_name(value)}")
        missing = [key for key in wanted if key not in value]
        extra = [key for key in value if key not in wanted]
        if missing:
            raise _state_error(f"{field}.{missing[0]}", "is missing; the state is incomplete")
        if extra:
            raise _state_error(
                field, f"has entries {extra!r} that no metric of this evaluator makes"
            )

    def ranking(self, r: Any, table: _RankTable, k: int, total_weight: float) -> None:
        mode = self.get(r, "mode", "ranking.mode")
        if mode not in ("exact", "grid") or not isinstance(mode, str):
            raise _state_error("ranking.mode", f"must be 'exact' or 'grid'; got {mode!r}")
        values = self.get(r, "values", "ranking.values")
        raw = np.asarray(values) if not isinstance(values, np.ndarray) else values
        if raw.ndim != 1:
            raise _state_error("ranking.values", f"must be 1-dimensional; got shape {raw.shape}")
        vals = self.array(raw, None, "ranking.values")
        if mode == "exact":
            if vals.size > table.max_exact:
                raise _state_error(
                    "ranking.values",
                    f"holds {vals.size} values in mode 'exact', more than max_exact = "
                    f"{table.max_exact}",
                )
            if vals.size > 1 and not (np.diff(vals) > 0.0).all():
                raise _state_error(
                    "ranking.values", "must be sorted in increasing order without repeats"
                )
            if vals.size and vals[-1] > (k - 1) * (1.0 + 1e-12):
                raise _state_error(
                    "ranking.values",
                    f"must lie in [0, K - 1] = [0, {k - 1}] (expected grades); got "
                    f"{float(vals[-1])!r}",
                )
            rows = vals.size
        else:
            if vals.size:
                raise _state_error("ranking.values", "must be empty in mode 'grid'")
            rows = table.n_grid
        counts = self.array(self.get(r, "counts", "ranking.counts"), (rows, k), "ranking.counts")
        self.total(counts, total_weight, "ranking.counts")
        table.mode, table.values, table.counts = mode, vals, counts
