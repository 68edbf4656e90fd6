"""Differentiable ranked probability scores for PyTorch: losses to train ordinal classifiers.

:func:`rps_loss` is the Ranked Probability Score of :func:`ordmetrics.rps` computed with PyTorch
operations (the rule's array-API formula, the one ordmetrics evaluates tensors with), so that
autograd differentiates it: a loss that, unlike cross-entropy, charges more for probability
mass placed far from the true class than for mass on a neighbouring class.
:func:`sa_rps_loss` does the same for the squared-absolute RPS of :func:`ordmetrics.sa_rps`,
which is **not a proper scoring rule** (see its notes) and is provided for experiments only.
:class:`RPSLoss` and :class:`SARPSLoss` wrap them as :class:`torch.nn.Module` objects, like
:class:`torch.nn.CrossEntropyLoss`.

The losses take a batch of logits (the default; the softmax is applied inside) or of
probabilities, shape ``(N, K)`` with the K classes in ordinal order, and the true classes as
integer class indices ``0..K-1``, shape ``(N,)``. With float64 input they equal the NumPy scoring
rules of ordmetrics to rounding (about 1e-16 per sample); the tests check 1e-12.

PyTorch is an optional dependency of ordmetrics: ``pip install ordmetrics[torch]``. This module
imports it when it is itself imported; ``import ordmetrics`` does not import it.

Examples
--------
>>> import torch
>>> from ordmetrics.torch import rps_loss
>>> logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 0.0]], requires_grad=True)
>>> target = torch.tensor([0, 2])
>>> loss = rps_loss(logits, target)
>>> loss.backward()
>>> round(loss.item(), 5)
0.15076
>>> logits.grad.shape
torch.Size([2, 3])

The same number from the NumPy scoring rule:

>>> import ordmetrics
>>> round(ordmetrics.rps(target.numpy(), torch.softmax(logits, 1).detach().numpy()), 5)
0.15076
"""

from __future__ import annotations

from typing import Any

try:
    import torch
except ImportError as _exc:  # pragma: no cover - the test environment has torch
    raise ImportError(
        "ordmetrics.torch needs PyTorch, which is not installed. Install it with "
        "`pip install ordmetrics[torch]` (or see pytorch.org for a CPU-only or CUDA build)."
    ) from _exc

import array_api_compat.torch as _xp_torch  # torch as an array-API namespace (autograd kept)

from ordmetrics._core.validation import (
    REDUCTIONS,
    check_flag,
    sum_tolerance_eps,
)
from ordmetrics.metrics.scoring import ScoringRule, get_rule

__all__ = ["RPSLoss", "SARPSLoss", "rps_loss", "sa_rps_loss"]


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _rows(mask: torch.Tensor, limit: int = 5) -> str:
    """``row 3`` or ``rows 0, 4, 7 and 12 more`` for a boolean mask over the batch."""
    rows = torch.nonzero(mask.reshape(-1)).reshape(-1).tolist()
    shown = ", ".join(str(r) for r in rows[:limit])
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"{'row' if len(rows) == 1 else 'rows'} {shown}{more}"


def _sum_tolerance(dtype: torch.dtype, n_classes: int) -> float:
    """The row-sum tolerance of the NumPy scoring rules (:func:`sum_tolerance_eps`), for a
    torch dtype.

    ``max(1e-6, K (5e-7 + 4 eps))``: 4.9e-6 for float32 with K = 5, 0.0195 for float16
    (eps = 2^-10) and 0.156 for bfloat16 (eps = 2^-7). A softmax computed in that precision
    has row sums within about ``(K + 2) eps / 2`` of 1, so the tolerance keeps a margin of
    ``8 K / (K + 2) >= 4``.
    """
    return sum_tolerance_eps(float(torch.finfo(dtype).eps), n_classes)


#: Half-precision dtypes, computed in float32 (see :func:`_work_dtype`).
_HALF = (torch.float16, torch.bfloat16)


def _work_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype a loss is computed in: float32 for half precision, else the input's own.

    The cumulative sums and squares of a half-precision row would add several roundings of
    2^-11 (float16) or 2^-8 (bfloat16) each; in float32 only the final rounding to the input's
    dtype is left. Weights are cast to it too, so that a weight above 65504 does not become
    inf in float16.
    """
    return torch.float32 if dtype in _HALF else dtype


def _check_options(reduction: Any, from_logits: Any, normalize: Any = True) -> None:
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(
            f"reduction must be one of {', '.join(repr(r) for r in REDUCTIONS)}; got {reduction!r}."
        )
    check_flag(from_logits, "from_logits")
    check_flag(normalize, "normalize")


def _check_inputs(
    input: Any,
    target: Any,
    sample_weight: Any,
    *,
    from_logits: bool,
    reduction: str,
    func: str,
) -> torch.Tensor | None:
    """Raise a precise error for invalid input; return the weights as a tensor (or None).

    Shapes and dtypes are checked without touching the values. The value checks (class indices
    in range, finite input, probabilities in [0, 1] summing to 1, weights) are reduced to one
    small tensor of flags, so valid input costs one synchronisation with the device.
    """
    what = "logits" if from_logits else "probabilities"
    if not isinstance(input, torch.Tensor):
        raise TypeError(
            f"{func}: input must be a torch.Tensor of {what}, shape (N, K); got "
            f"{type(input).__name__}."
        )
    if not isinstance(target, torch.Tensor):
        raise TypeError(
            f"{func}: target must be a torch.Tensor of class indices, shape (N,); got "
            f"{type(target).__name__}. Convert it with torch.as_tensor(target)."
        )
    if not input.is_floating_point():
        raise TypeError(
            f"{func}: input must be a floating-point tensor of {what}; got dtype {input.dtype}."
        )
    if input.ndim != 2:
        raise ValueError(
            f"{func}: input must have shape (N, K), one row of {what} per sample and one "
            f"column per class in ordinal order; got shape {tuple(input.shape)}."
        )
    n, k = input.shape
    if k < 2:
        raise ValueError(f"{func}: input needs at least 2 classes (columns); got shape ({n}, {k}).")
    if target.dtype == torch.bool or target.is_floating_point() or target.is_complex():
        raise TypeError(
            f"{func}: target must hold class indices 0..{k - 1} as an integer tensor "
            f"(torch.long); got dtype {target.dtype}. Convert it with target.long() if it holds "
            "whole numbers."
        )
    if target.ndim != 1 or target.shape[0] != n:
        raise ValueError(
            f"{func}: target must have shape (N,) = ({n},), one class index per row of input; "
            f"got shape {tuple(target.shape)}."
        )
    if n == 0:
        raise ValueError(f"{func}: input has no rows; there is nothing to score.")
    if target.device != input.device:
        raise ValueError(
            f"{func}: input is on {input.device} but target on {target.device}; move both to "
            "the same device."
        )
    w = None
    if sample_weight is not None:
        if reduction == "none":
            raise ValueError(
                f"{func}: sample_weight has no effect with reduction='none', which returns the "
                "unweighted per-sample losses; multiply them by the weights yourself, or use "
                "reduction='mean' or 'sum'."
            )
        w = torch.as_tensor(sample_weight, device=input.device)
        if w.dtype == torch.bool or w.is_complex():
            raise TypeError(f"{func}: sample_weight must be real numbers; got dtype {w.dtype}.")
        if w.shape != (n,):
            raise ValueError(
                f"{func}: sample_weight must have shape (N,) = ({n},), one weight per row; got "
                f"shape {tuple(w.shape)}."
            )
        w = w.to(_work_dtype(input.dtype))

    with torch.no_grad():
        x = input.detach()
        acc = torch.float32 if x.device.type == "mps" else torch.float64
        bad_target = (target < 0) | (target >= k)
        nonfinite = ~torch.isfinite(x).all(dim=1)
        flags = [bad_target.any(), nonfinite.any()]
        if not from_logits:
            tol = _sum_tolerance(x.dtype, k)
            outside = ((x < 0) | (x > 1)).any(dim=1)
            sums = x.sum(dim=1, dtype=acc)
            off = (sums - 1.0).abs() > tol
            flags += [outside.any(), off.any()]
        if w is not None:
            wd = w.detach()
            flags += [(wd < 0).any(), (~torch.isfinite(wd)).any(), ~(wd > 0).any()]
        raised = torch.stack(flags).tolist()

    if not any(raised):
        return w
    if raised[0]:
        values = sorted(set(target[bad_target].tolist()))[:5]
        raise ValueError(
            f"{func}: target must hold class indices 0..{k - 1} (input has {k} columns); got "
            f"{', '.join(str(v) for v in values)} in {_rows(bad_target)}. If your classes are "
            "numbered from 1, subtract 1."
        )
    if raised[1]:
        hint = "; has the model diverged?" if from_logits else "."
        raise ValueError(
            f"{func}: input has non-finite values (NaN or inf) in {_rows(nonfinite)}{hint}"
        )
    i = 2
    if not from_logits:
        if raised[2]:
            r = int(torch.nonzero(outside)[0])
            raise ValueError(
                f"{func}: probabilities must lie in [0, 1]; values outside it in "
                f"{_rows(outside)} (row {r}: {x[r].tolist()}). Are these logits? Then pass "
                "from_logits=True (the default)."
            )
        if raised[3]:
            r = int(torch.nonzero(off)[0])
            raise ValueError(
                f"{func}: rows of probabilities must sum to 1 (tolerance {tol:g}); they do not "
                f"in {_rows(off)} (row {r} sums to {float(sums[r]):.10g}). Pass logits with "
                "from_logits=True, or normalise each row first."
            )
        i = 4
    if w is not None:
        if raised[i]:
            raise ValueError(
                f"{func}: sample_weight must be non-negative frequency weights; got negative "
                f"values in {_rows(wd < 0)}."
            )
        if raised[i + 1]:
            raise ValueError(
                f"{func}: sample_weight must be finite; got NaN or inf in "
                f"{_rows(~torch.isfinite(wd))}."
            )
        if raised[i + 2] and reduction == "mean":
            raise ValueError(
                f"{func}: sample_weight sums to 0, so the weighted mean is undefined; at least "
                "one row needs a positive weight."
            )
    return w


# --------------------------------------------------------------------------------------------
# The losses
# --------------------------------------------------------------------------------------------


def _score(
    input: Any,
    target: Any,
    *,
    rule: ScoringRule,
    options: dict[str, Any],
    from_logits: bool,
    reduction: str,
    sample_weight: Any,
    func: str,
) -> torch.Tensor:
    _check_options(reduction, from_logits)
    param = rule.pack(**options)  # the rule's own option checks
    w = _check_inputs(
        input, target, sample_weight, from_logits=from_logits, reduction=reduction, func=func
    )
    x = input.to(_work_dtype(input.dtype))  # autograd casts the gradient back
    p = torch.softmax(x, dim=1) if from_logits else x
    # the rule's array-API formula (the one of the device path), on torch: autograd follows it
    scores = rule.formula(_xp_torch, p, target, param)
    if reduction == "none":
        out = scores
    elif w is None:
        out = scores.mean() if reduction == "mean" else scores.sum()
    else:
        total = (w * scores).sum()
        out = total / w.sum() if reduction == "mean" else total
    return out.to(input.dtype)


_COMMON_PARAMS = """\
    input : torch.Tensor, shape (N, K)
        Logits (``from_logits=True``, the default) or probabilities, one row per sample and
        one column per class in ordinal order; a floating dtype (float64 for results that
        agree with the NumPy rules to 1e-12). Probabilities must lie in [0, 1] and each row
        must sum to 1 within ``max(1e-6, 4 K eps)`` for the dtype's machine epsilon ``eps``
        (1e-6 for float64; 0.0195 for float16 and 0.156 for bfloat16 with K = 5). Half
        precision (float16, bfloat16) is computed in float32 and the result rounded to the
        input's dtype (so a ``"sum"`` above 65504 is inf in float16).
    target : torch.Tensor, shape (N,)
        The true classes as integer class indices ``0..K-1`` (``torch.long``), on the device
        of ``input``.
    from_logits : bool, default True
        Whether ``input`` holds logits, turned into probabilities by a softmax over the class
        dimension (numerically stable), or probabilities (e.g. from a cumulative-link model).
        The gradient then flows through the probabilities as given: they are not rescaled."""

_REDUCTION_PARAMS = """\
    reduction : {"mean", "sum", "none"}, default "mean"
        ``"mean"``: the weighted mean sum_i w_i s_i / sum_i w_i (the plain mean without
        weights); ``"sum"``: the weighted sum; ``"none"``: the per-sample losses, shape (N,).
    sample_weight : torch.Tensor or array-like, shape (N,), optional
        Non-negative frequency weights of the samples, as ``sample_weight`` of the NumPy rules
        (integer weights give exactly the result of repeated rows). Not with
        ``reduction="none"``. These are per-*sample* weights, unlike the per-class ``weight``
        of :class:`torch.nn.CrossEntropyLoss`; for class weights ``c`` (shape (K,)) pass
        ``c[target]``."""

_RAISES = """\
    Raises
    ------
    TypeError
        If ``input`` is not a floating tensor or ``target`` not an integer tensor.
    ValueError
        For a shape mismatch, a class index outside ``0..K-1``, non-finite input, probabilities
        (``from_logits=False``) outside [0, 1] or whose rows do not sum to 1, invalid weights,
        or an unknown ``reduction``."""

_VALIDATION_NOTE = """\
    The input is validated on every call, reduced to one small tensor of flags: valid input
    costs one synchronisation with the device."""


def rps_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    from_logits: bool = True,
    normalize: bool = True,
    reduction: str = "mean",
    sample_weight: Any = None,
) -> torch.Tensor:
    r"""Ranked Probability Score as a differentiable loss: :func:`ordmetrics.rps` in PyTorch.

    .. math::

        \mathrm{RPS}(p, y) = \frac{1}{K-1} \sum_{k=1}^{K-1} (F_k - H_k)^2,
        \qquad F_k = \sum_{j \le k} p_j,\quad H_k = 1\{y \le k\}

    computed with a cumulative sum on the softmax of the logits (or on the probabilities),
    so it is smooth in the logits everywhere. The RPS is a strictly proper scoring rule: its
    expected value is minimised only by the true class distribution, so training with it, as
    with cross-entropy, rewards honest probabilities; unlike cross-entropy it is
    distance-sensitive, charging more for mass put on classes far from the truth.

    Parameters
    ----------
    {common}
    normalize : bool, default True
        Divide by K - 1 (range [0, 1]) as :func:`ordmetrics.rps` does; ``False`` gives the raw
        sum (range [0, K-1]). The two differ by a constant factor, which only rescales the
        gradient (i.e. the learning rate).
    {reduction}

    Returns
    -------
    torch.Tensor
        A 0-d tensor (``"mean"``, ``"sum"``) or the per-sample losses of shape (N,)
        (``"none"``), in the dtype and on the device of ``input``.

    {raises}

    See Also
    --------
    RPSLoss : The same as a :class:`torch.nn.Module`.
    ordmetrics.rps : The NumPy scoring rule.

    Notes
    -----
    For float64 input the value equals ``ordmetrics.rps(target, softmax(input),
    sample_weight=..., reduction=..., normalize=...)`` to about 1e-16 per sample.
    {validation}

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023
       (training with the RPS is left there as future work).

    Examples
    --------
    >>> import torch
    >>> from ordmetrics.torch import rps_loss
    >>> proba = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]], dtype=torch.float64)
    >>> rps_loss(proba, torch.tensor([0, 0]), from_logits=False, reduction="none")
    tensor([0.1250, 0.2500], dtype=torch.float64)
    >>> logits = torch.zeros(2, 3, requires_grad=True)
    >>> rps_loss(logits, torch.tensor([0, 2]), sample_weight=torch.tensor([3.0, 1.0]))
    tensor(0.2778, grad_fn=<DivBackward0>)
    """
    return _score(
        input,
        target,
        rule=get_rule("rps"),
        options={"normalize": normalize},
        from_logits=from_logits,
        reduction=reduction,
        sample_weight=sample_weight,
        func="rps_loss",
    )


def sa_rps_loss(
    input: torch.Tensor,
    target: torch.Tensor,
    *,
    from_logits: bool = True,
    reduction: str = "mean",
    sample_weight: Any = None,
) -> torch.Tensor:
    r"""Squared-absolute RPS as a loss: :func:`ordmetrics.sa_rps` in PyTorch. **Not proper.**

    .. math::

        \mathrm{saRPS}(p, y) = \Big(\frac{1}{K-1} \sum_{k=1}^{K-1} |F_k - H_k|\Big)^2

    .. warning::

       **sa-RPS is not a proper scoring rule**, so minimising it does not lead a model to
       predict the true class distribution. With K = 3 and true distribution
       q = [0.4, 0.2, 0.4], the honest forecast q has expected sa-RPS 0.232 but the point mass
       [0, 1, 0] has 0.2: the loss rewards piling the probability on the median class. Trained
       with it, a model's probabilities are not calibrated and the scoring rules that need
       calibrated probabilities (RPS, Brier, log loss) become worse. The registry records this
       as ``ordmetrics.get_metric("sa_rps").properties["proper"] == False``. It is here for
       experiments that study exactly this; to train an ordinal classifier use
       :func:`rps_loss`.

    Parameters
    ----------
    {common}
    {reduction}

    Returns
    -------
    torch.Tensor
        A 0-d tensor (``"mean"``, ``"sum"``) or the per-sample losses of shape (N,)
        (``"none"``), in the dtype and on the device of ``input``.

    {raises}

    See Also
    --------
    SARPSLoss : The same as a :class:`torch.nn.Module`.
    ordmetrics.sa_rps : The NumPy rule.
    rps_loss : The proper ranked probability score.

    Notes
    -----
    The normalisation 1/(K-1) is inside the square, as in :func:`ordmetrics.sa_rps` (see its
    notes on the paper's Eq. 7). For float64 input the value equals
    ``ordmetrics.sa_rps(target, softmax(input), ...)`` to about 1e-16 per sample.

    Non-differentiable points: the absolute value has a kink where F_k = H_k. PyTorch
    differentiates ``|x|`` as ``sign(x)``, i.e. uses the subgradient 0 at x = 0. With logits
    the kinks are out of reach (the softmax keeps every F_k strictly between 0 and 1, while
    H_k is 0 or 1) unless the softmax saturates in floating point; with probabilities they are
    reached whenever the cumulative probability before the true class is exactly 0 or from it
    on exactly 1.

    {validation}

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023,
       Eq. 7.

    Examples
    --------
    >>> import torch
    >>> from ordmetrics.torch import sa_rps_loss
    >>> proba = torch.tensor([[0.45, 0.5, 0.05]], dtype=torch.float64)
    >>> sa_rps_loss(proba, torch.tensor([1]), from_logits=False)
    tensor(0.0625, dtype=torch.float64)
    """
    return _score(
        input,
        target,
        rule=get_rule("sa_rps"),
        options={},
        from_logits=from_logits,
        reduction=reduction,
        sample_weight=sample_weight,
        func="sa_rps_loss",
    )


for _f in (rps_loss, sa_rps_loss):
    _f.__doc__ = (
        (_f.__doc__ or "")
        .replace("{common}", _COMMON_PARAMS.strip())
        .replace("{reduction}", _REDUCTION_PARAMS.strip())
        .replace("{raises}", _RAISES.strip())
        .replace("{validation}", _VALIDATION_NOTE.strip())
    )


# --------------------------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------------------------


class RPSLoss(torch.nn.Module):
    """The Ranked Probability Score as a loss module, like :class:`torch.nn.CrossEntropyLoss`.

    ``RPSLoss(...)(input, target)`` is ``rps_loss(input, target, ...)``; see :func:`rps_loss`
    for the definition, the shapes and the errors.

    Parameters
    ----------
    from_logits : bool, default True
        Whether the input holds logits (softmax applied inside) or probabilities.
    normalize : bool, default True
        Divide by K - 1 (range [0, 1]).
    reduction : {"mean", "sum", "none"}, default "mean"
        The (weighted) mean, the (weighted) sum, or the per-sample losses.

    Examples
    --------
    >>> import torch
    >>> from ordmetrics.torch import RPSLoss
    >>> criterion = RPSLoss()
    >>> criterion
    RPSLoss(from_logits=True, normalize=True, reduction='mean')
    >>> logits = torch.tensor([[4.0, 0.0, -4.0]], requires_grad=True)
    >>> loss = criterion(logits, torch.tensor([0]))
    >>> loss.backward()
    >>> round(loss.item(), 6)
    0.000168
    """

    def __init__(
        self, *, from_logits: bool = True, normalize: bool = True, reduction: str = "mean"
    ) -> None:
        super().__init__()
        _check_options(reduction, from_logits, normalize)
        self.from_logits = from_logits
        self.normalize = normalize
        self.reduction = reduction

    def forward(
        self, input: torch.Tensor, target: torch.Tensor, sample_weight: Any = None
    ) -> torch.Tensor:
        """The loss of a batch; ``sample_weight`` as in :func:`rps_loss`."""
        return rps_loss(
            input,
            target,
            from_logits=self.from_logits,
            normalize=self.normalize,
            reduction=self.reduction,
            sample_weight=sample_weight,
        )

    def extra_repr(self) -> str:
        return (
            f"from_logits={self.from_logits}, normalize={self.normalize}, "
            f"reduction={self.reduction!r}"
        )


class SARPSLoss(torch.nn.Module):
    """The squared-absolute RPS as a loss module. **Not a proper scoring rule.**

    ``SARPSLoss(...)(input, target)`` is ``sa_rps_loss(input, target, ...)``. Minimising it
    rewards piling probability on the median class instead of predicting the true class
    distribution; see the warning of :func:`sa_rps_loss` before training with it.

    Parameters
    ----------
    from_logits : bool, default True
        Whether the input holds logits (softmax applied inside) or probabilities.
    reduction : {"mean", "sum", "none"}, default "mean"
        The (weighted) mean, the (weighted) sum, or the per-sample losses.

    Examples
    --------
    >>> import torch
    >>> from ordmetrics.torch import SARPSLoss
    >>> SARPSLoss(reduction="sum")
    SARPSLoss(from_logits=True, reduction='sum')
    """

    def __init__(self, *, from_logits: bool = True, reduction: str = "mean") -> None:
        super().__init__()
        _check_options(reduction, from_logits)
        self.from_logits = from_logits
        self.reduction = reduction

    def forward(
        self, input: torch.Tensor, target: torch.Tensor, sample_weight: Any = None
    ) -> torch.Tensor:
        """The loss of a batch; ``sample_weight`` as in :func:`sa_rps_loss`."""
        return sa_rps_loss(
            input,
            target,
            from_logits=self.from_logits,
            reduction=self.reduction,
            sample_weight=sample_weight,
        )

    def extra_repr(self) -> str:
        return f"from_logits={self.from_logits}, reduction={self.reduction!r}"
