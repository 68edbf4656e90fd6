r"""Streaming evaluation: accumulators with a fixed-size state (update, merge, compute).

An :class:`Evaluator` is fed the predictions batch by batch with :meth:`Evaluator.update` and
keeps, whatever the number of rows N, one accumulator per shared table, of the family that each
metric's spec names (``accumulates``; :mod:`ordmetrics.evaluation.streaming.accumulators`):

* ``mean_score``: the weighted sum of the per-sample scores of every scoring rule (computed
  by the rule's own function with ``reduction="sum"``) and the total weight;
* ``confusion_matrix``: one weighted K x K confusion matrix per decision rule, from which
  :func:`ordmetrics.metrics.agreement.counts_evaluator` computes every agreement metric;
* ``calibration_bins``: the binned sums of the calibration errors (weight, forecast sum and
  event sum per bin, made by the binning of :mod:`ordmetrics.metrics.calibration`), one table
  per calibration view (the spec's ``accumulate_options["view"]``) and bin count; uniform bins
  only, since quantile bin edges depend on all the forecasts at once;
* ``rank_table``: for the ranking metrics (``c_index``, ``spearman``, ``kendall_tau``) one
  table of weights per (value of the expected grade g = sum_k k p_k, true class): exact while
  the grade takes at most ``max_exact`` distinct values, afterwards a grid of ``n_grid`` equal
  cells over [0, K - 1], rows in the same cell counting as tied.

A metric registered with one of these families streams with no change here; a metric whose
spec has ``accumulates=None`` (it needs every row at once) is refused by :class:`Evaluator`.

Evaluators of parts of the data merge into the evaluator of their union: ``a.merge(b)`` adds
``b`` to ``a`` in place (and returns ``a``), ``a + b`` makes a new evaluator and leaves both
unchanged; merging is associative and commutative. :meth:`Evaluator.compute`
returns a :class:`StreamResult`: the value of every metric and a bound on its error.

Exactness. The scoring rules, the agreement metrics and the calibration errors are exact: any
split of the rows into batches, fed in any order or merged in any tree, gives the value of
:func:`ordmetrics.evaluate` on all rows up to floating-point rounding (sums are added in another
order; about 1e-15 relative). So are the ranking metrics while the table is exact. On the grid,
rows whose grades fall into the same cell become tied; values in different cells keep their
order. Writing W_hc for the weight of class c in cell h, W_h = sum_c W_hc and W the total:

* C-index: binning can only turn an ordered pair of different classes into a tie, which moves
  its contribution by at most 1/2, so
  ``|error| <= T / (2 n_y)`` with T = sum_h sum_{c < c'} W_hc W_hc' (pairs of different
  classes in the same cell) and n_y the weight of all pairs of different classes.
* Kendall's tau-b = S / sqrt(n_y n_s): the true S differs from the binned one by at most T, and
  the true n_s (pairs with different scores) exceeds the binned one by at most
  A = sum_h W_h^2 / 2. The bound is the largest distance from the binned value to
  (S +- T) / sqrt(n_y (n_s + a)), a in [0, A].
* Spearman's rho = cov / sqrt(var_y var_s) of the centred mid-ranks: a row's true mid-rank
  differs from its cell's by at most W_h / 2, and these differences sum to 0 within a cell, so
  the covariance moves by at most sum_h (W_h / 2) sum_c W_hc |d_c - m_h| (d_c the mid-rank of
  class c, m_h its mean in cell h) and the score variance grows by at most sum_h W_h^3 / 12.
  The bound is computed as for tau.

Which of these bounds a ranking metric gets is named by its spec's
``accumulate_options["grid_bound"]`` (``"concordance"``, ``"tau_b"`` or ``"rho"``,
:mod:`ordmetrics.evaluation.streaming.ranks`); a ranking metric without one is bounded by
``inf`` once its table is on the grid.

Weight scale. Weights count only through their ratios, and the state is kept safe from
overflow and underflow whatever their scale: every weighted sum of the state is held in units of
2^e of the caller's weights, with one binary exponent e per evaluator chosen so that the largest
weight seen lies in [1, 2) (e = 0 for unit weights). A batch with larger weights raises e and
scales the state down by the exact power of two 2^-j; merging two evaluators scales the one of
smaller e the same way. The values are therefore those of the in-memory functions (which scale
the weights of all the rows by the same rule) for weights of any scale, from subnormals up to
the float maximum, in one batch or many. What float64 cannot represent is lost in both the same
way: a weight smaller than about 2^-1074 times the largest weight seen counts as 0 (weights of
1e-300 in a stream that also holds weights of 1e300 contribute nothing, as in memory), and
``total_weight`` and sums with ``reduction="sum"``, reported in the caller's units, are ``inf``
beyond the float maximum (1.8e308) while the means stay exact.

The bounds are exact computations from the table (0 for every exact metric); they hold for
every data set with that table. With the defaults (2^16 cells) and continuous grades they are
of the order of 1e-5 or smaller.

Examples
--------
>>> import numpy as np
>>> import ordmetrics
>>> from ordmetrics.stream import Evaluator
>>> rng = np.random.default_rng(0)
>>> y = rng.integers(0, 4, size=1000)
>>> P = rng.dirichlet(np.ones(4), size=1000)
>>> ev = Evaluator(["rps", "qwk", "c_index", "ece"])
>>> for start in range(0, 1000, 300):
...     ev.update(y[start:start + 300], P[start:start + 300])
>>> result = ev.compute()
>>> abs(result["rps"] - ordmetrics.rps(y, P)) < 1e-12
True
>>> result.bounds["c_index"]  # 1000 distinct grades <= max_exact: exact
0.0

With fewer exact values allowed, the C-index comes from the grid, with its bound:

>>> small = Evaluator(["c_index"], max_exact=100, n_grid=256)
>>> small.update(y, P)
>>> r = small.compute()
>>> abs(r["c_index"] - ordmetrics.c_index(y, P)) <= r.bounds["c_index"]
True
"""

from ordmetrics.evaluation.streaming.evaluator import Evaluator
from ordmetrics.evaluation.streaming.ranks import DEFAULT_MAX_EXACT, DEFAULT_N_GRID, MAX_TABLE
from ordmetrics.evaluation.streaming.result import StreamResult
from ordmetrics.evaluation.streaming.state import STATE_VERSION

__all__ = [
    "DEFAULT_MAX_EXACT",
    "DEFAULT_N_GRID",
    "MAX_TABLE",
    "STATE_VERSION",
    "Evaluator",
    "StreamResult",
]
