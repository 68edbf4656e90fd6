"""Memory, resource requests, threads and environment (issue 9, section 6).

* memory: the calibration functions and the random baseline of the retention curve allocate at
  most about one extra copy of the probability matrix (measured with ``tracemalloc``, which
  NumPy reports its array buffers to), and the baseline's memory does not grow with
  ``n_random``;
* requests that cannot finish are refused up front (bootstrap resamples, grid cells);
* threads: the library never changes the process-wide warning filters;
* environment: numba compiles without its on-disk cache when no cache directory is writable,
  and ``ordmetrics --help`` / ``ordmetrics list`` do not import numba at all.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics import UndefinedMetricWarning
from ordmetrics.evaluation import resample_counts as RC
from ordmetrics.evaluation import resampling as RS
from ordmetrics.evaluation import retention_baselines as R

SRC = Path(__file__).resolve().parents[1] / "src"


def peak_extra(fn) -> int:
    """Bytes allocated at the peak of ``fn()`` beyond what was allocated before the call."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def proba(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    return rng.integers(0, k, size=n), P


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------

_CALIBRATION = [
    ("cumulative_ece", {}),
    ("classwise_ece", {}),
    ("classwise_ece", {"strategy": "quantile", "n_bins": 10}),
    ("brier_decomposition", {}),
    ("brier_decomposition", {"n_bins": 10}),
    ("rps_decomposition", {}),
    ("rps_decomposition", {"n_bins": 10, "strategy": "quantile"}),
]


@pytest.mark.parametrize(("name", "opts"), _CALIBRATION, ids=[f"{n}{o}" for n, o in _CALIBRATION])
def test_calibration_functions_use_at_most_one_copy_of_the_probabilities(name, opts):
    # before: 4x (ECEs) to 13x (decompositions with one bin per distinct value)
    y, P = proba(20_000, 40)
    func = getattr(om, name)
    func(y, P, **opts)
    extra = peak_extra(lambda: func(y, P, **opts))
    assert extra <= P.nbytes, f"{name}: {extra / P.nbytes:.2f} copies of P"


_KERNEL_PATHS = [
    ("ece", {"strategy": "quantile"}),
    ("cumulative_ece", {"strategy": "quantile"}),
    ("classwise_ece", {"strategy": "quantile", "n_bins": 10}),
    ("brier_decomposition", {"n_bins": 10}),
    ("rps_decomposition", {"n_bins": 10, "strategy": "quantile"}),
]


@pytest.mark.parametrize(("name", "opts"), _KERNEL_PATHS, ids=[f"{n}{o}" for n, o in _KERNEL_PATHS])
def test_the_calibration_kernels_use_at_most_half_a_copy(name, opts):
    # the compiled kernels form the events per row: small tables, a few sorted buckets
    y, P = proba(20_000, 40)
    func = getattr(om, name)
    func(y, P, **opts)
    extra = peak_extra(lambda: func(y, P, **opts))
    assert extra <= 0.5 * P.nbytes, f"{name}: {extra / P.nbytes:.2f} copies of P"


_WEIGHTED = [
    ("ece", "uniform", 0.05),
    ("cumulative_ece", "uniform", 0.05),
    ("rps_decomposition", "uniform", 0.05),
    ("ece", "quantile", 0.4),
    ("classwise_ece", "quantile", 0.4),
    ("brier_decomposition", "quantile", 0.4),
]


@pytest.mark.parametrize(("name", "strategy", "limit"), _WEIGHTED)
def test_the_calibration_kernels_do_not_copy_the_weights(name, strategy, limit):
    # before: the weights scaled by a power of two in a copy (0.5x P at K = 2, the quantile
    # paths 0.6-0.7x P); now the kernels multiply each weight by the power of two
    y, P = proba(100_000, 2)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=y.size)
    func = getattr(om, name)
    func(y, P, n_bins=10, strategy=strategy, sample_weight=w)
    extra = peak_extra(lambda: func(y, P, n_bins=10, strategy=strategy, sample_weight=w))
    assert extra <= limit * P.nbytes, f"{name}: {extra / P.nbytes:.2f} copies of P"


