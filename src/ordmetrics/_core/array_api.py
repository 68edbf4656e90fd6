"""The scoring rules and the agreement metrics on PyTorch, JAX and CuPy arrays (array API).

When ``y_proba`` (scoring rules) or ``y_true`` / ``y_pred`` (agreement metrics) is an array of
an array-API library other than NumPy, :mod:`ordmetrics.metrics.scoring` and
:mod:`ordmetrics.metrics.agreement` (through :mod:`ordmetrics.metrics.agreement.device`, which
uses the helpers here) hand the call to this module, which computes in that library, on the
array's device, with the operations of the array API standard (through
``array-api-compat``, a dependency of ordmetrics). NumPy arrays, lists,
pandas and polars objects never come here: they keep the compiled kernels of
:mod:`ordmetrics._core.kernels`. The test that routes a call, :func:`is_device_array`, looks only at
the type of the argument.

What stays on the device, and what does not
-------------------------------------------
* Valid input is scored on the device. The checks of :mod:`ordmetrics._core.validation` (every
  probability in [0, 1], rows summing to 1 within ``sum_tolerance``, class indices in
  0..K-1, finite non-negative weights, missing values) run as device reductions; a single
  integer of flags comes back to decide whether to raise (and, for the agreement metrics
  without ``labels=``, the largest class index, which is K - 1).
* Invalid input is copied to the host to be explained: the NumPy path's own checks
  (:func:`~ordmetrics._core.validation.find_problems`, ``agreement.prepare``) then raise the very
  message a NumPy input gets.
* Host data mixed with a device array (``y_true`` as a list or a NumPy array, say, or
  ``sample_weight``) is encoded on the host as usual (``labels=`` works there) and its class
  indices or weights are copied to the device once.
* Agreement metrics: the K x K confusion matrix is counted on the device; only that table
  (K^2 numbers) is copied to the host, where the formulas of
  :func:`ordmetrics.metrics.agreement.counts_evaluator` (the single source of each formula) give the
  value, which goes back into a 0-d array of the input library.

Numbers
-------
The scores are computed in the floating dtype of ``y_proba`` (integer or boolean input is
converted to float64, or float32 where the library has no float64: JAX without
``jax_enable_x64``, PyTorch on Apple's MPS). float32 input therefore gives float32 scores with a
relative error of about 1e-7 per sample, and sums over N rows in float32 (the libraries add
pairwise or in trees, so the error grows slowly with N, but it is larger than that of the
float64 kernels, which add float32 input in float64 with compensated block sums). Convert
``y_proba`` to float64 for results that agree with the NumPy path to 1e-12. The row-sum check
adds float32 rows in float64 where the library has float64, so it accepts and rejects exactly
the rows the NumPy path does. Sample weights are cast to the dtype of the computation.

Results
-------
``reduction="mean"`` and ``"sum"`` (and the agreement metrics) return a 0-d array of the input
library on the input's device; inside ``with device_results("float"):`` they return a Python
float instead. ``reduction="none"`` returns a 1-D array of the input library (float dtype of
the computation; with ``nan_policy="omit"`` only the complete rows, a shape that depends on the
data). The results follow the NumPy path's semantics: frequency weights, rows of weight 0 left
out even when their score is infinite, ``nan_policy`` raise/omit/propagate, -ln 0 = +inf, no
silent clipping, never -0.0.

Limits
------
``y_true`` (and ``y_pred``) given as device arrays must hold integer class indices 0..K-1;
``labels=`` is then accepted only when it is those indices (e.g. ``range(K)``, to fix K of an
agreement metric). Other labels must be encoded to indices first, or the labels passed as host
data, which is encoded on the host. The code synchronises with the device to decide whether to
raise, so it cannot be traced by ``jax.jit``.

The confusion matrix (:mod:`ordmetrics.metrics.agreement.device`) is counted with the library's
own scatter-add (``torch.bincount``,
``cupy.bincount``, ``jax.numpy.bincount``: O(N) work, exact integer counts); for any other
array-API library, which has no such function in the standard, with a product of one-hot
matrices (O(N K^2) work, O(N K) memory, in float64 where available).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ordmetrics._core.rule import ScoringRule, check_rule
from ordmetrics._core.validation import (
    NAN_POLICIES,
    REDUCTIONS,
    _renormalize,
    as_proba,
    as_weights,
    check_flag,
    check_labels,
    check_lengths,
    check_option,
    encode_labels,
    find_problems,
    sum_tolerance,
    type_name,
)

__all__ = ["DEVICE_RESULTS", "device_results", "is_device_array"]

#: Top-level modules of array types that are always handed to this module.
_DEVICE_LIBRARIES = frozenset({"torch", "jax", "jaxlib", "cupy"})
#: Top-level modules of types that never are (the NumPy path handles them).
_HOST_LIBRARIES = frozenset({"numpy", "builtins", "pandas", "polars"})

#: What :func:`device_results` accepts.
DEVICE_RESULTS = ("array", "float")

_RESULTS: ContextVar[str] = ContextVar("ordmetrics_device_results", default="array")

_INSTALL = "pip install array-api-compat"


# --------------------------------------------------------------------------------------------
# Routing and options
# --------------------------------------------------------------------------------------------


def is_device_array(x: Any) -> bool:
    """Whether ``x`` is an array of an array-API library other than NumPy.

    A test on the type alone, cheap enough for every call: PyTorch, JAX and CuPy arrays by the
    module of their type, other libraries by the ``__array_namespace__`` method of the
    standard. NumPy arrays (and their subclasses), lists, pandas and polars objects give False.

    Parameters
    ----------
    x : object
        An argument of a metric.

    Returns
    -------
    bool
        True when the metric should run in ``x``'s library (this module).

    Examples
    --------
    >>> import numpy as np
    >>> is_device_array(np.zeros(3)), is_device_array([0.5, 0.5])
    (False, False)
    """
    t = type(x)
    root = t.__module__.partition(".")[0]
    if root in _DEVICE_LIBRARIES:
        return True
    if root in _HOST_LIBRARIES or isinstance(x, np.ndarray):
        return False
    return hasattr(t, "__array_namespace__")


@contextmanager
def device_results(kind: str) -> Iterator[None]:
    """Choose, inside a ``with`` block, what the metrics return for device arrays.

    Parameters
    ----------
    kind : {"array", "float"}
        ``"array"`` (the default outside any block): a scalar result (``reduction="mean"`` or
        ``"sum"``, an agreement metric) is a 0-d array of the input library on the input's
        device, so that nothing waits for the device. ``"float"``: a Python float (the value
        is copied to the host). ``reduction="none"`` and ``confusion_matrix`` always return
        arrays of the input library. NumPy input is not affected: it always gives floats.

    Yields
    ------
    None
        The setting holds until the block ends, in this thread or task only
        (:mod:`contextvars`).

    Examples
    --------
    >>> from ordmetrics._core.array_api import device_results
    >>> with device_results("float"):
    ...     pass  # rps(y_tensor, p_tensor) returns a float here
    """
    check_option(kind, "kind", DEVICE_RESULTS)
    token = _RESULTS.set(kind)
    try:
        yield
    finally:
        _RESULTS.reset(token)


def _compat() -> ModuleType:
    try:
        import array_api_compat
    except ImportError:
        raise ImportError(
            "ordmetrics computes on PyTorch, JAX and CuPy arrays through the package "
            "array-api-compat, a dependency of ordmetrics that is missing from this "
            f"environment: {_INSTALL}. Or pass NumPy arrays."
        ) from None
    return array_api_compat


@dataclass(frozen=True)
class Space:
    """The array library of a call: namespace, device and the dtypes it offers there."""

    aac: ModuleType
    xp: Any
    device: Any
    float64: bool  # float64 usable on this device
    int64: bool  # int64 usable on this device

    @property
    def fdtype(self) -> Any:
        return self.xp.float64 if self.float64 else self.xp.float32

    @property
    def idtype(self) -> Any:
        return self.xp.int64 if self.int64 else self.xp.int32

    def asarray(self, value: Any, dtype: Any) -> Any:
        return self.xp.asarray(value, dtype=dtype, device=self.device)


def space_of(x: Any, name: str) -> Space:
    """The :class:`Space` of device array ``x`` (argument ``name``, for the error message)."""
    aac = _compat()
    if not aac.is_array_api_obj(x) or aac.is_numpy_array(x):
        raise TypeError(
            f"{name} is a {type_name(x)}, which is neither a NumPy-convertible input nor an "
            "array of a library array-api-compat supports (PyTorch, JAX, CuPy, ...)."
        )
    xp = aac.array_namespace(x)
    float64 = int64 = True
    if aac.is_jax_array(x):
        import jax

        float64 = int64 = bool(jax.config.jax_enable_x64)
    elif aac.is_torch_array(x) and x.device.type == "mps":
        float64 = False
    return Space(aac, xp, aac.device(x), float64, int64)


def _same_space(sp: Space, x: Any, name: str, ref: Any, ref_name: str) -> None:
    """``x`` (a device array) must come from the library and the device of ``ref``."""
    if sp.aac.array_namespace(x) is not sp.xp:
        raise TypeError(
            f"{name} is a {type_name(x)} but {ref_name} is a {type_name(ref)}; pass both "
            f"from the same array library (or {name} as a list or NumPy array)."
        )
    dev = sp.aac.device(x)
    if dev != sp.device:
        raise ValueError(
            f"{name} is on device {dev} but {ref_name} on {sp.device}; move them to the same "
            "device."
        )


def to_host(sp: Space, x: Any) -> np.ndarray:
    """A NumPy copy of a device array (invalid input to explain, a K x K table)."""
    if sp.aac.is_cupy_array(x):
        return x.get()
    if sp.aac.is_torch_array(x):
        return x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        return np.from_dlpack(sp.aac.to_device(x, "cpu"))


def _shaped(shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """A NumPy array of ``shape`` without memory: lets the NumPy checks word shape errors."""
    return np.broadcast_to(np.zeros((), dtype=dtype), shape)


def scalar_out(value: Any) -> Any:
    """A 0-d device result as it is returned: itself, or a float under ``device_results``."""
    return float(value) if _RESULTS.get() == "float" else value


def read_flags(sp: Space, *conditions: Any) -> list[bool]:
    """Bring 0-d boolean device arrays back to the host in one transfer (one integer)."""
    xp = sp.xp
    code = xp.zeros((), dtype=xp.int32, device=sp.device)
    for bit, c in enumerate(conditions):
        code = code + xp.astype(c, xp.int32) * (1 << bit)
    value = int(code)
    return [bool(value >> bit & 1) for bit in range(len(conditions))]


def _is_index_labels(labels: tuple[Hashable, ...]) -> bool:
    """``labels`` are the class indices 0..K-1 in order (numbers, not booleans)."""
    return all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in labels
    ) and list(labels) == list(range(len(labels)))


def index_labels_only(labels: tuple[Hashable, ...], where: str) -> None:
    """Raise unless ``labels`` are the class indices 0..K-1 (the classes on the device)."""
    if not _is_index_labels(labels):
        raise TypeError(
            f"labels={list(labels)!r} cannot be used with {where}: on the device the classes "
            "are the integer indices 0..K-1 of the columns. Encode the labels to those indices "
            "first (e.g. the codes of an ordered pandas Categorical), or pass y_true as a list "
            "or NumPy array, which is encoded with labels= on the host."
        )


# --------------------------------------------------------------------------------------------
# Inputs on the device
# --------------------------------------------------------------------------------------------


def device_codes(sp: Space, y: Any, name: str, ref: Any, ref_name: str, span: str) -> Any:
    """A device array of class indices as a 1-D array of the index dtype (values unchecked)."""
    _same_space(sp, y, name, ref, ref_name)
    xp = sp.xp
    if y.ndim == 2 and 1 in y.shape:
        y = xp.reshape(y, (-1,))
    # the shape first: a matrix of probabilities must hear of decide(), not of an integer
    # dtype (.long() would turn every probability into class 0); the host copy gives the
    # NumPy path's message, with its hint when the rows look like probabilities
    if y.ndim != 1:
        encode_labels(to_host(sp, y), labels=None, n_classes=None, name=name)
        raise AssertionError("unreachable")  # pragma: no cover - encode_labels raised
    if not xp.isdtype(y.dtype, "integral"):
        kind = "boolean" if xp.isdtype(y.dtype, "bool") else f"of dtype {y.dtype}"
        raise TypeError(
            f"{name} is a device array {kind}; on the device class labels must be integer "
            f"class indices ({span}). Convert it to an integer dtype (e.g. .long() in "
            "PyTorch), or pass it as a list or NumPy array."
        )
    return y if y.dtype == sp.idtype else xp.astype(y, sp.idtype)


def host_codes(sp: Space, codes: np.ndarray, missing: np.ndarray | None, k: int) -> tuple:
    """Host class indices on the device: clipped to -1..K first so no index dtype overflows."""
    dev_codes = sp.asarray(np.clip(codes, -1, k), sp.idtype)
    return dev_codes, None if missing is None else sp.asarray(missing, sp.xp.bool)


def device_weights(sp: Space, sample_weight: Any, n: int, ref: Any, ref_name: str) -> Any:
    """Weights on the device as floats (float64 where available), values unchecked."""
    if sample_weight is None:
        return None
    xp = sp.xp
    if not is_device_array(sample_weight):
        return sp.asarray(as_weights(sample_weight, n), sp.fdtype)
    _same_space(sp, sample_weight, "sample_weight", ref, ref_name)
    w = sample_weight
    if xp.isdtype(w.dtype, "complex floating"):
        raise TypeError(
            f"sample_weight must be real numbers (frequency weights); got dtype {w.dtype}."
        )
    if w.ndim != 1 or w.shape[0] != n:
        as_weights(_shaped(tuple(w.shape)), n)
        raise AssertionError("unreachable")  # pragma: no cover - as_weights raised
    return w if xp.isdtype(w.dtype, "real floating") else xp.astype(w, sp.fdtype)


def unit_weights(sp: Space, w: Any) -> tuple[Any, Any]:
    """``(w / m, m)`` on the device, m the largest finite |weight| (1 when there is none).

    Weights count only through their ratios; dividing by the largest one (on the device: no
    host transfer, the array API having no ``ldexp``) keeps every weighted sum far from
    overflow and subnormal underflow whatever their scale (up to the float maximum, down to
    subnormals), as the power-of-two scaling of the NumPy path (``_numerics.scale_weights``)
    does; the division rounds each weight once (about 1e-16 relative). NaN, negative and
    infinite weights stay NaN, negative and infinite for the checks.
    """
    xp = sp.xp
    w = xp.astype(w, sp.fdtype, copy=False)  # divided in float64 where available
    zero = xp.zeros((), dtype=w.dtype, device=sp.device)
    a = xp.abs(w)
    top = xp.max(xp.where(xp.isinf(a) | xp.isnan(a), zero, a)) if w.shape[0] else zero
    m = xp.where(top > 0.0, top, xp.ones((), dtype=w.dtype, device=sp.device))
    return w / m, m


# --------------------------------------------------------------------------------------------
# Scoring rules
# --------------------------------------------------------------------------------------------


def _proba(sp: Space, y_proba: Any, renormalize: bool) -> Any:
    """``y_proba`` as a 2-D float array (shape and dtype checked, values not)."""
    xp = sp.xp
    P = y_proba
    if xp.isdtype(P.dtype, "complex floating"):
        raise TypeError(
            f"y_proba must hold real numbers (probabilities); got values of dtype {P.dtype}."
        )
    if P.ndim != 2 or P.shape[1] < 2 or P.shape[0] == 0:
        as_proba(_shaped(tuple(P.shape)))  # the NumPy path's message for this shape
        raise AssertionError("unreachable")  # pragma: no cover - as_proba raised
    if P.dtype != xp.float32 and P.dtype != xp.float64:  # integers, booleans, float16, ...
        P = xp.astype(P, sp.fdtype)
    if check_flag(renormalize, "renormalize"):
        s = _row_sums(sp, P, keepdims=True)
        if any(read_flags(sp, xp.any(P < 0.0), xp.any(s == 0.0))):
            _renormalize(to_host(sp, P), "y_proba")  # raises the NumPy path's message
            raise AssertionError("unreachable")  # pragma: no cover - _renormalize raised
        P = xp.astype(P / s, P.dtype, copy=False)
    return P


def _row_sums(sp: Space, P: Any, keepdims: bool = False) -> Any:
    """Row sums, of float32 rows in float64 where available (as the NumPy checks add them)."""
    xp = sp.xp
    if P.dtype == xp.float32 and sp.float64:
        return xp.sum(P, axis=1, dtype=xp.float64, keepdims=keepdims)
    return xp.sum(P, axis=1, keepdims=keepdims)


def evaluate(
    rule: ScoringRule,
    y_true: Any,
    y_proba: Any,
    *,
    labels: Any,
    sample_weight: Any,
    nan_policy: str,
    reduction: str,
    renormalize: bool,
    param: float = 0.0,
) -> Any:
    """A scoring rule on a device array ``y_proba``: the device twin of ``scoring.evaluate``.

    Parameters
    ----------
    rule : ScoringRule
        The rule's record (:mod:`ordmetrics._core.rule`); its array-API ``formula`` gives the
        per-sample scores.
    y_true : array-like
        A 1-D integer array of class indices of ``y_proba``'s library and device, or host data
        (list, NumPy, pandas, polars), encoded on the host with ``labels`` and copied.
    y_proba : array
        (N, K) probabilities, an array of an array-API library other than NumPy.
    labels : sequence or None
        As for the NumPy path; with a device ``y_true`` only the indices 0..K-1.
    sample_weight : array-like or None
        Frequency weights, a device array of the same library or host data.
    nan_policy : {"raise", "omit", "propagate"}
        As for the NumPy path.
    reduction : {"mean", "sum", "none"}
        As for the NumPy path.
    renormalize : bool
        Rescale each row to sum 1 first (on the device).
    param : float
        The rule's options packed by ``rule.pack``.

    Returns
    -------
    array or float
        A 0-d array (a float inside ``device_results("float")``) for ``"mean"`` and ``"sum"``;
        a 1-D array for ``"none"``; of ``y_proba``'s library, on its device.
    """
    rule = check_rule(rule)
    check_option(reduction, "reduction", REDUCTIONS)
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    sp = space_of(y_proba, "y_proba")
    xp = sp.xp
    P = _proba(sp, y_proba, renormalize)
    n, k = P.shape
    dt = P.dtype

    # y_true: device class indices, or host data encoded as the NumPy path does
    strict = False  # class indices out of range are an error even in rows with NaN
    if is_device_array(y_true):
        if labels is not None:
            index_labels_only(check_labels(labels, k), "y_true on the device")
            strict = True  # as the NumPy path's encoding with labels=
        y = device_codes(sp, y_true, "y_true", y_proba, "y_proba", f"0..{k - 1}")
        y_missing, enc = None, None
    else:
        enc = encode_labels(y_true, labels=labels, n_classes=k)
        y, y_missing = host_codes(sp, enc.codes, enc.missing, k)
    check_lengths(y.shape[0], n)
    w = device_weights(sp, sample_weight, n, y_proba, "y_proba")
    rows = reduction == "none"

    # the checks of the kernels, as device reductions; one integer of flags comes back
    lo = xp.min(P, axis=1)
    hi = xp.max(P, axis=1)  # NaN propagates (array API): NaN rows are the missing ones
    tol = sum_tolerance(np.dtype("float32" if dt == xp.float32 else "float64"), k)
    missing = xp.isnan(hi)
    if y_missing is not None:
        missing = missing | y_missing
    bad = (lo < 0.0) | (hi > 1.0) | (xp.abs(_row_sums(sp, P) - 1.0) > tol)
    bad_y = (y < 0) | (y >= k)
    if not strict:
        bad = bad | bad_y
    wc = None
    if w is not None:
        missing = missing | xp.isnan(w)
        bad = bad | (w < 0.0) | xp.isinf(w)
        w_unit, w_max = unit_weights(sp, w)  # largest weight 1: no overflow, no subnormals
        wc = xp.astype(w_unit, dt)  # the weights in the dtype of the computation
        overflow = xp.any(xp.isinf(wc) & ~xp.isinf(w))
        no_weight = ~xp.any((w > 0.0) & ~missing)
    else:
        overflow = no_weight = xp.asarray(False, device=sp.device)
    bad = bad & ~missing
    if strict:
        bad = bad | bad_y
    any_bad, any_missing, all_missing, no_weight_, overflow_ = read_flags(
        sp, xp.any(bad), xp.any(missing), xp.all(missing), no_weight, overflow
    )
    if (
        any_bad
        or overflow_
        or (any_missing and nan_policy == "raise")
        or (all_missing and nan_policy == "omit")
        or (no_weight_ and not (nan_policy == "propagate" and any_missing))
    ):
        _explain_scoring(sp, y_true, enc, P, w, labels, nan_policy)
        if overflow_:
            raise ValueError(
                f"sample_weight has values too large for the {dt} computation of y_proba "
                "(they overflow to infinity); rescale the weights (only ratios matter) or "
                "pass y_proba as float64."
            )
        # The host found every value valid: a row sum within rounding of the tolerance was
        # judged differently. The host's verdict stands: the input is scored.
    if any_missing and nan_policy == "propagate" and not rows:
        return scalar_out(xp.asarray(math.nan, dtype=dt, device=sp.device))

    yc = xp.clip(y, 0, k - 1)  # missing y_true (-1): any class, the row is dropped or NaN
    s = rule.formula(xp, P, yc, param)
    if rows:
        if not any_missing:
            return s
        if nan_policy == "omit":
            return s[~missing]
        return xp.where(missing, xp.asarray(math.nan, dtype=dt, device=sp.device), s)

    zero = xp.zeros((), dtype=dt, device=sp.device)
    if wc is None:
        if any_missing:  # omit
            total = xp.sum(xp.where(missing, zero, s))
            wsum = xp.sum(xp.astype(~missing, dt))
        else:
            total, wsum = xp.sum(s), n
    else:
        counted = wc > 0.0  # rows of weight 0 are absent, even with an infinite score
        if any_missing:
            counted = counted & ~missing
            wsum = xp.sum(xp.where(missing, zero, wc))
        else:
            wsum = xp.sum(wc)
        # both factors zeroed, so that 0 * inf (weight 0, infinite score) never arises
        total = xp.sum(xp.where(counted, wc, zero) * xp.where(counted, s, zero))
    if reduction == "sum" and wc is not None:  # back to the caller's units
        total = total * xp.astype(w_max, dt)
    return scalar_out(total if reduction == "sum" else total / wsum)


def _explain_scoring(
    sp: Space, y_true: Any, enc: Any, P: Any, w: Any, labels: Any, nan_policy: str
) -> None:
    """Invalid input: copy it to the host and let the NumPy path's checks raise its message."""
    k = P.shape[1]
    if enc is None:  # device y_true: encode the host copy as the NumPy path would
        enc = encode_labels(to_host(sp, y_true).reshape(-1), labels=labels, n_classes=k)
    find_problems(
        enc.codes,
        to_host(sp, P),
        None if w is None else np.asarray(to_host(sp, w), dtype=np.float64),
        y_missing=enc.missing,
        nan_policy=nan_policy,
        labels=enc.labels,
    )
