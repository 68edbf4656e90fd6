"""Inputs validated together, with the ``nan_policy`` applied (metrics beyond the scoring rules)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.arrays import as_scores
from ordmetrics._core.labels import (
    check_labels,
    check_lengths,
    check_non_negative_codes,
    encode_labels,
)
from ordmetrics._core.messages import fmt_rows
from ordmetrics._core.options import NAN_POLICIES, check_option
from ordmetrics._core.proba import as_proba, find_problems, proba_looks_valid
from ordmetrics._core.weights import (
    as_weights,
    check_weight_values,
    weights_and_missing,
    weights_look_valid,
)


@dataclass(frozen=True)
class Prepared:
    """Validated inputs with the ``nan_policy`` applied.

    ``y_true`` holds class indices ``0..n_classes-1``; ``other`` holds the second input in
    canonical form (class indices for hard labels, float64 scores, or a probability matrix);
    ``weight`` is ``None`` for unit weights. When ``nan_policy="propagate"`` and a value is
    missing, ``propagate`` is True and the metric must return NaN (the arrays are then the
    complete rows only, so that everything else has still been validated).
    """

    y_true: np.ndarray
    other: np.ndarray
    weight: np.ndarray | None
    n_classes: int
    labels: tuple[Hashable, ...] | None
    propagate: bool = False


def apply_missing(
    missing: np.ndarray | None, parts: dict[str, np.ndarray | None], nan_policy: str
) -> tuple[np.ndarray | None, bool]:
    """Raise for missing values under "raise"; otherwise return the mask of complete rows."""
    if missing is None or not missing.any():
        return None, False
    if nan_policy == "raise":
        where = "; ".join(
            f"{name} is missing (NaN/None) in {fmt_rows(np.flatnonzero(m))}"
            for name, m in parts.items()
            if m is not None and m.any()
        )
        raise ValueError(
            f"{where}. Pass nan_policy='omit' to drop those rows or nan_policy='propagate' "
            "to get NaN."
        )
    keep = ~missing
    if not keep.any() and nan_policy == "omit":
        raise ValueError(
            "every row has a missing value, so nan_policy='omit' leaves nothing to score."
        )
    return keep, nan_policy == "propagate"


def _or(*masks: np.ndarray | None) -> np.ndarray | None:
    out = None
    for m in masks:
        if m is not None:
            out = m.copy() if out is None else out | m
    return out


def _finish(
    y: np.ndarray,
    other: np.ndarray,
    w: np.ndarray | None,
    keep: np.ndarray | None,
    propagate: bool,
    n_classes: int,
    labels: tuple[Hashable, ...] | None,
) -> Prepared:
    if keep is not None:
        y, other = y[keep], other[keep]
        w = None if w is None else w[keep]
    if w is not None and y.size:
        check_weight_values(w, None if keep is None else np.flatnonzero(keep))
    return Prepared(y, other, w, n_classes, labels, propagate)


def prepare_hard(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    pred_name: str = "y_pred",
) -> Prepared:
    """Validate truth and hard predictions (both class labels) against one label set.

    Without ``labels`` both must be integer class indices and the label set is
    ``0..max(y_true, y_pred)``: classes absent from the data but inside that range still count.
    """
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    if labels is not None:
        lab = check_labels(labels, None)
        k = len(lab)
    else:
        lab, k = None, 0
    yt = encode_labels(y_true, labels=lab, n_classes=k or None, name="y_true")
    yp = encode_labels(y_pred, labels=lab, n_classes=k or None, name=pred_name)
    check_lengths(yt.codes.size, yp.codes.size, pred_name)
    if yt.codes.size == 0:
        raise ValueError("y_true is empty (0 rows); there is nothing to score.")
    w, w_nan = weights_and_missing(sample_weight, yt.codes.size)
    if lab is None:
        lab = yt.labels if yt.labels is not None else yp.labels
        if yt.labels is not None and yp.labels is not None and yt.labels != yp.labels:
            raise ValueError(
                f"y_true and {pred_name} are ordered categoricals with different categories "
                f"({list(yt.labels)!r} vs {list(yp.labels)!r}); pass labels= to say which "
                "order is meant."
            )
    missing = _or(yt.missing, yp.missing, w_nan)
    keep, propagate = apply_missing(
        missing, {"y_true": yt.missing, pred_name: yp.missing, "sample_weight": w_nan}, nan_policy
    )
    ok = slice(None) if keep is None else keep
    ytc, ypc = yt.codes[ok], yp.codes[ok]
    if lab is not None:
        k = len(lab)
    else:
        check_non_negative_codes(ytc, "y_true", keep)
        check_non_negative_codes(ypc, pred_name, keep)
        k = int(max(ytc.max(initial=0), ypc.max(initial=0))) + 1
        k = max(k, 2)
    return _finish(yt.codes, yp.codes, w, keep, propagate, k, lab)


def prepare_proba(
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    renormalize: bool = False,
    name: str = "y_proba",
    renormalize_hint: bool = True,
) -> Prepared:
    """Validate truth and a probability matrix completely (``other`` is the float matrix).

    ``name`` is the argument name used in messages; ``renormalize_hint`` says whether the
    caller offers ``renormalize=True``.
    """
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    P = as_proba(y_proba, renormalize=renormalize, name=name)
    n, k = P.shape
    enc = encode_labels(y_true, labels=labels, n_classes=k, proba_name=name)
    check_lengths(enc.codes.size, n, name)
    w = as_weights(sample_weight, n)
    y = enc.codes
    if (
        enc.missing is None
        and y.min() >= 0
        and y.max() < k
        and weights_look_valid(w)
        and proba_looks_valid(P)
    ):
        return Prepared(y, P, w, k, enc.labels)
    missing = find_problems(
        enc.codes,
        P,
        w,
        y_missing=enc.missing,
        nan_policy=nan_policy,
        labels=enc.labels,
        name=name,
        renormalize_hint=renormalize_hint,
    )
    keep = None if missing is None else ~missing
    propagate = missing is not None and nan_policy == "propagate"
    if keep is not None:
        P, y = P[keep], enc.codes[keep]
        w = None if w is None else w[keep]
    else:
        y = enc.codes
    if propagate and y.size == 0:
        return Prepared(y, P, w, k, enc.labels, True)
    return Prepared(y, P, w, k, enc.labels, propagate)


def prepare_scores(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    name: str = "y_score",
) -> Prepared:
    """Validate ordinal truth and a 1-D score with the nan_policy applied (K not needed)."""
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    s = as_scores(y_score, name)
    enc = encode_labels(y_true, labels=labels, n_classes=None, name="y_true")
    check_lengths(enc.codes.size, s.size, name)
    w, w_nan = weights_and_missing(sample_weight, s.size)
    s_nan = np.isnan(s)
    s_nan = s_nan if s_nan.any() else None
    keep, propagate = apply_missing(
        _or(enc.missing, s_nan, w_nan),
        {"y_true": enc.missing, name: s_nan, "sample_weight": w_nan},
        nan_policy,
    )
    codes = enc.codes if keep is None else enc.codes[keep]
    if enc.labels is not None:
        k = len(enc.labels)
    else:
        check_non_negative_codes(codes, "y_true", keep)
        k = int(codes.max(initial=0)) + 1
    return _finish(enc.codes, s, w, keep, propagate, k, enc.labels)
