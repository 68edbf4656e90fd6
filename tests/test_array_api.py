"""Scoring rules and agreement metrics on PyTorch, JAX, CuPy (and array-api-strict) arrays.

Every value is compared with the NumPy path on the same data (rtol 1e-12 in float64, 1e-5 in
float32); results must be arrays of the input library on its device, errors must carry the
NumPy path's messages, and valid input must never be copied to the host. PyTorch runs in CI
(CPU); the other libraries are tested where installed.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

pytest.importorskip("array_api_compat")

import ordmetrics
from ordmetrics._core import array_api as _xp
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.metrics import agreement as A
from ordmetrics.metrics.agreement import confusion as A_confusion
from ordmetrics.metrics.agreement import device as A_device

RULES = tuple(ordmetrics.list_metrics("scoring_rule"))
N, K = 40, 4


# --------------------------------------------------------------------------------------------
# The array libraries
# --------------------------------------------------------------------------------------------


@dataclass
class Lib:
    """One array library, with the floating dtype of the probabilities."""

    name: str
    float_dtype: Any
    np_float: type
    asarray: Callable[[np.ndarray, Any], Any]  # (NumPy array, native dtype or None) -> array
    to_numpy: Callable[[Any], np.ndarray]
    is_native: Callable[[Any], bool]

    @property
    def rtol(self) -> float:
        return 1e-12 if self.np_float is np.float64 else 1e-5

    @property
    def atol(self) -> float:
        # float32: -ln p of p near 1 (eps clipping at 1 - eps rounded to float32) is small
        return 0.0 if self.np_float is np.float64 else 1e-7

    def floats(self, a: Any) -> Any:
        return self.asarray(np.asarray(a, dtype=self.np_float), self.float_dtype)

    def ints(self, a: Any) -> Any:
        return self.asarray(np.asarray(a, dtype=np.int64), None)


def _torch_lib(bits: int) -> Lib:
    torch = pytest.importorskip("torch")
    return Lib(
        f"torch-float{bits}",
        getattr(torch, f"float{bits}"),
        np.float64 if bits == 64 else np.float32,
        lambda a, dt: torch.asarray(a, dtype=dt),
        lambda x: x.detach().cpu().numpy(),
        lambda x: isinstance(x, torch.Tensor),
    )


def _jax_lib(bits: int) -> Lib:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")

    def asarray(a: np.ndarray, dt: Any) -> Any:
        if dt is None and bits == 32:  # int32 indices without x64
            a = a.astype(np.int32)
        return jnp.asarray(a, dtype=dt)

    return Lib(
        f"jax-float{bits}",
        getattr(jnp, f"float{bits}"),
        np.float64 if bits == 64 else np.float32,
        asarray,
        np.asarray,
        lambda x: isinstance(x, jax.Array),
    )


def _cupy_lib() -> Lib:
    cp = pytest.importorskip("cupy")
    return Lib(
        "cupy-float64",
        cp.float64,
        np.float64,
        lambda a, dt: cp.asarray(a, dtype=dt),
        lambda x: x.get(),
        lambda x: isinstance(x, cp.ndarray),
    )


def _strict_lib() -> Lib:
    xps = pytest.importorskip("array_api_strict")
    return Lib(
        "array-api-strict",
        xps.float64,
        np.float64,
        lambda a, dt: xps.asarray(a, dtype=dt),
        np.asarray,
        lambda x: type(x).__module__.startswith("array_api_strict"),
    )


@pytest.fixture(
    params=["torch-float64", "torch-float32", "jax-float64", "jax-float32", "cupy", "strict"]
)
def lib(request: pytest.FixtureRequest) -> Iterator[Lib]:
    """Each library; JAX with float64 enabled (x64) and, for float32, disabled."""
    name = request.param
    if name.startswith("torch"):
        yield _torch_lib(int(name[-2:]))
    elif name.startswith("jax"):
        jax = pytest.importorskip("jax")
        before = bool(jax.config.jax_enable_x64)
        jax.config.update("jax_enable_x64", name == "jax-float64")
        try:
            yield _jax_lib(int(name[-2:]))
        finally:
            jax.config.update("jax_enable_x64", before)
    elif name == "cupy":
        yield _cupy_lib()
    else:
        yield _strict_lib()


@pytest.fixture
def torch_lib() -> Lib:
    return _torch_lib(64)


# --------------------------------------------------------------------------------------------
# Data and comparisons
# --------------------------------------------------------------------------------------------


def scoring_data(seed: int = 0, n: int = N, k: int = K):
    """Dirichlet rows plus edge rows: a tie, p_y = 0 (weight 0), a perfect prediction."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    if k < 3 or n < 4:
        return y, P, w
    P[0] = 0.0
    P[0, :2] = 0.5  # tie between the true class and another: no penalty
    y[0] = 1
    P[1] = 0.0
    P[1, 0] = 1.0  # p_y = 0: infinite log scores ...
    y[1] = k - 1
    P[2] = 0.0
    P[2, 2] = 1.0  # a perfect prediction: +0.0
    y[2] = 2
    w[1] = 0.0  # ... absent with weight 0
    w[3] = 0.0
    return y, P, w


