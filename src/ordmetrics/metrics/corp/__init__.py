r"""CORP reliability diagrams and score decompositions (Dimitriadis, Gneiting & Jordan 2021).

CORP (consistent, optimally binned, reproducible, PAV-based) replaces the bins of a reliability
diagram by isotonic regression: for a binary event with forecasts x_i, outcomes o_i in {0, 1}
and weights w_i, the *recalibrated* forecast r_i is the weighted least-squares fit of o on x
under the constraint that it is a non-decreasing function of x, computed by the
pool-adjacent-violators algorithm (PAV). Equal forecast values form one tie group and always
get the same recalibrated value. The reliability curve plots r against x; there is no bin
count to choose, and the bins PAV finds are optimal (the fit minimises the Brier score, and
every proper scoring rule, among all non-decreasing recalibrations).

With the mean Brier score S(f) = sum_i w_i (f_i - o_i)^2 / W of a forecast f, and the
climatological forecast o-bar = sum_i w_i o_i / W (the same for every row), the CORP
decomposition is exact:

.. math::

    S(x) = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC},\qquad
    \mathrm{MCB} = S(x) - S(r),\quad \mathrm{DSC} = S(\bar o) - S(r),\quad
    \mathrm{UNC} = S(\bar o) = \bar o (1 - \bar o).

MCB >= 0 (miscalibration; 0 when the forecast equals its recalibration, lower is better),
DSC >= 0 (discrimination, higher is better), UNC >= 0 (uncertainty of the outcome, fixed by
the data). The events of a K-class forecast:

============  ==================================  ===========================================
event         binary event (one per ...)          forecast
============  ==================================  ===========================================
top_label     the argmax class is correct         confidence max_k p_k
class         y = k, for every class k            p_k
cumulative    y <= k, for k = 0..K-2 (ordinal)    F_k = p_0 + ... + p_k
============  ==================================  ===========================================

The multiclass Brier score is the sum of the binary Brier scores of the K class events and
the RPS the sum of those of the K - 1 cumulative events (divided by K - 1 when normalised), so
:func:`corp_decomposition` adds the parts event by event. The recalibrated forecasts are
recalibrated event by event: the recalibrated class probabilities of a row need not sum to 1,
nor need the recalibrated cumulative forecasts increase with k. That does not matter for the
decomposition, which is defined threshold by threshold, but the recalibrated values are no
forecast of the whole distribution.

Ties. Probabilities as given (``top_label``, ``class``) are tied when exactly equal. The
cumulative forecasts F_k are sums that ordmetrics computes, whose rounding can differ between
two rows with the same F_k in real numbers (``0.1 + 0.2`` and ``0.2 + 0.1`` differ in the last
bit); they are grouped by the tie rule that all of ordmetrics uses for computed values
(:mod:`ordmetrics._core.numerics`): sorted neighbours a <= b with b - a <= 1e-12 max(|a|, |b|)
are tied (purely relative: forecasts of 1e-16 and 1e-14 stay apart), the groups are the chains
of tied neighbours among the rows of positive weight, and a group shows as its smallest value.
The scores S themselves use the forecasts as computed, so that they equal
:func:`~ordmetrics.brier` and :func:`~ordmetrics.rps`. Weights are scaled by an exact power of
two first (the weight rule of :mod:`ordmetrics._core.numerics`), so every result is the same
for w and c w.

The functions are not registered metrics: a registered calibration metric returns one float
that :mod:`ordmetrics.stream` accumulates from fixed-size bin sums, while the PAV blocks need
all rows sorted together (they change with every new row) and MCB, DSC and UNC are parts of
one decomposition rather than one number.
"""

from ordmetrics.metrics.corp.decomposition import CorpDecomposition, corp_decomposition
from ordmetrics.metrics.corp.fit import BAND_POINTS, EVENTS, SCORES, computed_forecasts
from ordmetrics.metrics.corp.reliability import CorpCurve, CorpReliability, corp_reliability

__all__ = [
    "BAND_POINTS",
    "EVENTS",
    "SCORES",
    "CorpCurve",
    "CorpDecomposition",
    "CorpReliability",
    "computed_forecasts",
    "corp_decomposition",
    "corp_reliability",
]
