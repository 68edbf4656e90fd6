"""The compiled driver of the scoring rules: validate, score and reduce in one pass.

Each scoring rule defines, in its module of :mod:`ordmetrics.metrics.scoring`, a row function
``row(P, i, y_i, K, param) -> (score, row sum, row min, row max, wrong)`` on row ``i`` of the
probability matrix, and a per-rule kernel that runs it through :func:`drive_rows`::

    @njit(inline="always", **JIT_OPTIONS)
    def rps_row(P, i, yi, K, param): ...

    @njit(**JIT_OPTIONS)
    def rps_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
        return drive_rows(P, y, w, ws, rps_row, param, tol, out, rows, pen, parts)

:func:`drive_rows` is inlined into every such kernel, so each rule gets its own compiled loop
with its row function inlined (a shared kernel dispatching per row runs ~1.7x slower), cached
on disk by numba like any other kernel. The loop validates every row (finite, inside [0, 1],
summing to 1 within ``tol``), the class index and the weight, and either writes the per-sample
scores or accumulates their weighted sum. :func:`score_rows` calls the kernel of a rule's
record (:class:`ordmetrics._core.rule.ScoringRule`) and finishes the log rules.

The kernels are also compiled at install, ahead of time (:mod:`ordmetrics._core.aot`): where
that module is current and the arrays have its types, :func:`score_rows` runs its exports
(the same code and bits, no compilation, numba not even imported), else the kernels below just
in time.

numba keys a cached kernel to the file that defines it, not to the files of the functions it
inlines: :func:`ordmetrics._core.jit.njit` empties a kernel's on-disk cache when a file of an
inlined function (this module's driver) is newer than that cache, so an edit here recompiles
the rules' kernels on their next call.

Blocks and the order of the sums
--------------------------------
The rows are cut into fixed blocks of ``BLOCK`` rows. Each block is validated and summed on
its own, row after row, into its slot of ``parts`` (score sum, weight sum, invalid rows), and
:func:`combine_blocks` adds the slots in block order with Neumaier's compensated summation:
a mean over 10^8 rows keeps about 15 significant digits, and as the blocks and the order are
fixed, the result depends on nothing but the data. Chunks of ``CHUNK_BLOCKS`` blocks run on
several Python threads (:func:`ordmetrics._core.parallel.run_chunks`; the compiled kernels
release the GIL), each a call of the kernel on its rows writing its own slots: which thread
ran a chunk, and how many threads there were, never changes a result. (numba's
``parallel=True`` kernels gave the same speed on idle cores, made a call wait for a
descheduled thread on busy ones, and compiled a second kernel per rule.) The sum of the weights
is compensated by block in the same way (before, it was added row after row: weighted means
may differ from earlier releases in the last bit). Rows of weight 0 are validated but never
added (their score may be infinite).

In a chunk of the log rules (``log_form``), after the kernel has written the chunk's p_y,
NumPy takes the logarithm of the chunk (vectorised, which a compiled loop without a vector
math library is not: 10x slower) and :func:`block_sums` adds each block of the chunk, in
a fixed order (four interleaved running sums), into its slot: the same blocks as the other
rules (before, NumPy's pairwise sum of all rows: their means may differ from earlier
releases in the last bit).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core import aot
from ordmetrics._core.jit import njit
from ordmetrics._core.parallel import parallel_slot, run_chunks
from ordmetrics._core.rule import ScoringRule, check_rule

__all__ = [
    "BLOCK",
    "CHUNK_BLOCKS",
    "JIT_OPTIONS",
    "PBS_UNPENALIZED",
    "block_sums",
    "combine_blocks",
    "drive_rows",
    "finish_log_rule",
    "row_stats",
    "row_stats_decision",
    "score_rows",
]

#: Bit 0 of the ``param`` of PBS and PLL: ``ties="unpenalized"`` (see :func:`row_stats_decision`).
PBS_UNPENALIZED = 1

#: Rows of a block: the unit of the fixed-order sums (and of the parallel work).
BLOCK = 1024
#: Blocks of a chunk, the unit of work of a thread; for the log rules a chunk's p_y (256 KiB)
#: stays in cache between the kernel, the logarithm and the block sums.
CHUNK_BLOCKS = 32

#: The numba options of every scoring kernel and row function (cached on disk; ``nogil``:
#: the chunks of a call run on several threads).
JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(inline="always", **JIT_OPTIONS)
def row_stats(P, i, K):
    """(row sum, row min, row max) of row i: the validation of a row that is scored elsewhere."""
    t = 0.0
    lo = 1.0
    hi = 0.0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        hi = max(hi, v)
        t += v
    return t, lo, hi


@njit(inline="always", **JIT_OPTIONS)
def row_stats_decision(P, i, yi, K, unpenalized):
    """(row sum, row min, row max, wrong) of row i, in one pass; ``wrong``: the penalty
    indicator of PBS and PLL, True when the decision is wrong.

    Default: the arg-max decision (ties to the lowest class) differs from y, i.e. some class
    beats p_y or an earlier class ties it. ``unpenalized``: some class beats p_y (the authors'
    Algorithm 1; a tie escapes). The arg-max decision (the first class of largest p_k) is
    tracked in the pass with selects, not branches (a loop over the classes before y ends at
    a different place in every row: its exit mispredicted in most rows and cost 2x the pass).
    """
    py = P[i, yi]
    t = 0.0
    lo = 1.0
    hi = -1.0
    top = 0
    for k in range(K):
        v = P[i, k]
        lo = min(lo, v)
        top = k if v > hi else top
        hi = max(hi, v)
        t += v
    return t, lo, hi, (hi > py) | ((top != yi) & (not unpenalized))


@njit(inline="always", **JIT_OPTIONS)
def combine_blocks(parts):
    """(score sum, weight sum, invalid rows) of the block slots ``parts``, added in block
    order with Neumaier's compensated summation (an infinite sum stays infinite)."""
    total = 0.0
    comp = 0.0
    wsum = 0.0
    wcomp = 0.0
    n_bad = 0
    for b in range(parts.shape[0]):
        block = parts[b, 0]
        t = total + block
        if abs(t) == np.inf:  # an infinite score (log rules): no compensation, no NaN
            pass
        elif abs(total) >= abs(block):
            comp += (total - t) + block
        else:
            comp += (block - t) + total
        total = t
        block = parts[b, 1]
        t = wsum + block
        if abs(wsum) >= abs(block):
            wcomp += (wsum - t) + block
        else:
            wcomp += (block - t) + wsum
        wsum = t
        n_bad += np.int64(parts[b, 2])
    return total + comp, wsum + wcomp, n_bad