def assert_same(got: Any, expected: Any, lib: Lib) -> None:
    got = lib.to_numpy(got) if lib.is_native(got) else got
    got = np.asarray(got, dtype=np.float64)
    np.testing.assert_allclose(got, expected, rtol=lib.rtol, atol=lib.atol)


def assert_scalar(x: Any, lib: Lib, dtype: Any) -> None:
    """A 0-d array of the library, of ``dtype``."""
    assert lib.is_native(x), type(x)
    assert x.ndim == 0 and x.dtype == dtype


def numpy_message(fn: Callable[[], Any], exc: type[Exception] = ValueError) -> str:
    with pytest.raises(exc) as info:
        fn()
    return re.escape(str(info.value))


# --------------------------------------------------------------------------------------------
# Scoring rules
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_rule_equals_numpy(lib: Lib, name: str, reduction: str, weighted: bool) -> None:
    y, P, w = scoring_data()
    P = P.astype(lib.np_float)
    w = w.astype(lib.np_float)
    f = getattr(ordmetrics, name)
    kw: dict[str, Any] = {"reduction": reduction}
    expected = f(y, P, sample_weight=w if weighted else None, **kw)
    got = f(lib.ints(y), lib.floats(P), sample_weight=lib.floats(w) if weighted else None, **kw)
    assert_same(got, expected, lib)
    if reduction == "none":
        assert lib.is_native(got) and got.shape == (N,) and got.dtype == lib.float_dtype
        assert not np.signbit(lib.to_numpy(got)).any()  # never -0.0
    else:
        assert_scalar(got, lib, lib.float_dtype)


@pytest.mark.parametrize(
    ("name", "options"),
    [("rps", {"normalize": False}), ("log_loss", {"eps": 1e-3}), ("log_loss", {"eps": 0.2})],
)
def test_rule_options_equal_numpy(lib: Lib, name: str, options: dict) -> None:
    y, P, _ = scoring_data(1)
    P = P.astype(lib.np_float)
    f = getattr(ordmetrics, name)
    for reduction in ("mean", "none"):
        expected = f(y, P, reduction=reduction, **options)
        assert_same(f(lib.ints(y), lib.floats(P), reduction=reduction, **options), expected, lib)


@pytest.mark.parametrize("k", [2, 3, 7])
def test_other_class_counts_equal_numpy(torch_lib: Lib, k: int) -> None:
    y, P, w = scoring_data(2, n=25, k=k)
    for name in RULES:
        f = getattr(ordmetrics, name)
        got = f(torch_lib.ints(y), torch_lib.floats(P), sample_weight=torch_lib.floats(w))
        assert_same(got, f(y, P, sample_weight=w), torch_lib)


def test_float_results_when_asked(lib: Lib) -> None:
    y, P, _ = scoring_data()
    P = P.astype(lib.np_float)
    with _xp.device_results("float"):
        value = ordmetrics.brier(lib.ints(y), lib.floats(P))
        rows = ordmetrics.brier(lib.ints(y), lib.floats(P), reduction="none")
        kappa = A.qwk(lib.ints(y), lib.ints(np.roll(y, 1)))
    assert type(value) is float and type(kappa) is float
    assert value == pytest.approx(ordmetrics.brier(y, P), rel=lib.rtol)
    assert lib.is_native(rows)  # per-sample scores stay on the device
    assert lib.is_native(ordmetrics.brier(lib.ints(y), lib.floats(P)))  # restored after


