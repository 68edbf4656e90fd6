"""Run the benchmarks of this folder one after another: scoring, agreement, ranking.

Each script runs in its own Python process (the interpreter running this one), as
``python benchmarks/bench_x.py``, so that no benchmark inherits the memory, compiled kernels or
imported peers of another. ``--quick`` is passed on to every script. The exit status is 0 when
every script exits with 0, otherwise the first non-zero status.

Run with ``make bench`` or ``.venv/bin/python benchmarks/run_all.py [--quick]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = (
    "bench_scoring.py",
    "bench_agreement.py",
    "bench_ranking.py",
    "bench_retention.py",
    "bench_bootstrap.py",
    "bench_stream.py",
    "bench_dask.py",
    "bench_memory.py",
    "bench_decide.py",
    "bench_calibration.py",
    "bench_scaling.py",
    "bench_startup.py",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="pass --quick to every script (smoke run)"
    )
    args = parser.parse_args(argv)
    status = 0
    for i, script in enumerate(SCRIPTS):
        if i:
            print(flush=True)
        command = [sys.executable, str(HERE / script)] + (["--quick"] if args.quick else [])
        print(f"=== {script}{' --quick' if args.quick else ''}", flush=True)
        code = subprocess.run(command, check=False).returncode
        if code != 0:
            print(f"=== {script} exited with status {code}", flush=True)
            status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