def test_calibration_values_match_the_event_matrices():
    """The per-event computation gives what the (N, E) matrices of event_forecasts give."""
    from ordmetrics.metrics.calibration import binning as C

    y, P = proba(3_000, 7, seed=3)
    w = np.random.default_rng(4).uniform(0.1, 2.0, size=y.size)
    for view in ("classwise", "cumulative"):
        f, o = C.event_forecasts(P, y, view)
        cols = [(fj.copy(), oj.copy()) for fj, oj in C._event_columns(P, y, view)]
        assert len(cols) == f.shape[1]
        for j, (fj, oj) in enumerate(cols):
            assert np.array_equal(fj, f[:, j])  # bit for bit, also the cumulative sums
            assert np.array_equal(oj, o[:, j])
        for n_bins, strategy in ((15, "uniform"), (None, "uniform"), (8, "quantile")):
            bins = C.bin_sums(f, o, w, n_bins, strategy)
            ref = C.ece_from_sums(bins.weight, bins.sum_forecast, bins.sum_event, float(w.sum()))
            if n_bins is not None:
                got = C._ece_columns(P, y, w, view, n_bins, strategy)
                assert np.allclose(got, ref, rtol=1e-13, atol=1e-15)


def _retention_peak(n_random: int) -> int:
    y, P = proba(300, 60, seed=1)
    return peak_extra(lambda: om.retention_curve(y, P, n_random=n_random, random_state=0))


def test_the_random_baseline_memory_does_not_grow_with_n_random():
    # before: n_random x M x K^2 counts at once (N = 1,000, K = 1,000: killed at 24 GB)
    _retention_peak(2)
    small, large = _retention_peak(50), _retention_peak(400)
    assert large < 1.3 * small, (small, large)


def test_the_random_baseline_in_chunks_equals_one_chunk(monkeypatch):
    """Row orderings (non-integer weights): the draws of the chunks are those of one call, so
    chunking changes nothing but the order of a sum."""
    y, P = proba(200, 4, seed=5)
    w = np.random.default_rng(6).uniform(0.5, 1.5, size=200)
    one = om.retention_curve(y, P, sample_weight=w, n_random=30, random_state=0).random
    monkeypatch.setattr(R, "_CHUNK_ELEMENTS", 1)  # one ordering per chunk
    chunked = om.retention_curve(y, P, sample_weight=w, n_random=30, random_state=0).random
    np.testing.assert_allclose(chunked, one, rtol=1e-12, atol=1e-15)


def test_the_random_baseline_in_chunks_stays_an_unbiased_estimate(monkeypatch):
    """Integer weights (hypergeometric draws): chunking changes the draws, not the estimate."""
    y, P = proba(400, 4, seed=7)
    one = om.retention_curve(y, P, n_random=400, random_state=0).random
    monkeypatch.setattr(R, "_CHUNK_ELEMENTS", 1)
    chunked = om.retention_curve(y, P, n_random=400, random_state=1).random
    assert np.all(np.isfinite(chunked))
    np.testing.assert_allclose(chunked, one, atol=0.02)


# --------------------------------------------------------------------------------------------
# Requests that cannot finish
# --------------------------------------------------------------------------------------------


def test_bootstrap_refuses_more_than_the_documented_maximum_of_resamples():
    y, P = proba(50, 3)
    with pytest.raises(
        ValueError, match=r"n_resamples must be at most 10,000,000 \(MAX_RESAMPLES\)"
    ):
        om.bootstrap("rps", y, P, n_resamples=10**12)
    with pytest.raises(ValueError, match=r"8,000\.0 GB here"):
        om.compare("rps", y, P, P, n_resamples=10**12)
    assert RS.MAX_RESAMPLES == 10**7


def test_bootstrap_fills_its_distribution_chunk_by_chunk(monkeypatch):
    y, P = proba(100, 3)
    ref = om.bootstrap("rps", y, P, n_resamples=50, random_state=0).distribution
    monkeypatch.setattr(RC, "CHUNK_INDICES", 300)  # 3 resamples per chunk
    got = om.bootstrap("rps", y, P, n_resamples=50, random_state=0).distribution
    np.testing.assert_array_equal(got, ref)
    ref_d = om.compare("rps", y, P, P[::-1], n_resamples=50, random_state=0).distribution
    assert ref_d.shape == (50,) and np.isfinite(ref_d).all()