def test_device_results_rejects_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind must be one of 'array', 'float'"):
        with _xp.device_results("list"):
            pass


def test_host_truth_weights_and_labels(lib: Lib) -> None:
    """y_true and sample_weight as host data: encoded on the host, copied to the device."""
    y, P, w = scoring_data(3)
    P = P.astype(lib.np_float)
    names = np.array(["a", "b", "c", "d"])[y].tolist()
    expected = ordmetrics.rps(names, P, labels=["a", "b", "c", "d"], sample_weight=w.tolist())
    got = ordmetrics.rps(names, lib.floats(P), labels=["a", "b", "c", "d"], sample_weight=w)
    assert_same(got, expected, lib)
    assert_same(ordmetrics.pll(y.tolist(), lib.floats(P)), ordmetrics.pll(y, P), lib)


def test_device_truth_with_index_labels(torch_lib: Lib) -> None:
    y, P, _ = scoring_data(4)
    got = ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P), labels=range(K))
    assert_same(got, ordmetrics.rps(y, P), torch_lib)
    with pytest.raises(TypeError, match=r"labels=\[1, 2, 3, 4\] cannot be used with y_true on"):
        ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P), labels=[1, 2, 3, 4])


def test_integer_probabilities_and_renormalize(lib: Lib) -> None:
    y, P, _ = scoring_data(5)
    onehot = np.eye(K, dtype=np.int64)[y]
    got = ordmetrics.brier(lib.ints(y), lib.ints(onehot), reduction="none")
    assert_same(got, np.zeros(N), lib)
    scaled = (P * 3.0).astype(lib.np_float)
    expected = ordmetrics.rps(y, scaled, renormalize=True)
    assert_same(ordmetrics.rps(lib.ints(y), lib.floats(scaled), renormalize=True), expected, lib)


def test_float32_keeps_its_dtype(torch_lib: Lib) -> None:
    import torch

    y, P, w = scoring_data(6)
    got = ordmetrics.pbs(torch.asarray(y), torch.asarray(P, dtype=torch.float32))
    assert got.dtype == torch.float32
    got = ordmetrics.pbs(torch.asarray(y), torch.asarray(P, dtype=torch.float32), sample_weight=w)
    assert got.dtype == torch.float32  # host float64 weights are cast to the computation


# ---- missing values -------------------------------------------------------------------------


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("where", ["proba", "weight", "truth"])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_nan_policies_equal_numpy(torch_lib: Lib, name: str, where: str, reduction: str) -> None:
    y, P, w = scoring_data(7)
    yy: Any = y.tolist()
    if where == "proba":
        P[[5, 9], 1] = np.nan
    elif where == "weight":
        w[[5, 9]] = np.nan
    else:
        yy[5] = yy[9] = None  # host y_true with missing values, encoded on the host
    f = getattr(ordmetrics, name)
    t = torch_lib
    y_dev = yy if where == "truth" else t.ints(y)
    for policy in ("omit", "propagate"):
        expected = f(yy, P, sample_weight=w, nan_policy=policy, reduction=reduction)
        kw = {"nan_policy": policy, "reduction": reduction}
        got = f(y_dev, t.floats(P), sample_weight=t.floats(w), **kw)
        assert_same(got, expected, t)
    msg = numpy_message(lambda: f(yy, P, sample_weight=w, reduction=reduction))
    with pytest.raises(ValueError, match=msg):
        f(y_dev, t.floats(P), sample_weight=t.floats(w), reduction=reduction)


def test_nan_policies_in_jax_and_cupy(lib: Lib) -> None:
    y, P, w = scoring_data(8)
    P = P.astype(lib.np_float)
    P[4, 0] = np.nan
    for policy in ("omit", "propagate"):
        for reduction in ("mean", "none"):
            kw = {"nan_policy": policy, "reduction": reduction}
            expected = ordmetrics.rps(y, P, sample_weight=w, **kw)
            got = ordmetrics.rps(lib.ints(y), lib.floats(P), sample_weight=lib.floats(w), **kw)
            assert_same(got, expected, lib)


