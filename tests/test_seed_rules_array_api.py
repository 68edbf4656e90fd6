"""The new rules and the PBS/PLL options on PyTorch tensors agree with the NumPy kernels."""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om

torch = pytest.importorskip("torch")

CASES = [
    ("pbs", {}),
    ("pbs", {"ties": "unpenalized"}),
    ("pbs", {"scale": "algorithm2"}),
    ("pbs", {"scale": "authors_code", "ties": "unpenalized"}),
    ("pll", {}),
    ("pll", {"ties": "unpenalized"}),
    ("spherical", {}),
    ("pseudospherical", {"alpha": 3.0}),
    ("pseudospherical", {"alpha": 1.5}),
    ("cdf_l1", {}),
    ("cdf_l1", {"normalize": False}),
]


def tied_data(rng, n, k):
    P = rng.dirichlet(np.ones(k), size=n)
    P[: n // 4] = np.round(P[: n // 4] * 3) / 3
    P[: n // 4] /= P[: n // 4].sum(axis=1, keepdims=True)
    P[: n // 8] = 1 / k  # uniform rows: ties everywhere
    y = rng.integers(0, k, size=n)
    P[np.arange(n), y] = np.maximum(P[np.arange(n), y], 1e-3)
    P /= P.sum(axis=1, keepdims=True)
    return y, P


@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("k", [2, 3, 6])
def test_torch_matches_numpy(name, options, k):
    rng = np.random.default_rng(k)
    y, P = tied_data(rng, 1100, k)
    w = rng.uniform(0.0, 2.0, size=y.size)
    f = getattr(om, name)
    want = f(y, P, reduction="none", **options)
    got = f(torch.from_numpy(y), torch.from_numpy(P), reduction="none", **options)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-15)
    mean = f(torch.from_numpy(y), torch.from_numpy(P), sample_weight=torch.from_numpy(w), **options)
    assert float(mean) == pytest.approx(f(y, P, sample_weight=w, **options), rel=1e-12)


def test_torch_penalty_follows_decide():
    P = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]], dtype=torch.float64)
    y = torch.tensor([0, 1, 2])
    s = om.pbs(y, P, reduction="none") - om.brier(y, P, reduction="none")
    np.testing.assert_allclose(s.numpy(), [0.0, 2 / 3, 2 / 3], rtol=1e-15)
    s = om.pbs(y, P, reduction="none", ties="unpenalized") - om.brier(y, P, reduction="none")
    np.testing.assert_allclose(s.numpy(), [0.0, 0.0, 0.0], atol=1e-15)


def test_torch_pseudospherical_large_alpha():
    P = torch.tensor([[0.6, 0.4], [0.6, 0.4], [0.5, 0.5]], dtype=torch.float64)
    y = torch.tensor([0, 1, 1])
    got = om.pseudospherical(y, P, alpha=2000.0, reduction="none").numpy()
    want = om.pseudospherical(y.numpy(), P.numpy(), alpha=2000.0, reduction="none")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
