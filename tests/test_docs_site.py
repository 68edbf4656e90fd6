"""The documentation site (docs/): its pages stay in step with the code.

The site itself is built by ``make docs`` (Sphinx, warnings as errors, doctests of the
migration page). These tests are the fast part that runs with the suite: the API reference
lists every public name, the worked values and counterexamples of the definitions page are the
library's numbers, the user guide's ``python`` code blocks run, the equivalences stated on the
migration page hold against the other libraries where they are installed, and the screenshots
of a built site (``python docs/screenshots.py``) are not blank.
"""

from __future__ import annotations

import importlib
import re
import warnings
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import ordmetrics as om

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = sorted((DOCS / "user_guide").glob("*.md"))

#: Public submodules whose ``__all__`` the API reference documents (constants are described
#: in prose on the page, so only callables and classes are required to have an entry).
SUBMODULES = (
    "ordmetrics.plot",
    "ordmetrics.datasets",
    "ordmetrics.sklearn",
    "ordmetrics.stream",
    "ordmetrics.dask",
    "ordmetrics.torch",
    "ordmetrics.callbacks",
    "ordmetrics.model_selection",
)


def _autosummary_entries(text: str) -> set[str]:
    """Fully qualified names listed in the autosummary blocks of an rst page."""
    names, module, in_block = set(), "ordmetrics", False
    for line in text.splitlines():
        if m := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = m.group(1)
        if line.startswith(".. autosummary::"):
            in_block = True
            continue
        if in_block:
            if line.strip().startswith(":") or not line.strip():
                if not line.strip() and names and not in_block:
                    break
                continue
            if not line.startswith("   "):
                in_block = False
                continue
            names.add(f"{module}.{line.strip()}")
    return names


def test_api_reference_lists_every_public_name():
    listed = _autosummary_entries((DOCS / "api" / "index.rst").read_text(encoding="utf-8"))
    expected = {
        f"ordmetrics.{name}"
        for name in om.__all__
        if callable(getattr(om, name)) and not name.startswith("_")
    }
    for modname in SUBMODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:  # an optional framework is absent: its page is mocked there
            continue
        public = list(getattr(module, "__all__", []))
        if modname == "ordmetrics.callbacks":
            public += ["KerasOrdmetricsCallback", "LightningOrdmetricsCallback"]
        for name in public:
            if name in {"KerasOrdmetricsCallback", "LightningOrdmetricsCallback"} or callable(
                getattr(module, name)
            ):
                expected.add(f"{modname}.{name}")
    assert sorted(expected - listed) == []
    api_text = (DOCS / "api" / "index.rst").read_text(encoding="utf-8")
    assert repr(om.DEFAULT_METRICS).replace("'", '"') in api_text


def _worked_values() -> list[tuple[list[float], int, list[float]]]:
    text = (DOCS / "definitions.md").read_text(encoding="utf-8")
    section = text.split("### Worked values")[1].split("\n## ")[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].startswith("["):
            rows.append((eval(cells[0]), int(cells[1]), [float(c) for c in cells[2:]]))
    return rows


def test_definitions_worked_values_are_the_library_values():
    rows = _worked_values()
    assert len(rows) == 7
    for p, y, expected in rows:
        got = [om.rps([y], [p]), om.sa_rps([y], [p]), om.brier([y], [p])]
        got += [om.pbs([y], [p]), om.pll([y], [p])]
        np.testing.assert_allclose(got, expected, rtol=0, atol=5e-9, err_msg=str(p))


def _expected(rule, p, q):
    return sum(qy * rule([y], [p]) for y, qy in enumerate(q))


