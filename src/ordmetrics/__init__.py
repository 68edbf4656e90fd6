"""ordmetrics: evaluation metrics for probabilistic ordinal classifiers.

Decisions and hard-label agreement: :func:`decide`, :func:`confusion_matrix`, :func:`kappa`,
:func:`qwk`, :func:`expected_cost`, :func:`mae`, :func:`amae`, :func:`mmae`, :func:`accuracy`,
:func:`within_k_accuracy`, :func:`macro_f1`, :func:`macro_precision`, :func:`macro_recall`.
Scoring rules (lower is better): :func:`rps`, :func:`sa_rps`, :func:`brier`, :func:`log_loss`,
:func:`pbs`, :func:`pll`, :func:`spherical`, :func:`pseudospherical`, :func:`cdf_l1`.
Ranking metrics (higher is better): :func:`c_index`, :func:`spearman`,
:func:`kendall_tau`. Calibration: :func:`ece`, :func:`classwise_ece`, :func:`cumulative_ece`,
:func:`reliability`, :func:`brier_decomposition`, :func:`rps_decomposition`,
:func:`skill_score`; CORP (isotonic) reliability and decompositions:
:func:`corp_reliability`, :func:`corp_decomposition`. Evaluation methods:
:func:`retention_curve`, :func:`aursc`,
:func:`bootstrap`, :func:`compare`, :func:`worst_predictions`, :func:`select_epoch`,
:func:`trajectory_correlation`. Every metric is registered with its direction, range and
properties: see :func:`get_metric` and :func:`list_metrics`. Data frames (pandas, polars,
pyarrow): :func:`evaluate`, :func:`metric_set`. Submodules imported on demand:
``ordmetrics.plot`` (matplotlib), ``ordmetrics.sklearn`` (scorers), ``ordmetrics.datasets``,
``ordmetrics.stream`` (fixed-size accumulators), ``ordmetrics.files`` (files larger than
memory, pyarrow), ``ordmetrics.dask`` (Dask data frames), ``ordmetrics.torch`` (losses),
``ordmetrics.callbacks`` (Keras and Lightning).
"""

from ordmetrics._core.array_api import device_results
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics._version import __version__
from ordmetrics.evaluation import (
    BootstrapResult,
    ComparisonResult,
    EpochSelection,
    RetentionCurve,
    WorstPredictions,
    aursc,
    bootstrap,
    compare,
    retention_curve,
    select_epoch,
    trajectory_correlation,
    worst_predictions,
)
from ordmetrics.evaluation.metric_set import DEFAULT_METRICS, MetricEntry, MetricSet, metric_set
from ordmetrics.io.files import evaluate_file
from ordmetrics.io.frames import evaluate
from ordmetrics.metrics import scoring as _scoring  # noqa: F401  (registers the scoring rules first)
from ordmetrics.metrics.agreement import (
    accuracy,
    amae,
    confusion_matrix,
    expected_cost,
    kappa,
    macro_f1,
    macro_precision,
    macro_recall,
    mae,
    mmae,
    qwk,
    within_k_accuracy,
)
from ordmetrics.metrics.calibration import (
    ReliabilityDiagram,
    ScoreDecomposition,
    brier_decomposition,
    classwise_ece,
    cumulative_ece,
    ece,
    reliability,
    rps_decomposition,
    skill_score,
)
from ordmetrics.metrics.corp import (
    CorpCurve,
    CorpDecomposition,
    CorpReliability,
    corp_decomposition,
    corp_reliability,
)
from ordmetrics.metrics.decisions import decide
from ordmetrics.metrics.ranking import (
    c_index,
    kendall_tau,
    spearman,
)
from ordmetrics.metrics.scoring import (
    brier,
    cdf_l1,
    log_loss,
    pbs,
    pll,
    pseudospherical,
    rps,
    sa_rps,
    spherical,
)

__all__ = [
    "DEFAULT_METRICS",
    "BootstrapResult",
    "ComparisonResult",
    "CorpCurve",
    "CorpDecomposition",
    "CorpReliability",
    "EpochSelection",
    "MetricEntry",
    "MetricSet",
    "MetricSpec",
    "ReliabilityDiagram",
    "RetentionCurve",
    "ScoreDecomposition",
    "UndefinedMetricWarning",
    "WorstPredictions",
    "__version__",
    "accuracy",
    "amae",
    "aursc",
    "bootstrap",
    "brier",
    "brier_decomposition",
    "c_index",
    "cdf_l1",
    "classwise_ece",
    "compare",
    "confusion_matrix",
    "corp_decomposition",
    "corp_reliability",
    "cumulative_ece",
    "decide",
    "device_results",
    "ece",
    "evaluate",
    "evaluate_file",
    "expected_cost",
    "get_metric",
    "kappa",
    "kendall_tau",
    "list_metrics",
    "log_loss",
    "macro_f1",
    "macro_precision",
    "macro_recall",
    "mae",
    "metric_set",
    "mmae",
    "pbs",
    "pll",
    "pseudospherical",
    "qwk",
    "reliability",
    "retention_curve",
    "rps",
    "rps_decomposition",
    "sa_rps",
    "select_epoch",
    "skill_score",
    "spearman",
    "spherical",
    "trajectory_correlation",
    "within_k_accuracy",
    "worst_predictions",
]