@njit(inline="always", **JIT_OPTIONS)
def drive_rows(P, y, w, ws, row, param, tol, out, rows, pen, parts):
    """Validate and score every row in one pass with the row function ``row``.

    Inlined into each rule's kernel (``row`` is then a constant of that kernel). ``w``,
    ``out`` and ``pen`` may be None: numba then compiles a version without those branches
    (about 20% faster than testing them at run time). The blocks run in order; a call on a
    chunk of rows fills the slots of its blocks (:func:`score_rows`).

    Parameters
    ----------
    P : (N, K) float64 or float32, C-contiguous
    y : (N,) int64 class indices
    w : (N,) float64 weights, or None for unit weights
    ws : float, a power of two multiplying every weight (exact: the weights are scaled in
        the loop instead of in a copy, see :func:`ordmetrics._core.numerics.weight_scale`)
    row : the rule's row function ``row(P, i, y_i, K, param) -> (s, sum, min, max, wrong)``;
        ``wrong`` (the arg-max decision is wrong) is read only when ``pen`` is given
    param : float, the rule's packed options
    tol : float, tolerance on the row sums
    out : (N,) float64 receiving per-sample values when ``rows`` or for the log rules (which
        receive p_y, and 1 for rows of weight 0 when reducing so that they add nothing; the
        logarithm is taken by :func:`finish_log_rule`); otherwise None
    rows : bool, per-sample output wanted (weights are then only validated)
    pen : (N,) float64 receiving the penalty ln(K) m of PLL; for a reduction of PLL, an
        array of length 0: each block then writes ln(K) times the weight of its penalized
        rows to its slot (where :func:`block_sums` adds the block's -ln p_y); None for the
        other rules
    parts : (ceil(N / BLOCK), 3) float64 receiving each block's score sum (0 when ``out`` is
        given), weight sum and number of invalid rows

    Returns
    -------
    total : float, sum of w_i * s_i over rows with w_i > 0 (0 for ``rows`` and the log rules)
    weight : float, sum of w_i (the number of rows for unit weights)
    n_bad : int, rows with an invalid probability row, class index or weight
    """
    N, K = P.shape
    ln_k = np.log(K)
    for b in range(parts.shape[0]):
        start = b * BLOCK
        stop = min(N, start + BLOCK)
        block = 0.0
        bsum = 0.0
        bad = 0
        penalized = 0.0  # weight of the penalized rows (pen of length 0)
        wi = 1.0
        for i in range(start, stop):
            yi = y[i]
            yc = min(max(yi, 0), K - 1)
            s, rowsum, lo, hi, wrong = row(P, i, yc, K, param)
            ok = (abs(rowsum - 1.0) <= tol) & (lo >= 0.0) & (hi <= 1.0)  # NaN fails the sum
            ok &= (yi >= 0) & (yi < K)
            counted = True
            if w is not None:
                wi = w[i] * ws
                ok &= (wi >= 0.0) & (wi < np.inf)
                counted = wi > 0.0
                bsum += wi if ok else 0.0
            if not ok:
                bad += 1
                continue
            if out is not None:
                if rows or counted:
                    out[i] = s
                else:
                    out[i] = 1.0  # a log rule's p_y for a row of weight 0: adds -ln 1 = 0
                if pen is not None:
                    # branch-free: the test is a coin flip on real data, a branch mispredicts
                    if pen.shape[0] == 0:  # reducing: the block adds up its penalties
                        penalized += (wi * wrong) if w is not None else np.float64(wrong)
                    else:
                        pen[i] = ln_k * (wrong & (rows | counted))
            elif w is not None:
                if counted:
                    block += wi * s
            else:
                block += s
        if w is None:
            bsum = np.float64(stop - start)
        if pen is not None and pen.shape[0] == 0:
            block = ln_k * penalized  # the log rule's sum -ln p_y is added by block_sums
        parts[b, 0] = block
        parts[b, 1] = bsum
        parts[b, 2] = bad
    return combine_blocks(parts)


