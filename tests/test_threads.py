"""Results do not depend on the number of BLAS threads.

A BLAS dot product splits a long vector between threads and adds the parts in an order that
depends on their number; ordmetrics' reductions use fixed-order sums instead. Each metric is
computed with one BLAS thread and with as many as the machine offers, and the two results
must be bitwise equal.
"""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om

threadpoolctl = pytest.importorskip("threadpoolctl")

N = 300_000  # long enough for a threaded BLAS to split the work
K = 5


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261123)
    P = rng.dirichlet(np.ones(K), N)
    y = rng.integers(0, K, N)
    w = rng.uniform(0.1, 3.0, N)
    return y, P, w


def _with_threads(n: int | None, f, *args, **kwargs):
    with threadpoolctl.threadpool_limits(limits=n):
        return f(*args, **kwargs)


@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
@pytest.mark.parametrize("weighted", [False, True])
def test_scoring_rules_do_not_depend_on_the_thread_count(data, name: str, weighted: bool) -> None:
    y, P, w = data
    f = om.get_metric(name).func
    kw = {"sample_weight": w} if weighted else {}
    one = _with_threads(1, f, y, P, **kw)
    many = _with_threads(None, f, y, P, **kw)
    assert one == many


@pytest.mark.parametrize("score", ["brier", "rps"])
def test_corp_decomposition_does_not_depend_on_the_thread_count(data, score: str) -> None:
    y, P, w = data
    one = _with_threads(1, om.corp_decomposition, y, P, score=score, sample_weight=w)
    many = _with_threads(None, om.corp_decomposition, y, P, score=score, sample_weight=w)
    assert (one.score, one.mcb, one.dsc, one.unc) == (many.score, many.mcb, many.dsc, many.unc)
