"""The ranking table of the stream: weights per (expected grade, true class), and its bounds.

Exact while the expected grade takes at most ``max_exact`` distinct values, afterwards a grid
of ``n_grid`` equal cells over [0, K - 1] (rows in one cell count as tied). The bounds of the
grid are derived in the notes of :mod:`ordmetrics.evaluation.streaming`; which bound applies
to a metric is the ``grid_bound`` of its spec's ``accumulate_options`` (``"concordance"``,
``"tau_b"`` or ``"rho"``; a metric without one is bounded by ``inf`` once on the grid).

Examples
--------
>>> import numpy as np
>>> from ordmetrics.evaluation.streaming.ranks import RankTable
>>> t = RankTable(k=3, max_exact=2, n_grid=4)
>>> t.add(np.array([0.5, 1.5]), np.array([0, 2]), None)
>>> t.mode, t.values.tolist()
('exact', [0.5, 1.5])
>>> t.add(np.array([1.0]), np.array([1]), None)  # a third distinct grade: on the grid
>>> t.mode, t.counts.shape, t.counts.sum(axis=0).tolist()
('grid', (4, 3), [1.0, 1.0, 1.0])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import Prepared
from ordmetrics.evaluation.streaming.state import StateReader, state_error
from ordmetrics.metrics.ranking import Sums

__all__ = [
    "DEFAULT_MAX_EXACT",
    "DEFAULT_N_GRID",
    "GRID_BOUNDS",
    "MAX_TABLE",
    "RankTable",
    "grid_bounds",
    "read_rank_table",
]

#: Distinct expected grades kept exactly before the ranking table switches to the grid.
DEFAULT_MAX_EXACT = 4096
#: Cells of the grid over [0, K - 1] once the grades are too many to keep exactly.
DEFAULT_N_GRID = 2**16
#: The largest ``n_grid`` and ``max_exact`` accepted: the ranking table holds K numbers per
#: cell (or exact value), 8 bytes each, so 2^24 cells take 128 MiB per class, and its bound
#: is then already far below 1e-9: larger tables would only exhaust the memory.
MAX_TABLE = 2**24


class RankTable:
    """Weights per (expected grade, true class): exact values, or cells of a grid."""

    __slots__ = ("counts", "k", "max_exact", "mode", "n_grid", "values")

    def __init__(self, k: int, max_exact: int, n_grid: int) -> None:
        self.k = k
        self.max_exact = max_exact
        self.n_grid = n_grid
        self.mode = "exact"
        self.values = np.empty(0)
        self.counts = np.zeros((0, k))

    def copy(self) -> RankTable:
        out = RankTable(self.k, self.max_exact, self.n_grid)
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
        """Add rows of expected grades ``grade``, classes ``y`` and weights ``w``."""
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

    def absorb(self, other: RankTable) -> None:
        """Add the table ``other`` (left unchanged) to this one, in place."""
        if other.mode == "exact":
            self._add_exact(other.values, other.counts)
        else:
            if self.mode == "exact":
                self._to_grid()
            self.counts += other.counts

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


def read_rank_table(
    raw: Any, field: str, reader: StateReader, table: RankTable, total_weight: float
) -> RankTable:
    """The ranking table of the state field ``raw``, checked, shaped like ``table``."""
    k = table.k
    mode = reader.get(raw, "mode", f"{field}.mode")
    if mode not in ("exact", "grid") or not isinstance(mode, str):
        raise state_error(f"{field}.mode", f"must be 'exact' or 'grid'; got {mode!r}")
    values = reader.get(raw, "values", f"{field}.values")
    arr = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if arr.ndim != 1:
        raise state_error(f"{field}.values", f"must be 1-dimensional; got shape {arr.shape}")
    vals = reader.array(arr, None, f"{field}.values")
    if mode == "exact":
        if vals.size > table.max_exact:
            raise state_error(
                f"{field}.values",
                f"holds {vals.size} values in mode 'exact', more than max_exact = "
                f"{table.max_exact}",
            )
        if vals.size > 1 and not (np.diff(vals) > 0.0).all():
            raise state_error(
                f"{field}.values", "must be sorted in increasing order without repeats"
            )
        if vals.size and vals[-1] > (k - 1) * (1.0 + 1e-12):
            raise state_error(
                f"{field}.values",
                f"must lie in [0, K - 1] = [0, {k - 1}] (expected grades); got {float(vals[-1])!r}",
            )
        rows = vals.size
    else:
        if vals.size:
            raise state_error(f"{field}.values", "must be empty in mode 'grid'")
        rows = table.n_grid
    counts = reader.array(
        reader.get(raw, "counts", f"{field}.counts"), (rows, k), f"{field}.counts"
    )
    reader.total(counts, total_weight, f"{field}.counts")
    out = RankTable(k, table.max_exact, table.n_grid)
    out.mode, out.values, out.counts = mode, vals, counts
    return out


class _Grid(NamedTuple):
    """What the bounds read from a grid table (see the notes of the streaming package)."""

    sums: Sums  # pair and rank sums of the binned table
    table: np.ndarray  # (H, K) weights, scaled like the sums
    cross: float  # pairs of different classes in one cell


def _concordance(value: float, g: _Grid) -> float:
    """C-index: a tie in a cell moves an ordered pair by at most 1/2."""
    return g.cross / (2.0 * g.sums.n_y)


def _tau_b(value: float, g: _Grid) -> float:
    """Kendall's tau-b: S moves by at most the cross pairs, n_s grows by at most sum W_h^2/2."""
    s = g.sums
    if s.score_groups < 2:
        return math.inf
    w_h = g.table.sum(axis=1)
    return _interval_bound(value, s.S, g.cross, s.n_s, float((w_h * w_h).sum()) / 2.0, s.n_y)


