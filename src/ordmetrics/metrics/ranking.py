r"""Ranking metrics: how well a scalar score orders the rows by their true ordinal class.

Three measures of ordinal association between the truth y and a score s, all computed from
one sort of the scores (O(N log N + N log K) time, O(N + K) memory, never a loop over pairs):

=========== ========================================================== ========= ==========
metric      definition                                                 range     random
=========== ========================================================== ========= ==========
c_index     P(s_i < s_j | y_i < y_j), score ties counted 1/2           [0, 1]    0.5
spearman    Pearson correlation of the (mid-)ranks of y and s          [-1, 1]   0
kendall_tau tau-b: (C - D) / sqrt((n0 - n1)(n0 - n2))                  [-1, 1]   0
=========== ========================================================== ========= ==========

``y_score`` is either a 1-D score per row or a 2-D probability matrix of shape (N, K), which is
ranked by its expected grade sum_k k p_k (k = 0..K-1). The expected grade is computed, so it
carries rounding (``[0.4, 0, 0.6]`` and ``[0.2, 0.4, 0.4]`` give 1.2 and 1.2000000000000002):
expected grades are grouped into ties by the rule of :mod:`ordmetrics._core.numerics` (sorted
neighbours within 1e-12 max(|a|, |b|) of each other are tied, chained into groups, among the
rows of positive weight), which never depends on the row order. A 1-D score is the caller's and
is compared exactly.

Weights are frequency weights: a row of integer weight w counts exactly as w repeated rows (so
it forms w (w - 1) / 2 pairs with itself, tied in both y and s, and w_i w_j pairs with row j).
They are scaled by an exact power of two first (:func:`ordmetrics._core.numerics.scale_weights`),
so every result is the same for w and c w, and rows of weight 0 take no part (not even in the
tie groups).

Algorithm. The rows are sorted by score once and walked tie group by tie group, keeping the
cumulative weight of each class among the rows already passed in a Fenwick tree over the
classes. A row of class y and weight w in a group that starts after cumulative weight B adds
w (L - G) to S = C - D, where L and G are the weights passed in classes below and above y.
The same walk yields the weight of the pairs with distinct scores, sum_h W_h B_h, and the
centred weighted mid-ranks B_h + W_h / 2 - W / 2 used by Spearman (the mean mid-rank is exactly
(W + 1) / 2, so centring costs nothing and loses no precision). Pairs tied in y or in s
contribute nothing to S, and the self-pairs of a weighted row cancel from every formula.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import (
    TIE_TOLERANCE,
    scale_weights,
)
from ordmetrics._core.registry import register
from ordmetrics._core.validation import (
    NAN_POLICIES,
    Prepared,
    check_option,
    is_pandas,
    is_polars,
    prepare_proba,
    prepare_scores,
)
from ordmetrics._core.warnings import warn_undefined
from ordmetrics.metrics.rank_sums import (
    Sums,
    counts_walk,
    dense_codes,
    expected_grade,
)

__all__ = ["Sums", "c_index", "expected_grade", "kendall_tau", "spearman"]

#: The parameters every metric shares, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_PARAMS_TEMPLATE = """\
    %(y_true_score)s
    %(y_score)s
    %(labels_score)s
    %(sample_weight)s
    %(nan_policy_score)s"""

_PROBA_NOTE = (
    " (A 2-D y_score is read as class probabilities, one column per class in ordinal order, "
    "and ranked by its expected grade sum_k k p_k; pass a 1-D array to rank by another score.)"
)


# --------------------------------------------------------------------------------------------
# Input handling (every check and message comes from ordmetrics._core.validation)
# --------------------------------------------------------------------------------------------


def _is_matrix(y_score: Any) -> bool:
    """Whether ``y_score`` is 2-D with at least two columns (a probability matrix)."""
    if is_pandas(y_score, "DataFrame") or is_polars(y_score, "DataFrame"):
        return y_score.shape[1] > 1
    try:
        shape = np.shape(y_score)
    except (ValueError, TypeError):
        return False  # ragged input: as_scores explains what is wrong
    return len(shape) == 2 and shape[1] > 1


def _prepare_proba(
    y_true: Any, y_score: Any, labels: Any, sample_weight: Any, nan_policy: str
) -> Prepared:
    """A probability matrix, validated like the scoring rules, reduced to its expected grade."""
    try:
        prep = prepare_proba(
            y_true,
            y_score,
            labels=labels,
            sample_weight=sample_weight,
            nan_policy=nan_policy,
            name="y_score",
            renormalize_hint=False,
        )
    except (ValueError, TypeError) as exc:
        raise type(exc)(str(exc) + _PROBA_NOTE) from None
    grade = expected_grade(prep.other)
    return Prepared(prep.y_true, grade, prep.weight, prep.n_classes, prep.labels, prep.propagate)


def _prepare(
    y_true: Any, y_score: Any, labels: Any, sample_weight: Any, nan_policy: str
) -> tuple[Prepared, bool]:
    """Validated inputs, and whether the score is computed (an expected grade, tied by the
    rule of :mod:`ordmetrics._core.numerics`) rather than given (compared exactly)."""
    check_option(nan_policy, "nan_policy", NAN_POLICIES)
    if _is_matrix(y_score):
        return _prepare_proba(y_true, y_score, labels, sample_weight, nan_policy), True
    prep = prepare_scores(
        y_true, y_score, labels=labels, sample_weight=sample_weight, nan_policy=nan_policy
    )
    return prep, False


# --------------------------------------------------------------------------------------------
# Public metrics
# --------------------------------------------------------------------------------------------


@fill_doc(params=_PARAMS_TEMPLATE)
def c_index(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Ordinal C-index: the probability that a higher class gets a higher score.

    .. math::

        C = \frac{\sum_{i,j:\, y_i < y_j} w_i w_j \big(1\{s_i < s_j\}
            + \tfrac12 1\{s_i = s_j\}\big)}{\sum_{i,j:\, y_i < y_j} w_i w_j}

    Over all pairs of rows from different classes, the fraction ordered correctly by the
    score, ties in the score counting one half. For K = 2 it is the area under the ROC curve.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The C-index; NaN (with an ``UndefinedMetricWarning``) when fewer than two classes have
        positive weight, since no pair of rows can then be compared.

    Notes
    -----
    Range [0, 1]; higher is better: 1 for a score that orders every pair correctly, 0.5 for a
    random or constant score, 0 for a reversed one. Invariant under strictly increasing
    transforms of the score, and ``c_index(y, -s) = 1 - c_index(y, s)``. Equal to
    (1 + S / n_y) / 2 with S the concordant minus the discordant pair weight and n_y the weight
    of the pairs of distinct classes; computed in O(N log N) time from one sort of the scores.

    A 2-D ``y_score`` is ranked by the expected grade sum_k k p_k (k = 0..K-1), the default
    score of Waegeman et al. for probabilistic ordinal predictions; expected grades equal
    within 1e-12 are ties (module notes), so the result never depends on the row order.

    References
    ----------
    .. [1] Waegeman, W., De Baets, B., Boullart, L. (2008). ROC analysis in ordinal regression
       learning. Pattern Recognition Letters 29(1), 1-9.
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., Rosati, R. A. (1982).
       Evaluating the yield of medical tests. JAMA 247(18), 2543-2546.

    Examples
    --------
    >>> from ordmetrics.metrics.ranking import c_index
    >>> c_index([0, 0, 1, 2], [0.1, 0.4, 0.35, 0.8])
    0.8
    >>> c_index([0, 1, 2], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.2, 0.6, 0.2]])
    0.666666667
    >>> c_index(["low", "high", "mid"], [1.0, 3.0, 2.0], labels=["low", "mid", "high"])
    1.0

    Both rows below have expected grade 1.2 (computed as 1.2 and 1.2000000000000002): a tie.

    >>> c_index([0, 1], [[0.4, 0.0, 0.6], [0.2, 0.4, 0.4]])
    0.5
    """
    prep, computed = _prepare(y_true, y_score, labels, sample_weight, nan_policy)
    if prep.propagate:
        return math.nan
    sums = Sums(prep, pairs=True, ranks=False, computed=computed)
    if sums.y_groups < 2:
        warn_undefined(
            "c_index",
            "y_true has a single class (with positive weight), so no pair of rows of different "
            "classes can be compared",
        )
        return math.nan
    return min(1.0, max(0.0, 0.5 + 0.5 * sums.S / sums.n_y))


