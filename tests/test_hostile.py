"""Hostile input: every public function x a catalogue of bad inputs, generated as data.

Each public function is a :class:`Target`: how to call it, and which inputs it takes (its
*slots*: ``y_true``, ``y_proba``, ``sample_weight``, ``labels``, options, ...), read from its
signature. Each kind of bad input is a :class:`Case`: the slots it sets and the error it must
raise. A case runs against every target that takes all of its slots, so each (case, target)
pair is one test id; pairs are skipped by declared input kind only, never by hand lists.

Every error must be a ValueError or TypeError (OSError for files that cannot be opened) whose
message names the argument that is wrong.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.stream import Evaluator

N, K = 8, 3
Y = np.array([0, 1, 2, 0, 1, 2, 1, 0])
P = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.2, 0.5, 0.3],
        [0.1, 0.2, 0.7],
        [0.6, 0.3, 0.1],
        [0.3, 0.4, 0.3],
        [0.2, 0.2, 0.6],
        [0.1, 0.8, 0.1],
        [0.5, 0.25, 0.25],
    ]
)
P2 = P[:, ::-1].copy()
YP = np.array([0, 1, 1, 0, 2, 2, 1, 0])
S = P @ np.arange(K, dtype=float)  # expected grade, a valid y_score
W = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 1.0, 2.0])
NAN, INF = float("nan"), float("inf")


def _with(a: np.ndarray, index: int, value: Any) -> list:
    """``a`` as a list with entry ``index`` replaced by ``value`` (rows for 2-D ``a``)."""
    out = a.tolist()
    out[index] = value
    return out


def _gen(values: Any) -> Any:
    return (v for v in values)


# --------------------------------------------------------------------------------------------
# Catalogue of bad inputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One kind of bad input.

    ``set`` maps slots to values (a callable is called for a fresh value each time);
    ``names`` is the argument the message must name (the first slot by default); ``frame``
    says whether the values are columns of N rows, so that a data frame can hold them;
    ``needs`` are slots the target must take for the input to be wrong (a length mismatch
    needs the other argument); ``whole`` marks a property of the whole data set, which one
    batch of a stream may have (all weights zero); ``flag`` marks yes/no options.
    """

    id: str
    set: dict[str, Any]
    exc: type[Exception] | tuple[type[Exception], ...]
    names: str | None = None
    frame: bool = False
    needs: frozenset[str] = frozenset()
    whole: bool = False
    flag: bool = False

    def values(self) -> dict[str, Any]:
        return {k: (v() if callable(v) else v) for k, v in self.set.items()}

    @property
    def argument(self) -> str:
        return self.names or next(iter(self.set))


V, T = ValueError, TypeError
LABELS3 = [0, 1, 2]
NAMES3 = ["low", "mid", "high"]

