"""Checks of the arguments and batches of a streaming evaluator."""

from __future__ import annotations

import numbers
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.validation import (
    as_proba,
    as_weights,
    check_lengths,
    encode_labels,
    find_problems,
    proba_looks_valid,
    type_name,
)
from ordmetrics.evaluation.streaming.ranks import DEFAULT_N_GRID, MAX_TABLE

__all__ = ["Batch", "check_count", "read_batch"]


def check_count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {least}; got {type_name(value)} {value!r}.")
    value = int(value)
    if value < least:
        raise ValueError(f"{name} must be an integer >= {least}; got {value!r}.")
    if value > MAX_TABLE:
        raise ValueError(
            f"{name} must be at most {MAX_TABLE} (2^24, MAX_TABLE); got {value!r}. The ranking "
            f"table keeps K numbers per cell (8 bytes each), so {value!r} cells would need "
            f"{8 * value / 2**30:,.3g} GiB per class; the default {DEFAULT_N_GRID} already "
            "bounds the error of the ranking metrics by about 1e-5 or less."
        )
    return int(value)


def length(x: Any) -> int:
    try:
        return len(x)
    except TypeError:
        return int(np.size(x))


def is_empty(y_proba: Any) -> bool:
    try:
        return len(y_proba) == 0
    except TypeError:
        return False


def channel_matrix(P: np.ndarray, renormalize: bool) -> np.ndarray:
    """The probability matrix as a metric with ``renormalize`` reads it."""
    return as_proba(P, renormalize=True) if renormalize else P


def problems(
    y: np.ndarray, P: np.ndarray, w: np.ndarray | None, enc: Any, nan_policy: str
) -> np.ndarray | None:
    """Raise for invalid values (the functions' checks and messages); the rows with a missing
    value otherwise (None when complete).

    A batch whose weights are all 0 is valid here (it adds nothing); whether any row of
    positive weight was seen is checked by :meth:`Evaluator.compute`.
    """
    k = P.shape[1]
    with np.errstate(invalid="ignore"):
        w_ok = w is None or bool(w.min() >= 0.0 and w.max() < np.inf)
    if enc.missing is None and w_ok and y.min() >= 0 and y.max() < k and proba_looks_valid(P):
        return None
    w_check = w
    if w is not None:
        nan = np.isnan(w)
        rest = w[~nan]
        if rest.size and not (rest > 0).any() and (rest == 0).all():
            w_check = np.where(nan, np.nan, 1.0)  # all 0 (or NaN): only the NaN need checking
    # "propagate" only returns the rows with a missing value: "omit" may drop a whole batch
    return find_problems(
        y,
        P,
        w_check,
        y_missing=enc.missing,
        nan_policy="raise" if nan_policy == "raise" else "propagate",
        labels=enc.labels,
        renormalize_hint=False,
    )


@dataclass(frozen=True)
class Batch:
    """A validated batch: class codes, probability matrices by channel, weights, missing rows."""

    k: int
    labels: tuple[Hashable, ...] | None
    y: np.ndarray
    mats: dict[bool, np.ndarray]
    w: np.ndarray | None
    missing: np.ndarray | None


def read_batch(
    y_true: Any,
    y_proba: Any,
    sample_weight: Any,
    *,
    k: int | None,
    labels: tuple[Hashable, ...] | None,
    fixed_by_labels: bool,
    nan_policy: str,
    channels: set[bool],
) -> Batch | None:
    """Validate a batch like the metric functions do (None for a batch of zero rows).

    ``k`` and ``labels`` are the evaluator's (None before the first batch), ``channels`` the
    probability matrices its metrics read: as given (False), renormalized (True).
    """
    if is_empty(y_proba):
        check_lengths(length(y_true), 0)
        return None
    P = as_proba(y_proba)
    n, kb = P.shape
    if k is not None and kb != k:
        origin = "labels=" if fixed_by_labels else "the first batch"
        raise ValueError(
            f"y_proba has {kb} columns in this batch, but the evaluator has K = {k} "
            f"classes (fixed by {origin}); every batch needs one column per class."
        )
    if kb < 2:  # pragma: no cover - as_proba refuses it
        raise ValueError("y_proba needs at least 2 columns")
    enc = encode_labels(y_true, labels=labels, n_classes=kb)
    check_lengths(enc.codes.size, n)
    w = as_weights(sample_weight, n)
    mats = {flag: channel_matrix(P, flag) for flag in sorted(channels)}
    missing = None
    for Q in mats.values():  # the same rows are missing in both matrices
        missing = problems(enc.codes, Q, w, enc, nan_policy)
    return Batch(kb, enc.labels, enc.codes, mats, w, missing)