@njit(**JIT_OPTIONS)
def block_sums(values, w, ws, parts):
    """Add to ``parts[b, 0]`` the sum of block b of ``values`` (times ``w * ws`` when
    ``w`` is given): the log rules' block sums (the kernel wrote 0, or PLL's penalties).

    Four running sums take the rows in turn (row i into sum i mod 4, from the block's first
    row) and are added as (s0 + s1) + (s2 + s3): a fixed order, so the result depends on the
    data only, and four independent additions in flight instead of one chain.
    """
    n = values.shape[0]
    for b in range(parts.shape[0]):
        start = b * BLOCK
        stop = min(n, start + BLOCK)
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        i = start
        if w is None:
            while i + 4 <= stop:
                s0 += values[i]
                s1 += values[i + 1]
                s2 += values[i + 2]
                s3 += values[i + 3]
                i += 4
            if i < stop:
                s0 += values[i]
            if i + 1 < stop:
                s1 += values[i + 1]
            if i + 2 < stop:
                s2 += values[i + 2]
        else:
            while i + 4 <= stop:
                s0 += (w[i] * ws) * values[i]
                s1 += (w[i + 1] * ws) * values[i + 1]
                s2 += (w[i + 2] * ws) * values[i + 2]
                s3 += (w[i + 3] * ws) * values[i + 3]
                i += 4
            if i < stop:
                s0 += (w[i] * ws) * values[i]
            if i + 1 < stop:
                s1 += (w[i + 1] * ws) * values[i + 1]
            if i + 2 < stop:
                s2 += (w[i + 2] * ws) * values[i + 2]
        parts[b, 0] += (s0 + s1) + (s2 + s3)