def test_omit_with_every_row_missing_raises(torch_lib: Lib) -> None:
    y, P, _ = scoring_data(9, n=3, k=3)
    P[:, 0] = np.nan
    msg = numpy_message(lambda: ordmetrics.rps(y, P, nan_policy="omit"))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P), nan_policy="omit")


# ---- errors: the NumPy path's messages --------------------------------------------------------


def _bad_inputs() -> dict[str, tuple[Any, Any, Any]]:
    y, P, w = scoring_data(10)
    out = {}
    P1 = P.copy()
    P1[7] = [1.2, -0.2, 0.0, 0.0]
    out["out of [0, 1]"] = (y, P1, None)
    P2 = P.copy()
    P2[[4, 11]] *= 1.01
    out["rows not summing to 1"] = (y, P2, None)
    y3 = y.copy()
    y3[[6, 8]] = [K, -1]
    out["labels out of range"] = (y3, P, None)
    w4 = w.copy()
    w4[12] = -1.0
    out["negative weight"] = (y, P, w4)
    w5 = w.copy()
    w5[13] = np.inf
    out["infinite weight"] = (y, P, w5)
    out["zero total weight"] = (y, P, np.zeros(N))
    P6 = P.copy()
    P6[2, 3] = np.inf
    out["infinite probability"] = (y, P6, None)
    out["NaN with raise"] = (y, np.where(np.arange(N)[:, None] == 3, np.nan, P), None)
    return out


@pytest.mark.parametrize("case", list(_bad_inputs()))
@pytest.mark.parametrize("name", ["rps", "log_loss", "pll"])
def test_errors_have_the_numpy_messages(torch_lib: Lib, case: str, name: str) -> None:
    y, P, w = _bad_inputs()[case]
    f = getattr(ordmetrics, name)
    msg = numpy_message(lambda: f(y, P, sample_weight=w))
    t = torch_lib
    with pytest.raises(ValueError, match=msg):
        f(t.ints(y), t.floats(P), sample_weight=None if w is None else t.floats(w))


@pytest.mark.parametrize(
    "shape", [(N,), (N, 1), (0, K), (2, 3, 4)], ids=["1-D", "one column", "empty", "3-D"]
)
def test_shape_errors_have_the_numpy_messages(torch_lib: Lib, shape: tuple) -> None:
    P = np.full(shape, 0.5)
    y = np.zeros(shape[0], dtype=np.int64)
    msg = numpy_message(lambda: ordmetrics.rps(y, P))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P))


def test_length_and_weight_shape_errors(torch_lib: Lib) -> None:
    y, P, w = scoring_data(11)
    t = torch_lib
    msg = numpy_message(lambda: ordmetrics.rps(y[:-1], P))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(t.ints(y[:-1]), t.floats(P))
    msg = numpy_message(lambda: ordmetrics.rps(y, P, sample_weight=w[:-1]))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(t.ints(y), t.floats(P), sample_weight=t.floats(w[:-1]))
    msg = numpy_message(lambda: ordmetrics.rps(y[:, None].repeat(2, 1), P))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(t.ints(y[:, None].repeat(2, 1)), t.floats(P))


def test_renormalize_errors_have_the_numpy_messages(torch_lib: Lib) -> None:
    y, P, _ = scoring_data(12)
    P[3, 0] = -0.1
    msg = numpy_message(lambda: ordmetrics.rps(y, P, renormalize=True))
    with pytest.raises(ValueError, match=msg):
        ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P), renormalize=True)


def test_device_specific_errors(torch_lib: Lib) -> None:
    import torch

    y, P, _ = scoring_data(13)
    t = torch_lib
    with pytest.raises(TypeError, match=r"y_true is a device array of dtype torch\.float64"):
        ordmetrics.rps(t.floats(y), t.floats(P))
    with pytest.raises(TypeError, match="y_true is a device array boolean"):
        ordmetrics.rps(torch.asarray(y > 0), t.floats(P))
    with pytest.raises(TypeError, match="y_proba must hold real numbers"):
        ordmetrics.rps(t.ints(y), torch.asarray(P, dtype=torch.complex128))
    with pytest.raises(ValueError, match="reduction must be one of"):
        ordmetrics.rps(t.ints(y), t.floats(P), reduction="median")
    # weights beyond the float32 range with float32 probabilities: divided by the largest
    # weight on the device first, so they give the unweighted value (only ratios matter)
    w = torch.full((N,), 1e39, dtype=torch.float64)
    P32 = torch.asarray(P, dtype=torch.float32)
    got = float(ordmetrics.rps(t.ints(y), P32, sample_weight=w))
    assert got == pytest.approx(float(ordmetrics.rps(t.ints(y), P32)), rel=1e-6)


