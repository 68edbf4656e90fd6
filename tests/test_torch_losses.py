"""The PyTorch losses: equal to the NumPy scoring rules, correct gradients, clear errors."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ordmetrics  # noqa: E402
import ordmetrics.torch as omt  # noqa: E402
from conftest import ref_scores  # noqa: E402
from ordmetrics.torch import RPSLoss, SARPSLoss, rps_loss, sa_rps_loss  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LOSSES = {"rps": rps_loss, "sa_rps": sa_rps_loss}
CORE = {"rps": ordmetrics.rps, "sa_rps": ordmetrics.sa_rps}


def _batch(rng: np.random.Generator, n: int, k: int, scale: float = 2.0):
    logits = torch.as_tensor(rng.normal(scale=scale, size=(n, k)), dtype=torch.float64)
    target = torch.as_tensor(rng.integers(0, k, size=n))
    return logits, target


def _proba(logits: torch.Tensor) -> np.ndarray:
    return torch.softmax(logits, dim=1).numpy()


def test_module_imports_the_real_torch():
    # the implementation behind the public entry point ordmetrics.torch imports the real torch
    import ordmetrics.integrations.torch as impl

    assert impl.torch is sys.modules["torch"]
    assert hasattr(impl.torch, "nn") and impl.torch.__name__ == "torch"
    assert omt.rps_loss is impl.rps_loss


# --------------------------------------------------------------------------------------------
# Values: equal to the NumPy scoring rules (float64)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["rps", "sa_rps"])
@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("from_logits", [True, False])
def test_per_sample_losses_equal_the_numpy_rules(rng, rule, k, from_logits):
    logits, target = _batch(rng, 64, k)
    P = _proba(logits)
    x = logits if from_logits else torch.as_tensor(P)
    got = LOSSES[rule](x, target, from_logits=from_logits, reduction="none")
    assert got.dtype == torch.float64 and got.shape == (64,)
    want = CORE[rule](target.numpy(), P, reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=0, atol=1e-12)
    # and the literal loops of the test suite's reference
    np.testing.assert_allclose(got.numpy(), ref_scores(rule, target.numpy(), P), atol=1e-12)


@pytest.mark.parametrize("rule", ["rps", "sa_rps"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("from_logits", [True, False])
def test_reductions_equal_the_numpy_rules(rng, rule, reduction, weighted, from_logits):
    logits, target = _batch(rng, 50, 4)
    P = _proba(logits)
    w = None
    if weighted:
        w = rng.uniform(0, 3, size=50)
        w[3] = 0.0  # a row of weight 0 does not count
    x = logits if from_logits else torch.as_tensor(P)
    got = LOSSES[rule](x, target, from_logits=from_logits, reduction=reduction, sample_weight=w)
    assert got.ndim == 0 and got.dtype == torch.float64
    want = CORE[rule](target.numpy(), P, reduction=reduction, sample_weight=w)
    assert math.isclose(got.item(), want, rel_tol=0, abs_tol=1e-12)


def test_worked_values_of_the_definitions():
    P = torch.tensor(
        [
            [0.5, 0.5, 0.0],
            [0.5, 0.0, 0.5],
            [0.25, 0.75, 0.0],
            [0.3, 0.4, 0.3],
            [0.45, 0.5, 0.05],
            [0.33, 0.34, 0.33],
            [0.51, 0.49, 0.0],
        ],
        dtype=torch.float64,
    )
    y = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    rps = rps_loss(P, y, from_logits=False, reduction="none")
    sa = sa_rps_loss(P, y, from_logits=False, reduction="none")
    np.testing.assert_allclose(
        rps.numpy(), [0.125, 0.25, 0.28125, 0.09, 0.1025, 0.1089, 0.13005], atol=1e-15
    )
    np.testing.assert_allclose(
        sa.numpy(), [0.0625, 0.25, 0.140625, 0.09, 0.0625, 0.1089, 0.065025], atol=1e-15
    )


@pytest.mark.parametrize("k", [2, 3, 7])
def test_normalize_false_is_the_raw_sum(rng, k):
    logits, target = _batch(rng, 30, k)
    raw = rps_loss(logits, target, normalize=False, reduction="none")
    want = ordmetrics.rps(target.numpy(), _proba(logits), normalize=False, reduction="none")
    np.testing.assert_allclose(raw.numpy(), want, atol=1e-12)
    norm = rps_loss(logits, target, reduction="none")
    np.testing.assert_allclose(raw.numpy(), (k - 1) * norm.numpy(), atol=1e-12)


def test_integer_weights_equal_repeated_rows(rng):
    logits, target = _batch(rng, 12, 5)
    counts = torch.as_tensor(rng.integers(0, 4, size=12))
    counts[0] = 1
    rows = torch.repeat_interleave(torch.arange(12), counts)
    for loss in LOSSES.values():
        for reduction in ("mean", "sum"):
            weighted = loss(logits, target, sample_weight=counts, reduction=reduction)
            repeated = loss(logits[rows], target[rows], reduction=reduction)
            assert math.isclose(weighted.item(), repeated.item(), rel_tol=1e-13)


def test_sa_rps_is_improper_and_rps_is_proper():
    """docs/definitions.md section 5: q = [0.4, 0.2, 0.4]; expectations via frequency weights."""
    q = torch.tensor([0.4, 0.2, 0.4], dtype=torch.float64)
    y = torch.arange(3)

    def expected(loss, p):
        return loss(p.expand(3, 3), y, from_logits=False, sample_weight=q).item()

    point = torch.tensor([0.0, 1.0, 0.0], dtype=torch.float64)
    assert math.isclose(expected(sa_rps_loss, q), 0.232, abs_tol=1e-12)
    assert math.isclose(expected(sa_rps_loss, point), 0.2, abs_tol=1e-12)
    assert math.isclose(expected(rps_loss, q), 0.24, abs_tol=1e-12)
    assert math.isclose(expected(rps_loss, point), 0.4, abs_tol=1e-12)
    assert ordmetrics.get_metric("sa_rps").properties["proper"] is False


def test_float32_input_is_scored_in_float32(rng):
    logits, target = _batch(rng, 40, 5)
    got = rps_loss(logits.float(), target, reduction="none")
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), rps_loss(logits, target, reduction="none"), atol=1e-6)


def test_extreme_logits_are_stable():
    logits = torch.tensor([[1000.0, 0.0, -1000.0], [-800.0, 800.0, 0.0]], dtype=torch.float64)
    target = torch.tensor([0, 1])
    assert rps_loss(logits, target).item() == 0.0
    logits.requires_grad_(True)
    rps_loss(logits, torch.tensor([2, 0])).backward()
    assert torch.isfinite(logits.grad).all()


# --------------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("normalize", [True, False])
def test_gradcheck_rps_from_logits(rng, reduction, normalize):
    logits, target = _batch(rng, 8, 4, scale=1.0)
    logits.requires_grad_(True)
    w = None if reduction == "none" else torch.as_tensor(rng.uniform(0.5, 2, size=8))

    def f(x):
        return rps_loss(x, target, normalize=normalize, reduction=reduction, sample_weight=w)

    assert torch.autograd.gradcheck(f, (logits,))


@pytest.mark.parametrize("loss", ["rps", "sa_rps"])
def test_gradcheck_through_probabilities(rng, loss):
    """from_logits=False: the gradient flows through the probabilities as given."""
    logits, target = _batch(rng, 8, 5, scale=1.0)
    logits.requires_grad_(True)

    def f(x):
        return LOSSES[loss](torch.softmax(x, dim=1), target, from_logits=False)

    assert torch.autograd.gradcheck(f, (logits,))


def test_gradcheck_sa_rps_away_from_kinks(rng):
    # with logits every F_k lies strictly in (0, 1), so no |F_k - H_k| is 0
    logits, target = _batch(rng, 8, 6, scale=1.0)
    logits.requires_grad_(True)
    for reduction in ("mean", "sum", "none"):
        assert torch.autograd.gradcheck(
            lambda x, r=reduction: sa_rps_loss(x, target, reduction=r), (logits,)
        )


def test_rps_gradient_in_the_probabilities_is_the_closed_form(rng):
    """d RPS / d p_j = 2/(K-1) * sum_{k >= j, k < K-1} (F_k - H_k), 0-based."""
    k = 5
    P = torch.as_tensor(rng.dirichlet(np.ones(k), size=6), dtype=torch.float64)
    P.requires_grad_(True)
    y = torch.as_tensor(rng.integers(0, k, size=6))
    rps_loss(P, y, from_logits=False, reduction="sum").backward()
    F = np.cumsum(P.detach().numpy(), axis=1)[:, : k - 1]
    H = (y.numpy()[:, None] <= np.arange(k - 1)).astype(float)
    d = F - H
    want = np.zeros((6, k))
    for j in range(k):
        want[:, j] = 2.0 / (k - 1) * d[:, j:].sum(axis=1)
    np.testing.assert_allclose(P.grad.numpy(), want, atol=1e-14)


def test_sa_rps_subgradient_at_a_kink():
    """torch differentiates |x| as sign(x): the subgradient 0 where F_k = H_k."""
    p = torch.tensor([[0.0, 0.5, 0.5]], dtype=torch.float64, requires_grad=True)
    # y = 1: F = [0, 0.5], H = [0, 1]; d = [0, -0.5] (a kink in the first term)
    loss = sa_rps_loss(p, torch.tensor([1]), from_logits=False)
    assert loss.item() == 0.0625
    loss.backward()
    # s = (m)^2, m = (|d0| + |d1|) / 2 = 0.25; ds/dF0 = 2 m sign(0) / 2 = 0, ds/dF1 = -0.25
    np.testing.assert_array_equal(p.grad.numpy(), [[-0.25, -0.25, 0.0]])


# --------------------------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------------------------


def test_modules_equal_the_functions(rng):
    logits, target = _batch(rng, 20, 4)
    w = torch.as_tensor(rng.uniform(0, 1, size=20))
    assert RPSLoss()(logits, target).item() == rps_loss(logits, target).item()
    assert (
        RPSLoss(normalize=False, reduction="sum")(logits, target, w).item()
        == rps_loss(logits, target, normalize=False, reduction="sum", sample_weight=w).item()
    )
    P = torch.softmax(logits, 1)
    assert torch.equal(
        SARPSLoss(from_logits=False, reduction="none")(P, target),
        sa_rps_loss(P, target, from_logits=False, reduction="none"),
    )
    assert repr(RPSLoss()) == "RPSLoss(from_logits=True, normalize=True, reduction='mean')"
    assert repr(SARPSLoss(reduction="sum")) == "SARPSLoss(from_logits=True, reduction='sum')"
    with pytest.raises(ValueError, match="reduction must be one of"):
        RPSLoss(reduction="avg")
    with pytest.raises(TypeError, match="from_logits must be True or False"):
        SARPSLoss(from_logits="yes")


def test_training_with_the_module_reduces_the_loss(rng):
    torch.manual_seed(0)
    X = torch.as_tensor(rng.normal(size=(100, 3)))
    y = torch.as_tensor(np.digitize(X[:, 0].numpy(), [-0.8, 0.0, 0.8]))
    model = torch.nn.Linear(3, 4).double()
    criterion = RPSLoss()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    first = criterion(model(X), y).item()
    for _ in range(40):
        opt.zero_grad()
        loss = criterion(model(X), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

P3 = torch.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype=torch.float64)
Y2 = torch.tensor([0, 2])


@pytest.mark.parametrize("loss", [rps_loss, sa_rps_loss])
@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((P3, torch.tensor([0, 3])), {}, ValueError, r"class indices 0\.\.2 .* got 3 in row 1"),
        ((P3, torch.tensor([-1, 0])), {}, ValueError, r"got -1 in row 0"),
        ((P3, torch.tensor([0, 1, 2])), {}, ValueError, r"target must have shape \(N,\) = \(2,\)"),
        ((P3, torch.tensor([[0], [1]])), {}, ValueError, "target must have shape"),
        ((P3, torch.tensor([0.0, 2.0])), {}, TypeError, r"integer tensor .* target\.long\(\)"),
        ((P3, torch.tensor([True, False])), {}, TypeError, "integer tensor"),
        ((P3, [0, 2]), {}, TypeError, "target must be a torch.Tensor"),
        ((P3.numpy(), Y2), {}, TypeError, "input must be a torch.Tensor"),
        ((torch.tensor([[1, 0], [0, 1]]), Y2), {}, TypeError, "floating-point"),
        ((P3[0], Y2[:1]), {}, ValueError, r"shape \(N, K\)"),
        ((P3[:, :1], Y2), {}, ValueError, "at least 2 classes"),
        ((P3[:0], Y2[:0]), {}, ValueError, "no rows"),
        (
            (torch.tensor([[0.2, 0.3, 0.6], [0.1, 0.1, 0.8]]), Y2),
            {"from_logits": False},
            ValueError,
            r"must sum to 1 .*row 0 sums to 1\.1",
        ),
        (
            (torch.tensor([[1.2, -0.2, 0.0], [0.1, 0.1, 0.8]]), Y2),
            {"from_logits": False},
            ValueError,
            r"\[0, 1\]; values outside it in row 0 .* from_logits=True",
        ),
        (
            (torch.tensor([[0.0, float("nan"), 1.0], [1.0, 2.0, 3.0]]), Y2),
            {},
            ValueError,
            r"non-finite values \(NaN or inf\) in row 0",
        ),
        ((P3, Y2), {"reduction": "avg"}, ValueError, "reduction must be one of"),
        ((P3, Y2), {"from_logits": 1}, TypeError, "from_logits must be True or False"),
        (
            (P3, Y2),
            {"reduction": "none", "sample_weight": torch.ones(2)},
            ValueError,
            "no effect with reduction='none'",
        ),
        ((P3, Y2), {"sample_weight": torch.ones(3)}, ValueError, r"shape \(N,\) = \(2,\)"),
        ((P3, Y2), {"sample_weight": [1.0, -1.0]}, ValueError, "non-negative .* row 1"),
        ((P3, Y2), {"sample_weight": [1.0, math.inf]}, ValueError, "must be finite"),
        ((P3, Y2), {"sample_weight": [0.0, 0.0]}, ValueError, "sums to 0"),
        ((P3, Y2), {"sample_weight": [True, False]}, TypeError, "real numbers"),
    ],
)
def test_errors(loss, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        loss(*args, **kwargs)


def test_zero_weights_are_fine_for_a_sum():
    assert rps_loss(P3, Y2, reduction="sum", sample_weight=[0.0, 0.0]).item() == 0.0


def test_float32_probabilities_within_the_float32_tolerance(rng):
    P = torch.softmax(torch.as_tensor(rng.normal(size=(200, 20)), dtype=torch.float32), dim=1)
    y = torch.as_tensor(rng.integers(0, 20, size=200))
    rps_loss(P, y, from_logits=False)  # float32 row sums are off by ~1e-7: accepted


# --------------------------------------------------------------------------------------------
# The example
# --------------------------------------------------------------------------------------------


def test_example_train_rps_vs_ce_runs():
    pytest.importorskip("sklearn")
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_rps_vs_ce.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "cross_entropy" in out.stdout and "rps_loss" in out.stdout
    assert "seeds where the RPS loss is better" in out.stdout
    assert time.perf_counter() - start < 60
