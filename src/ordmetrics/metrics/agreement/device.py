"""The agreement metrics on PyTorch, JAX and CuPy arrays: the confusion matrix on the device.

When ``y_true`` or ``y_pred`` is an array of an array-API library other than NumPy (see
:func:`ordmetrics._core.array_api.is_device_array`), the agreement metrics and
:func:`~ordmetrics.metrics.agreement.confusion_matrix` hand the call to this module. The inputs
are checked with device reductions (one integer of flags comes back, and without ``labels=`` the
largest class index, K - 1); invalid input is copied to the host, where
:func:`ordmetrics.metrics.agreement.labels.prepare` raises the very message a NumPy input gets.
The K x K confusion matrix is counted on the device with the library's own scatter-add
(``torch.bincount``, ``cupy.bincount``, ``jax.numpy.bincount``: O(N) work, exact integer
counts); for any other array-API library, which has no such function in the standard, with a
product of one-hot matrices (O(N K^2) work, O(N K) memory, in float64 where available). Only
that table (K^2 numbers) is copied to the host, where the formulas of
:func:`ordmetrics.metrics.agreement.counts_evaluator` (the single source of each formula) give
the value, which goes back into a 0-d array of the input library. The generic device helpers
(the array space, device class codes and weights, flags, host copies) are those of
:mod:`ordmetrics._core.array_api`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ordmetrics._core.array_api import (
    Space,
    device_codes,
    device_weights,
    host_codes,
    index_labels_only,
    is_device_array,
    read_flags,
    scalar_out,
    space_of,
    to_host,
    unit_weights,
)
from ordmetrics._core.validation import (
    NAN_POLICIES,
    check_labels,
    check_lengths,
    check_option,
    encode_labels,
)
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.agreement.formulas import UNDEFINED, counts_evaluator
from ordmetrics.metrics.agreement.labels import (
    MAX_IMPLIED_CLASSES,
    NORMALIZE,
    prepare,
    warn_empty_classes,
)

__all__ = ["agreement_scalar", "confusion_matrix"]


@dataclass(frozen=True)
class _Hard:
    """Validated hard labels on the device (complete rows only), with the label-set size."""

    sp: Space
    y_true: Any
    y_pred: Any
    weight: Any
    n_classes: int
    propagate: bool


def _prepare_hard(
    y_true: Any, y_pred: Any, labels: Any, sample_weight: Any, nan_policy: str
) -> _Hard:
    """The device twin of :func:`~.labels.prepare`: checks on the device, NumPy's messages."""
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    ref_name = "y_pred" if is_device_array(y_pred) else "y_true"
    ref = y_pred if ref_name == "y_pred" else y_true
    sp = space_of(ref, ref_name)
    xp = sp.xp
    lab = None
    if labels is not None:
        lab = check_labels(labels, None)
        index_labels_only(lab, "device arrays of hard labels")
    k_fixed = None if lab is None else len(lab)
    span = "0, 1, 2, ..." if lab is None else f"0..{len(lab) - 1}"
    codes, on_device, missing = [], [], None
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        on_device.append(is_device_array(value))
        if on_device[-1]:
            codes.append(device_codes(sp, value, name, ref, ref_name, span))
            continue
        enc = encode_labels(value, labels=lab, n_classes=k_fixed, name=name)
        if lab is None and enc.labels is not None:
            raise TypeError(
                f"{name} is an ordered categorical while the other input is a device array of "
                "class indices; pass its codes (the class indices) instead, or labels=."
            )
        c, m = host_codes(sp, enc.codes, enc.missing, k_fixed or np.iinfo(np.int32).max - 1)
        codes.append(c)
        if m is not None:
            missing = m if missing is None else missing | m
    yt, yp = codes
    n = yt.shape[0]
    check_lengths(n, yp.shape[0], "y_pred")
    w = device_weights(sp, sample_weight, n, ref, ref_name)

    def explain() -> None:
        host = [
            to_host(sp, v).reshape(-1) if is_device_array(v) else v
            for v in (y_true, y_pred, sample_weight)
        ]
        prepare(host[0], host[1], labels, host[2], nan_policy)  # raises the NumPy message

    if n == 0:
        explain()
        raise AssertionError("unreachable")  # pragma: no cover - prepare raised
    if w is not None:
        missing = xp.isnan(w) if missing is None else missing | xp.isnan(w)
    keep = None if missing is None else ~missing
    # Without labels, negative classes are an error in the complete rows (as in the NumPy
    # path); with labels, a device value outside 0..K-1 is one in any row, as the encoding of
    # a host value not in labels is (host values were checked by that encoding).
    bad = (yt < 0) | (yp < 0)
    out_of_range = None
    if lab is not None:
        bad = xp.zeros(yt.shape, dtype=xp.bool, device=sp.device)
        for c, dev_c in zip((yt, yp), on_device, strict=True):
            if dev_c:
                r = (c < 0) | (c >= len(lab))
                out_of_range = r if out_of_range is None else out_of_range | r
    if w is not None:
        bad = bad | (w < 0.0) | xp.isinf(w)
        positive = w > 0.0
        no_weight = ~xp.any(positive if keep is None else positive & keep)
    else:
        no_weight = xp.asarray(False, device=sp.device)
    if keep is not None:
        bad = bad & keep
        any_missing, all_missing = xp.any(missing), xp.all(missing)
    else:
        any_missing = all_missing = xp.asarray(False, device=sp.device)
    if out_of_range is not None:
        bad = bad | out_of_range
    any_bad, any_missing_, all_missing_, no_weight_ = read_flags(
        sp, xp.any(bad), any_missing, all_missing, no_weight
    )
    if lab is None:  # the label set 0..max(y_true, y_pred) over the complete rows
        top = xp.maximum(yt, yp)
        if keep is not None:
            top = xp.where(keep, top, xp.zeros((), dtype=top.dtype, device=sp.device))
        k = max(int(xp.max(top)) + 1, 2)
    else:
        k = len(lab)
    if (
        any_bad
        or (any_missing_ and nan_policy == "raise")
        or (all_missing_ and nan_policy == "omit")
        or (no_weight_ and not all_missing_)
        or (lab is None and k > MAX_IMPLIED_CLASSES)
    ):
        explain()
        raise RuntimeError(  # pragma: no cover - the device and the host checks disagree
            "internal error: invalid input not identified; please report it"
        )
    if any_missing_:
        yt, yp = yt[keep], yp[keep]
        w = None if w is None else w[keep]
    return _Hard(sp, yt, yp, w, k, any_missing_ and nan_policy == "propagate")


