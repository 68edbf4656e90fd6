"""The cases of the common test suite, generated from the metric registry.

Nothing here names a metric: every case is derived from ``ordmetrics.list_metrics()``, the
fields of each :class:`~ordmetrics.MetricSpec` (``input``, ``accumulates``, ``variants``, ...)
and the signature of its function (``inspect.signature``). A newly registered metric gets every
common test by registering.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import ordmetrics as om

METRICS = om.list_metrics()

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def spec(name: str) -> Any:
    return om.get_metric(name)


def parameters(name: str) -> dict[str, inspect.Parameter]:
    """The parameters of the metric's public function."""
    return dict(inspect.signature(spec(name).func).parameters)


def takes(name: str, parameter: str) -> bool:
    return parameter in parameters(name)


def prediction_argument(name: str) -> str:
    """The name of the second positional parameter: what the metric is computed from."""
    return list(parameters(name))[1]


def _option_cases(name: str) -> list[tuple[dict[str, Any], str]]:
    """The option settings worth their own case: the registered variants, and the other
    binning of a metric whose signature has ``strategy`` (another code path)."""
    cases = [(dict(v.options), f"{name}-{key}") for key, v in spec(name).variants.items()]
    if takes(name, "strategy") and takes(name, "n_bins"):
        cases.append(({"strategy": "quantile", "n_bins": 3}, f"{name}-quantile"))
    return cases


#: Every metric with its defaults, plus its registered variants and other code paths.
VARIANTS = [pytest.param(n, {}, id=n) for n in METRICS] + [
    pytest.param(n, options, id=ident) for n in METRICS for options, ident in _option_cases(n)
]

#: Every metric with its defaults and its registered variants (the options the fronts take).
REGISTERED = [pytest.param(n, {}, id=n) for n in METRICS] + [
    pytest.param(n, dict(v.options), id=f"{n}-{key}")
    for n in METRICS
    for key, v in spec(n).variants.items()
]


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def make_proba(rng: np.random.Generator, n: int, k: int, flavour: str) -> np.ndarray:
    """``n`` probability rows of ``k`` classes, every entry positive."""
    if flavour == "dirichlet":
        return rng.dirichlet(np.ones(k), size=n)
    total = 10 if flavour == "tenths" else 64
    total = max(total, k)
    # k positive integer parts of ``total`` per row: sorted distinct cut points
    cuts = np.sort(
        np.array([rng.choice(np.arange(1, total), size=k - 1, replace=False) for _ in range(n)]),
        axis=1,
    )
    edges = np.concatenate([np.zeros((n, 1)), cuts, np.full((n, 1), total)], axis=1)
    return np.diff(edges, axis=1) / total


@st.composite
def datasets(draw: Callable[..., Any], flavours=("dirichlet", "tenths", "dyadic")) -> dict:
    n = draw(st.integers(2, 40))
    k = draw(st.integers(2, 8))
    flavour = draw(st.sampled_from(flavours))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = make_proba(rng, n, k, flavour)
    w = rng.uniform(0.1, 10.0, size=n)
    return {"y": y, "P": P, "w": w, "k": k, "rng": rng}


def fixed_data(seed: int = 7, n: int = 30, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """One data set with every class present in the truth and in the arg-max decisions."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = make_proba(rng, n, k, "dirichlet")
    y[:k] = np.arange(k)
    P[:k] = 0.7 * np.eye(k) + 0.3 / k  # rows whose arg-max is their class
    return y, P


#: Rows just past the scoring kernels' block of 1024 rows.
BLOCK_N = 1100


def block_data(seed: int = 7, n: int = BLOCK_N, k: int = 4):
    """``n`` Dirichlet rows (past the kernels' block) with weights in [0.05, 1]."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    P = rng.dirichlet(np.ones(k), size=n)
    w = rng.uniform(0.05, 1.0, size=n)
    return y, P, w


# --------------------------------------------------------------------------------------------
# Calls
# --------------------------------------------------------------------------------------------


def prediction(name: str, P: np.ndarray) -> np.ndarray:
    """What the metric takes as second argument, made from the probabilities by its input kind:
    the arg-max decisions for ``decisions``, the probabilities themselves otherwise (a metric of
    ``scores`` reads an N x K matrix as probabilities: the expected grade)."""
    if spec(name).input == "decisions":
        return om.decide(P, "argmax")
    return P


def arguments(name: str, y: np.ndarray, P: np.ndarray, k: int) -> tuple[tuple, dict]:
    """The positional and keyword arguments of metric ``name`` for truth ``y`` and ``P``."""
    if spec(name).input == "decisions":
        return (y, prediction(name, P)), {"labels": list(range(k))}
    return (y, P), {}


def compute(name: str, y, P, k, w=None, options=None) -> Any:
    args, kwargs = arguments(name, y, P, k)
    kwargs.update(options or {})
    if w is not None:
        kwargs["sample_weight"] = w
    return spec(name)(*args, **kwargs)


def repetition_tolerance(name: str) -> float:
    """Integer weights against repeated rows: exact for metrics of weighted counts (a confusion
    matrix of integer weights holds the same integers as that of the repeated rows)."""
    return 0.0 if spec(name).accumulates == "confusion_matrix" else 1e-12


def assert_close(got: Any, expected: Any, rel: float, abs_: float = 0.0, what: str = "") -> None:
    got, expected = float(got), float(expected)
    if math.isnan(expected) or math.isnan(got):
        assert math.isnan(expected) and math.isnan(got), f"{what}: {got!r} vs {expected!r}"
        return
    if rel == 0 and abs_ == 0:
        assert got == expected, f"{what}: {got!r} vs {expected!r}"
        return
    assert got == pytest.approx(expected, rel=rel, abs=abs_), f"{what}: {got!r} vs {expected!r}"


#: Metrics computed on a ranking of the rows (kind "retention": the area under a retention
#: curve) cut that ranking: tied rows are cut by their position, and integer weights by whole
#: units (fractional weights by fractions of a row), as their docstrings state. They are left
#: out of the properties that permute rows or turn integer weights into fractional ones;
#: tests/test_retention.py checks them where they hold (no ties, weights of one kind).
ORDER_INVARIANT = [n for n in METRICS if spec(n).kind != "retention"]
