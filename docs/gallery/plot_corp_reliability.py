"""
CORP reliability diagrams: isotonic recalibration with consistency bands
========================================================================

A CORP reliability diagram (Dimitriadis, Gneiting & Jordan 2021) has no bins: every event's
forecast is recalibrated by isotonic regression (the pool-adjacent-violators algorithm), and
the recalibrated probability is plotted against the forecast. The shaded bands show where
the curve of a *calibrated* forecast would lie in 90% of resamples (outcomes drawn as
Bernoulli(forecast)); a curve leaving its band is evidence of miscalibration. The legend
gives each event's exact decomposition of the Brier score, S = MCB - DSC + UNC.

Here the cumulative events "cut <= k" of the two bundled models, whose Brier scores add up
to the RPS (times K - 1).
"""

import matplotlib.pyplot as plt

import ordmetrics as om
from ordmetrics.datasets import load_diamonds_cut
from ordmetrics.plot import corp_reliability_diagram

hgb, logit = load_diamonds_cut("hgb"), load_diamonds_cut("logit")

fig, axes = plt.subplots(1, 2, figsize=(12, 5.4), layout="constrained", sharey=True)
for ax, ex in zip(axes, (hgb, logit), strict=True):
    result = om.corp_reliability(
        ex.y_true,
        ex.y_proba,
        labels=ex.labels,
        event="cumulative",
        n_resamples=100,
        random_state=0,
    )
    corp_reliability_diagram(result, ax=ax)
    ax.set_title(f"{ex.model}: CORP, cumulative events")
plt.show()

# %%
# The decomposition of the RPS sums the parts of the K - 1 thresholds (divided by K - 1);
# the parts add up to ``om.rps`` exactly.

for ex in (hgb, logit):
    d = om.corp_decomposition(ex.y_true, ex.y_proba, labels=ex.labels, score="rps")
    print(f"{ex.model:>5}: RPS {d.score:.5f} = MCB {d.mcb:.5f} - DSC {d.dsc:.5f} + UNC {d.unc:.5f}")
