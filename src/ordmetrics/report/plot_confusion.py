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


#: Largest K whose cells are annotated with their numbers by default: beyond, the K^2 texts
#: are too small to read and each costs a text object to lay out and draw (a million at K =
#: 1000: minutes and gigabytes), so the colour alone shows the matrix.
ANNOTATE_MAX_K = 20

#: Most tick labels on each axis: beyond, every n-th class is labelled, so that the labels
#: keep apart on an Axes of a few inches.
MAX_TICK_LABELS = 20

#: Most cells drawn along each side of the image: beyond, each pixel of an Axes of a few
#: inches would stand for several cells, and resampling would drop most of them (a sparse
#: matrix of many classes would look empty), so blocks of cells are drawn as their largest.
MAX_IMAGE_CELLS = 250

#: Longest tick label, in characters; a longer class name is cut, ending in "…".
_TICK_CHARS = 14


def _cell_text(value: float, integer: bool, normalize: str | None) -> str:
    if math.isnan(value):
        return "-"
    if integer:
        return f"{int(value):d}"
    if normalize is not None:
        return f"{value:.2f}"
    return f"{value:.4g}"


def _annotate(ax: Axes, m: np.ndarray, vmax: float, integer: bool, normalize: str | None) -> None:
    """Write each cell's number in it, white on the dark cells."""
    k = m.shape[0]
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


def _block_maxima(m: np.ndarray) -> tuple[np.ndarray, int]:
    """``m`` in blocks of b x b cells, each its largest (NaN ignored), and b.

    b is the smallest block that leaves at most :data:`MAX_IMAGE_CELLS` blocks a side (1:
    ``m`` itself); the last blocks are padded with NaN.
    """
    k = m.shape[0]
    b = math.ceil(k / MAX_IMAGE_CELLS)
    if b == 1:
        return m, 1
    n = math.ceil(k / b)
    padded = np.full((n * b, n * b), np.nan)
    padded[:k, :k] = m
    # fmax ignores NaN (NaN only where a whole block is): no warning for an empty block
    return np.fmax.reduce(padded.reshape(n, b, n, b), axis=(1, 3)), b


def _tick_text(name: str) -> str:
    return name if len(name) <= _TICK_CHARS else name[: _TICK_CHARS - 1] + "…"


def _class_ticks(ax: Axes, classes: tuple[str, ...]) -> None:
    """Label the classes on both axes so that no two labels run together.

    At most :data:`MAX_TICK_LABELS` per axis (every n-th class beyond). The column labels
    stay horizontal where the longest fits in a column's width (estimated from the Axes'
    width and the font size), and are turned upright otherwise: turned labels are a line
    high across, which the columns of at most that many labels leave room for.
    """
    k = len(classes)
    step = max(1, math.ceil(k / MAX_TICK_LABELS))
    at = list(range(0, k, step))
    names = [_tick_text(classes[i]) for i in at]
    ax.set_xticks(at, names, fontsize="small")
    ax.set_yticks(at, names, fontsize="small")
    size = ax.get_xticklabels()[0].get_fontproperties().get_size_in_points() if at else 10.0
    column = ax.bbox.width * 72.0 / ax.figure.dpi * step / k  # in points
    # about 0.6 em a character, with room to spare for the layout shrinking the Axes
    if max((len(n) for n in names), default=0) * 0.6 * size > 0.7 * column:
        ax.tick_params(axis="x", labelrotation=90)


@fill_doc()
def confusion_matrix_heatmap(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    normalize: str | None = None,
    sample_weight: Any = None,
    colorbar: bool = True,
    annotate: bool | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Heat map of the confusion matrix, the cells annotated with their counts or proportions.

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
    annotate : bool, optional
        Write each cell's number in it; default only up to ``ANNOTATE_MAX_K`` = 20 classes
        (more cells are too small to read: the colours alone show the matrix).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: one image and, when annotated, K x K cell texts (``"-"`` for an
        undefined proportion). Beyond ``MAX_TICK_LABELS`` = 20 classes, every n-th class is
        labelled on the axes; names longer than 14 characters are cut, and the column
        labels are turned upright when the longest would not fit in a column. Beyond
        ``MAX_IMAGE_CELLS`` = 250 classes, the image shows blocks of b x b cells, each
        coloured by its largest cell (so that no non-zero cell vanishes in the resampling of
        the image to the screen), as the title says.

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
    shown, block = _block_maxima(m)
    side = shown.shape[0] * block - 0.5
    image = ax.imshow(
        shown,
        cmap="Blues",
        vmin=0.0,
        vmax=vmax,
        interpolation="nearest",
        extent=(-0.5, side, side, -0.5),  # the axes count classes, whatever the block
    )
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    annotated = k <= ANNOTATE_MAX_K if annotate is None else check_flag(annotate, "annotate")
    if annotated:
        _annotate(ax, m, vmax, integer, normalize)
    _class_ticks(ax, data.classes)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    what = {
        None: "counts" if integer else "weighted counts",
        "true": "proportions of each true class",
        "pred": "proportions of each predicted class",
        "all": "proportions of all rows",
    }[normalize]
    ax.set_title(
        f"Confusion matrix ({what})"
        + (f"\neach pixel: the largest of {block} x {block} cells" if block > 1 else "")
    )
    if check_flag(colorbar, "colorbar"):
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax
