"""Benchmark of streaming evaluation: the Evaluator against the in-memory evaluation, and files.

Two parts, K = 5 classes, the default metrics (``ordmetrics.DEFAULT_METRICS``):

(a) Throughput. ``ordmetrics.stream.Evaluator`` fed N rows (default 10^6) in batches of
    ``--batch-size`` rows (65,536), then ``compute()``, against ``ordmetrics.evaluate`` on a
    pandas frame of the same rows. Goal: streaming within 2x of the in-memory time. The values
    are checked to agree (within the stated bound for the ranking metrics on the grid).
(b) A file. ``ordmetrics.files.evaluate_file`` on a Parquet file of ``--file-rows`` rows
    (default 10^8, about 4 GB; ``--quick``: 10^6) written by this script into a temporary
    folder in row groups of ``--row-group`` rows and deleted afterwards. It runs in a child
    process, which reports rows per second and its peak memory: tracemalloc (Python and NumPy
    allocations), pyarrow's memory pool, and the process's peak resident set size (VmHWM of
    /proc/self/status, else ``resource.getrusage``) before and after the evaluation. Files of
    at most 10^7 rows are also checked against the in-memory evaluation. The default run
    takes a few minutes and prints its progress.

Run with ``.venv/bin/python benchmarks/bench_stream.py [--quick] [--file-rows N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import _common as common
import numpy as np

import ordmetrics
from ordmetrics.stream import Evaluator

GOAL_RATIO = 2.0  # streaming at most this many times the in-memory time
CHECK_ROWS = 10**7  # files up to this size are checked against the in-memory evaluation
PACKAGES = (
    ("numpy", "numpy"),
    ("numba", "numba"),
    ("ordmetrics", "ordmetrics"),
    ("pandas", "pandas"),
    ("pyarrow", "pyarrow"),
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=common.GOAL_N, help="rows of part (a) (10^6)")
    parser.add_argument("--k", type=int, default=5, help="classes (default 5)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of part (a) (5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy default_rng (0)")
    parser.add_argument("--batch-size", type=int, default=65_536, help="rows per batch (65,536)")
    parser.add_argument(
        "--file-rows", type=int, default=10**8, help="rows of the Parquet file of part (b) (10^8)"
    )
    parser.add_argument(
        "--row-group", type=int, default=1_000_000, help="rows per Parquet row group (10^6)"
    )
    parser.add_argument("--dir", default=None, help="folder for the temporary file (system temp)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: N = {common.QUICK_N:,}, {common.QUICK_REPEAT} runs, a 10^6-row file",
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeat, args.file_rows = common.QUICK_N, common.QUICK_REPEAT, 10**6
    if min(args.n, args.repeat, args.batch_size, args.file_rows, args.row_group) < 1:
        parser.error("--n, --repeat, --batch-size, --file-rows and --row-group must be >= 1")
    if args.k < 2:
        parser.error("need --k >= 2")
    return args


def proba_columns(k: int) -> list[str]:
    return [f"p{j}" for j in range(k)]


def chunk(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """N rows: Dirichlet(1) probabilities and a truth drawn from them (calibrated)."""
    P = common.dirichlet_proba(rng, n, k)
    u = rng.random(n)[:, None]
    y = (np.cumsum(P, axis=1)[:, :-1] < u).sum(axis=1).astype(np.int64)
    return y, P


def agreement(values: dict[str, float], bounds: dict[str, float], ref: dict[str, float]) -> str:
    bad = [
        name
        for name, v in values.items()
        if not abs(v - ref[name]) <= bounds[name] + 1e-9 * max(1.0, abs(ref[name]))
    ]
    if bad:
        return "DIFFERS: " + ", ".join(f"{n} {values[n]!r} vs {ref[n]!r}" for n in bad)
    return "agrees"


# --------------------------------------------------------------------------------------------
# (a) throughput
# --------------------------------------------------------------------------------------------


def part_a(args: argparse.Namespace) -> float:
    import pandas as pd

    rng = np.random.default_rng(args.seed)
    y, P = chunk(rng, args.n, args.k)
    cols = proba_columns(args.k)
    df = pd.DataFrame(P, columns=cols)
    df.insert(0, "y", y)
    batch = args.batch_size

    def in_memory() -> dict[str, float]:
        out = ordmetrics.evaluate(df, truth="y", proba=cols)
        return dict(zip(out["metric"], out["estimate"], strict=True))

    def functional() -> dict[str, float]:
        out = {}
        pred = ordmetrics.decide(P)
        for name in ordmetrics.DEFAULT_METRICS:
            spec = ordmetrics.get_metric(name)
            if spec.kind == "agreement":
                out[name] = spec.func(y, pred, labels=range(args.k))
            else:
                out[name] = spec.func(y, P)
        return out

    def streaming() -> Any:
        ev = Evaluator()
        for s in range(0, args.n, batch):
            ev.update(y[s : s + batch], P[s : s + batch])
        return ev.compute()

    print(f"(a) throughput: all default metrics, batches of {batch:,} rows")
    first_mem = common.timed(in_memory)
    first_fun = common.timed(functional)
    first_stream = common.timed(streaming)
    mem = common.measure(in_memory, args.repeat)
    fun = common.measure(functional, args.repeat)
    stream = common.measure(streaming, args.repeat)
    columns = [("first call", 10), ("best", 10), ("median", 10), ("rows/s", 14)]
    print(common.table_header(40, columns, ["ms", "ms", "ms", "best"]))
    for name, first, t in (
        ("ordmetrics.evaluate (pandas, in memory)", first_mem, mem),
        ("the 10 functions on arrays (in memory)", first_fun, fun),
        ("stream.Evaluator update + compute", first_stream, stream),
    ):
        rate = args.n / t.best
        print(
            f"{name:<40}  {common.ms(first)}  {common.ms(t.best)}  {common.ms(t.median)}  "
            f"{rate:14,.0f}"
        )
    ratio = stream.best / min(mem.best, fun.best)
    result = streaming()
    check = agreement(dict(result.values), dict(result.bounds), in_memory())
    check_fun = agreement(dict(result.values), dict(result.bounds), functional())
    print(
        f"streaming / the faster in-memory time: {ratio:.2f}x; values: {check} (evaluate), "
        f"{check_fun} (functions)"
    )
    print(f"largest bound of a ranking metric: {max(result.bounds.values()):.2e}")
    print()
    return ratio


# --------------------------------------------------------------------------------------------
# (b) a Parquet file
# --------------------------------------------------------------------------------------------


def write_file(path: Path, args: argparse.Namespace) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(args.seed + 1)
    cols = proba_columns(args.k)
    schema = pa.schema([("y", pa.int64()), *[(c, pa.float64()) for c in cols]])
    done, next_report, t0 = 0, 0.1, time.perf_counter()
    with pq.ParquetWriter(path, schema) as writer:
        while done < args.file_rows:
            n = min(args.row_group, args.file_rows - done)
            y, P = chunk(rng, n, args.k)
            arrays = [
                pa.array(y),
                *[pa.array(np.ascontiguousarray(P[:, j])) for j in range(args.k)],
            ]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema), row_group_size=n)
            done += n
            if done / args.file_rows >= next_report or done == args.file_rows:
                print(f"  writing: {done:,} rows ({time.perf_counter() - t0:.1f} s)", flush=True)
                next_report += 0.1


def peak_rss() -> int:
    """Peak resident set size of this process in bytes: VmHWM where /proc has it (Linux; reset
    by exec, unlike getrusage's ru_maxrss, which keeps the parent's size at the fork)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, kilobytes elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def worker(args: argparse.Namespace) -> int:
    """Evaluate the file in this (child) process and print its statistics as JSON."""
    import pyarrow as pa
    import pyarrow.compute
    import pyarrow.parquet  # imported before measuring, like pyarrow.compute

    from ordmetrics.files import evaluate_file

    path = Path(args.worker)
    warm = Evaluator()  # load the compiled kernels before measuring
    warm.update(*chunk(np.random.default_rng(0), 10_000, args.k))
    warm.compute()
    rss_before = peak_rss()
    state = {"rows": 0, "next": 0.1}

    def report(n: int) -> None:
        state["rows"] += n
        if state["rows"] / args.file_rows >= state["next"]:
            elapsed = time.perf_counter() - t0
            print(f"  evaluating: {state['rows']:,} rows ({elapsed:.1f} s)", flush=True)
            state["next"] += 0.1

    pool = pa.default_memory_pool()
    tracemalloc.start()
    t0 = time.perf_counter()
    result = evaluate_file(path, truth="y", proba="p", batch_size=args.batch_size, progress=report)
    elapsed = time.perf_counter() - t0
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = {
        "seconds": elapsed,
        "rows": result.n_rows,
        "tracemalloc_peak": traced,
        "arrow_pool_peak": pool.max_memory(),
        "rss_before": rss_before,
        "rss_after": peak_rss(),
        "values": dict(result.values),
        "bounds": dict(result.bounds),
    }
    print("RESULT " + json.dumps(out), flush=True)
    return 0


def in_memory_file(args: argparse.Namespace) -> dict[str, float]:
    """The in-memory evaluation of the rows written by :func:`write_file`."""
    import pandas as pd

    rng = np.random.default_rng(args.seed + 1)
    parts = []
    done = 0
    while done < args.file_rows:
        n = min(args.row_group, args.file_rows - done)
        parts.append(chunk(rng, n, args.k))
        done += n
    cols = proba_columns(args.k)
    df = pd.DataFrame(np.concatenate([p for _, p in parts]), columns=cols)
    df.insert(0, "y", np.concatenate([y for y, _ in parts]))
    out = ordmetrics.evaluate(df, truth="y", proba=cols)
    return dict(zip(out["metric"], out["estimate"], strict=True))


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:,.1f} MB"


def part_b(args: argparse.Namespace) -> dict[str, Any] | None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print("(b) skipped: pyarrow is not installed (pip install ordmetrics[parquet])")
        return None
    folder = Path(tempfile.mkdtemp(prefix="ordmetrics-bench-", dir=args.dir))
    try:
        path = folder / "predictions.parquet"
        print(
            f"(b) evaluate_file on a Parquet file of {args.file_rows:,} rows, K = {args.k}, "
            f"row groups of {args.row_group:,} rows, batches of {args.batch_size:,}"
        )
        t0 = time.perf_counter()
        write_file(path, args)
        size = path.stat().st_size
        print(f"  written: {mb(size)} in {time.perf_counter() - t0:.1f} s ({folder})")
        command = [
            sys.executable,
            __file__,
            "--worker",
            str(path),
            "--k",
            str(args.k),
            "--batch-size",
            str(args.batch_size),
            "--file-rows",
            str(args.file_rows),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        for line in proc.stdout.splitlines():
            if not line.startswith("RESULT "):
                print(line)
        if proc.returncode != 0:
            print(proc.stderr)
            raise RuntimeError(f"the evaluating process exited with {proc.returncode}")
        stats = json.loads(
            next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))[7:]
        )
        rate = stats["rows"] / stats["seconds"]
        print(
            f"  rows: {stats['rows']:,} in {stats['seconds']:.1f} s = {rate:,.0f} rows/s "
            f"(tracemalloc on)"
        )
        print(f"  peak tracemalloc (Python + NumPy): {mb(stats['tracemalloc_peak'])}")
        print(f"  peak pyarrow memory pool:          {mb(stats['arrow_pool_peak'])}")
        print(
            f"  peak RSS after imports / after evaluating: {mb(stats['rss_before'])} / "
            f"{mb(stats['rss_after'])}"
        )
        print(
            f"  file on disk: {mb(size)}; the probabilities alone in memory: "
            f"{mb(args.file_rows * args.k * 8)}"
        )
        bounds = stats["bounds"]
        print(f"  largest bound of a ranking metric: {max(bounds.values()):.2e}")
        if args.file_rows <= CHECK_ROWS:
            check = agreement(stats["values"], bounds, in_memory_file(args))
            print(f"  values against the in-memory evaluation: {check}")
        else:
            print(f"  (not checked against the in-memory evaluation above {CHECK_ROWS:,} rows)")
        stats["size"] = size
        stats["rate"] = rate
        print()
        return stats
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker is not None:
        return worker(args)
    print(
        f"ordmetrics streaming benchmark: N = {args.n:,} rows, K = {args.k} classes, "
        f"seed {args.seed}; best and median of {args.repeat} runs; file of {args.file_rows:,} rows"
    )
    print("\n".join(common.machine_info(PACKAGES)))
    print()
    ratio = part_a(args)
    stats = part_b(args)
    met = "met" if ratio <= GOAL_RATIO else "NOT met"
    if args.n < common.GOAL_N:
        met = f"not assessed below N = {common.GOAL_N:,}"
    summary = (
        f"streaming Evaluator {ratio:.2f}x the faster in-memory time at N = {args.n:,} "
        f"(goal <= {GOAL_RATIO:g}x: {met})"
    )
    if stats is not None:
        summary += (
            f"; evaluate_file on {args.file_rows:,} Parquet rows: {stats['rate']:,.0f} rows/s, "
            f"peak tracemalloc {mb(stats['tracemalloc_peak'])}, peak RSS {mb(stats['rss_after'])}"
        )
    common.print_summary(summary + ".", args.n, above=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
