"""Bootstrap confidence intervals and paired bootstrap comparisons of any ordmetrics metric.

One bootstrap resample draws M rows with replacement from the M rows that are scored. Because
every ordmetrics metric takes *frequency* weights (integer weights give exactly the result of
repeating rows), a resample is a vector of row counts c and its metric value is the metric on
the original rows with ``sample_weight = w * c``: nothing is copied. The way those values are
computed follows the accumulator family of the metric's registry spec (``spec.accumulates``,
see :mod:`ordmetrics.evaluation.resample_counts`), and every way gives the same numbers:

* ``mean_score`` (scoring rules: ``rps``, ``brier``, ...): the per-sample scores s are
  computed once; a resample is then the weighted mean ``sum(c w s) / sum(c w)``, evaluated by
  a compiled kernel over the drawn row indices;
* ``confusion_matrix`` (agreement metrics: ``qwk``, ``kappa``, ``expected_cost``, ...): the
  confusion counts of a whole chunk of resamples are accumulated in one compiled pass and the
  metric is evaluated on all of them at once by
  :func:`ordmetrics.metrics.agreement.counts_evaluator`;
* ``rank_table`` (``c_index``, ``kendall_tau``, ``spearman``) and ``calibration_bins`` (the
  ECEs with uniform bins): the inputs are validated and encoded once by
  :func:`ordmetrics.metrics.ranking.counts_evaluator` or
  :func:`ordmetrics.metrics.calibration.counts_evaluator`, which sorts the scores or bins the
  forecasts once; a resample then costs one walk of the fixed order or one set of weighted
  bin sums, with the same sums as the metric itself;
* every other metric (no accumulator family, e.g. AURSC; quantile-binned ECEs; any callable):
  one call of the metric per resample with ``sample_weight = w * c``.

The row indices are drawn the same way whatever the path, so two metrics bootstrapped with the
same ``random_state`` on the same rows see the same resamples: their intervals are paired, and
:func:`compare` pairs two models (or two variants of one metric) on the same resamples.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.random import make_rng
from ordmetrics._core.registry import MetricSpec
from ordmetrics.evaluation.resample_counts import (
    CHUNK_INDICES,
    JACKKNIFE_GROUPS,
    _groups,
    _index_chunks,
    _Side,
)
from ordmetrics.evaluation.resample_intervals import (
    BootstrapResult,
    ComparisonResult,
    _better,
    _frozen,
    _interval,
    _n_valid_stats,
    _paired_test,
    _valid,
    _warn_resolution,
)
from ordmetrics.evaluation.resample_intervals import (
    _acceleration as _acceleration,
)
from ordmetrics.evaluation.resample_intervals import (
    _bca_levels as _bca_levels,
)
from ordmetrics.evaluation.resample_intervals import (
    _quantiles as _quantiles,
)
from ordmetrics.evaluation.resample_options import (
    DEFAULT_RESAMPLES,
    MAX_RESAMPLES,
    METHODS,
    _check_confidence_level,
    _check_method,
    _check_n_resamples,
    _check_side_kwargs,
    _direction,
    _resolve_metric,
    check_resamples,
)

__all__ = [
    "CHUNK_INDICES",
    "DEFAULT_RESAMPLES",
    "JACKKNIFE_GROUPS",
    "MAX_RESAMPLES",
    "METHODS",
    "BootstrapResult",
    "ComparisonResult",
    "bootstrap",
    "check_resamples",
    "compare",
    "paired_difference",
]


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------

#: The options of both functions, filled in by :func:`~ordmetrics._core.docs.fill_doc`.
_OPTIONS = """\
    n_resamples : int, default DEFAULT_RESAMPLES = 999
        Number of bootstrap resamples (at least 2; about 1000 or more for a 95% interval,
        2000 or more for BCa; at most :data:`MAX_RESAMPLES` = 10^7, since every resampled
        value is returned). The resamples are drawn and evaluated in chunks of at most
        :data:`CHUNK_INDICES` row indices, so the memory beyond the returned values does not
        grow with ``n_resamples``.
    confidence_level : float, default 0.95
        Nominal coverage of the interval, strictly between 0 and 1.
    method : {"percentile", "bca"}, default "percentile"
        ``"percentile"``: the alpha/2 and 1 - alpha/2 quantiles of the resampled values.
        ``"bca"``: the bias-corrected and accelerated interval (see Notes).
    random_state : None, int or numpy.random.Generator, optional
        Source of the resamples. An integer seed gives the same resamples on every call; a
        Generator is used (and advanced) as it is, so passing the same Generator twice gives
        different resamples; None draws a fresh seed from the operating system, so the result
        differs from call to call."""


@fill_doc(options=_OPTIONS)
def bootstrap(
    metric: str | MetricSpec | Callable[..., Any],
    y_true: Any,
    y_proba_or_pred: Any,
    /,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence_level: float = 0.95,
    method: str = "percentile",
    random_state: int | np.random.Generator | None = None,
    **metric_kwargs: Any,
) -> BootstrapResult:
    r"""Bootstrap distribution and confidence interval of a metric.

    Resamples the rows with replacement ``n_resamples`` times, evaluates the metric on every
    resample and summarises the values: mean, standard deviation (the bootstrap standard
    error) and a percentile or BCa confidence interval.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        A registered metric (its name such as ``"rps"`` or ``"qwk"``, its spec, or its
        function), or any callable ``f(y_true, x, sample_weight=..., **metric_kwargs)``
        returning one number that honours frequency weights (integer weights equal repeated
        rows), such as :func:`ordmetrics.evaluation.retention.aursc`.
    y_true : array-like of shape (n_samples,)
        True classes, as the metric takes them.
    y_proba_or_pred : array-like
        The second input of the metric: probabilities of shape (n_samples, K) for scoring
        rules, calibration metrics and AURSC, hard predictions for agreement metrics, scores
        or probabilities for ranking metrics.
    %(options)s
    **metric_kwargs
        Passed to every call of the metric: ``labels=``, ``sample_weight=``,
        ``nan_policy=`` and the metric's own options (e.g. ``weights="linear"`` for
        ``"kappa"``, ``normalize=False`` for ``"rps"``, ``by=`` for AURSC).
        ``sample_weight`` is combined with the resample counts (``w * c``); for a
        registered metric the weights are first scaled by an exact power of two (largest
        weight in [0.5, 1)), so weights of any scale, up to the float maximum and down to
        subnormals, give the interval of the same weights scaled to 1; a callable of your
        own receives your weights times the counts, unscaled. ``metric``,
        ``y_true`` and ``y_proba_or_pred`` are positional-only, so an option of the metric
        that is itself called ``metric`` (AURSC's set metric) is passed here as a keyword.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the metric on the full data), ``mean``, ``std``, ``low``, ``high``,
        ``distribution`` (the resampled values), ``method``, ``confidence_level``,
        ``n_resamples`` and ``metric`` (the name).

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined (NaN) on some resamples (e.g. kappa on a resample of a
        single class): the warning says on how many; they are left out of the mean, std and
        interval, and all NaN gives NaN. Also when a BCa interval is undefined.

    Notes
    -----
    **Resampling.** The M rows that the metric scores (all rows; under
    ``nan_policy="omit"`` the rows without a missing value) are resampled: resample b is M
    row indices drawn uniformly with replacement by ``rng.integers(0, M, dtype=np.int32)``
    (int64 beyond 2^31 rows), in chunks whose size depends on M only. The counts c of the
    drawn rows are frequency weights: the resampled value is the metric on the original
    rows with ``sample_weight = w * c``, which equals the metric on the rows repeated. The
    draws depend only on ``random_state`` and M, so every metric bootstrapped with the same
    seed on the same rows gets the same resamples (paired intervals). Under
    ``nan_policy="propagate"`` with a missing value every resample is NaN, as the metric is.

    **Evaluation.** For scoring rules the per-sample scores s are computed once and a
    resample is ``sum(c w s) / sum(c w)``; for agreement metrics the confusion counts of many
    resamples are accumulated at once and the metric's batched evaluator maps them to values;
    ranking metrics and uniformly binned ECEs are validated, encoded, sorted or binned once and
    each resample only walks the fixed order or adds up the weights per bin (the same values
    as a metric call; bit for bit with integer weights); every other metric is called once
    per resample. All give the same values (up to the rounding of sums).

    **Percentile interval.** The alpha/2 and 1 - alpha/2 quantiles of the non-NaN resampled
    values, alpha = 1 - ``confidence_level``, with NumPy's default ("linear", type 7)
    quantile definition [1]_.

    **BCa interval** [1]_ [2]_. The quantiles at levels

    .. math::

        \alpha_{1,2} = \Phi\Big(z_0 + \frac{z_0 + z_{\alpha/2,\,1-\alpha/2}}
        {1 - a\,(z_0 + z_{\alpha/2,\,1-\alpha/2})}\Big)

    with the bias correction :math:`z_0 = \Phi^{-1}(p_0)`, p_0 the share of resampled values
    below the estimate counting ties as one half, and the acceleration

    .. math::

        a = \frac{\sum_j d_j^3}{6\,(\sum_j d_j^2)^{3/2}}, \qquad
        d_j = \bar\theta_{(\cdot)} - \theta_{(j)}

    from jackknife values :math:`\theta_{(j)}`. For scoring rules and agreement metrics these
    are the exact leave-one-row-out values (closed form from the per-sample scores; for
    agreement metrics one value per distinct (cell, weight) pair of the confusion table).
    For every other metric a delete-a-group jackknife approximates them: the M rows are
    split, in a random order drawn from ``random_state`` after the resamples, into
    G = min(M, 200) groups of nearly equal size, and :math:`\theta_{(j)}` is the metric
    without group j (exact leave-one-out when M <= 200). The interval is NaN (with a
    warning) when every resampled value lies on one side of the estimate.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
       Hall/CRC, chapters 13-14 (percentile and BCa intervals) and 11 (jackknife).
    .. [2] DiCiccio, T. J., Efron, B. (1996). Bootstrap confidence intervals. Statistical
       Science 11(3), 189-228.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.resampling import bootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=200)
    >>> P = rng.dirichlet([1, 1, 1], size=200)
    >>> res = bootstrap("rps", y, P, n_resamples=500, random_state=0)
    >>> import ordmetrics
    >>> res.estimate == ordmetrics.rps(y, P)
    True
    >>> bool(res.low < res.estimate < res.high), res.distribution.shape
    (True, (500,))
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_confidence_level(confidence_level)
    method = _check_method(method)
    rng = make_rng(random_state)
    m = _resolve_metric(metric)
    _check_reduction(metric_kwargs)
    side = _Side(m, y_true, y_proba_or_pred, dict(metric_kwargs))
    side.restrict(side.keep)
    distribution = np.empty(n_resamples)
    start = 0
    for idx in _index_chunks(rng, side.m, n_resamples):  # bounded memory: one chunk at a time
        distribution[start : start + idx.shape[0]] = side.values(idx)
        start += idx.shape[0]
    what = m.name
    valid = _valid(distribution, what)
    mean, std = _n_valid_stats(valid)

    def jackknife() -> np.ndarray:
        if side.exact_jackknife:
            return side.jackknife_rows()
        return side.jackknife_groups(_groups(rng, side.m))

    low, high = _interval(valid, side.estimate, method, confidence_level, jackknife, what)
    return BootstrapResult(
        estimate=side.estimate,
        mean=mean,
        std=std,
        low=low,
        high=high,
        distribution=_frozen(distribution),
        method=method,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        metric=m.name,
    )


