"""The package's structure, checked from its source: layers, imports, module sizes, references.

The layers, lowest first (README, "Architecture"): ``_core`` (registry, validation, kernels, the
array-API path, numerics), ``metrics`` (the formulas), ``evaluation`` (metric sets, streaming,
retention, bootstrap), ``io`` (data frames, files, datasets), ``integrations`` (scikit-learn,
PyTorch, Keras/Lightning, Dask), ``report`` (command line, HTML report, plots). A module imports
only from its own layer or lower ones, at module level and inside functions alike; the public entry
points at the top of the package (``ordmetrics.stream``, ``ordmetrics.sklearn``, ...) only
re-export. Every import of the package is read from the syntax tree, so a lazy import inside a
function counts.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "ordmetrics"

#: Layers, lowest first; ``model_selection`` stands beside ``metrics`` (it uses the core only).
LAYERS = ("_core", "metrics", "evaluation", "io", "integrations", "report")
LAYER_OF_EXTRA = {"model_selection": 1}

#: A module may grow to this many lines ("about 600").
MAX_LINES = 650

#: The thin public entry points at the top of the package, and what they re-export.
ENTRY_POINTS = {
    "stream": "ordmetrics.evaluation.streaming",
    "files": "ordmetrics.io.files",
    "datasets": "ordmetrics.io.datasets",
    "sklearn": "ordmetrics.integrations.sklearn",
    "torch": "ordmetrics.integrations.torch",
    "callbacks": "ordmetrics.integrations.callbacks",
    "dask": "ordmetrics.integrations.dask",
    "plot": "ordmetrics.report.plot",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported module, imported name or "", line) for every import of the package."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "ordmetrics" or target.startswith("ordmetrics."):
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in MODULES:
                        found.append((sub, "", node.lineno))
                    else:
                        found.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ordmetrics."):
                    found.append((alias.name, "", node.lineno))
    return found


def _layer(module: str) -> int | None:
    """The layer index of a module; None for the top level (``ordmetrics``, entry points)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    top = parts[1]
    if top == "_version":
        return -1  # the version string, below everything
    if top in LAYERS:
        return LAYERS.index(top)
    return LAYER_OF_EXTRA.get(top)


def _package(module: str) -> str:
    """The subpackage a module belongs to (``ordmetrics.metrics``), or the module itself."""
    parts = module.split(".")
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def test_the_package_has_the_layers_and_nothing_else_at_the_top() -> None:
    top = {p.name for p in PACKAGE.iterdir() if not p.name.startswith("__pycache__")}
    allowed = {
        "__init__.py",
        "__main__.py",
        "_version.py",
        "py.typed",
        "_data",
        "model_selection",
        *LAYERS,
        *(f"{name}.py" for name in ENTRY_POINTS),
    }
    assert top <= allowed, f"unexpected files at the top of the package: {sorted(top - allowed)}"
    assert set(LAYERS) <= top


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_points_only_re_export(name: str) -> None:
    """``ordmetrics.stream`` and friends hold no code: imports, ``__all__``, a docstring (and, for
    the callbacks, a module ``__getattr__`` delegating to the implementation)."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        ok = isinstance(node, ast.Import | ast.ImportFrom)
        ok |= isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ok |= isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "__all__"
        ]
        ok |= isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
        assert ok, f"ordmetrics/{name}.py line {node.lineno}: an entry point only re-exports"
    targets = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert ENTRY_POINTS[name] in targets | {
        f"{n.module}.{a.name}" for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names
    }


def test_imports_flow_down_the_layers() -> None:
    bad = []
    for name, path in MODULES.items():
        own = _layer(name)
        if own is None:
            continue
        for target, _, line in _imports(name, path):
            other = _layer(target)
            if other is None:
                bad.append(f"{name}:{line} imports {target} (the top of the package)")
            elif other > own:
                bad.append(f"{name}:{line} imports {target} (a higher layer)")
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def test_no_import_cycle_between_modules() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in MODULES.items():
        for target, _, _ in _imports(name, path):
            if target in MODULES and target != name:
                edges[name].add(target)
    # a package's __init__ re-exports its modules: only cycles that pass through two different
    # plain modules count, so drop the edges from a package to its own submodules
    for name in list(edges):
        if MODULES[name].name == "__init__.py":
            edges[name] = {t for t in edges[name] if not t.startswith(name + ".")}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in MODULES:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_name_is_imported_across_packages() -> None:
    bad = []
    for name, path in MODULES.items():
        for target, imported, line in _imports(name, path):
            private = imported.startswith("_") and not imported.startswith("__")
            module_private = not imported and target.rsplit(".", 1)[-1].startswith("_")
            module_private &= not target.rsplit(".", 1)[-1].startswith("__")
            if _package(target) == _package(name):
                continue
            if target.split(".")[1:2] == ["_core"] and module_private:
                continue  # the private core's modules are the internal API
            if private or (module_private and target.split(".")[1:2] != ["_core"]):
                what = imported or target
                bad.append(f"{name}:{line} imports {what} from {target}")
    assert not bad, "private names imported across packages:\n" + "\n".join(bad)


def test_no_module_is_over_about_600_lines() -> None:
    long = {
        name: n
        for name, path in MODULES.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_definitions_cited_are_the_repository_s_own() -> None:
    """Code, tests and documents cite ``docs/definitions.md``, which is in the repository."""
    root = SRC.parent
    assert (root / "docs" / "definitions.md").is_file()
    pattern = re.compile(r"(?<![\w/.])DEFINITIONS(\.md)?\b")
    bad = []
    for folder in ("src", "tests", "docs", "benchmarks", "studies", "scripts", "examples"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in {".py", ".md", ".rst"} or "_build" in path.parts:
                continue
            if path.name in ("test_docs_site.py", "test_architecture.py"):
                continue  # these two check that no outside document is named
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    bad.append(f"{path.relative_to(root)}:{i}")
    for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md"):
        for i, line in enumerate((root / name).read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                bad.append(f"{name}:{i}")
    assert not bad, "a definitions document outside the repository is cited at:\n" + "\n".join(bad)
