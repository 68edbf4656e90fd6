"""The sort-and-walk behind the ranking metrics: expected grades, pair sums and rank sums.

The compiled kernels of :mod:`ordmetrics.metrics.ranking`: the expected grade sum_k k p_k of a
probability row, and the walk over the rows sorted by score, tie group by tie group, with a
Fenwick tree of the weight passed in each class (the algorithm of the module notes of
:mod:`ordmetrics.metrics.ranking`). :class:`Sums` holds what one walk gives for one data set: the
pair sums of the C-index and Kendall's tau and the rank sums of Spearman's rho.
Definitions: ``docs/definitions.md``, section 3.
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit
from ordmetrics._core.numerics import TIE_SCALE_CAP, scale_weights, snap_sorted
from ordmetrics._core.validation import Prepared

__all__ = ["Sums", "counts_walk", "dense_codes", "expected_grade", "tie_group_walk"]


def dense_codes(y: np.ndarray, n_classes: int) -> tuple[np.ndarray, int]:
    """Order-preserving class codes ``0..K'-1`` with K' small enough for a per-class array."""
    if n_classes <= 4 * y.size + 64:
        return y, max(n_classes, 1)
    present, inverse = np.unique(y, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64, copy=False), present.size


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def expected_grade(P):
    """sum_k k p_k of every row, summed over k in a fixed order (equal rows tie exactly)."""
    n, k = P.shape
    out = np.empty(n)
    for i in range(n):
        g = 0.0
        for j in range(k):
            g += j * np.float64(P[i, j])
        out[i] = g
    return out


@njit(inline="always", cache=True, nogil=True)
def _fenwick_sum(tree, i):
    """Sum of the Fenwick tree's entries 1..i (the weight passed in classes 0..i-1)."""
    total = 0.0
    while i > 0:
        total += tree[i]
        i -= i & (-i)
    return total


@njit(inline="always", cache=True, nogil=True)
def _fenwick_add(tree, i, value):
    """Add ``value`` at position i (class i - 1) of the Fenwick tree."""
    while i < tree.size:
        tree[i] += value
        i += i & (-i)


@njit(cache=True, nogil=True)
def tie_group_walk(s, y, w, weighted, n_classes, total, d_class, want_pairs, want_ranks):
    """Walk the rows, sorted by score ``s``, tie group by tie group.

    Returns ``(S, n_s, groups, cov, var_s)``: S = sum over pairs of w_i w_j sgn(s_j - s_i)
    sgn(y_j - y_i) (concordant minus discordant weight); n_s = weight of the pairs with distinct
    scores, sum_h W_h B_h; groups = number of score groups of positive weight; cov = sum_i w_i
    r_i d_{y_i} and var_s = sum_h W_h r_h^2 with r_h = B_h + W_h / 2 - total / 2 the centred
    weighted mid-rank of group h (``d_class`` holds the centred mid-ranks of the classes).
    """
    n = s.size
    tree = np.zeros(n_classes + 1)  # Fenwick tree: class weights of the rows already passed
    S = 0.0
    n_s = 0.0
    groups = 0
    cov = 0.0
    var_s = 0.0
    before = 0.0
    half_total = 0.5 * total
    a = 0
    while a < n:
        v = s[a]
        b = a
        gw = 0.0
        gd = 0.0
        while b < n and s[b] == v:
            wr = w[b] if weighted else 1.0
            gw += wr
            if want_ranks:
                gd += wr * d_class[y[b]]
            if want_pairs and wr != 0.0:
                c = y[b]
                below = _fenwick_sum(tree, c)  # weight passed in classes 0..c-1
                upto = _fenwick_sum(tree, c + 1)  # weight passed in classes 0..c
                S += wr * (below - (before - upto))
            b += 1
        if want_pairs:
            for r in range(a, b):
                wr = w[r] if weighted else 1.0
                if wr != 0.0:
                    _fenwick_add(tree, y[r] + 1, wr)
        if gw > 0.0:
            groups += 1
            n_s += gw * before
            if want_ranks:
                rank = before + 0.5 * gw - half_total
                var_s += gw * rank * rank
                cov += rank * gd
        before += gw
        a = b
    return S, n_s, groups, cov, var_s


