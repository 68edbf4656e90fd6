"""The command line: demo, list, exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ordmetrics
from ordmetrics.cli import main


def test_demo_prints_every_rule_for_both_models(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for name in ordmetrics.list_metrics("scoring_rule"):
        assert f"\n{name} " in out
    assert "53,940" in out
    # The demo table holds the same numbers as the library.
    from ordmetrics.datasets import load_diamonds_cut

    ex = load_diamonds_cut("hgb")
    assert f"{ordmetrics.rps(ex.y_true, ex.y_proba, labels=ex.labels):.6f}" in out


def test_list_shows_properties(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("sa_rps"))
    assert "minimize" in line and "[0, 1]" in line
    assert main(["list", "--kind", "scoring_rule"]) == 0


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_unknown_command_exits_2():
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2


def test_python_dash_m_runs():
    done = subprocess.run(
        [sys.executable, "-m", "ordmetrics", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert ordmetrics.__version__ in done.stdout


def test_metric_index_document_is_current(capsys):
    from pathlib import Path

    assert main(["index"]) == 0
    printed = capsys.readouterr().out
    doc = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
    assert doc.read_text() == printed, "regenerate: python -m ordmetrics index > docs/metrics.md"
    for name in ordmetrics.list_metrics():
        assert f"| `{name}` |" in printed
