"""Retention curves with many classes (K up to 100): the random baseline computed in pieces.

The batched evaluator of the agreement metrics evaluates large stacks of confusion counts a
chunk at a time (cache-sized), the random orderings of unit weights stop their shuffle at the
smallest target, and the random baseline is drawn and evaluated a few draws at a time on
several threads. Each of these must give the numbers of the whole-batch computation, bit for
bit, at sizes beyond every chunk (with a short last chunk).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ordmetrics._core.numerics import scale_counts
from ordmetrics.evaluation import retention_baselines as B
from ordmetrics.evaluation import retention_sampler as S
from ordmetrics.evaluation.retention import retention_curve
from ordmetrics.metrics.agreement import formulas as F
from ordmetrics.metrics.agreement.labels import AGREEMENT_METRICS

#: Options of each agreement metric that the retention curve accepts (beyond the defaults).
OPTIONS = {
    "kappa": [{}, {"weights": "linear"}, {"weights": "quadratic"}],
    "expected_cost": [{}, {"costs": "squared", "normalize": True}],
    "within_k_accuracy": [{"k": 2}],
}
CASES = [(name, o) for name in AGREEMENT_METRICS for o in OPTIONS.get(name, [{}])]


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def counts(rng, b, k, kind):
    """A stack of b confusion matrices: integer counts, real weights (sums rounded), sparse,
    or with empty and single-class matrices."""
    m = rng.integers(0, 6, (b, k, k)).astype(float)
    if kind == 1:
        m *= rng.random((b, k, k)) * 1e3
    elif kind == 2:
        m[rng.random((b, k, k)) < 0.8] = 0.0
    m[0] = 0.0  # undefined for most metrics
    m[1 % b] = 0.0
    m[1 % b, 0, 0] = 7.0
    return m


def _ldexp_scaled(M):
    """The reference: each matrix times 2^-e by ``ldexp``, e the exponent of its largest
    magnitude (the counts as they are where that is 0, not finite or all zero)."""
    with np.errstate(invalid="ignore"):
        top = np.abs(M).max(axis=(-2, -1))
    top = np.where(np.isfinite(top) & (top > 0), top, 1.0)
    return np.ldexp(M, -np.expand_dims(np.frexp(top)[1], (-2, -1)))


def test_scaled_counts_are_scale_counts_bit_for_bit():
    """scale_counts (two passes for the largest magnitude, a product by 2^-e) gives the bits
    of ldexp by the exponent of the largest magnitude, also for negative, huge, tiny
    (subnormal results), non-finite and all-zero matrices."""
    rng = np.random.default_rng(1)
    stacks = [
        rng.random((6, 4, 4)) * 1e300,
        rng.random((6, 4, 4)) * 1e-300,
        rng.standard_normal((6, 3, 3)),
        np.zeros((2, 3, 3)),
        np.full((1, 2, 2), 5e-324),
        np.array([[[1e300, 1e-300], [5e-324, 3.0]]]),  # results below the normal range
        np.array([[[np.inf, 1.0], [2.0, 3.0]], [[np.nan, 1.0], [2.0, 3.0]]]),
        rng.integers(0, 9, (5, 7, 7)).astype(float),
    ]
    for m in stacks:
        np.testing.assert_array_equal(bits(scale_counts(m)), bits(_ldexp_scaled(m)))


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}{o}" for n, o in CASES])
def test_chunked_evaluation_equals_the_whole_batch(monkeypatch, name, options):
    """Stacks beyond the chunk (several chunks and a short last one, of K = 2..100) give the
    values of one batched call, bit for bit, in any leading shape."""
    rng = np.random.default_rng(abs(hash((name, str(options)))) % 2**32)
    sizes = [2, 3, 4, 5, 6, 7, 9, 13, 20, 31, 50, 64, 99, 100]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in sizes:
            evaluate = F.counts_evaluator(name, k, **options)
            # small chunks (many per stack) and, for large K, the real one
            for chunk in (1 << 10, F.EVAL_CHUNK) if k >= 50 else (1 << 10,):
                step = max(1, chunk // (k * k))
                for extra in sorted({0, 1, 2, 3, step - 1}):
                    b = 3 * step + extra
                    m = counts(rng, b, k, (k + extra) % 3)
                    monkeypatch.setattr(F, "EVAL_CHUNK", 1 << 40)
                    whole = evaluate(m)
                    monkeypatch.setattr(F, "EVAL_CHUNK", chunk)
                    assert m.size > chunk
                    np.testing.assert_array_equal(bits(evaluate(m)), bits(whole))
                    got = evaluate(m.reshape(3, b // 3, k, k) if b % 3 == 0 else m[None])
                    np.testing.assert_array_equal(bits(got).ravel(), bits(whole))
                    # one matrix alone (the public functions): the same value
                    for i in (1, b - 1):
                        assert bits(np.asarray(evaluate(m[i]))) == bits(whole[i])


@pytest.mark.parametrize("kk", [1, 4, 25, 10_000])
def test_unit_orderings_are_the_general_pass_with_unit_weights(kk):
    """Without weights the shuffle stops at the smallest target and the counts are the total
    less the removed rows: the counts of the full pass with weights 1, bit for bit, for any
    targets (unsorted, repeated, equal to N, 1, or below the smallest row) and chunks."""
    rng = np.random.default_rng(kk)
    for trial in range(40):
        n = int(rng.integers(1, 700))
        cells = np.sort(rng.integers(0, kk, n))
        m = int(rng.integers(1, 23))
        targets = np.maximum(1.0, np.floor(rng.random(m) * n + 0.5))
        if trial % 4 == 0:
            targets[0] = n
        if trial % 7 == 0:
            targets[:] = n
        if trial % 5 == 0:
            targets[-1] = 1.0
        seed = int(rng.integers(0, 2**63))
        first = int(rng.integers(0, 99))
        if kk > 100 and trial > 4:
            break
        units = S.row_ordering_counts(cells, None, targets, 0.0, kk, first, 9, seed)
        general = S.row_ordering_counts(cells, np.ones(n), targets, 0.0, kk, first, 9, seed)
        np.testing.assert_array_equal(bits(units), bits(general))
        parts = [
            S.row_ordering_counts(cells, None, targets, 0.0, kk, first + lo, 3, seed)
            for lo in (0, 3, 6)
        ]
        np.testing.assert_array_equal(bits(np.concatenate(parts)), bits(units))


def _curve(y, p, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return retention_curve(y, p, by="rps", **kwargs)


def data(seed, n, k):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    y = np.minimum((np.cumsum(p, axis=1) < rng.random((n, 1))).sum(axis=1), k - 1)
    return y, p


@pytest.mark.parametrize(
    ("k", "weights"), [(100, None), (100, "real"), (20, None), (20, "integer"), (5, "real")]
)
def test_random_baseline_does_not_depend_on_pieces_or_threads(monkeypatch, k, weights):
    """The random baseline drawn and evaluated in pieces of one draw, of many, of every draw,
    on one thread or several, and with the evaluator's chunks: the same bits."""
    n = 3000 if k == 100 else 1500
    y, p = data(k, n, k)
    rng = np.random.default_rng(k)
    w = {None: None, "real": rng.random(n) + 0.2, "integer": rng.integers(1, 4, n)}[weights]
    metrics = [("qwk", {}), ("amae", {}), ("expected_cost", {"normalize": True})]
    for metric, options in metrics:
        kwargs = {"metric": metric, "metric_kwargs": options, "sample_weight": w}
        kwargs |= {"n_random": 23, "random_state": 4}
        ref = _curve(y, p, **kwargs)
        assert ref.random is not None
        for piece, threads in ((1, 1), (1, 2), (1 << 30, 1), (3 * 21 * k * k, 2)):
            with monkeypatch.context() as mp:
                mp.setattr(B, "_PIECE_ELEMENTS", piece)
                mp.setattr(B, "run_chunks", _with_threads(threads))
                got = _curve(y, p, **kwargs)
            np.testing.assert_array_equal(bits(got.random), bits(ref.random))
            np.testing.assert_array_equal(bits(got.values), bits(ref.values))


def _with_threads(threads):
    from ordmetrics._core import parallel

    def run(work, n_chunks, parallel_ok):
        if threads == 1:
            for c in range(n_chunks):
                work(c)
            return
        # the chunks in reverse order on two threads: another schedule, the same values
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, reversed(range(n_chunks))))
        assert parallel.run_chunks  # the real runner exists

    return run


def test_k100_curve_with_baselines_matches_the_unchunked_evaluation(monkeypatch):
    """At K = 100 (the matrices of a draw span several chunks of the evaluator), the curve,
    its random baseline and area equal those of a whole-batch evaluation."""
    y, p = data(7, 4000, 100)
    ref = _curve(y, p, metric="qwk", n_random=12, random_state=1)
    monkeypatch.setattr(F, "EVAL_CHUNK", 1 << 40)
    monkeypatch.setattr(B, "_PIECE_ELEMENTS", 1 << 40)
    whole = _curve(y, p, metric="qwk", n_random=12, random_state=1)
    np.testing.assert_array_equal(bits(ref.random), bits(whole.random))
    np.testing.assert_array_equal(bits(ref.values), bits(whole.values))
    assert bits(np.float64(ref.area)) == bits(np.float64(whole.area))
