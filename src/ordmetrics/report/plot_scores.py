"""Score distributions by true class, and predicted against true cumulative distributions
(:mod:`ordmetrics.plot`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.registry import list_metrics
from ordmetrics._core.validation import (
    check_option,
    type_name,
)
from ordmetrics.evaluation.retention import (
    per_sample_scores,
    prepare,
)
from ordmetrics.report.plot_common import _axes, _better, _class_names, _pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_KINDS = ("box", "violin")


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
# Predicted and true cumulative distributions (Galdran, Figures 1-2)
# --------------------------------------------------------------------------------------------


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
