"""Retention curves at their edges: a random baseline whose bits do not depend on how its
draws are batched, infinite per-sample scores, rows of weight 0 among near-tied scores, and
the oracle of a wide label set (K up to 1,000).

Everything is checked through the public functions (retention_curve, worst_predictions,
counts_evaluator), so the checks hold whatever the shared tie rule's details for finite values
(the cases here are tied or apart under any rule within 1e-12 of the larger value).
"""

from __future__ import annotations

import math
import tracemalloc
import warnings

import numpy as np
import pytest

from ordmetrics.evaluation import retention_baselines as B
from ordmetrics.evaluation.retention import DECOMPOSABLE, retention_curve
from ordmetrics.evaluation.retention_baselines import _cell_losses
from ordmetrics.evaluation.worst import worst_predictions
from ordmetrics.metrics.agreement import AGREEMENT_METRICS, counts_evaluator

#: Options of the agreement metrics exercised beyond their defaults.
OPTIONS = {
    "kappa": [{}, {"weights": "linear"}, {"weights": "quadratic"}],
    "expected_cost": [{}, {"costs": "squared"}, {"costs": "squared", "normalize": True}],
    "within_k_accuracy": [{}, {"k": 0}, {"k": 2}],
}
CASES = [(name, o) for name in AGREEMENT_METRICS for o in OPTIONS.get(name, [{}])]
IDS = [f"{n}{o}" for n, o in CASES]


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def quiet(y, p, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return retention_curve(y, p, **kwargs)


# --------------------------------------------------------------------------------------------
# A random baseline deterministic by construction
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_a_matrix_gives_the_same_bits_alone_and_in_any_batch(name, options):
    """The value of a confusion matrix depends on its own counts only: evaluated alone (2-D),
    in batches of 1 to 65 matrices and at any offset in them, the same bits. Real-valued
    counts make every change in the order of a sum visible (a matrix product or einsum sums
    in an order chosen by the batch's shape and the processor's kernels)."""
    rng = np.random.default_rng(len(name) + len(options))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in (2, 3, 5, 20, 100):
            evaluate = counts_evaluator(name, k, **options)
            m = rng.integers(0, 6, (70, k, k)) * rng.random((70, k, k)) * 1e3
            m[3] = 0.0  # undefined for most metrics
            whole = evaluate(m)
            for size in (1, 2, 3, 4, 7, 64, 65):
                for offset in (0, 1, 5):
                    got = evaluate(m[offset : offset + size])
                    want = whole[offset : offset + size]
                    np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"{k} {size}")
            for i in (0, 3, 69):
                assert bits(np.asarray(evaluate(m[i]))) == bits(whole[i])


def _data(seed, n, k):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    y = np.minimum((np.cumsum(p, axis=1) < rng.random((n, 1))).sum(axis=1), k - 1)
    return y, p, rng.random(n) + 0.2


@pytest.mark.parametrize(
    ("metric", "options"),
    [("expected_cost", {"costs": "squared", "normalize": True}), ("qwk", {}), ("amae", {})],
)
@pytest.mark.parametrize(("k", "fractions"), [(5, [0.6]), (20, [0.9, 0.7, 0.5])])
def test_random_baseline_bits_do_not_depend_on_its_pieces(
    monkeypatch, metric, options, k, fractions
):
    """Real weights (Monte Carlo orderings): drawn and evaluated one draw at a time (a batch
    of one or three matrices), three draws at a time or all at once, the same bits (a matrix
    product gave the last rows of a batch another order of summation: 1 ULP off here, where
    the whole batch and the pieces end differently)."""
    y, p, w = _data(5, 400, k)
    kwargs = {"metric": metric, "metric_kwargs": options, "fractions": fractions}
    kwargs |= {"sample_weight": w, "n_random": 30, "random_state": 3}
    monkeypatch.setattr(B, "_PIECE_ELEMENTS", 1 << 40)
    whole = quiet(y, p, **kwargs)
    for piece in (1, 3 * len(fractions) * k * k):
        monkeypatch.setattr(B, "_PIECE_ELEMENTS", piece)
        got = quiet(y, p, **kwargs)
        np.testing.assert_array_equal(bits(got.random), bits(whole.random))


# --------------------------------------------------------------------------------------------
# Infinite scores
# --------------------------------------------------------------------------------------------


def test_an_infinite_score_ranks_after_every_finite_one():
    """log_loss is +inf where the true class has probability 0: those rows go first, the row
    of loss 0 stays to the end (it used to be tied with +inf and kept in position order)."""
    y, p = [0, 1, 0], [[0, 1], [1, 0], [1, 0]]
    curve = quiet(y, p, by="log_loss", metric="accuracy", fractions=[1, 2 / 3, 1 / 3], n_random=0)
    np.testing.assert_allclose(curve.values, [1 / 3, 0.5, 1.0], rtol=1e-15)
    assert curve.area == pytest.approx(7 / 12, rel=1e-15)
    worst = worst_predictions(y, p, by="log_loss", k=3)
    assert worst.index.tolist() == [1, 0, 2]  # the two infinities, the later row first
    assert worst_predictions(y, p, by="log_loss", k=1).index.tolist() == [1]


