"""The compiled driver of the scoring rules: validate, score and reduce in one pass.

Each scoring rule defines, in its module of :mod:`ordmetrics.metrics.scoring`, a row function
``row(f, i, y_i, K, param) -> (score, row sum, row min, row max, wrong)`` on row ``i`` of the
probability matrix, flat (``f[i * K + k]``, unsigned indices: no test for negative ones), and
a per-rule kernel that runs it through :func:`drive_rows`::

    @njit(inline="always", **JIT_OPTIONS)
    def rps_row(f, i, yi, K, param): ...

    @njit(**JIT_OPTIONS)
    def rps_kernel(P, y, w, ws, param, tol, out, rows, pen, parts):
        return drive_rows(P, y, w, ws, rps_row, param, tol, out, rows, pen, parts, True)

:func:`drive_rows` is inlined into every such kernel, so each rule gets its own compiled loop
with its row function inlined (a shared kernel dispatching per row runs ~1.7x slower), cached
on disk by numba like any other kernel. What does not depend on the rule (a block's sums and
slot, :func:`finish_block`; :func:`lane_sums`; :func:`combine_blocks`) is a called kernel,
compiled once for all rules: inlined into each rule's kernel, it made numba's first
compilation of a rule 3-4x slower (numba copies an inlined function's code per call site).
The loop validates every row (finite, inside [0, 1], summing to 1 within ``tol``), the class
index and the weight, and either writes the per-sample scores or the block's weighted scores
for its sum. :func:`score_rows` calls the kernel of a
rule's record (:class:`ordmetrics._core.rule.ScoringRule`) and finishes the log rules.

Vector instructions
-------------------
The loop over the rows of a block (:func:`score_block`) is branch-free: every row is scored
and selects drop what an invalid row would add; the row functions use selects too (not
``min``/``max``), and pick p_y out of their pass over the row. For K a constant, LLVM then
unrolls the class loop and runs several rows at once on vector instructions (a row of K
entries is a fixed stride). The kernels compiled at install (below) carry one such loop for
each K of :data:`UNROLLED_K` beside the loop for any K: 2-2.5x faster at K = 5 on one core.
The kernels compiled just in time carry only the loop for any K (:data:`UNROLL`: the unrolled
loops would cost 4-5x the compile time on first use). The values are the same bits either
way: the same operations in the same order for every row. In the loop for any K, most rules
check the range [0, 1] of the entries by a separate vectorised pass over each block
(:func:`n_outside`): the row functions' running minimum and maximum, unread, are then
compiled away (``ranged`` of :func:`drive_rows`).

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
its own into its slot of ``parts`` (score sum, weight sum, invalid rows), in the order of
:func:`lane_sums` (sixteen running sums taking the rows in turn; before, one running sum:
means may differ from earlier releases in the last bit), and
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
the same order (sixteen interleaved running sums; before, four), into its slot: the same
blocks as the other rules (their means may differ from earlier releases in the last bit).
The kernel of a log rule runs without the weights (their checks and selects in its loop
took as long as the rest of it): :func:`block_sums` checks and adds them as it adds the
block's -ln p_y, with the same operations in the same order as the weighted kernel (the
same bits); a chunk with an invalid row or weight runs the weighted kernel again, for its
counts.
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
    "ONE",
    "PBS_UNPENALIZED",
    "SELECT_MAX_K",
    "UNROLL",
    "UNROLLED_K",
    "ZERO",
    "at_or_above",
    "block_sums",
    "combine_blocks",
    "drive_rows",
    "finish_block",
    "finish_log_rule",
    "lane_sums",
    "row_stats_decision",
    "score_block",
    "score_rows",
]

#: Bit 0 of the ``param`` of PBS and PLL: ``ties="unpenalized"`` (see :func:`row_stats_decision`).
PBS_UNPENALIZED = 1

#: Rows of a block: the unit of the fixed-order sums (and of the parallel work).
BLOCK = 1024
UBLOCK = np.uint64(BLOCK)
#: The class counts whose block loop is compiled with K a constant (vector instructions).
UNROLLED_K = (3, 4, 5, 6)
#: Up to this many classes a row function picks p_y out of its pass over the row with selects
#: (a load at a row-dependent place keeps the rows of :data:`UNROLLED_K` off vector
#: instructions); above, it loads p_y (K selects a row cost more than the load).
SELECT_MAX_K = np.uint64(6)
#: Whether the kernels being compiled carry the loops of UNROLLED_K: set by the build of the
#: ahead-of-time modules only (they cost 4-5x the compile time of a kernel).
UNROLL = False
ZERO = np.uint64(0)
ONE = np.uint64(1)
TWO = np.uint64(2)
THREE = np.uint64(3)
FOUR = np.uint64(4)
FIVE = np.uint64(5)
SIX = np.uint64(6)
SEVEN = np.uint64(7)
EIGHT = np.uint64(8)
NINE = np.uint64(9)
TEN = np.uint64(10)
ELEVEN = np.uint64(11)
TWELVE = np.uint64(12)
THIRTEEN = np.uint64(13)
FOURTEEN = np.uint64(14)
FIFTEEN = np.uint64(15)
SIXTEEN = np.uint64(16)
#: Blocks of a chunk, the unit of work of a thread; for the log rules a chunk's p_y (256 KiB)
#: stays in cache between the kernel, the logarithm and the block sums.
CHUNK_BLOCKS = 32

#: An array of length 0: "none" for :func:`block_sums`.
EMPTY = np.empty(0, dtype=np.float64)

#: The numba options of every scoring kernel and row function (cached on disk; ``nogil``:
#: the chunks of a call run on several threads).
JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


@njit(inline="always", **JIT_OPTIONS)
def at_or_above(k, yi, K):
    """The cumulative truth H = 1{y <= k} of class ``k`` (0-based ``k`` and ``y_i``, unsigned):
    1.0 where ``k >= yi``, else 0.0. Up to :data:`SELECT_MAX_K` classes the comparison is
    converted (the rows of :data:`UNROLLED_K` stay on vector instructions, where a select
    would keep them off); above, a select (one instruction fewer per class in the loop for
    any K). The same value either way."""
    return np.float64(k >= yi) if K <= SELECT_MAX_K else (1.0 if k >= yi else 0.0)


@njit(inline="always", **JIT_OPTIONS)
def row_stats_decision(f, i, yi, K, param):
    """(row sum, row min, row max, p_y, wrong) of row i of the flat matrix ``f``, in one pass;
    ``wrong``: the penalty indicator of PBS and PLL, True when the decision is wrong.

    Default: the arg-max decision (ties to the lowest class) differs from y, i.e. some class
    beats p_y or an earlier class ties it. ``ties="unpenalized"`` (bit :data:`PBS_UNPENALIZED`
    of ``param``): some class beats p_y (the authors' Algorithm 1; a tie escapes). The arg-max
    decision (the first class of largest p_k) is tracked in the pass with selects, not
    branches, and so is p_y up to :data:`SELECT_MAX_K` classes (either keeps the rows from
    running side by side on vector instructions).
    """
    base = i * K
    t = 0.0
    lo = 1.0
    hi = -1.0
    py = np.float64(f[base + yi]) if K > SELECT_MAX_K else 0.0
    top = ZERO
    for k in range(K):
        v = f[base + k]
        lo = v if v < lo else lo
        top = k if v > hi else top
        hi = v if v > hi else hi
        py = v if (k == yi) & (K <= SELECT_MAX_K) else py
        t += v
    ties = (int(param) & PBS_UNPENALIZED) == 0  # an earlier class of equal p_y wins
    return t, lo, hi, py, (hi > py) | ((top != yi) & ties)


@njit(**JIT_OPTIONS)
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


@njit(**JIT_OPTIONS)
def lane_sums(v, start, stop, w, ws, pad):
    """The sum of ``v[start:stop]`` (times ``w * ws`` where ``w`` is given) in the fixed order
    of every block sum: sixteen running sums take the values in turn (value ``start + j`` into
    sum j mod 16), added as a balanced tree ((s0 + s1) + (s2 + s3)) + ... in lane order.

    Sixteen independent additions in flight (a vector of 8 twice) instead of one chain: about
    0.15 ns per value, the call included (blocks of 1,024 values, in cache or not). The last
    values short of a group of 16 go through ``pad`` (16 entries, zeros elsewhere: adding +0
    to a running sum, which starts at +0, changes no bit).
    """
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = 0.0
    j = start
    full = start + ((stop - start) // SIXTEEN) * SIXTEEN
    while j < full:
        if w is None:
            s0 += v[j]
            s1 += v[j + ONE]
            s2 += v[j + TWO]
            s3 += v[j + THREE]
            s4 += v[j + FOUR]
            s5 += v[j + FIVE]
            s6 += v[j + SIX]
            s7 += v[j + SEVEN]
            s8 += v[j + EIGHT]
            s9 += v[j + NINE]
            s10 += v[j + TEN]
            s11 += v[j + ELEVEN]
            s12 += v[j + TWELVE]
            s13 += v[j + THIRTEEN]
            s14 += v[j + FOURTEEN]
            s15 += v[j + FIFTEEN]
        else:
            s0 += (w[j] * ws) * v[j]
            s1 += (w[j + ONE] * ws) * v[j + ONE]
            s2 += (w[j + TWO] * ws) * v[j + TWO]
            s3 += (w[j + THREE] * ws) * v[j + THREE]
            s4 += (w[j + FOUR] * ws) * v[j + FOUR]
            s5 += (w[j + FIVE] * ws) * v[j + FIVE]
            s6 += (w[j + SIX] * ws) * v[j + SIX]
            s7 += (w[j + SEVEN] * ws) * v[j + SEVEN]
            s8 += (w[j + EIGHT] * ws) * v[j + EIGHT]
            s9 += (w[j + NINE] * ws) * v[j + NINE]
            s10 += (w[j + TEN] * ws) * v[j + TEN]
            s11 += (w[j + ELEVEN] * ws) * v[j + ELEVEN]
            s12 += (w[j + TWELVE] * ws) * v[j + TWELVE]
            s13 += (w[j + THIRTEEN] * ws) * v[j + THIRTEEN]
            s14 += (w[j + FOURTEEN] * ws) * v[j + FOURTEEN]
            s15 += (w[j + FIFTEEN] * ws) * v[j + FIFTEEN]
        j += SIXTEEN
    if full < stop:
        for q in range(SIXTEEN):
            pad[q] = 0.0
        for q in range(ZERO, stop - full):
            pad[q] = v[full + q] if w is None else (w[full + q] * ws) * v[full + q]
        s0 += pad[0]
        s1 += pad[1]
        s2 += pad[2]
        s3 += pad[3]
        s4 += pad[4]
        s5 += pad[5]
        s6 += pad[6]
        s7 += pad[7]
        s8 += pad[8]
        s9 += pad[9]
        s10 += pad[10]
        s11 += pad[11]
        s12 += pad[12]
        s13 += pad[13]
        s14 += pad[14]
        s15 += pad[15]
    low = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    high = ((s8 + s9) + (s10 + s11)) + ((s12 + s13) + (s14 + s15))
    return low + high


@njit(inline="always", **JIT_OPTIONS)
def n_outside(f, start, stop):
    """The entries of ``f[start:stop]`` outside [0, 1] (NaN included): one pass on vector
    instructions, which checks the range of every entry of a block before its rows are
    scored."""
    n = 0
    for j in range(start, stop):
        v = f[j]
        n += np.int64(not ((v >= 0.0) & (v <= 1.0)))
    return n


@njit(inline="always", **JIT_OPTIONS)
def score_block(f, y, w, ws, row, param, tol, out, rows, pen, start, stop, K, sc, wsc, ranged):
    """Validate and score rows ``start`` to ``stop`` (unsigned) of the flat matrix ``f`` with
    ``K`` classes; the loop of :func:`drive_rows`.

    Branch-free: every row is scored, and selects drop what an invalid row (or one of weight
    0) would add. Writes ``sc[j]`` (row ``start + j``'s weighted score; for PLL its penalty
    indicator, or when reducing its weight where penalized; 0 for an invalid row), weighted,
    ``wsc[j]`` (its weight, 0 for an invalid row), and ``out`` as :func:`drive_rows` says.
    Returns the number of invalid rows. Where ``K`` is a constant (:data:`UNROLLED_K`), the
    class loops unroll and the rows run side by side on vector instructions. ``ranged``
    (a constant of each call): one pass after the rows checks the range of the block's
    entries (:func:`n_outside`, its count added to the result), so the rows' minimum and
    maximum are not tested, and the row function's passes for them are compiled away where
    nothing else reads them.
    """
    ki = np.int64(K)
    bad = 0
    for i in range(start, stop):
        j = i - start
        yi = y[i]
        ok = (yi >= 0) & (yi < ki)
        yc = np.uint64(yi) if ok else ZERO
        s, rowsum, lo, hi, wrong = row(f, i, yc, K, param)
        ok &= abs(rowsum - 1.0) <= tol  # NaN fails the sum
        ok &= ranged | ((lo >= 0.0) & (hi <= 1.0))
        wi = 1.0
        counted = True
        if w is not None:
            wi = w[i] * ws
            ok &= (wi >= 0.0) & (wi < np.inf)
            counted = wi > 0.0
            wsc[j] = wi if ok else 0.0
        bad += np.int64(not ok)
        if out is not None:
            # a log rule's p_y, 1 for a row of weight 0 when reducing: it adds -ln 1 = 0
            out[i] = s if (rows | counted) else 1.0
            if pen is not None:  # PLL: 1 where the decision is wrong, or its weight when reducing
                sc[j] = (1.0 if rows else (wi if ok else 0.0)) if wrong else 0.0
        else:  # a reduction (score_rows gives ``out`` for per-sample output)
            sc[j] = (wi * s if counted else 0.0) if ok else 0.0
    if ranged:
        bad += n_outside(f, start * K, stop * K)
    return bad


@njit(**JIT_OPTIONS)
def finish_block(sc, wsc, w, out, rows, pen, ln_k, start, stop, bad, parts, b, pad):
    """Write block ``b``'s slot of ``parts`` (rows ``start`` to ``stop``, scored by
    :func:`score_block` into ``sc`` and ``wsc``) and, for PLL's per-sample output, its
    penalties; the part of :func:`drive_rows` that does not depend on the rule (a called
    kernel, compiled once for all rules, not inlined into each)."""
    n = stop - start
    block = 0.0
    wsum = np.float64(n)
    if (out is None or pen is not None) and not rows:
        block = lane_sums(sc, ZERO, n, None, 1.0, pad)
    if w is not None:
        wsum = lane_sums(wsc, ZERO, n, None, 1.0, pad)
    if pen is not None:
        if rows:
            for j in range(ZERO, n):
                pen[start + j] = ln_k * sc[j]
        else:
            block *= ln_k  # the log rule's sum -ln p_y is added by block_sums
    parts[b, 0] = block
    parts[b, 1] = wsum
    parts[b, 2] = bad


@njit(inline="always", **JIT_OPTIONS)
def drive_rows(P, y, w, ws, row, param, tol, out, rows, pen, parts, ranged):
    """Validate and score every row in one pass with the row function ``row``.

    Inlined into each rule's kernel (``row`` is then a constant of that kernel). ``w``,
    ``out`` and ``pen`` may be None: numba then compiles a version without those branches
    (about 20% faster than testing them at run time). The blocks run in order; a call on a
    chunk of rows fills the slots of its blocks (:func:`score_rows`). For the class counts of
    :data:`UNROLLED_K` the block loop (:func:`score_block`) is compiled once more with ``K`` a
    constant: its class loops unroll and the rows of a block run side by side on vector
    instructions (2-2.5x faster at K = 5); the values are the same bits either way.

    Parameters
    ----------
    P : (N, K) float64 or float32, C-contiguous
    y : (N,) int64 class indices
    w : (N,) float64 weights, or None for unit weights
    ws : float, a power of two multiplying every weight (exact: the weights are scaled in
        the loop instead of in a copy, see :func:`ordmetrics._core.numerics.weight_scale`)
    row : the rule's row function ``row(f, i, y_i, K, param) -> (s, sum, min, max, wrong)``
        on row ``i`` of the flat matrix ``f`` (entries ``f[i * K + k]``; ``i``, ``y_i``
        and ``K`` unsigned); ``wrong`` (the arg-max decision is wrong) is read only when
        ``pen`` is given
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
        given), weight sum and number of invalid rows; the sums in the order of
        :func:`lane_sums`
    ranged : bool, a constant of the rule's kernel: in the loop for any K, check that the
        entries lie in [0, 1] by one vectorised pass over each block (:func:`n_outside`)
        instead of through each row's minimum and maximum (about 10% faster at K = 20 for
        rules that need neither; the rules whose decision reads the row maximum pass False).
        The unrolled loops always test the minimum and maximum (a second pass costs more there)

    Returns
    -------
    total : float, sum of w_i * s_i over rows with w_i > 0 (0 for ``rows`` and the log rules)
    weight : float, sum of w_i (the number of rows for unit weights)
    n_bad : int, 0 when every row is valid (probabilities, class index, weight), else
        positive: the invalid rows, plus, with ``ranged``, the entries outside [0, 1]
    """
    N, K = P.shape
    f = P.reshape(-1)
    ln_k = np.log(K)
    sc = np.empty(BLOCK, dtype=np.float64)
    pad = np.empty(16, dtype=np.float64)
    wsc = np.empty(BLOCK if w is not None else 0, dtype=np.float64)
    UK = np.uint64(K)
    for b in range(parts.shape[0]):
        start = np.uint64(b) * UBLOCK
        stop = min(np.uint64(N), start + UBLOCK)
        if UNROLL:  # a constant: numba drops the branch not taken before compiling it
            if K == 5:
                bad = score_block(
                    f, y, w, ws, row, param, tol, out, rows, pen, start, stop, FIVE, sc, wsc, False
                )
            elif K == 4:
                bad = score_block(
                    f, y, w, ws, row, param, tol, out, rows, pen, start, stop, FOUR, sc, wsc, False
                )
            elif K == 3:
                bad = score_block(
                    f, y, w, ws, row, param, tol, out, rows, pen, start, stop, THREE, sc, wsc, False
                )
            elif K == 6:
                bad = score_block(
                    f, y, w, ws, row, param, tol, out, rows, pen, start, stop, SIX, sc, wsc, False
                )
            else:
                bad = score_block(
                    f, y, w, ws, row, param, tol, out, rows, pen, start, stop, UK, sc, wsc, ranged
                )
        else:
            bad = score_block(
                f, y, w, ws, row, param, tol, out, rows, pen, start, stop, UK, sc, wsc, ranged
            )
        finish_block(sc, wsc, w, out, rows, pen, ln_k, start, stop, bad, parts, b, pad)
    return combine_blocks(parts)


@njit(**JIT_OPTIONS)
def block_sums(values, pen, w, ws, k, parts):
    """The log rules' block slots after the logarithm: add to ``parts[b, 0]`` the sum of
    -``values`` over block b (``values`` holds ln p_y), and, where the weights ``w`` are given
    (the kernel ran without them), validate and add them too; in the order of
    :func:`lane_sums`, the bits of the kernel's weighted loop.

    Arrays of length 0 stand for "none": ``values`` (per-sample output: weights only),
    ``pen`` (PLL's ln(K) m per row, the kernel's per-sample penalties, with ``w``: block b's
    ln(K) times the weight of its penalized rows goes to ``parts[b, 0]`` first), ``w``
    (unit weights: the kernel filled ``parts[b, 1:]``). With ``w``, ``parts[b, 1]`` is the
    sum of the block's weights times ``ws`` and ``parts[b, 2]`` its invalid weights (the
    kernel found no invalid row in these blocks); a row of weight 0 adds +0 (its p_y may be
    0). ``k``: the number of classes (ln K as the kernel computes it). Returns the number of
    invalid weights.
    """
    weighted = w.shape[0] > 0
    has_v = values.shape[0] > 0
    has_p = weighted and pen.shape[0] > 0
    n = np.uint64(w.shape[0] if weighted else values.shape[0])
    ln_k = np.log(k)
    pad = np.empty(16, dtype=np.float64)
    sc = np.empty((3, BLOCK), dtype=np.float64)  # terms -ln p_y, weights, penalized weights
    n_bad = 0
    for b in range(parts.shape[0]):
        start = np.uint64(b) * UBLOCK
        stop = min(n, start + UBLOCK)
        m = stop - start
        if weighted:
            bad = 0
            for j in range(ZERO, m):
                wi = w[start + j] * ws
                ok = (wi >= 0.0) & (wi < np.inf)
                bad += np.int64(not ok)
                sc[1, j] = wi if ok else 0.0
            parts[b, 2] = bad
            n_bad += bad
            if has_p:
                for j in range(ZERO, m):
                    sc[2, j] = sc[1, j] if pen[start + j] != 0.0 else 0.0
            if has_v:
                for j in range(ZERO, m):
                    wi = sc[1, j]
                    sc[0, j] = wi * (0.0 - values[start + j]) if wi > 0.0 else 0.0
        elif has_v:
            for j in range(ZERO, m):
                sc[0, j] = 0.0 - values[start + j]
        if has_p:  # penalties first: the order of the kernel's weighted loop
            parts[b, 0] = lane_sums(sc[2], ZERO, m, None, 1.0, pad) * ln_k
        if weighted:
            parts[b, 1] = lane_sums(sc[1], ZERO, m, None, 1.0, pad)
        if has_v:
            parts[b, 0] += lane_sums(sc[0], ZERO, m, None, 1.0, pad)
    return n_bad


def finish_log_rule(
    p_true: np.ndarray, penalty: np.ndarray | None, rows: bool = True
) -> np.ndarray:
    """Turn p_y (and the PLL penalties ln(K) m) into -ln p_y + ln(K) m, in place, vectorised;
    for a reduction (not ``rows``) only into ln p_y (:func:`block_sums` negates as it adds)."""
    with np.errstate(divide="ignore"):  # ln 0 = -inf is the intended result
        np.log(p_true, out=p_true)
    if rows:  # penalty - ln p, or 0 - ln p: one pass, and never -0.0 (unlike -ln 1)
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
    sum of the weights, a count of problems (0 exactly when every row is valid; when not
    0, the other results are meaningless), and the per-sample scores when ``rows`` (else
    ``None``). Chunks of blocks run on several threads when the input is large enough
    (:func:`ordmetrics._core.parallel.parallel_slot`); the result is the same either way.
    """
    rule = check_rule(rule)
    n, k = P.shape
    n_blocks = (n + BLOCK - 1) // BLOCK
    parts = np.empty((n_blocks, 3), dtype=np.float64)
    log_rule = rule.log_form
    # per-sample output; a reduction of a log rule has its p_y per chunk (kept in cache
    # between the kernel, the logarithm and the block sums)
    out = np.empty(n if rows else 0, dtype=np.float64) if (rows or log_rule) else None
    # PLL's penalties: per chunk for per-sample output (a second array of N values, freed
    # with the first, returns its pages to the system and faults them in again on every call:
    # 2x the time of the call), none for a reduction (the kernel adds them by block)
    pen = np.empty(0, dtype=np.float64) if rule.penalty else None
    # the kernel compiled at install where there is one for these arrays, else just in time
    kernel = aot.kernel_for(rule.kernel, P, y, w, out, pen, parts) or rule.kernel
    # a log rule's kernel runs without the weights, which block_sums adds after the
    # logarithm (the same bits): the weighted kernel only where a chunk has invalid rows
    wk = w is not None and log_rule
    unweighted = (
        (aot.kernel_for(rule.kernel, P, y, None, out, pen, parts) or rule.kernel) if wk else kernel
    )
    sums = (aot.block_sums_for(block_sums, w, parts) or block_sums) if log_rule else None
    with parallel_slot(n * k) as parallel:
        if not log_rule and not parallel:
            total, wsum, n_bad = kernel(P, y, w, ws, param, tol, out, rows, pen, parts)
            return total, wsum, n_bad, (out if rows and n_bad == 0 else None)

        def chunk(c: int) -> None:
            b0 = c * CHUNK_BLOCKS
            b1 = min(n_blocks, b0 + CHUNK_BLOCKS)
            r0, r1 = b0 * BLOCK, min(n, b1 * BLOCK)
            o = None if out is None else (out[r0:r1] if rows else np.empty(r1 - r0))
            # PLL with weights: the kernel's penalties per row, for block_sums to weigh
            p = None if pen is None else (np.empty(r1 - r0) if (rows or wk) else pen)
            wc = None if w is None else w[r0:r1]
            slots = parts[b0:b1]
            if not log_rule:
                kernel(P[r0:r1], y[r0:r1], wc, ws, param, tol, o, rows, p, slots)
                return
            assert o is not None and sums is not None  # allocated above for the log rules
            bad = unweighted(P[r0:r1], y[r0:r1], None, ws, param, tol, o, rows or wk, p, slots)[2]
            if not bad:
                finish_log_rule(o, p, rows)
                if wk or not rows:  # the sums of a reduction, the weights of per-sample output
                    v = EMPTY if rows else o
                    q = p if (wk and not rows and p is not None) else EMPTY
                    bad = sums(v, q, EMPTY if wc is None else wc, ws, k, slots)
            if bad and wk:  # invalid rows or weights: the slots of the weighted kernel
                kernel(P[r0:r1], y[r0:r1], wc, ws, param, tol, o, rows, p if rows else pen, slots)

        run_chunks(chunk, (n_blocks + CHUNK_BLOCKS - 1) // CHUNK_BLOCKS, parallel)
    total, wsum, n_bad = (aot.combine_blocks_for(combine_blocks, parts) or combine_blocks)(parts)
    return total, wsum, n_bad, (out if rows and n_bad == 0 else None)