def finish_log_rule(p_true: np.ndarray, penalty: np.ndarray | None) -> np.ndarray:
    """Turn p_y (and the PLL penalties ln(K) m) into -ln p_y + ln(K) m, in place, vectorised."""
    with np.errstate(divide="ignore"):  # ln 0 = -inf is the intended result
        np.log(p_true, out=p_true)
    # penalty - ln p, or 0 - ln p: one pass, and never -0.0 (unlike -ln 1)
    np.subtract(0.0 if penalty is None else penalty, p_true, out=p_true)
    return p_true


def score_rows(
    P: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    ws: float,
    rule: ScoringRule,
    param: float,
    tol: float,
    rows: bool,
) -> tuple[float, float, int, np.ndarray | None]:
    """Validate and score every row with the kernel of ``rule`` (a :class:`ScoringRule`).

    ``ws`` is the power of two multiplying every weight (1.0 for weights as they are).

    Returns ``(total, weight_sum, n_bad, per_sample)``: the weighted sum of the scores, the
    sum of the weights, the number of invalid rows (when not 0, the other results are
    meaningless), and the per-sample scores when ``rows`` (else ``None``). Chunks of blocks
    run on several threads when the input is large enough
    (:func:`ordmetrics._core.parallel.parallel_slot`); the result is the same either way.
    """
    rule = check_rule(rule)
    n, k = P.shape
    n_blocks = (n + BLOCK - 1) // BLOCK
    parts = np.empty((n_blocks, 3), dtype=np.float64)
    log_rule = rule.log_form
    out = np.empty(n, dtype=np.float64) if (rows or log_rule) else None
    # a reduction of PLL adds its penalties by block in the kernel: no array of them
    pen = np.empty(n if rows else 0, dtype=np.float64) if rule.penalty else None
    # the kernel compiled at install where there is one for these arrays, else just in time
    kernel = aot.kernel_for(rule.kernel, P, y, w, out, pen, parts) or rule.kernel
    sums = (aot.block_sums_for(block_sums, out, w, parts) or block_sums) if log_rule else None
    with parallel_slot(n * k) as parallel:
        if not log_rule and not parallel:
            total, wsum, n_bad = kernel(P, y, w, ws, param, tol, out, rows, pen, parts)
            return total, wsum, n_bad, (out if rows and n_bad == 0 else None)

        def chunk(c: int) -> None:
            b0 = c * CHUNK_BLOCKS
            b1 = min(n_blocks, b0 + CHUNK_BLOCKS)
            r0, r1 = b0 * BLOCK, min(n, b1 * BLOCK)
            o = None if out is None else out[r0:r1]
            p = None if pen is None else (pen[r0:r1] if rows else pen)  # pen: length 0
            wc = None if w is None else w[r0:r1]
            slots = parts[b0:b1]
            kernel(P[r0:r1], y[r0:r1], wc, ws, param, tol, o, rows, p, slots)
            if not log_rule or slots[:, 2].any():  # invalid rows: the caller raises or omits
                return
            assert o is not None  # allocated above for the log rules
            finish_log_rule(o, p if rows else None)
            if not rows:
                assert sums is not None
                sums(o, wc, ws, slots)

        run_chunks(chunk, (n_blocks + CHUNK_BLOCKS - 1) // CHUNK_BLOCKS, parallel)
    total, wsum, n_bad = (aot.combine_blocks_for(combine_blocks, parts) or combine_blocks)(parts)
    return total, wsum, n_bad, (out if rows and n_bad == 0 else None)
