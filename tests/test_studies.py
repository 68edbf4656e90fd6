"""The reproduction study runs end to end (quick mode) and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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


# --- studies of Ahmadian et al. (Tables 2-3, Appendix 8) and of Galdran's AURSC scale -------

STUDIES = STUDY.parent


def _load(name: str):
    """Import a study script as a module (the studies are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"study_{name}", STUDIES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _run(name: str, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, str(STUDIES / f"{name}.py"), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_studies_read_only_inside_the_repository():
    data = STUDIES / "data"
    for name in ("winequality.csv.gz", "diamonds.csv.xz", "README.md"):
        assert (data / name).exists()
    assert sum(p.stat().st_size for p in data.iterdir()) < 3_000_000
    for script in STUDIES.glob("*.py"):
        text = script.read_text()
        assert "shared/data" not in text and "../" not in text, script.name


def test_ahmadian_checkpoints_quick(tmp_path):
    import csv

    result = _run("ahmadian_checkpoints", "--out-dir", str(tmp_path))
    out = result.stdout
    assert "## wine quality" in out and "Table 2 analogue" in out
    for name in ("Brier", "PBS", "log loss", "PLL", "RPS"):
        assert f"| {name} | CP |" in out and f"| {name} | ES |" in out
    assert (tmp_path / "checkpoints.md").read_text().startswith("# Ahmadian")
    with open(tmp_path / "checkpoints_runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    runs: dict = {}
    for r in rows:
        runs.setdefault((r["seed"], r["split"]), []).append(r)
    assert len(runs) == 2  # quick: 1 seed x 2 splits
    for sel in runs.values():
        assert len(sel) == 5 * 3 + 3  # 5 rules x (CP, ES, ES+restore) + 3 baselines
        by = {(r["method"], r["mode"]): r for r in sel}
        oracle = float(by["oracle (best test F1)", "-"]["test_f1"])
        last = int(by["last epoch", "-"]["epoch"])
        assert last == 11  # quick: 12 epochs
        for r in sel:
            assert 0 <= int(r["epoch"]) <= last
            assert 0.0 <= float(r["test_f1"]) <= oracle + 1e-12
            assert -1.0 <= float(r["test_qwk"]) <= 1.0
        for rule in ("brier", "pbs", "log_loss", "pll", "rps"):
            cp, es, rest = (int(by[rule, m]["epoch"]) for m in ("CP", "ES", "ES+restore"))
            # restore gives the best epoch up to the stop; the stop is patience (3) later
            # or the last epoch; checkpointing looks at the whole run
            assert rest <= es and (es - rest == 3 or es == last)
            assert rest == cp or cp > es


def test_ahmadian_checkpoints_splits_partition():
    mod = _load("ahmadian_checkpoints")
    y = mod.load_wine().y
    assert y.min() == 0 and y.max() == 4 and len(y) == 6497
    seen_test = []
    for _s, tr, va, te in mod.splits(y, "kfold", seed=0):
        assert not (set(tr) & set(va) or set(tr) & set(te) or set(va) & set(te))
        assert len(tr) + len(va) + len(te) == len(y)
        seen_test.append(te)
    assert sorted(np.concatenate(seen_test).tolist()) == list(range(len(y)))
    for _s, tr, va, te in mod.splits(y, "hblock", seed=0):
        assert not (set(tr) & set(va) or set(tr) & set(te) or set(va) & set(te))
        assert va.max() < te.min()  # the test blocks follow the validation blocks


def test_ahmadian_appendix8_quick(tmp_path):
    import csv

    result = _run("ahmadian_appendix8", "--out-dir", str(tmp_path))
    assert "Appendix 8" in result.stdout
    with open(tmp_path / "appendix8.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 7 * 3  # 7 samplings x K in (3, 5, 10)
    for r in rows:
        lo, hi = float(r["p_lower"]), float(r["p_higher"])
        assert 0.99 < lo <= 1.0 and 0.2 < hi < 0.9 and lo > hi
        assert int(r["pairs_lower"]) > 0 and int(r["pairs_higher"]) > 0
        if r["K"] == "3":
            # K = 3: a wrong forecast with a smaller hot value always has the worse Brier score
            assert int(r["violations_lower"]) == 0


def test_ahmadian_appendix8_estimator_against_loop():
    """The all-pairs estimate equals a plain loop over the pairs of one batch."""
    mod = _load("ahmadian_appendix8")
    sampler = mod.SCHEMES["Dirichlet(1) (uniform on the simplex)"]
    lo, hi = mod.estimate(sampler, 4, 60, 1, seed=3)
    rng = np.random.default_rng(3)
    x = mod.draw(rng, sampler, 4, 60, correct=True)
    q = mod.draw(rng, sampler, 4, 60, correct=False)
    assert (x.argmax(1) == 0).all() and (q.argmax(1) != 0).all()
    counts = {True: [0, 0], False: [0, 0]}
    for xi in x:
        for qi in q:
            bx = sum((xi[k] - (k == 0)) ** 2 for k in range(4))
            bq = sum((qi[k] - (k == 0)) ** 2 for k in range(4))
            c = counts[bool(qi[0] < xi[0])]
            c[0] += 1
            c[1] += bool(bq > bx)
    assert lo.pairs == counts[True][0] and hi.pairs == counts[False][0]
    assert lo.p == pytest.approx(counts[True][1] / counts[True][0], abs=1e-15)
    assert hi.p == pytest.approx(counts[False][1] / counts[False][0], abs=1e-15)


def test_galdran_aursc_scale_quick(tmp_path):
    result = _run("galdran_aursc_scale", "--out-dir", str(tmp_path))
    assert "c >= 17.86" in result.stdout
    mod = _load("galdran_aursc_scale")
    f = np.linspace(1.0, 0.5, 21)
    v = np.random.default_rng(0).random(21)
    conv = mod.conventions(f, v)
    norm = conv["normalised (ordmetrics)"]
    assert conv["100 x area, f in [0.5, 1]"] == pytest.approx(50 * norm, rel=1e-12)
    assert conv["trapezoid, unit steps"] == pytest.approx(20 * norm, rel=1e-12)
    assert conv["sum of values"] == pytest.approx(v.sum(), rel=1e-12)
    assert mod.conventions(f, np.full(21, 0.7))["normalised (ordmetrics)"] == pytest.approx(0.7)
