"""The scoring kernels compiled at install (``ordmetrics._core._scoring_aot_f8`` and ``_f4``)
against the same kernels compiled just in time: the same bits for every rule and variant, and
the export used only when it is current, built for this processor and given exactly the types
it was compiled for.

Where the module was not built (no C compiler at install) these tests skip, unless
``ORDMETRICS_EXPECT_AOT=1`` (set by ``make test``) says it must be there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core import aot, kernels
from ordmetrics.metrics.scoring import RULES

BUILT = aot.aot_status().startswith("in use")
EXPECTED = os.environ.get("ORDMETRICS_EXPECT_AOT") == "1"
needs_aot = pytest.mark.skipif(not BUILT, reason="the ahead-of-time modules are not built here")

KERNEL_RULES = {rule.kernel.py_func.__name__: rule for rule in RULES.values()}
#: beyond a block (1,024 rows), a chunk (32 blocks) and with short last ones
SIZES = (0, 1, 7, 1023, 1025, 32 * 1024 + 17, 70_001)


def test_the_module_is_built_where_expected() -> None:
    if EXPECTED:
        assert BUILT, aot.aot_status()
        P, y, parts = np.eye(2), np.arange(2), np.empty((1, 3))
        current = aot.kernel_for(RULES["rps"].kernel, P, y, None, None, None, parts)
        assert current is not None, (
            "the ahead-of-time modules are older than the kernels' source: reinstall "
            "(`pip install -e .`; `make test` does it when a file of AOT_SOURCES changed)"
        )
    else:
        assert aot.aot_status().startswith(("in use", "not built", "not used", "switched off"))


def _hostile(n: int, k: int, dtype: type, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Rows with invalid entries mixed in (NaN, negative, bad sums, bad classes, bad weights)."""
    P = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    w = rng.random(n) * 3
    if n >= 7:
        P[1] = np.nan
        P[2, 0] = -0.1
        P[3] *= 1.5
        y[4] = k
        w[5] = -1.0
        w[6] = 0.0
        P[6] = 0.0
        P[6, 0] = 1.0  # a certain row (log rules: p_y may be 0)
    return np.ascontiguousarray(P, dtype=dtype), y, w


