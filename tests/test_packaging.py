"""Packaging: one version source, ``ordmetrics --version``, the changelog, the extras.

The build itself (sdist and wheel, ``twine check``, the base install in a new virtual
environment running the demo) is checked by ``make package-check``
(``scripts/check_package.sh``), a CI step: it builds virtual environments, too slow for a test.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from pathlib import Path

import pytest

import ordmetrics
from ordmetrics._version import __version__
from ordmetrics.report.cli import main

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_source():
    project = PYPROJECT["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "ordmetrics._version.__version__"}
    assert ordmetrics.__version__ == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?(?:\.dev\d+)?", __version__)
    # the installed metadata (an editable install) carries the same version
    assert importlib.metadata.version("ordmetrics") == __version__


def test_cli_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"ordmetrics {__version__}\n"


def test_changelog_has_the_version_and_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(__version__)} - \d{{4}}-\d{{2}}-\d{{2}}", headings[1])


def test_array_api_compat_is_a_dependency_not_an_extra():
    deps = PYPROJECT["project"]["dependencies"]
    assert any(d.startswith("array-api-compat") for d in deps)
    assert "array-api" not in PYPROJECT["project"]["optional-dependencies"]
    # no message or document tells users to install an extra that does not exist
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    files = [*(ROOT / "src" / "ordmetrics").rglob("*.py"), ROOT / "README.md"]
    for path in files:
        for name in re.findall(r"ordmetrics\[([a-z0-9_,-]+)\]", path.read_text("utf-8")):
            for extra in name.split(","):
                assert extra in extras, f"{path.name} names the unknown extra {extra!r}"


def test_test_extra_installs_from_the_public_index():
    test = PYPROJECT["project"]["optional-dependencies"]["test"]
    # no local versions (`+cpu`), which the public index does not serve, and no torch, which
    # it serves only as a build with CUDA of several GB (lightning requires torch)
    assert not [r for r in test if "+" in r]
    names = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in test}
    assert not names & {"torch", "lightning", "pytorch-lightning"}
    assert "mypy" in names
    release = PYPROJECT["project"]["optional-dependencies"]["release"]
    assert {re.split(r"[<>=]", r, maxsplit=1)[0] for r in release} == {"build", "twine"}


def test_mypy_configuration():
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["python_version"] == "3.10"
    assert mypy["warn_unused_ignores"] is True
    assert mypy["files"] == ["src/ordmetrics"]


def test_bundled_data_is_package_data():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["ordmetrics"]
    assert "_data/*.csv.gz" in data and "py.typed" in data
    from ordmetrics.datasets import example_path

    assert example_path().is_file()


def test_make_example_data_needs_the_source_path(capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("pandas")
    script = ROOT / "scripts" / "make_example_data.py"
    assert "shared" not in script.read_text(encoding="utf-8")
    spec = importlib.util.spec_from_file_location("make_example_data", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as info:
        module.main([])
    assert info.value.code == 2
    assert "the following arguments are required: source" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        module.main(["no-such-diamonds.csv"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "no such file: 'no-such-diamonds.csv'; pass the path of diamonds.csv." in err
