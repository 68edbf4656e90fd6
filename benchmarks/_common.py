"""What the benchmark scripts of this folder share: options, timing, machine info, tables.

The scripts import it as ``_common``: ``python benchmarks/bench_x.py`` puts the script's folder
first on ``sys.path``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

QUICK_N = 10_000  # rows of a --quick run
QUICK_REPEAT = 3  # timed runs per call of a --quick run
PEER_REPEAT = 3  # peers are slow at 10^6 rows: at most this many timed runs
RTOL = 1e-9  # agreement required between a peer and ordmetrics
GOAL_N = 1_000_000  # the N the goals are stated for


def parse_args(
    doc: str | None, argv: list[str] | None = None, *, repeat: int = 15, min_n: int = 1
) -> argparse.Namespace:
    """Options --n, --k, --repeat, --seed and --quick; ``doc``'s first line describes the script.

    ``--quick`` sets N = ``QUICK_N`` and ``QUICK_REPEAT`` runs, whatever --n and --repeat say.
    """
    parser = argparse.ArgumentParser(description=(doc or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=GOAL_N, help="rows (default 1,000,000)")
    parser.add_argument("--k", type=int, default=5, help="classes (default 5)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=repeat,
        help=f"timed runs per call; best and median ({repeat})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: N = {QUICK_N:,} rows and {QUICK_REPEAT} runs",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat = QUICK_N, QUICK_REPEAT
    if args.n < min_n or args.k < 2 or args.repeat < 1:
        parser.error(f"need --n >= {min_n}, --k >= 2 and --repeat >= 1")
    return args


def dirichlet_proba(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """N rows drawn from Dirichlet(1, ..., 1), float64 and C-contiguous."""
    return np.ascontiguousarray(rng.dirichlet(np.ones(k), size=n), dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


@dataclass
class Timing:
    best: float
    median: float


def timed(fn: Callable[[], Any]) -> float:
    """Seconds one call of ``fn`` takes (``time.perf_counter``)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


@contextlib.contextmanager
def gc_off() -> Iterator[None]:
    """The garbage collector switched off while timing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def summarize(times: list[float]) -> Timing:
    return Timing(min(times), statistics.median(times))


def measure(fn: Callable[[], Any], repeat: int) -> Timing:
    """Best and median of ``repeat`` runs in a row, with the garbage collector off."""
    with gc_off():
        times = [timed(fn) for _ in range(repeat)]
    return summarize(times)


class ReadPass:
    """The baseline ``y_proba.sum()``, sampled again in every round of a round-robin timing.

    Its best time is the minimum over all samples, so load elsewhere on the machine while
    some samples are taken does not shift every ratio.
    """

    def __init__(self, proba: np.ndarray) -> None:
        self.proba = proba
        self.times: list[float] = []

    def sample(self, runs: int) -> None:
        self.times.extend(timed(self.proba.sum) for _ in range(runs))

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


# --------------------------------------------------------------------------------------------
# Timing in fresh processes
# --------------------------------------------------------------------------------------------

#: The hidden option of a script run as a worker: ``--worker INDEX PATH`` (its JSON result
#: goes to PATH).
WORKER_OPTION = "--worker"


def take_int_option(
    argv: list[str] | None, option: str, minimum: int | None = None
) -> tuple[int | None, list[str]]:
    """The integer option ``option`` (e.g. ``--threads``) taken out of the arguments (None:
    not given) and the arguments left; below ``minimum``: an argparse error naming it."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(option, type=int, default=None, dest="value", metavar="N")
    known, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if known.value is not None and minimum is not None and known.value < minimum:
        parser.error(f"need {option} >= {minimum}, got {known.value}")
    return known.value, rest


def take_worker(argv: list[str] | None) -> tuple[tuple[int, str] | None, list[str]]:
    """``--worker INDEX PATH`` taken out of the arguments (None: not a worker)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(WORKER_OPTION, nargs=2, default=None)
    known, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    if known.worker is None:
        return None, rest
    return (int(known.worker[0]), known.worker[1]), rest


def write_worker_result(path: str, result: Any) -> None:
    """A worker's result, as JSON, to the file its parent reads (see :func:`run_workers`)."""
    Path(path).write_text(json.dumps(result), encoding="utf-8")


