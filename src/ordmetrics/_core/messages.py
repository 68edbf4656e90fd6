"""Pieces of the messages about bad input: row lists, value lists, type names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def fmt_rows(rows: np.ndarray, limit: int = 5) -> str:
    """``rows 1, 4, 7 and 12 more``: row positions for a message (at most ``limit`` shown).

    Examples
    --------
    >>> import numpy as np
    >>> fmt_rows(np.array([3])), fmt_rows(np.arange(8), limit=3)
    ('row 3', 'rows 0, 1, 2 and 5 more')
    """
    rows = np.asarray(rows)
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    noun = "row" if rows.size == 1 else "rows"
    return f"{noun} {shown}{more}"


def fmt_values(values: Sequence[Any], limit: int = 5) -> str:
    """``'a', 'b', ... (3 more)``: values for a message, as their reprs (at most ``limit``).

    Examples
    --------
    >>> fmt_values(["a", "b", "c"], limit=2)
    "'a', 'b', ... (1 more)"
    """
    shown = ", ".join(repr(v) for v in list(values)[:limit])
    more = f", ... ({len(values) - limit} more)" if len(values) > limit else ""
    return shown + more


def type_name(x: Any) -> str:
    """The type of ``x`` as a message names it: ``int``, ``numpy.float32``, ``pandas...``.

    Examples
    --------
    >>> import numpy as np
    >>> type_name(1.5), type_name(np.float32(1))
    ('float', 'numpy.float32')
    """
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}" if t.__module__ != "builtins" else t.__qualname__
