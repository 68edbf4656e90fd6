"""Warnings raised by ordmetrics, and a thread-safe way for the library to silence or collect them.

The library never touches the process-wide warning filters (``warnings.catch_warnings`` and
``warnings.simplefilter`` change global state and are not thread-safe). Where it needs to
evaluate a metric without its :class:`UndefinedMetricWarning` (each resample of a bootstrap)
or to gather the warnings of a computation and issue them again (the report), it sets a
:class:`contextvars.ContextVar` that :func:`warn` consults. Each thread (and each asyncio
task) has its own value, so one caller's switch never affects another thread.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class UndefinedMetricWarning(RuntimeWarning):
    """A metric is undefined for the data given (e.g. kappa when every row has one class).

    The metric returns NaN with this warning instead of raising, so that a bootstrap or a
    retention curve never stops half-way because one resample is degenerate.
    """


#: None: warn normally; a list: append (message, category) instead of warning; False: drop.
_SINK: ContextVar[list[tuple[str, type[Warning]]] | bool | None] = ContextVar(
    "ordmetrics_warning_sink", default=None
)


def warn(
    message: str, category: type[Warning] = UndefinedMetricWarning, stacklevel: int = 2
) -> None:
    """Issue ``message`` as a warning, unless :func:`quiet` or :func:`collect` is in force in
    this thread (context)."""
    sink = _SINK.get()
    if sink is None:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
    elif isinstance(sink, list):
        sink.append((message, category))


def warn_undefined(metric: str, reason: str) -> None:
    """Warn that ``metric`` is undefined (the caller returns NaN)."""
    warn(f"{metric} is undefined: {reason}; returning NaN.", UndefinedMetricWarning, stacklevel=3)


@contextmanager
def quiet() -> Iterator[None]:
    """Drop the warnings that ordmetrics issues through :func:`warn` in this context only.

    Warnings of other libraries (and of user callables) are not affected, nor are other
    threads.
    """
    token = _SINK.set(False)
    try:
        yield
    finally:
        _SINK.reset(token)


@contextmanager
def collect() -> Iterator[list[tuple[str, type[Warning]]]]:
    """Gather the warnings that ordmetrics issues through :func:`warn` in this context, as
    ``(message, category)`` pairs, instead of issuing them."""
    caught: list[tuple[str, type[Warning]]] = []
    token = _SINK.set(caught)
    try:
        yield caught
    finally:
        _SINK.reset(token)
