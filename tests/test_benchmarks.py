"""The benchmark scripts run: each ``--quick`` run exits with 0 and prints its summary line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
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
}
#: the paper-sized benchmarks keep their N (53,576 rows) in quick runs
FULL_SIZE = {"bench_bootstrap.py"}


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("script", sorted(SUMMARIES))
def test_quick_run(script: str) -> None:
    result = run(script, "--quick")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    if script not in FULL_SIZE:
        assert "N = 10,000 rows" in lines[0]
    summaries = [line for line in lines if line.startswith("summary: ")]
    assert len(summaries) == 1, result.stdout
    assert summaries[0].startswith(SUMMARIES[script]), summaries[0]
    assert "DIFFERS" not in result.stdout  # every peer gives the value ordmetrics gives


def test_run_all_runs_these_scripts() -> None:
    result = run("run_all.py", "--help")
    assert result.returncode == 0, result.stderr
    assert "--quick" in result.stdout
    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
    assert spec is not None and spec.loader is not None
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    assert sorted(run_all.SCRIPTS) == sorted(SUMMARIES)
