"""Benchmark of the first use of ordmetrics: ``ordmetrics --help``, the import, first calls.

Each measurement runs in a new Python process, as a user's first command would:

- ``ordmetrics --help`` (the console script's ``main``; goal <= 0.2 s of wall time for the
  whole process);
- ``import ordmetrics`` (wall time inside the process);
- the first calls of the six scoring rules of the issue (``rps``, ``sa_rps``, ``brier``,
  ``log_loss``, ``pbs``, ``pll``) on N rows of K classes, once with an empty numba cache (a
  fresh install; goal <= 1.5 s for the six together) and once more with the cache the first
  run wrote. With the kernels compiled at install (``ordmetrics._core._scoring_aot_*``, see
  ``ordmetrics._core.aot``) neither compiles; the same two runs with ``ORDMETRICS_AOT=0`` show
  the just-in-time kernels (every kernel compiles, then loads from numba's cache);
- the floor numba sets: its import and the first compilation of a trivial kernel (the target's
  set-up, paid once per process by whatever compiles first);
- with ``--demo``: ``ordmetrics demo`` (the command ``make demo`` runs) with an empty numba
  cache and with the cache written, and the kernels whose compilation cost most in the first
  run.

The numba cache of the cold runs goes to a new temporary folder (``NUMBA_CACHE_DIR``), so the
runs neither use nor disturb the cache of the source tree. ``--repeat`` processes per
measurement; the best and the median are shown. ``--n``: rows of the first calls (default
2,000: the serial kernels; from 2^20 entries the parallel ones compile instead).

Run with ``.venv/bin/python benchmarks/bench_startup.py [--quick] [--n N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RULES = ("rps", "sa_rps", "brier", "log_loss", "pbs", "pll")
GOAL_HELP = 0.2  # seconds, the whole `ordmetrics --help` process
GOAL_FIRST = 1.5  # seconds, the six first calls together in a fresh install

FIRST_CALLS = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import ordmetrics as om
t1 = time.perf_counter()
n, k = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
P = rng.dirichlet(np.ones(k), n)
y = rng.integers(0, k, n)
times = {}
for name in sys.argv[3:]:
    s = time.perf_counter()
    getattr(om, name)(y, P)
    times[name] = time.perf_counter() - s
print(json.dumps({"import": t1 - t0, "calls": times}))
"""

#: numba's import and the first compilation of a trivial kernel (cached in NUMBA_CACHE_DIR).
FLOOR = """
import json, os, sys, time
t0 = time.perf_counter()
import numba
import numpy as np
t1 = time.perf_counter()
path = os.path.join(sys.argv[1], "trivial_kernel.py")
with open(path, "w") as f:
    f.write("import numba\\n@numba.njit(cache=True)\\ndef f(a):\\n    s = 0.0\\n"
            "    for i in range(a.size):\\n        s += a[i]\\n    return s\\n")
sys.path.insert(0, sys.argv[1])
import trivial_kernel
t2 = time.perf_counter()
trivial_kernel.f(np.ones(3))
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t3 - t2}))
"""

#: ``ordmetrics demo`` with numba's compile events timed (the kernels' own compilations).
DEMO = """
import json, sys, time
from numba.core import event
open_, done = [], {}
class Timer(event.Listener):
    def on_start(self, ev):
        func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
        open_.append((time.perf_counter(), getattr(func, "__qualname__", "?")))
    def on_end(self, ev):
        start, name = open_.pop()
        if not open_:  # top level: the time of the kernels it inlines included
            done[name] = done.get(name, 0.0) + time.perf_counter() - start
event.register("numba:compile", Timer())
from ordmetrics.report.cli import main
t0 = time.perf_counter()
code = main(["demo"])
wall = time.perf_counter() - t0
print(json.dumps({"code": code, "wall": wall, "kernels": done}))
"""

HELP = "from ordmetrics.report.cli import main; import sys; sys.argv[0] = 'ordmetrics'; main()"


def run(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall time of ``python -c code args`` and its standard output."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"benchmark process failed:\n{done.stderr}")
    return wall, done.stdout


def floor(cache: str) -> dict[str, float]:
    """numba's import and first compilation of a trivial kernel, in a new process."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    result: dict[str, float] = json.loads(run(FLOOR, cache, env=env)[1])
    return result


def demo(cache: str, folder: str) -> tuple[float, dict[str, float]]:
    """Wall time of the whole ``ordmetrics demo`` process in ``folder`` and the compile time
    of each kernel compiled in it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", DEMO],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=False,
        timeout=600,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"ordmetrics demo failed:\n{done.stderr}")
    last = done.stdout.strip().splitlines()[-1]
    return wall, json.loads(last)["kernels"]