def _check_reduction(kwargs: Mapping[str, Any]) -> None:
    reduction = kwargs.get("reduction", "mean")
    if reduction != "mean":
        raise ValueError(
            f"reduction must be 'mean' (or left out): the bootstrap resamples the mean score; "
            f"got reduction={reduction!r}."
        )


@fill_doc(options=_OPTIONS)
def compare(
    metric: str | MetricSpec | Callable[..., Any],
    y_true: Any,
    a: Any,
    b: Any,
    /,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence_level: float = 0.95,
    method: str = "percentile",
    random_state: int | np.random.Generator | None = None,
    kwargs_a: Mapping[str, Any] | None = None,
    kwargs_b: Mapping[str, Any] | None = None,
    **metric_kwargs: Any,
) -> ComparisonResult:
    r"""Paired bootstrap comparison: the difference metric(a) - metric(b) on the same rows.

    Both sides are evaluated on the same resamples, so the variation the two share (which
    rows happen to be drawn) cancels in the difference. Two uses:

    * two models on the same rows: ``a`` and ``b`` are two probability matrices (or two
      hard predictions for agreement metrics);
    * two variants of one metric on one model, e.g. two scoring rules ranking the rows of a
      retention curve: ``compare("aursc", y, P, P, kwargs_a={"by": "rps"},
      kwargs_b={"by": "brier"})``.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        As in :func:`bootstrap`.
    y_true : array-like of shape (n_samples,)
        True classes.
    a, b : array-like
        The second input of the metric for side a and side b (same rows as ``y_true``).
    %(options)s
    kwargs_a, kwargs_b : dict, optional
        Options of one side only (e.g. ``{"by": "rps"}``), added to ``metric_kwargs``. They
        may not repeat a key of ``metric_kwargs``, nor set ``sample_weight`` or
        ``nan_policy``, which both sides share.
    **metric_kwargs
        Options of both sides: ``labels=``, ``sample_weight=``, ``nan_policy=`` and the
        metric's own options (``metric="mae"`` reaches AURSC: the first four arguments are
        positional-only).

    Returns
    -------
    ComparisonResult
        ``estimate_a``, ``estimate_b``, ``difference`` (a - b on the full data), ``low`` and
        ``high`` (interval of the difference), ``p_value``, ``distribution`` (the resampled
        differences), ``better``, and ``method``, ``confidence_level``, ``n_resamples``,
        ``metric``.

    Warns
    -----
    UndefinedMetricWarning
        When the difference is NaN on some resamples (either side undefined).
    UserWarning
        When the resamples are too few for any p-value below alpha (2 / (B + 1) >= alpha
        for the percentile method, e.g. B < 40 at 95%): the interval is then (-inf, inf)
        and ``better`` None.

    Notes
    -----
    Resamples and jackknife are those of :func:`bootstrap`, applied to the
    difference d = metric(a) - metric(b): each resample gives both sides the same row counts,
    and the jackknife leaves the same rows (or groups) out of both. Under
    ``nan_policy="omit"`` the rows resampled are those complete on both sides, and the
    estimates are computed on them too. With the same ``random_state``, the distribution
    equals ``bootstrap(metric, y_true, a).distribution - bootstrap(metric, y_true,
    b).distribution`` whenever both sides score the same rows.

    **One verdict.** The interval of the difference, its p-value and ``better`` come from the
    same B non-NaN resampled differences d* by one rule, so that they always agree:
    ``better`` names a side if and only if p < alpha, if and only if the (1 - alpha)
    interval excludes 0 (alpha = 1 - ``confidence_level``). For ``method="percentile"`` the
    p-value is the two-sided bootstrap p-value of the hypothesis of no difference,

    .. math::

        p = \min\Big(1,\ 2\,\frac{1 + \min(\#\{d^* \le 0\},\ \#\{d^* \ge 0\})}{B + 1}\Big)

    (Davison & Hinkley 1997, Eq. 4.11: counting the observed data as one more resample keeps
    the p-value valid), and the interval is its inversion: with the differences sorted,
    :math:`d^*_{(1)} \le \dots \le d^*_{(B)}`, it is
    :math:`[d^*_{(m)},\ d^*_{(B+1-m)}]`, m the number of n in 0..B with
    :math:`2 (n + 1) / (B + 1) < \alpha` (just under :math:`\alpha (B + 1) / 2`: the 24th
    smallest and largest of the default 999 at 95%, the 25th of 1000). Its lower end is above
    0 exactly when fewer than m differences are <= 0, which is when p < alpha; likewise for
    the upper end. So the interval excludes 0 at every level alpha above p and at none at or
    below it. (This interval of the difference takes order statistics, where
    :func:`bootstrap` interpolates NumPy's quantiles; the ends differ by a neighbouring
    resampled value or two.)

    The p-value moves in steps of 2 / (B + 1) and is never 0: with no resampled difference
    on the other side of 0 it is 2 / (B + 1), which says "smaller than the resolution", not
    "impossible". When 2 / (B + 1) >= alpha (B < 40 at 95%) no p-value can fall below
    alpha: m = 0, the interval is (-inf, inf), ``better`` is None, and a warning says how
    many resamples are needed. Identical sides give differences that are all exactly 0 and
    p = 1.

    For ``method="bca"`` the ends are the order statistics at the BCa levels (see
    :func:`bootstrap`) by the same rule, and the p-value is that rule's inversion: the end on
    the side of n differences reaches 0 at
    :math:`\alpha = 2\,\Phi\big(u / (1 + a u) - z_0\big)`,
    :math:`u = \Phi^{-1}\big((n + 1) / (B + 1)\big) - z_0` (with :math:`-z_0` and
    :math:`-a` for the upper end), which is the percentile p-value when :math:`z_0 = a = 0`.

    ``better`` is "a" or "b" when the interval excludes 0, read with the metric's direction
    (lower is better for scoring rules, higher for kappa, ...; AURSC takes the direction of
    its set metric ``metric=``). For a callable that is not registered it is None unless
    the callable has a ``direction`` attribute ("minimize" or "maximize") or, like AURSC,
    takes a registered set metric ``metric=``.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
       Hall/CRC, chapters 15-16 (permutation and bootstrap tests).
    .. [3] Davison, A. C., Hinkley, D. V. (1997). Bootstrap Methods and their Application.
       Cambridge University Press, Sect. 4.4 and 5.2.
    .. [2] DiCiccio, T. J., Efron, B. (1996). Bootstrap confidence intervals. Statistical
       Science 11(3), 189-228.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.resampling import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=300)
    >>> good = np.eye(3)[y] * 0.7 + 0.1          # 0.8 on the true class
    >>> vague = np.full((300, 3), 1 / 3)
    >>> res = compare("rps", y, good, vague, n_resamples=500, random_state=0)
    >>> res.better, round(res.p_value, 6)  # 2 / 501: no resample favours the vague side
    ('a', 0.003992)
    >>> res.difference == res.estimate_a - res.estimate_b
    True
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_confidence_level(confidence_level)
    method = _check_method(method)
    rng = make_rng(random_state)
    m = _resolve_metric(metric)
    kw_a = {**metric_kwargs, **_check_side_kwargs(kwargs_a, "kwargs_a", metric_kwargs)}
    kw_b = {**metric_kwargs, **_check_side_kwargs(kwargs_b, "kwargs_b", metric_kwargs)}
    _check_reduction(kw_a)
    _check_reduction(kw_b)
    widths = []
    for x in (a, b):  # the number of classes of each model, when both are matrices
        try:
            shape = tuple(getattr(x, "shape", None) or np.shape(x))
        except (ValueError, TypeError):  # ragged: the side's own check explains it
            shape = ()
        widths.append(shape[1] if len(shape) == 2 else None)
    if None not in widths and widths[0] != widths[1]:
        raise ValueError(
            f"a has {widths[0]} probability columns but b has {widths[1]}; both models "
            "must predict the same classes, one column per class in the same order."
        )
    sides = []
    for side, pred, kw in (("a", a, kw_a), ("b", b, kw_b)):
        try:
            sides.append(_Side(m, y_true, pred, kw))
        except (ValueError, TypeError) as exc:
            which = "first" if side == "a" else "second"
            note = getattr(exc, "add_note", None)  # Python 3.11+
            if note is not None:
                note(f"(raised for the predictions {side}, the {which} model)")
            raise
    side_a, side_b = sides
    if side_a.path != side_b.path:  # e.g. one side propagates a missing value
        side_a.path = side_b.path = "generic"
    keep = side_a.keep & side_b.keep
    if not keep.any():
        raise ValueError(
            "no row is complete on both sides (a and b), so nan_policy='omit' leaves nothing "
            "to compare."
        )
    side_a.restrict(keep)
    side_b.restrict(keep)
    distribution = np.empty(n_resamples)
    start = 0
    for idx in _index_chunks(rng, side_a.m, n_resamples):  # bounded memory: one chunk at a time
        distribution[start : start + idx.shape[0]] = side_a.values(idx) - side_b.values(idx)
        start += idx.shape[0]
    difference = side_a.estimate - side_b.estimate
    what = f"the difference of {m.name}"
    valid = _valid(distribution, what)

    def jackknife() -> np.ndarray:
        if side_a.exact_jackknife:
            return side_a.jackknife_rows() - side_b.jackknife_rows()
        groups = _groups(rng, side_a.m)
        return side_a.jackknife_groups(groups) - side_b.jackknife_groups(groups)

    test = _paired_test(valid, difference, method, confidence_level, jackknife, what)
    _warn_resolution(test, confidence_level, valid.size)
    direction_a, direction_b = _direction(m, kw_a), _direction(m, kw_b)
    direction = direction_a if direction_a == direction_b else None
    return ComparisonResult(
        estimate_a=side_a.estimate,
        estimate_b=side_b.estimate,
        difference=difference,
        low=test.low,
        high=test.high,
        p_value=test.p_value,
        distribution=_frozen(distribution),
        better=_better(direction, test.low, test.high),
        method=method,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        metric=m.name,
    )


def paired_difference(
    a: BootstrapResult,
    b: BootstrapResult,
    /,
    *,
    confidence_level: float | None = None,
    metric_kwargs: Mapping[str, Any] | None = None,
) -> ComparisonResult:
    """The paired comparison a - b from two bootstrap results drawn on the same resamples.

    When ``a`` and ``b`` are bootstraps of one metric with the same ``random_state`` on the
    same rows (see :func:`bootstrap`), they hold the same resamples, and the differences
    ``a.distribution - b.distribution`` are those of :func:`compare`: this gives its result
    (percentile interval, p-value, better side, by the one rule of its Notes) without
    resampling again.

    Parameters
    ----------
    a, b : BootstrapResult
        The bootstrap of each side: same metric, same number of resamples.
    confidence_level : float, optional
        Coverage of the interval of the difference; default that of ``a``.
    metric_kwargs : dict, optional
        The options of the metric (for the direction of a metric computed from a set metric,
        e.g. ``{"metric": "mae"}`` for AURSC).

    Returns
    -------
    ComparisonResult
        As :func:`compare` with ``method="percentile"``.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.resampling import bootstrap, compare, paired_difference
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=300)
    >>> good, vague = np.eye(3)[y] * 0.7 + 0.1, np.full((300, 3), 1 / 3)
    >>> ra = bootstrap("rps", y, good, n_resamples=200, random_state=0)
    >>> rb = bootstrap("rps", y, vague, n_resamples=200, random_state=0)
    >>> pair = paired_difference(ra, rb)
    >>> both = compare("rps", y, good, vague, n_resamples=200, random_state=0)
    >>> (pair.low, pair.high, pair.p_value, pair.better) == (
    ...     both.low, both.high, both.p_value, both.better)
    True
    """
    for name, side in (("a", a), ("b", b)):
        if not isinstance(side, BootstrapResult):
            raise TypeError(
                f"{name} must be a BootstrapResult (the result of bootstrap()); got "
                f"{type(side).__name__}."
            )
    if a.metric != b.metric or a.n_resamples != b.n_resamples:
        raise ValueError(
            f"a and b must bootstrap the same metric with the same resamples; got {a.metric!r} "
            f"with {a.n_resamples} resamples and {b.metric!r} with {b.n_resamples}."
        )
    level = a.confidence_level if confidence_level is None else confidence_level
    level = _check_confidence_level(level)
    kwargs = dict(metric_kwargs or {})
    difference = float(a.estimate) - float(b.estimate)
    what = f"the difference of {a.metric}"
    distribution = np.asarray(a.distribution - b.distribution, dtype=np.float64)
    valid = _valid(distribution, what)
    test = _paired_test(valid, difference, "percentile", level, None, what)
    _warn_resolution(test, level, valid.size)
    try:
        direction = _direction(_resolve_metric(a.metric), kwargs)
    except (TypeError, ValueError):  # a callable of the caller's own: its name only
        direction = None
    return ComparisonResult(
        estimate_a=float(a.estimate),
        estimate_b=float(b.estimate),
        difference=difference,
        low=test.low,
        high=test.high,
        p_value=test.p_value,
        distribution=_frozen(distribution),
        better=_better(direction, test.low, test.high),
        method="percentile",
        confidence_level=level,
        n_resamples=a.n_resamples,
        metric=a.metric,
    )
