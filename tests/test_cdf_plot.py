"""ordmetrics.plot.cdf_plot: predicted CDFs against the true step CDF (Galdran, Figures 1-2)."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.plot import cdf_plot_data

P = np.array(
    [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.25, 0.75, 0.0], [0.3, 0.4, 0.3], [0.1, 0.2, 0.7]]
)
Y = np.array([0, 0, 0, 1, 2])


def test_data_by_hand():
    data = cdf_plot_data(Y, P, rows=[0, 1])
    np.testing.assert_array_equal(data.rows, [0, 1])
    np.testing.assert_allclose(data.cdf, [[0.5, 1.0, 1.0], [0.5, 0.5, 1.0]], rtol=0)
    np.testing.assert_array_equal(data.truth, [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    # Galdran's point: the same Brier score, different RPS
    np.testing.assert_allclose(data.brier, [0.5, 0.5], rtol=1e-15)
    np.testing.assert_allclose(data.rps, [0.125, 0.25], rtol=1e-15)
    np.testing.assert_allclose(data.cdf_l1, [0.25, 0.5], rtol=1e-15)
    np.testing.assert_allclose(data.sa_rps, data.cdf_l1**2, rtol=1e-15)
    assert data.classes == ("0", "1", "2")


def test_data_matches_the_gaps_between_the_curves():
    rng = np.random.default_rng(0)
    k = 6
    Pr = rng.dirichlet(np.ones(k), size=50)
    y = rng.integers(0, k, size=50)
    data = cdf_plot_data(y, Pr, rows=range(50))
    gap = data.cdf[:, :-1] - data.truth[:, :-1]
    np.testing.assert_allclose(data.rps, (gap**2).sum(axis=1) / (k - 1), rtol=1e-12)
    np.testing.assert_allclose(data.cdf_l1, np.abs(gap).sum(axis=1) / (k - 1), rtol=1e-12)
    np.testing.assert_allclose(data.cdf[:, -1], 1.0, rtol=0)
    np.testing.assert_array_equal(data.y_true, y)


def test_default_rows_labels_and_single_row():
    data = cdf_plot_data(Y, P)
    np.testing.assert_array_equal(data.rows, [0, 1, 2, 3])
    named = cdf_plot_data(["lo", "mid"], P[[0, 3]], labels=["lo", "mid", "hi"], rows=1)
    assert named.classes == ("lo", "mid", "hi")
    np.testing.assert_array_equal(named.rows, [1])
    np.testing.assert_array_equal(named.truth, [[0.0, 1.0, 1.0]])


def test_bad_rows_and_inputs():
    with pytest.raises(ValueError, match=r"rows must be positions 0\.\.4 of y_proba"):
        cdf_plot_data(Y, P, rows=[0, 5])
    with pytest.raises(TypeError, match="rows must be a sequence of row positions"):
        cdf_plot_data(Y, P, rows="0")
    with pytest.raises(TypeError, match="integer row positions"):
        cdf_plot_data(Y, P, rows=[0.5])
    with pytest.raises(TypeError, match="integer row positions"):
        cdf_plot_data(Y, P, rows=[])
    with pytest.raises(ValueError, match="sum to 1"):
        cdf_plot_data([0], [[0.5, 0.6, 0.0]])


def test_drawing():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    from ordmetrics.plot import cdf_plot

    ax = cdf_plot(Y, P, rows=[0, 1, 4], labels=None)
    assert len(ax.get_lines()) == 2 * 3 + 1  # predicted and true step per row, legend entry
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0].startswith("row 0 (y = 0): RPS 0.125, Brier 0.5")
    _fig, ax2 = plt.subplots()
    assert cdf_plot(Y, P, ax=ax2) is ax2
    plt.close("all")
    assert "cdf_plot" in om.plot.__all__
