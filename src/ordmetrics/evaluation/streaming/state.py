"""The state of a streaming evaluator as plain values, and the checks of a state being loaded.

:meth:`~ordmetrics.stream.Evaluator.state_dict` writes, and
:meth:`~ordmetrics.stream.Evaluator.load_state_dict` reads, nested dicts of NumPy arrays,
Python scalars and strings. Every field read is checked (presence, type, shape, dtype,
finiteness, sign, consistency) and a damaged one is named in the error.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from ordmetrics._core.validation import type_name

__all__ = [
    "FORMAT",
    "STATE_VERSION",
    "StateReader",
    "check_header",
    "check_same_data",
    "config_difference",
    "plain",
    "plain_labels",
]

#: Version of the layout of :meth:`Evaluator.state_dict`; a state of another version is refused.
STATE_VERSION = 1
#: The ``format`` field of every state.
FORMAT = "ordmetrics.stream.Evaluator"

#: Relative tolerance of the consistency checks between sums of one state (rounding of sums
#: added in different orders: about 1e-15 relative; 1e-9 leaves a wide margin).
STATE_RTOL = 1e-9
#: The range of ``weight_exponent``: e - 1 for e the exponent of a positive float64
#: (2^-1074 = 0.5 * 2^-1073 up to 2^1024 (1 - 2^-53)).
_MIN_EXP, _MAX_EXP = -1074, 1023


# --------------------------------------------------------------------------------------------
# Plain values
# --------------------------------------------------------------------------------------------


def plain(value: Any, what: str) -> Any:
    """``value`` as a plain Python scalar or string, or a copy as a NumPy array of numbers."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    try:
        arr = np.array(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{what} must be a string, a number, a bool, None or an array of numbers to be kept "
            f"in an evaluator's state; got {type_name(value)}."
        )
    return arr


def same(a: Any, b: Any) -> bool:
    """Whether two plain values (or arrays) are equal, of the same type."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return type(a) is type(b) and a == b


def same_list(a: Any, b: Any) -> bool:
    """:func:`same` for lists (element by element) and None."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return same(a, b)


def plain_labels(labels: tuple[Hashable, ...] | None) -> list[Any] | None:
    """The class labels as a list of plain values (None stays None)."""
    if labels is None:
        return None
    out = []
    for v in labels:
        v = v.item() if isinstance(v, np.generic) else v
        if not (v is None or isinstance(v, str | bool | int | float)):
            raise TypeError(
                f"the class labels must be strings, numbers or booleans for the state of an "
                f"evaluator to hold them; got {type_name(v)} {v!r}."
            )
        out.append(v)
    return out


def check_header(state: Any) -> Mapping[str, Any]:
    """The ``config`` of a state whose format and version are right."""
    if not isinstance(state, Mapping) or state.get("format") != FORMAT:
        raise ValueError(
            "state must be a dict made by Evaluator.state_dict() (with format "
            f"{FORMAT!r}); got {type_name(state)}."
        )
    version = state.get("version")
    if version != STATE_VERSION:
        raise ValueError(
            f"the state has version {version!r}, but this ordmetrics reads states of version "
            f"{STATE_VERSION}; compute it again with this version."
        )
    config = state.get("config")
    if not isinstance(config, Mapping):
        raise ValueError("the state has no configuration ('config'); it is damaged.")
    return config


