"""The batched confusion-count form of the agreement metrics equals the public functions."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics
from ordmetrics.metrics.agreement import AGREEMENT_METRICS, counts_evaluator

OPTIONS = {
    "kappa": [{}, {"weights": "linear"}, {"weights": "quadratic"}],
    "expected_cost": [{}, {"costs": "squared", "normalize": True}, {"costs": "zero_one"}],
    "within_k_accuracy": [{"k": 0}, {"k": 2}],
}


def test_every_agreement_metric_is_registered():
    assert list(AGREEMENT_METRICS) == ordmetrics.list_metrics("agreement")


@pytest.mark.parametrize("name", AGREEMENT_METRICS)
def test_stack_of_resamples_matches_one_call_each(name):
    rng = np.random.default_rng(11)
    k, n = 5, 300
    y = rng.integers(0, k, n)
    p = np.clip(y + rng.integers(-1, 2, n), 0, k - 1)
    w = rng.uniform(0, 2, n)
    for opts in OPTIONS.get(name, [{}]):
        f = counts_evaluator(name, k, **opts)
        counts = rng.multinomial(n, np.full(n, 1 / n), size=6).astype(float) * w
        stack = np.stack([np.bincount(y * k + p, weights=c, minlength=k * k) for c in counts])
        batched = f(stack.reshape(6, k, k))
        single = [
            getattr(ordmetrics, name)(y, p, labels=range(k), sample_weight=c, **opts)
            for c in counts
        ]
        np.testing.assert_allclose(batched, single, rtol=1e-12)


def test_undefined_values_are_nan_without_warning():
    M = np.zeros((2, 3, 3))
    M[0, 1, 1] = 4.0  # one class throughout: kappa undefined
    M[1] = np.eye(3)
    with np.errstate(all="raise"):
        values = counts_evaluator("qwk", 3)(M)
    assert np.isnan(values[0]) and values[1] == 1.0


def test_unknown_metric_and_options():
    with pytest.raises(ValueError, match="'rps' is not an agreement metric; choose one of kappa"):
        counts_evaluator("rps", 3)
    with pytest.raises(TypeError, match=r"qwk\(\) got unexpected keyword arguments \['costs'\]"):
        counts_evaluator("qwk", 3, costs="absolute")
