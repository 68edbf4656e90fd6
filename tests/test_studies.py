"""The reproduction study runs end to end (quick mode) and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STUDY = Path(__file__).resolve().parents[1] / "studies" / "galdran_table1.py"


def test_galdran_table1_quick(tmp_path):
    out = tmp_path / "curves.png"
    result = subprocess.run(
        [sys.executable, str(STUDY), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for name in ("Brier", "Neg-Log", "RPS", "sa-RPS", "PBS", "PLL"):
        assert f"\n{name} " in result.stdout
    assert "best to worst" in result.stdout
    if "matplotlib is not installed" not in result.stdout:
        assert out.exists() and out.stat().st_size > 10_000