def test_cli_refuses_a_bootstrap_that_cannot_finish(tmp_path, capsys):
    from ordmetrics.report.cli import main

    y, P = proba(20, 3)
    path = tmp_path / "p.csv"
    lines = ["y,p0,p1,p2"] + [f"{a},{b[0]!r},{b[1]!r},{b[2]!r}" for a, b in zip(y, P, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    code = main(
        ["evaluate", str(path), "--truth", "y", "--proba", "p0,p1,p2",
         "--bootstrap", "1000000000000", "--metrics", "rps"]
    )  # fmt: skip
    assert code == 2
    assert "at most 10,000,000" in capsys.readouterr().err


def test_evaluator_refuses_a_grid_that_cannot_be_allocated():
    from ordmetrics.stream import Evaluator

    with pytest.raises(ValueError, match=r"n_grid must be at most 16777216"):
        Evaluator(n_grid=2**40)


# --------------------------------------------------------------------------------------------
# Threads: never the process-wide warning filters
# --------------------------------------------------------------------------------------------


def _degenerate():
    """Rows where many resamples hold a single class: the C-index is undefined on them."""
    y = np.array([0] * 12 + [1])
    P = np.tile([[0.6, 0.4]], (13, 1))
    P[-1] = [0.2, 0.8]
    return y, P


def test_bootstrap_from_8_threads_leaves_the_warning_filters_unchanged():
    y, P = _degenerate()
    before = list(warnings.filters)
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work():
        try:
            barrier.wait()
            for _ in range(3):
                om.bootstrap("c_index", y, P, n_resamples=60, random_state=0)
        except BaseException as exc:
            errors.append(exc)

    with warnings.catch_warnings():  # the test's own: the threads' warnings stay out of sight
        warnings.simplefilter("ignore")
        inside = list(warnings.filters)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert list(warnings.filters) == inside
    assert not errors, errors
    assert list(warnings.filters) == before
    # and the warnings are still issued where due
    with pytest.warns(UndefinedMetricWarning, match="c_index is undefined"):
        om.c_index([0, 0, 0], [[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]])
    with pytest.warns(UndefinedMetricWarning, match="undefined \\(NaN\\) on"):
        om.bootstrap("c_index", y, P, n_resamples=60, random_state=0)


def test_library_code_never_touches_the_warning_filters(tmp_path):
    """Deterministic: every function that silences or collects warnings, run with the filter
    functions replaced by recorders (restored before anything else runs)."""
    import pandas as pd

    from ordmetrics.report.html import metric_table

    y, P = _degenerate()
    df = pd.DataFrame({"y": y, "p0": P[:, 0], "p1": P[:, 1]})
    names = ("catch_warnings", "simplefilter", "filterwarnings", "resetwarnings")
    saved = {name: getattr(warnings, name) for name in names}
    calls: list[str] = []

    def recorder(name):
        def record(*args, **kwargs):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller.split(".")[0] == "ordmetrics":  # not the libraries it imports
                calls.append(f"{caller}: {name}")
            return saved[name](*args, **kwargs)

        return record

    def run():
        om.bootstrap("c_index", y, P, n_resamples=40, random_state=0)
        om.compare("c_index", y, P, P[:, ::-1], n_resamples=40, random_state=0)
        metric_table(df, truth="y", proba=["p0", "p1"], metrics=["c_index"], n_resamples=40)

    with saved["catch_warnings"]():
        saved["simplefilter"]("ignore")
        run()  # imports whatever it needs (other libraries may use the filters at import)
        try:
            for name in names:
                setattr(warnings, name, recorder(name))
            run()
        finally:
            for name in names:
                setattr(warnings, name, saved[name])
    assert calls == []


def test_quiet_and_collect_are_per_thread():
    from ordmetrics._core import warnings as W

    seen: list[str] = []

    def other():
        with pytest.warns(UndefinedMetricWarning):
            W.warn_undefined("x", "reason")
        seen.append("warned")

    with W.collect() as caught:
        W.warn_undefined("kappa", "one class")
        t = threading.Thread(target=other)
        t.start()
        t.join()
        with W.quiet():
            W.warn_undefined("qwk", "dropped")
    assert seen == ["warned"]
    assert caught == [("kappa is undefined: one class; returning NaN.", UndefinedMetricWarning)]


# --------------------------------------------------------------------------------------------
# Environment: numba's cache, and no numba for --help and list
# --------------------------------------------------------------------------------------------


def _run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), full.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        timeout=300,
    )


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["list", "--kind", "ranking"]])
def test_help_and_list_do_not_import_numba(argv):
    result = _run(
        f"""
        import sys
        from ordmetrics.report.cli import main
        try:
            code = main({argv!r})
        except SystemExit as exc:
            code = exc.code
        assert code in (0, None), code
        assert "numba" not in sys.modules, "numba was imported"
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


#: Modules that ``ordmetrics --help`` and ``--version`` must not import (they start at once).
HEAVY_MODULES = (
    "numpy",
    "numba",
    "pandas",
    "polars",
    "pyarrow",
    "matplotlib",
    "scipy",
    "narwhals",
    "array_api_compat",
)


@pytest.mark.parametrize(
    "argv", [["--help"], ["--version"], ["evaluate", "--help"], ["compare", "--help"]]
)
def test_help_and_version_import_nothing_heavy(argv):
    """The parser is built from static data: no numpy, no data-frame or plotting library, and
    none of the metric modules (checked by ``sys.modules`` in a new process)."""
    result = _run(
        f"""
        import sys
        from ordmetrics.report.cli import main
        try:
            code = main({argv!r})
        except SystemExit as exc:
            code = exc.code
        assert code in (0, None), code
        heavy = [m for m in sys.modules if m.split(".")[0] in {HEAVY_MODULES!r}]
        assert not heavy, f"imported: {{sorted(heavy)[:10]}}"
        loaded = sorted(m for m in sys.modules if m.startswith("ordmetrics."))
        assert not [m for m in loaded if m.split(".")[1] in ("metrics", "evaluation", "io")], (
            loaded
        )
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


def test_import_ordmetrics_is_lazy_and_complete_on_first_use():
    """``import ordmetrics`` imports no metric module; the first public name (or the first
    lookup in the registry, from any module) imports them all, as an eager import did."""
    result = _run(
        """
        import sys
        import ordmetrics
        assert "numpy" not in sys.modules
        assert set(ordmetrics.__all__) <= set(dir(ordmetrics))
        from ordmetrics._core.registry import get_metric, list_metrics
        assert get_metric("qwk").name == "qwk"  # registered by a module not yet imported
        assert "aursc" in list_metrics() and "kappa" in list_metrics()
        for name in ordmetrics.__all__:
            assert getattr(ordmetrics, name) is not None, name
        assert ordmetrics.metrics.scoring.rps is ordmetrics.rps
        print(list_metrics())
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(om.list_metrics())


def test_import_ordmetrics_does_not_import_numba():
    result = _run(
        """
        import sys
        import ordmetrics
        assert "numba" not in sys.modules
        ordmetrics.c_index([0, 1, 2], [[0.8, 0.1, 0.1], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
        assert "numba" in sys.modules  # compiled on first use
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr


def test_kernels_compile_without_a_writable_cache_directory(tmp_path):
    """Nothing writable for numba's cache: no package directory, no $HOME, no
    NUMBA_CACHE_DIR. Running as root (or with a writable package directory) numba would still
    find a place, so the test removes every place the way numba sees it: its list of cache
    locators (``NUMBA_CACHE_LOCATOR_CLASSES``) holds one locator that finds none, which is
    what numba's own locators return when their directory cannot be written. The subprocess
    first shows that plain ``numba.njit(cache=True)`` then fails with "cannot cache
    function", and that ordmetrics computes the same numbers without the on-disk cache."""
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    (tmp_path / "nolocator.py").write_text(
        textwrap.dedent(
            """
            class NoWritableLocation:
                @classmethod
                def from_function(cls, py_func, source_path):
                    return None  # what numba's locators return for an unwritable directory
            """
        )
    )
    env = {
        "HOME": str(readonly),
        "NUMBA_CACHE_DIR": str(readonly / "cache"),
        "NUMBA_CACHE_LOCATOR_CLASSES": "nolocator.NoWritableLocation",
        "PYTHONPATH": str(tmp_path),
    }
    result = _run(
        """
        import numpy as np
        import numba
        try:
            numba.njit(cache=True)(lambda x: x + 1)
        except RuntimeError as exc:
            assert "cannot cache" in str(exc), exc
        else:
            raise AssertionError("the simulation did not remove numba's cache locations")
        import ordmetrics as om
        from ordmetrics._core import jit as _jit
        y = [0, 1, 2, 1, 0, 2]
        P = np.array([[.7, .2, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3], [.5, .3, .2],
                      [.2, .2, .6]])
        print(repr(om.c_index(y, P)), repr(om.rps(y, P)))
        print(om.bootstrap("qwk", y, [0, 1, 2, 2, 0, 1], n_resamples=20, random_state=0).std)
        assert _jit.cache_disabled(), "expected kernels compiled without the cache"
        from ordmetrics.report.cli import main
        assert main(["list"]) == 0
        print("ok")
        """,
        env,
    )
    assert result.returncode == 0, result.stderr
    assert "cannot cache" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "ok"
    y = [0, 1, 2, 1, 0, 2]
    P = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]])
    P = np.vstack([P, [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]])
    assert lines[0] == f"{om.c_index(y, P)!r} {om.rps(y, P)!r}"


def test_a_lazy_kernel_compiles_once_from_many_threads():
    from ordmetrics._core.jit import njit

    @njit(cache=False, nogil=True)
    def double(x):
        return 2.0 * x

    results: list[float] = []
    threads = [threading.Thread(target=lambda: results.append(double(1.5))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [3.0] * 8
    assert double.signatures  # forwarded to the numba dispatcher