def test_definitions_counterexamples_and_errata():
    text = (DOCS / "definitions.md").read_text(encoding="utf-8")
    q = [0.4, 0.2, 0.4]
    assert _expected(om.sa_rps, q, q) == pytest.approx(0.232, abs=1e-12)
    assert _expected(om.sa_rps, [0, 1, 0], q) == pytest.approx(0.2, abs=1e-12)
    assert _expected(om.rps, q, q) == pytest.approx(0.24, abs=1e-12)
    assert _expected(om.rps, [0, 1, 0], q) == pytest.approx(0.4, abs=1e-12)
    assert _expected(om.cdf_l1, q, q) == pytest.approx(0.48, abs=1e-12)
    assert _expected(om.cdf_l1, [0, 1, 0], q) == pytest.approx(0.4, abs=1e-12)
    # PBS/PLL: the paper's tie rule lets a tie beat the honest forecast; the default does not
    q = [8 / 11, 3 / 11]
    for ties in ("argmax", "unpenalized"):
        assert round(_expected(partial(om.pbs, ties=ties), q, q), 3) == 0.533
        assert round(_expected(partial(om.pll, ties=ties), q, q), 3) == 0.775
    unpenalized = partial(om.pbs, ties="unpenalized")
    assert _expected(unpenalized, [0.5, 0.5], q) == pytest.approx(0.5, abs=1e-12)
    assert round(_expected(partial(om.pll, ties="unpenalized"), [0.5, 0.5], q), 3) == 0.693
    assert round(_expected(om.pbs, [0.5, 0.5], q), 3) == 0.636
    assert round(_expected(om.pll, [0.5, 0.5], q), 3) == 0.882
    for rule in ("pbs", "pll"):
        props = om.get_metric(rule).properties
        assert props["strictly_proper"] and props["superior"]
    assert not om.get_metric("cdf_l1").properties["proper"]
    # Galdran Sect. 2.2: the printed vectors give 0.28125 and 0.5625
    assert om.rps([0], [[0.25, 0.75, 0]]) == pytest.approx(0.28125, abs=1e-12)
    assert om.rps([0], [[0.25, 0, 0.75]]) == pytest.approx(0.5625, abs=1e-12)
    # Eq. 7 with 1/(K-1) outside the square would give 2 for K = 3, all mass on the far class
    assert (np.abs(np.cumsum([0, 0, 1])[:2] - 1).sum()) ** 2 / 2 == 2
    assert om.sa_rps([0], [[0, 0, 1]]) == 1
    # the PBS conversions: Algorithm 2 is Eq. 4 / K; the authors' code brier / K + penalty
    p, k = [[0.25, 0.75, 0]], 3
    pbs, brier = om.pbs([0], p), om.brier([0], p)
    assert pbs / k == pytest.approx(brier / k + (k - 1) / k**2, abs=1e-15)
    assert om.pbs([0], p, scale="algorithm2") == pytest.approx(pbs / k, abs=1e-15)
    assert om.pbs([0], p, scale="authors_code") == pytest.approx(brier / k + pbs - brier)
    for phrase in ("10^{-12}", "T(f) = \\max(1, \\lfloor f W + 1/2 \\rfloor)", "70/97"):
        assert phrase in text, phrase
    assert om.qwk([0, 2, 5], [0, 5, 5]) == pytest.approx(70 / 97, abs=1e-15)
    assert om.decide([[0.03, 0.29, 0.18, 0.5]], "median").tolist() == [2]


def test_docs_do_not_point_outside_the_repository():
    for page in [*DOCS.glob("*.md"), *DOCS.glob("*.rst"), *DOCS.glob("*/*.md")]:
        text = page.read_text(encoding="utf-8")
        for outside in ("/work/", "seeds/", "DEFINITIONS.md", "DESIGN.md"):
            assert outside not in text, (page.name, outside)


def _python_blocks(page: Path) -> list[str]:
    """The fenced ```python blocks of a page (```py blocks are illustrations, not run)."""
    text = page.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", GUIDE, ids=[p.stem for p in GUIDE])
def test_user_guide_code_runs(page, monkeypatch, tmp_path):
    blocks = _python_blocks(page)
    code = "\n".join(blocks)
    for module in ("torch", "sklearn", "pandas", "matplotlib"):
        if re.search(rf"^\s*(import|from) {module}\b", code, flags=re.MULTILINE):
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a solver's convergence warning
        for block in blocks:
            exec(compile(block, str(page), "exec"), namespace)


