"""The registry: specs, look-up, listing, and the README table that documents it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
from ordmetrics._core.registry import (
    K_PROPERTY_NAMES,
    PROPERTY_NAMES,
    MetricSpec,
    Variant,
    register,
)

README = Path(__file__).resolve().parents[1] / "README.md"
RULES = ordmetrics.list_metrics("scoring_rule")


def test_the_rules_are_registered_in_order():
    assert RULES == [
        "rps",
        "sa_rps",
        "brier",
        "log_loss",
        "pbs",
        "pll",
        "spherical",
        "cdf_l1",
    ]
    assert set(RULES) <= set(ordmetrics.list_metrics())
    with pytest.raises(ValueError, match=r"kind must be one of 'scoring_rule', .*'no_such_kind'"):
        ordmetrics.list_metrics("no_such_kind")


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


@pytest.mark.parametrize("name", RULES)
def test_variants_and_properties_by_k_are_well_formed(name):
    spec = ordmetrics.get_metric(name)
    for k, props in spec.properties_by_k.items():
        assert k >= 2 and set(props) <= set(K_PROPERTY_NAMES)
    for label, v in spec.variants.items():
        assert isinstance(v, Variant) and set(v.properties) == set(PROPERTY_NAMES)
        assert v.note
        for option, value in v.options.items():
            assert f"{option}={value!r}" == label  # one option per variant, named by it
        y, p = [0, 1], [[0.5, 0.5], [0.5, 0.5]]
        assert np.all(np.isfinite(spec(y, p, reduction="none", **v.options)))
    assert set(spec.properties_for(2)) == set(K_PROPERTY_NAMES)


def test_penalized_rules_declare_their_variants():
    for name in ("pbs", "pll"):
        spec = ordmetrics.get_metric(name)
        assert spec.properties["strictly_proper"] and spec.properties["superior"]
        unp = spec.variants["ties='unpenalized'"]
        assert not unp.properties["proper"] and not unp.properties["superior"]
    assert set(ordmetrics.get_metric("pbs").variants) == {
        "ties='unpenalized'",
        "scale='algorithm2'",
        "scale='authors_code'",
    }
    for name in ("brier", "log_loss"):
        spec = ordmetrics.get_metric(name)
        assert spec.properties_for(2)["superior_without_ties"] is True
        assert spec.properties_for(3)["superior_without_ties"] is False
        assert spec.properties_for(2)["superior"] is False  # the exact tie [1/2, 1/2]


def test_register_rejects_bad_k_properties_and_variants():
    with pytest.raises(ValueError, match="properties_by_k"):
        register(
            lambda: 0,
            direction="minimize",
            range=(0, 1),
            kind="other",
            name="z_tmp",
            properties_by_k={2: {"nonsense": True}},
        )
    with pytest.raises(ValueError, match="must declare"):
        register(
            lambda: 0,
            direction="minimize",
            range=(0, 1),
            kind="other",
            name="z_tmp2",
            variants={"a=1": Variant(options={"a": 1}, properties={"proper": True})},
        )


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
