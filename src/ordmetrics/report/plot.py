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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import (
    check_flag,
    check_option,
    prepare_hard,
    type_name,
)
from ordmetrics.evaluation.retention import (
    RetentionCurve,
    per_sample_scores,
    prepare,
    retention_curve,
)
from ordmetrics.metrics.agreement import confusion_matrix
from ordmetrics.metrics.calibration import (
    VIEWS,
    ReliabilityDiagram,
    classwise_ece,
    cumulative_ece,
    ece,
    reliability,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ConfusionMatrixData",
    "ReliabilityDiagramData",
    "RetentionCurvesData",
    "ScoreDistributionsData",
    "confusion_matrix_heatmap",
    "confusion_matrix_heatmap_data",
    "plot_retention",
    "reliability_diagram",
    "reliability_diagram_data",
    "retention_curves",
    "retention_curves_data",
    "score_distributions",
    "score_distributions_data",
]

#: The scoring rules compared by :func:`retention_curves` unless ``by`` says otherwise.
DEFAULT_RULES: tuple[str, ...] = ("brier", "log_loss", "rps", "sa_rps")

_KINDS = ("box", "violin")
_ORACLE_STYLE: dict[str, Any] = {"color": "black", "linestyle": "--", "linewidth": 1.0}
_RANDOM_STYLE: dict[str, Any] = {"color": "grey", "linestyle": "--", "linewidth": 1.0}


# --------------------------------------------------------------------------------------------
# matplotlib, imported lazily
# --------------------------------------------------------------------------------------------


def _pyplot(func: str) -> Any:
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f"ordmetrics.plot.{func} needs matplotlib, which is not installed; install it "
            "with `pip install ordmetrics[plot]` (or `pip install matplotlib`)."
        ) from exc
    return plt


def _axes(func: str, ax: Any) -> Axes:
    """The Axes to draw on: ``ax``, or the Axes of a new figure."""
    plt = _pyplot(func)
    if ax is None:
        _, ax = plt.subplots()
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(
            f"ax must be a matplotlib Axes (e.g. from plt.subplots()) or None for a new figure; "
            f"got {type_name(ax)}."
        )
    return ax


def _class_names(labels: Sequence[Any] | None, k: int) -> tuple[str, ...]:
    return tuple(str(v) for v in (labels if labels is not None else range(k)))


def _better(name: str) -> str:
    spec = get_metric(name)
    return "higher is better" if spec.direction == "maximize" else "lower is better"


# --------------------------------------------------------------------------------------------
# Retention curves
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RetentionCurvesData:
    """The retention curves of several per-sample scores on the same rows, with bootstrap bands.

    Attributes
    ----------
    curves : tuple of RetentionCurve
        One :func:`~ordmetrics.retention_curve` per score in ``by`` (same fractions, metric,
        decision and baselines), in the order of ``by``.
    bands : tuple of (ndarray, ndarray) or None
        Per curve, the lower and upper pointwise percentile band of its values over the
        bootstrap resamples (arrays of shape (M,), one entry per fraction); None without
        resamples.
    resampled : ndarray of shape (n_curves, n_resamples, M) or None
        The values of every curve on every resample; None without resamples.
    confidence_level : float
        The coverage of the bands (0.95: the 2.5 and 97.5 percentiles).
    n_resamples : int
        Number of bootstrap resamples (0: no bands).
    """

    curves: tuple[RetentionCurve, ...]
    bands: tuple[tuple[np.ndarray, np.ndarray], ...] | None
    resampled: np.ndarray | None
    confidence_level: float
    n_resamples: int

    def __repr__(self) -> str:
        rules = ", ".join(f"{c.by}: {c.area:.4g}" for c in self.curves)
        metric = self.curves[0].metric if self.curves else "?"
        return (
            f"RetentionCurvesData(metric={metric!r}, AURSC {{{rules}}}, "
            f"n_resamples={self.n_resamples})"
        )


def _as_rules(by: Any) -> list[Any]:
    """``by`` as a list of per-sample scores (one name, callable or score array is one)."""
    if isinstance(by, str | MetricSpec | np.ndarray) or callable(by):
        return [by]
    try:
        rules = list(by)
    except TypeError:
        raise TypeError(
            f"by must be a scoring rule name, a callable, an array of per-row scores, or a "
            f"sequence of these; got {type_name(by)} {by!r}."
        ) from None
    if not rules:
        raise ValueError(
            'by is empty; pass at least one per-sample score, e.g. by=("rps", "brier").'
        )
    return rules


def _check_resamples(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(
            f"bootstrap must be a non-negative integer (the number of resamples of the bands, "
            f"0 for none); got {type_name(n)} {n!r}."
        )
    if n < 0:
        raise ValueError(f"bootstrap must be a non-negative integer, e.g. 200; got {int(n)}.")
    return int(n)


def _check_confidence(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float | np.number):
        raise TypeError(
            f"confidence_level must be a number in (0, 1), e.g. 0.95; got {type_name(level)} "
            f"{level!r}."
        )
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), e.g. 0.95; got {level!r}.")
    return float(level)


