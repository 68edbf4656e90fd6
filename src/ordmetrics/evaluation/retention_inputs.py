"""The inputs of a retention curve: the retained fractions, the per-sample scores that rank
the rows, the decisions, and the ranking itself (best first, ties by position).

Shared by :func:`ordmetrics.evaluation.retention.retention_curve`,
:func:`~ordmetrics.evaluation.worst.worst_predictions` and the retention plots.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import (
    group_starts_sorted,
    rank_order,
)
from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import (
    Prepared,
    as_scores,
    check_lengths,
    check_option,
    encode_labels,
    fmt_values,
    prepare_proba,
    type_name,
)
from ordmetrics.metrics.decisions import (
    RULES,
    decide,
)

__all__ = [
    "DEFAULT_FRACTIONS",
    "computed_scores",
    "per_sample_scores",
    "prepare",
    "rank_best_first",
    "segments_at_cuts",
    "sorted_values_at",
]

#: The default retained fractions 1.000, 0.975, ..., 0.500 (21 points, k / 40 exactly rounded).
DEFAULT_FRACTIONS = np.arange(40, 19, -1) / 40.0
DEFAULT_FRACTIONS.setflags(write=False)


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def prepare(y_true: Any, y_proba: Any, labels: Any, sample_weight: Any) -> Prepared:
    """:func:`~ordmetrics._core.validation.prepare_proba` with ``nan_policy="raise"``."""
    return prepare_proba(
        y_true,
        y_proba,
        labels=labels,
        sample_weight=sample_weight,
        nan_policy="raise",
        renormalize_hint=False,  # no renormalize= here: the message says how to rescale
    )


def _check_fractions(fractions: Any) -> np.ndarray:
    if fractions is None:
        return DEFAULT_FRACTIONS
    if isinstance(fractions, str):
        raise TypeError(
            f"fractions must be a 1-D sequence of retained fractions in (0, 1], e.g. "
            f"[1.0, 0.9, 0.8]; got the string {fractions!r}."
        )
    try:
        f = np.array(fractions, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"fractions must be a 1-D sequence of numbers in (0, 1]; got {type_name(fractions)} "
            "that could not be converted to float."
        ) from None
    if f.ndim != 1:
        raise ValueError(
            f"fractions must be a 1-D sequence of retained fractions in (0, 1]; got an array "
            f"of shape {f.shape}. Pass e.g. fractions=[1.0, 0.9, 0.8]."
        )
    if f.size == 0:
        raise ValueError(
            "fractions is empty; pass at least one retained fraction in (0, 1], or None for "
            "the default 1.000, 0.975, ..., 0.500."
        )
    bad = ~((f > 0) & (f <= 1))  # NaN included
    if bad.any():
        raise ValueError(
            f"fractions must lie in (0, 1] (the share of rows kept); got "
            f"{fmt_values(f[bad].tolist())}. A fraction of 0 keeps nothing."
        )
    if f.size > 1 and not (np.diff(f) < 0).all():
        raise ValueError(
            f"fractions must be strictly decreasing (most rows kept first); got "
            f"{fmt_values(f.tolist(), 8)}. Pass e.g. np.unique(fractions)[::-1]."
        )
    f.setflags(write=False)
    return f


def _check_n_random(n_random: Any) -> int:
    if isinstance(n_random, bool) or not isinstance(n_random, int | np.integer):
        raise TypeError(
            f"n_random must be a non-negative integer (random orderings of the Monte Carlo "
            f"baseline); got {type_name(n_random)} {n_random!r}."
        )
    if n_random < 0:
        raise ValueError(
            f"n_random must be a non-negative integer; got {n_random}. Pass 0 to skip the "
            "Monte Carlo baseline."
        )
    return int(n_random)


def _callable_name(func: Any) -> str:
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) and name and not name.startswith("<") else "custom"


def per_sample_scores(
    by: Any, y_true: Any, y_proba: Any, prep: Prepared, labels: Any
) -> tuple[np.ndarray, str]:
    """The per-sample scores that rank the rows, and the name of ``by``.

    ``by`` is a registered scoring rule (name or spec, called on the validated arrays with
    ``reduction="none"``), a callable (called as ``by(y_true, y_proba)`` with the caller's
    arguments, adding ``labels=labels`` when it has a ``labels`` parameter and labels are
    given, and ``reduction="none"`` when it has a ``reduction`` parameter), or an array of N
    finite scores. Lower is better. Shared with
    :func:`~ordmetrics.evaluation.worst.worst_predictions`.
    """
    n = prep.y_true.size
    if isinstance(by, MetricSpec):
        by = by.name
    if isinstance(by, str):
        if not _is_scoring_rule(by):
            rules = list_metrics("scoring_rule")
            spec_kind = get_metric(by).kind if by in list_metrics() else None
            what = f" ({by!r} is a metric of kind {spec_kind!r})" if spec_kind else ""
            raise ValueError(
                f"by must be a scoring rule that scores each row ({', '.join(rules)}), a "
                f"callable returning one score per row, or an array of per-row scores; got "
                f"{by!r}{what}."
            )
        scores = get_metric(by).func(prep.y_true, prep.other, reduction="none")
        return np.asarray(scores, dtype=np.float64), by
    if callable(by):
        name = _callable_name(by)
        try:
            params = inspect.signature(by).parameters
        except (TypeError, ValueError):  # some builtins have no signature
            params = {}  # type: ignore[assignment]
        kwargs: dict[str, Any] = {}
        if "labels" in params and labels is not None:
            kwargs["labels"] = labels
        if "reduction" in params:
            kwargs["reduction"] = "none"
        out = by(y_true, y_proba, **kwargs)
        try:
            scores = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"by={name} must return one number per row; it returned {type_name(out)} "
                "that could not be converted to float."
            ) from None
        if scores.ndim != 1 or scores.size != n:
            raise ValueError(
                f"by={name} must return one score per row ({n} values, a 1-D array); it "
                f"returned shape {scores.shape}. A function of the library needs "
                "reduction='none'."
            )
        nan = np.flatnonzero(np.isnan(scores))
        if nan.size:
            raise ValueError(
                f"by={name} returned NaN for rows {fmt_values(nan.tolist())}; every row needs "
                "a score to be ranked."
            )
        return scores, name
    scores = as_scores(by, name="by")
    check_lengths(n, scores.size, "by")
    nan = np.flatnonzero(np.isnan(scores))
    if nan.size:
        raise ValueError(
            f"by must hold finite per-row scores; got NaN in rows {fmt_values(nan.tolist())}."
        )
    return scores, "custom"


def _hard_predictions(decision: Any, prep: Prepared) -> tuple[np.ndarray, str]:
    """Class indices of the decisions: a rule of :func:`decide` or given hard predictions."""
    k = prep.n_classes
    if isinstance(decision, str):
        check_option(decision, "decision", RULES)
        return decide(prep.other, decision), decision
    if decision is None or np.ndim(decision) == 0:
        raise TypeError(
            f"decision must be one of {', '.join(repr(r) for r in RULES)} or an array of hard "
            f"predictions (one class per row); got {type_name(decision)} {decision!r}."
        )
    enc = encode_labels(
        decision, labels=prep.labels, n_classes=k, name="decision", proba_name="y_proba"
    )
    check_lengths(prep.y_true.size, enc.codes.size, "decision")
    if enc.missing is not None:
        rows = np.flatnonzero(enc.missing)
        raise ValueError(
            f"decision is missing in rows {fmt_values(rows.tolist())}; every row needs a "
            "predicted class."
        )
    codes = enc.codes
    bad = (codes < 0) | (codes >= k)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"decision must hold class indices 0..{k - 1} (y_proba has {k} columns); got "
            f"{fmt_values(sorted(set(codes[rows].tolist())))} in rows "
            f"{fmt_values(rows.tolist())}. Pass labels= if the classes have other names."
        )
    return codes, "custom"


# --------------------------------------------------------------------------------------------
# Ranking and confusion counts of every retained prefix
# --------------------------------------------------------------------------------------------


def computed_scores(by_name: str) -> bool:
    """Whether the scores named ``by_name`` (from :func:`per_sample_scores`) were computed by
    ordmetrics (a registered scoring rule): their near-ties are then ties (_numerics)."""
    return _is_scoring_rule(by_name)


def _is_scoring_rule(name: str) -> bool:
    """Whether ``name`` is a registered scoring rule (one look-up, not a listing)."""
    try:
        return get_metric(name).kind == "scoring_rule"
    except ValueError:
        return False


def rank_best_first(scores: np.ndarray, head: int = 0, *, computed: bool = False) -> np.ndarray:
    """Rows ordered by score ascending, ties by position ascending (a stable argsort).

    ``computed``: the scores were computed by ordmetrics (a registered scoring rule), so
    near-equal scores are ties by the rule of :mod:`ordmetrics._core.numerics` (sorted by their
    tie group, then by position; an infinite score is tied only with an equal infinity, so
    +inf ranks after every finite score); otherwise scores are compared exactly. Rows of
    weight 0 must be left out by the caller: they would link near-tied scores into one group.

    With ``0 < head < N`` only the *set* of the first ``head`` rows is guaranteed (in any
    order); the rows after them are in ranking order. That is all a retention curve needs
    when every cut keeps at least ``head`` rows, and it costs a partition of N rows and a sort
    of the other N - head instead of a sort of N.

    An unstable sort gives the ranking when no two scores are equal; where ties could matter
    (equal scores among the sorted rows, or across the partition) the stable sort decides.
    """
    n = scores.size
    if 0 < head < n:
        part = np.argpartition(scores, head - 1)
        tail = part[head:]
        ts = scores[tail]
        o = np.argsort(ts)
        ts = ts[o]
        # head rows are <= scores[part[head - 1]] <= tail rows: a tie across is an equality
        # (or, for computed scores, a gap within the tie tolerance)
        if computed:
            distinct = group_starts_sorted(np.concatenate([[scores[part[head - 1]]], ts]))
            if distinct[1:].all():
                return np.concatenate([part[:head], tail[o]])
        elif ts[0] != scores[part[head - 1]] and not (ts[1:] == ts[:-1]).any():
            return np.concatenate([part[:head], tail[o]])
    if computed:
        return rank_order(scores)
    order = np.argsort(scores)
    s = scores[order]
    if n > 1 and (s[1:] == s[:-1]).any():
        order = np.argsort(scores, kind="stable")
    return order


@njit(cache=True, nogil=True)
def _count_below(scores: np.ndarray, lo: np.ndarray, out: np.ndarray) -> None:
    """out[i] = the number of values of ``lo`` below scores[i] (a branch-free count)."""
    m = lo.size
    for i in range(scores.size):
        x = scores[i]
        a = 0
        for j in range(m):
            a += lo[j] < x
        out[i] = a


@njit(cache=True, nogil=True)
def _gather_rank_buckets(s: np.ndarray, ranks: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The values of the buckets holding the ranks ``ranks`` (sorted, distinct, 0-based,
    ascending) of the finite values ``s``, bucket after bucket; ``out[i]`` receives the
    position of rank ``ranks[i]`` in that buffer once the buffer is sorted. An empty buffer
    and ``out[0] = -1`` when the values are not all finite.

    The values are counted into B buckets by ``floor((x - min) B / (max - min))``, a
    non-decreasing function of x: the buckets hold consecutive ranks, and the buffer of the
    needed buckets, in bucket order, sorted as a whole, is each of its buckets sorted (numba's
    own sort is not used in the kernel: it costs seconds of compilation on first use).
    """
    n = s.size
    lo = s[0]
    hi = s[0]
    for i in range(n):
        x = s[i]
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    if not (np.isfinite(lo) and np.isfinite(hi)):
        out[0] = -1
        return np.empty(0, dtype=np.float64)
    n_buckets = max(1, min(1 << 14, n // 4))
    scale = 0.0
    if hi > lo:
        scale = n_buckets / (hi - lo)
        if not (np.isfinite(scale) and scale > 0.0):
            scale = 0.0  # everything in one bucket: sorted whole
    key = np.empty(n, dtype=np.int32)
    start = np.zeros(n_buckets + 1, dtype=np.int64)
    for i in range(n):
        b = min(int((s[i] - lo) * scale), n_buckets - 1)
        key[i] = b
        start[b + 1] += 1
    for b in range(n_buckets):
        start[b + 1] += start[b]
    # the bucket of each rank, and where its values go in the buffer of the needed buckets
    slot = np.full(n_buckets, -1, dtype=np.int64)
    used = 0
    b = 0
    for i in range(ranks.size):
        while start[b + 1] <= ranks[i]:
            b += 1
        if slot[b] < 0:
            slot[b] = used
            used += start[b + 1] - start[b]
        out[i] = slot[b] + ranks[i] - start[b]
    buf = np.empty(used, dtype=np.float64)
    fill = slot.copy()
    for i in range(n):
        f = fill[key[i]]
        if f >= 0:
            buf[f] = s[i]
            fill[key[i]] = f + 1
    return buf


def sorted_values_at(s: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """``np.sort(s)[ranks]`` for sorted distinct ranks, without sorting ``s`` (bucketed
    selection, :func:`_gather_rank_buckets`, and a sort of the few buckets holding those
    ranks; a partition and a sort where a value is not finite).

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_inputs import sorted_values_at
    >>> sorted_values_at(np.array([0.4, 0.1, 0.9, 0.3, 0.2]), np.array([0, 2, 4])).tolist()
    [0.1, 0.3, 0.9]
    """
    s = np.ascontiguousarray(s, dtype=np.float64)
    r = np.ascontiguousarray(ranks, dtype=np.int64)
    if r.size:
        at = np.empty(r.size, dtype=np.int64)
        buf = _gather_rank_buckets(s, r, at)
        if at[0] >= 0:
            buf.sort()
            return buf[at]
    head = int(r[0]) if r.size else 0
    tail = np.sort(np.partition(s, head)[head:]) if s.size else s
    return tail[r - head]


def segments_at_cuts(
    scores: np.ndarray, cuts: np.ndarray, *, computed: bool = False
) -> np.ndarray | None:
    """For the sorted distinct ``cuts`` (0 < c < N): how many of the cuts leave out each row
    when the first c rows of :func:`rank_best_first` are kept, or None where a cut falls
    inside a tie.

    All that the unweighted confusion counts of a retention curve depend on are the *sets* of
    rows kept at the cuts. With v the sorted scores, the first c rows are those with a score
    of at most v[c - 1] whenever v[c - 1] < v[c], so a row's segment is the number of cuts
    with v[c - 1] below its score. The v[c - 1] and v[c] come from a bucketed selection
    (:func:`sorted_values_at`: three passes over the scores and a sort of the few buckets
    holding those ranks; no sort, no argsort), the segments from one compiled pass. Where a
    cut falls inside a tie (equal scores, or for ``computed`` scores a gap within the tie
    tolerance of :mod:`ordmetrics._core.numerics`), the set depends on the order of the tied
    rows by position: None, and the caller ranks the rows.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.evaluation.retention_inputs import segments_at_cuts
    >>> segments_at_cuts(np.array([0.4, 0.1, 0.9, 0.3, 0.2]), np.array([2, 4])).tolist()
    [1, 0, 2, 1, 0]
    >>> segments_at_cuts(np.array([0.4, 0.1, 0.1, 0.3]), np.array([1])) is None
    True
    """
    c = np.asarray(cuts, dtype=np.int64)
    s = np.ascontiguousarray(scores, dtype=np.float64)
    # the sorted values v[c - 1] and v[c] of every cut c
    ranks = np.unique(np.concatenate([c - 1, c]))
    at = sorted_values_at(s, ranks)
    lo = at[np.searchsorted(ranks, c - 1)]
    hi = at[np.searchsorted(ranks, c)]
    if computed:
        # lo_0 <= hi_0 <= lo_1 <= ...: a new tie group must start at every hi_j
        apart = bool(group_starts_sorted(np.stack([lo, hi], axis=1).ravel())[1::2].all())
    else:
        apart = bool(np.all(lo < hi))
    if not apart:
        return None
    seg = np.empty(s.size, dtype=np.int64)
    _count_below(s, lo, seg)
    return seg
