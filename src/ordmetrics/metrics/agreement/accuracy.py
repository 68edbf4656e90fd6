"""The agreement metrics of hits: accuracy, within-k accuracy, macro F1, precision and recall.

Each is its formula of :mod:`ordmetrics.metrics.agreement.formulas` evaluated on the one weighted
confusion matrix of the data (:mod:`ordmetrics.metrics.agreement.confusion`), registered with kind
``"agreement"``. Definitions: ``docs/definitions.md``.
"""

from __future__ import annotations

from typing import Any

from ordmetrics._core.docs import fill_doc
from ordmetrics.metrics.agreement.confusion import _scalar
from ordmetrics.metrics.agreement.labels import _PARAMS_TEMPLATE

__all__ = ["accuracy", "macro_f1", "macro_precision", "macro_recall", "within_k_accuracy"]


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
