"""Results do not depend on the number of threads, BLAS's or numba's.

A BLAS dot product splits a long vector between threads and adds the parts in an order that
depends on their number; ordmetrics' reductions use fixed-order sums instead. Each metric is
computed with one BLAS thread and with as many as the machine offers, and the two results
must be bitwise equal. The scoring and decision kernels run fixed blocks of rows in parallel
on numba's threads and combine them in block order: every scoring rule (weighted or not, each
reduction) and every decision rule gives the same bits with 1 and 2 numba threads, with the
serial twins of the kernels, and with ``NUMBA_NUM_THREADS=1`` in another process; parallel
calls from 8 Python threads at once, and forked children, work with any threading layer.
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


# --------------------------------------------------------------------------------------------
# numba's threads: blocks of rows in parallel, combined in a fixed order
# --------------------------------------------------------------------------------------------

numba = pytest.importorskip("numba")

REDUCTIONS = ("mean", "sum", "none")
DECISIONS = (
    ("argmax", None),
    ("median", None),
    ("expected", None),
    ("min_cost", "absolute"),
    ("min_cost", "squared"),
    ("min_cost", "zero_one"),
    ("min_cost", "general"),
)


def _same(a, b) -> bool:
    """Bitwise equality of two results (floats or arrays, NaN included)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _costs(name, k: int):
    if name != "general":
        return name
    return np.random.default_rng(7).uniform(0.0, 4.0, size=(k, k))


def _with_numba_threads(n: int, f, *args, **kwargs):
    before = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        return f(*args, **kwargs)
    finally:
        numba.set_num_threads(before)


def _serial(monkeypatch, f, *args, **kwargs):
    """``f`` with every kernel running its serial twin (no input is large enough)."""
    from ordmetrics._core import parallel

    with monkeypatch.context() as m:
        m.setattr(parallel, "PARALLEL_MIN_WORK", 1 << 62)
        return f(*args, **kwargs)


@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_scoring_rules_do_not_depend_on_numba_threads(
    data, monkeypatch, name: str, weighted: bool, reduction: str
) -> None:
    y, P, w = data
    f = om.get_metric(name).func
    kw = {"reduction": reduction, **({"sample_weight": w} if weighted else {})}
    two = _with_numba_threads(2, f, y, P, **kw)
    one = _with_numba_threads(1, f, y, P, **kw)
    serial = _serial(monkeypatch, f, y, P, **kw)
    assert _same(one, two) and _same(serial, two)


@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("rows", [False, True])
def test_chunks_on_threads_and_one_kernel_call_agree(data, monkeypatch, name, weighted, rows):
    """``score_rows`` itself: chunks of blocks on 2 threads, on 1 thread, and one call of the
    kernel over every row (below the parallel threshold): the same bits."""
    from ordmetrics._core import kernels, parallel
    from ordmetrics._core.validation import sum_tolerance
    from ordmetrics.metrics.scoring import get_rule

    y, P, w = data
    assert len(y) * K >= parallel.PARALLEL_MIN_WORK  # the chunks run on threads
    assert len(y) % (kernels.BLOCK * kernels.CHUNK_BLOCKS) != 0  # a short last chunk
    rule = get_rule(name)
    tol = sum_tolerance(P.dtype, K)
    args = (P, y, w if weighted else None, 0.5, rule, rule.pack(), tol, rows)
    ref = _serial(monkeypatch, kernels.score_rows, *args)
    for threads in (1, 2):
        got = _with_numba_threads(threads, kernels.score_rows, *args)
        assert got[:3] == ref[:3]
        assert (got[3] is None and ref[3] is None) or _same(got[3], ref[3])


def test_weighted_mean_is_compensated(data) -> None:
    """The sums of the scores and of the weights are compensated: the weighted mean equals
    the quotient of the two correctly rounded sums to within 2e-15 (uncompensated sums
    of 300,000 weights drift by about 1e-14)."""
    import math

    y, P, w = data
    s = om.brier(y, P, reduction="none")
    want = math.fsum(w * s) / math.fsum(w)  # w * s: exact up to one rounding per row
    assert om.brier(y, P, sample_weight=w) == pytest.approx(want, rel=2e-15)


@pytest.mark.parametrize(("rule", "costs"), DECISIONS)
def test_decisions_do_not_depend_on_numba_threads(data, monkeypatch, rule, costs) -> None:
    _, P, _ = data
    kw = {} if costs is None else {"costs": _costs(costs, K)}
    two = _with_numba_threads(2, om.decide, P, rule, **kw)
    one = _with_numba_threads(1, om.decide, P, rule, **kw)
    serial = _serial(monkeypatch, om.decide, P, rule, **kw)
    assert _same(one, two) and _same(serial, two)


def test_threading_layer_after_a_parallel_call(data) -> None:
    from ordmetrics._core.jit import threading_layer

    y, P, _ = data
    _with_numba_threads(2, om.rps, y, P)
    if numba.config.NUMBA_NUM_THREADS >= 2:
        assert threading_layer() in ("omp", "tbb", "workqueue")


