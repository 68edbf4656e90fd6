"""The timing engine and Markdown tables of ``bench_scaling.py`` (imported as ``_scaling``).

Rows (one call at one K across the decades of N), cells (the runs of one call on one data set,
or why it was skipped), the round-robin timing of a data set's calls with its memory and time
budgets, and the tables of times, growth per decade and peer / ordmetrics ratios.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from _common import gc_off, timed

MEMORY_CAP = 10e9  # bytes a call may need, data included
NOISY = 0.25  # a spread above this marks a cell noisy
FIRST_GROWTH = 100.0  # growth assumed from the first N to the next (quadratic at worst)


@dataclass
class Data:
    n: int
    k: int
    proba: np.ndarray
    y: np.ndarray
    y_pred: np.ndarray
    seed: int
    chunk: float  # seconds of resamples per timed run of a bootstrap loop

    @property
    def nbytes(self) -> int:
        return self.proba.nbytes + self.y.nbytes + self.y_pred.nbytes


Prepared = tuple[Callable[[], Any], float]  # a zero-argument call and the factor on its time


@dataclass
class Call:
    """A row of the table: ``prepare(data)`` gives the call to time and a factor on its time;
    peers name the ordmetrics row they stand beside and ``check(data)`` compares values."""

    name: str
    prepare: Callable[[Data], Prepared]
    ours: str | None = None  # the ordmetrics row a peer stands beside
    check: Callable[[Data], str] | None = None
    ks: tuple[int, ...] | None = None  # only these K (None: every K)
    loop: bool = False  # timed on some resamples and scaled to N_RESAMPLES

    @property
    def peer(self) -> bool:
        return self.ours is not None


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


@dataclass
class Cell:
    times: list[float] = field(default_factory=list)  # seconds, scaled
    text: str | None = None  # a skipped cell: why
    scaled: bool = False  # timed on part of the work and scaled (bootstrap loops)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def spread(self) -> float:
        """Half the interquartile range of the runs over their median."""
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return (q3 - q1) / 2.0 / self.median

    def show(self) -> str:
        if self.text is not None:
            return self.text
        value = ("~" if self.scaled else "") + duration(self.median)
        if len(self.times) == 1:
            return f"{value} (1 run)"
        mark = "*" if self.spread > NOISY else ""
        return f"{value} ±{self.spread:.0%}{mark}"


@dataclass
class Row:
    """One call at one K across the decades of N."""

    call: Call
    k: int
    cells: dict[int, Cell] = field(default_factory=dict)
    last: float | None = None  # median seconds at the previous N
    scale: float = 1.0  # the factor on the time of one run at the previous N
    growth: float | None = None  # last median / the one before
    stopped: str | None = None  # the text of every further cell
    memory: float | None = None  # traced peak of the last traced run / matrix bytes


def duration(seconds: float) -> str:
    """Seconds with 3 significant digits, in µs, ms or s."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale or unit == "µs":
            value = seconds / scale
            digits = max(0, 2 - math.floor(math.log10(max(value, 1e-9))))
            return f"{value:.{digits}f} {unit}"
    raise AssertionError  # pragma: no cover


def runs_for(seconds: float, quick: bool) -> int:
    """Timed runs of a call whose first run took ``seconds``."""
    runs = 9 if seconds < 0.05 else 5 if seconds < 0.5 else 3 if seconds < 2.0 else 1
    return min(runs, 2) if quick else runs


