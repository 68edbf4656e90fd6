r"""Retention curves and the area under them (AURSC), Galdran (MICCAI 2023) Sect. 2.4.

A per-sample score S (a scoring rule such as the RPS, lower is better) ranks the rows from the
best prediction to the worst; removing the worst rows first and computing a set metric (QWK,
expected cost, ...) on the rows that remain gives one point of the *retention curve* for each
retained fraction f. A score that recognises bad ordinal predictions makes the metric improve
quickly as rows are removed; the normalised area under the curve (AURSC) sums this up in one
number.

The rows are sorted once (without weights, only the scores at the cuts are selected); the
confusion counts of every retained subset are cumulative sums of the per-row cell counts
between consecutive cut points, and the metric is evaluated on all of
them in one batched call of :func:`ordmetrics.metrics.agreement.counts_evaluator`:
O(N log N + M K^2) for M fractions, never a recomputation per fraction. The inputs (fractions,
per-sample scores, decisions, the ranking) are checked in
:mod:`ordmetrics.evaluation.retention_inputs`; the cuts, the random baseline and the area are
computed in :mod:`ordmetrics.evaluation.retention_baselines`, the random draws in
:mod:`ordmetrics.evaluation.retention_sampler` (and, evaluated as drawn for kappa, in
:mod:`ordmetrics.evaluation.retention_kappa`).

AURSC is a registered metric of kind ``"retention"`` (:data:`RETENTION_KIND`): computed from
the probabilities, with no accumulator family (it ranks every row at once, so it is not
streamed), and with the direction and range of its set metric ``metric=`` (QWK by default).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.random import make_rng
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
    register,
)
from ordmetrics._core.validation import (
    fmt_values,
    type_name,
)
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.evaluation.retention_baselines import (
    RandomDraws,
    _area,
    _cell_losses,
    _integer_units,
    _prefix_counts,
    _segment_counts,
    _targets,
)
from ordmetrics.evaluation.retention_inputs import (
    DEFAULT_FRACTIONS,
    _check_fractions,
    _check_n_random,
    _hard_predictions,
    _is_scoring_rule,
    computed_scores,
    per_sample_scores,
    prepare,
    rank_best_first,
    segments_at_cuts,
)
from ordmetrics.evaluation.retention_kappa import integer_kappa_weights
from ordmetrics.metrics.agreement import (
    AGREEMENT_METRICS,
    counts_evaluator,
)

__all__ = [
    "DEFAULT_FRACTIONS",
    "RETENTION_KIND",
    "RetentionCurve",
    "aursc",
    "computed_scores",
    "per_sample_scores",
    "prepare",
    "rank_best_first",
    "retention_curve",
]

#: The registry kind of the metrics computed from a retention curve (AURSC): their direction
#: and range are those of their set metric ``metric=``.
RETENTION_KIND = "retention"

#: Metrics that are weighted means of a per-row loss (``expected_cost`` only unnormalised):
#: they have an oracle curve, and random removal leaves their expectation unchanged.
DECOMPOSABLE = ("expected_cost", "mae", "accuracy", "within_k_accuracy")

#: The arguments every agreement metric takes; the others are its options (``metric_kwargs``).
_COMMON_PARAMS = frozenset({"y_true", "y_pred", "labels", "sample_weight", "nan_policy"})


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class RetentionCurve:
    """A retention curve and its baselines (computed by :func:`retention_curve`).

    Arrays are read-only and have one entry per retained fraction, in the order of
    ``fractions``.

    Attributes
    ----------
    fractions : ndarray of shape (M,)
        Retained fractions f, strictly decreasing, in (0, 1].
    values : ndarray of shape (M,)
        The metric on the rows retained at each fraction (NaN where it is undefined).
    area : float
        AURSC: the trapezoidal area under (f, value) divided by the span of f (see
        :func:`aursc`); NaN when a value is NaN.
    by : str
        Name of the per-sample score that ranks the rows (``"custom"`` for an array or an
        anonymous callable).
    metric : str
        Name of the agreement metric.
    n_retained : ndarray of shape (M,)
        Retained weight T(f): the number of rows n(f) without weights, ``int64`` when all
        weights are integers, ``float64`` otherwise.
    oracle : ndarray of shape (M,) or None
        The curve of the best possible removal (rows with the worst per-row loss removed
        first) for the metrics that are means of a per-row loss; None for the others.
    random : ndarray of shape (M,) or None
        The expected metric when the removed rows are chosen uniformly at random: exact for
        the mean-of-loss metrics with integer weights, a Monte Carlo estimate otherwise;
        None where it would need the estimate and ``n_random=0``.
    decision : str
        The decision rule that turned probabilities into classes, or ``"custom"`` for given
        hard predictions.
    """

    fractions: np.ndarray
    values: np.ndarray
    area: float
    by: str
    metric: str
    n_retained: np.ndarray
    oracle: np.ndarray | None
    random: np.ndarray | None
    decision: str

    def __repr__(self) -> str:
        f = self.fractions
        return (
            f"RetentionCurve(by={self.by!r}, metric={self.metric!r}, "
            f"decision={self.decision!r}, area={self.area:.6g}, {f.size} fractions from "
            f"{f[0]:g} to {f[-1]:g}, oracle={'yes' if self.oracle is not None else 'no'}, "
            f"random={'yes' if self.random is not None else 'no'})"
        )


@functools.lru_cache(maxsize=64)
def _options_of(func: Callable[..., Any]) -> list[str]:
    """The options of an agreement metric's function: its parameters but the common ones."""
    return [p for p in inspect.signature(func).parameters if p not in _COMMON_PARAMS]


