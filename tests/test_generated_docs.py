"""The documents read from the registry are current: a new metric appears in them by
registering it and running ``python scripts/generate_docs.py``, never by editing them by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_docs", ROOT / "scripts" / "generate_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_documents_are_current(capsys) -> None:
    status = _generator().main(["--check"])
    assert status == 0, capsys.readouterr().out + "run: python scripts/generate_docs.py"


def test_a_new_scoring_rule_appears_in_every_generated_document(monkeypatch) -> None:
    """Registering a rule is all it takes: the README table, the metric index, the API list and
    the top-level exports name it (the registry is restored afterwards)."""
    import ordmetrics
    from ordmetrics._core import registry
    from ordmetrics.metrics import scoring

    gen = _generator()
    base = scoring.get_rule("rps")
    rule = type(base)(
        **{
            **{f: getattr(base, f) for f in base.__dataclass_fields__},
            "name": "zz_rule",
            "formula_text": "zz(p, y)",
        }
    )
    scoring.register_rule(rule)
    monkeypatch.setattr(scoring, "__all__", [*scoring.__all__, "zz_rule"])
    monkeypatch.setattr(scoring, "zz_rule", base.func, raising=False)
    monkeypatch.setattr(ordmetrics, "__all__", [*ordmetrics.__all__, "zz_rule"])
    try:
        texts = gen.generated()
        readme = texts[ROOT / "README.md"]
        assert "| `zz_rule` | zz(p, y) | [0, 1] |" in readme
        assert "`zz_rule`" in texts[ROOT / "docs" / "metrics.md"]
        assert "   zz_rule\n" in texts[ROOT / "docs" / "api" / "index.rst"]
        init = texts[ROOT / "src" / "ordmetrics" / "__init__.py"]
        assert '    "zz_rule": "ordmetrics.metrics.scoring",\n' in init  # om.zz_rule
        assert '\n    "zz_rule",\n]\n' in init  # ordmetrics.__all__
        assert "        zz_rule,\n" in init  # visible to type checkers
    finally:
        registry.unregister("zz_rule")
        scoring.RULES.pop("zz_rule", None)


@pytest.mark.parametrize("marker", ["BEGIN generated", "END generated"])
def test_the_generated_parts_are_marked(marker: str) -> None:
    assert marker in (ROOT / "README.md").read_text(encoding="utf-8")
    assert marker in (ROOT / "docs" / "api" / "index.rst").read_text(encoding="utf-8")
