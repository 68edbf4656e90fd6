"""Collection of the doctests: modules whose optional library is not installed are skipped.

The test extra leaves out torch (from the public index it brings several GB of CUDA
packages); without it, the doctests of ``ordmetrics.torch`` are not collected and the tests
that need torch skip themselves.
"""

from __future__ import annotations

import importlib.util


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


collect_ignore: list[str] = []
if not _installed("torch"):
    collect_ignore.append("src/ordmetrics/torch.py")