def _metric_evaluator(
    metric: Any, metric_kwargs: Any, n_classes: int
) -> tuple[Callable[[np.ndarray], np.ndarray], dict[str, Any]]:
    """The batched evaluator of ``metric`` with its options checked, and the options."""
    allowed = ", ".join(AGREEMENT_METRICS)
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be the name of an agreement metric ({allowed}); got "
            f"{type_name(metric)} {metric!r}."
        )
    if metric not in AGREEMENT_METRICS:
        hint = (
            f" {metric!r} is a scoring rule: it scores single rows; pass it as by= to rank them."
            if metric in list_metrics("scoring_rule")
            else ""
        )
        raise ValueError(
            f"metric must be an agreement metric computed on the retained rows, one of "
            f"{allowed}; got {metric!r}.{hint}"
        )
    if metric_kwargs is None:
        options: dict[str, Any] = {}
    elif isinstance(metric_kwargs, Mapping):
        options = dict(metric_kwargs)
    else:
        raise TypeError(
            f"metric_kwargs must be a dict of options of {metric} (e.g. {{'costs': 'squared'}} "
            f"for expected_cost), or None; got {type_name(metric_kwargs)} {metric_kwargs!r}."
        )
    accepted = _options_of(get_metric(metric).func)
    unknown = sorted(set(options) - set(accepted), key=str)
    if unknown:
        takes = f"takes {', '.join(accepted)}" if accepted else "takes no options"
        raise TypeError(
            f"metric_kwargs has {fmt_values(unknown)}, which {metric} does not accept; "
            f"{metric} {takes}."
        )
    try:
        evaluator = counts_evaluator(metric, n_classes, **dict(options))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"metric_kwargs of {metric}: {exc}") from None
    return evaluator, options


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def _compute(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any,
    metric: Any,
    fractions: Any,
    decision: Any,
    labels: Any,
    sample_weight: Any,
    metric_kwargs: Any,
    baselines: bool,
    n_random: int,
    random_state: Any,
) -> RetentionCurve:
    prep = prepare(y_true, y_proba, labels, sample_weight)
    f = _check_fractions(fractions)
    k = prep.n_classes
    kk = k * k
    evaluate, options = _metric_evaluator(metric, metric_kwargs, k)
    # a scoring rule named by ``by`` is computed after the random draws have started (in the
    # background, while the scores and the curve are computed); other ``by`` first, in the
    # order of the checks
    rule = by.name if isinstance(by, MetricSpec) else by
    scores_later = isinstance(rule, str) and _is_scoring_rule(rule)
    if not scores_later:
        scores, by_name = per_sample_scores(by, y_true, y_proba, prep, labels)
    yhat, decision_name = _hard_predictions(decision, prep)
    w = prep.weight
    w_exp = 0
    if w is not None and not _integer_units(w):
        # non-integer weights only matter through their ratios: scaled by an exact power of
        # two (ordmetrics._core.numerics), their cumulative sums cannot overflow or underflow
        w, w_exp = scale_weights(w)
    cells = prep.y_true * k + yhat
    # a row of weight 0 is absent (the tie rule's groups are of rows of positive weight): left
    # out before ranking and drawing, it changes no cut, no near-tie and no random draw
    present = None
    if w is not None and not (w > 0).all():
        present = np.flatnonzero(w > 0)
        cells, w = cells[present], w[present]
    n = cells.size
    targets, integer, total = _targets(f, w, n)
    tol = 0.0 if integer else 4.0 * n * np.finfo(np.float64).eps * total

    full_counts = np.bincount(cells, weights=w, minlength=kk).astype(np.float64)
    decomposable = metric in DECOMPOSABLE and not (
        metric == "expected_cost" and options.get("normalize", False)
    )
    exact_random = decomposable and integer
    mc = baselines and n_random > 0 and not exact_random
    if mc:
        # the random draws start now (in the background), while the curve is computed
        draws = RandomDraws(
            full_counts,
            cells,
            w,
            targets,
            n_random,
            make_rng(random_state),  # True is not the seed 1
            k,
            tol,
            integer,
            total,
            background=True,
            kappa_weights=lambda units: integer_kappa_weights(metric, options, k, units),
        )
    if scores_later:
        scores, by_name = per_sample_scores(by, y_true, y_proba, prep, labels)
    if present is not None:
        scores = scores[present]
    # the scores of a scoring rule are computed, so their near-ties are ties (_numerics)
    computed = computed_scores(by_name)
    seg = None
    if w is None:
        # without weights only the sets of rows kept at the cuts matter, not their order
        cuts = np.unique(targets.astype(np.int64))
        cuts = cuts[cuts < n]
        seg = (
            segments_at_cuts(scores, cuts, computed=computed)
            if cuts.size
            else np.zeros(n, dtype=np.int64)
        )
    if seg is not None:
        curve_counts = _segment_counts(cells, seg, cuts, targets, kk)
    else:
        # weights, or a cut inside a tie: rank the rows (without weights every cut keeps at
        # least min(T) rows, whose order does not matter)
        head = int(targets.min()) if w is None else 0
        order = rank_best_first(scores, head=head, computed=computed)
        curve_counts = _prefix_counts(cells, w, order[None, :], targets, kk, tol)
    stacks = [full_counts[None, None, :], curve_counts]
    if baselines and decomposable:
        cell_value = _cell_losses(metric, options, k).ravel()
        sign = 1.0 if get_metric(metric).direction == "minimize" else -1.0
        # rank of each cell's loss among the distinct losses: a small integer key, so the
        # stable sort is a radix sort
        _, key = np.unique(sign * cell_value, return_inverse=True)
        key = key.astype(np.int16 if kk <= np.iinfo(np.int16).max else np.int64)
        oracle_order = np.argsort(key[cells], kind="stable")
        stacks.append(_prefix_counts(cells, w, oracle_order[None, :], targets, kk, tol))
    if mc:
        random_mean = draws.mean(evaluate)
    sizes = [s.shape[0] * s.shape[1] for s in stacks]
    flat = np.concatenate([s.reshape(-1, kk) for s in stacks], axis=0)
    values_all = evaluate(flat.reshape(-1, k, k))  # one batched evaluation of every matrix
    pieces = np.split(values_all, np.cumsum(sizes)[:-1])
    full_value = float(pieces[0][0])
    values = pieces[1]
    oracle = pieces[2] if baselines and decomposable else None
    random: np.ndarray | None = None
    if baselines and exact_random:
        random = np.full(f.size, full_value)
    elif mc:
        random = random_mean

    undefined = np.isnan(values)
    if undefined.any():
        warnings.warn(
            f"{metric} is undefined on the rows retained at fractions "
            f"{fmt_values(f[undefined].tolist())} (e.g. a single class throughout); those "
            "values are NaN, and so is the area.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    with np.errstate(over="ignore"):  # the caller's units (inf beyond the float range)
        n_retained = targets.astype(np.int64) if integer else np.ldexp(targets, w_exp)
    return RetentionCurve(
        fractions=_frozen(f),
        values=_frozen(values),
        area=_area(f, values),
        by=by_name,
        metric=metric,
        n_retained=_frozen(n_retained),
        oracle=None if oracle is None else _frozen(oracle),
        random=None if random is None else _frozen(random),
        decision=decision_name,
    )


#: The parameters of both functions, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_PARAMS_TEMPLATE = """\
    %(y_true)s
    %(y_proba)s
    %(by)s
        The rows with the highest scores are removed first.
    metric : str, default "qwk"
        The agreement metric computed on the retained rows: one of ``"kappa"``, ``"qwk"``,
        ``"expected_cost"``, ``"mae"``, ``"amae"``, ``"mmae"``, ``"accuracy"``,
        ``"within_k_accuracy"``, ``"macro_f1"``. Always over the full label set (K classes).
    fractions : array-like of shape (M,), optional
        Retained fractions, strictly decreasing, in (0, 1]. Default: 1.000, 0.975, ...,
        0.500 (21 points, :data:`DEFAULT_FRACTIONS`).
    decision : {"argmax", "median", "expected", "min_cost"} or array-like of shape \
(n_samples,), default "argmax"
        How each probability row becomes a class: a rule of
        :func:`~ordmetrics.metrics.decisions.decide` (``"min_cost"`` with its default absolute
        costs;
        for another cost matrix pass ``decide(y_proba, "min_cost", costs=C)``), or the hard
        predictions themselves (class indices, or labels when ``labels`` is given).
    %(labels)s
    %(sample_weight)s
        See Notes for how the rows are cut at each fraction.
    metric_kwargs : dict, optional
        Options of ``metric``: ``{"weights": ...}`` for kappa, ``{"costs": ..., "normalize":
        ...}`` for expected_cost, ``{"k": ...}`` for within_k_accuracy."""

#: The notes of both functions.
_NOTES = r"""
    **Ranking.** Rows are ranked best first by score ascending, ties by original position
    ascending (a stable sort). The scores of a scoring rule named by ``by`` are computed, so
    they carry rounding (``rps`` gives 0.225 and 0.22499999999999998 for two rows whose RPS is
    9/40): they are grouped into ties by the rule of :mod:`ordmetrics._core.numerics` (within
    1e-12 max(|a|, |b|), chained), and a tie group keeps the original order. An infinite score
    (``log_loss`` of a zero probability on the true class) is tied only with an equal
    infinity: +inf ranks after every finite score. Scores passed as an array or returned by a
    callable are compared exactly. Rows of weight 0 are left out: they change no cut and join
    no two scores into a tie.

    At a fraction f the first n(f) = max(1, floor(f N + 1/2)) rows are kept, so the
    worst-scored rows are removed first (N = 10: f = 0.25 keeps 3 rows, f = 0.45 keeps 5).
    With ``sample_weight``, N becomes the total weight W and the kept weight is
    T(f) = max(1, floor(f W + 1/2)) when every weight is an integer (unit weights included),
    f W otherwise; rows enter in ranking order until their cumulative weight reaches T(f),
    the boundary row contributing only the part of its weight that is needed. A row of
    weight 3 cut after 2 of its 3 units counts with weight 2, exactly as 3 repeated rows of
    which 2 are kept. Integer weights count as units only while their sum is exact in
    float64 (at most 2^53); other weights are scaled by an exact power of two first, so the
    curve is the same for w and c w (``n_retained`` stays in the caller's units).

    **AURSC.** With the fractions f_0 > ... > f_{M-1} and values v_j,

    .. math::

        \mathrm{AURSC} = \frac{1}{f_0 - f_{M-1}} \sum_{j=0}^{M-2}
        (f_j - f_{j+1}) \, \frac{v_j + v_{j+1}}{2},

    the trapezoidal area divided by the span of the fractions, so that a constant curve m
    has AURSC m and the AURSC is on the scale of the metric (QWK in [-1, 1], higher is
    better; expected cost, lower is better). With a single fraction it is that value. The
    AURSC values printed in the paper's Table 1 (13-18 for QWK) are on an unstated,
    unnormalized scale and cannot be compared with these.

    **Algorithm.** One sort, O(N log N); the confusion counts of every retained subset are
    cumulative sums of the per-row cell counts (rows: true class, columns: predicted class)
    between consecutive cut points, O(N + M K^2); the M matrices are evaluated in one
    batched call of :func:`ordmetrics.metrics.agreement.counts_evaluator`, the same formulas as the
    public metric functions. Without weights only the set of rows kept at each cut matters:
    the sorted scores at the cuts, selected by buckets in O(N) without a sort, find them (the
    rows themselves are ranked only where a cut falls inside a tie), with the same counts."""


@fill_doc(params=_PARAMS_TEMPLATE, notes=_NOTES)
def retention_curve(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = "rps",
    metric: str = "qwk",
    fractions: Any = None,
    decision: Any = "argmax",
    labels: Any = None,
    sample_weight: Any = None,
    metric_kwargs: Mapping[str, Any] | None = None,
    n_random: int = 100,
    random_state: Any = 0,
) -> RetentionCurve:
    r"""Retention curve: a set metric on the best-scored rows as the worst are removed.

    For each retained fraction f, keep the rows whose per-sample score (``by``, e.g. the
    RPS) is best, remove the rest, and compute ``metric`` (e.g. QWK) of the decisions on the
    rows kept. A per-sample score that singles out bad ordinal predictions makes the metric
    improve fast as rows are removed (Galdran 2023, Sect. 2.4, Fig. 4).

    Parameters
    ----------
    %(params)s
    n_random : int, default 100
        Number of random draws of the Monte Carlo estimate of ``random`` (where it is not
        exact); 0 skips the estimate (``random`` is then None unless it is exact).
    random_state : int, numpy.random.Generator or None, default 0
        Seed of the Monte Carlo estimate; the default makes the result deterministic.

    Returns
    -------
    RetentionCurve
        ``fractions``, ``values``, ``area`` (the AURSC, see :func:`aursc`), ``by``,
        ``metric``, ``n_retained``, ``oracle``, ``random`` and ``decision``.

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined (NaN) on the rows retained at some fraction, e.g.
        kappa on rows of a single class.

    Notes
    -----
    %(notes)s

    **Oracle curve.** For the metrics that are weighted means of a per-row loss,
    ``expected_cost`` (unnormalised; loss C[y, yhat]), ``mae`` (|y - yhat|), ``accuracy``
    (1{y != yhat}) and ``within_k_accuracy`` (1{|y - yhat| > k}), the oracle removes the
    rows of largest loss first (ties by original position, as for the curve). Keeping the
    lowest losses is the best any ranking can do, so the oracle is an upper bound of the
    curve for accuracy (a lower bound for MAE and expected cost) at every fraction. For the
    other metrics ``oracle`` is None.

    **Random removal.** ``random`` is the expected metric when the rows removed are chosen
    uniformly at random, the curve of a score that knows nothing. For the mean-of-loss
    metrics with integer weights it is exactly the full-data value at every fraction: a
    uniformly random subset of T of the W weight units contains each unit with probability
    T / W, so the expected sum of the losses it keeps is (T / W) times the total and its
    expected mean is the mean. Otherwise it is estimated by Monte Carlo from ``n_random``
    random draws, averaging the values that are defined. With integer weights (total below
    10^9) each draw is a uniformly random subset of T(f) weight units, i.e. the first T(f)
    units of a uniformly random ordering of the units, whose confusion counts follow the
    multivariate hypergeometric distribution and are drawn directly (cost independent of N;
    rows of integer weight give exactly the numbers of the repeated rows). A compiled
    sampler draws them cell by cell, each count an exact hypergeometric variate (Stadlober's
    ratio-of-uniforms method, as NumPy's, with tabulated log-factorials), from one
    generator per draw seeded by a single number taken from ``random_state``: the estimate
    is the same whatever the number of threads, and differs from the one of ordmetrics 0.1.0
    (drawn through NumPy) only by its Monte Carlo error. When the total W is at most the
    number of (fraction below W, non-empty cell) pairs (few rows, many classes: N = 2,000
    at K = 20), each draw is instead a compiled shuffle of the W units sorted by cell, cut
    at every T(f) (the subsets of one draw are then nested): W steps instead of as many
    hypergeometric variates, each several times dearer; the distribution at each fraction
    is the same, and the estimate differs from the one of the hypergeometric draws only by
    its Monte Carlo error. Otherwise (non-integer weights) each draw is a
    uniformly random ordering of the rows (a compiled shuffle, from the same per-draw
    streams), cut like the curve (the boundary row in part), with the confusion counts
    built by the same cumulative sums in one pass over the rows. For kappa and QWK with
    hypergeometric draws each matrix is evaluated in the compiled sampler as it is drawn,
    with the values of the batched evaluation where its sums are exact
    (:mod:`ordmetrics.evaluation.retention_kappa`).

    There is no closed form for the random curve of the other metrics (QWK, kappa, AMAE,
    MMAE, macro F1, ...): the expected confusion matrix of a random subset is the full one
    scaled by T / W, but these metrics are not linear in the counts (QWK of the expected
    matrix is not the expected QWK), hence the Monte Carlo estimate; the mean-of-loss
    metrics above are linear in the counts of a fixed total, and their expectation is exact.

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023,
       Sect. 2.4 (retention curves and AURSC), Table 1 and Fig. 4.

    Examples
    --------
    >>> from ordmetrics.evaluation.retention import retention_curve
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]]
    >>> curve = retention_curve(y, P, metric="mae", fractions=[1.0, 0.75, 0.5])
    >>> curve.n_retained  # rows kept: the last row (RPS 0.65) goes first
    array([4, 3, 2])
    >>> curve.values
    array([0.5, 0. , 0. ])
    >>> curve.area  # (0.25 (0.5 + 0) / 2 + 0.25 (0 + 0) / 2) / 0.5
    0.125
    >>> curve.oracle, curve.random
    (array([0.5, 0. , 0. ]), array([0.5, 0.5, 0.5]))
    """
    return _compute(
        y_true,
        y_proba,
        by=by,
        metric=metric,
        fractions=fractions,
        decision=decision,
        labels=labels,
        sample_weight=sample_weight,
        metric_kwargs=metric_kwargs,
        baselines=True,
        n_random=_check_n_random(n_random),
        random_state=random_state,
    )


@fill_doc(params=_PARAMS_TEMPLATE, notes=_NOTES)
def aursc(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = "rps",
    metric: str = "qwk",
    fractions: Any = None,
    decision: Any = "argmax",
    labels: Any = None,
    sample_weight: Any = None,
    metric_kwargs: Mapping[str, Any] | None = None,
) -> float:
    r"""Area under the retention curve (AURSC), normalised by the span of the fractions.

    .. math::

        \mathrm{AURSC} = \frac{1}{f_0 - f_{M-1}} \sum_{j=0}^{M-2}
        (f_j - f_{j+1}) \, \frac{v_j + v_{j+1}}{2}

    with v_j the metric on the rows retained at fraction f_j (see :func:`retention_curve`,
    whose ``area`` this is; the baselines are not computed here).

    Parameters
    ----------
    %(params)s

    Returns
    -------
    float
        The AURSC, on the scale of ``metric``: a constant curve m gives m. For QWK range
        [-1, 1], higher is better; for the expected cost, lower is better. NaN (with an
        :class:`~ordmetrics.UndefinedMetricWarning`) when the metric is undefined at some
        fraction.

    Notes
    -----
    %(notes)s

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023,
       Sect. 2.4 (retention curves and AURSC), Table 1.

    Examples
    --------
    >>> from ordmetrics.evaluation.retention import aursc
    >>> y = [0, 1, 2, 2]
    >>> P = [[0.8, 0.2, 0.0], [0.1, 0.6, 0.3], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]]
    >>> aursc(y, P, metric="mae", fractions=[1.0, 0.75, 0.5])
    0.125
    >>> aursc(y, P, by="brier", metric="mae", fractions=[1.0, 0.75, 0.5])
    0.125
    """
    return _compute(
        y_true,
        y_proba,
        by=by,
        metric=metric,
        fractions=fractions,
        decision=decision,
        labels=labels,
        sample_weight=sample_weight,
        metric_kwargs=metric_kwargs,
        baselines=False,
        n_random=0,
        random_state=None,
    ).area


register(
    aursc,
    kind=RETENTION_KIND,
    direction="maximize",
    range=(-1, 1),
    perfect=1.0,
    description="area under the retention curve of a set metric (default QWK), normalised",
    range_note="of the default set metric QWK; with metric= the range and direction are the "
    "set metric's",
    input="probabilities",
    accumulates=None,
)