@njit(cache=True, nogil=True)
def counts_walk(s, y, order, w, computed, tol, n_classes, total, d_class, want_pairs, want_ranks):
    """:func:`tie_group_walk` over the rows of positive weight ``w[order[p]]``, taken from a
    fixed sorted order ``s`` (with ``y`` sorted alike): the rows of weight 0 are skipped, and
    the tie groups are those of :func:`ordmetrics._core.numerics.snap_sorted` on the rows left
    (``computed``: neighbours within ``tol * max(|a|, |b|)`` chained, an infinity tied only with
    an equal one; else equal values).
    Same sums, in the same row order within the fixed order, as the metric's walk.
    """
    n = s.size
    tree = np.zeros(n_classes + 1)
    S = 0.0
    n_s = 0.0
    groups = 0
    cov = 0.0
    var_s = 0.0
    before = 0.0
    half_total = 0.5 * total
    a = 0
    while a < n and not w[order[a]] > 0.0:
        a += 1
    while a < n:
        b = a
        gw = 0.0
        gd = 0.0
        prev = s[a]
        while b < n:
            wr = w[order[b]]
            if not wr > 0.0:
                b += 1
                continue
            v = s[b]
            if b > a:
                if computed:
                    # the scale capped: +-inf tied only with itself (inf - inf is NaN)
                    scale = min(max(abs(prev), abs(v)), TIE_SCALE_CAP)
                    if v - prev > tol * scale:
                        break
                elif v != prev:
                    break
            prev = v
            gw += wr
            if want_ranks:
                gd += wr * d_class[y[b]]
            if want_pairs:
                c = y[b]
                below = _fenwick_sum(tree, c)  # weight passed in classes 0..c-1
                upto = _fenwick_sum(tree, c + 1)  # weight passed in classes 0..c
                S += wr * (below - (before - upto))
            b += 1
        if want_pairs:
            for r in range(a, b):
                wr = w[order[r]]
                if wr > 0.0:
                    _fenwick_add(tree, y[r] + 1, wr)
        if gw > 0.0:
            groups += 1
            n_s += gw * before
            if want_ranks:
                rank = before + 0.5 * gw - half_total
                var_s += gw * rank * rank
                cov += rank * gd
        before += gw
        a = b
        while a < n and not w[order[a]] > 0.0:
            a += 1
    return S, n_s, groups, cov, var_s


class Sums:
    """The pair and rank sums of one data set (see :func:`tie_group_walk`)."""

    __slots__ = ("S", "cov", "n_s", "n_y", "score_groups", "var_s", "var_y", "y_groups")

    def __init__(self, prep: Prepared, *, pairs: bool, ranks: bool, computed: bool = False) -> None:
        y, k = dense_codes(prep.y_true, prep.n_classes)
        score = prep.other
        w, _ = scale_weights(prep.weight)  # exact; every sum of products stays finite
        if w is not None and not (w > 0.0).all():
            # rows of weight 0 take no part (nor in the tie groups of a computed score)
            keep = w > 0.0
            y, score, w = y[keep], score[keep], w[keep]
        wk = np.bincount(y, weights=w, minlength=k).astype(np.float64, copy=False)
        before_k = np.cumsum(wk) - wk  # weight of the classes below each class
        total = float(wk.sum())
        self.y_groups = int(np.count_nonzero(wk > 0))
        self.n_y = float(wk @ before_k)  # pairs with y_i != y_j, no cancellation
        d_class = before_k + 0.5 * wk - 0.5 * total  # centred weighted mid-rank of each class
        self.var_y = float(wk @ (d_class * d_class))
        order = np.argsort(score)
        s = score[order]  # gathered once: the walk then reads memory in sequence
        if computed:
            s = snap_sorted(s)  # near-ties of computed values are ties (ordmetrics._core.numerics)
        weighted = w is not None
        S, n_s, groups, cov, var_s = tie_group_walk(
            s,
            y[order],
            w[order] if w is not None else np.empty(0),
            weighted,
            k,
            total,
            d_class,
            pairs,
            ranks,
        )
        self.S, self.n_s, self.score_groups = float(S), float(n_s), int(groups)
        self.cov, self.var_s = float(cov), float(var_s)
