"""The HTML report and its figures on many classes: bounded work, readable labels.

At K = 1000 a text in each of the K^2 cells of the confusion matrix was a million text
objects (gigabytes, many minutes), and the report estimated a random-removal baseline of
100 draws for each of the scoring rules whose curves share it (or never draw it).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

import ordmetrics  # noqa: E402
from ordmetrics.evaluation import retention as R  # noqa: E402
from ordmetrics.plot import (  # noqa: E402
    confusion_matrix_heatmap,
    retention_curves_data,
)
from ordmetrics.report import plot_confusion as PC  # noqa: E402
from ordmetrics.report.sections import _class_ticks  # noqa: E402

#: The 7-point party identification scale of the ANES: long names, close together.
PARTY = [
    "Strong Dem",
    "Weak Dem",
    "Lean Dem",
    "Independent",
    "Lean Rep",
    "Weak Rep",
    "Strong Rep",
]


def _wide(k: int, n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.05), size=n)
    y = rng.integers(0, k, n)
    return y, P


def _party():
    """Truth and predictions on the PARTY scale, errors close to the diagonal."""
    i = np.arange(70)
    return [PARTY[j] for j in i % 7], [PARTY[j] for j in (i % 7 + i % 3) % 7]


def _overlapping(texts) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose bounding boxes (from the renderer) overlap."""
    texts = [t for t in texts if t.get_visible() and t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent()) for t in texts]
    return [(a, b) for (a, p), (b, q) in itertools.combinations(boxes, 2) if p.overlaps(q)]


def _drawn(ax):
    ax.figure.draw_without_rendering()
    return ax


# --------------------------------------------------------------------------------------------
# The heat map
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("figsize", [(6.4, 4.8), (5.6, 5.0), (4.0, 3.5)])
def test_heatmap_tick_labels_of_seven_long_names_do_not_overlap(figsize):
    y, pred = _party()
    fig = Figure(figsize=figsize, layout="constrained")
    ax = _drawn(confusion_matrix_heatmap(y, pred, labels=PARTY, ax=fig.subplots()))
    assert [t.get_text() for t in ax.get_xticklabels()] == PARTY
    assert _overlapping(ax.get_xticklabels()) == []
    assert _overlapping(ax.get_yticklabels()) == []
    assert len(ax.texts) == 49  # annotated


def test_report_tick_labels_of_seven_long_names_do_not_overlap():
    """The report wraps the names and turns them upright where they would still touch."""
    y, pred = _party()
    fig = Figure(figsize=(6.6, 5.4), layout="constrained")  # the report's size for long names
    ax = confusion_matrix_heatmap(y, pred, labels=PARTY, ax=fig.subplots())
    _class_ticks(ax, PARTY)
    _drawn(ax)
    assert _overlapping(ax.get_xticklabels()) == []
    assert _overlapping(ax.get_yticklabels()) == []


def test_short_names_stay_horizontal():
    y = ["low", "mid", "high"] * 10
    fig = Figure(figsize=(5.6, 5.0), layout="constrained")
    ax = confusion_matrix_heatmap(y, y, labels=["low", "mid", "high"], ax=fig.subplots())
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    assert _overlapping(_drawn(ax).get_xticklabels()) == []


