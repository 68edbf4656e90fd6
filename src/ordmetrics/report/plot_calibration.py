"""Reliability diagrams of the top-label, classwise and cumulative views, and CORP reliability
diagrams (:mod:`ordmetrics.plot`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.validation import (
    check_option,
    type_name,
)
from ordmetrics.metrics.calibration import (
    VIEWS,
    ReliabilityDiagram,
    classwise_ece,
    cumulative_ece,
    ece,
    reliability,
)
from ordmetrics.report.plot_common import _axes, _pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

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
# CORP reliability diagrams (ordmetrics.metrics.corp)
# --------------------------------------------------------------------------------------------


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