def run_workers(script: str, argv: Sequence[str], processes: int) -> list[Any]:
    """``python -X faulthandler SCRIPT *argv --worker i PATH`` in ``processes`` new processes,
    one after another (never two at once: they would share the cores); their JSON results.

    On a shared virtual machine a slow episode can last a whole process's timing
    (benchmarks/README.md, calibration benchmark), so a script that times in several fresh
    processes, spread over time, sees it and can report the best. A worker's standard error is
    printed when it has any; a worker that exits with a status other than 0 or writes no
    result stops the run loudly: its command, status, standard output and standard error are
    printed to standard error and ``SystemExit(1)`` is raised.
    """
    results: list[Any] = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(processes):
            path = str(Path(folder) / f"worker{i}.json")
            command = [sys.executable, "-X", "faulthandler", script, *argv]
            command += [WORKER_OPTION, str(i), path]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode == 0 and Path(path).is_file():
                if done.stderr.strip():
                    print(f"worker {i} standard error:\n{done.stderr}", file=sys.stderr)
                results.append(json.loads(Path(path).read_text(encoding="utf-8")))
                continue
            why = "wrote no result" if done.returncode == 0 else f"status {done.returncode}"
            print(
                f"worker {i + 1} of {processes} failed ({why}): {' '.join(command)}\n"
                f"--- its standard output:\n{done.stdout}\n"
                f"--- its standard error:\n{done.stderr}",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(1)
    return results


# --------------------------------------------------------------------------------------------
# Machine and peers
# --------------------------------------------------------------------------------------------


def optional_module(name: str) -> ModuleType | None:
    """The module ``name``, or None when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def optional_version(name: str) -> str | None:
    """The module's ``__version__``, or None when it cannot be imported."""
    module = optional_module(name)
    return None if module is None else module.__version__


def machine_info(packages: Sequence[tuple[str, str]]) -> list[str]:
    """Platform, CPU count and Python, then a line for each (label, module) of ``packages``."""
    lines = [
        f"platform     {platform.platform()} ({platform.machine()})",
        f"cpus         {os.cpu_count()} (os.cpu_count())",
        f"python       {platform.python_version()}",
    ]
    for label, module in packages:
        lines.append(f"{label:<12} {optional_version(module) or 'not installed'}")
    return lines


@dataclass
class Peer:
    """Another library's call (``peer``) and the ordmetrics call it is compared with."""

    name: str
    ours_name: str
    peer: Callable[[], float]
    ours: Callable[[], float]


@dataclass
class Peers:
    """The peers whose library is installed, and a line for each call whose library is not."""

    found: list[Peer] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def library(self, name: str, *calls: str) -> ModuleType | None:
        """The module ``name``; None, with each of ``calls`` noted as not installed, without it."""
        module = optional_module(name)
        if module is None:
            self.missing.extend(f"{call}: not installed" for call in calls)
        return module


def check_value(peer_value: float, ours_value: float, rtol: float = RTOL) -> str:
    """``agrees`` when the two values agree to ``rtol``, otherwise the difference."""
    if np.isclose(peer_value, ours_value, rtol=rtol, atol=0.0):
        return "agrees"
    return f"DIFFERS by {peer_value - ours_value:.3g} ({peer_value:.12g} vs {ours_value:.12g})"


def print_summary(summary: str, n: int, *, goals: str = "goal is", above: bool = False) -> None:
    """The line ``summary: ...``, then a note when N is below ``GOAL_N`` (or above: ``above``)."""
    print(f"summary: {summary}")
    if n < GOAL_N or (above and n != GOAL_N):
        print(f"(the {goals} stated for N = {GOAL_N:,}; this run has N = {n:,})")


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    """Milliseconds in a column 10 wide."""
    return f"{seconds * 1e3:10.2f}"


def table_header(width: int, columns: Sequence[tuple[str, int]], units: Sequence[str]) -> str:
    """The heading, the units below it and a rule, as three lines.

    The first column is ``call``, left-aligned in ``width``; then each (title, width) of
    ``columns`` right-aligned and two spaces apart. ``units`` go under the first columns.
    """
    head = "  ".join([f"{'call':<{width}}", *(f"{title:>{w}}" for title, w in columns)])
    cells = [f"{unit:>{w}}" for unit, (_, w) in zip(units, columns, strict=False)]
    under = "  ".join([f"{'':<{width}}", *cells])
    return "\n".join([head, under, "-" * len(head)])