@fill_doc()
def retention_curves_data(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = DEFAULT_RULES,
    metric: str = "qwk",
    labels: Any = None,
    sample_weight: Any = None,
    bootstrap: int = 0,
    random_state: int | np.random.Generator | None = None,
    metric_kwargs: Mapping[str, Any] | None = None,
    fractions: Any = None,
    decision: Any = "argmax",
    confidence_level: float = 0.95,
) -> RetentionCurvesData:
    """The data of :func:`retention_curves`: one retention curve per score, and their bands.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    by : str, callable, array-like or sequence of these, default ("brier", "log_loss", "rps", \
"sa_rps")
        The per-sample scores that rank the rows, one curve each: anything that the ``by`` of
        :func:`~ordmetrics.retention_curve` accepts, or a sequence of them. A single string,
        callable or NumPy array is one score.
    metric : str, default "qwk"
        The agreement metric computed on the retained rows (see
        :func:`~ordmetrics.retention_curve`).
    %(labels)s
    %(sample_weight)s
        Both hold for the curves, not for the bootstrap bands: these resample the N rows
        as given, each keeping its weight (see Notes).
    bootstrap : int, default 0
        Number of bootstrap resamples of the bands; 0 draws none.
    random_state : int, numpy.random.Generator or None, default None
        Seed of the bootstrap resamples (an integer makes the bands reproducible).
    metric_kwargs : dict, optional
        Options of ``metric`` (e.g. ``{"costs": "absolute"}`` for ``"expected_cost"``).
    fractions : array-like of shape (M,), optional
        Retained fractions, strictly decreasing, in (0, 1]; default 1.000, 0.975, ..., 0.500.
    decision : str or array-like, default "argmax"
        How probabilities become classes (see :func:`~ordmetrics.retention_curve`).
    confidence_level : float, default 0.95
        Coverage of the pointwise percentile bands.

    Returns
    -------
    RetentionCurvesData
        ``curves`` (one :class:`~ordmetrics.RetentionCurve` per score), ``bands``,
        ``resampled``, ``confidence_level`` and ``n_resamples``.

    Notes
    -----
    Each curve is ``retention_curve(y_true, y_proba, by=rule, ...)`` with the core's defaults
    for the baselines (``n_random=100``, ``random_state=0``): the oracle and random-removal
    curves do not depend on the score, so every curve carries the same ones.

    **Bootstrap bands.** Resample b draws row counts c_b ~ Multinomial(N, (1/N, ..., 1/N))
    from ``numpy.random.default_rng(random_state)`` (one draw per resample, the resamples in
    order) and recomputes every curve by :func:`~ordmetrics.retention_curve` with the
    frequency weights ``sample_weight * c_b``, the same rows resampled for every score. The
    retained fractions are fractions of the resample's total weight. The band of a curve at
    fraction f is the interval between the (1 - ``confidence_level``) / 2 and
    (1 + ``confidence_level``) / 2 quantiles (NumPy's linear interpolation) of its resampled
    values at f, leaving out resamples where the metric is undefined. The bands are pointwise:
    each covers the value at one fraction, not the whole curve at once.

    Examples
    --------
    >>> from ordmetrics.plot import retention_curves_data
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]]
    >>> data = retention_curves_data(y, P, by=["rps", "brier"], metric="mae",
    ...                              fractions=[1.0, 0.75, 0.5])
    >>> [(c.by, c.area) for c in data.curves]
    [('rps', 0.125), ('brier', 0.125)]
    >>> data.curves[0].values, data.curves[0].oracle
    (array([0.5, 0. , 0. ]), array([0.5, 0. , 0. ]))
    >>> data.bands is None
    True
    """
    rules = _as_rules(by)
    n_resamples = _check_resamples(bootstrap)
    level = _check_confidence(confidence_level)
    common: dict[str, Any] = {
        "metric": metric,
        "fractions": fractions,
        "decision": decision,
        "labels": labels,
        "metric_kwargs": metric_kwargs,
    }
    curves = tuple(
        retention_curve(y_true, y_proba, by=rule, sample_weight=sample_weight, **common)
        for rule in rules
    )
    if n_resamples == 0:
        return RetentionCurvesData(curves, None, None, level, 0)

    n = prepare(y_true, y_proba, labels, sample_weight).y_true.size
    base = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    pvals = np.full(n, 1.0 / n)
    m = curves[0].fractions.size
    resampled = np.empty((len(rules), n_resamples, m))
    for b in range(n_resamples):  # one loop over the resamples, never over the rows
        weight = base * rng.multinomial(n, pvals)
        for j, rule in enumerate(rules):
            resampled[j, b] = retention_curve(
                y_true, y_proba, by=rule, sample_weight=weight, n_random=0, **common
            ).values
    alpha = (1.0 - level) / 2.0
    # fractions where every resample is NaN get NaN bands; nanquantile would warn there, and
    # the process-wide warning filters are not ours to change (not thread-safe)
    all_nan = np.asarray(np.isnan(resampled).all(axis=1), dtype=bool)
    filled = np.where(all_nan[:, None, :], 0.0, resampled)
    low, high = np.nanquantile(filled, [alpha, 1.0 - alpha], axis=1)
    low[all_nan] = np.nan
    high[all_nan] = np.nan
    bands = tuple((low[j], high[j]) for j in range(len(rules)))
    return RetentionCurvesData(curves, bands, resampled, level, n_resamples)


