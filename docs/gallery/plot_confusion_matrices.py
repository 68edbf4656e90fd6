"""
Confusion matrices of two decision rules
========================================

Probabilities become grades through a decision rule (:func:`ordmetrics.decide`). The
arg-max decision is the Bayes decision under zero-one cost; the median of the predicted
distribution is the Bayes decision under the absolute cost (the distance between grades),
which suits ordinal grades. The heat maps are normalised over the true classes (each row
sums to 1); an ordinal model's errors should stay near the diagonal.
"""

import matplotlib.pyplot as plt

import ordmetrics as om
from ordmetrics.datasets import load_diamonds_cut
from ordmetrics.plot import confusion_matrix_heatmap

ex = load_diamonds_cut("logit")

fig, axes = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
for ax, rule in zip(axes, ("argmax", "median"), strict=True):
    y_pred = om.decide(ex.y_proba, rule, labels=ex.labels)
    confusion_matrix_heatmap(
        ex.y_true, y_pred, labels=ex.labels, normalize="true", colorbar=False, ax=ax
    )
    qwk = om.qwk(ex.y_true, y_pred, labels=ex.labels)
    mae = om.mae(ex.y_true, y_pred, labels=ex.labels)
    ax.set_title(f"logit, {rule} decision: QWK {qwk:.3f}, MAE {mae:.3f}")
plt.show()
