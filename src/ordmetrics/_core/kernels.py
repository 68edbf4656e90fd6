"""Compiled per-sample kernels of the scoring rules (the single source of truth of each formula).

Each rule is a row function ``score(P, i, y_i, K, param) -> float`` on row ``i`` of the
probability matrix. :func:`score_rows` runs one of them over every row in a single pass that
also validates the row (finite, inside [0, 1], summing to 1 within ``tol``), the class index
and the weight, and either writes the per-sample scores or accumulates their weighted sum.

The reduction adds rows in fixed blocks of ``BLOCK`` rows and the block sums with Neumaier's
compensated summation, so a mean over 10^8 rows keeps about 15 significant digits.
Rows of weight 0 are validated but never added (their score may be infinite).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit

RPS = 0
SA_RPS = 1
BRIER = 2
PBS = 3
LOG_LOSS = 4
PLL = 5
SPHERICAL = 6
CDF_L1 = 7

#: PBS option codes, packed into the kernels' ``param``: bit 0 = ``ties="unpenalized"``,
#: bits 1-2 = the scale (0 ``"eq4"``, 1 ``"algorithm2"``, 2 ``"authors_code"``). PLL uses bit 0.
PBS_UNPENALIZED = 1
PBS_SCALES = ("eq4", "algorithm2", "authors_code")

BLOCK = 1024

_opts = {"cache": True, "nogil": True, "error_model": "numpy"}


# Every row function reads row i once and returns (score, row sum, row min, row max): the
# last three validate the row in the same loop that scores it.


@njit(inline="always", **_opts)
def _rps(P, i, yi, K, normalize):
    """(1/(K-1)) sum_{k<K-1} (F_k - H_k)^2, F the cumulative prediction, H_k = 1{y <= k}."""
    c = 0.0
    s = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - 1):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        c += v
        d = c - (1.0 if k >= yi else 0.0)
        s += d * d
    v = P[i, K - 1]
    return (s / (K - 1) if normalize else s), c + v, min(lo, v), max(hi, v)


@njit(inline="always", **_opts)
def _sa_rps(P, i, yi, K):
    """((1/(K-1)) sum_{k<K-1} |F_k - H_k|)^2."""
    c = 0.0
    a = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - 1):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        c += v
        a += abs(c - (1.0 if k >= yi else 0.0))
    v = P[i, K - 1]
    a /= K - 1
    return a * a, c + v, min(lo, v), max(hi, v)


@njit(inline="always", **_opts)
def _brier(P, i, yi, K):
    """sum_k (p_k - 1{y = k})^2."""
    s = 0.0
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        t += v
        d = v - (1.0 if k == yi else 0.0)
        s += d * d
    return s, t, lo, hi


@njit(inline="always", **_opts)
def _cdf_l1(P, i, yi, K, normalize):
    """(1/(K-1)) sum_{k<K-1} |F_k - H_k| (without the factor when not ``normalize``)."""
    c = 0.0
    a = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K - 1):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        c += v
        a += abs(c - (1.0 if k >= yi else 0.0))
    v = P[i, K - 1]
    return (a / (K - 1) if normalize else a), c + v, min(lo, v), max(hi, v)


@njit(inline="always", **_opts)
def _pseudospherical(P, i, yi, K, alpha):
    """1 - (p_y / ||p||_alpha)^(alpha - 1); alpha = 2 is the spherical score.

    The norm is taken of p / max_k p_k, whose largest entry is 1: sum_k (p_k / max)^alpha is
    in [1, K] and never underflows, whatever alpha (p_k^alpha itself would for alpha ~ 1000).
    """
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        t += v
    top = np.float64(hi) if hi > 0.0 else 1.0  # a row of zeros is invalid; never used
    a = 0.0
    for k in range(K):
        x = np.float64(P[i, k]) / top
        a += x * x if alpha == 2.0 else x**alpha
    nrm = np.sqrt(a) if alpha == 2.0 else a ** (1.0 / alpha)
    ratio = min(np.float64(P[i, yi]) / top / nrm, 1.0)
    return 1.0 - (ratio if alpha == 2.0 else ratio ** (alpha - 1.0)), t, lo, hi


@njit(inline="always", **_opts)
def _wrong(P, i, yi, hi, unpenalized):
    """The penalty indicator of PBS and PLL: 1 when the decision is wrong.

    Default: the arg-max decision (ties to the lowest class) differs from y, i.e. some class
    beats p_y or an earlier class ties it. ``unpenalized``: some class beats p_y (the authors'
    Algorithm 1; a tie escapes). Branch-free.
    """
    py = P[i, yi]
    e = -1.0
    for k in range(yi):
        e = max(e, P[i, k])
    return (hi > py) | ((e >= py) & (not unpenalized))


@njit(inline="always", **_opts)
def _brier_first(P, i, yi, K):
    """(Brier score, row sum, min, max, largest p_k over k < y; -1 when y = 0): one pass."""
    s = 0.0
    t = 0.0
    lo = 1.0
    hi = 0.0
    e = -1.0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        t += v
        d = v - (1.0 if k == yi else 0.0)
        s += d * d
        e = max(e, v if k < yi else -1.0)
    return s, t, lo, hi, e


@njit(inline="always", **_opts)
def _stats(P, i, K):
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        t += v
    return t, lo, hi


@njit(inline="always", **_opts)
def _score(P, i, yi, K, rule, param):
    """(score, row sum, row min, row max) of row i under ``rule``.

    The penalty of PBS and PLL is :func:`_wrong` (``param`` holds the option codes, see
    ``PBS_UNPENALIZED``). For the log rules the "score" is p_y; see :func:`finish_log_rule`.
    """
    if rule == RPS:
        return _rps(P, i, yi, K, param != 0.0)
    if rule == SA_RPS:
        return _sa_rps(P, i, yi, K)
    if rule == CDF_L1:
        return _cdf_l1(P, i, yi, K, param != 0.0)
    if rule == SPHERICAL:
        return _pseudospherical(P, i, yi, K, param)
    if rule == BRIER:
        return _brier(P, i, yi, K)
    if rule == PBS:
        s, t, lo, hi, e = _brier_first(P, i, yi, K)
        code = int(param)
        scale = code >> 1
        pen = (K - 1) / K
        if scale != 0:  # Algorithm 2 and the authors' code: the Brier term over K
            s /= K
        if scale == 1:  # Algorithm 2: the penalty over K as well
            pen /= K
        py = P[i, yi]
        # the decision is wrong: a class beats p_y, or (arg-max rule) an earlier class ties it;
        # branch-free (see _wrong)
        m = (hi > py) | ((e >= py) & ((code & PBS_UNPENALIZED) == 0))
        return s + pen * m, t, lo, hi
    # LOG_LOSS, PLL: the probability of the true class, clipped to [eps, 1 - eps] if eps > 0
    # (log_loss only); the logarithm is taken afterwards, vectorised, by ``finish_log_rule``.
    t, lo, hi = _stats(P, i, K)
    py = np.float64(P[i, yi])
    if rule == LOG_LOSS and param > 0.0:
        py = min(max(py, param), 1.0 - param)
    return py, t, lo, hi


@njit(inline="always", **_opts)
def _score_rows(P, y, w, rule, param, tol, out, rows, pen):
    """Validate and score every row in one pass.

    ``w``, ``out`` and ``pen`` may be None: numba then compiles a version without those
    branches (about 20% faster than testing them at run time).

    Parameters
    ----------
    P : (N, K) float64 or float32, C-contiguous
    y : (N,) int64 class indices
    w : (N,) float64 weights, or None for unit weights
    rule : int, one of the rule codes of this module
    param : float, the rule's option (RPS, CDF_L1: normalize flag; log_loss: eps, 0 = no
        clipping; PBS, PLL: option codes; SPHERICAL: alpha)
    tol : float, tolerance on the row sums
    out : (N,) float64 receiving per-sample values when ``rows`` or for the log rules (which
        receive p_y, and 1 for rows of weight 0 when reducing so that they add nothing; the
        logarithm is taken by :func:`finish_log_rule`); otherwise None
    rows : bool, per-sample output wanted (weights are then only validated)
    pen : (N,) float64 receiving the penalty ln(K) m of PLL; None for the other rules

    Returns
    -------
    total : float, sum of w_i * s_i over rows with w_i > 0 (0 for ``rows`` and the log rules)
    weight : float, sum of w_i (the number of rows for unit weights)
    n_bad : int, rows with an invalid probability row, class index or weight
    """
    N, K = P.shape
    ln_k = np.log(K)
    total = 0.0
    comp = 0.0
    wsum = 0.0
    n_bad = 0
    for start in range(0, N, BLOCK):
        stop = min(N, start + BLOCK)
        block = 0.0
        for i in range(start, stop):
            yi = y[i]
            yc = min(max(yi, 0), K - 1)
            s, rowsum, lo, hi = _score(P, i, yc, K, rule, param)
            ok = (abs(rowsum - 1.0) <= tol) & (lo >= 0.0) & (hi <= 1.0)  # NaN fails the sum
            ok &= (yi >= 0) & (yi < K)
            counted = True
            if w is not None:
                wi = w[i]
                ok &= (wi >= 0.0) & (wi < np.inf)
                counted = wi > 0.0
                wsum += wi if ok else 0.0
            if not ok:
                n_bad += 1
                continue
            if out is not None:
                if rows or counted:
                    out[i] = s
                else:
                    out[i] = 1.0  # a log rule's p_y for a row of weight 0: adds -ln 1 = 0
                if pen is not None:
                    # branch-free: the test is a coin flip on real data, a branch mispredicts
                    m = _wrong(P, i, yc, hi, (int(param) & PBS_UNPENALIZED) != 0)
                    pen[i] = ln_k * (m & (rows | counted))
            elif w is not None:
                if counted:
                    block += w[i] * s
            else:
                block += s
        if w is None:
            wsum += stop - start
        t = total + block
        if abs(total) >= abs(block):
            comp += (total - t) + block
        else:
            comp += (block - t) + total
        total = t
    return total + comp, wsum, n_bad


def finish_log_rule(p_true: np.ndarray, penalty: np.ndarray | None) -> np.ndarray:
    """Turn p_y (and the PLL penalties ln(K) m) into -ln p_y + ln(K) m, in place, vectorised."""
    with np.errstate(divide="ignore"):  # ln 0 = -inf is the intended result
        np.log(p_true, out=p_true)
    # penalty - ln p, or 0 - ln p: one pass, and never -0.0 (unlike -ln 1)
    np.subtract(0.0 if penalty is None else penalty, p_true, out=p_true)
    return p_true


# One compiled kernel per rule: ``rule`` is a constant inside each, so the compiler keeps only
# that rule's branch in the hot loop (a shared kernel dispatching per row runs ~1.7x slower).


@njit(**_opts)
def _rps_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, RPS, param, tol, out, rows, pen)


@njit(**_opts)
def _sa_rps_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, SA_RPS, param, tol, out, rows, pen)


@njit(**_opts)
def _brier_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, BRIER, param, tol, out, rows, pen)


@njit(**_opts)
def _pbs_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, PBS, param, tol, out, rows, pen)


@njit(**_opts)
def _log_loss_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, LOG_LOSS, param, tol, out, rows, pen)


@njit(**_opts)
def _pll_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, PLL, param, tol, out, rows, pen)


@njit(**_opts)
def _spherical_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, SPHERICAL, param, tol, out, rows, pen)


@njit(**_opts)
def _cdf_l1_rows(P, y, w, param, tol, out, rows, pen):
    return _score_rows(P, y, w, CDF_L1, param, tol, out, rows, pen)


_KERNELS = (
    _rps_rows,
    _sa_rps_rows,
    _brier_rows,
    _pbs_rows,
    _log_loss_rows,
    _pll_rows,
    _spherical_rows,
    _cdf_l1_rows,
)


def score_rows(
    P: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    rule: int,
    param: float,
    tol: float,
    rows: bool,
) -> tuple[float, float, int, np.ndarray | None]:
    """Validate and score every row with the kernel of ``rule``.

    Returns ``(total, weight_sum, n_bad, per_sample)``: the weighted sum of the scores, the
    sum of the weights, the number of invalid rows (when not 0, the other results are
    meaningless), and the per-sample scores when ``rows`` (else ``None``).
    """
    n = P.shape[0]
    log_rule = rule in (LOG_LOSS, PLL)
    out = np.empty(n, dtype=np.float64) if (rows or log_rule) else None
    pen = np.empty(n, dtype=np.float64) if rule == PLL else None
    total, wsum, n_bad = _KERNELS[rule](P, y, w, param, tol, out, rows, pen)
    if n_bad:
        return total, wsum, n_bad, None
    if log_rule:
        assert out is not None  # allocated above for the log rules
        finish_log_rule(out, pen)
        if not rows:
            # NumPy's pairwise sum, not a BLAS dot product: the result must not depend on the
            # number of BLAS threads
            total = float(out.sum()) if w is None else float(np.multiply(w, out, out=out).sum())
    return total, wsum, n_bad, (out if rows else None)
