"""A tiny progress bar for the command line, drawn on stderr only when it is a terminal.

Nothing is written when the stream is not a TTY (a pipe, a file, a test's captured stream),
so the output of a command never depends on the bar. The bar appears only once the work has
lasted ``delay`` seconds, so quick work draws nothing at all, and it is redrawn at most every
``interval`` seconds. When the work ends the line is cleared. Once some steps are done the
bar shows the time left, extrapolated from the rate so far (``~12s left``).

:func:`notice` writes a one-line message on the same terms (a terminal only, above the bar),
e.g. that the first run compiles the kernels.

Examples
--------
>>> import io
>>> from ordmetrics._core.progress import progress
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

__all__ = ["clear", "notice", "progress"]

_WIDTH = 28

#: The line on screen: the stream drawn on and the width drawn (None: nothing shown).
_screen: dict[str, Any] = {"stream": None, "width": 0}


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def _duration(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``1h02m``."""
    sec = max(0, round(seconds))
    if sec < 60:
        return f"{sec}s"
    if sec < 3600:
        return f"{sec // 60}m{sec % 60:02d}s"
    return f"{sec // 3600}h{sec % 3600 // 60:02d}m"


def _line(label: str, done: int, total: int, elapsed: float, unit: str = "") -> str:
    """The text of the bar, e.g. ``bootstrap [####....] 2,000/10,000 resamples 1.2s, ~5s left``.

    >>> _line("bootstrap", 250, 1000, 2.0, "resamples")
    'bootstrap [#######.....................] 250/1,000 resamples 2.0s, ~6s left'
    """
    frac = done / total if total > 0 else 1.0
    filled = round(frac * _WIDTH)
    bar = "#" * filled + "." * (_WIDTH - filled)
    count = f"{done:,}/{total:,}" + (f" {unit}" if unit else "")
    left = ""
    if 0 < done < total and elapsed > 0:
        left = f", ~{_duration(elapsed * (total - done) / done)} left"
    return f"{label} [{bar}] {count} {elapsed:.1f}s{left}"


def notice(text: str, *, stream: TextIO | None = None) -> bool:
    """Write one line of information on stderr when it is a terminal (above the bar, if any).

    Parameters
    ----------
    text : str
        The message, without a final newline.
    stream : text stream, optional
        Default ``sys.stderr``.

    Returns
    -------
    bool
        Whether it was written (False when the stream is not a terminal).

    Examples
    --------
    >>> import io
    >>> notice("compiling", stream=io.StringIO())  # not a terminal: nothing written
    False
    """
    out = sys.stderr if stream is None else stream
    if not _is_tty(out):
        return False
    clear()
    out.write(text + "\n")
    out.flush()
    return True


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
    unit: str = "",
) -> Iterator[Callable[..., None]]:
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
    unit : str, default ""
        What a step is (e.g. ``"resamples"``), written after the count.

    Yields
    ------
    callable
        ``step(n=1)``: call it after each step (or ``n`` steps) of the work.
    """
    out = sys.stderr if stream is None else stream
    enabled = _is_tty(out)
    start = time.perf_counter()
    state: dict[str, Any] = {"done": 0, "drawn": 0.0, "shown": False, "width": 0}

    def draw(now: float) -> None:
        text = _line(label, state["done"], total, now - start, unit)
        out.write("\r" + text.ljust(state["width"]))  # no rest of a longer line left
        out.flush()
        state["width"] = max(state["width"], len(text))
        state["drawn"] = now
        state["shown"] = True
        _screen["stream"], _screen["width"] = out, state["width"] + 2

    def step(n: int = 1) -> None:
        state["done"] = min(total, int(state["done"]) + n)
        if not enabled:
            return
        now = time.perf_counter()
        if now - start >= delay and now - state["drawn"] >= interval:
            draw(now)

    try:
        yield step
    finally:
        if enabled and state["shown"]:
            width = max(state["width"], len(_line(label, total, total, 1e6, unit))) + 4
            out.write("\r" + " " * width + "\r")
            out.flush()
            _screen["stream"] = None