def _run(func, P, y, w, param, rows, log_form, penalty):
    n = P.shape[0]
    parts = np.full(((n + kernels.BLOCK - 1) // kernels.BLOCK, 3), -7.0)
    out = np.full(n, -7.0) if (rows or log_form) else None
    pen = np.full(n if rows else 0, -7.0) if penalty else None
    tol = 1e-6 if P.dtype == np.float64 else 1e-4
    res = func(P, y, w, 1.0, param, tol, out, rows, pen, parts)
    return res, parts, out, pen


def _bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


@needs_aot
@pytest.mark.parametrize("name", sorted(KERNEL_RULES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_export_gives_the_bits_of_the_jit_kernel(name, dtype, weighted) -> None:
    rule = KERNEL_RULES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    for n in SIZES:
        for k in (2, 3, 4, 5, 6, 7, 20):  # every unrolled K (kernels.UNROLLED_K), and beyond
            P, y, w = _hostile(n, k, dtype, rng)
            wt = w if weighted else None
            for rows in (False, True):
                out_given = rows or rule.log_form
                exp = aot.kernel_for(
                    rule.kernel,
                    P,
                    y,
                    wt,
                    np.empty(0) if out_given else None,
                    np.empty(0) if rule.penalty else None,
                    np.empty((1, 3)),
                )
                assert exp is not None, (name, dtype, weighted, rows)
                jit = rule.kernel.dispatcher
                for param in (rule.pack(), *_other_params(rule)):
                    a = _run(exp, P, y, wt, param, rows, rule.log_form, rule.penalty)
                    b = _run(jit, P, y, wt, param, rows, rule.log_form, rule.penalty)
                    _same_results(a, b, (name, n, k, rows, param))


def _same_results(a, b, case) -> None:
    """The bits of two kernels' results on the rows of ``_hostile``: the same totals and
    block slots where no row is invalid, invalid rows found in the same blocks (a loop with
    the range pass also counts the entries outside [0, 1]: ``kernels.drive_rows``), and the
    same per-sample values on the valid rows."""
    (ta, tb), (pa, pb) = (a[0], b[0]), (a[1], b[1])
    assert (ta[2] == 0) == (tb[2] == 0), case
    if ta[2] == 0:
        assert _bits(ta[:2]) == _bits(tb[:2]) and ta[2] == tb[2], case
    assert np.array_equal(pa[:, 2] == 0, pb[:, 2] == 0), case
    clean = pa[:, 2] == 0
    assert _bits(pa[clean]) == _bits(pb[clean]), case
    for x, z in zip(a[2:], b[2:], strict=True):
        assert (x is None) == (z is None)
        if x is not None:
            valid = np.ones(x.size, dtype=bool)
            valid[1:7] = x.size < 7  # the invalid rows of _hostile
            assert _bits(x[valid]) == _bits(z[valid]), case


def _other_params(rule) -> list[float]:
    """Packed option values besides the default, where the rule has options."""
    name = rule.name
    if name == "rps":
        return [rule.pack(normalize=False)]
    if name in ("log_loss", "pll"):
        return [rule.pack(eps=1e-12)] if name == "log_loss" else []
    if name == "pbs":
        return [rule.pack(ties="unpenalized")]
    if name == "spherical":
        return [rule.pack(alpha=3.0)]  # the loop for alpha other than 2
    return []


@needs_aot
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("penalty", [False, True])
def test_helpers_give_the_bits_of_the_jit_helpers(weighted, penalty) -> None:
    rng = np.random.default_rng(5)
    empty = np.empty(0)
    for n in SIZES:
        values = np.log(rng.random(n))
        w = rng.random(n) if weighted else empty
        if weighted and n >= 7:
            w[3], w[5] = -1.0, 0.0  # an invalid weight, a zero one
        pen = np.where(rng.random(n) < 0.3, np.log(5), 0.0) if penalty else empty
        n_blocks = (n + kernels.BLOCK - 1) // kernels.BLOCK
        start = rng.random((n_blocks, 3))
        exp = aot.block_sums_for(kernels.block_sums, w if weighted else None, start)
        assert exp is not None
        for v in (values, empty):
            a, b = start.copy(), start.copy()
            assert exp(v, pen, w, 0.5, 5, a) == _jit(kernels.block_sums)(v, pen, w, 0.5, 5, b)
            assert _bits(a) == _bits(b)
        comb = aot.combine_blocks_for(kernels.combine_blocks, a)
        assert comb is not None
        assert _bits(comb(a)) == _bits(_jit(kernels.combine_blocks)(a))


def _jit(kernel):
    return getattr(kernel, "dispatcher", kernel)


def _public_values(names, weighted: bool, n: int, k: int):
    rng = np.random.default_rng(n + k)
    P = rng.dirichlet(np.ones(k), n)
    y = rng.integers(0, k, n)
    w = rng.random(n) if weighted else None
    res = {}
    for name in names:
        for red in ("mean", "sum", "none"):
            res[name, red] = getattr(om, name)(y, P, sample_weight=w, reduction=red)
            res[name, red, "f4"] = getattr(om, name)(
                y, P.astype(np.float32), sample_weight=w, reduction=red
            )
    return res


@needs_aot
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("n", "k"), [(5_000, 5), (300_001, 5)])  # the second: parallel chunks
def test_public_functions_give_the_same_bits_without_the_exports(monkeypatch, weighted, n, k):
    names = om.list_metrics("scoring_rule")
    with_aot = _public_values(names, weighted, n, k)
    with monkeypatch.context() as m:
        m.setattr(aot, "_MODULES", dict.fromkeys(aot.AOT_MODULES, False))
        without = _public_values(names, weighted, n, k)
    for key, value in with_aot.items():
        assert _bits(value) == _bits(without[key]), key


@needs_aot
def test_the_exports_are_used_by_the_public_functions(monkeypatch) -> None:
    calls = []
    real = aot.kernel_for

    def spy(*args):
        func = real(*args)
        calls.append(func is not None)
        return func

    monkeypatch.setattr(aot, "kernel_for", spy)
    om.rps([0, 1, 2], np.eye(3))
    assert calls == [True]


@needs_aot
def test_only_the_exact_types_find_an_export() -> None:
    rule = RULES["rps"]
    P = np.full((10, 4), 0.25)
    y = np.zeros(10, dtype=np.int64)
    parts = np.empty((1, 3))
    find = aot.kernel_for
    assert find(rule.kernel, P, y, None, None, None, parts) is not None
    assert find(rule.kernel, P.astype(np.float32), y, None, None, None, parts) is not None
    # anything else: the just-in-time kernel (which compiles for the type it gets)
    fortran = np.asfortranarray(np.full((10, 4), 0.25))
    assert find(rule.kernel, fortran, y, None, None, None, parts) is None
    assert find(rule.kernel, P[::2], y[::2], None, None, None, parts) is None
    assert find(rule.kernel, P.astype(">f8"), y, None, None, None, parts) is None
    assert find(rule.kernel, P.astype(np.float16), y, None, None, None, parts) is None
    assert find(rule.kernel, P, y.astype(np.int32), None, None, None, parts) is None
    assert find(rule.kernel, P, y, np.ones(10, dtype=np.float32), None, None, parts) is None
    assert find(rule.kernel, P, y, None, np.empty(10, dtype=np.float32), None, parts) is None
    assert find(rule.kernel, P, y, None, None, None, parts.astype(np.float32)) is None
    assert find(rule.kernel, P, y, None, None, None, np.empty(3)) is None
    assert find(rule.kernel, P.tolist(), y, None, None, None, parts) is None
    assert find(object(), P, y, None, None, None, parts) is None  # not a kernel


@needs_aot
def test_a_stale_stamp_is_never_used(monkeypatch) -> None:
    rule = RULES["brier"]
    P = np.full((10, 4), 0.25)
    y = np.zeros(10, dtype=np.int64)
    parts = np.empty((1, 3))
    monkeypatch.setattr(aot, "_CURRENT", {})
    monkeypatch.setattr(aot, "source_stamp", lambda files: 12345)  # the source was edited
    assert aot.kernel_for(rule.kernel, P, y, None, None, None, parts) is None
    assert om.brier([0, 1], np.eye(2)) == 0.0  # the just-in-time kernel runs instead


@needs_aot
def test_another_processor_never_uses_the_exports(monkeypatch) -> None:
    monkeypatch.setattr(aot, "_MODULES", {})
    monkeypatch.setattr(aot, "host_target", lambda: ("some-other-cpu", "+sse2"))
    assert aot.aot_status().startswith("not used")
    assert aot._module() is False
    monkeypatch.setattr(aot, "_MODULES", {})
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    assert aot._module() is False


def test_the_switch_turns_the_exports_off(monkeypatch) -> None:
    monkeypatch.setattr(aot, "_MODULES", {})
    monkeypatch.setenv(aot.ENV_SWITCH, "0")
    assert aot.aot_status().startswith("switched off")
    y = np.zeros(2, np.int64)
    assert (
        aot.kernel_for(RULES["rps"].kernel, np.eye(2), y, None, None, None, np.empty((1, 3)))
        is None
    )


def test_the_stamp_follows_the_source(tmp_path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    s = aot.source_stamp([str(a), str(b)])
    assert s == aot.source_stamp([str(a), str(b)])
    assert 0 <= s < 2**63
    assert s != aot.source_stamp([str(b), str(a)])
    a.write_text("x = 2\n")
    assert s != aot.source_stamp([str(a), str(b)])


def test_kernel_files_name_the_driver_and_the_rule() -> None:
    files = [os.path.basename(f) for f in aot.kernel_files(RULES["pll"].kernel.py_func)]
    assert "kernels.py" in files and "log.py" in files


@needs_aot
def test_a_new_process_scores_without_importing_numba() -> None:
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        import ordmetrics as om
        y = np.arange(2000) % 5
        P = np.random.default_rng(0).dirichlet(np.ones(5), 2000)
        for name in ("rps", "sa_rps", "brier", "log_loss", "pbs", "pll"):
            getattr(om, name)(y, P)
            getattr(om, name)(y, P, sample_weight=np.ones(2000), reduction="none")
        print("numba" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("env_threads", [None, "1", "3"])
def test_the_thread_count_before_numba_is_numbas_own(env_threads) -> None:
    """Before numba is imported, ``num_threads`` gives the count numba starts with."""
    code = textwrap.dedent(
        """
        import sys
        from ordmetrics._core.jit import num_threads
        before = num_threads()
        assert "numba" not in sys.modules
        import numba
        print(before, numba.get_num_threads())
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    if env_threads is not None:
        env["NUMBA_NUM_THREADS"] = env_threads
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    before, numba_says = done.stdout.split()
    assert before == numba_says


@needs_aot
@pytest.mark.parametrize("part", sorted(aot.AOT_MODULES))
def test_a_current_module_is_kept_by_the_next_editable_install(monkeypatch, tmp_path, part):
    """``setup.py`` keeps a module an earlier editable install built when every export is
    there with the stamps of now; any other module is built again."""
    from ordmetrics._core import aot_build

    path = sys.modules[aot.AOT_MODULES[part]].__file__
    assert path is not None
    rules = list(RULES.values())
    assert aot_build.is_current(rules, part, path)
    assert not aot_build.is_current(rules, part, str(tmp_path / "missing.so"))
    other = "f4" if part == "f8" else "f8"  # the other module lacks this one's exports
    other_path = sys.modules[aot.AOT_MODULES[other]].__file__
    assert other_path is not None
    assert not aot_build.is_current(rules, part, other_path)
    monkeypatch.setattr(aot_build, "source_stamp", lambda files: 7)  # the source was edited
    assert not aot_build.is_current(rules, part, path)
