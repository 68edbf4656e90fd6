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

The names are imported on first use: ``import ordmetrics`` itself imports neither NumPy nor
numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ordmetrics._core.loading import add_loader as _add_loader
from ordmetrics._core.loading import complete as _complete
from ordmetrics._version import __version__

if TYPE_CHECKING:
    from ordmetrics._core.array_api import device_results
    from ordmetrics._core.registry import (
        MetricSpec,
        get_metric,
        list_metrics,
    )
    from ordmetrics._core.warnings import UndefinedMetricWarning
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

#: The public names and the module each comes from. The package imports them on first use
#: (PEP 562), so that ``import ordmetrics`` and ``ordmetrics --help`` start at once; the first
#: public name used, or the first lookup in the registry from any module, imports every module
#: of :data:`_MODULES` (once), so the registry is complete from then on, as after an eager
#: import.
_EXPORTS: dict[str, str] = {
    "device_results": "ordmetrics._core.array_api",
    "MetricSpec": "ordmetrics._core.registry",
    "get_metric": "ordmetrics._core.registry",
    "list_metrics": "ordmetrics._core.registry",
    "UndefinedMetricWarning": "ordmetrics._core.warnings",
    "BootstrapResult": "ordmetrics.evaluation",
    "ComparisonResult": "ordmetrics.evaluation",
    "EpochSelection": "ordmetrics.evaluation",
    "RetentionCurve": "ordmetrics.evaluation",
    "WorstPredictions": "ordmetrics.evaluation",
    "aursc": "ordmetrics.evaluation",
    "bootstrap": "ordmetrics.evaluation",
    "compare": "ordmetrics.evaluation",
    "retention_curve": "ordmetrics.evaluation",
    "select_epoch": "ordmetrics.evaluation",
    "trajectory_correlation": "ordmetrics.evaluation",
    "worst_predictions": "ordmetrics.evaluation",
    "DEFAULT_METRICS": "ordmetrics.evaluation.metric_set",
    "MetricEntry": "ordmetrics.evaluation.metric_set",
    "MetricSet": "ordmetrics.evaluation.metric_set",
    "metric_set": "ordmetrics.evaluation.metric_set",
    "evaluate_file": "ordmetrics.io.files",
    "evaluate": "ordmetrics.io.frames",
    "accuracy": "ordmetrics.metrics.agreement",
    "amae": "ordmetrics.metrics.agreement",
    "confusion_matrix": "ordmetrics.metrics.agreement",
    "expected_cost": "ordmetrics.metrics.agreement",
    "kappa": "ordmetrics.metrics.agreement",
    "macro_f1": "ordmetrics.metrics.agreement",
    "macro_precision": "ordmetrics.metrics.agreement",
    "macro_recall": "ordmetrics.metrics.agreement",
    "mae": "ordmetrics.metrics.agreement",
    "mmae": "ordmetrics.metrics.agreement",
    "qwk": "ordmetrics.metrics.agreement",
    "within_k_accuracy": "ordmetrics.metrics.agreement",
    "ReliabilityDiagram": "ordmetrics.metrics.calibration",
    "ScoreDecomposition": "ordmetrics.metrics.calibration",
    "brier_decomposition": "ordmetrics.metrics.calibration",
    "classwise_ece": "ordmetrics.metrics.calibration",
    "cumulative_ece": "ordmetrics.metrics.calibration",
    "ece": "ordmetrics.metrics.calibration",
    "reliability": "ordmetrics.metrics.calibration",
    "rps_decomposition": "ordmetrics.metrics.calibration",
    "skill_score": "ordmetrics.metrics.calibration",
    "CorpCurve": "ordmetrics.metrics.corp",
    "CorpDecomposition": "ordmetrics.metrics.corp",
    "CorpReliability": "ordmetrics.metrics.corp",
    "corp_decomposition": "ordmetrics.metrics.corp",
    "corp_reliability": "ordmetrics.metrics.corp",
    "decide": "ordmetrics.metrics.decisions",
    "c_index": "ordmetrics.metrics.ranking",
    "kendall_tau": "ordmetrics.metrics.ranking",
    "spearman": "ordmetrics.metrics.ranking",
    "brier": "ordmetrics.metrics.scoring",
    "cdf_l1": "ordmetrics.metrics.scoring",
    "log_loss": "ordmetrics.metrics.scoring",
    "pbs": "ordmetrics.metrics.scoring",
    "pll": "ordmetrics.metrics.scoring",
    "pseudospherical": "ordmetrics.metrics.scoring",
    "rps": "ordmetrics.metrics.scoring",
    "sa_rps": "ordmetrics.metrics.scoring",
    "spherical": "ordmetrics.metrics.scoring",
}

#: Every module of the public API, in the order of registration.
_MODULES: tuple[str, ...] = (
    "ordmetrics.metrics.scoring",
    "ordmetrics._core.array_api",
    "ordmetrics._core.registry",
    "ordmetrics._core.warnings",
    "ordmetrics.evaluation",
    "ordmetrics.evaluation.metric_set",
    "ordmetrics.io.files",
    "ordmetrics.io.frames",
    "ordmetrics.metrics.agreement",
    "ordmetrics.metrics.calibration",
    "ordmetrics.metrics.corp",
    "ordmetrics.metrics.decisions",
    "ordmetrics.metrics.ranking",
)


def _load_all() -> None:
    """Import every module of the public API (run once, by the registry's :func:`complete`)."""
    for module in _MODULES:
        importlib.import_module(module)


_add_loader(_load_all)  # run by the first public name used or lookup in the registry


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module 'ordmetrics' has no attribute {name!r}")
    _complete()  # every module, once (another thread waits until they are imported)
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in globals():  # a subpackage imported meanwhile (ordmetrics.metrics, ...)
        return globals()[name]
    raise AttributeError(f"module 'ordmetrics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