def traced_peak(fn: Callable[[], Any]) -> int:
    """Peak bytes traced by tracemalloc during one call of ``fn``."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@dataclass
class Pending:
    row: Row
    fn: Callable[[], Any]
    scale: float
    left: int
    cell: Cell


def start(row: Row, d: Data, budget: float, quick: bool) -> Pending | None:
    """Skip the cell (set its text) or time its first run; the rest is timed in rounds."""
    if row.stopped is not None:
        row.cells[d.n] = Cell(text=row.stopped)
        return None
    limit = f">{budget:g} s"
    if row.last is not None and not row.call.loop:
        estimate = row.last * max(10.0, row.growth or FIRST_GROWTH)
        if estimate > budget:
            row.stopped = limit
            row.cells[d.n] = Cell(text=f"{limit} (est. {duration(estimate)})")
            return None
    if row.memory is not None:
        need = d.nbytes + row.memory * d.proba.nbytes
        if need > MEMORY_CAP:
            row.cells[d.n] = Cell(text=f"- (needs ~{need / 1e9:.0f} GB)")
            return None
    fn, scale = row.call.prepare(d)
    if row.last is None and row.call.check is None and not row.call.loop:
        fn()  # compile, or load from the cache (the value check or prepare ran the others)
    with gc_off():
        first = timed(fn)
    if not row.call.loop and first < 5.0:  # cheap enough: trace its memory
        row.memory = traced_peak(fn) / d.proba.nbytes
    cell = Cell([first * scale], scaled=scale != 1.0)
    if first > budget:
        row.stopped = limit
        mark = "~" if scale != 1.0 else ""
        cell = Cell(text=f"{limit} (1 run: {mark}{duration(first * scale)})")
        row.cells[d.n] = cell
        return None
    return Pending(row, fn, scale, runs_for(first, quick) - 1, cell)


def time_cell(rows: list[Row], d: Data, args: argparse.Namespace) -> None:
    """Time every row at this data set, the calls taking turns, one run each per round."""
    pending = []
    ours = {row.call.name: row for row in rows if not row.call.peer}
    for row in rows:
        budget = args.peer_budget if row.call.peer else args.budget
        beside = ours.get(row.call.ours or "")
        if beside is not None and beside.stopped and row.call.loop:
            row.stopped = "-"  # a loop goes no further than the bootstrap it stands beside
            row.cells[d.n] = Cell(text="- (no bootstrap)")
            continue
        p = start(row, d, budget, args.quick)
        if p is not None:
            pending.append(p)
    with gc_off():
        while any(p.left for p in pending):
            for p in pending:
                if p.left:
                    p.cell.times.append(timed(p.fn) * p.scale)
                    p.left -= 1
    for p in pending:
        row = p.row
        row.cells[d.n] = p.cell
        median = p.cell.median
        row.growth = None if row.last is None else median / row.last
        row.last, row.scale = median, p.scale


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def power(n: int) -> str:
    return f"10^{round(math.log10(n))}"


def markdown(head: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(line) + " |" for line in body]
    return "\n".join(lines)


def ordered(rows: list[Row], calls: list[Call]) -> list[Row]:
    """Rows by call (in the order of ``calls``), then by K."""
    rank = {call.name: i for i, call in enumerate(calls)}
    return sorted(rows, key=lambda r: (rank[r.call.name], r.k))


def times_table(rows: list[Row], ns: list[int]) -> str:
    body = [[r.call.name, *(r.cells[n].show() if n in r.cells else "" for n in ns)] for r in rows]
    return markdown(["call", *(f"N = {power(n)}" for n in ns)], body)


def growth(row: Row, a: int, b: int) -> str:
    ca, cb = row.cells.get(a), row.cells.get(b)
    if ca is None or cb is None or ca.text is not None or cb.text is not None:
        return ""
    noisy = any(len(c.times) > 1 and c.spread > NOISY for c in (ca, cb))
    return f"{cb.median / ca.median:.1f}" + ("*" if noisy else "")


def growth_table(rows: list[Row], ns: list[int]) -> str:
    steps = list(itertools.pairwise(ns))
    head = ["call", *(f"{power(a)} to {power(b)}" for a, b in steps)]
    body = [["O(N)", *("10.0" for _ in steps)]]
    body.append(["O(N log N)", *(f"{10 * math.log(b) / math.log(a):.1f}" for a, b in steps)])
    body += [[r.call.name, *(growth(r, a, b) for a, b in steps)] for r in rows]
    return markdown(head, body)


def speedup_table(rows: list[Row], ns: list[int]) -> str:
    ours = {(r.call.name, r.k): r for r in rows if not r.call.peer}
    body = []
    for r in rows:
        if not r.call.peer:
            continue
        o = ours[(r.call.ours or "", r.k)]
        line = [r.call.name, o.call.name]
        for n in ns:
            cp, co = r.cells.get(n), o.cells.get(n)
            ok = cp is not None and co is not None and cp.text is None and co.text is None
            line.append(f"{cp.median / co.median:.1f}x" if ok else "")  # type: ignore[union-attr]
        body.append(line)
    return markdown(["peer", "ordmetrics", *(f"N = {power(n)}" for n in ns)], body)