def _bincount(data: _Hard, integer: bool) -> Any:
    """The K x K confusion counts on the device (rows: true class, columns: predicted)."""
    sp = data.sp
    aac, xp = sp.aac, sp.xp
    k = data.n_classes
    w = None if data.weight is None else xp.astype(data.weight, sp.fdtype)
    flat = data.y_true * k + data.y_pred
    if aac.is_torch_namespace(xp):
        import torch

        counts = torch.bincount(flat, weights=w, minlength=k * k)
    elif aac.is_cupy_namespace(xp):
        import cupy

        counts = cupy.bincount(flat, weights=w, minlength=k * k)
    elif aac.is_jax_namespace(xp):
        counts = xp.bincount(flat, weights=w, length=k * k)
    else:  # no scatter-add in the standard: a product of one-hot matrices, O(N K^2)
        cls = xp.arange(k, dtype=data.y_true.dtype, device=sp.device)
        A = xp.astype(data.y_true[:, None] == cls[None, :], sp.fdtype)
        B = xp.astype(data.y_pred[:, None] == cls[None, :], sp.fdtype)
        if w is not None:
            B = B * w[:, None]
        counts = xp.matmul(xp.matrix_transpose(A), B)  # exact counts below 2^53 in float64
        return xp.astype(counts, sp.idtype) if integer else counts
    counts = xp.reshape(counts, (k, k))
    return counts if integer else xp.astype(counts, sp.fdtype, copy=False)