def test_user_guide_numbers_in_comments():
    ex = importlib.import_module("ordmetrics.datasets").load_diamonds_cut("hgb")
    assert round(om.rps(ex.y_true, ex.y_proba, labels=ex.labels), 5) == 0.05144
    curve = om.retention_curve(ex.y_true, ex.y_proba, labels=ex.labels, by="rps", metric="qwk")
    assert round(curve.area, 4) == 0.9729


# --- the migration page's equivalences against the other libraries ------------------------------


@pytest.fixture(scope="module")
def example():
    ex = importlib.import_module("ordmetrics.datasets").load_diamonds_cut("hgb")
    labels = list(ex.labels)
    y, P = ex.y_true[:2000], ex.y_proba[:2000]
    codes = np.array([labels.index(v) for v in y])
    return SimpleNamespace(y=y, P=P, labels=labels, codes=codes, pred=om.decide(P))


def test_migration_scikit_learn(example):
    metrics = pytest.importorskip("sklearn.metrics")
    y, P, labels, codes, pred = example.y, example.P, example.labels, example.codes, example.pred
    assert sorted(labels) != labels  # the reason the page warns about sorted labels
    close = dict(rel=1e-12, abs=0)
    assert metrics.log_loss(codes, P, labels=range(5)) == pytest.approx(
        om.log_loss(y, P, labels=labels), **close
    )
    assert metrics.brier_score_loss(codes, P, labels=range(5)) == pytest.approx(
        om.brier(codes, P), **close
    )
    y2 = (codes >= 3).astype(int)
    P2 = np.column_stack([P[:, :3].sum(axis=1), P[:, 3:].sum(axis=1)])
    assert metrics.brier_score_loss(y2, P2[:, 1]) == pytest.approx(om.rps(y2, P2), **close)
    for weights, ours in (("quadratic", om.qwk), ("linear", None)):
        sk = metrics.cohen_kappa_score(codes, pred, labels=range(5), weights=weights)
        mine = ours(codes, pred) if ours else om.kappa(codes, pred, weights=weights)
        assert sk == pytest.approx(mine, **close)
    sk6 = metrics.cohen_kappa_score([0, 2, 5], [0, 5, 5], labels=range(6), weights="quadratic")
    assert sk6 == pytest.approx(om.qwk([0, 2, 5], [0, 5, 5]), **close)
    assert metrics.cohen_kappa_score([0, 2, 5], [0, 5, 5], weights="quadratic") == 0.8
    assert metrics.mean_absolute_error(codes, pred) == pytest.approx(om.mae(codes, pred))
    assert metrics.accuracy_score(codes, pred) == pytest.approx(om.accuracy(codes, pred))
    assert metrics.roc_auc_score(y2, P2[:, 1]) == pytest.approx(om.c_index(y2, P2[:, 1]), **close)


def test_migration_yardstick_formulas(example):
    P, codes = example.P, example.codes
    k, n = P.shape[1], len(P)
    onehot = np.eye(k)[codes]
    # yardstick's brier_ind: sum of squared differences over all rows and columns / (2 N)
    brier_ind = ((np.cumsum(onehot, axis=1) - np.cumsum(P, axis=1)) ** 2).sum() / (2 * n)
    assert brier_ind / (k - 1) * 2 == pytest.approx(om.rps(codes, P), rel=1e-12)
    assert ((onehot - P) ** 2).sum() / (2 * n) == pytest.approx(om.brier(codes, P) / 2)
    eps = np.finfo(float).eps
    clipped = np.clip(P, eps, 1 - eps)[np.arange(n), codes]
    assert -np.log(clipped).mean() == pytest.approx(om.log_loss(codes, P, eps=eps), rel=1e-12)
    P0 = P.copy()
    P0[0] = [0, 1, 0, 0, 0]
    P0[1] = [1, 0, 0, 0, 0]
    clipped = np.clip(P0, eps, 1 - eps)[np.arange(n), codes]
    assert -np.log(clipped).mean() == pytest.approx(om.log_loss(codes, P0, eps=eps), rel=1e-12)