CASES: list[Case] = [
    # ---- y_true --------------------------------------------------------------------------
    Case("y_true-empty", {"y_true": []}, V),
    Case("y_true-too-short", {"y_true": Y[:-1]}, V),
    Case("y_true-too-long", {"y_true": np.append(Y, 0)}, V),
    Case("y_true-nan", {"y_true": lambda: _with(Y, 2, NAN)}, V, frame=True),
    Case("y_true-none-entry", {"y_true": lambda: _with(Y, 2, None)}, V, frame=True),
    Case("y_true-inf", {"y_true": lambda: _with(Y, 2, INF)}, V, frame=True),
    Case("y_true-negative", {"y_true": lambda: _with(Y, 2, -1)}, V, frame=True),
    Case("y_true-fraction", {"y_true": lambda: _with(Y, 2, 0.5)}, V, frame=True),
    Case(
        "y_true-out-of-labels",
        {"y_true": lambda: _with(Y, 2, 7), "labels": LABELS3},
        V,
        frame=True,
    ),
    Case("y_true-2d", {"y_true": np.stack([Y, Y])}, V),
    Case("y_true-3d", {"y_true": np.zeros((2, 2, N), dtype=int)}, V),
    Case("y_true-one-hot", {"y_true": np.eye(K, dtype=int)[Y]}, V),
    Case("y_true-strings-without-labels", {"y_true": np.array(NAMES3)[Y]}, T, frame=True),
    Case(
        "y_true-unknown-string",
        {"y_true": lambda: _with(np.array(NAMES3)[Y], 1, "huge"), "labels": NAMES3},
        V,
        frame=True,
    ),
    Case("y_true-bool-mixed", {"y_true": lambda: _with(Y, 1, True)}, T),
    Case("y_true-bool-object", {"y_true": lambda: np.array(_with(Y, 1, True), dtype=object)}, T),
    Case("y_true-all-bool", {"y_true": Y.astype(bool)}, T, frame=True),
    Case(
        "y_true-uint64-huge",
        {"y_true": lambda: np.array(_with(Y, 1, 2**63), dtype=np.uint64)},
        V,
        frame=True,
    ),
    Case("y_true-int-2**70", {"y_true": lambda: _with(Y, 1, 2**70)}, V),
    Case("y_true-complex", {"y_true": Y + 0j}, T),
    Case("y_true-set", {"y_true": set(range(N))}, T),
    Case("y_true-dict", {"y_true": dict.fromkeys(range(N), 0)}, T),
    Case("y_true-generator", {"y_true": lambda: _gen(Y.tolist())}, T),
    Case("y_true-none", {"y_true": None}, T),
    Case("y_true-string", {"y_true": "01201210"}, T),
    Case("y_true-scalar", {"y_true": 1}, T),
    Case("y_true-masked", {"y_true": lambda: np.ma.masked_array(Y, mask=Y == 2)}, V),
    # ---- y_proba --------------------------------------------------------------------------
    Case("y_proba-empty", {"y_proba": np.empty((0, K))}, V),
    Case("y_proba-K=1", {"y_proba": np.ones((N, 1))}, V),
    Case("y_proba-1d", {"y_proba": P[:, 0]}, V),
    Case("y_proba-3d", {"y_proba": P[None]}, V),
    Case(
        "y_proba-too-many-rows",
        {"y_proba": np.vstack([P, P[:1]])},
        V,
        needs=frozenset({"y_true"}),
    ),
    Case("y_proba-nan", {"y_proba": lambda: _with(P, 3, [NAN, 0.5, 0.5])}, V, frame=True),
    Case("y_proba-inf", {"y_proba": lambda: _with(P, 3, [INF, 0.0, 0.0])}, V, frame=True),
    Case("y_proba-negative", {"y_proba": lambda: _with(P, 3, [1.2, -0.2, 0.0])}, V, frame=True),
    Case("y_proba-above-one", {"y_proba": lambda: _with(P, 3, [1.5, 0.0, 0.0])}, V, frame=True),
    Case("y_proba-row-sum", {"y_proba": lambda: _with(P, 3, [0.3, 0.3, 0.3])}, V, frame=True),
    Case("y_proba-logits", {"y_proba": np.log(P)}, V, frame=True),
    Case("y_proba-numeric-strings", {"y_proba": P.astype(str)}, T, frame=True),
    Case("y_proba-text", {"y_proba": lambda: _with(P.astype(object), 3, ["a", "b", "c"])}, T),
    Case("y_proba-complex", {"y_proba": P + 0j}, T),
    Case("y_proba-complex-imag", {"y_proba": P * 1j}, T),
    Case("y_proba-ragged", {"y_proba": lambda: _with(P.astype(object), 3, [0.5, 0.5])}, (T, V)),
    Case("y_proba-none", {"y_proba": None}, T),
    Case("y_proba-set", {"y_proba": {0.1, 0.2}}, T),
    Case("y_proba-dict", {"y_proba": {0: P[0].tolist()}}, T),
    Case("y_proba-generator", {"y_proba": lambda: _gen(P.tolist())}, T),
    Case("y_proba-string", {"y_proba": "0.2,0.5,0.3"}, T),
    Case("y_proba-masked", {"y_proba": lambda: np.ma.masked_array(P, mask=P < 0.15)}, V),
    # ---- y_pred ---------------------------------------------------------------------------
    Case("y_pred-too-short", {"y_pred": YP[:-1]}, V),
    Case("y_pred-nan", {"y_pred": lambda: _with(YP, 2, NAN)}, V),
    Case("y_pred-fraction", {"y_pred": lambda: _with(YP, 2, 1.5)}, V),
    Case("y_pred-negative", {"y_pred": lambda: _with(YP, 2, -3)}, V),
    Case("y_pred-out-of-labels", {"y_pred": lambda: _with(YP, 2, 9), "labels": LABELS3}, V),
    Case("y_pred-strings-without-labels", {"y_pred": np.array(NAMES3)[YP]}, T),
    Case("y_pred-2d", {"y_pred": np.stack([YP, YP])}, V),
    Case("y_pred-bool-mixed", {"y_pred": lambda: _with(YP, 1, True)}, T),
    Case("y_pred-none", {"y_pred": None}, T),
    Case("y_pred-generator", {"y_pred": lambda: _gen(YP.tolist())}, T),
    # ---- y_score --------------------------------------------------------------------------
    Case("y_score-too-short", {"y_score": S[:-1]}, V, needs=frozenset({"y_true"})),
    Case("y_score-inf", {"y_score": lambda: _with(S, 2, INF)}, V),
    Case("y_score-nan", {"y_score": lambda: _with(S, 2, NAN)}, V),
    Case("y_score-numeric-strings", {"y_score": S.astype(str)}, T),
    Case("y_score-complex", {"y_score": S + 1j}, T),
    Case("y_score-3d", {"y_score": S.reshape(2, 2, 2)}, V),
    Case("y_score-none", {"y_score": None}, T),
    # ---- sample_weight --------------------------------------------------------------------
    Case("weight-negative", {"sample_weight": lambda: _with(W, 2, -1.0)}, V, frame=True),
    Case("weight-too-short", {"sample_weight": W[:-1]}, V),
    Case("weight-too-long", {"sample_weight": np.append(W, 1.0)}, V),
    Case("weight-all-zero", {"sample_weight": np.zeros(N)}, V, frame=True, whole=True),
    Case("weight-nan", {"sample_weight": lambda: _with(W, 2, NAN)}, V, frame=True),
    Case("weight-inf", {"sample_weight": lambda: _with(W, 2, INF)}, V, frame=True),
    Case("weight-2d", {"sample_weight": W[None]}, V),
    Case("weight-scalar-array", {"sample_weight": np.float64(2.0)}, V),
    Case("weight-numeric-strings", {"sample_weight": W.astype(str)}, T, frame=True),
    Case("weight-complex", {"sample_weight": W + 1j}, T),
    Case("weight-set", {"sample_weight": {1.0, 2.0}}, T),
    Case("weight-masked", {"sample_weight": lambda: np.ma.masked_array(W, mask=W > 2)}, V),
    # ---- labels ---------------------------------------------------------------------------
    Case("labels-set", {"labels": {0, 1, 2}}, T),
    Case("labels-frozenset", {"labels": frozenset({0, 1, 2})}, T),
    Case("labels-dict", {"labels": {0: "a", 1: "b", 2: "c"}}, T),
    Case("labels-dict-keys", {"labels": {0: "a", 1: "b", 2: "c"}.keys()}, T),
    Case("labels-nan", {"labels": [0, NAN, NAN]}, V),
    Case("labels-one-nan", {"labels": [0, 1, NAN]}, V),
    Case("labels-none-entry", {"labels": [0, 1, None]}, V),
    Case("labels-duplicate", {"labels": [0, 1, 1]}, V),
    Case("labels-duplicate-int-float", {"labels": [0, 1, 1.0]}, V),
    Case("labels-bool-mixed", {"labels": [0, True, 2]}, T),
    Case("labels-string", {"labels": "012"}, T),
    Case("labels-scalar", {"labels": 3}, T),
    Case("labels-generator", {"labels": lambda: _gen(LABELS3)}, T),
    Case("labels-unhashable", {"labels": [[0], [1], [2]]}, T),
    Case("labels-2d-array", {"labels": np.array([[0, 1, 2]])}, V),
    # ---- options --------------------------------------------------------------------------
    Case("nan_policy-unknown", {"nan_policy": "ignore"}, V),
    Case("nan_policy-none", {"nan_policy": None}, V),
    Case("nan_policy-bool", {"nan_policy": True}, V),
    Case("reduction-unknown", {"reduction": "avg"}, V),
    Case("reduction-none-object", {"reduction": None}, V),
    Case("renormalize-string", {"renormalize": "no"}, T, flag=True),
    Case("renormalize-none", {"renormalize": None}, T, flag=True),
    Case("renormalize-int", {"renormalize": 1}, T, flag=True),
    Case("normalize-none", {"normalize": None}, T, flag=True),
    Case("normalize-string", {"normalize": "yes"}, T, flag=True),
    Case("n_bins-zero", {"n_bins": 0}, V),
    Case("n_bins-float", {"n_bins": 2.5}, T),
    Case("n_bins-string", {"n_bins": "10"}, T),
    Case("strategy-unknown", {"strategy": "kmeans"}, V),
    Case("costs-unknown", {"costs": "cubic"}, V),
    Case("costs-shape", {"costs": np.ones((2, 2))}, V),
    Case("costs-negative", {"costs": -np.ones((K, K))}, V),
    Case("costs-nan", {"costs": np.full((K, K), NAN)}, V),
    Case("costs-complex", {"costs": np.ones((K, K)) * 1j}, T),
    Case("costs-numeric-strings", {"costs": np.ones((K, K)).astype(str)}, T),
    Case("costs-set", {"costs": {1, 2, 3}}, T),
    Case("n_resamples-negative", {"n_resamples": -1}, V),
    Case("n_resamples-float", {"n_resamples": 10.5}, T),
    Case("confidence_level-two", {"confidence_level": 2}, V),
    Case("method-unknown", {"method": "jackknife"}, V),
    Case("random_state-string", {"random_state": "seed"}, T),
    Case("k-negative", {"k": -1}, V),
    Case("metric-unknown", {"metric": "rsp"}, V),
]


