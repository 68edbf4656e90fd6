"""Every registered scoring rule agrees with itself on every backend, generated from the registry.

For each rule of ``ordmetrics.list_metrics("scoring_rule")`` and each option setting (the
default, every ``spec.variants`` entry, and the numeric options below), the rule's record
(``ordmetrics.metrics.scoring.get_rule``) is evaluated by its compiled kernel, by its
array-API formula on NumPy (``array_api_compat.numpy``) and, when PyTorch is installed, by the
same formula on CPU tensors and by the public function on tensors (the device path). The
per-sample scores agree to rtol 1e-12 in float64, and so do the weighted and unweighted means
and sums. A name or object that is not a rule's record is rejected with a clear error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core import array_api, kernels
from ordmetrics._core.validation import sum_tolerance
from ordmetrics.metrics.scoring import RULES, ScoringRule, get_rule
from ordmetrics.metrics.scoring.base import evaluate

xp_numpy = pytest.importorskip("array_api_compat.numpy")

RTOL = 1e-12
ATOL = 1e-15

#: Options that are not registry variants (they do not change the properties) but change the
#: packed ``param``: each is checked like a variant.
EXTRA_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "rps": [{"normalize": False}],
    "cdf_l1": [{"normalize": False}],
    "log_loss": [{"eps": 1e-3}],
    "spherical": [{"alpha": 3.0}, {"alpha": 1.5}],
}
#: The public function of a rule with another ``alpha`` than the spherical score's.
PUBLIC_WITH = {"alpha": om.pseudospherical}


def _cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for name in om.list_metrics("scoring_rule"):
        spec = om.get_metric(name)
        cases.append((name, {}))
        cases += [(name, dict(v.options)) for v in spec.variants.values()]
        cases += [(name, opts) for opts in EXTRA_OPTIONS.get(name, [])]
    return cases


CASES = _cases()
IDS = [
    f"{name}-{'-'.join(f'{key}={value}' for key, value in opts.items()) or 'default'}"
    for name, opts in CASES
]


def _data(k: int, n: int = 700, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dirichlet rows with ties, uniform rows and point masses; p_y > 0; weights with zeros."""
    rng = np.random.default_rng(seed + k)
    P = rng.dirichlet(np.ones(k), size=n)
    P[: n // 4] = np.round(P[: n // 4] * 3) / 3  # ties between the top classes
    P[: n // 4] /= P[: n // 4].sum(axis=1, keepdims=True)
    P[: n // 10] = 1.0 / k  # ties everywhere
    y = rng.integers(0, k, size=n)
    P[n // 10 : n // 10 + 5] = np.eye(k)[y[n // 10 : n // 10 + 5]]  # perfect predictions
    P[np.arange(n), y] = np.maximum(P[np.arange(n), y], 1e-3)
    P /= P.sum(axis=1, keepdims=True)
    w = rng.uniform(0.0, 2.0, size=n)
    w[::17] = 0.0
    return y, P, w


def _public(rule: ScoringRule, options: dict[str, Any]) -> Any:
    """The public function that takes ``options``."""
    return next((PUBLIC_WITH[o] for o in options if o in PUBLIC_WITH), rule.func)


def _kernel_rows(rule: ScoringRule, y: np.ndarray, P: np.ndarray, param: float) -> np.ndarray:
    tol = sum_tolerance(P.dtype, P.shape[1])
    _, _, n_bad, out = kernels.score_rows(P, y, None, 1.0, rule, param, tol, True)
    assert n_bad == 0 and out is not None
    return out


def _reduce(s: np.ndarray, w: np.ndarray | None, reduction: str) -> float:
    if w is None:
        return float(s.sum() if reduction == "sum" else s.mean())
    total = float(np.sum(np.where(w > 0, w * s, 0.0)))
    return total if reduction == "sum" else total / float(w.sum())


def test_every_registered_rule_has_a_record():
    names = om.list_metrics("scoring_rule")
    assert list(RULES) == names
    for name in names:
        rule = get_rule(name)
        assert rule.name == name
        assert om.get_metric(name).func is rule.func
        assert isinstance(rule.pack(), float)


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
@pytest.mark.parametrize("k", [2, 3, 6])
def test_kernel_and_numpy_formula_agree(name: str, options: dict[str, Any], k: int) -> None:
    rule = get_rule(name)
    param = rule.pack(**options)
    y, P, w = _data(k)
    by_kernel = _kernel_rows(rule, y, P, param)
    by_formula = np.asarray(rule.formula(xp_numpy, P, y, param))
    np.testing.assert_allclose(by_formula, by_kernel, rtol=RTOL, atol=ATOL)
    # the public function (kernel path) gives the kernel's rows and reduces them
    f = _public(rule, options)
    np.testing.assert_array_equal(f(y, P, reduction="none", **options), by_kernel)
    for reduction in ("mean", "sum"):
        for weights in (None, w):
            got = f(y, P, sample_weight=weights, reduction=reduction, **options)
            want = _reduce(by_formula, weights, reduction)
            assert got == pytest.approx(want, rel=RTOL, abs=ATOL), (reduction, weights is None)


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
@pytest.mark.parametrize("k", [2, 3, 6])
def test_torch_formula_and_device_path_agree(name: str, options: dict[str, Any], k: int) -> None:
    torch = pytest.importorskip("torch")
    xp_torch = pytest.importorskip("array_api_compat.torch")
    rule = get_rule(name)
    param = rule.pack(**options)
    y, P, w = _data(k, seed=1)
    by_kernel = _kernel_rows(rule, y, P, param)
    yt, Pt, wt = torch.from_numpy(y), torch.from_numpy(P), torch.from_numpy(w)
    by_torch = rule.formula(xp_torch, Pt, yt, param)
    assert isinstance(by_torch, torch.Tensor) and by_torch.dtype == torch.float64
    np.testing.assert_allclose(by_torch.numpy(), by_kernel, rtol=RTOL, atol=ATOL)
    f = _public(rule, options)
    rows = f(yt, Pt, reduction="none", **options)
    np.testing.assert_allclose(rows.numpy(), by_kernel, rtol=RTOL, atol=ATOL)
    for reduction in ("mean", "sum"):
        for weights, weights_t in ((None, None), (w, wt)):
            got = f(yt, Pt, sample_weight=weights_t, reduction=reduction, **options)
            want = f(y, P, sample_weight=weights, reduction=reduction, **options)
            assert float(got) == pytest.approx(want, rel=RTOL, abs=ATOL), (reduction, weights)


@pytest.mark.parametrize("name", om.list_metrics("scoring_rule"))
def test_torch_formula_is_differentiable(name: str) -> None:
    torch = pytest.importorskip("torch")
    xp_torch = pytest.importorskip("array_api_compat.torch")
    rule = get_rule(name)
    y, P, _ = _data(4, n=40, seed=2)
    logits = torch.log(torch.from_numpy(P)).requires_grad_(True)
    s = rule.formula(xp_torch, torch.softmax(logits, dim=1), torch.from_numpy(y), rule.pack())
    s.sum().backward()
    assert logits.grad is not None and bool(torch.isfinite(logits.grad).all())


def test_unknown_rules_are_rejected():
    y, P, _ = _data(3, n=10)
    with pytest.raises(ValueError, match=r"unknown scoring rule 'accuracy'.*'rps'"):
        get_rule("accuracy")
    with pytest.raises(ValueError, match="unknown scoring rule"):
        get_rule("pseudo_spherical")
    common = {
        "labels": None,
        "sample_weight": None,
        "nan_policy": "raise",
        "reduction": "mean",
        "renormalize": False,
        "param": 0.0,
    }
    for bad in (99, 0, "rps", None):
        with pytest.raises(TypeError, match="rule must be a ScoringRule record"):
            evaluate(bad, y, P, **common)
        with pytest.raises(TypeError, match="rule must be a ScoringRule record"):
            kernels.score_rows(P, y, None, 1.0, bad, 0.0, 1e-6, False)
        with pytest.raises(TypeError, match="rule must be a ScoringRule record"):
            array_api.evaluate(bad, y, P, **common)


def test_options_are_checked_by_the_record():
    with pytest.raises(ValueError, match="ties"):
        get_rule("pbs").pack(ties="lowest")
    with pytest.raises(ValueError, match="scale"):
        get_rule("pbs").pack(scale="eq5")
    with pytest.raises(TypeError, match="normalize"):
        get_rule("rps").pack(normalize="yes")
    with pytest.raises(ValueError, match="eps"):
        get_rule("log_loss").pack(eps=0.7)
    with pytest.raises(ValueError, match="alpha"):
        get_rule("spherical").pack(alpha=1.0)
    assert get_rule("pbs").pack(ties="unpenalized", scale="algorithm2") == 3.0
    assert get_rule("spherical").pack() == 2.0


_CALL_EVERY_RULE = """
import sys
import numpy as np
import ordmetrics as om
from ordmetrics._core import jit

compiled = []
jit.set_compile_hook(compiled.append)
P = np.array([[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])
y = np.array([1, 0])
w = np.array([1.0, 2.0])
for name in om.list_metrics("scoring_rule"):
    f = getattr(om, name)
    f(y, P)
    f(y, P, reduction="none")
    f(y, P, sample_weight=w)
    f(y, P.astype(np.float32))
print("UNCACHED" if jit.cache_disabled() else "CACHED")
print(";".join(c for c in compiled if ".metrics.scoring." in c))
"""


def test_rule_kernels_load_from_the_disk_cache():
    """A new process after a warm cache compiles no rule kernel (numba's cache=True works)."""
    import subprocess
    import sys

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", _CALL_EVERY_RULE], capture_output=True, text=True, check=True
        )
        return done.stdout.splitlines()

    first = run()  # compiles whatever is not cached yet
    if first[0] == "UNCACHED":
        pytest.skip("no writable numba cache directory here")
    second = run()
    assert second == ["CACHED", ""], f"recompiled in a new process: {second[1:]}"
