"""Tests of ordmetrics.plot: the data functions equal the core's results, the drawings show them.

The displays are checked on 5,000 rows of the packaged diamonds ``cut`` predictions (model
``hgb``). Data functions are compared with direct calls of the core; drawing functions are checked
through the artists they leave on the Axes.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

import ordmetrics  # noqa: E402
from ordmetrics import plot  # noqa: E402
from ordmetrics.datasets import load_diamonds_cut  # noqa: E402

RULES = ("brier", "log_loss", "rps", "sa_rps")
N_ROWS = 5_000


@pytest.fixture(scope="module")
def diamonds():
    """A fixed random subset of 5,000 rows: true grades (strings), probabilities, labels."""
    ex = load_diamonds_cut("hgb")
    rows = np.sort(np.random.default_rng(0).choice(ex.y_true.size, N_ROWS, replace=False))
    return ex.y_true[rows], ex.y_proba[rows], ex.labels


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _legend_texts(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


def _decisions(P: np.ndarray, labels: tuple[str, ...]) -> np.ndarray:
    return np.asarray(labels)[ordmetrics.decide(P)]


# --------------------------------------------------------------------------------------------
# Retention curves: data
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "options"), [("qwk", None), ("expected_cost", {"costs": "absolute"})]
)
def test_retention_data_equals_core(diamonds, metric, options):
    y, P, labels = diamonds
    data = plot.retention_curves_data(y, P, metric=metric, labels=labels, metric_kwargs=options)
    assert [c.by for c in data.curves] == list(RULES)
    assert data.bands is None and data.resampled is None and data.n_resamples == 0
    for curve, rule in zip(data.curves, RULES, strict=True):
        ref = ordmetrics.retention_curve(
            y, P, by=rule, metric=metric, labels=labels, metric_kwargs=options
        )
        np.testing.assert_array_equal(curve.fractions, ref.fractions)
        np.testing.assert_array_equal(curve.values, ref.values)
        assert curve.area == ref.area
        assert curve.metric == metric
        for mine, theirs in ((curve.oracle, ref.oracle), (curve.random, ref.random)):
            if theirs is None:
                assert mine is None
            else:
                np.testing.assert_array_equal(mine, theirs)
    assert (data.curves[0].oracle is None) == (metric == "qwk")


def test_retention_data_single_rule_and_options(diamonds):
    y, P, labels = diamonds
    fractions = [1.0, 0.9, 0.8]
    data = plot.retention_curves_data(
        y, P, by="rps", metric="mae", labels=labels, fractions=fractions, decision="median"
    )
    ref = ordmetrics.retention_curve(
        y, P, by="rps", metric="mae", labels=labels, fractions=fractions, decision="median"
    )
    assert len(data.curves) == 1
    np.testing.assert_array_equal(data.curves[0].values, ref.values)
    assert data.curves[0].decision == "median"
    assert "mae" in repr(data)


def test_retention_bands_deterministic_and_enclosing(diamonds):
    y, P, labels = diamonds
    kwargs = {"labels": labels, "bootstrap": 40}
    a = plot.retention_curves_data(y, P, random_state=7, **kwargs)
    b = plot.retention_curves_data(y, P, random_state=7, **kwargs)
    c = plot.retention_curves_data(y, P, random_state=8, **kwargs)
    assert a.resampled is not None and b.resampled is not None and c.resampled is not None
    assert a.resampled.shape == (len(RULES), 40, a.curves[0].fractions.size)
    np.testing.assert_array_equal(a.resampled, b.resampled)
    assert not np.array_equal(a.resampled, c.resampled)
    assert a.bands is not None and a.n_resamples == 40 and a.confidence_level == 0.95
    inside = []
    for curve, (low, high), res in zip(a.curves, a.bands, a.resampled, strict=True):
        np.testing.assert_allclose(low, np.quantile(res, 0.025, axis=0), rtol=1e-12)
        np.testing.assert_allclose(high, np.quantile(res, 0.975, axis=0), rtol=1e-12)
        assert np.all(low <= high)
        inside.append((low <= curve.values) & (curve.values <= high))
    assert np.mean(inside) >= 0.9  # pointwise bands: the full-data curve mostly inside


def test_retention_bands_follow_documented_resampling(diamonds):
    """Resample b: multinomial row counts from default_rng(random_state), as weights."""
    y, P, labels = diamonds
    weight = np.random.default_rng(3).integers(1, 3, size=y.size)
    data = plot.retention_curves_data(
        y,
        P,
        by=["rps", "brier"],
        labels=labels,
        sample_weight=weight,
        bootstrap=3,
        random_state=3,
        confidence_level=0.5,
    )
    rng = np.random.default_rng(3)
    for b in range(3):
        counts = rng.multinomial(y.size, np.full(y.size, 1.0 / y.size))
        for j, rule in enumerate(("rps", "brier")):
            ref = ordmetrics.retention_curve(
                y, P, by=rule, labels=labels, sample_weight=weight * counts, n_random=0
            )
            np.testing.assert_array_equal(data.resampled[j, b], ref.values)
    assert data.bands is not None
    np.testing.assert_allclose(
        data.bands[1][0], np.quantile(data.resampled[1], 0.25, axis=0), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"bootstrap": -1}, ValueError, "bootstrap must be a non-negative integer"),
        ({"bootstrap": 2.5}, TypeError, "bootstrap must be a non-negative integer"),
        ({"bootstrap": True}, TypeError, "bootstrap must be a non-negative integer"),
        ({"confidence_level": 1.5}, ValueError, r"confidence_level must lie in \(0, 1\)"),
        ({"confidence_level": "high"}, TypeError, "confidence_level must be a number"),
        ({"by": []}, ValueError, "by is empty"),
        ({"by": 3}, TypeError, "by must be a scoring rule name"),
        ({"by": ["rps", "qwk"]}, ValueError, "by must be a scoring rule"),
    ],
)
def test_retention_data_errors(diamonds, kwargs, error, match):
    y, P, labels = diamonds
    with pytest.raises(error, match=match):
        plot.retention_curves_data(y[:200], P[:200], labels=labels, **kwargs)


# --------------------------------------------------------------------------------------------
# Retention curves: drawing
# --------------------------------------------------------------------------------------------


def test_retention_curves_draws_curves_legend_and_axes(diamonds):
    y, P, labels = diamonds
    ax = plot.retention_curves(y, P, labels=labels)
    assert isinstance(ax, Axes)
    data = plot.retention_curves_data(y, P, labels=labels)
    # four rules and the random-removal baseline; QWK has no oracle
    assert len(ax.lines) == len(RULES) + 1
    for line, curve in zip(ax.lines, data.curves, strict=False):
        np.testing.assert_array_equal(line.get_xdata(), curve.fractions)
        np.testing.assert_array_equal(line.get_ydata(), curve.values)
    np.testing.assert_array_equal(ax.lines[-1].get_ydata(), data.curves[0].random)
    texts = _legend_texts(ax)
    for curve in data.curves:
        assert f"{curve.by} (AURSC {curve.area:.4f})" in texts
    assert "random removal" in texts and "oracle" not in texts
    assert ax.get_xlabel() == "retained fraction"
    assert "qwk" in ax.get_ylabel() and "higher is better" in ax.get_ylabel()
    left, right = ax.get_xlim()
    assert left > 1.0 > 0.5 > right  # retained fraction decreasing from left to right
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]


def test_retention_curves_baselines_dashed_and_optional(diamonds):
    y, P, labels = diamonds
    opts = {"metric": "expected_cost", "metric_kwargs": {"costs": "absolute"}, "labels": labels}
    ax = plot.retention_curves(y, P, **opts)
    assert len(ax.lines) == len(RULES) + 2
    styles = {t: line for t, line in zip(_legend_texts(ax), ax.lines, strict=True)}
    assert styles["oracle"].get_linestyle() == "--"
    assert styles["random removal"].get_linestyle() == "--"
    assert matplotlib.colors.same_color(styles["random removal"].get_color(), "grey")
    assert "lower is better" in ax.get_ylabel()
    ax = plot.retention_curves(y, P, oracle=False, random=False, **opts)
    assert len(ax.lines) == len(RULES)


def test_retention_curves_bands_drawn(diamonds):
    y, P, labels = diamonds
    ax = plot.retention_curves(
        y, P, by=("rps", "brier"), labels=labels, bootstrap=20, random_state=0
    )
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    assert "95% bootstrap band (20 resamples)" in _legend_texts(ax)


def test_retention_curves_on_given_axes(diamonds):
    y, P, labels = diamonds
    _, (ax1, ax2) = plt.subplots(1, 2)
    out = plot.retention_curves(y, P, by="rps", labels=labels, ax=ax2)
    assert out is ax2
    assert not ax1.lines and len(ax2.lines) == 2
    # drawing again on the same axes keeps the x axis decreasing
    plot.retention_curves(y, P, by="brier", labels=labels, ax=ax2)
    left, right = ax2.get_xlim()
    assert left > right


def test_plot_retention_precomputed_curves(diamonds):
    y, P, labels = diamonds
    curves = [
        ordmetrics.retention_curve(y, P, by=r, metric="mae", labels=labels)
        for r in ("rps", "log_loss")
    ]
    fake_band = (curves[0].values - 0.01, curves[0].values + 0.01)
    ax = plot.plot_retention(curves, bands=[fake_band, None], names=["RPS", "Neg-Log"])
    texts = _legend_texts(ax)
    assert texts[:2] == [
        f"RPS (AURSC {curves[0].area:.4f})",
        f"Neg-Log (AURSC {curves[1].area:.4f})",
    ]
    assert texts.count("oracle") == 1 and texts.count("random removal") == 1
    assert len(ax.lines) == 4  # the shared baselines are drawn once
    assert texts[-1] == "band"
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 1
    # a single curve, and a RetentionCurvesData with its bands
    assert len(plot.plot_retention(curves[0]).lines) == 3
    data = plot.retention_curves_data(y, P, by="rps", labels=labels, bootstrap=5, random_state=0)
    ax = plot.plot_retention(data, oracle=False, random=False)
    assert len(ax.lines) == 1
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 1


def test_plot_retention_errors(diamonds):
    y, P, labels = diamonds
    qwk = ordmetrics.retention_curve(y, P, labels=labels)
    mae = ordmetrics.retention_curve(y, P, metric="mae", labels=labels)
    with pytest.raises(ValueError, match="curves of different metrics"):
        plot.plot_retention([qwk, mae])
    with pytest.raises(ValueError, match="bands has 2 entries for 1 curves"):
        plot.plot_retention([qwk], bands=[None, None])
    with pytest.raises(ValueError, match="names must be a sequence"):
        plot.plot_retention([qwk], names=["a", "b"])
    with pytest.raises(TypeError, match="curves must be"):
        plot.plot_retention([])
    with pytest.raises(TypeError, match="curves must be"):
        plot.plot_retention([qwk.values])
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot.plot_retention(qwk, ax="left")


# --------------------------------------------------------------------------------------------
# Reliability diagram
# --------------------------------------------------------------------------------------------

_ECE_FUNCS = {
    "top_label": ordmetrics.ece,
    "classwise": ordmetrics.classwise_ece,
    "cumulative": ordmetrics.cumulative_ece,
}


@pytest.mark.parametrize("view", ["top_label", "classwise", "cumulative"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_data_equals_core(diamonds, view, strategy):
    y, P, labels = diamonds
    w = np.random.default_rng(1).integers(0, 4, size=y.size)
    opts = {"n_bins": 10, "strategy": strategy, "labels": labels, "sample_weight": w}
    data = plot.reliability_diagram_data(y, P, view=view, **opts)
    ref = ordmetrics.reliability(y, P, view=view, **opts)
    for field in ("bin_edges", "mean_confidence", "observed_frequency", "weight"):
        np.testing.assert_array_equal(getattr(data.diagram, field), getattr(ref, field))
    assert data.diagram.events == ref.events
    assert data.ece == _ECE_FUNCS[view](y, P, **opts)
    np.testing.assert_array_equal(data.event_ece, np.atleast_1d(ref.ece))


@pytest.mark.parametrize(
    ("view", "n_events"), [("top_label", 1), ("classwise", 5), ("cumulative", 4)]
)
def test_reliability_diagram_draws_events(diamonds, view, n_events):
    y, P, labels = diamonds
    ax = plot.reliability_diagram(y, P, view=view, labels=labels)
    assert isinstance(ax, Axes)
    ref = ordmetrics.reliability(y, P, view=view, labels=labels)
    assert len(ax.lines) == 1 + n_events  # the diagonal and one line per event
    assert len(ax.collections) == n_events  # bin markers sized by weight
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [0, 1])
    f = np.atleast_2d(ref.mean_confidence)
    o = np.atleast_2d(ref.observed_frequency)
    w = np.atleast_2d(ref.weight)
    for j, line in enumerate(ax.lines[1:]):
        np.testing.assert_array_equal(line.get_xdata(), f[j, w[j] > 0])
        np.testing.assert_array_equal(line.get_ydata(), o[j, w[j] > 0])
        sizes = ax.collections[j].get_sizes()
        assert sizes.size == np.count_nonzero(w[j])
        assert np.argmax(sizes) == np.argmax(w[j, w[j] > 0])  # the heaviest bin, the largest
    texts = _legend_texts(ax)
    assert texts[0] == "perfect calibration"
    event_ece = np.atleast_1d(ref.ece)
    for j, event in enumerate(ref.events):
        name = "top label" if view == "top_label" else event
        assert texts[1 + j] == f"{name} (ECE {event_ece[j]:.4f})"
    total = _ECE_FUNCS[view](y, P, labels=labels)
    assert f"= {total:.4f}" in ax.get_title()
    assert ax.get_ylabel() == "observed frequency"
    if view == "classwise":
        assert texts[1:] == [
            f"y = {c} (ECE {e:.4f})" for c, e in zip(labels, event_ece, strict=True)
        ]


def test_reliability_diagram_on_given_axes_and_errors(diamonds):
    y, P, labels = diamonds
    fig, ax = plt.subplots()
    assert plot.reliability_diagram(y, P, labels=labels, n_bins=5, ax=ax) is ax
    assert len(fig.axes) == 1
    with pytest.raises(ValueError, match="view must be one of"):
        plot.reliability_diagram(y, P, labels=labels, view="ordinal")
    with pytest.raises(ValueError, match="strategy must be one of"):
        plot.reliability_diagram_data(y, P, labels=labels, strategy="equal")


# --------------------------------------------------------------------------------------------
# Score distributions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_score_distributions_data_equals_core(diamonds, rule):
    y, P, labels = diamonds
    data = plot.score_distributions_data(y, P, by=rule, labels=labels)
    per_sample = ordmetrics.get_metric(rule).func(y, P, labels=labels, reduction="none")
    np.testing.assert_array_equal(data.per_sample, per_sample)
    assert data.by == rule and data.classes == labels
    assert sum(s.size for s in data.scores) == y.size
    for label, scores in zip(labels, data.scores, strict=True):
        np.testing.assert_array_equal(scores, per_sample[y == label])


def test_score_distributions_data_custom_scores(diamonds):
    y, P, labels = diamonds
    scores = np.arange(y.size, dtype=np.float64)
    data = plot.score_distributions_data(y, P, by=scores, labels=labels)
    assert data.by == "custom"
    np.testing.assert_array_equal(data.scores[0], scores[y == labels[0]])
    data = plot.score_distributions_data(y, P, by=ordmetrics.rps, labels=labels)
    np.testing.assert_array_equal(
        data.per_sample, ordmetrics.rps(y, P, labels=labels, reduction="none")
    )
    # integer classes without labels are named 0..K-1
    codes = np.array([labels.index(v) for v in y])
    data = plot.score_distributions_data(codes, P)
    assert data.classes == ("0", "1", "2", "3", "4")
    assert [s.size for s in data.scores] == [int((y == c).sum()) for c in labels]


@pytest.mark.parametrize("kind", ["box", "violin"])
def test_score_distributions_draws_one_per_class(diamonds, kind):
    y, P, labels = diamonds
    _, ax = plt.subplots()
    out = plot.score_distributions(y, P, by="sa_rps", labels=labels, kind=kind, ax=ax)
    assert out is ax
    assert [t.get_text() for t in ax.get_xticklabels()] == list(labels)
    if kind == "box":
        assert len(ax.patches) == len(labels)  # one box per class
        medians = [line for line in ax.lines if line.get_color() == "C1"]
        assert len(medians) == len(labels)
        data = plot.score_distributions_data(y, P, by="sa_rps", labels=labels)
        for line, scores in zip(medians, data.scores, strict=True):
            assert line.get_ydata()[0] == pytest.approx(np.median(scores))
    else:
        bodies = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bodies) == len(labels)
    assert ax.get_ylabel() == "sa_rps per sample (lower is better)"
    assert ax.get_xlabel() == "true class"
    assert "sa_rps" in ax.get_title()
    ax = plot.score_distributions(y, P, by=ordmetrics.get_metric("pll"), labels=labels)
    assert ax.get_ylabel() == "pll per sample (lower is better)"


def test_score_distributions_absent_class_and_errors():
    y = ["low", "high", "low"]
    P = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]
    ax = plot.score_distributions(y, P, labels=["low", "mid", "high"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["low", "mid", "high"]
    assert len(ax.patches) == 2  # no box for the absent class
    with pytest.raises(ValueError, match="kind must be one of"):
        plot.score_distributions(y, P, labels=["low", "mid", "high"], kind="strip")
    with pytest.raises(ValueError, match="by must be a scoring rule"):
        plot.score_distributions_data(y, P, by="qwk", labels=["low", "mid", "high"])


# --------------------------------------------------------------------------------------------
# Confusion matrix heat map
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_confusion_data_equals_core(diamonds, normalize):
    y, P, labels = diamonds
    y_pred = _decisions(P, labels)
    data = plot.confusion_matrix_heatmap_data(y, y_pred, labels=labels, normalize=normalize)
    ref = ordmetrics.confusion_matrix(y, y_pred, labels=labels, normalize=normalize)
    np.testing.assert_array_equal(data.matrix, ref)
    assert data.matrix.dtype == ref.dtype
    assert data.classes == labels and data.normalize == normalize
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size)
    weighted = plot.confusion_matrix_heatmap_data(y, y_pred, labels=labels, sample_weight=w)
    np.testing.assert_array_equal(
        weighted.matrix, ordmetrics.confusion_matrix(y, y_pred, labels=labels, sample_weight=w)
    )


def test_confusion_heatmap_annotations_and_ticks(diamonds):
    y, P, labels = diamonds
    y_pred = _decisions(P, labels)
    ax = plot.confusion_matrix_heatmap(y, y_pred, labels=labels)
    assert isinstance(ax, Axes)
    ref = ordmetrics.confusion_matrix(y, y_pred, labels=labels)
    assert len(ax.images) == 1
    np.testing.assert_array_equal(ax.images[0].get_array(), ref)
    k = len(labels)
    assert len(ax.texts) == k * k
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in ax.texts}
    for i in range(k):
        for j in range(k):
            assert cells[i, j].get_text() == str(ref[i, j])  # rows are the true classes
    assert [t.get_text() for t in ax.get_xticklabels()] == list(labels)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(labels)
    assert ax.get_xlabel() == "predicted class" and ax.get_ylabel() == "true class"
    assert len(ax.figure.axes) == 2  # the heat map and its colour bar


def test_confusion_heatmap_proportions_on_given_axes(diamonds):
    y, P, labels = diamonds
    y_pred = _decisions(P, labels)
    fig, ax = plt.subplots()
    out = plot.confusion_matrix_heatmap(
        y, y_pred, labels=labels, normalize="true", colorbar=False, ax=ax
    )
    assert out is ax and len(fig.axes) == 1
    ref = ordmetrics.confusion_matrix(y, y_pred, labels=labels, normalize="true")
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in ref.ravel()]
    assert "proportions" in ax.get_title()


def test_confusion_heatmap_integer_classes_and_undefined_cells():
    with pytest.warns(ordmetrics.UndefinedMetricWarning):
        ax = plot.confusion_matrix_heatmap([0, 0, 2], [0, 1, 2], normalize="true")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2"]
    texts = [t.get_text() for t in ax.texts]
    assert texts[3:6] == ["-", "-", "-"]  # class 1 never occurs: its row is 0/0
    with pytest.raises(ValueError, match="normalize must be one of"):
        plot.confusion_matrix_heatmap([0, 1], [0, 1], normalize="rows")


# --------------------------------------------------------------------------------------------
# Images and the optional dependency
# --------------------------------------------------------------------------------------------


def test_each_plot_saves_a_png(diamonds, tmp_path):
    y, P, labels = diamonds
    drawings = {
        "retention": lambda ax: plot.retention_curves(
            y, P, labels=labels, bootstrap=10, random_state=0, ax=ax
        ),
        "reliability": lambda ax: plot.reliability_diagram(
            y, P, view="cumulative", labels=labels, ax=ax
        ),
        "scores": lambda ax: plot.score_distributions(y, P, labels=labels, ax=ax),
        "confusion": lambda ax: plot.confusion_matrix_heatmap(
            y, _decisions(P, labels), labels=labels, ax=ax
        ),
    }
    for name, draw in drawings.items():
        fig, ax = plt.subplots(figsize=(6, 5))
        assert draw(ax) is ax
        path = tmp_path / f"{name}.png"
        fig.savefig(path, dpi=80)
        content = path.read_bytes()
        assert content[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(content) > 5_000, name


def test_missing_matplotlib_names_the_extra(diamonds, monkeypatch):
    y, P, labels = diamonds
    y, P = y[:300], P[:300]
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.axes"):
        monkeypatch.setitem(sys.modules, name, None)
    calls = [
        lambda: plot.retention_curves(y, P, labels=labels),
        lambda: plot.plot_retention(ordmetrics.retention_curve(y, P, labels=labels)),
        lambda: plot.reliability_diagram(y, P, labels=labels),
        lambda: plot.score_distributions(y, P, labels=labels),
        lambda: plot.confusion_matrix_heatmap(y, y, labels=labels),
    ]
    for call in calls:
        with pytest.raises(ImportError, match=r"pip install ordmetrics\[plot\]"):
            call()
    # the data functions need NumPy only
    assert len(plot.retention_curves_data(y, P, labels=labels).curves) == len(RULES)
    assert plot.reliability_diagram_data(y, P, labels=labels).ece >= 0
    assert plot.score_distributions_data(y, P, labels=labels).classes == labels
    assert plot.confusion_matrix_heatmap_data(y, y, labels=labels).matrix.shape == (5, 5)


def test_import_does_not_import_matplotlib():
    code = (
        "import sys, ordmetrics.plot; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