# --------------------------------------------------------------------------------------------
# Targets: every public function
# --------------------------------------------------------------------------------------------

DEFAULTS: dict[str, Any] = {
    "y_true": Y,
    "y_proba": P,
    "y_pred": YP,
    "y_score": S,
}


@dataclass(frozen=True)
class Target:
    """A public function: its call, and the slots it takes (read from its signature).

    ``slots`` are the data slots and keywords it takes; ``flags`` those of its keywords that
    are yes/no options (a bool default). ``frame`` says the data slots are columns of a data
    frame (only cases with ``frame=True`` apply); ``batch`` that the data are one batch of a
    stream (cases about the whole data set do not apply); ``names`` renames a slot for the
    message check.
    """

    id: str
    call: Callable[[dict[str, Any]], Any]
    slots: frozenset[str]
    names: dict[str, str] = field(default_factory=dict)
    frame: bool = False
    flags: frozenset[str] = frozenset()
    batch: bool = False

    def accepts(self, case: Case) -> bool:
        return (
            set(case.set) | case.needs <= self.slots
            and (case.frame or not self.frame)
            and not (case.whole and self.batch)
            and (not case.flag or set(case.set) <= self.flags)
        )


def _keywords(func: Callable[..., Any]) -> set[str]:
    return {
        p.name
        for p in inspect.signature(func).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def _flags(func: Callable[..., Any]) -> frozenset[str]:
    return frozenset(
        p.name for p in inspect.signature(func).parameters.values() if isinstance(p.default, bool)
    )


def plain(
    func: Callable[..., Any],
    positional: tuple[str, ...],
    *,
    fixed: tuple[Any, ...] = (),
    options: dict[str, Any] | None = None,
    keywords: set[str] | None = None,
    id: str | None = None,
) -> Target:
    """``func(*fixed, *positional slots, **keyword slots, **options)``."""
    options = dict(options or {})

    def call(a: dict[str, Any]) -> Any:
        args = [a.pop(p, DEFAULTS.get(p)) for p in positional]
        return func(*fixed, *args, **{**options, **a})

    kw = _keywords(func) if keywords is None else keywords
    return Target(
        id or func.__name__, call, frozenset(positional) | frozenset(kw), flags=_flags(func)
    )


def _metric_target(name: str) -> Target:
    spec = om.get_metric(name)
    second = {"agreement": "y_pred", "ranking": "y_score"}.get(spec.kind, "y_proba")
    return plain(spec.func, ("y_true", second), id=f"metric:{name}")


def _resampling(func: Callable[..., Any], n_models: int) -> Target:
    """bootstrap / compare of rps: options of the resampling and of the metric."""
    kw = _keywords(func) - {"kwargs_a", "kwargs_b"}
    kw |= {"labels", "sample_weight", "renormalize"}

    def call(a: dict[str, Any]) -> Any:
        y = a.pop("y_true", Y)
        p = a.pop("y_proba", P)
        models = (p,) if n_models == 1 else (p, P2)
        a.setdefault("n_resamples", 20)
        a.setdefault("random_state", 0)
        return func(a.pop("metric", "rps"), y, *models, **a)

    return Target(
        func.__name__,
        call,
        frozenset({"y_true", "y_proba", "metric"} | kw),
        names={"y_proba": r"y_proba|\ba\b"},
        flags=frozenset({"renormalize"}),
    )


def _retention(func: Callable[..., Any]) -> Target:
    kw = _keywords(func) - {"metric_kwargs", "by", "fractions", "decision"}
    opts = {"n_random": 3} if "n_random" in kw else {}

    def call(a: dict[str, Any]) -> Any:
        return func(a.pop("y_true", Y), a.pop("y_proba", P), **{**opts, **a})

    return Target(func.__name__, call, frozenset({"y_true", "y_proba"} | kw), flags=_flags(func))


def _decide() -> Target:
    def call(a: dict[str, Any]) -> Any:
        rule = "min_cost" if "costs" in a else "argmax"
        return om.decide(a.pop("y_proba", P), rule, **a)

    return Target(
        "decide", call, frozenset({"y_proba"} | _keywords(om.decide)), flags=_flags(om.decide)
    )


def _skill_score() -> Target:
    def call(a: dict[str, Any]) -> Any:
        return om.skill_score("rps", a.pop("y_true", Y), a.pop("y_proba", P), **a)

    kw = _keywords(om.skill_score) | {"renormalize", "normalize"}
    return Target(
        "skill_score",
        call,
        frozenset({"y_true", "y_proba"} | kw - {"reference"}),
        flags=frozenset({"renormalize", "normalize"}),
    )


def _worst() -> Target:
    def call(a: dict[str, Any]) -> Any:
        return om.worst_predictions(a.pop("y_true", Y), a.pop("y_proba", P), **a)

    return Target(
        "worst_predictions",
        call,
        frozenset({"y_true", "y_proba"} | _keywords(om.worst_predictions)),
    )


def _evaluator_update() -> Target:
    """Streaming: the constructor takes labels / nan_policy, update the data."""

    def call(a: dict[str, Any]) -> Any:
        ev = Evaluator(
            ["rps", "qwk", "c_index"],
            **{k: a.pop(k) for k in ("labels", "nan_policy") if k in a},
        )
        return ev.update(a.pop("y_true", Y), a.pop("y_proba", P), **a)

    return Target(
        "Evaluator.update",
        call,
        frozenset({"y_true", "y_proba", "sample_weight", "labels", "nan_policy"}),
        batch=True,
    )


def _evaluate_frame() -> Target:
    """evaluate() on a pandas frame built from the slots (columns y, p0..p2 and w)."""
    pd = pytest.importorskip("pandas")

    def call(a: dict[str, Any]) -> Any:
        y = a.pop("y_true", Y)
        p = np.asarray(a.pop("y_proba", P))
        cols: dict[str, Any] = {"y": list(y) if not isinstance(y, np.ndarray) else y}
        cols.update({f"p{j}": p[:, j] for j in range(p.shape[1])})
        w = a.pop("sample_weight", None)
        if w is not None:
            cols["w"] = w
        df = pd.DataFrame(cols)
        return om.evaluate(
            df,
            truth="y",
            proba=[f"p{j}" for j in range(p.shape[1])],
            sample_weight=None if w is None else "w",
            metrics=["rps", "qwk", "c_index", "ece"],
            **a,
        )

    return Target(
        "evaluate(frame)",
        call,
        frozenset({"y_true", "y_proba", "sample_weight", "labels", "nan_policy"}),
        names={"y_true": r"y_true|truth|'y'", "y_proba": r"y_proba|proba|'p\d'"},
        frame=True,
    )


def _select_epoch() -> Target:
    def call(a: dict[str, Any]) -> Any:
        return om.select_epoch(a.pop("y_score", S), **{"mode": "min", **a})

    return Target("select_epoch", call, frozenset({"y_score"}), names={"y_score": "values"})


def _trajectory_correlation() -> Target:
    """Two trajectories of one value per epoch: the bad one is ``b``."""

    def call(a: dict[str, Any]) -> Any:
        return om.trajectory_correlation(S, a.pop("y_score", S[::-1]))

    return Target("trajectory_correlation", call, frozenset({"y_score"}), names={"y_score": "b"})


TARGETS: list[Target] = [
    *(_metric_target(n) for n in om.list_metrics()),
    *(
        plain(f, ("y_true", "y_proba"))
        for f in (
            om.reliability,
            om.brier_decomposition,
            om.rps_decomposition,
            om.corp_decomposition,
            om.corp_reliability,
        )
    ),
    plain(om.pseudospherical, ("y_true", "y_proba"), options={"alpha": 3.0}),
    plain(om.confusion_matrix, ("y_true", "y_pred")),
    _decide(),
    _skill_score(),
    _retention(om.retention_curve),
    _retention(om.aursc),
    _resampling(om.bootstrap, 1),
    _resampling(om.compare, 2),
    _worst(),
    _select_epoch(),
    _trajectory_correlation(),
    _evaluator_update(),
    _evaluate_frame(),
]

PAIRS = [pytest.param(t, c, id=f"{c.id}-{t.id}") for c in CASES for t in TARGETS if t.accepts(c)]


def test_catalogue_is_large_and_every_case_applies_somewhere():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)
    for case in CASES:
        assert any(t.accepts(case) for t in TARGETS), case.id


