"""The registry: specs, look-up, listing, and the README table that documents it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
from ordmetrics._registry import PROPERTY_NAMES, MetricSpec, register

README = Path(__file__).resolve().parents[1] / "README.md"
RULES = ordmetrics.list_metrics("scoring_rule")


def test_the_six_rules_are_registered_in_order():
    assert RULES == ["rps", "sa_rps", "brier", "log_loss", "pbs", "pll"]
    assert set(RULES) <= set(ordmetrics.list_metrics())
    assert ordmetrics.list_metrics("no_such_kind") == []


@pytest.mark.parametrize("name", RULES)
def test_spec_fields(name):
    spec = ordmetrics.get_metric(name)
    assert isinstance(spec, MetricSpec)
    assert spec.name == name
    assert spec.func is getattr(ordmetrics, name)
    assert spec.direction == "minimize" and not spec.greater_is_better
    assert spec.kind == "scoring_rule"
    assert spec.perfect == 0.0
    assert set(spec.properties) == set(PROPERTY_NAMES)
    assert all(isinstance(v, bool) for v in spec.properties.values())
    lo, hi = spec.range
    assert lo == 0.0 and hi > 0


@pytest.mark.parametrize("name", RULES)
def test_spec_is_callable_and_read_only(name):
    spec = ordmetrics.get_metric(name)
    y, p = [0, 1], [[0.6, 0.4], [0.3, 0.7]]
    assert spec(y, p) == getattr(ordmetrics, name)(y, p)
    with pytest.raises(TypeError):
        spec.properties["proper"] = True  # type: ignore[index]
    assert ordmetrics.get_metric(spec) is spec


@pytest.mark.parametrize("name", RULES)
def test_scores_stay_in_the_declared_range(name):
    rng = np.random.default_rng(3)
    for k in (2, 3, 7):
        p = rng.dirichlet(np.full(k, 0.3), 500)
        p[:5] = np.eye(k)[rng.integers(0, k, 5)]  # point masses, right or wrong
        y = rng.integers(0, k, 500)
        s = ordmetrics.get_metric(name)(y, p, reduction="none")
        lo, hi = ordmetrics.get_metric(name).range
        assert np.all(s >= lo) and np.all(s <= hi)


def test_pbs_range_bound_depends_on_k():
    # The largest PBS for K classes is 2 + (K-1)/K: all mass on a wrong class.
    for k in (2, 5, 10):
        p = np.zeros((1, k))
        p[0, 1] = 1.0
        assert ordmetrics.pbs([0], p) == pytest.approx(2 + (k - 1) / k)


def test_sa_rps_is_declared_improper():
    assert ordmetrics.get_metric("sa_rps").properties["proper"] is False


def test_unknown_metric_suggests_close_names():
    with pytest.raises(ValueError, match=r"unknown metric 'rsp'.*Did you mean 'rps'"):
        ordmetrics.get_metric("rsp")
    with pytest.raises(TypeError, match="metric name must be a string"):
        ordmetrics.get_metric(3)  # type: ignore[arg-type]


def test_register_rejects_bad_specs():
    with pytest.raises(ValueError, match="already registered"):
        register(ordmetrics.rps, direction="minimize", range=(0, 1), kind="other")
    with pytest.raises(ValueError, match="direction must be"):
        register(lambda: 0, direction="lower", range=(0, 1), kind="other", name="x_tmp")
    with pytest.raises(ValueError, match="must declare"):
        register(lambda: 0, direction="minimize", range=(0, 1), kind="scoring_rule", name="y_tmp")


def _readme_rule_table() -> dict[str, dict[str, object]]:
    rows = {}
    for line in README.read_text().splitlines():
        m = re.match(r"^\| `(\w+)` \|", line)
        if not m:
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        name, _formula, rng, *flags = cells
        name = name.strip("`")
        rows[name] = {"range": rng, "flags": [f.rstrip("*") == "yes" for f in flags]}
    return rows


def test_readme_table_agrees_with_the_registry():
    table = _readme_rule_table()
    assert list(table) == RULES
    for name, row in table.items():
        spec = ordmetrics.get_metric(name)
        assert row["flags"] == [spec.properties[p] for p in PROPERTY_NAMES], name
        lo, hi = spec.range
        shown = row["range"]
        assert shown.startswith(f"[{lo:g}, ")
        if math.isinf(hi):
            assert shown.endswith("inf]")
