"""Scoring rules for probabilistic predictions of ordered (and unordered) classes.

Nine rules, each a per-sample score reduced by a weighted mean (lower is better):

=========== ==================================================== =========================
rule        per-sample score                                      range
=========== ==================================================== =========================
rps         (1/(K-1)) sum_{k<K} (F_k - H_k)^2                     [0, 1]
sa_rps      ((1/(K-1)) sum_{k<K} |F_k - H_k|)^2                   [0, 1]
brier       sum_k (p_k - 1{y=k})^2                                [0, 2]
log_loss    -ln p_y                                               [0, inf]
pbs         brier + (K-1)/K * m                                   [0, 2 + (K-1)/K]
pll         -ln p_y + ln(K) * m                                   [0, inf]
spherical   1 - p_y / ||p||_2                                     [0, 1]
pseudo-     1 - (p_y / ||p||_alpha)^(alpha-1), alpha > 1          [0, 1]
spherical
cdf_l1      (1/(K-1)) sum_{k<K} |F_k - H_k|                       [0, 1]
=========== ==================================================== =========================

F_k = p_1 + ... + p_k is the cumulative prediction, H_k = 1{y <= k} the cumulative truth, and
m = 1 when the arg-max decision (ties to the lowest class) differs from y (by default; see
:func:`pbs` for the authors' tie rule and scales).

Each rule is defined once, by a :class:`~ordmetrics._core.rule.ScoringRule` record in its
family module (:mod:`.cdf`: rps, sa_rps, cdf_l1; :mod:`.brier`: brier, pbs; :mod:`.log`:
log_loss, pll; :mod:`.spherical`): compiled kernel, array-API formula, options and registry
metadata. :func:`get_rule` gives the record of a registered rule. A new rule needs its module
(or a place in a family module) and one entry in the tuple registered below.
"""

from __future__ import annotations

from ordmetrics.metrics.scoring.base import RULES, ScoringRule, get_rule, register_rule
from ordmetrics.metrics.scoring.brier import BRIER, PBS, PBS_SCALES, TIES, brier, pbs
from ordmetrics.metrics.scoring.cdf import CDF_L1, RPS, SA_RPS, cdf_l1, rps, sa_rps
from ordmetrics.metrics.scoring.log import LOG_LOSS, PLL, log_loss, pll
from ordmetrics.metrics.scoring.spherical import SPHERICAL, pseudospherical, spherical

__all__ = [
    "PBS_SCALES",
    "RULES",
    "TIES",
    "ScoringRule",
    "brier",
    "cdf_l1",
    "get_rule",
    "log_loss",
    "pbs",
    "pll",
    "pseudospherical",
    "rps",
    "sa_rps",
    "spherical",
]

# The registry lists the rules in this order (section 5 of docs/definitions.md).
for _rule in (RPS, SA_RPS, BRIER, LOG_LOSS, PBS, PLL, SPHERICAL, CDF_L1):
    register_rule(_rule)
del _rule
