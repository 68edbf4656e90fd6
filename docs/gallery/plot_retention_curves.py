"""
Retention curves and AURSC
==========================

Rank the samples best first by a per-sample scoring rule, remove the worst-scored ones
step by step (keeping the fraction f = 1.000, 0.975, ..., 0.500) and compute the quadratic
weighted kappa of the arg-max decisions on what is kept. A rule that ranks the wrong
predictions last makes the curve rise fast; the area under it, divided by the span of the
fractions (AURSC), is given in the legend. The oracle (the best possible removal order for
the metric) and the expectation under random removal frame the curves.
"""

import matplotlib.pyplot as plt

import ordmetrics as om
from ordmetrics.datasets import load_diamonds_cut
from ordmetrics.plot import retention_curves

ex = load_diamonds_cut("hgb")

fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
retention_curves(
    ex.y_true,
    ex.y_proba,
    labels=ex.labels,
    by=["brier", "log_loss", "rps", "sa_rps", "pbs"],
    metric="qwk",
    ax=ax,
)
ax.set_title("Retention curves of the hgb model (QWK of the arg-max decision)")
plt.show()

# %%
# The same curve as numbers: :func:`ordmetrics.retention_curve` returns the retained
# fractions, the metric at each of them and the area.

curve = om.retention_curve(ex.y_true, ex.y_proba, labels=ex.labels, by="rps", metric="qwk")
print(f"AURSC (QWK, ranked by RPS): {curve.area:.4f}")
print(f"QWK with all rows: {curve.values[0]:.4f}; with the best half: {curve.values[-1]:.4f}")