def test_every_registered_metric_is_a_target():
    ids = {t.id for t in TARGETS}
    assert {f"metric:{n}" for n in om.list_metrics()} <= ids


#: Public functions that take no data (or only files, tested below).
NO_DATA = {"get_metric", "list_metrics", "metric_set", "device_results", "evaluate_file"}


def test_every_public_function_is_a_target():
    """A new public function must join the suite (or NO_DATA, with a reason)."""
    functions = {
        n for n in om.__all__ if inspect.isfunction(getattr(om, n)) and not n.startswith("_")
    }
    covered = {t.id.removeprefix("metric:").removesuffix("(frame)") for t in TARGETS}
    assert functions - covered - NO_DATA == set()


@pytest.mark.parametrize(("target", "case"), PAIRS)
def test_bad_input_raises_a_clear_error(target: Target, case: Case):
    with pytest.raises(case.exc) as excinfo:
        target.call(case.values())
    message = str(excinfo.value)
    name = target.names.get(case.argument, re.escape(case.argument))
    assert re.search(name, message), f"{case.argument!r} not named in: {message}"


def test_valid_defaults_pass_for_every_target():
    """The catalogue's base inputs are valid, so each error comes from the case itself."""
    for target in TARGETS:
        target.call({})


# --------------------------------------------------------------------------------------------
# Files that cannot be opened: OSError
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unopenable_file_raises_oserror(tmp_path, kind):
    path = tmp_path / "scores.csv"
    if kind == "directory":
        path.mkdir()
    with pytest.raises(OSError, match=re.escape(path.name)):
        om.evaluate_file(path, truth="y", proba=["p0", "p1", "p2"])