_SCRIPT = """
import sys, threading, hashlib, numpy as np
import ordmetrics as om
rng = np.random.default_rng(20261123)
P = rng.dirichlet(np.ones(5), 300_000)
y = rng.integers(0, 5, 300_000)
w = rng.uniform(0.1, 3.0, 300_000)
costs = np.random.default_rng(7).uniform(0.0, 4.0, size=(5, 5))

def digest():
    h = hashlib.sha256()
    for name in om.list_metrics("scoring_rule"):
        f = om.get_metric(name).func
        for red in ("mean", "sum", "none"):
            for kw in ({}, {"sample_weight": w}):
                h.update(np.asarray(f(y, P, reduction=red, **kw)).tobytes())
    for rule, c in (("argmax", None), ("median", None), ("expected", None),
                    ("min_cost", "absolute"), ("min_cost", "squared"),
                    ("min_cost", "zero_one"), ("min_cost", costs)):
        h.update(om.decide(P, rule, **({} if c is None else {"costs": c})).tobytes())
    return h.hexdigest()

if sys.argv[1] == "threads":  # 8 Python threads at once, each result as in one thread
    results = []
    barrier = threading.Barrier(8)
    def work():
        barrier.wait()
        for _ in range(3):
            results.append((om.rps(y, P), om.log_loss(y, P, sample_weight=w),
                            om.decide(P, "min_cost").tobytes()))
    ts = [threading.Thread(target=work) for _ in range(8)]
    for t in ts: t.start()
    for t in ts: t.join()
    assert len(results) == 24 and len(set(results)) == 1, results
    from ordmetrics._core.jit import threading_layer
    print(threading_layer())
else:
    print(digest())
"""


def _run(*args: str, **env: str):
    import os
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_one_numba_thread_in_a_subprocess_gives_the_same_bits() -> None:
    """NUMBA_NUM_THREADS=1 (serial kernels) and the default threads: the same results, and
    a second process loads every kernel from numba's on-disk cache (nothing saved)."""
    one = _run("digest", NUMBA_NUM_THREADS="1").stdout
    default = _run("digest").stdout
    again = _run("digest", NUMBA_DEBUG_CACHE="1")
    assert one == default == again.stdout.splitlines()[-1] + "\n"
    saved = [line for line in again.stdout.splitlines() if "saved" in line]
    assert saved == []


@pytest.mark.parametrize("layer", ["workqueue", "default"])
def test_eight_python_threads_at_once(layer: str) -> None:
    """numba's workqueue layer aborts on concurrent parallel calls: parallel entry is
    serialised (the others run the serial twin), with the same results."""
    env = {} if layer == "default" else {"NUMBA_THREADING_LAYER": layer}
    proc = _run("threads", **env)
    if layer == "workqueue":
        assert proc.stdout.strip() in ("workqueue", "None")


def test_a_forked_child_after_a_parallel_call(data) -> None:
    """GNU OpenMP terminates a forked child that starts a parallel region: the kernels of a
    child forked after a parallel call run serially, with the same result."""
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    y, P, w = data
    want = _with_numba_threads(2, om.rps, y, P, sample_weight=w)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            os.write(write, om.rps(y, P, sample_weight=w).hex().encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        got = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert float.fromhex(got) == want


@pytest.mark.parametrize("n", [10, 300_000])
@pytest.mark.parametrize("weighted", [False, True])
def test_an_infinite_score_gives_inf_at_any_size(data, n: int, weighted: bool) -> None:
    """The compensated combination of the blocks keeps an infinite sum infinite (not NaN)."""
    y, P, w = data
    y, P, w = y[:n], P[:n].copy(), w[:n]
    P[n // 2] = np.eye(K)[(y[n // 2] + 1) % K]  # p_y = 0: log loss +inf
    kw = {"sample_weight": w} if weighted else {}
    assert om.log_loss(y, P, **kw) == np.inf
    assert om.pll(y, P, reduction="sum", **kw) == np.inf


def test_a_forked_child_after_numba_threads_started_elsewhere() -> None:
    """numba's threads started by other code than ordmetrics also make a forked child serial
    (once ordmetrics has run a kernel in the parent, which registers the fork handler)."""
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    script = """
import os, numpy as np, numba
import ordmetrics as om

@numba.njit(parallel=True)
def total(a):
    s = 0.0
    for i in numba.prange(a.size):
        s += a[i]
    return s

total(np.ones(1000))  # the user's own parallel code starts numba's threads
rng = np.random.default_rng(1)
P = rng.dirichlet(np.ones(5), 300_000)
y = rng.integers(0, 5, 300_000)
om.rps(y[:10], P[:10])  # small: serial, starts no threads; ordmetrics is loaded
pid = os.fork()
if pid == 0:
    os._exit(0 if om.rps(y, P) > 0 else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
"""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
