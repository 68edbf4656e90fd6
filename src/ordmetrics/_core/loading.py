"""Completing the registry on demand, without importing it.

The package imports its metric modules on first use (``ordmetrics.__init__``), and each module
registers its metrics when it is imported. The package adds here the function that imports them
all; the registry calls :func:`complete` before a lookup that must see every metric. This module
imports nothing, so that ``import ordmetrics`` and ``ordmetrics --help`` stay light.
"""

from __future__ import annotations

import threading

__all__ = ["add_loader", "complete"]

#: Functions that import the modules registering metrics, each run once.
_LOADERS: list[object] = []
_LOCK = threading.RLock()
_BUSY: list[bool] = []


def add_loader(loader: object) -> None:
    """Have ``loader()`` run once, at the first :func:`complete`."""
    _LOADERS.append(loader)


def complete() -> None:
    """Run the loaders added so far (each once; another thread waits until they are done).

    A lookup made meanwhile by a module that a loader imports (in the same thread) returns at
    once and sees the metrics registered so far, as during an eager import.

    Examples
    --------
    >>> from ordmetrics._core.loading import complete
    >>> complete()  # every metric module is imported from now on
    """
    if not _LOADERS:
        return
    with _LOCK:
        if _BUSY:  # called from a module being imported by a loader
            return
        _BUSY.append(True)
        try:
            while _LOADERS:
                _LOADERS[0]()  # type: ignore[operator]
                _LOADERS.pop(0)
        finally:
            _BUSY.clear()
