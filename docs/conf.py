"""Sphinx configuration of the ordmetrics documentation site.

Build with ``make docs`` (warnings are errors). Nothing here reaches the network: the gallery
runs on the example data bundled with the package, and no intersphinx inventory is fetched.
"""

from __future__ import annotations

import doctest as _doctest
import importlib.util
import os
import re

import matplotlib

matplotlib.use("Agg")
# Keras reads its backend once, at its first import (the callbacks page imports it).
os.environ.setdefault("KERAS_BACKEND", "torch")

import ordmetrics

project = "ordmetrics"
author = "The ordmetrics developers"
copyright = "The ordmetrics developers"
release = ordmetrics.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "gallery/README.rst"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]

# --- MyST -------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- autodoc / autosummary / numpydoc ----------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's "Parameters" sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# PyTorch is mocked where it is not installed, so that ordmetrics.torch imports and the API
# pages build with the docs extra alone.
autodoc_mock_imports = [name for name in ("torch",) if importlib.util.find_spec(name) is None]


def _callback_placeholders() -> None:
    """Stand-ins for the training callbacks whose framework cannot be imported here.

    ``ordmetrics.callbacks`` creates ``KerasOrdmetricsCallback`` and
    ``LightningOrdmetricsCallback`` on first access, importing Keras (with a backend) or
    Lightning. Where that fails, the API page documents a plain class with the same docstring
    (the module's own text) and the same ``__init__`` signature (read from the source), so the
    reference is complete whichever frameworks the docs were built with.
    """
    import ast
    import inspect

    import ordmetrics.callbacks as cb

    docs = {
        "KerasOrdmetricsCallback": "_KERAS_DOC",
        "LightningOrdmetricsCallback": "_LIGHTNING_DOC",
    }
    tree = ast.parse(inspect.getsource(cb))
    for name, doc_name in docs.items():
        try:
            getattr(cb, name)
            continue
        except Exception:  # ImportError, or a framework that fails to import
            pass
        doc = getattr(cb, doc_name, "")
        for key, value in (("%(common)s", "_COMMON_PARAMS"), ("%(attrs)s", "_COMMON_ATTRS")):
            doc = doc.replace(key, getattr(cb, value, "").replace("\n    ", "\n").strip())
        namespace: dict = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == name:
                init = next(n for n in node.body if getattr(n, "name", "") == "__init__")
                init.body, init.returns, init.decorator_list = [ast.Pass()], None, []
                for arg in [*init.args.args, *init.args.kwonlyargs]:
                    arg.annotation = None
                exec(ast.unparse(init), namespace)
        attrs = {"__doc__": doc, "__module__": cb.__name__, "__qualname__": name}
        if "__init__" in namespace:
            attrs["__init__"] = namespace["__init__"]
        setattr(cb, name, type(name, (), attrs))


_callback_placeholders()

# --- doctest (the migration page's examples run under `make docs`) ---------------------------
doctest_global_setup = """
import importlib.util
has_torchmetrics = importlib.util.find_spec("torchmetrics") is not None
"""

# Only the explicit ``.. doctest::`` blocks (the migration page); the docstrings' examples run
# under pytest (--doctest-modules).
doctest_test_doctest_blocks = ""
doctest_default_flags = (
    _doctest.ELLIPSIS | _doctest.NORMALIZE_WHITESPACE | _doctest.DONT_ACCEPT_TRUE_FOR_1
)

# --- sphinx-gallery ----------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"ordmetrics": None},
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 10_000,
}

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"ordmetrics {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "navbar_align": "left",
    "navbar_end": ["theme-switcher"],
    "navbar_persistent": ["search-button-field"],
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"index": [], "migration": [], "definitions": []}
html_show_sourcelink = False
html_last_updated_fmt = None


# --- docstrings written for the terminal, read as reStructuredText -------------------------------
# The docstrings are plain text first (``help()``): ``|i - j|`` is an absolute value, not a
# substitution, ``"val_"`` a string, not a link, and a raw docstring may continue a long
# parameter type line with a backslash. These rewrites make them render as they read; they run
# before numpydoc parses the docstring.
_ABS = re.compile(r"(?<![\\|`\w])\|(?=[^\s|])([^|`\n]*?[^\s|\\])\|(?![|`\w])")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[\"'])")


def _plain_text(line: str) -> str:
    parts = line.split("``")
    for i in range(0, len(parts), 2):  # outside inline literals only
        parts[i] = _ABS.sub(r"\\|\1\\|", parts[i])
        parts[i] = _TRAILING_UNDERSCORE.sub(r"\\_", parts[i])
    return "``".join(parts)


def _rewrite_docstring(app, what, name, obj, options, lines):
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].endswith("\\") and not joined[-1].endswith("\\\\"):
            joined[-1] = joined[-1][:-1] + line.lstrip()
        else:
            joined.append(line)
    out, math_indent = [], None
    for line in joined:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if math_indent is not None and stripped and indent <= math_indent:
            math_indent = None
        if stripped.startswith(".. math::"):
            math_indent = indent
        plain = (
            math_indent is None
            and not stripped.startswith((">>>", "...", "+", "|"))
            and ":math:" not in line
        )
        out.append(_plain_text(line) if plain else line)
    lines[:] = out


def setup(app):
    app.connect("autodoc-process-docstring", _rewrite_docstring, priority=100)