@pytest.mark.parametrize("k", [21, 300, 1000])
def test_wide_heatmap_is_colour_only_with_thinned_ticks(k):
    """Beyond ANNOTATE_MAX_K no cell text; at most MAX_TICK_LABELS labels an axis, apart."""
    y, P = _wide(k)
    pred = ordmetrics.decide(P)
    fig = Figure(figsize=(5.6, 5.0), layout="constrained")
    ax = confusion_matrix_heatmap(y, pred, labels=range(k), ax=fig.subplots())
    assert len(ax.texts) == 0
    for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
        assert 2 <= len(labels) <= PC.MAX_TICK_LABELS
    assert [int(t.get_text()) for t in ax.get_xticklabels()][:2] == [0, -(-k // 20)]
    _drawn(ax)
    assert _overlapping(ax.get_xticklabels()) == []
    assert _overlapping(ax.get_yticklabels()) == []


def test_many_classes_are_drawn_as_block_maxima():
    """Beyond MAX_IMAGE_CELLS classes each pixel is the largest of a block of cells: every
    non-zero cell of a sparse matrix stays visible, and the axes still count classes."""
    k = 1000
    y, P = _wide(k)
    pred = ordmetrics.decide(P)
    matrix = ordmetrics.confusion_matrix(y, pred, labels=range(k)).astype(float)
    ax = confusion_matrix_heatmap(y, pred, labels=range(k), ax=Figure().subplots())
    shown = np.asarray(ax.images[0].get_array(), dtype=float)
    b = -(-k // PC.MAX_IMAGE_CELLS)
    assert shown.shape == (-(-k // b),) * 2 and shown.shape[0] <= PC.MAX_IMAGE_CELLS
    cells = list(zip(*np.nonzero(matrix), strict=True))
    for i, j in cells:
        block = matrix[i // b * b : (i // b + 1) * b, j // b * b : (j // b + 1) * b]
        assert shown[i // b, j // b] == block.max()
    assert np.count_nonzero(shown) == len({(i // b, j // b) for i, j in cells})
    assert tuple(ax.get_xlim()) == (-0.5, k - 0.5)
    assert f"largest of {b} x {b} cells" in ax.get_title()
    few = confusion_matrix_heatmap(y % 50, pred % 50, ax=Figure().subplots())
    assert np.asarray(few.images[0].get_array()).shape == (50, 50)
    assert "largest" not in few.get_title()


def test_annotate_overrides_the_default_and_is_checked():
    y = np.arange(25 * 2) % 25
    fig = Figure()
    assert len(confusion_matrix_heatmap(y, y, annotate=True, ax=fig.subplots()).texts) == 625
    y3 = np.arange(9) % 3
    assert len(confusion_matrix_heatmap(y3, y3, annotate=False, ax=Figure().subplots()).texts) == 0
    assert len(confusion_matrix_heatmap(y3, y3, ax=Figure().subplots()).texts) == 9
    with pytest.raises(TypeError, match="annotate"):
        confusion_matrix_heatmap(y3, y3, annotate="yes", ax=Figure().subplots())


def test_long_names_are_cut():
    names = ["a" * 30, "b"]
    ax = confusion_matrix_heatmap(names, names, labels=names, ax=Figure().subplots())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a" * 13 + "…", "b"]


# --------------------------------------------------------------------------------------------
# Retention curves: the random-removal baseline is drawn once, or not at all
# --------------------------------------------------------------------------------------------


class _CountDraws:
    def __init__(self, monkeypatch):
        self.n = 0
        real = R.RandomDraws

        def counted(*args, **kwargs):
            self.n += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(R, "RandomDraws", counted)


def test_curves_share_one_random_baseline(monkeypatch):
    """The random draws are made once for all the rules, and give each curve the baseline
    that its own draws would: they do not depend on the ranking score."""
    y, P = _wide(5, n=80, seed=3)
    rules = ["rps", "brier", "log_loss", "sa_rps"]
    count = _CountDraws(monkeypatch)
    data = retention_curves_data(y, P, by=rules, metric="qwk")
    assert count.n == 1
    for rule, curve in zip(rules, data.curves, strict=True):
        alone = ordmetrics.retention_curve(y, P, by=rule, metric="qwk")
        # the same draws from the same seed: the same bits
        np.testing.assert_array_equal(curve.random, alone.random)
        np.testing.assert_array_equal(curve.values, alone.values)


def test_n_random_zero_draws_nothing(monkeypatch):
    y, P = _wide(5, n=80, seed=3)
    count = _CountDraws(monkeypatch)
    data = retention_curves_data(y, P, by=["rps", "brier"], metric="qwk", n_random=0)
    assert count.n == 0
    assert all(c.random is None for c in data.curves)
    # exact baselines need no draws and are kept
    data = retention_curves_data(y, P, by=["rps", "brier"], metric="mae", n_random=0)
    assert all(c.random is not None for c in data.curves)
    with pytest.raises(ValueError, match="n_random"):
        retention_curves_data(y, P, by=["rps"], n_random=-1)


# --------------------------------------------------------------------------------------------
# The whole report
# --------------------------------------------------------------------------------------------


def _frame(k: int):
    pl = pytest.importorskip("polars")
    y, P = _wide(k)
    return pl.DataFrame({"y": y, **{f"p{j}": P[:, j] for j in range(k)}})


def test_report_of_many_classes_is_built():
    """K = 80, N = 60: the whole report is built, every section there (the heatmap's cells are
    colour only beyond 20 classes, see the tests above for K = 300 and 1000; the retention
    data of K = 1000 are tested in test_retention_edges.py)."""
    from ordmetrics.report.html import build_report

    df = _frame(80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordmetrics.UndefinedMetricWarning)
        page = build_report(df, truth="y", proba="p", n_resamples=0)
    for section in ("retention", "reliability", "confusion", "worst"):
        assert f'<section id="{section}">' in page
