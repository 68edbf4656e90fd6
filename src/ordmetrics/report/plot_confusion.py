"""Confusion-matrix heat maps (:mod:`ordmetrics.plot`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.validation import (
    check_flag,
    prepare_hard,
)
from ordmetrics.metrics.agreement import confusion_matrix
from ordmetrics.report.plot_common import _axes, _class_names, _pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# --------------------------------------------------------------------------------------------
# Confusion matrix heat map
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ConfusionMatrixData:
    """The data of :func:`confusion_matrix_heatmap`.

    Attributes
    ----------
    matrix : ndarray of shape (K, K)
        :func:`~ordmetrics.confusion_matrix` of the inputs (rows: true class, columns:
        predicted class).
    classes : tuple of str
        The class names in ordinal order.
    normalize : str or None
        The normalisation of ``matrix`` (None: counts).
    """

    matrix: np.ndarray
    classes: tuple[str, ...]
    normalize: str | None

    def __repr__(self) -> str:
        return f"ConfusionMatrixData({len(self.classes)} classes, normalize={self.normalize!r})"


@fill_doc()
def confusion_matrix_heatmap_data(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    normalize: str | None = None,
    sample_weight: Any = None,
) -> ConfusionMatrixData:
    """The data of :func:`confusion_matrix_heatmap`: the confusion matrix and class names.

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
        For example ``ordmetrics.decide(y_proba, labels=labels)``.
    %(labels_pred)s
    normalize : {"true", "pred", "all"}, optional
        As in :func:`~ordmetrics.confusion_matrix`: None for counts, ``"true"`` for the
        distribution of predictions of each true class (rows sum to 1), ``"pred"`` (columns
        sum to 1), ``"all"`` (all cells sum to 1).
    %(sample_weight_counts)s

    Returns
    -------
    ConfusionMatrixData
        ``matrix``, ``classes`` and ``normalize``.

    Examples
    --------
    >>> from ordmetrics.plot import confusion_matrix_heatmap_data
    >>> data = confusion_matrix_heatmap_data(["a", "b", "b"], ["a", "a", "b"], labels=["a", "b"])
    >>> data.matrix
    array([[1, 0],
           [1, 1]])
    >>> data.classes
    ('a', 'b')
    """
    matrix = confusion_matrix(
        y_true, y_pred, labels=labels, normalize=normalize, sample_weight=sample_weight
    )
    prep = prepare_hard(y_true, y_pred, labels=labels, sample_weight=None, nan_policy="raise")
    return ConfusionMatrixData(matrix, _class_names(prep.labels, matrix.shape[0]), normalize)


def _cell_text(value: float, integer: bool, normalize: str | None) -> str:
    if math.isnan(value):
        return "-"
    if integer:
        return f"{int(value):d}"
    if normalize is not None:
        return f"{value:.2f}"
    return f"{value:.4g}"


@fill_doc()
def confusion_matrix_heatmap(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    normalize: str | None = None,
    sample_weight: Any = None,
    colorbar: bool = True,
    ax: Axes | None = None,
) -> Axes:
    """Heat map of the confusion matrix, each cell annotated with its count or proportion.

    Computes :func:`confusion_matrix_heatmap_data` and draws it: rows are the true classes
    (top to bottom in ordinal order), columns the predicted classes, both labelled with the
    class names. An ordinal model's errors should stay close to the diagonal.

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
    %(labels_pred)s
        They are the tick labels.
    normalize : {"true", "pred", "all"}, optional
        None: counts; otherwise proportions, as in :func:`~ordmetrics.confusion_matrix`.
    %(sample_weight_counts)s
    colorbar : bool, default True
        Add a colour bar beside the Axes.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: one image and K x K cell texts (``"-"`` for an undefined
        proportion).

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    See Also
    --------
    confusion_matrix_heatmap_data : The numbers drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics.plot import confusion_matrix_heatmap
    >>> ax = confusion_matrix_heatmap(["a", "b", "b"], ["a", "a", "b"], labels=["a", "b"],
    ...                               normalize="true")
    >>> [t.get_text() for t in ax.texts]
    ['1.00', '0.00', '0.50', '0.50']
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['a', 'b']
    >>> plt.close("all")
    """
    _pyplot("confusion_matrix_heatmap")
    data = confusion_matrix_heatmap_data(
        y_true, y_pred, labels=labels, normalize=normalize, sample_weight=sample_weight
    )
    ax = _axes("confusion_matrix_heatmap", ax)
    m = np.asarray(data.matrix, dtype=np.float64)
    k = m.shape[0]
    integer = np.issubdtype(data.matrix.dtype, np.integer)
    vmax = float(np.nanmax(m)) if np.isfinite(m).any() else 1.0
    vmax = vmax if vmax > 0 else 1.0
    image = ax.imshow(m, cmap="Blues", vmin=0.0, vmax=vmax, interpolation="nearest")
    size = max(6.0, 11.0 - 0.4 * k)
    for i in range(k):
        for j in range(k):
            value = float(m[i, j])
            dark = not math.isnan(value) and value > 0.55 * vmax
            ax.text(
                j,
                i,
                _cell_text(value, integer, normalize),
                ha="center",
                va="center",
                fontsize=size,
                color="white" if dark else "black",
            )
    ax.set_xticks(range(k), list(data.classes))
    ax.set_yticks(range(k), list(data.classes))
    if max((len(c) for c in data.classes), default=0) > 4:
        ax.tick_params(axis="x", labelrotation=30)
        for t in ax.get_xticklabels():
            t.set_horizontalalignment("right")
            t.set_rotation_mode("anchor")
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    what = {
        None: "counts" if integer else "weighted counts",
        "true": "proportions of each true class",
        "pred": "proportions of each predicted class",
        "all": "proportions of all rows",
    }[normalize]
    ax.set_title(f"Confusion matrix ({what})")
    if check_flag(colorbar, "colorbar"):
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax
