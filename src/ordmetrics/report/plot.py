"""Matplotlib displays of the ordmetrics results: retention curves, reliability diagrams, score
distributions and confusion matrices.

Every display comes in two parts. A *data* function (``retention_curves_data``,
``reliability_diagram_data``, ``score_distributions_data``, ``confusion_matrix_heatmap_data``)
calls the core of the library (:func:`~ordmetrics.retention_curve`,
:func:`~ordmetrics.reliability` with :func:`~ordmetrics.ece` and its siblings, the scoring rules
with ``reduction="none"``, :func:`~ordmetrics.confusion_matrix`) and returns exactly the numbers
that are drawn; it needs NumPy only. The *drawing* function of the same name without ``_data``
calls it and draws the result on a matplotlib Axes: the one passed as ``ax=``, or the Axes of a
new figure. Every drawing function returns that Axes. Nothing here computes a metric itself.

matplotlib is an optional dependency (``pip install ordmetrics[plot]``); it is imported only when
something is drawn, and a missing matplotlib raises an :class:`ImportError` that names the extra.

The public entry point is :mod:`ordmetrics.plot`. The figures live by family in
:mod:`ordmetrics.report.plot_retention` (retention curves), ``plot_calibration`` (reliability and
CORP diagrams), ``plot_scores`` (score distributions, predicted CDFs) and ``plot_confusion``
(confusion matrices); this module gathers them.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> from ordmetrics import plot
>>> y = [0, 1, 2, 2, 1, 0]
>>> P = [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7],
...      [0.3, 0.4, 0.3], [0.5, 0.3, 0.2], [0.6, 0.3, 0.1]]
>>> ax = plot.reliability_diagram(y, P, n_bins=5)
>>> ax.get_xlabel()
'mean confidence'
>>> plt.close("all")
"""

from __future__ import annotations

from ordmetrics.report.plot_calibration import (
    CorpDiagramData,
    ReliabilityDiagramData,
    corp_reliability_diagram,
    corp_reliability_diagram_data,
    reliability_diagram,
    reliability_diagram_data,
)
from ordmetrics.report.plot_confusion import (
    ConfusionMatrixData,
    confusion_matrix_heatmap,
    confusion_matrix_heatmap_data,
)
from ordmetrics.report.plot_retention import DEFAULT_RULES as DEFAULT_RULES
from ordmetrics.report.plot_retention import (
    RetentionCurvesData,
    plot_retention,
    retention_curves,
    retention_curves_data,
)
from ordmetrics.report.plot_scores import CDF_PLOT_DEFAULT_ROWS as CDF_PLOT_DEFAULT_ROWS
from ordmetrics.report.plot_scores import (
    CdfPlotData,
    ScoreDistributionsData,
    cdf_plot,
    cdf_plot_data,
    score_distributions,
    score_distributions_data,
)

__all__ = [
    "CdfPlotData",
    "ConfusionMatrixData",
    "CorpDiagramData",
    "ReliabilityDiagramData",
    "RetentionCurvesData",
    "ScoreDistributionsData",
    "cdf_plot",
    "cdf_plot_data",
    "confusion_matrix_heatmap",
    "confusion_matrix_heatmap_data",
    "corp_reliability_diagram",
    "corp_reliability_diagram_data",
    "plot_retention",
    "reliability_diagram",
    "reliability_diagram_data",
    "retention_curves",
    "retention_curves_data",
    "score_distributions",
    "score_distributions_data",
]
