"""The label set and the one confusion matrix every agreement metric reads.

Inputs are checked and encoded once (:func:`prepare`), and the weighted K x K table over the full
label set is counted in one pass (:func:`confusion_counts`; rows: true class, columns: predicted
class). With ``labels=None`` the label set is ``0..max(y_true, y_pred)``. The option checks
shared by the formulas (kappa weights, cost matrices, the ``k`` of the within-k accuracy) and the
names of the metrics are here too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ordmetrics._core.registry import register
from ordmetrics._core.validation import (
    Prepared,
    prepare_hard,
)
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.decisions import (
    COSTS,
    builtin_matrix,
    check_matrix,
)

__all__ = [
    "AGREEMENT_METRICS",
    "KAPPA_WEIGHTS",
    "MAX_IMPLIED_CLASSES",
    "NORMALIZE",
    "confusion_counts",
    "prepare",
    "register_agreement",
    "warn_empty_classes",
]

KAPPA_WEIGHTS = ("linear", "quadratic")
NORMALIZE = ("true", "pred", "all")

#: Without ``labels``, the label set 0..max(y_true, y_pred) may not exceed this many classes:
#: a larger one means the inputs are not class indices (the K x K table would be huge).
MAX_IMPLIED_CLASSES = 4096

#: The parameters every metric shares, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_PARAMS_TEMPLATE = """\
    %(y_true)s
    %(y_pred)s
    %(labels_pred)s
    %(sample_weight_pred)s
    %(nan_policy_pred)s"""


#: The agreement metrics, all functions of one confusion matrix (see :func:`counts_evaluator`).
AGREEMENT_METRICS = (
    "kappa",
    "qwk",
    "expected_cost",
    "mae",
    "amae",
    "mmae",
    "accuracy",
    "within_k_accuracy",
    "macro_f1",
    "macro_precision",
    "macro_recall",
)


# --------------------------------------------------------------------------------------------
# The one confusion matrix every metric reads
# --------------------------------------------------------------------------------------------


def prepare(y_true: Any, y_pred: Any, labels: Any, sample_weight: Any, nan_policy: str) -> Prepared:
    """Check and encode the inputs of an agreement metric (``Prepared``: codes, weights, K)."""
    prep = prepare_hard(
        y_true, y_pred, labels=labels, sample_weight=sample_weight, nan_policy=nan_policy
    )
    k = prep.n_classes
    if prep.labels is None and k > MAX_IMPLIED_CLASSES:
        raise ValueError(
            f"without labels=, the classes are the integers 0..max(y_true, y_pred), here "
            f"0..{k - 1} ({k} classes, more than {MAX_IMPLIED_CLASSES}); these do not look like "
            "class indices. Pass labels=[...] listing the classes in ordinal order."
        )
    return prep


def confusion_counts(prep: Prepared) -> np.ndarray:
    """Weighted K x K counts (rows: true class, columns: predicted class), float64."""
    k = prep.n_classes
    flat = np.bincount(prep.y_true * k + prep.other, weights=prep.weight, minlength=k * k)
    return flat.reshape(k, k).astype(np.float64, copy=False)


_CLASSES_FROM = "labels=, or 0..max(y_true, y_pred) without it"


def _kappa_weights(weights: Any, k: int) -> np.ndarray:
    if weights is None:
        return builtin_matrix("zero_one", k)
    return check_matrix(
        weights,
        k,
        name="weights",
        options=KAPPA_WEIGHTS,
        what="disagreement weight W[true, predicted], or None for unweighted kappa",
        classes_from=_CLASSES_FROM,
    )


def _cost_matrix(costs: Any, k: int) -> np.ndarray:
    return check_matrix(
        costs,
        k,
        name="costs",
        options=COSTS,
        what="cost C[true, predicted]",
        classes_from=_CLASSES_FROM,
    )


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise TypeError(
            f"k must be a non-negative integer (the largest accepted distance "
            f"|y_true - y_pred|, in classes); got {type(k).__name__} {k!r}. Pass e.g. k=1."
        )
    if k < 0:
        raise ValueError(
            f"k must be a non-negative integer (the largest accepted distance "
            f"|y_true - y_pred|, in classes); got {k}. k=0 gives the accuracy."
        )
    return int(k)


def warn_empty_classes(normalize: str, empty: np.ndarray) -> None:
    """Warn that normalizing a confusion matrix divides 0 by 0 for the classes ``empty``."""
    side = "y_true" if normalize == "true" else "y_pred"
    what = "rows" if normalize == "true" else "columns"
    warn_undefined(
        f"confusion_matrix(normalize={normalize!r})",
        f"classes {empty.tolist()} (positions) do not occur in {side}, so their {what} "
        "are 0/0; those entries are NaN",
    )


def register_agreement(
    entries: list[tuple[Any, str, tuple[float, float], float, str, str]],
) -> None:
    """Register agreement metrics: (function, direction, range, perfect, description, note)."""
    for func, direction, range_, perfect, desc, note in entries:
        register(
            func,
            direction=direction,  # type: ignore[arg-type]
            range=range_,
            kind="agreement",
            perfect=perfect,
            description=desc,
            range_note=note,
        )
