"""The bucketed selection behind the retention curve's cuts, beyond its bucket limits."""

from __future__ import annotations

import numpy as np
import pytest

from ordmetrics.evaluation.retention_inputs import sorted_values_at


@pytest.mark.parametrize(
    "kind", ["uniform", "ties", "skewed", "one_bucket", "clustered", "tiny_range"]
)
def test_selection_equals_a_sort_beyond_the_bucket_limit(kind):
    """More rows than 4 x 2^14 (the bucket count's cap), ranks in many buckets and in the
    same bucket, the first and last rank: the values of np.sort(s) at those ranks."""
    rng = np.random.default_rng(3)
    n = 200_003
    s = {
        "uniform": rng.random(n),
        "ties": rng.integers(0, 50, n).astype(float),
        "skewed": rng.standard_exponential(n) ** 8,  # most values in the first buckets
        "one_bucket": np.concatenate([rng.random(n - 1) * 1e-9, [1e9]]),
        "clustered": np.concatenate([rng.normal(0, 1e-6, n // 2), rng.normal(5, 1e-6, n - n // 2)]),
        "tiny_range": 1.0 + rng.random(n) * 1e-12,
    }[kind]
    ranks = np.unique(np.concatenate([[0, 1, n // 2, n - 2, n - 1], rng.integers(0, n, 500)]))
    np.testing.assert_array_equal(sorted_values_at(s, ranks), np.sort(s)[ranks])


def test_selection_with_every_rank():
    """Every rank requested: the whole sorted array."""
    s = np.random.default_rng(4).random(70_001)
    np.testing.assert_array_equal(sorted_values_at(s, np.arange(s.size)), np.sort(s))
