"""The benchmark scripts run: each ``--quick`` run exits with 0 and prints its summary line.

The quick runs are started once per test session, in as few processes as possible: every
script but those of ``OWN_PROCESS`` runs, one after the other, in one new Python process
(this file run as a script: each as ``python benchmarks/bench_x.py --quick`` would run it,
``runpy`` with ``__name__ == "__main__"``, the script's folder first on ``sys.path``, its
standard output and error captured and its exit status taken from ``SystemExit``), so that
the interpreter, NumPy, numba and the compiled kernels load once instead of once per script.
The results are shared by the test processes of a pytest-xdist run (a file under a lock in
the run's temporary folder), so the scripts run once whatever the number of workers.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import runpy
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SUMMARIES = {
    "bench_scoring.py": "summary: worst ",
    "bench_agreement.py": "summary: ordmetrics.qwk is ",
    "bench_ranking.py": "summary: goal < 1 s at N = 1,000,000: ",
    "bench_retention.py": "summary: QWK retention curves ",
    "bench_bootstrap.py": "summary: bootstrap('qwk') is ",
    "bench_stream.py": "summary: streaming Evaluator ",
    "bench_dask.py": "summary: Dask on 2 local worker processes ",
    "bench_memory.py": "summary: peak memory of the calibration functions ",
    "bench_decide.py": "summary: decide worst ",
    "bench_calibration.py": "summary: calibration worst ",
    "bench_scaling.py": "summary: scaling of ",
    "bench_startup.py": "summary: --help ",
}
#: quick runs that keep their own N: the paper-sized bootstrap (53,576 rows) and the start-up
#: benchmark (2,000 rows, the first calls of a new process)
FULL_SIZE = {"bench_bootstrap.py", "bench_startup.py"}
#: scripts that start worker processes of their own (fork): each runs in a new process
OWN_PROCESS = {"bench_dask.py"}


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def run_in_this_process(script: str) -> dict[str, object]:
    """``python benchmarks/<script> --quick`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    argv, path = sys.argv, list(sys.path)
    sys.argv = [str(BENCHMARKS / script), "--quick"]
    sys.path.insert(0, str(BENCHMARKS))
    code: object = 0
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
            except SystemExit as exc:
                code = exc.code
            except BaseException as exc:  # as the interpreter: a traceback and status 1
                import traceback

                traceback.print_exception(exc)
                code = 1
    finally:
        sys.argv, sys.path[:] = argv, path
    if code is None:
        code = 0
    elif not isinstance(code, int):  # sys.exit("message"): printed, status 1
        print(code, file=err)
        code = 1
    return {"returncode": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def quick_runs() -> dict[str, dict[str, object]]:
    """Every script's ``--quick`` run: exit status, standard output and standard error."""
    shared = sorted(set(SUMMARIES) - OWN_PROCESS)
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "runs.json"
        done = subprocess.run(
            # faulthandler: a crash (a signal) prints the stacks instead of dying silently
            [sys.executable, "-X", "faulthandler", __file__, str(out), *shared],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0 and out.is_file(), (
            f"exit status {done.returncode}\n{done.stdout}{done.stderr}"
        )
        results.update(json.loads(out.read_text(encoding="utf-8")))
    for script in sorted(OWN_PROCESS):
        result = run(script, "--quick")
        results[script] = {
            "returncode": result.returncode,
            "stdout": result.stdout,
            "stderr": result.stderr,
        }
    return results


@contextlib.contextmanager
def exclusive(lock: Path, timeout: float = 1800.0) -> Iterator[None]:
    """Held by one process at a time: the one that created the file ``lock`` (no third-party
    lock library: the test extra has none)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{lock} is still held after {timeout:.0f} s") from None
            time.sleep(0.2)
    try:
        yield
    finally:
        os.close(fd)
        lock.unlink()


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """The quick runs, computed by the first test process that needs them."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return quick_runs()
    path = tmp_path_factory.getbasetemp().parent / "benchmark_quick_runs.json"
    with exclusive(path.with_suffix(".lock")):
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
        results = quick_runs()
        path.write_text(json.dumps(results), encoding="utf-8")
        return results


@pytest.mark.parametrize("script", sorted(SUMMARIES))
def test_quick_run(script: str, runs: dict[str, dict[str, object]]) -> None:
    result = runs[script]
    assert result["returncode"] == 0, result["stderr"]
    stdout = str(result["stdout"])
    lines = stdout.splitlines()
    if script not in FULL_SIZE:
        assert "N = 10,000 rows" in lines[0]
    summaries = [line for line in lines if line.startswith("summary: ")]
    assert len(summaries) == 1, stdout
    assert summaries[0].startswith(SUMMARIES[script]), summaries[0]
    assert "DIFFERS" not in stdout  # every peer gives the value ordmetrics gives


def test_calibration_times_in_fresh_processes() -> None:
    """``--processes 2``: two worker processes, each its own read pass, one summary."""
    result = run("bench_calibration.py", "--quick", "--processes", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "in each of 2 fresh processes" in result.stdout
    reads = [line for line in lines if "read pass y_proba.sum() best" in line]
    assert len(reads) == 2 and all("2 processes" in line for line in reads), reads
    summaries = [line for line in lines if line.startswith("summary: calibration worst ")]
    assert len(summaries) == 1 and "best over 2 processes" in summaries[0], summaries
    assert "DIFFERS" not in result.stdout


def test_calibration_worker_failure_is_loud() -> None:
    """A worker that fails stops the run with a non-zero status and its standard error."""
    result = run("bench_calibration.py", "--quick", "--processes", "2", "--seed", "-1")
    assert result.returncode != 0
    assert "worker 1 of 2 failed (status 1)" in result.stderr, result.stderr
    assert "ValueError" in result.stderr  # the worker's traceback: default_rng(-1)
    assert "summary: " not in result.stdout


def test_run_all_runs_these_scripts() -> None:
    result = run("run_all.py", "--help")
    assert result.returncode == 0, result.stderr
    assert "--quick" in result.stdout
    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
    assert spec is not None and spec.loader is not None
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    assert sorted(run_all.SCRIPTS) == sorted(SUMMARIES)


if __name__ == "__main__":  # python tests/test_benchmarks.py OUT.json SCRIPT...: see quick_runs
    target, *scripts = sys.argv[1:]
    done_runs = {}
    for name in scripts:  # which script was running shows if the process dies
        print(f"quick run of {name}", file=sys.stderr, flush=True)
        done_runs[name] = run_in_this_process(name)
    Path(target).write_text(json.dumps(done_runs), encoding="utf-8")