def agreement_scalar(
    name: str,
    y_true: Any,
    y_pred: Any,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    **options: Any,
) -> Any:
    """An agreement metric of device arrays: the device twin of ``confusion._scalar``.

    The confusion matrix is counted on the device; the metric's formula
    (:func:`ordmetrics.metrics.agreement.counts_evaluator`) runs on a host copy of that K x K table.

    Parameters
    ----------
    name : str
        One of :data:`ordmetrics.metrics.agreement.AGREEMENT_METRICS`.
    y_true, y_pred : array-like
        Integer class indices; at least one a device array, the other of the same library
        and device or host data (encoded on the host).
    labels : sequence or None
        None (the classes 0..max(y_true, y_pred)) or the indices 0..K-1.
    sample_weight : array-like or None
        Frequency weights, a device array of the same library or host data.
    nan_policy : {"raise", "omit", "propagate"}
        As for the NumPy path (only host data can hold missing labels).
    **options
        The metric's options (``weights``, ``costs``, ``normalize``, ``k``).

    Returns
    -------
    array or float
        A 0-d array of the input library on its device (float64 where available), or a float
        inside ``device_results("float")``; NaN with a warning where the metric is undefined.
    """
    data = _prepare_hard(y_true, y_pred, labels, sample_weight, nan_policy)
    if data.weight is not None:  # only ratios of the counts matter: no overflow
        data = replace(data, weight=unit_weights(data.sp, data.weight)[0])
    f = counts_evaluator(name, data.n_classes, **options)
    sp = data.sp
    if data.propagate:
        return scalar_out(sp.asarray(math.nan, sp.fdtype))
    M = to_host(sp, _bincount(data, integer=False)).astype(np.float64, copy=False)
    value = float(f(M))
    if math.isnan(value):  # the warning of confusion._scalar
        base = "kappa" if name in ("kappa", "qwk") else name
        label = "expected_cost(normalize=True)" if base == "expected_cost" else name
        warn_undefined(label, UNDEFINED[base])
    return scalar_out(sp.asarray(value, sp.fdtype))


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    normalize: str | None,
) -> Any:
    """The confusion matrix of device arrays, counted and normalised on the device.

    Parameters
    ----------
    y_true, y_pred : array-like
        As for :func:`agreement_scalar`.
    labels : sequence or None
        None or the indices 0..K-1.
    sample_weight : array-like or None
        Frequency weights.
    nan_policy : {"raise", "omit", "propagate"}
        As for the NumPy path.
    normalize : {"true", "pred", "all"} or None
        As for :func:`ordmetrics.metrics.agreement.confusion_matrix`.

    Returns
    -------
    array of shape (K, K)
        Of the input library, on its device: integer counts (int64 where available) without
        weights and normalisation, floats (float64 where available) otherwise; all NaN under
        ``nan_policy="propagate"`` with a missing value.
    """
    if normalize is not None:
        check_option(normalize, "normalize", NORMALIZE)
    data = _prepare_hard(y_true, y_pred, labels, sample_weight, nan_policy)
    if normalize is not None and data.weight is not None:  # ratios only: no overflow
        data = replace(data, weight=unit_weights(data.sp, data.weight)[0])
    sp, xp, k = data.sp, data.sp.xp, data.n_classes
    if data.propagate:
        return xp.full((k, k), math.nan, dtype=sp.fdtype, device=sp.device)
    if data.weight is None and normalize is None:
        return _bincount(data, integer=True)
    counts = _bincount(data, integer=False)
    if normalize is None:
        return counts
    if normalize == "all":
        return counts / xp.sum(counts)  # the total is positive: some row has a positive weight
    axis = 1 if normalize == "true" else 0
    totals = xp.sum(counts, axis=axis, keepdims=True)
    if read_flags(sp, xp.any(totals == 0.0))[0]:  # the warning of agreement.confusion_matrix
        warn_empty_classes(normalize, np.flatnonzero(to_host(sp, totals) == 0))
    with np.errstate(invalid="ignore"):  # 0/0 = NaN is intended (NumPy-backed libraries warn)
        return counts / totals