def _one_hot_forecasts(n=200, k=3, right=0.7, seed=0):
    """One-hot forecasts, a share ``right`` of them on the true class (log loss 0), the
    others on another class (log loss +inf), in a random order."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    ok = rng.permutation(n) < round(right * n)
    pred = np.where(ok, y, (y + 1) % k)
    return y, np.eye(k)[pred], ok


@pytest.mark.parametrize("weights", [None, "integer", "real"])
def test_one_hot_forecasts_ranked_by_log_loss(weights):
    """200 one-hot forecasts, 70% right: keeping the best half keeps only right ones, on every
    path (cuts between segments without weights, units, real weights)."""
    y, p, ok = _one_hot_forecasts()
    w = {None: None, "integer": np.full(y.size, 3), "real": np.full(y.size, 0.3)}[weights]
    fractions = [1.0, 0.7, 0.5, 0.2]
    curve = quiet(y, p, by="log_loss", metric="accuracy", fractions=fractions, sample_weight=w)
    np.testing.assert_allclose(curve.values, [0.7, 1.0, 1.0, 1.0], rtol=1e-15)
    np.testing.assert_allclose(curve.oracle, curve.values, rtol=1e-15)
    worst = worst_predictions(y, p, by="log_loss", k=61)
    assert not ok[worst.index[:60]].any() and ok[worst.index[60]]
    assert np.isinf(worst.score[:60]).all() and worst.score[60] == 0.0
    # the wrong rows worst first, the later row first among them
    assert worst.index[:60].tolist() == np.flatnonzero(~ok)[::-1].tolist()


def test_the_largest_finite_score_is_not_tied_with_infinity():
    """A finite score just below others and +inf: each infinity is a group of its own, the
    finite near-ties are grouped among themselves, ranked by position within the group."""
    # log losses 3, 3 + 1e-13 (tied with 3), 7 and +inf, +inf
    q = np.exp(-np.array([np.inf, 3.0 + 1e-13, np.inf, 7.0, 3.0]))
    y = np.zeros(5, dtype=np.int64)
    p = np.stack([q, 1.0 - q], axis=1)
    worst = worst_predictions(y, p, by="log_loss", k=5)
    assert worst.index.tolist() == [2, 0, 3, 4, 1]
    decision = np.array([1, 0, 1, 0, 0])  # rows 1, 3 and 4 right
    curve = quiet(
        y,
        p,
        by="log_loss",
        metric="accuracy",
        decision=decision,
        fractions=[1.0, 0.6, 0.4],
        n_random=0,
    )
    np.testing.assert_allclose(curve.values, [0.6, 1.0, 1.0], rtol=1e-15)


# --------------------------------------------------------------------------------------------
# Rows of weight 0
# --------------------------------------------------------------------------------------------


def _chain():
    """Three rows of log loss b = 2 + 3e-12, a = 2 and z = 2 + 1.5e-12: a and b are apart
    (3e-12 > 1e-12 * 2), z is within the tolerance of both. b comes first and is wrong, a is
    right; z has weight 0."""
    loss = np.array([2.0 + 3e-12, 2.0, 2.0 + 1.5e-12])
    q = np.exp(-loss)
    p = np.stack([q, 1.0 - q], axis=1)
    return np.zeros(3, dtype=np.int64), p, np.array([1, 0, 0])


@pytest.mark.parametrize("scale", [1, 0.25])  # units, real weights
def test_a_row_of_weight_0_does_not_join_two_scores_into_a_tie(scale):
    """Without the row of weight 0, a ranks before b; with it, the curve is the same (the
    row links no two near-tied scores)."""
    y, p, decision = _chain()
    w = np.array([1.0, 1.0, 0.0]) * scale
    kwargs = {"by": "log_loss", "metric": "accuracy", "fractions": [1.0, 0.5]}
    without = quiet(y[:2], p[:2], decision=decision[:2], sample_weight=w[:2], **kwargs)
    np.testing.assert_allclose(without.values, [0.5, 1.0], rtol=1e-15)
    curve = quiet(y, p, decision=decision, sample_weight=w, **kwargs)
    np.testing.assert_array_equal(bits(curve.values), bits(without.values))


def test_rows_of_weight_0_change_nothing_with_real_weights():
    """Rows of weight 0 inserted anywhere: the curve, its oracle, its Monte Carlo random
    baseline (the same draws) and the retained weights, the same bits."""
    y, p, w = _data(9, 300, 5)
    rng = np.random.default_rng(2)
    at = np.sort(rng.choice(300, 40, replace=False))
    y2, p2, w2 = np.insert(y, at, y[at]), np.insert(p, at, p[at[::-1]], axis=0), np.insert(w, at, 0)
    for metric in ("mae", "qwk"):
        kwargs = {"metric": metric, "n_random": 7, "random_state": 1}
        ref = quiet(y, p, sample_weight=w, **kwargs)
        got = quiet(y2, p2, sample_weight=w2, **kwargs)
        for field in ("values", "n_retained", "oracle", "random"):
            if getattr(ref, field) is not None:
                np.testing.assert_array_equal(bits(getattr(got, field)), bits(getattr(ref, field)))


# --------------------------------------------------------------------------------------------
# The oracle of many classes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        (name, o)
        for name, o in CASES
        if name in DECOMPOSABLE
        and not o.get("normalize")
        and not (name == "within_k_accuracy" and o == {})
    ]
    + [("expected_cost", {"costs": [[0, 2, 7], [1, 0, 3.5], [4, 0.5, 0]]})],
)
def test_cell_losses_are_the_metric_of_one_row(metric, options):
    """The per-cell loss the oracle ranks by is the metric evaluated on one row in that cell,
    for every cell (K^2 one-row matrices, affordable for small K)."""
    for k in (2, 3, 7) if "costs" not in options or isinstance(options["costs"], str) else (3,):
        evaluate = counts_evaluator(metric, k, **options)
        one_row = evaluate(np.eye(k * k).reshape(k * k, k, k)).reshape(k, k)
        np.testing.assert_array_equal(_cell_losses(metric, options, k), one_row)


def _brute_oracle(y, yhat, loss, fractions):
    """The oracle from scratch: rows by loss ascending (position breaks ties), the mean loss
    of the first n(f) = max(1, floor(f N + 1/2))."""
    per_row = loss[y, yhat]
    ranked = per_row[np.argsort(per_row, kind="stable")]
    keep = [max(1, math.floor(f * y.size + 0.5)) for f in fractions]
    return np.array([ranked[:t].mean() for t in keep])


def test_oracle_memory_at_k150_is_quadratic_not_quartic():
    """K = 150: the oracle of the expected cost used to evaluate the K^2 one-row matrices
    (np.eye(K^2): 3.9 GB); now the whole curve with its oracle stays within 60 MB."""
    k, n = 150, 300
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, k, n), rng.dirichlet(np.ones(k), n)
    quiet(y[:20], p[:20], metric="expected_cost", n_random=0)  # imports and compilations
    tracemalloc.start()
    try:
        curve = quiet(y, p, metric="expected_cost", n_random=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 60 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    want = _brute_oracle(
        y, p.argmax(axis=1), np.abs(np.subtract.outer(range(k), range(k))), curve.fractions
    )
    np.testing.assert_allclose(curve.oracle, want, rtol=1e-12)


@pytest.mark.parametrize("metric", ["mae", "accuracy", "within_k_accuracy", "qwk"])
def test_a_thousand_classes_with_few_rows(metric):
    """K = 1,000 and 40 rows (a report of a wide label set): the curve and its baselines are
    computed, the oracle equals the one from scratch."""
    k, n = 1000, 40
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, k, n), rng.dirichlet(np.full(k, 0.05), n)
    curve = quiet(y, p, metric=metric, fractions=[1.0, 0.75, 0.5], n_random=3)
    assert curve.random is not None and curve.random.shape == (3,)
    if metric == "qwk":
        assert curve.oracle is None
        return
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(np.float64)
    if metric == "mae":
        want = _brute_oracle(y, p.argmax(axis=1), distance, curve.fractions)
    else:  # a credit: the oracle removes the rows without it first
        credit = distance <= (0 if metric == "accuracy" else 1)
        want = 1.0 - _brute_oracle(y, p.argmax(axis=1), 1.0 - credit, curve.fractions)
    np.testing.assert_allclose(curve.oracle, want, rtol=1e-12)


def test_report_retention_data_of_a_thousand_classes():
    """What the HTML report computes for its expected-cost panel (every scoring rule, the
    default fractions and baselines) on 40 rows of K = 1,000: it used to fail with a
    MemoryError (np.eye(K^2), 7.3 TiB)."""
    from ordmetrics import list_metrics
    from ordmetrics.report.plot_retention import retention_curves_data

    k, n = 1000, 40
    rng = np.random.default_rng(2)
    y, p = rng.integers(0, k, n), rng.dirichlet(np.full(k, 0.05), n)
    rules = list(list_metrics("scoring_rule"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = retention_curves_data(y, p, by=rules, metric="expected_cost")
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(np.float64)
    want = _brute_oracle(y, p.argmax(axis=1), distance, data.curves[0].fractions)
    for curve in data.curves:
        np.testing.assert_allclose(curve.oracle, want, rtol=1e-12)
        np.testing.assert_allclose(curve.values[0], want[0], rtol=1e-12)
