"""Random number generators from the ``random_state`` arguments of the resampling functions.

Every function that draws at random (the bootstrap, paired comparisons, the consistency bands of
the CORP reliability diagram) takes ``random_state`` and turns it into a NumPy generator with
:func:`make_rng`, so the argument means the same everywhere and is checked with one message.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ordmetrics._core.validation import type_name

__all__ = ["make_rng"]


def make_rng(random_state: Any) -> np.random.Generator:
    """The NumPy generator that ``random_state`` names.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None``: a generator seeded from the operating system (results differ between runs).
        A non-negative integer: a generator seeded with it (reproducible results). A
        generator: used as it is (its state advances).

    Returns
    -------
    numpy.random.Generator
        The generator.

    Raises
    ------
    ValueError
        For a negative integer seed.
    TypeError
        For anything else (a float, a bool, a legacy ``RandomState``, ...).

    Examples
    --------
    >>> from ordmetrics._core.random import make_rng
    >>> a, b = make_rng(0), make_rng(0)
    >>> bool(a.integers(100) == b.integers(100))
    True
    >>> g = make_rng(1)
    >>> make_rng(g) is g
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                "random_state must be None, a non-negative integer seed or a "
                f"numpy.random.Generator; got {random_state}. Pass e.g. random_state=0."
            )
        return np.random.default_rng(int(random_state))
    raise TypeError(
        f"random_state must be None, a non-negative integer seed or a numpy.random.Generator; "
        f"got {type_name(random_state)} {random_state!r}. Pass e.g. random_state=0 or "
        "random_state=np.random.default_rng(0)."
    )