def plot_retention(
    curves: RetentionCurvesData | RetentionCurve | Sequence[RetentionCurve],
    *,
    bands: Sequence[tuple[Any, Any] | None] | None = None,
    oracle: bool = True,
    random: bool = True,
    names: Sequence[str] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw precomputed retention curves on one Axes, with their AURSC in the legend.

    Parameters
    ----------
    curves : RetentionCurvesData, RetentionCurve or sequence of RetentionCurve
        The curves (from :func:`retention_curves_data` or :func:`~ordmetrics.retention_curve`),
        all of the same metric. A :class:`RetentionCurvesData` brings its bootstrap bands.
    bands : sequence of (low, high) or None, optional
        Per curve, the lower and upper band to shade (arrays with one entry per fraction), or
        None for no band; overrides the bands of a :class:`RetentionCurvesData`.
    oracle : bool, default True
        Draw the oracle curve (black, dashed) where the curves have one (metrics that are
        means of a per-row loss).
    random : bool, default True
        Draw the random-removal baseline (grey, dashed) where the curves have one.
    names : sequence of str, optional
        Legend names of the curves; default the names of their scores (``curve.by``).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on. The x axis is the retained fraction, decreasing from left to right
        (all rows at the left); the legend gives each curve's AURSC.

    Notes
    -----
    Each distinct baseline is drawn once (curves of the same rows share theirs).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics import retention_curve
    >>> from ordmetrics.plot import plot_retention
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]]
    >>> curve = retention_curve(y, P, metric="mae", fractions=[1.0, 0.75, 0.5])
    >>> ax = plot_retention([curve])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['rps (AURSC 0.1250)', 'oracle', 'random removal']
    >>> [float(x) for x in ax.get_xlim()]  # most rows kept at the left
    [1.0125, 0.4875]
    >>> plt.close("all")
    """
    data_bands: Sequence[tuple[Any, Any] | None] | None = None
    level: float | None = None
    n_resamples = 0
    if isinstance(curves, RetentionCurvesData):
        data_bands, level, n_resamples = curves.bands, curves.confidence_level, curves.n_resamples
        seq: list[RetentionCurve] = list(curves.curves)
    elif isinstance(curves, RetentionCurve):
        seq = [curves]
    else:
        seq = list(curves)
    if not seq or not all(isinstance(c, RetentionCurve) for c in seq):
        raise TypeError(
            "curves must be a RetentionCurvesData, a RetentionCurve or a non-empty sequence of "
            "RetentionCurve (from retention_curve or retention_curves_data)."
        )
    metrics = sorted({c.metric for c in seq})
    if len(metrics) > 1:
        raise ValueError(
            f"curves of different metrics ({', '.join(metrics)}) do not share a y axis; draw "
            "each metric on its own Axes."
        )
    if bands is None:
        bands = data_bands
    else:
        level = None  # bands of the caller's own making
    if bands is not None and len(bands) != len(seq):
        raise ValueError(f"bands has {len(bands)} entries for {len(seq)} curves; give one each.")
    if names is None:
        names = [c.by for c in seq]
    elif isinstance(names, str) or len(names) != len(seq):
        raise ValueError("names must be a sequence of one legend name per curve.")

    ax = _axes("plot_retention", ax)
    for j, (curve, name) in enumerate(zip(seq, names, strict=True)):
        (line,) = ax.plot(
            curve.fractions,
            curve.values,
            marker="o",
            markersize=3,
            linewidth=1.6,
            label=f"{name} (AURSC {curve.area:.4f})",
        )
        band = None if bands is None else bands[j]
        if band is not None:
            low, high = (np.asarray(v, dtype=np.float64) for v in band)
            ax.fill_between(
                curve.fractions, low, high, color=line.get_color(), alpha=0.18, linewidth=0
            )
    drawn: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {"oracle": [], "random removal": []}
    oracle, random = check_flag(oracle, "oracle"), check_flag(random, "random")
    for curve in seq:
        for label, values, wanted, style in (
            ("oracle", curve.oracle, oracle, _ORACLE_STYLE),
            ("random removal", curve.random, random, _RANDOM_STYLE),
        ):
            if not wanted or values is None:
                continue
            if any(
                np.array_equal(f, curve.fractions) and np.array_equal(v, values, equal_nan=True)
                for f, v in drawn[label]
            ):
                continue
            ax.plot(
                curve.fractions,
                values,
                label=label if not drawn[label] else "_nolegend_",
                **style,
            )
            drawn[label].append((curve.fractions, values))
    if bands is not None and any(b is not None for b in bands):
        from matplotlib.patches import Patch

        what = (
            f"{level:.0%} bootstrap band ({n_resamples} resamples)" if level is not None else "band"
        )
        handles, texts = ax.get_legend_handles_labels()
        handles.append(Patch(color="grey", alpha=0.3))
        texts.append(what)
        ax.legend(handles, texts, fontsize="small")
    else:
        ax.legend(fontsize="small")

    lo = min(float(c.fractions.min()) for c in seq)
    hi = max(float(c.fractions.max()) for c in seq)
    pad = 0.025 * (hi - lo) if hi > lo else 0.05
    ax.set_xlim(hi + pad, lo - pad)  # most rows kept at the left
    metric = metrics[0]
    ax.set_xlabel("retained fraction")
    ax.set_ylabel(f"{metric} on the retained rows ({_better(metric)})")
    ax.set_title(f"Retention curves: {metric}, worst-scored rows removed first")
    ax.grid(True, alpha=0.3)
    return ax


@fill_doc()
def retention_curves(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = DEFAULT_RULES,
    metric: str = "qwk",
    labels: Any = None,
    sample_weight: Any = None,
    bootstrap: int = 0,
    random_state: int | np.random.Generator | None = None,
    oracle: bool = True,
    random: bool = True,
    metric_kwargs: Mapping[str, Any] | None = None,
    fractions: Any = None,
    decision: Any = "argmax",
    confidence_level: float = 0.95,
    ax: Axes | None = None,
) -> Axes:
    """Retention curves of several per-sample scores on one Axes, AURSC in the legend.

    Computes :func:`retention_curves_data` and draws it with :func:`plot_retention`: the rows
    are ranked by each score (``by``), the worst removed first, and ``metric`` of the rows
    kept is drawn against the retained fraction (1.0 at the left, 0.5 at the right by
    default). The oracle (black, dashed) and random-removal (grey, dashed) baselines come
    from :func:`~ordmetrics.retention_curve`; optional shaded bands are pointwise bootstrap
    percentile bands.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    by : str, callable, array-like or sequence of these, default ("brier", "log_loss", "rps", \
"sa_rps")
        The per-sample scores compared, one curve each.
    metric : str, default "qwk"
        The agreement metric computed on the retained rows.
    %(labels)s
    %(sample_weight)s
        Both hold for the curves, not for the bootstrap bands: these resample the N rows
        as given, each keeping its weight (see :func:`retention_curves_data`).
    bootstrap : int, default 0
        Number of bootstrap resamples for the bands (0: no bands). See
        :func:`retention_curves_data` for how they are drawn.
    random_state : int, numpy.random.Generator or None, default None
        Seed of the bootstrap resamples.
    oracle, random : bool, default True
        Draw the oracle and random-removal baselines where the metric has them.
    metric_kwargs : dict, optional
        Options of ``metric``.
    fractions : array-like, optional
        Retained fractions, strictly decreasing, in (0, 1]; default 1.000, 0.975, ..., 0.500.
    decision : str or array-like, default "argmax"
        How probabilities become classes.
    confidence_level : float, default 0.95
        Coverage of the bands.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    See Also
    --------
    retention_curves_data : The numbers drawn here.
    plot_retention : Draw curves computed beforehand.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics.plot import retention_curves
    >>> y = [0, 1, 2, 2, 1, 0, 2, 1]
    >>> P = [[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1],
    ...      [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.0, 0.3, 0.7], [0.6, 0.3, 0.1]]
    >>> ax = retention_curves(y, P, by=["rps", "log_loss"], metric="mae",
    ...                       bootstrap=20, random_state=0)
    >>> len(ax.lines)  # two curves, the oracle and the random-removal line
    4
    >>> ax.get_legend().get_texts()[0].get_text()
    'rps (AURSC 0.1756)'
    >>> plt.close("all")
    """
    _pyplot("retention_curves")  # fail before computing anything
    data = retention_curves_data(
        y_true,
        y_proba,
        by=by,
        metric=metric,
        labels=labels,
        sample_weight=sample_weight,
        bootstrap=bootstrap,
        random_state=random_state,
        metric_kwargs=metric_kwargs,
        fractions=fractions,
        decision=decision,
        confidence_level=confidence_level,
    )
    return plot_retention(data, oracle=oracle, random=random, ax=ax)


# --------------------------------------------------------------------------------------------
# Reliability diagram
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ReliabilityDiagramData:
    """The data of :func:`reliability_diagram`.

    Attributes
    ----------
    diagram : ReliabilityDiagram
        :func:`~ordmetrics.reliability` of the inputs: per event and bin the mean confidence,
        observed frequency and weight.
    ece : float
        The expected calibration error of the view: :func:`~ordmetrics.ece` (top-label),
        :func:`~ordmetrics.classwise_ece` or :func:`~ordmetrics.cumulative_ece`.
    event_ece : ndarray of shape (n_events,)
        The binary ECE of each event (``diagram.ece``).
    """

    diagram: ReliabilityDiagram
    ece: float
    event_ece: np.ndarray

    def __repr__(self) -> str:
        d = self.diagram
        return (
            f"ReliabilityDiagramData(view={d.view!r}, n_bins={d.n_bins}, "
            f"strategy={d.strategy!r}, events={len(d.events)}, ece={self.ece:.4g})"
        )


_ECE_OF_VIEW = {"top_label": ece, "classwise": classwise_ece, "cumulative": cumulative_ece}
_ECE_NAME = {"top_label": "ECE", "classwise": "classwise ECE", "cumulative": "cumulative ECE"}


@fill_doc()
def reliability_diagram_data(
    y_true: Any,
    y_proba: Any,
    *,
    view: str = "top_label",
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
) -> ReliabilityDiagramData:
    """The data of :func:`reliability_diagram`: the binned events and the ECE of the view.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    view : {"top_label", "classwise", "cumulative"}, default "top_label"
        The events: the argmax class is correct (forecast: the top probability); y = k for
        every class (forecast p_k); y <= k for every threshold (forecast F_k).
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins of equal weight.
    %(labels)s
        They name the events.
    %(sample_weight)s

    Returns
    -------
    ReliabilityDiagramData
        ``diagram`` (the :class:`~ordmetrics.ReliabilityDiagram`), ``ece`` and ``event_ece``.

    Examples
    --------
    >>> from ordmetrics.plot import reliability_diagram_data
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> data = reliability_diagram_data(y, P, n_bins=2)
    >>> data.diagram.mean_confidence, data.diagram.observed_frequency
    (array([0.425, 0.85 ]), array([0.5, 0.5]))
    >>> round(data.ece, 10)
    0.2125
    """
    check_option(view, "view", VIEWS)
    options: dict[str, Any] = {
        "n_bins": n_bins,
        "strategy": strategy,
        "labels": labels,
        "sample_weight": sample_weight,
    }
    diagram = reliability(y_true, y_proba, view=view, **options)
    total = float(_ECE_OF_VIEW[view](y_true, y_proba, **options))
    event_ece = np.atleast_1d(np.asarray(diagram.ece, dtype=np.float64))
    return ReliabilityDiagramData(diagram, total, event_ece)


@fill_doc()
def reliability_diagram(
    y_true: Any,
    y_proba: Any,
    *,
    view: str = "top_label",
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    ax: Axes | None = None,
) -> Axes:
    """Reliability diagram: observed frequency against mean confidence per bin.

    Computes :func:`reliability_diagram_data` and draws, for each event of the ``view``, the
    bins' observed frequency o_b against their mean forecast f_b (a line through the
    non-empty bins, each marked by a point whose area is proportional to the bin's weight),
    and the diagonal of perfect calibration. The legend gives the ECE of each event, the
    title the ECE of the view.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    view : {"top_label", "classwise", "cumulative"}, default "top_label"
        One line for the top-label event, one per class (y = k) or one per threshold
        (y <= k).
    n_bins : int, default 15
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins of equal weight.
    %(labels)s
    %(sample_weight)s
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: 1 + n_events lines (the diagonal first) and one marker collection
        per event.

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    See Also
    --------
    reliability_diagram_data : The numbers drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics.plot import reliability_diagram
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> ax = reliability_diagram(y, P, n_bins=2)
    >>> ax.get_title()
    'Reliability diagram (top label), ECE = 0.2125'
    >>> ax = reliability_diagram(["a"] * 4, P, view="cumulative", n_bins=2, labels=["a", "b", "c"])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['perfect calibration', 'y <= a (ECE 0.5750)', 'y <= b (ECE 0.1625)']
    >>> plt.close("all")
    """
    _pyplot("reliability_diagram")
    data = reliability_diagram_data(
        y_true,
        y_proba,
        view=view,
        n_bins=n_bins,
        strategy=strategy,
        labels=labels,
        sample_weight=sample_weight,
    )
    ax = _axes("reliability_diagram", ax)
    d = data.diagram
    mean_f = np.atleast_2d(d.mean_confidence)
    mean_o = np.atleast_2d(d.observed_frequency)
    weight = np.atleast_2d(d.weight)
    n_events = len(d.events)
    ax.plot(
        [0, 1], [0, 1], color="grey", linestyle="--", linewidth=1.0, label="perfect calibration"
    )
    colors: list[Any]
    if view == "top_label":
        colors = ["C0"]
    else:
        import matplotlib as mpl

        cmap = mpl.colormaps["viridis"]
        colors = [cmap(0.9 * j / max(n_events - 1, 1)) for j in range(n_events)]
    total = d.total_weight if d.total_weight > 0 else 1.0
    for j, event in enumerate(d.events):
        keep = weight[j] > 0
        name = "top label" if view == "top_label" else event
        ax.plot(
            mean_f[j, keep],
            mean_o[j, keep],
            color=colors[j],
            marker="o",
            markersize=3,
            linewidth=1.4,
            label=f"{name} (ECE {data.event_ece[j]:.4f})",
        )
        ax.scatter(
            mean_f[j, keep],
            mean_o[j, keep],
            s=8.0 + 400.0 * weight[j, keep] / total,
            color=colors[j],
            alpha=0.45,
            edgecolors="none",
        )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("mean confidence" if view == "top_label" else "mean forecast probability")
    ax.set_ylabel("observed frequency")
    ax.set_title(
        f"Reliability diagram ({view.replace('_', ' ')}), {_ECE_NAME[view]} = {data.ece:.4f}"
    )
    ax.legend(
        fontsize="small", loc="upper left", title="marker area ∝ bin weight", title_fontsize="small"
    )
    ax.grid(True, alpha=0.3)
    return ax


# --------------------------------------------------------------------------------------------
# Score distributions by true class
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ScoreDistributionsData:
    """The data of :func:`score_distributions`: per-sample scores grouped by true class.

    Attributes
    ----------
    by : str
        Name of the score (``"custom"`` for an array or an anonymous callable).
    classes : tuple of str
        The class names in ordinal order.
    scores : tuple of ndarray
        For each class, the per-sample scores of the rows of that true class, in row order
        (empty for a class absent from ``y_true``).
    per_sample : ndarray of shape (n_samples,)
        The per-sample scores of all rows, in row order.
    y_true : ndarray of shape (n_samples,)
        The true class index (0 to K - 1) of every row.
    """

    by: str
    classes: tuple[str, ...]
    scores: tuple[np.ndarray, ...]
    per_sample: np.ndarray
    y_true: np.ndarray

    def __repr__(self) -> str:
        sizes = ", ".join(f"{c}: {s.size}" for c, s in zip(self.classes, self.scores, strict=True))
        return f"ScoreDistributionsData(by={self.by!r}, rows per class {{{sizes}}})"


@fill_doc()
def score_distributions_data(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = "rps",
    labels: Any = None,
) -> ScoreDistributionsData:
    """The data of :func:`score_distributions`: per-sample scores grouped by true class.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    %(by)s
        Here the scores are grouped by true class, not ranked.
    %(labels)s
        They name the classes.

    Returns
    -------
    ScoreDistributionsData
        ``by``, ``classes``, ``scores`` (one array per class), ``per_sample`` and ``y_true``.

    Examples
    --------
    >>> from ordmetrics.plot import score_distributions_data
    >>> y = ["low", "high", "low"]
    >>> P = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]
    >>> data = score_distributions_data(y, P, labels=["low", "mid", "high"])
    >>> data.classes
    ('low', 'mid', 'high')
    >>> data.scores
    (array([0.125, 0.   ]), array([], dtype=float64), array([0.25]))
    """
    prep = prepare(y_true, y_proba, labels, None)
    scores, name = per_sample_scores(by, y_true, y_proba, prep, labels)
    k = prep.n_classes
    codes = np.asarray(prep.y_true, dtype=np.int64)
    groups = tuple(scores[codes == c] for c in range(k))
    return ScoreDistributionsData(name, _class_names(prep.labels, k), groups, scores, codes)


@fill_doc()
def score_distributions(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = "rps",
    labels: Any = None,
    kind: str = "box",
    ax: Axes | None = None,
) -> Axes:
    """Distributions of a per-sample score by true class (box or violin plots).

    Computes :func:`score_distributions_data` and draws one box (or violin) per class, the
    classes in ordinal order along the x axis. Shows which true classes a model scores
    badly, e.g. the rare extreme grades.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    %(by)s
        Here the scores are not ranked: their distribution is drawn per true class.
    %(labels)s
        They are the tick labels.
    kind : {"box", "violin"}, default "box"
        Box plots (median, quartiles, whiskers at 1.5 IQR, outlying rows as points) or violin
        plots (kernel density estimates, median marked).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on; the x tick labels are the class names.

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    Notes
    -----
    Only finite scores are drawn (a log loss can be +inf); a class without any (absent from
    ``y_true``) keeps its tick and has no box.

    See Also
    --------
    score_distributions_data : The numbers drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics.plot import score_distributions
    >>> y = ["low", "high", "low", "mid"]
    >>> P = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [1.0, 0.0, 0.0], [0.2, 0.6, 0.2]]
    >>> ax = score_distributions(y, P, labels=["low", "mid", "high"])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['low', 'mid', 'high']
    >>> ax.get_ylabel()
    'rps per sample (lower is better)'
    >>> plt.close("all")
    """
    check_option(kind, "kind", _KINDS)
    _pyplot("score_distributions")
    data = score_distributions_data(y_true, y_proba, by=by, labels=labels)
    ax = _axes("score_distributions", ax)
    k = len(data.classes)
    finite = [s[np.isfinite(s)] for s in data.scores]
    positions = [c + 1 for c in range(k) if finite[c].size]
    values = [finite[c] for c in range(k) if finite[c].size]
    if values:
        if kind == "box":
            ax.boxplot(
                values,
                positions=positions,
                widths=0.6,
                patch_artist=True,
                boxprops={"facecolor": "C0", "alpha": 0.35},
                medianprops={"color": "C1", "linewidth": 1.8},
                flierprops={"marker": ".", "markersize": 2, "alpha": 0.3},
            )
        else:
            ax.violinplot(values, positions=positions, widths=0.8, showmedians=True)
    ax.set_xticks(range(1, k + 1), list(data.classes))
    ax.set_xlim(0.4, k + 0.6)
    if max((len(c) for c in data.classes), default=0) > 6:
        ax.tick_params(axis="x", labelrotation=20)
    ax.set_xlabel("true class")
    rules = list_metrics("scoring_rule")
    direction = _better(data.by) if data.by in rules else "lower is better"
    ax.set_ylabel(f"{data.by} per sample ({direction})")
    ax.set_title(f"{data.by} by true class")
    ax.grid(True, axis="y", alpha=0.3)
    return ax


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


# --------------------------------------------------------------------------------------------
# CORP reliability diagrams (ordmetrics.metrics.corp)
# --------------------------------------------------------------------------------------------

__all__ += ["CorpDiagramData", "corp_reliability_diagram", "corp_reliability_diagram_data"]


@dataclass(frozen=True, eq=False)
class CorpDiagramData:
    """The data of :func:`corp_reliability_diagram`: what is drawn, per event.

    Attributes
    ----------
    event : str
        The view: ``"top_label"``, ``"class"`` or ``"cumulative"``.
    curves : tuple of CorpCurve
        The curves drawn (all events, or those chosen): ``x`` against ``recalibrated``, and
        the band ``band_x``, ``band_lower``, ``band_upper`` where there is one.
    labels : tuple of str
        The legend entry of every curve: the event and its MCB, DSC and UNC.
    title : str
        The title: the view, the band's level and resamples where there are bands.
    """

    event: str
    curves: tuple[Any, ...]
    labels: tuple[str, ...]
    title: str

    def __repr__(self) -> str:
        return f"CorpDiagramData(event={self.event!r}, curves={len(self.curves)})"


def _corp_label(curve: Any) -> str:
    name = "top label" if curve.event == "top_label" else curve.event
    return f"{name}: MCB {curve.mcb:.4f}, DSC {curve.dsc:.4f}, UNC {curve.unc:.4f}"


def corp_reliability_diagram_data(result: Any, *, events: Any = None) -> CorpDiagramData:
    """The data of :func:`corp_reliability_diagram`: the chosen curves and their labels.

    Parameters
    ----------
    result : CorpReliability
        The result of :func:`~ordmetrics.corp_reliability`.
    events : sequence of int or str, optional
        The events to draw, by position or name (``"y <= 1"``); default all of them.

    Returns
    -------
    CorpDiagramData
        ``curves``, legend ``labels`` (event: MCB, DSC, UNC) and ``title``.

    Examples
    --------
    >>> from ordmetrics import corp_reliability
    >>> from ordmetrics.plot import corp_reliability_diagram_data
    >>> P = [[0.8, 0.2], [0.6, 0.4], [0.4, 0.6], [0.2, 0.8]]
    >>> data = corp_reliability_diagram_data(corp_reliability([0, 1, 0, 1], P, event="class"),
    ...                                      events=["y = 1"])
    >>> data.labels
    ('y = 1: MCB 0.0750, DSC 0.1250, UNC 0.2500',)
    >>> data.curves[0].recalibrated
    array([0. , 0.5, 0.5, 1. ])
    """
    from ordmetrics.metrics.corp import CorpReliability

    if not isinstance(result, CorpReliability):
        raise TypeError(
            f"result must be a CorpReliability, the result of ordmetrics.corp_reliability(...); "
            f"got {type_name(result)}."
        )
    names = result.events
    if events is None:
        chosen = list(range(len(names)))
    else:
        if isinstance(events, str | int) or not isinstance(events, Sequence):
            events = [events]
        chosen = []
        for e in events:
            if isinstance(e, str) and e in names:
                chosen.append(names.index(e))
            elif (
                isinstance(e, int | np.integer)
                and not isinstance(e, bool)
                and -len(names) <= e < len(names)
            ):
                chosen.append(int(e) % len(names))
            else:
                raise ValueError(
                    f"events must name events of the result ({', '.join(map(repr, names))}) "
                    f"or give their positions 0..{len(names) - 1}; got {e!r}."
                )
    curves = tuple(result.curves[j] for j in chosen)
    title = f"CORP reliability diagram ({result.event.replace('_', ' ')})"
    if result.n_resamples:
        title += f", {result.level:.0%} consistency bands ({result.n_resamples} resamples)"
    return CorpDiagramData(result.event, curves, tuple(_corp_label(c) for c in curves), title)


def corp_reliability_diagram(result: Any, ax: Axes | None = None, *, events: Any = None) -> Axes:
    """CORP reliability diagram: the isotonic recalibration of every event, with its bands.

    Draws, for each event of ``result`` (:func:`~ordmetrics.corp_reliability`), the
    recalibrated forecast against the forecast value (a line through the tie groups), the
    consistency band under calibration as a shaded area where the result has one, and the
    diagonal. The legend gives each event's MCB, DSC and UNC.

    Parameters
    ----------
    result : CorpReliability
        The result of :func:`~ordmetrics.corp_reliability` (with ``n_resamples > 0`` for
        bands).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    events : sequence of int or str, optional
        The events to draw, by position or name; default all.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: the diagonal, then one line per event (and one shaded band each
        where there are bands).

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    See Also
    --------
    corp_reliability_diagram_data : The numbers drawn here.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from ordmetrics import corp_reliability
    >>> from ordmetrics.plot import corp_reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet([1, 1, 1], 500)
    >>> y = np.array([rng.choice(3, p=p) for p in P])
    >>> result = corp_reliability(y, P, event="cumulative", n_resamples=50, random_state=0)
    >>> ax = corp_reliability_diagram(result)
    >>> ax.get_title()
    'CORP reliability diagram (cumulative), 90% consistency bands (50 resamples)'
    >>> len(ax.get_lines()), len(ax.collections)
    (3, 2)
    >>> plt.close("all")
    """
    _pyplot("corp_reliability_diagram")
    data = corp_reliability_diagram_data(result, events=events)
    ax = _axes("corp_reliability_diagram", ax)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1.0, label="calibration")
    n = len(data.curves)
    colors: list[Any] = ["C0"]
    if n > 1:
        import matplotlib as mpl

        cmap = mpl.colormaps["viridis"]
        colors = [cmap(0.9 * j / (n - 1)) for j in range(n)]
    for curve, label, color in zip(data.curves, data.labels, colors, strict=True):
        if curve.band_x is not None:
            ax.fill_between(
                curve.band_x,
                curve.band_lower,
                curve.band_upper,
                color=color,
                alpha=0.18,
                linewidth=0,
            )
        ax.plot(curve.x, curve.recalibrated, color=color, linewidth=1.6, label=label)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("confidence" if data.event == "top_label" else "forecast probability")
    ax.set_ylabel("recalibrated probability (PAV)")
    ax.set_title(data.title)
    ax.legend(fontsize="small", loc="upper left")
    ax.grid(True, alpha=0.3)
    return ax


# --------------------------------------------------------------------------------------------
# Predicted and true cumulative distributions (Galdran, Figures 1-2)
# --------------------------------------------------------------------------------------------

__all__ += ["CdfPlotData", "cdf_plot", "cdf_plot_data"]

#: Rows drawn by :func:`cdf_plot` when ``rows`` is not given.
CDF_PLOT_DEFAULT_ROWS = 4


@dataclass(frozen=True, eq=False)
class CdfPlotData:
    """The data of :func:`cdf_plot`.

    Attributes
    ----------
    classes : tuple of str
        The class names in ordinal order.
    rows : ndarray of int
        The row positions drawn, in the order given.
    cdf : ndarray of shape (n_rows, K)
        The predicted cumulative distributions F_k = p_1 + ... + p_k (last column 1).
    truth : ndarray of shape (n_rows, K)
        The true step distributions H_k = 1{y <= k}.
    y_true : ndarray of int
        The true class index of every drawn row.
    rps, sa_rps, brier, cdf_l1 : ndarray
        The per-sample scores of the drawn rows: the RPS is the mean squared gap between
        the two curves, ``cdf_l1`` the mean absolute gap (the area between them over K - 1),
        the Brier score ignores the order of the classes.
    """

    classes: tuple[str, ...]
    rows: np.ndarray
    cdf: np.ndarray
    truth: np.ndarray
    y_true: np.ndarray
    rps: np.ndarray
    sa_rps: np.ndarray
    brier: np.ndarray
    cdf_l1: np.ndarray

    def __repr__(self) -> str:
        return f"CdfPlotData(rows={self.rows.tolist()}, {len(self.classes)} classes)"


def _check_rows(rows: Any, n: int) -> np.ndarray:
    if rows is None:
        return np.arange(min(n, CDF_PLOT_DEFAULT_ROWS), dtype=np.int64)
    if isinstance(rows, int | np.integer) and not isinstance(rows, bool):
        rows = [rows]
    if isinstance(rows, str | bytes | set | dict) or isinstance(rows, bool):
        raise TypeError(
            f"rows must be a sequence of row positions, e.g. rows=[0, 3]; got "
            f"{type_name(rows)} {rows!r}."
        )
    r = np.asarray(rows)
    if r.ndim != 1 or r.size == 0 or not (np.issubdtype(r.dtype, np.integer)):
        raise TypeError(
            f"rows must be a non-empty 1-D sequence of integer row positions, e.g. rows=[0, 3]; "
            f"got {rows!r}."
        )
    bad = r[(r < 0) | (r >= n)]
    if bad.size:
        raise ValueError(
            f"rows must be positions 0..{n - 1} of y_proba (it has {n} rows); got {bad[0]}."
        )
    return r.astype(np.int64)


@fill_doc()
def cdf_plot_data(
    y_true: Any,
    y_proba: Any,
    *,
    rows: Any = None,
    labels: Any = None,
) -> CdfPlotData:
    """The data of :func:`cdf_plot`: predicted and true cumulative distributions of some rows.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    rows : int or sequence of int, optional
        The row positions to draw; default the first four rows.
    %(labels)s
        They name the classes.

    Returns
    -------
    CdfPlotData
        ``classes``, ``rows``, ``cdf``, ``truth``, ``y_true`` and the per-sample ``rps``,
        ``sa_rps``, ``brier`` and ``cdf_l1`` of the rows.

    Examples
    --------
    >>> from ordmetrics.plot import cdf_plot_data
    >>> P = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]]  # Galdran Sect. 2.2 (the values meant)
    >>> data = cdf_plot_data([0, 0], P)
    >>> data.cdf.tolist(), data.truth.tolist()
    ([[0.5, 1.0, 1.0], [0.5, 0.5, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    >>> data.brier.tolist(), data.rps.tolist()  # the same Brier score, different RPS
    ([0.5, 0.5], [0.125, 0.25])
    """
    from ordmetrics.metrics.scoring import (
        brier,
        cdf_l1,
        rps,
        sa_rps,
    )

    prep = prepare(y_true, y_proba, labels, None)
    P = np.asarray(prep.other, dtype=np.float64)
    n, k = P.shape
    r = _check_rows(rows, n)
    y = np.asarray(prep.y_true, dtype=np.int64)[r]
    Pr = P[r]
    F = np.cumsum(Pr, axis=1)
    F[:, -1] = 1.0  # the row sums are 1 up to rounding (validated)
    H = (np.arange(k)[None, :] >= y[:, None]).astype(np.float64)
    scores = [f(y, Pr, reduction="none") for f in (rps, sa_rps, brier, cdf_l1)]
    return CdfPlotData(_class_names(prep.labels, k), r, F, H, y, *scores)


@fill_doc()
def cdf_plot(
    y_true: Any,
    y_proba: Any,
    *,
    rows: Any = None,
    labels: Any = None,
    ax: Axes | None = None,
) -> Axes:
    """Predicted cumulative distributions against the true step distribution (Galdran, Fig. 1-2).

    Draws, for each selected row, the predicted CDF F_k as a step curve and the true CDF
    H_k = 1{y <= k} as a dashed step of the same colour, with the row's RPS and Brier score
    in the legend. The RPS is the mean squared vertical gap between the two curves and
    :func:`~ordmetrics.cdf_l1` the mean absolute gap; the Brier score ignores the order of
    the classes, which is why two forecasts with the same Brier score can have different RPS.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    rows : int or sequence of int, optional
        The row positions to draw; default the first four rows.
    %(labels)s
        They are the tick labels.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install ordmetrics[plot]``).

    See Also
    --------
    cdf_plot_data : The numbers drawn here.

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI
       2023, Figures 1-2.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from ordmetrics.plot import cdf_plot
    >>> P = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]]
    >>> ax = cdf_plot(["a", "a"], P, labels=["a", "b", "c"])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b', 'c']
    >>> plt.close("all")
    """
    _pyplot("cdf_plot")
    data = cdf_plot_data(y_true, y_proba, rows=rows, labels=labels)
    ax = _axes("cdf_plot", ax)
    k = len(data.classes)
    x = np.arange(k)
    m = len(data.rows)
    for j in range(m):
        color = f"C{j % 10}"
        # a small vertical offset keeps curves that coincide visible
        off = 0.012 * (j - (m - 1) / 2)
        ax.step(
            x,
            data.cdf[j] + off,
            where="post",
            color=color,
            linewidth=1.8,
            label=(
                f"row {data.rows[j]} (y = {data.classes[data.y_true[j]]}): "
                f"RPS {data.rps[j]:.4g}, Brier {data.brier[j]:.4g}"
            ),
        )
        ax.step(x, data.truth[j] + off, where="post", color=color, linestyle="--", linewidth=1.0)
    ax.plot([], [], color="black", linestyle="--", linewidth=1.0, label="true CDF (dashed)")
    ax.set_xticks(x, list(data.classes))
    ax.set_xlim(-0.3, k - 0.7)
    ax.set_ylim(-0.05, 1.08)
    ax.set_xlabel("class k")
    ax.set_ylabel("cumulative probability F_k")
    ax.set_title("predicted vs true cumulative distributions")
    ax.legend(fontsize="small", loc="lower right")
    ax.grid(True, alpha=0.3)
    return ax
