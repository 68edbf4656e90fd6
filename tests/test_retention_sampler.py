"""The compiled sampler of the random-removal baseline: draws computed in groups
(``LANES`` at a time) and beyond the table of log-factorials (Stirling's series).

The groups must give the counts of the draws computed one by one (each draw reads only its
own stream), and the draws beyond the table must follow the hypergeometric distribution.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ordmetrics.evaluation import retention_kappa as RK
from ordmetrics.evaluation import retention_sampler as S
from ordmetrics.evaluation.retention_sampler import LANES, TABLE_LIMIT, hypergeometric_counts
from ordmetrics.metrics.agreement import counts_evaluator

#: A population beyond the table of log-factorials (its total is at least TABLE_LIMIT).
BIG = np.array([900_000, 0, 350_000, 1_200_000, 7, 640_000, 2, 0, 310_000])
SMALL = np.array([500, 20, 3, 400, 77, 0, 1000, 9, 1])


@pytest.mark.parametrize("colors", [SMALL, BIG], ids=["table", "beyond-table"])
def test_draws_in_groups_are_the_draws_one_by_one(colors):
    """Groups of LANES draws (and a short last group) give the counts of each draw alone."""
    total = int(colors.sum())
    assert (total >= TABLE_LIMIT) == (colors is BIG)
    targets = np.array([total + 1, total - 1, total // 2, total // 3, 40, 9, 1])
    n = 3 * LANES + 1
    whole = hypergeometric_counts(colors, targets, 5, n, 2**61 + 3)
    alone = [hypergeometric_counts(colors, targets, 5 + d, 1, 2**61 + 3) for d in range(n)]
    np.testing.assert_array_equal(np.concatenate(alone), whole)
    assert (whole.sum(axis=2) == np.minimum(targets, total)).all()
    assert (whole <= colors).all() and (whole[:, :, colors == 0] == 0).all()


def _pmf_window(good, bad, sample, lo, hi):
    """The hypergeometric pmf at lo..hi, by log-gamma (the totals are too large for exact
    binomial coefficients; the window holds all but a negligible tail)."""

    def log_comb(a, b):
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    ks = np.arange(lo, hi + 1)
    log_total = log_comb(good + bad, sample)
    logs = [log_comb(good, k) + log_comb(bad, sample - k) - log_total for k in ks.tolist()]
    return ks, np.exp(logs)


@pytest.mark.parametrize(
    ("good", "bad", "sample"),
    [(700_000, 1_300_000, 900_000), (1_500_000, 40_000, 1_100_000), (3_000, 2_000_000, 600_000)],
)
def test_draws_beyond_the_table_follow_the_hypergeometric_distribution(good, bad, sample):
    """Totals beyond the table (log-factorials by Stirling's series): a chi-square test of
    the frequencies against the pmf, the tails pooled, with a fixed seed."""
    assert good + bad >= TABLE_LIMIT
    n = 40_000
    out = hypergeometric_counts(np.array([good, bad]), np.array([sample]), 0, n, 17)
    x = out[:, 0, 0].astype(np.int64)
    assert (out[:, 0].sum(axis=1) == sample).all()
    total = good + bad
    mean = sample * good / total
    sd = math.sqrt(mean * (bad / total) * (total - sample) / (total - 1))
    lo, hi = int(mean - 8 * sd), int(mean + 8 * sd) + 1
    assert x.min() >= lo and x.max() <= hi
    ks, pmf = _pmf_window(good, bad, sample, lo, hi)
    # log-gamma near 10^6 is about 10^7, known to about 10^-16 of that: the pmf to ~1e-8
    assert abs(pmf.sum() - 1) < 1e-7
    expected = n * pmf
    observed = np.bincount(x - lo, minlength=ks.size)
    big = expected >= 5
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    chi2 = float(((obs - exp) ** 2 / exp).sum())
    dof = exp.size - 1
    assert chi2 <= dof + 5 * math.sqrt(2 * dof), (chi2, dof)


def test_kappa_draws_beyond_the_table_equal_the_batched_evaluator_bit_for_bit():
    """QWK evaluated as drawn, beyond the table: the values of counts_evaluator on the counts
    of hypergeometric_counts with the same seed, bit for bit."""
    total = int(BIG.sum())
    v = RK.integer_kappa_weights("qwk", {}, 3, total)
    assert v is not None
    targets = np.array([total, total - 3, total // 2, 1000, 2])
    values = RK.kappa_draws(BIG, targets, v, 2 * LANES + 3, 99, first=4)
    counts = hypergeometric_counts(BIG, targets, 4, 2 * LANES + 3, 99)
    ref = counts_evaluator("qwk", 3)(counts.reshape(-1, 3, 3)).reshape(values.shape)
    np.testing.assert_array_equal(values.view(np.uint64), ref.view(np.uint64))


@pytest.mark.parametrize("marked", [0, 1, LANES - 1, LANES, LANES + 2])
def test_kappa_draws_stop_at_a_draw_already_claimed(marked):
    """A thread claims the draws of its list in order, a group at a time, and stops at the
    first draw another thread claimed: it draws exactly the draws before it."""
    colors = SMALL.astype(np.int64)
    targets = np.array([2000, 700, 37], dtype=np.int64)
    v = np.ascontiguousarray(RK.integer_kappa_weights("qwk", {}, 3, 2000), dtype=np.int64)
    n = 3 * LANES
    whole = RK.kappa_draws(colors, targets, v, n, 5)
    table = S.log_factorials(int(colors.sum()))
    out = np.full((n, targets.size), RK._PENDING)
    claimed = np.zeros(n, dtype=np.int8)
    order = np.arange(n - 1, -1, -1, dtype=np.int64)  # from the last draw down
    stop_at = n - 1 - marked
    claimed[stop_at] = 1
    RK._kappa_draws(colors, targets, v, np.uint64(5), table, out, claimed, order, 0, 2, True)
    done = order[:marked]
    np.testing.assert_array_equal(out[done].view(np.uint64), whole[done].view(np.uint64))
    assert (claimed[done] == 2).all() and claimed[stop_at] == 1
    rest = np.setdiff1d(np.arange(n), done)
    assert (out[rest].view(np.uint64) == RK._PENDING_BITS).all()
    assert (claimed[rest[rest != stop_at]] == 0).all()