@fill_doc(params=_PARAMS_TEMPLATE)
def kendall_tau(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Kendall's tau-b between the true classes and the score.

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    C and D are the (weighted) numbers of concordant and discordant pairs, n_0 the number of
    pairs, n_1 the pairs tied in ``y_true`` and n_2 the pairs tied in the score. With frequency
    weights n_0 = (W^2 - sum_i w_i^2) / 2, n_1 = sum_k (W_k^2 - sum_{y_i = k} w_i^2) / 2 and
    likewise n_2 over the tie groups of the score (W the total weight, W_k that of class k).

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        Tau-b; NaN (with an ``UndefinedMetricWarning``) when ``y_true`` or the score is constant
        (over the rows of positive weight).

    Notes
    -----
    Range [-1, 1]; higher is better: 1 for a score that orders every pair of distinct classes
    correctly and ties no such pair, 0 for no association, -1 for a reversed order. With
    ordinal truth it cannot reach 1 unless the score has exactly as many tie groups as there
    are classes. Unweighted it equals ``scipy.stats.kendalltau(variant="b")``; integer weights
    give the value of the repeated rows. O(N log N + N log K) time: one sort of the scores and
    a Fenwick tree over the K classes.

    References
    ----------
    .. [1] Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33(3),
       239-251.
    .. [2] Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped
       data. Journal of the American Statistical Association 61(314), 436-439.

    Examples
    --------
    >>> from ordmetrics.metrics.ranking import kendall_tau
    >>> kendall_tau([0, 0, 1, 2], [0.1, 0.4, 0.35, 0.8])
    0.547722558
    >>> kendall_tau([0, 1, 2], [3.0, 2.0, 1.0])
    -1.0
    """
    prep, computed = _prepare(y_true, y_score, labels, sample_weight, nan_policy)
    if prep.propagate:
        return math.nan
    sums = Sums(prep, pairs=True, ranks=False, computed=computed)
    if sums.y_groups < 2 or sums.score_groups < 2:
        warn_undefined("kendall_tau", _constant_reason(sums))
        return math.nan
    return _correlation(sums.S, sums.n_y, sums.n_s)


@fill_doc(params=_PARAMS_TEMPLATE)
def spearman(
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> float:
    r"""Spearman's rank correlation: the Pearson correlation of the mid-ranks.

    .. math::

        \rho = \frac{\sum_i w_i (r_i - \bar r)(q_i - \bar q)}
            {\sqrt{\sum_i w_i (r_i - \bar r)^2 \, \sum_i w_i (q_i - \bar q)^2}}

    r_i and q_i are the weighted mid-ranks of y_i and s_i: the rows of a tie group of total
    weight W_g that follows cumulative weight B all get the rank B + (W_g + 1) / 2, and the
    mean rank is (W + 1) / 2 for both.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        Rho; NaN (with an ``UndefinedMetricWarning``) when ``y_true`` or the score is constant
        (over the rows of positive weight).

    Notes
    -----
    Range [-1, 1]; higher is better: 1 for a score whose tie groups match the classes and are
    in the same order, 0 for no association, -1 for a reversed order. Unweighted it equals
    ``scipy.stats.spearmanr``; integer weights give the value of the repeated rows. O(N log N)
    time.

    The textbook formula 1 - 6 sum d_i^2 / (N (N^2 - 1)) holds only without ties, and ordinal
    truth always has ties, so it is not used. (A printed variant with N (N - 1) in the
    denominator is wrong even without ties.)

    References
    ----------
    .. [1] Spearman, C. (1904). The proof and measurement of association between two things.
       American Journal of Psychology 15(1), 72-101.
    .. [2] Kendall, M. G., Gibbons, J. D. (1990). Rank Correlation Methods, 5th ed., ch. 3
       (tied ranks). Edward Arnold.

    Examples
    --------
    >>> from ordmetrics.metrics.ranking import spearman
    >>> spearman([0, 0, 1, 2], [0.1, 0.4, 0.35, 0.8])
    0.632455532
    >>> spearman([0, 0, 1, 1], [1.0, 2.0, 3.0, 4.0], sample_weight=[1, 0, 0, 1])
    1.0
    """
    prep, computed = _prepare(y_true, y_score, labels, sample_weight, nan_policy)
    if prep.propagate:
        return math.nan
    sums = Sums(prep, pairs=False, ranks=True, computed=computed)
    if sums.y_groups < 2 or sums.score_groups < 2:
        warn_undefined("spearman", _constant_reason(sums))
        return math.nan
    return _correlation(sums.cov, sums.var_y, sums.var_s)


def counts_evaluator(
    name: str,
    y_true: Any,
    y_score: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
) -> tuple[Callable[[np.ndarray], float], int] | None:
    """Prepare a ranking metric once for many evaluations under frequency weights.

    Validates and encodes the inputs once, sorts the rows by their score once, and returns
    ``(evaluate, n)``: ``evaluate(counts)`` is the metric ``name`` (``"c_index"``,
    ``"kendall_tau"`` or ``"spearman"``) with ``sample_weight = w * counts``, ``counts`` a
    vector over the ``n`` scored rows (the complete rows under ``nan_policy="omit"``, in
    order). Each evaluation reuses the order: the rows of positive weight are taken from it,
    grouped into ties by the rule of :mod:`ordmetrics._core.numerics` and walked as in the metric
    itself, in O(N log K) time (no sort, no validation). Returns None when the inputs propagate
    a missing value (the metric is then NaN whatever the counts). An evaluation warns nothing;
    an undefined value is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.ranking import c_index, counts_evaluator
    >>> y, s = [0, 0, 1, 2], [0.1, 0.4, 0.35, 0.8]
    >>> evaluate, n = counts_evaluator("c_index", y, s)
    >>> c = np.array([2.0, 0.0, 1.0, 3.0])
    >>> evaluate(c) == c_index(y, s, sample_weight=c)
    True
    """
    if name not in ("c_index", "kendall_tau", "spearman"):
        raise ValueError(f"name must be 'c_index', 'kendall_tau' or 'spearman'; got {name!r}.")
    prep, computed = _prepare(y_true, y_score, labels, sample_weight, nan_policy)
    if prep.propagate:
        return None
    y, k = dense_codes(prep.y_true, prep.n_classes)
    score = prep.other
    base = prep.weight
    order = np.argsort(score, kind="stable")
    s_sorted = score[order]
    y_sorted = np.ascontiguousarray(y[order])
    pairs = name != "spearman"
    ranks = not pairs

    def evaluate(counts: np.ndarray) -> float:
        v = counts if base is None else base * counts
        w, _ = scale_weights(v)  # as the metric scales its sample_weight
        wk = np.bincount(y, weights=w, minlength=k).astype(np.float64, copy=False)
        before_k = np.cumsum(wk) - wk
        total = float(wk.sum())
        y_groups = int(np.count_nonzero(wk > 0))
        n_y = float(wk @ before_k)
        d_class = before_k + 0.5 * wk - 0.5 * total
        var_y = float(wk @ (d_class * d_class))
        S, n_s, groups, cov, var_s = counts_walk(
            s_sorted, y_sorted, order, w, computed, TIE_TOLERANCE, k, total, d_class, pairs, ranks
        )
        if name == "c_index":
            if y_groups < 2:
                return math.nan
            return min(1.0, max(0.0, 0.5 + 0.5 * float(S) / n_y))
        if y_groups < 2 or groups < 2:
            return math.nan
        if name == "kendall_tau":
            return _correlation(float(S), n_y, float(n_s))
        return _correlation(float(cov), var_y, float(var_s))

    return evaluate, int(y.size)


def _correlation(num: float, a: float, b: float) -> float:
    """num / sqrt(a b), clipped to [-1, 1], as num / sqrt(a) / sqrt(b).

    a and b are sums of products of scaled weights (each below 1): with weights spanning 1e160
    their product falls among the subnormals (0.998 for a perfect ranking) and from 1e165
    to 0; their square roots, and the quotients, stay normal.
    """
    return min(1.0, max(-1.0, num / math.sqrt(a) / math.sqrt(b)))


def _constant_reason(sums: Sums) -> str:
    if sums.y_groups < 2:
        return "y_true has a single class (with positive weight), so it has no ranking"
    return "y_score is constant (over the rows with positive weight), so it has no ranking"


# --------------------------------------------------------------------------------------------
# Registry entries (docs/definitions.md, section 3)
# --------------------------------------------------------------------------------------------

register(
    c_index,
    kind="ranking",
    accumulate_options={"grid_bound": "concordance"},
    direction="maximize",
    range=(0, 1),
    perfect=1.0,
    description="ordinal C-index (AUC for K = 2); 0.5 = random",
)
register(
    spearman,
    kind="ranking",
    accumulate_options={"grid_bound": "rho"},
    direction="maximize",
    range=(-1, 1),
    perfect=1.0,
    description="Spearman rank correlation (Pearson of mid-ranks)",
)
register(
    kendall_tau,
    kind="ranking",
    accumulate_options={"grid_bound": "tau_b"},
    direction="maximize",
    range=(-1, 1),
    perfect=1.0,
    description="Kendall tau-b",
)
