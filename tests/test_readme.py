"""The README's Python examples run and print what they claim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.filterwarnings("error")
def test_readme_examples_run():
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        exec(compile(block, str(README), "exec"), namespace)


def test_readme_numbers_are_the_library_numbers():
    import ordmetrics as om

    namespace: dict[str, object] = {}
    exec(compile(BLOCKS[0], str(README), "exec"), namespace)
    value = om.rps(namespace["y_true"], namespace["y_proba"], labels=namespace["labels"])
    assert f"# {value:.4f}" in BLOCKS[0]
    assert om.qwk([0, 2, 5], [0, 5, 5]) == pytest.approx(70 / 97, rel=1e-12)
    assert "(70/97)" in README.read_text()


def test_readme_evaluation_example_claims():
    import ordmetrics as om

    block = next(b for b in BLOCKS if "retention_curve" in b)
    namespace: dict[str, object] = {"om": om}
    exec(compile(block, str(README), "exec"), namespace)
    assert f"# AURSC, {namespace['curve'].area:.4f}" in block
    sel = om.select_epoch([0.9, 0.7, 0.72, 0.75, 0.6], mode="min", patience=2)
    assert (sel.best_epoch, sel.stop_epoch) == (1, 3)
