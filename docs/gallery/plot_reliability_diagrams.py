"""
Reliability diagrams: top-label, classwise and cumulative
=========================================================

A reliability diagram bins the forecasts and plots, per bin, the observed frequency of the
event against the mean forecast; a calibrated model follows the diagonal. ordmetrics draws
three views: the *top-label* view (the confidence of the predicted class), the *classwise*
view (each class's probability for the event "y is this class") and the ordinal
*cumulative* view (F_k = P(y <= k) for the event "y <= k", the calibration counterpart of
the RPS). The point areas show how much weight each bin holds; the legend gives the ECE of
each event.
"""

import matplotlib.pyplot as plt

from ordmetrics.datasets import load_diamonds_cut
from ordmetrics.plot import reliability_diagram

hgb, logit = load_diamonds_cut("hgb"), load_diamonds_cut("logit")

fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), layout="constrained", sharey=True)
for ax, ex in zip(axes, (hgb, logit), strict=True):
    reliability_diagram(ex.y_true, ex.y_proba, labels=ex.labels, view="top_label", ax=ax)
    ax.set_title(f"{ex.model}: {ax.get_title()}")
plt.show()

# %%
# The cumulative view has one curve per threshold k < K: "cut is Fair", "cut is at most
# Good", and so on. The logistic regression is visibly miscalibrated on the middle
# thresholds.

fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), layout="constrained", sharey=True)
for ax, ex in zip(axes, (hgb, logit), strict=True):
    reliability_diagram(
        ex.y_true, ex.y_proba, labels=ex.labels, view="cumulative", n_bins=10, ax=ax
    )
    ax.set_title(f"{ex.model}: {ax.get_title()}")
plt.show()
