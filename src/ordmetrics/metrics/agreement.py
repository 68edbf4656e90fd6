"""Agreement between true and predicted classes: kappa, expected cost, MAE family, accuracy, F1.

Every metric here is computed from one weighted confusion matrix over the full label set,
built in a single pass over the rows. With ``labels=None`` the label set is
``0..max(y_true, y_pred)``, so classes absent from the data still count (they matter for the
weights of kappa and for the class-averaged metrics):

================== ============================================= ========== ===========
metric             definition (O: confusion proportions)         range      best
================== ============================================= ========== ===========
kappa              1 - sum(W O) / sum(W E), E = outer(r, c)      [-1, 1]    1 (max)
qwk                kappa with W = (i-j)^2 / (K-1)^2              [-1, 1]    1 (max)
expected_cost      sum(C O)                                      [0, inf)   0 (min)
mae                sum(|i-j| O)                                  [0, K-1]   0 (min)
amae               mean over true classes of the per-class MAE   [0, K-1]   0 (min)
mmae               max over true classes of the per-class MAE    [0, K-1]   0 (min)
accuracy           sum_i O_ii                                    [0, 1]     1 (max)
within_k_accuracy  sum of O_ij with |i-j| <= k                   [0, 1]     1 (max)
macro_f1           mean over present classes of 2 O_ii/(r_i+c_i) [0, 1]     1 (max)
macro_precision    mean over present classes of O_ii / c_i       [0, 1]     1 (max)
macro_recall       mean over present classes of O_ii / r_i       [0, 1]     1 (max)
================== ============================================= ========== ===========

r and c are the row (true) and column (predicted) marginals of O.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ordmetrics._core import (
    array_api as _xp,  # array-API dispatch (PyTorch, JAX, CuPy); imports nothing optional
)
from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import (
    scale_counts,
    scale_weights,
)
from ordmetrics._core.registry import register
from ordmetrics._core.validation import (
    Prepared,
    check_flag,
    check_option,
    prepare_hard,
)
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.decisions import (
    COSTS,
    builtin_matrix,
    check_matrix,
)

__all__ = [
    "accuracy",
    "amae",
    "confusion_matrix",
    "expected_cost",
    "kappa",
    "macro_f1",
    "macro_precision",
    "macro_recall",
    "mae",
    "mmae",
    "qwk",
    "within_k_accuracy",
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


def _prepare(
    y_true: Any, y_pred: Any, labels: Any, sample_weight: Any, nan_policy: str
) -> Prepared:
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


def _counts(prep: Prepared) -> np.ndarray:
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


# --------------------------------------------------------------------------------------------
# Every metric as a function of confusion counts M[..., true, predicted]: the single source of
# each formula. They take a stack of matrices (any leading shape) and return one value per
# matrix, NaN where undefined; the public functions, retention curves and the bootstrap all
# call them.
# --------------------------------------------------------------------------------------------


def _total(M: np.ndarray) -> np.ndarray:
    return M.sum(axis=(-2, -1))


def _kappa_counts(M: np.ndarray, W: np.ndarray) -> np.ndarray:
    """1 - sum(W O) / sum(W E) with O = M / n: = 1 - n sum(W M) / sum(W outer(r, c))."""
    chance = np.einsum("...i,...j,ij->...", M.sum(axis=-1), M.sum(axis=-2), W)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - (W * M).sum(axis=(-2, -1)) * _total(M) / chance
    return np.where(chance == 0.0, np.nan, value)


def _cost_counts(M: np.ndarray, C: np.ndarray, normalize: bool) -> np.ndarray:
    cost = (C * M).sum(axis=(-2, -1))
    # normalized: EC / (min_k sum_j pi_j C[j, k]) with pi = row totals / n: the n cancels
    denom = (M.sum(axis=-1) @ C).min(axis=-1) if normalize else _total(M)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom == 0.0, np.nan, cost / denom)


def _per_class_mae(M: np.ndarray) -> np.ndarray:
    """MAE of each true class (NaN for classes absent from y_true), shape (..., K)."""
    dist = builtin_matrix("absolute", M.shape[-1])
    r = M.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r > 0, (dist * M).sum(axis=-1) / r, np.nan)


def _nan_reduce(values: np.ndarray, how: str) -> np.ndarray:
    """Mean or max over the last axis ignoring NaN (all NaN gives NaN, silently)."""
    present = ~np.isnan(values)
    if how == "mean":
        n = present.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(present, values, 0.0).sum(axis=-1) / np.where(n > 0, n, np.nan)
    out = np.where(present, values, -np.inf).max(axis=-1)
    return np.where(present.any(axis=-1), out, np.nan)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den == 0.0, np.nan, num / den)


def _within_counts(M: np.ndarray, k: int) -> np.ndarray:
    near = builtin_matrix("absolute", M.shape[-1]) <= k
    return _ratio((M * near).sum(axis=(-2, -1)), _total(M))


def _macro_f1_counts(M: np.ndarray) -> np.ndarray:
    support = M.sum(axis=-1) + M.sum(axis=-2)
    diag = np.diagonal(M, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(support > 0, 2.0 * diag / support, np.nan)
    return _nan_reduce(f1, "mean")


def _macro_pr_counts(M: np.ndarray, axis: int) -> np.ndarray:
    """Macro precision (``axis=-2``: O_ii / c_i) or recall (``axis=-1``: O_ii / r_i).

    Over the classes present in y_true or y_pred (r_i + c_i > 0), as macro F1; a present
    class with a zero denominator counts 0 (scikit-learn's ``zero_division=0``).
    """
    den = M.sum(axis=axis)
    support = M.sum(axis=-1) + M.sum(axis=-2)
    diag = np.diagonal(M, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(den > 0, diag / np.where(den > 0, den, 1.0), 0.0)
    return _nan_reduce(np.where(support > 0, v, np.nan), "mean")


_UNDEFINED = {
    "kappa": "the chance disagreement sum(W * E) is 0 (e.g. y_true and y_pred hold one and "
    "the same class throughout)",
    "expected_cost": "the best constant prediction costs 0 (e.g. y_true holds a single "
    "class), so there is no cost to normalize by",
}


def counts_evaluator(name: str, n_classes: int, **options: Any) -> Callable[[Any], Any]:
    """The batched form of agreement metric ``name`` with its options checked once.

    Returns ``f(M)`` mapping confusion counts of shape (..., K, K) (rows: true class, columns:
    predicted class, any non-negative weights) to values of shape (...), NaN where the metric
    is undefined. Used by retention curves and the bootstrap, which evaluate a metric on many
    confusion matrices; the public functions below are this evaluator on one matrix.
    """
    k = n_classes
    if name == "kappa":
        W = _kappa_weights(options.pop("weights", None), k)
        f = lambda M: _kappa_counts(M, W)  # noqa: E731
    elif name == "qwk":
        W = _kappa_weights("quadratic", k)
        f = lambda M: _kappa_counts(M, W)  # noqa: E731
    elif name in ("expected_cost", "mae"):
        C = (
            _cost_matrix(options.pop("costs", "absolute"), k)
            if name == "expected_cost"
            else (builtin_matrix("absolute", k))
        )
        norm = (
            check_flag(options.pop("normalize", False), "normalize")
            if name == "expected_cost"
            else False
        )
        f = lambda M: _cost_counts(M, C, norm)  # noqa: E731
    elif name == "amae":
        f = lambda M: _nan_reduce(_per_class_mae(M), "mean")  # noqa: E731
    elif name == "mmae":
        f = lambda M: _nan_reduce(_per_class_mae(M), "max")  # noqa: E731
    elif name == "accuracy":
        f = lambda M: _ratio(np.trace(M, axis1=-2, axis2=-1), _total(M))  # noqa: E731
    elif name == "within_k_accuracy":
        kk = _check_k(options.pop("k", 1))
        f = lambda M: _within_counts(M, kk)  # noqa: E731
    elif name == "macro_f1":
        f = _macro_f1_counts
    elif name == "macro_precision":
        f = lambda M: _macro_pr_counts(M, -2)  # noqa: E731
    elif name == "macro_recall":
        f = lambda M: _macro_pr_counts(M, -1)  # noqa: E731
    else:
        raise ValueError(
            f"{name!r} is not an agreement metric; choose one of {', '.join(AGREEMENT_METRICS)}."
        )
    if options:
        raise TypeError(f"{name}() got unexpected keyword arguments {sorted(options)}.")
    # every metric is a ratio of sums and products of counts: scaling each matrix by a power
    # of two is exact and keeps products such as outer(r, c) finite and normal at any scale
    return lambda M: f(scale_counts(M))


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
    # ---- array-API dispatch: device arrays are counted on their device (_core.array_api) ------
    if _xp.is_device_array(y_pred) or _xp.is_device_array(y_true):
        return _xp.agreement_scalar(
            name, y_true, y_pred, labels, sample_weight, nan_policy, **options
        )
    # ---- end of array-API dispatch -------------------------------------------------------------
    prep = _prepare(y_true, y_pred, labels, sample_weight, nan_policy)
    f = counts_evaluator(name, prep.n_classes, **options)
    if prep.propagate:
        return math.nan
    w, _ = scale_weights(
        prep.weight
    )  # exact; the counts cannot overflow (ordmetrics._core.numerics)
    counts = _counts(replace(prep, weight=w))
    return warn_if_undefined(name, float(f(counts)))


def warn_if_undefined(name: str, value: float, shown: str | None = None) -> float:
    """Return ``value``, warning with the reason when agreement metric ``name`` gave NaN.

    ``shown`` is the name used in the warning (e.g. a metric set's display name).
    """
    if math.isnan(value):
        base = "kappa" if name in ("kappa", "qwk") else name
        if base in _UNDEFINED:
            label = "expected_cost(normalize=True)" if base == "expected_cost" else name
            warn_undefined(shown or label, _UNDEFINED[base])
    return value


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


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
    # ---- array-API dispatch: device arrays are counted on their device (_core.array_api) ------
    if _xp.is_device_array(y_pred) or _xp.is_device_array(y_true):
        return _xp.confusion_matrix(
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
    prep = _prepare(y_true, y_pred, labels, sample_weight, nan_policy)
    k = prep.n_classes
    if prep.propagate:
        return np.full((k, k), np.nan)
    if prep.weight is None and normalize is None:
        flat = np.bincount(prep.y_true * k + prep.other, minlength=k * k)
        return flat.reshape(k, k).astype(np.int64, copy=False)
    if normalize is None:
        return _counts(prep)
    # proportions are free of the weights' scale: count in exactly rescaled units so that
    # weights near the float maximum cannot overflow a cell or a total
    counts = _counts(replace(prep, weight=scale_weights(prep.weight)[0]))
    if normalize == "all":
        return counts / counts.sum()
    axis = 1 if normalize == "true" else 0
    totals = counts.sum(axis=axis, keepdims=True)
    empty = np.flatnonzero(totals == 0)
    if empty.size:
        warn_empty_classes(normalize, empty)
    with np.errstate(invalid="ignore"):
        return counts / totals


def warn_empty_classes(normalize: str, empty: np.ndarray) -> None:
    """Warn that normalizing a confusion matrix divides 0 by 0 for the classes ``empty``."""
    side = "y_true" if normalize == "true" else "y_pred"
    what = "rows" if normalize == "true" else "columns"
    warn_undefined(
        f"confusion_matrix(normalize={normalize!r})",
        f"classes {empty.tolist()} (positions) do not occur in {side}, so their {what} "
        "are 0/0; those entries are NaN",
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def kappa(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    weights: Any = None,
) -> float:
    r"""Cohen's kappa, unweighted or weighted, over the full label set.

    .. math::

        \kappa = 1 - \frac{\sum_{ij} W_{ij} O_{ij}}{\sum_{ij} W_{ij} E_{ij}},
        \qquad E_{ij} = r_i c_j

    O is the weighted confusion matrix as proportions, r and c its row (true) and column
    (predicted) marginals, so E is the table expected by chance; W is a disagreement weight
    matrix with zero diagonal.

    Parameters
    ----------
    %(params)s
    weights : {None, "linear", "quadratic"} or array-like of shape (K, K), default None
        ``None``: unweighted kappa (W = 1 off the diagonal). ``"linear"``:
        W = |i-j|/(K-1). ``"quadratic"``: W = (i-j)^2/(K-1)^2 (see :func:`qwk`). A matrix:
        finite non-negative disagreements W[true, predicted], normally with zero diagonal;
        its scale does not matter.

    Returns
    -------
    float
        Kappa; NaN (with an :class:`~ordmetrics.UndefinedMetricWarning`) when
        sum(W E) = 0, e.g. when y_true and y_pred hold one and the same class throughout.

    Notes
    -----
    Range [-1, 1] for the built-in weights (the lower bound can be exceeded with a user
    matrix); higher is better; 1 is perfect agreement, 0 the agreement expected by chance.

    The label set is the full one given by ``labels`` (or 0..max(y_true, y_pred)),
    including classes absent from the data. scikit-learn's ``cohen_kappa_score`` builds the
    weights on the positions of the observed labels only unless ``labels=`` is passed, so
    the two differ for linear or quadratic weights when a class in the middle is absent.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement 20(1), 37-46.
    .. [2] Cohen, J. (1968). Weighted kappa: Nominal scale agreement with provision for
       scaled disagreement or partial credit. Psychological Bulletin 70(4), 213-220.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import kappa
    >>> round(kappa([0, 1, 2, 2], [0, 2, 2, 1]), 6)
    0.2
    >>> round(kappa([0, 1, 2, 2], [0, 2, 2, 1], weights="linear"), 6)
    0.428571
    """
    return _scalar("kappa", y_true, y_pred, labels, sample_weight, nan_policy, weights=weights)


@fill_doc(params=_PARAMS_TEMPLATE)
def qwk(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Quadratic weighted kappa (QWK) over the full label set.

    .. math::

        \mathrm{QWK} = 1 - \frac{\sum_{ij} (i-j)^2 O_{ij}}{\sum_{ij} (i-j)^2 r_i c_j}

    The weighted kappa of :func:`kappa` with ``weights="quadratic"``: O the weighted
    confusion proportions, r and c its row (true) and column (predicted) marginals.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        QWK; NaN (with an :class:`~ordmetrics.UndefinedMetricWarning`) when the chance
        disagreement is 0, e.g. when y_true and y_pred hold one and the same class.

    Notes
    -----
    Range [-1, 1]; higher is better; 1 is perfect agreement, 0 chance agreement.

    Computed over the full label set: ``qwk([0, 2, 5], [0, 5, 5])`` uses the six classes
    0..5, as scikit-learn's ``cohen_kappa_score(..., weights="quadratic",
    labels=range(6))`` does; without ``labels=`` scikit-learn weights by the positions of
    the observed labels 0, 2, 5 (as if they were 0, 1, 2) and reports another number.

    References
    ----------
    .. [1] Cohen, J. (1968). Weighted kappa: Nominal scale agreement with provision for
       scaled disagreement or partial credit. Psychological Bulletin 70(4), 213-220.
    .. [2] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import qwk
    >>> round(qwk([0, 2, 5], [0, 5, 5]), 6)  # 70/97 over the six classes 0..5
    0.721649
    """
    return _scalar("qwk", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def expected_cost(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    costs: Any = "absolute",
    normalize: bool = False,
) -> float:
    r"""Expected cost (EC) of hard predictions under a cost matrix.

    .. math::

        \mathrm{EC} = \frac{\sum_n w_n\, C[y_n, \hat y_n]}{\sum_n w_n},
        \qquad
        \mathrm{EC}_{\mathrm{norm}} = \frac{\mathrm{EC}}{\min_k \sum_j \pi_j\, C[j, k]}

    with pi the weighted class frequencies of ``y_true``: the normalised EC divides by the
    cost of the best constant prediction (the best one can do without looking at the input).

    Parameters
    ----------
    %(params)s
    costs : {"absolute", "squared", "zero_one"} or array-like of shape (K, K), \
default "absolute"
        ``C[true, predicted]``: ``"absolute"`` |i-j| (EC is then the MAE), ``"squared"``
        (i-j)^2, ``"zero_one"`` 1{i != j} (EC is then the error rate), or a finite
        non-negative matrix.
    normalize : bool, default False
        Divide by the cost of the best constant prediction.

    Returns
    -------
    float
        The expected cost; with ``normalize=True`` NaN (with an
        :class:`~ordmetrics.UndefinedMetricWarning`) when the best constant prediction costs
        0 (e.g. y_true holds one class and C has a zero diagonal).

    Notes
    -----
    Range [0, max C]; lower is better; 0 is perfect. Normalised: 0 is perfect, 1 is as good
    as the best constant prediction, above 1 worse than it.

    References
    ----------
    .. [1] Ferrer, L. (2022). Analysis and comparison of classification metrics.
       arXiv:2209.05355.
    .. [2] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import expected_cost
    >>> expected_cost([0, 1, 2, 2], [0, 2, 2, 0], costs="squared")
    1.25
    >>> round(expected_cost([0, 1, 2, 2], [0, 2, 2, 0], costs="squared", normalize=True), 6)
    1.666667
    """
    return _scalar(
        "expected_cost",
        y_true,
        y_pred,
        labels,
        sample_weight,
        nan_policy,
        costs=costs,
        normalize=normalize,
    )


@fill_doc(params=_PARAMS_TEMPLATE)
def mae(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Mean absolute error between true and predicted class indices.

    .. math::

        \mathrm{MAE} = \frac{\sum_n w_n\, |y_n - \hat y_n|}{\sum_n w_n}

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The MAE in class-index units (the distance between neighbouring classes is 1,
        whatever the labels are).

    Notes
    -----
    Range [0, K-1]; lower is better; 0 is perfect. Equal to
    ``expected_cost(costs="absolute")``.

    References
    ----------
    .. [1] Gutiérrez, P. A., Pérez-Ortiz, M., Sánchez-Monedero, J., Fernández-Navarro, F.,
       Hervás-Martínez, C. (2016). Ordinal regression methods: survey and experimental
       study. IEEE Transactions on Knowledge and Data Engineering 28(1), 127-146.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import mae
    >>> mae(["low", "high", "mid"], ["low", "low", "high"], labels=["low", "mid", "high"])
    1.0
    """
    return _scalar("mae", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def amae(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Average MAE: the per-class MAE averaged over the classes present in ``y_true``.

    .. math::

        \mathrm{AMAE} = \frac{1}{|T|} \sum_{i \in T}
        \frac{\sum_j |i - j|\, O_{ij}}{\sum_j O_{ij}},
        \qquad T = \{i : \textstyle\sum_j O_{ij} > 0\}

    Each true class counts equally, however rare, which makes AMAE robust to class
    imbalance (a classifier that always predicts the majority class scores badly).

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The AMAE in class-index units.

    Notes
    -----
    Range [0, K-1]; lower is better; 0 is perfect. Classes absent from ``y_true`` (or
    present only with weight 0) are left out of the average: their MAE is undefined.
    dlordinal averages over confusion-matrix positions and is wrong when a class is absent
    (dlordinal PR #95).

    References
    ----------
    .. [1] Baccianella, S., Esuli, A., Sebastiani, F. (2009). Evaluation measures for
       ordinal regression. Ninth International Conference on Intelligent Systems Design and
       Applications (ISDA 2009), 283-287.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import amae
    >>> amae([0, 0, 0, 2], [0, 0, 0, 0])  # class 0: MAE 0, class 2: MAE 2
    1.0
    """
    return _scalar("amae", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def mmae(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Maximum MAE: the largest per-class MAE over the classes present in ``y_true``.

    .. math::

        \mathrm{MMAE} = \max_{i \in T}
        \frac{\sum_j |i - j|\, O_{ij}}{\sum_j O_{ij}},
        \qquad T = \{i : \textstyle\sum_j O_{ij} > 0\}

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The MMAE in class-index units: the MAE of the worst-served true class.

    Notes
    -----
    Range [0, K-1]; lower is better; 0 is perfect. Classes absent from ``y_true`` (or
    present only with weight 0) are left out (see :func:`amae`).

    References
    ----------
    .. [1] Cruz-Ramírez, M., Hervás-Martínez, C., Sánchez-Monedero, J., Gutiérrez, P. A.
       (2014). Metrics to guide a multi-objective evolutionary algorithm for ordinal
       classification. Neurocomputing 135, 21-31.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import mmae
    >>> mmae([0, 0, 0, 2], [0, 0, 0, 0])
    2.0
    """
    return _scalar("mmae", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def accuracy(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Accuracy: the weighted fraction of rows whose predicted class is the true class.

    .. math::

        \mathrm{Acc} = \frac{\sum_n w_n\, 1\{y_n = \hat y_n\}}{\sum_n w_n} = \sum_i O_{ii}

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The accuracy.

    Notes
    -----
    Range [0, 1]; higher is better; 1 is perfect. Ignores the order of the classes: see
    :func:`within_k_accuracy` for an ordinal relaxation.

    References
    ----------
    .. [1] Sokolova, M., Lapalme, G. (2009). A systematic analysis of performance measures
       for classification tasks. Information Processing & Management 45(4), 427-437.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import accuracy
    >>> accuracy([0, 1, 2, 2], [0, 2, 2, 1])
    0.5
    """
    return _scalar("accuracy", y_true, y_pred, labels, sample_weight, nan_policy)


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


@fill_doc(params=_PARAMS_TEMPLATE)
def within_k_accuracy(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    k: int = 1,
) -> float:
    r"""Within-k accuracy: the weighted fraction of rows predicted at most k classes away.

    .. math::

        \mathrm{Acc}_k = \frac{\sum_n w_n\, 1\{|y_n - \hat y_n| \le k\}}{\sum_n w_n}

    Parameters
    ----------
    %(params)s
    k : int, default 1
        The largest accepted distance in classes (a non-negative integer); ``k=0`` is the
        accuracy, ``k >= K-1`` gives 1.

    Returns
    -------
    float
        The within-k accuracy (also called off-by-k or adjacent accuracy for k = 1).

    Notes
    -----
    Range [0, 1]; higher is better; 1 is perfect. Distances are in class-index units.

    References
    ----------
    .. [1] Gutiérrez, P. A., Pérez-Ortiz, M., Sánchez-Monedero, J., Fernández-Navarro, F.,
       Hervás-Martínez, C. (2016). Ordinal regression methods: survey and experimental
       study. IEEE Transactions on Knowledge and Data Engineering 28(1), 127-146.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import within_k_accuracy
    >>> within_k_accuracy([0, 1, 3, 3], [0, 2, 3, 1])
    0.75
    >>> within_k_accuracy([0, 1, 3, 3], [0, 2, 3, 1], k=2)
    1.0
    """
    return _scalar("within_k_accuracy", y_true, y_pred, labels, sample_weight, nan_policy, k=k)


@fill_doc(params=_PARAMS_TEMPLATE)
def macro_f1(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Macro-averaged F1 score over the classes present in ``y_true`` or ``y_pred``.

    .. math::

        \mathrm{F1}_i = \frac{2\, O_{ii}}{r_i + c_i}, \qquad
        \text{macro-F1} = \frac{1}{|S|} \sum_{i \in S} \mathrm{F1}_i, \qquad
        S = \{i : r_i + c_i > 0\}

    F1_i is the harmonic mean of the precision O_ii / c_i and the recall O_ii / r_i of
    class i, taken as 0 when either is 0 (or undefined while the other is 0).

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The macro F1.

    Notes
    -----
    Range [0, 1]; higher is better; 1 is perfect. A class that occurs neither in
    ``y_true`` nor in ``y_pred`` (with positive weight) has no F1 and is left out of the
    mean, although it belongs to the label set; a class that occurs in only one of them
    has F1 = 0. This equals scikit-learn's ``f1_score(average="macro", labels=S,
    zero_division=0)``. Ignores the order of the classes.

    References
    ----------
    .. [1] Sokolova, M., Lapalme, G. (2009). A systematic analysis of performance measures
       for classification tasks. Information Processing & Management 45(4), 427-437.

    Examples
    --------
    >>> from ordmetrics.metrics.agreement import macro_f1
    >>> round(macro_f1([0, 1, 3, 3], [0, 2, 3, 1]), 6)  # class 2 counts, F1 = 0
    0.416667
    """
    return _scalar("macro_f1", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def macro_precision(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Macro-averaged precision over the classes present in ``y_true`` or ``y_pred``.

    .. math::

        \text{macro-precision} = \frac{1}{|S|} \sum_{i \in S} \frac{O_{ii}}{c_i},
        \qquad S = \{i : r_i + c_i > 0\}

    c_i the (weighted) number of predictions of class i, r_i that of true class i; a class
    of S that is never predicted (c_i = 0) has precision 0.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The macro precision.

    Notes
    -----
    Range [0, 1]; higher is better; 1 is perfect. The classes are those of macro F1
    (:func:`macro_f1`): a class of the label set that occurs neither in ``y_true`` nor in
    ``y_pred`` (with positive weight) is left out of the mean. Equals scikit-learn's
    ``precision_score(average="macro", labels=S, zero_division=0)``. Ignores the order of
    the classes.

    References
    ----------
    .. [1] Sokolova, M., Lapalme, G. (2009). A systematic analysis of performance measures
       for classification tasks. Information Processing & Management 45(4), 427-437.

    Examples
    --------
    >>> from ordmetrics import macro_precision
    >>> round(macro_precision([0, 1, 3, 3], [0, 2, 3, 1]), 6)  # (1 + 0 + 0 + 1) / 4
    0.5
    """
    return _scalar("macro_precision", y_true, y_pred, labels, sample_weight, nan_policy)


@fill_doc(params=_PARAMS_TEMPLATE)
def macro_recall(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Macro-averaged recall over the classes present in ``y_true`` or ``y_pred``.

    .. math::

        \text{macro-recall} = \frac{1}{|S|} \sum_{i \in S} \frac{O_{ii}}{r_i},
        \qquad S = \{i : r_i + c_i > 0\}

    r_i the (weighted) number of rows of true class i; a class of S that never occurs in
    ``y_true`` (r_i = 0, predicted only) has recall 0.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The macro recall.

    Notes
    -----
    Range [0, 1]; higher is better; 1 is perfect. The classes are those of macro F1
    (:func:`macro_f1`). Equals scikit-learn's ``recall_score(average="macro", labels=S,
    zero_division=0)``. Over the classes of ``y_true`` only it would be the balanced
    accuracy; here a class that is predicted but never true counts 0. Ignores the order of
    the classes.

    References
    ----------
    .. [1] Sokolova, M., Lapalme, G. (2009). A systematic analysis of performance measures
       for classification tasks. Information Processing & Management 45(4), 427-437.

    Examples
    --------
    >>> from ordmetrics import macro_recall
    >>> round(macro_recall([0, 1, 3, 3], [0, 2, 3, 1]), 6)  # (1 + 0 + 0 + 0.5) / 4
    0.375
    """
    return _scalar("macro_recall", y_true, y_pred, labels, sample_weight, nan_policy)


# --------------------------------------------------------------------------------------------
# Registry entries
# --------------------------------------------------------------------------------------------

_UP_TO_K = "at most K-1 (class-index units)"
for _func, _direction, _range, _perfect, _desc, _note in [
    (
        kappa,
        "maximize",
        (-1, 1),
        1.0,
        "Cohen's kappa (weights= for weighted kappa)",
        "at least -1 with the built-in weights; a user weight matrix can go below",
    ),
    (qwk, "maximize", (-1, 1), 1.0, "quadratic weighted kappa", ""),
    (
        expected_cost,
        "minimize",
        (0, math.inf),
        0.0,
        "expected cost under a cost matrix",
        "at most max C; normalize=True: 1 is the best constant prediction",
    ),
    (mae, "minimize", (0, math.inf), 0.0, "mean absolute error (class indices)", _UP_TO_K),
    (amae, "minimize", (0, math.inf), 0.0, "MAE averaged over true classes", _UP_TO_K),
    (mmae, "minimize", (0, math.inf), 0.0, "largest per-class MAE", _UP_TO_K),
    (accuracy, "maximize", (0, 1), 1.0, "accuracy", ""),
    (within_k_accuracy, "maximize", (0, 1), 1.0, "fraction within k classes (k=1)", ""),
    (macro_f1, "maximize", (0, 1), 1.0, "macro-averaged F1 over present classes", ""),
    (macro_precision, "maximize", (0, 1), 1.0, "macro precision over present classes", ""),
    (macro_recall, "maximize", (0, 1), 1.0, "macro recall over present classes", ""),
]:
    register(
        _func,
        direction=_direction,  # type: ignore[arg-type]
        range=_range,
        kind="agreement",
        perfect=_perfect,
        description=_desc,
        range_note=_note,
    )
