"""
Per-sample scores by true class
===============================

The scoring rules give one number per sample (``reduction="none"``). Their distribution by
true class shows which grades a model handles badly. Both models score the common top
grades ``Premium`` and ``Ideal`` well. The gradient-boosted trees (``hgb``) struggle most
with ``Very Good``, a grade between two others on both sides; the logistic regression
(``logit``) also fails on the rare low grades ``Fair`` and ``Good``.
"""

import matplotlib.pyplot as plt
import numpy as np

import ordmetrics as om
from ordmetrics.datasets import load_diamonds_cut
from ordmetrics.plot import score_distributions

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained", sharey=True)
for ax, model in zip(axes, ("hgb", "logit"), strict=True):
    ex = load_diamonds_cut(model)
    score_distributions(ex.y_true, ex.y_proba, labels=ex.labels, by="rps", ax=ax)
    ax.set_title(f"RPS by true class, model {model}")
plt.show()

# %%
# The numbers behind the figure come from the scoring rule itself:

ex = load_diamonds_cut("hgb")
scores = om.rps(ex.y_true, ex.y_proba, labels=ex.labels, reduction="none")
for label in ex.labels:
    rows = np.asarray(ex.y_true) == label
    print(f"{label:>10}: {rows.sum():6d} rows, mean RPS {scores[rows].mean():.4f}")