def _rho(value: float, g: _Grid) -> float:
    """Spearman's rho: mid-ranks move by at most W_h / 2 within a cell."""
    s, table = g.sums, g.table
    if s.score_groups < 2:
        return math.inf
    w_h = table.sum(axis=1)
    wk = table.sum(axis=0)
    total = float(wk.sum())
    d = np.cumsum(wk) - wk + 0.5 * wk - 0.5 * total  # centred mid-rank of each class
    m = (table @ d) / w_h
    spread = (table * np.abs(d[None, :] - m[:, None])).sum(axis=1)
    d_cov = float((0.5 * w_h * spread).sum())
    d_var = float((w_h**3).sum()) / 12.0
    return _interval_bound(value, s.cov, d_cov, s.var_s, d_var, s.var_y)


#: The bounds of a grid table, by the ``grid_bound`` a ranking metric's spec declares in its
#: ``accumulate_options``: each takes the binned value and the grid's sums.
GRID_BOUNDS: Mapping[str, Callable[[float, _Grid], float]] = {
    "concordance": _concordance,
    "tau_b": _tau_b,
    "rho": _rho,
}


def grid_bounds(
    table: np.ndarray,
    cls: np.ndarray,
    score: np.ndarray,
    w: np.ndarray,
    wanted: Mapping[str, tuple[str | None, float]],
) -> dict[str, float]:
    """Error bounds of ranking values computed on a grid table (see the package notes).

    ``wanted`` maps a metric name to (its ``grid_bound``, its binned value); a metric without
    a known ``grid_bound`` is bounded by ``inf``.
    """
    # the sums of the ranking metrics scale the weights by a power of two (exact, against
    # overflow): scale the table the same way, so that every quantity below has one unit
    scaled, e = scale_weights(w)
    w = w if scaled is None else scaled
    table = np.ldexp(table, -e)
    sums = Sums(Prepared(cls, score, w, table.shape[1], None), pairs=True, ranks=True)
    if sums.y_groups < 2:  # no pair of different classes: every value is undefined, exactly
        return dict.fromkeys(wanted, 0.0)
    before = np.cumsum(table, axis=1) - table
    grid = _Grid(sums, table, float((table * before).sum()))
    out = {}
    for name, (kind, value) in wanted.items():
        bound = GRID_BOUNDS.get(kind or "")
        out[name] = math.inf if bound is None else bound(value, grid)
    return out