def test_migration_yardstick_frames(example):
    pd = pytest.importorskip("pandas")
    y, P, labels = example.y, example.P, example.labels
    df = pd.DataFrame(P, columns=[f"p_{k}" for k in range(5)])
    df["cut"] = pd.Categorical(y, categories=labels, ordered=True)
    df.loc[3, "p_0"] = np.nan
    out = om.evaluate(df, truth="cut", proba="p_", metrics=["rps", "qwk"], nan_policy="omit")
    keep = np.arange(len(P)) != 3
    assert list(out["metric"]) == ["rps", "qwk"]
    assert out["estimate"][0] == pytest.approx(om.rps(y[keep], P[keep], labels=labels))
    decided = om.decide(P[keep], labels=labels)
    assert out["estimate"][1] == pytest.approx(om.qwk(y[keep], decided, labels=labels))
    text = (DOCS / "migration.rst").read_text(encoding="utf-8")
    assert f"0    rps  {out['estimate'][0]:.6f}" in text
    assert f"1    qwk  {out['estimate'][1]:.6f}" in text


def test_migration_scoringrules(example):
    sr = pytest.importorskip("scoringrules")
    P, codes = example.P, example.codes
    per_sample = np.asarray(sr.rps_score(codes + 1, P))  # observations numbered from 1
    ours = om.rps(codes, P, normalize=False, reduction="none")
    np.testing.assert_allclose(per_sample, ours, rtol=1e-12, atol=1e-15)
    assert per_sample.mean() / 4 == pytest.approx(om.rps(codes, P), rel=1e-12)


def test_migration_torchmetrics(example):
    torch = pytest.importorskip("torch")
    tc = pytest.importorskip("torchmetrics.classification")
    P, codes, pred = example.P, example.codes, example.pred
    t_pred, t_true, t_p = torch.as_tensor(pred), torch.as_tensor(codes), torch.as_tensor(P)
    kappa = tc.MulticlassCohenKappa(num_classes=5, weights="quadratic")(t_pred, t_true).item()
    assert kappa == pytest.approx(om.qwk(codes, pred, labels=range(5)), abs=1e-6)
    ece = tc.MulticlassCalibrationError(num_classes=5, n_bins=15, norm="l1")(t_p, t_true).item()
    assert ece == pytest.approx(om.ece(codes, P, n_bins=15), abs=1e-6)
    acc = tc.MulticlassAccuracy(num_classes=5, average="micro")(t_pred, t_true).item()
    assert acc == pytest.approx(om.accuracy(codes, pred), abs=1e-6)
    assert set(codes.tolist()) == set(range(5))  # macro F1 agrees when every class occurs
    f1 = tc.MulticlassF1Score(num_classes=5, average="macro")(t_pred, t_true).item()
    assert f1 == pytest.approx(om.macro_f1(codes, pred), abs=1e-6)


# --- screenshots of a built site ------------------------------------------------------------------


def test_screenshots_of_a_built_site_are_not_blank():
    shots = DOCS / "_build" / "screenshots"
    if not shots.is_dir():
        pytest.skip("no screenshots: run `make docs` and `python docs/screenshots.py`")
    pytest.importorskip("matplotlib")
    import sys

    sys.path.insert(0, str(DOCS))
    try:
        screenshots = importlib.import_module("screenshots")
    finally:
        sys.path.remove(str(DOCS))
    for name in screenshots.PAGES:
        assert screenshots.problems(shots / f"{name}.png") == []


def test_screenshot_check_rejects_a_blank_page(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    import sys

    sys.path.insert(0, str(DOCS))
    try:
        screenshots = importlib.import_module("screenshots")
    finally:
        sys.path.remove(str(DOCS))
    blank = tmp_path / "blank.png"
    plt.imsave(blank, np.ones((1000, 1400, 3)))
    assert screenshots.problems(blank)
    missing = tmp_path / "missing.png"
    assert screenshots.problems(missing) == [f"{missing} was not written"]
