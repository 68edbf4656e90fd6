"""The confusion matrix and the evaluation of one agreement metric on one data set.

Device arrays (PyTorch, JAX, CuPy) are handed to :mod:`ordmetrics.metrics.agreement.device`,
which counts the table on their device; everything else is counted here with NumPy.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ordmetrics._core import (
    array_api as _xp,  # array-API dispatch (PyTorch, JAX, CuPy); imports nothing optional
)
from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.validation import check_option
from ordmetrics.metrics.agreement import device
from ordmetrics.metrics.agreement.formulas import counts_evaluator, warn_if_undefined
from ordmetrics.metrics.agreement.labels import (
    _PARAMS_TEMPLATE,
    NORMALIZE,
    confusion_counts,
    prepare,
    warn_empty_classes,
)

__all__ = ["confusion_matrix"]


def _scalar(
    name: str,
    y_true: Any,
    y_pred: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    **options: Any,
) -> float:
    """Prepare the inputs, build one confusion matrix and evaluate ``name`` on it."""
    # ---- array-API dispatch: device arrays are counted on their device (agreement.device) ------
    if _xp.is_device_array(y_pred) or _xp.is_device_array(y_true):
        return device.agreement_scalar(
            name, y_true, y_pred, labels, sample_weight, nan_policy, **options
        )
    # ---- end of array-API dispatch -------------------------------------------------------------
    prep = prepare(y_true, y_pred, labels, sample_weight, nan_policy)
    f = counts_evaluator(name, prep.n_classes, **options)
    if prep.propagate:
        return math.nan
    w, _ = scale_weights(
        prep.weight
    )  # exact; the counts cannot overflow (ordmetrics._core.numerics)
    counts = confusion_counts(replace(prep, weight=w))
    return warn_if_undefined(name, float(f(counts)))


@fill_doc(params=_PARAMS_TEMPLATE)
def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    normalize: str | None = None,
) -> np.ndarray:
    r"""Weighted confusion matrix over the full label set (rows: true, columns: predicted).

    .. math::

        M_{ij} = \sum_n w_n \, 1\{y_n = i,\ \hat y_n = j\}

    Parameters
    ----------
    %(params)s
    normalize : {"true", "pred", "all"}, optional
        ``None``: the (weighted) counts. ``"true"``: each row divided by its sum (the
        distribution of predictions for each true class). ``"pred"``: each column divided by
        its sum. ``"all"``: divided by the total (the proportions O of the metrics).

    Returns
    -------
    ndarray of shape (K, K)
        ``int64`` counts when there are no weights and no normalisation, ``float64``
        otherwise. Under ``nan_policy="propagate"`` with a missing value, all NaN.

    Notes
    -----
    With ``normalize="true"`` the row of a class absent from ``y_true`` is 0/0: it is NaN,
    with an :class:`~ordmetrics.UndefinedMetricWarning` (scikit-learn writes 0 there);
    likewise the column of a class never predicted with ``normalize="pred"``.

    References
    ----------
    .. [1] Stehman, S. V. (1997). Selecting and interpreting measures of thematic
       classification accuracy. Remote Sensing of Environment 62(1), 77-89.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import confusion_matrix
    >>> confusion_matrix([0, 1, 3, 3], [0, 2, 3, 1])
    array([[1, 0, 0, 0],
           [0, 0, 1, 0],
           [0, 0, 0, 0],
           [0, 1, 0, 1]])
    """
    # ---- array-API dispatch: device arrays are counted on their device (agreement.device) ------
    if _xp.is_device_array(y_pred) or _xp.is_device_array(y_true):
        return device.confusion_matrix(
            y_true,
            y_pred,
            labels=labels,
            sample_weight=sample_weight,
            nan_policy=nan_policy,
            normalize=normalize,
        )
    # ---- end of array-API dispatch -------------------------------------------------------------
    if normalize is not None:
        check_option(normalize, "normalize", NORMALIZE)
    prep = prepare(y_true, y_pred, labels, sample_weight, nan_policy)
    k = prep.n_classes
    if prep.propagate:
        return np.full((k, k), np.nan)
    if prep.weight is None and normalize is None:
        flat = np.bincount(prep.y_true * k + prep.other, minlength=k * k)
        return flat.reshape(k, k).astype(np.int64, copy=False)
    if normalize is None:
        return confusion_counts(prep)
    # proportions are free of the weights' scale: count in exactly rescaled units so that
    # weights near the float maximum cannot overflow a cell or a total
    counts = confusion_counts(replace(prep, weight=scale_weights(prep.weight)[0]))
    if normalize == "all":
        return counts / counts.sum()
    axis = 1 if normalize == "true" else 0
    totals = counts.sum(axis=axis, keepdims=True)
    empty = np.flatnonzero(totals == 0)
    if empty.size:
        warn_empty_classes(normalize, empty)
    with np.errstate(invalid="ignore"):
        return counts / totals