def config_difference(mine: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """What differs between the configuration ``mine`` and ``config`` (None if equal)."""
    for key in ("labels", "nan_policy", "decision", "max_exact", "n_grid"):
        if key not in config or not same_list(mine[key], config[key]):
            return f"{key} differs ({mine[key]!r} vs {config.get(key)!r})"
    other = config.get("metrics")
    if not isinstance(other, list) or [m.get("name") for m in other] != [
        m["name"] for m in mine["metrics"]
    ]:
        names = [m.get("name") for m in other] if isinstance(other, list) else other
        return f"the metrics differ ({[m['name'] for m in mine['metrics']]!r} vs {names!r})"
    for a, b in zip(mine["metrics"], other, strict=True):
        oa, ob = a["options"], b.get("options", {})
        if (
            a["metric"] != b.get("metric")
            or set(oa) != set(ob)
            or not all(same(oa[key], ob[key]) for key in oa)
        ):
            return f"the options of metric {a['name']!r} differ ({oa!r} vs {ob!r})"
    return None


def check_same_data(
    k: int | None, labels: tuple[Hashable, ...] | None, other_k: int | None, other: Any, what: str
) -> None:
    """Refuse to ``what`` (e.g. merge) evaluators that have seen different classes."""
    if k is not None and other_k is not None:
        if other_k != k:
            raise ValueError(
                f"cannot {what}: K = {k} classes here but K = {other_k} in the other; "
                "both must see the same classes."
            )
        if not same_list(plain_labels(labels), other):
            raise ValueError(
                f"cannot {what}: the class labels differ ({plain_labels(labels)!r} vs {other!r})."
            )


# --------------------------------------------------------------------------------------------
# Validation of a state
# --------------------------------------------------------------------------------------------


def state_error(field: str, message: str) -> ValueError:
    """The error for a damaged ``field`` of a state."""
    return ValueError(f"cannot load the state: field {field!r} {message}.")


class StateReader:
    """Reads and checks the fields of a state (see :meth:`Evaluator.load_state_dict`)."""

    def __init__(self, state: Mapping[str, Any]) -> None:
        self.state = state

    @staticmethod
    def get(mapping: Any, key: str, field: str) -> Any:
        if not isinstance(mapping, Mapping):
            raise state_error(field.rsplit(".", 1)[0], f"must be a dict; got {type_name(mapping)}")
        if key not in mapping:
            raise state_error(
                field, "is missing; the state is incomplete (make it with Evaluator.state_dict())"
            )
        return mapping[key]

    @staticmethod
    def count(value: Any, field: str) -> int:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise state_error(field, f"must be an integer >= 0; got {type_name(value)} {value!r}")
        if value < 0:
            raise state_error(field, f"must be an integer >= 0; got {value!r}")
        return int(value)

    @staticmethod
    def number(value: Any, field: str, allow_inf: bool = False) -> float:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise state_error(field, f"must be a number; got {type_name(value)} {value!r}")
        v = float(value)
        ok = v >= 0.0 and (allow_inf or v < math.inf)
        if not ok:
            what = "a number >= 0 (or inf)" if allow_inf else "a finite number >= 0"
            raise state_error(field, f"must be {what}; got {v!r}")
        return v

    @staticmethod
    def exponent(value: Any, field: str) -> int:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise state_error(
                field, f"must be an integer (a binary exponent); got {type_name(value)} {value!r}"
            )
        e = int(value)
        if not _MIN_EXP <= e <= _MAX_EXP:
            raise state_error(
                field,
                f"must be an integer in [{_MIN_EXP}, {_MAX_EXP}] (the binary exponent of a "
                f"float64 weight); got {e!r}",
            )
        return e

    @staticmethod
    def array(value: Any, shape: tuple[int, ...] | None, field: str) -> np.ndarray:
        """A finite, non-negative float64 copy of ``value`` of the given shape."""
        if isinstance(value, np.ndarray):
            arr = value
        else:
            try:
                arr = np.asarray(value)
            except (TypeError, ValueError):
                raise state_error(
                    field, f"must be an array of numbers; got {type_name(value)}"
                ) from None
        if arr.dtype.kind not in "iuf":
            raise state_error(
                field, f"must be an array of real numbers; got an array of dtype {arr.dtype}"
            )
        if shape is not None and arr.shape != shape:
            raise state_error(field, f"must have shape {shape}; got shape {arr.shape}")
        out = np.array(arr, dtype=np.float64)
        if not np.isfinite(out).all():
            raise state_error(field, "must hold finite numbers only; it holds NaN or inf")
        if (out < 0.0).any():
            raise state_error(field, f"must hold numbers >= 0; it holds {float(out.min())!r}")
        return out

    @staticmethod
    def total(arr: np.ndarray, total_weight: float, field: str) -> None:
        """Check that ``arr`` adds up to ``total_weight`` (up to rounding)."""
        got = float(arr.sum())
        if abs(got - total_weight) > STATE_RTOL * max(total_weight, got, 1e-300):
            raise state_error(
                field,
                f"must add up to total_weight = {total_weight!r}; it adds up to {got!r} (the "
                "state is damaged or was edited)",
            )

    @staticmethod
    def exact_keys(value: Any, wanted: Mapping[str, Any], field: str) -> None:
        if not isinstance(value, Mapping):
            raise state_error(field, f"must be a dict; got {type_name(value)}")
        missing = [key for key in wanted if key not in value]
        extra = [key for key in value if key not in wanted]
        if missing:
            raise state_error(f"{field}.{missing[0]}", "is missing; the state is incomplete")
        if extra:
            raise state_error(
                field, f"has entries {extra!r} that no metric of this evaluator makes"
            )

    # ---- the header of the data part ------------------------------------------------------

    def scalars(self, nan_policy: str) -> dict[str, Any]:
        """The fields that do not depend on the metrics, checked (``n_classes`` not yet)."""
        state = self.state
        n_rows = self.count(self.get(state, "n_rows", "n_rows"), "n_rows")
        n_missing = self.count(self.get(state, "n_missing", "n_missing"), "n_missing")
        total_weight = self.number(self.get(state, "total_weight", "total_weight"), "total_weight")
        weight_exp = self.exponent(state.get("weight_exponent", 0), "weight_exponent")
        propagated = self.get(state, "propagated", "propagated")
        if not isinstance(propagated, bool | np.bool_):
            raise state_error(
                "propagated", f"must be True or False; got {type_name(propagated)} {propagated!r}"
            )
        propagated = bool(propagated)
        if propagated and (nan_policy != "propagate" or n_missing == 0):
            raise state_error(
                "propagated",
                "is True, but only an evaluator with nan_policy='propagate' that has met a "
                f"missing value sets it (nan_policy={nan_policy!r}, n_missing={n_missing})",
            )
        if n_rows == 0 and total_weight != 0.0:
            raise state_error("total_weight", f"must be 0 when n_rows is 0; got {total_weight!r}")
        return {
            "n_rows": n_rows,
            "n_missing": n_missing,
            "total_weight": total_weight,
            "weight_exp": weight_exp,
            "propagated": propagated,
        }

    def classes(
        self, k_raw: Any, labels: Any, own_k: int | None, own_labels: tuple[Hashable, ...] | None
    ) -> tuple[int, tuple[Hashable, ...] | None]:
        """K and the labels of a state that has seen a batch, checked against the evaluator's."""
        if isinstance(k_raw, bool | np.bool_) or not isinstance(k_raw, numbers.Integral):
            raise state_error(
                "n_classes", f"must be an integer >= 2; got {type_name(k_raw)} {k_raw!r}"
            )
        k = int(k_raw)
        if k < 2:
            raise state_error("n_classes", f"must be an integer >= 2; got {k}")
        if own_k is not None and k != own_k:
            raise state_error("n_classes", f"is {k}, but this evaluator has K = {own_k} classes")
        if labels is not None:
            if not isinstance(labels, list | tuple):
                raise state_error("labels", f"must be a list or None; got {type_name(labels)}")
            if len(labels) != k:
                raise state_error("labels", f"must have n_classes = {k} entries; got {len(labels)}")
            plain_labels(tuple(labels))
        if own_labels is not None and not same_list(plain_labels(own_labels), labels):
            raise ValueError(
                f"cannot load the state: its labels {labels!r} differ from this evaluator's "
                f"{plain_labels(own_labels)!r}."
            )
        return k, None if labels is None else tuple(labels)