def first_calls(n: int, k: int, cache: str, aot: bool = True) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    if not aot:
        env["ORDMETRICS_AOT"] = "0"
    _, out = run(FIRST_CALLS, str(n), str(k), *RULES, env=env)
    result = json.loads(out)
    calls = result["calls"]
    return {"import": result["import"], **calls, "six": sum(calls.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="rows of the first calls (2,000)")
    parser.add_argument("--k", type=int, default=5, help="classes (5)")
    parser.add_argument("--repeat", type=int, default=3, help="processes per measurement (3)")
    parser.add_argument("--quick", action="store_true", help="smoke run: one process each")
    parser.add_argument(
        "--demo", action="store_true", help="also time `ordmetrics demo` (about a minute)"
    )
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else max(1, args.repeat)

    from ordmetrics._core.aot import aot_status

    print("ordmetrics start-up benchmark: new processes; numba cache in a new temporary folder")
    print(f"kernels compiled at install: {aot_status()}")
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus; first calls on N = "
        f"{args.n:,} rows, K = {args.k}; best and median of {repeat} process(es)"
    )

    helps = [run(HELP, "--help")[0] for _ in range(repeat)]
    cold: list[dict[str, float]] = []
    warm: list[dict[str, float]] = []
    jit_cold: list[dict[str, float]] = []
    jit_warm: list[dict[str, float]] = []
    floors: list[dict[str, float]] = []
    for _ in range(repeat):
        cache = tempfile.mkdtemp(prefix="ordmetrics-numba-")
        try:
            floors.append(floor(cache))
            cold.append(first_calls(args.n, args.k, cache))
            warm.append(first_calls(args.n, args.k, cache))
            jit_cold.append(first_calls(args.n, args.k, cache, aot=False))
            jit_warm.append(first_calls(args.n, args.k, cache, aot=False))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    demos: list[tuple[float, float, dict[str, float]]] = []
    if args.demo:
        cache = tempfile.mkdtemp(prefix="ordmetrics-numba-")
        folder = tempfile.mkdtemp(prefix="ordmetrics-demo-")
        try:
            cold_wall, kernels = demo(cache, folder)
            warm_wall, _ = demo(cache, folder)
            demos.append((cold_wall, warm_wall, kernels))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)

    def cell(values: list[float]) -> str:
        return f"{min(values):8.3f} {statistics.median(values):8.3f}"

    print()
    print(f"{'measurement':42s} {'best s':>8s} {'median':>8s}")
    print("-" * 60)
    print(f"{'ordmetrics --help (whole process)':42s} {cell(helps)}")
    print(f"{'import ordmetrics':42s} {cell([c['import'] for c in cold])}")
    for name in RULES:
        print(f"{'first ' + name + ' (empty numba cache)':42s} {cell([c[name] for c in cold])}")
    print(f"{'six first calls, empty cache':42s} {cell([c['six'] for c in cold])}")
    print(f"{'six first calls, cache written':42s} {cell([c['six'] for c in warm])}")
    print(f"{'six, just in time, empty cache':42s} {cell([c['six'] for c in jit_cold])}")
    print(f"{'six, just in time, cache written':42s} {cell([c['six'] for c in jit_warm])}")
    print(f"{'numba floor: import numba':42s} {cell([f['import'] for f in floors])}")
    print(f"{'numba floor: first trivial kernel':42s} {cell([f['first'] for f in floors])}")
    for cold_wall, warm_wall, kernels in demos:
        print(f"{'ordmetrics demo, empty cache':42s} {cold_wall:8.3f}")
        print(f"{'ordmetrics demo, cache written':42s} {warm_wall:8.3f}")
        total = sum(kernels.values())
        print(f"  {len(kernels)} kernels compiled in {total:.1f} s; the costliest:")
        for name, seconds in sorted(kernels.items(), key=lambda kv: -kv[1])[:8]:
            print(f"    {name:40s} {seconds:8.3f}")

    best_help = min(helps)
    best_cold = min(c["six"] for c in cold)
    best_warm = min(c["six"] for c in warm)
    ok_help = "met" if best_help <= GOAL_HELP else "NOT met"
    ok_cold = "met" if best_cold <= GOAL_FIRST else "NOT met"
    print()
    print(
        f"summary: --help {best_help:.2f} s (goal <= {GOAL_HELP} s {ok_help}); six first calls "
        f"{best_cold:.2f} s with an empty numba cache (goal <= {GOAL_FIRST} s {ok_cold}), "
        f"{best_warm:.2f} s from the cache"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