def test_mixed_libraries_are_an_error(torch_lib: Lib) -> None:
    jnp = pytest.importorskip("jax.numpy")
    y, P, _ = scoring_data(14)
    with pytest.raises(TypeError, match="pass both from the same array library"):
        ordmetrics.rps(jnp.asarray(y.astype(np.int32)), torch_lib.floats(P))


def test_missing_array_api_compat_names_the_package(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    y, P, _ = scoring_data(15)
    monkeypatch.setitem(sys.modules, "array_api_compat", None)
    with pytest.raises(
        ImportError, match=re.escape("missing from this environment: pip install array-api-compat.")
    ):
        ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P))


def test_host_verdict_stands_when_the_device_screen_disagrees(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row sum judged differently by rounding: the host's checks decide (here: valid)."""
    y, P, _ = scoring_data(16)
    real = _xp._row_sums
    monkeypatch.setattr(_xp, "_row_sums", lambda sp, P, keepdims=False: real(sp, P) + 1.0)
    got = ordmetrics.rps(torch_lib.ints(y), torch_lib.floats(P))
    assert_same(got, ordmetrics.rps(y, P), torch_lib)


# --------------------------------------------------------------------------------------------
# Agreement metrics
# --------------------------------------------------------------------------------------------

AGREEMENT_CASES = [(m, {}) for m in A.AGREEMENT_METRICS] + [
    ("kappa", {"weights": "linear"}),
    ("expected_cost", {"costs": "squared", "normalize": True}),
    ("within_k_accuracy", {"k": 2}),
]


def hard_data(seed: int = 20, n: int = N, k: int = 5):
    rng = np.random.default_rng(seed)
    yt = rng.integers(0, k, size=n)
    yp = np.clip(yt + rng.integers(-1, 2, size=n), 0, k - 1)
    yt[yt == 2] = 1  # class 2 absent from y_true
    w = rng.uniform(0.5, 2.0, size=n)
    w[0] = 0.0
    return yt, yp, w


@pytest.mark.parametrize(("name", "options"), AGREEMENT_CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_agreement_equals_numpy(lib: Lib, name: str, options: dict, weighted: bool) -> None:
    yt, yp, w = hard_data()
    w = w.astype(lib.np_float)
    f = getattr(A, name)
    expected = f(yt, yp, sample_weight=w if weighted else None, **options)
    w_dev = lib.floats(w) if weighted else None
    got = f(lib.ints(yt), lib.ints(yp), sample_weight=w_dev, **options)
    assert_scalar(got, lib, got.dtype)
    # float64 where the library has it; JAX without x64 returns float32
    rtol = 1e-12 if lib.to_numpy(got).dtype == np.float64 else 1e-6
    np.testing.assert_allclose(float(got), expected, rtol=rtol)


def test_agreement_label_set_and_host_inputs(torch_lib: Lib) -> None:
    yt, yp, w = hard_data(21)
    t = torch_lib
    for labels in (None, range(7)):
        expected = A.qwk(yt, yp, labels=labels)
        got = A.qwk(yt.tolist(), t.ints(yp), labels=labels, sample_weight=w.tolist())
        np.testing.assert_allclose(float(got), A.qwk(yt, yp, labels=labels, sample_weight=w))
        np.testing.assert_allclose(float(A.qwk(t.ints(yt), t.ints(yp), labels=labels)), expected)
    with pytest.raises(TypeError, match="cannot be used with device arrays of hard labels"):
        A.qwk(t.ints(yt), t.ints(yp), labels=["a", "b", "c", "d", "e"])


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
@pytest.mark.parametrize("weighted", [False, True])
def test_confusion_matrix_equals_numpy(lib: Lib, normalize: str | None, weighted: bool) -> None:
    yt, yp, w = hard_data(22)
    w = w.astype(lib.np_float)
    kw = {"normalize": normalize, "sample_weight": w if weighted else None}
    with warnings.catch_warnings(record=True) as numpy_warnings:
        warnings.simplefilter("always")
        expected = A.confusion_matrix(yt, yp, **kw)
    kw["sample_weight"] = lib.floats(w) if weighted else None
    with warnings.catch_warnings(record=True) as device_warnings:
        warnings.simplefilter("always")
        got = A.confusion_matrix(lib.ints(yt), lib.ints(yp), **kw)
    assert lib.is_native(got) and got.shape == expected.shape
    assert [str(x.message) for x in device_warnings] == [str(x.message) for x in numpy_warnings]
    got = lib.to_numpy(got)
    np.testing.assert_allclose(got, expected, rtol=1e-12 if got.dtype == np.float64 else 1e-6)
    if normalize is None and not weighted:
        assert np.issubdtype(got.dtype, np.integer)


def test_agreement_nan_policies_equal_numpy(torch_lib: Lib) -> None:
    yt, yp, w = hard_data(23)
    yt_host: list[Any] = yt.tolist()
    yt_host[3] = None
    t = torch_lib
    for policy in ("omit", "propagate"):
        expected = A.mae(yt_host, yp, sample_weight=w, nan_policy=policy)
        got = A.mae(yt_host, t.ints(yp), sample_weight=t.floats(w), nan_policy=policy)
        np.testing.assert_allclose(float(got), expected, rtol=1e-12)
        expected_cm = A.confusion_matrix(yt_host, yp, nan_policy=policy)
        got_cm = A.confusion_matrix(yt_host, t.ints(yp), nan_policy=policy)
        np.testing.assert_allclose(t.to_numpy(got_cm), expected_cm)
    msg = numpy_message(lambda: A.mae(yt_host, yp))
    with pytest.raises(ValueError, match=msg):
        A.mae(yt_host, t.ints(yp))


@pytest.mark.parametrize("case", ["negative", "outside labels", "weights", "many classes"])
def test_agreement_errors_have_the_numpy_messages(torch_lib: Lib, case: str) -> None:
    yt, yp, w = hard_data(24)
    labels = None
    if case == "negative":
        yp[5] = -2
    elif case == "outside labels":
        yp[5], labels = 9, range(5)
    elif case == "weights":
        w[4] = -1.0
    else:
        yt[2] = 10_000
    msg = numpy_message(lambda: A.accuracy(yt, yp, labels=labels, sample_weight=w))
    t = torch_lib
    with pytest.raises(ValueError, match=msg):
        A.accuracy(t.ints(yt), t.ints(yp), labels=labels, sample_weight=t.floats(w))


def test_undefined_agreement_warns_and_gives_nan(torch_lib: Lib) -> None:
    ones = np.ones(6, dtype=np.int64)
    with pytest.warns(UndefinedMetricWarning, match="kappa is undefined"):
        got = A.kappa(torch_lib.ints(ones), torch_lib.ints(ones))
    assert torch_lib.is_native(got) and math.isnan(float(got))


def test_generic_bincount_equals_the_scatter_add(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-hot product used for libraries without a scatter-add gives the same counts."""
    import array_api_compat

    yt, yp, w = hard_data(25)
    t = torch_lib
    native = [A.confusion_matrix(t.ints(yt), t.ints(yp), sample_weight=s) for s in (None, w)]
    monkeypatch.setattr(array_api_compat, "is_torch_namespace", lambda xp: False)
    for s, expected in zip((None, w), native, strict=True):
        got = A.confusion_matrix(t.ints(yt), t.ints(yp), sample_weight=s)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(t.to_numpy(got), t.to_numpy(expected), rtol=1e-12)


def test_fallbacks_without_cumulative_sum_and_take_along_axis(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    import array_api_compat.torch as xp_torch

    y, P, w = scoring_data(26)
    monkeypatch.delattr(xp_torch, "cumulative_sum")
    monkeypatch.delattr(xp_torch, "take_along_axis")
    for name in RULES:
        f = getattr(ordmetrics, name)
        got = f(torch_lib.ints(y), torch_lib.floats(P), sample_weight=w, reduction="sum")
        assert_same(got, f(y, P, sample_weight=w, reduction="sum"), torch_lib)


# --------------------------------------------------------------------------------------------
# Nothing is copied to the host; NumPy input never comes here
# --------------------------------------------------------------------------------------------

TRANSFERS = {"numpy", "cpu", "tolist", "__array__", "__dlpack__"}
SCALARS = {"item", "__bool__", "__int__", "__float__", "__index__"}


@contextmanager
def no_host_copy(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, tuple]]]:
    """Record every transfer from a tensor to the host; fail on NumPy conversions.

    A ``TorchFunctionMode`` sees every tensor method call (``.numpy()``, ``__array__``,
    ``int(t)``, ...); NumPy's converters, the compiled kernels and the host diagnosis are
    replaced by functions that fail.
    """
    import torch
    from torch.overrides import TorchFunctionMode

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a NumPy conversion or the NumPy path was called")

    replaced = [
        (np, "asarray"),
        (np, "array"),
        (np, "ascontiguousarray"),
        (ordmetrics._core.kernels, "score_rows"),
        (ordmetrics.metrics.scoring.base, "find_problems"),
        (_xp, "find_problems"),
        (A_confusion, "prepare"),
        (A_confusion, "confusion_counts"),
    ]
    calls: list[tuple[str, tuple]] = []

    class Record(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__name__", "")
            if name in TRANSFERS | SCALARS and args and isinstance(args[0], torch.Tensor):
                calls.append((name, tuple(args[0].shape)))
            return func(*args, **(kwargs or {}))

    with monkeypatch.context() as patch:
        for module, name in replaced:
            patch.setattr(module, name, fail)
        with Record():
            yield calls


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("weighted", [False, True])
def test_valid_scoring_input_stays_on_the_device(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch, name: str, weighted: bool
) -> None:
    y, P, w = scoring_data(30)
    t = torch_lib
    y_dev, P_dev, w_dev = t.ints(y), t.floats(P), t.floats(w) if weighted else None
    with no_host_copy(monkeypatch) as calls:
        for reduction in ("mean", "none"):
            getattr(ordmetrics, name)(y_dev, P_dev, sample_weight=w_dev, reduction=reduction)
    # one integer of validity flags per call, nothing else
    assert calls == [("__int__", ())] * 2


def test_valid_agreement_input_sends_only_the_table(
    torch_lib: Lib, monkeypatch: pytest.MonkeyPatch
) -> None:
    yt, yp, w = hard_data(31)
    t = torch_lib
    yt_dev, yp_dev, w_dev = t.ints(yt), t.ints(yp), t.floats(w)
    with no_host_copy(monkeypatch) as calls:
        A.qwk(yt_dev, yp_dev, sample_weight=w_dev)
        A.confusion_matrix(yt_dev, yp_dev, labels=range(5))
    scalars = [c for c in calls if c[0] in SCALARS]
    tables = [c for c in calls if c[0] in TRANSFERS]
    assert all(shape == () for _, shape in scalars) and len(scalars) == 3  # flags, K, flags
    assert tables and all(shape == (5, 5) for _, shape in tables)  # qwk's K x K table only


def test_numpy_input_never_reaches_the_device_path(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("NumPy input was routed to the device path")

    for name in ("evaluate", "_compat"):
        monkeypatch.setattr(_xp, name, fail)
    for name in ("agreement_scalar", "confusion_matrix"):
        monkeypatch.setattr(A_device, name, fail)
    y, P, w = scoring_data(32)
    ordmetrics.rps(y, P, sample_weight=w)
    ordmetrics.log_loss(y.tolist(), P.tolist())
    A.qwk(y, np.roll(y, 1))
    A.confusion_matrix(y.tolist(), y)
    assert not _xp.is_device_array(np.float32(0.5))
    assert not _xp.is_device_array(np.ma.masked_array([0.5, 0.5]))


def test_is_device_array_recognises_the_libraries() -> None:
    torch = pytest.importorskip("torch")
    assert _xp.is_device_array(torch.zeros(2))
    assert _xp.is_device_array(torch.nn.Parameter(torch.zeros(2)))
    pd = pytest.importorskip("pandas")
    assert not _xp.is_device_array(pd.Series([0.5, 0.5]))
    assert not _xp.is_device_array(pd.DataFrame({"a": [0.5], "b": [0.5]}))
