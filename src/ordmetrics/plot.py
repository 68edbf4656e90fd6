"""Matplotlib displays of the ordmetrics results: retention curves, reliability diagrams, score
distributions and confusion matrices.

The public entry point; the implementation lives in :mod:`ordmetrics.report.plot`.
"""

from ordmetrics.report.plot import (
    CdfPlotData,
    ConfusionMatrixData,
    CorpDiagramData,
    ReliabilityDiagramData,
    RetentionCurvesData,
    ScoreDistributionsData,
    cdf_plot,
    cdf_plot_data,
    confusion_matrix_heatmap,
    confusion_matrix_heatmap_data,
    corp_reliability_diagram,
    corp_reliability_diagram_data,
    plot_retention,
    reliability_diagram,
    reliability_diagram_data,
    retention_curves,
    retention_curves_data,
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
