"""The ordinal agreement metrics: kappa and QWK, expected cost, MAE, AMAE and MMAE.

Each is its formula of :mod:`ordmetrics.metrics.agreement.formulas` evaluated on the one weighted
confusion matrix of the data (:mod:`ordmetrics.metrics.agreement.confusion`), registered with kind
``"agreement"``. Definitions: ``docs/definitions.md``.
"""

from __future__ import annotations

from typing import Any

from ordmetrics._core.docs import fill_doc
from ordmetrics.metrics.agreement.confusion import _scalar
from ordmetrics.metrics.agreement.labels import _PARAMS_TEMPLATE

__all__ = ["amae", "expected_cost", "kappa", "mae", "mmae", "qwk"]


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
