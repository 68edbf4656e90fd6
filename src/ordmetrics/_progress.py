"""A tiny progress bar for the command line, drawn on stderr only when it is a terminal.

Nothing is written when the stream is not a TTY (a pipe, a file, a test's captured stream),
so the output of a command never depends on the bar. The bar appears only once the work has
lasted ``delay`` seconds, so quick work draws nothing at all, and it is redrawn at most every
``interval`` seconds. When the work ends the line is cleared.

Examples
--------
>>> import io
>>> from ordmetrics._progress import progress
>>> with progress(3, "bootstrap", stream=io.StringIO()) as step:
...     for _ in range(3):
...         step()
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["clear", "progress"]

_WIDTH = 28

#: The line on screen: the stream drawn on and the width drawn (None: nothing shown).
_screen: dict[str, Any] = {"stream": None, "width": 0}


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def _line(label: str, done: int, total: int, elapsed: float) -> str:
    frac = done / total if total > 0 else 1.0
    filled = round(frac * _WIDTH)
    bar = "#" * filled + "." * (_WIDTH - filled)
    return f"{label} [{bar}] {done}/{total} {elapsed:.1f}s"


def clear() -> None:
    """Erase the progress bar on screen, if any, e.g. before writing a message below it.

    The bar is drawn again at its next step.
    """
    out = _screen["stream"]
    if out is not None:
        out.write("\r" + " " * _screen["width"] + "\r")
        out.flush()
        _screen["stream"] = None


@contextmanager
def progress(
    total: int,
    label: str,
    *,
    stream: TextIO | None = None,
    delay: float = 0.5,
    interval: float = 0.1,
) -> Iterator[Callable[[int], None]]:
    """Count steps of work and show a progress bar on a terminal.

    Parameters
    ----------
    total : int
        The number of steps the work takes.
    label : str
        A short name of the work, written before the bar.
    stream : text stream, optional
        Where to draw; default ``sys.stderr`` (looked up when the context is entered). Nothing
        is drawn unless ``stream.isatty()`` is true.
    delay : float, default 0.5
        Seconds of work before the bar first appears.
    interval : float, default 0.1
        Least seconds between two redraws.

    Yields
    ------
    callable
        ``step(n=1)``: call it after each step (or ``n`` steps) of the work.
    """
    out = sys.stderr if stream is None else stream
    enabled = _is_tty(out)
    start = time.perf_counter()
    state = {"done": 0, "drawn": 0.0, "shown": False}

    def draw(now: float) -> None:
        text = _line(label, state["done"], total, now - start)
        out.write("\r" + text)
        out.flush()
        state["drawn"] = now
        state["shown"] = True
        _screen["stream"], _screen["width"] = out, len(text) + 2

    def step(n: int = 1) -> None:
        state["done"] = min(total, state["done"] + n)
        if not enabled:
            return
        now = time.perf_counter()
        if now - start >= delay and now - state["drawn"] >= interval:
            draw(now)

    try:
        yield step
    finally:
        if enabled and state["shown"]:
            width = len(_line(label, total, total, time.perf_counter() - start)) + 4
            out.write("\r" + " " * width + "\r")
            out.flush()
            _screen["stream"] = None
