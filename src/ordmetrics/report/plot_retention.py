"""Retention curves of several per-sample scores, with bootstrap bands (:mod:`ordmetrics.plot`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.registry import MetricSpec
from ordmetrics._core.validation import (
    check_flag,
    type_name,
)
from ordmetrics.evaluation.retention import (
    RetentionCurve,
    prepare,
    retention_curve,
)
from ordmetrics.report.plot_common import _axes, _better, _pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: The scoring rules compared by :func:`retention_curves` unless ``by`` says otherwise.
DEFAULT_RULES: tuple[str, ...] = ("brier", "log_loss", "rps", "sa_rps")

_ORACLE_STYLE: dict[str, Any] = {"color": "black", "linestyle": "--", "linewidth": 1.0}
_RANDOM_STYLE: dict[str, Any] = {"color": "grey", "linestyle": "--", "linewidth": 1.0}


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


def _shared_baseline(curves: list[RetentionCurve]) -> tuple[RetentionCurve, ...]:
    """The curves, each with the random-removal baseline of the first (drawn once for all)."""
    first = curves[0].random
    return tuple(c if c.random is first else dataclasses.replace(c, random=first) for c in curves)


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
    n_random: int = 100,
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
    n_random : int, default 100
        Random draws of the Monte Carlo estimate of the random-removal baseline, as in
        :func:`~ordmetrics.retention_curve`; 0 skips it (``random`` is then None where it is
        not exact), for curves drawn without it.

    Returns
    -------
    RetentionCurvesData
        ``curves`` (one :class:`~ordmetrics.RetentionCurve` per score), ``bands``,
        ``resampled``, ``confidence_level`` and ``n_resamples``.

    Notes
    -----
    Each curve is ``retention_curve(y_true, y_proba, by=rule, n_random=n_random, ...)`` with
    the core's seed of the baselines (``random_state=0``). The oracle and random-removal
    curves do not depend on the score, so every curve carries the same ones: the random
    draws are made once, for the first curve, and its baseline is given to the others (the
    draws cost K^2 work per draw and fraction, which at K = 1000 is most of the time).

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
    curves = _shared_baseline(
        [
            retention_curve(
                y_true,
                y_proba,
                by=rule,
                sample_weight=sample_weight,
                n_random=n_random if j == 0 else 0,
                **common,
            )
            for j, rule in enumerate(rules)
        ]
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
        n_random=100 if check_flag(random, "random") else 0,
    )
    return plot_retention(data, oracle=oracle, random=random, ax=ax)
