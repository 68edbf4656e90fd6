"""Options shared by the metrics (``nan_policy``, ``reduction``) and the flag check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ordmetrics._core.params import Options, check_param

#: The values of every metric's ``nan_policy``.
NAN_POLICIES = ("raise", "omit", "propagate")
#: The values of the scoring rules' ``reduction``.
REDUCTIONS = ("mean", "sum", "none")


def check_option(value: Any, name: str, allowed: Sequence[str]) -> str:
    """Check a string option against its allowed values (a ``params.Options`` constraint).

    Examples
    --------
    >>> check_option("omit", "nan_policy", NAN_POLICIES)
    'omit'
    >>> check_option("skip", "nan_policy", NAN_POLICIES)
    Traceback (most recent call last):
    ...
    ValueError: nan_policy must be one of 'raise', 'omit', 'propagate'; got 'skip'.
    """
    if isinstance(value, str) and value in allowed:
        return value
    return check_param(value, name, [Options(allowed)])  # raises the ValueError


def check_flag(value: Any, name: str) -> bool:
    """Check a yes/no option: only ``True`` and ``False`` (Python or NumPy booleans) pass.

    Flags are never read by truthiness: ``normalize=None`` or ``renormalize="no"`` would
    otherwise silently mean False or True.

    Examples
    --------
    >>> import numpy as np
    >>> check_flag(np.True_, "normalize")
    True
    >>> check_flag(None, "normalize")
    Traceback (most recent call last):
    ...
    TypeError: normalize must be True or False; got NoneType None. Flags are not read by \
truthiness: pass normalize=True or normalize=False.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    return bool(check_param(value, name, ["boolean"]))  # raises the TypeError
