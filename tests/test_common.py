"""The common test suite: properties every registered metric must have, and its fronts.

Every test is parametrised over ``ordmetrics.list_metrics()`` (with the registered variants and
the option settings that take another code path, :mod:`metric_cases`); what applies to a metric
is read from its spec (``input``, ``accumulates``, ``range``, ``perfect``, ``variants``) and
from the signature of its function (``nan_policy``, ``reduction``, ``labels``, ...), never from a
list of names. A newly registered metric gets all of it by registering.

* weights: integer weights equal repeated rows (exactly for metrics of weighted counts); rows
  of weight 0 equal rows absent; unit weights equal no weights; the result does not change
  when every weight is scaled by any c in [1e-300, 1e300] (a weighted sum scales by c), bit
  for bit by powers of two, for weights up to the largest float and for subnormal weights,
  without a warning; the rows' order does not matter (but for metrics that cut a ranking of
  the rows, ``metric_cases.ORDER_INVARIANT``);
* values: inside ``spec.range``; a perfect prediction gives ``spec.perfect``;
* ``nan_policy``: ``"raise"`` names the argument, ``"omit"`` equals dropping the rows,
  ``"propagate"`` gives NaN; ``reduction``: the rows of ``"none"`` average to ``"mean"`` and
  sum to ``"sum"`` (weighted);
* label encodings: integer codes, strings with ``labels=``, a pandas ordered Categorical and a
  polars Enum give the same value; float32 probabilities give the float64 value up to float32
  rounding;
* fronts: the streaming Evaluator (one batch and several), ``ordmetrics.evaluate`` on a data
  frame, the command line (``--metrics``, JSON) and array-API input (array-api-strict) give the
  value of the function.

The remaining common properties (caller's arrays untouched, threads, equal weights at the
float limits, ties of expected grades) are in ``test_common_properties.py``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ordmetrics as om
import ordmetrics.stream
from metric_cases import (
    METRICS,
    ORDER_INVARIANT,
    REGISTERED,
    SETTINGS,
    VARIANTS,
    arguments,
    assert_close,
    block_data,
    compute,
    datasets,
    fixed_data,
    prediction,
    prediction_argument,
    repetition_tolerance,
    spec,
    takes,
)
from ordmetrics.report.cli import main as cli_main

pytestmark = pytest.mark.filterwarnings("ignore::ordmetrics.UndefinedMetricWarning")

#: Class names in an ordinal order that is not their sorted order (sorting them would reorder
#: the classes: they must be taken in the given order).
GRADES = ["severe", "mild", "moderate", "none"]


def reductions(name: str) -> tuple[str, ...]:
    """The reductions the metric's signature offers (just the mean when it has none)."""
    return ("mean", "sum", "none") if takes(name, "reduction") else ("mean",)


def call(name: str, y, pred, options=None, **kwargs):
    """The metric on truth ``y`` and its second argument ``pred`` as given."""
    return spec(name)(y, pred, **(options or {}), **kwargs)


# --------------------------------------------------------------------------------------------
# Weights and the order of the rows
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "options"), [v for v in VARIANTS if v.values[0] in ORDER_INVARIANT]
)
@SETTINGS
@given(data=datasets())
def test_row_permutation_invariance(name, options, data):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    perm = data["rng"].permutation(y.size)
    for weights in (None, w):
        base = compute(name, y, P, k, weights, options)
        moved = compute(
            name, y[perm], P[perm], k, None if weights is None else weights[perm], options
        )
        assert_close(moved, base, rel=1e-12, abs_=1e-15, what=f"{name} permuted")
    if takes(name, "reduction"):
        args, kwargs = arguments(name, y, P, k)
        moved_args, _ = arguments(name, y[perm], P[perm], k)
        total = spec(name)(*args, **kwargs, **options, reduction="sum")
        moved_total = spec(name)(*moved_args, **kwargs, **options, reduction="sum")
        assert_close(moved_total, total, rel=1e-12, abs_=1e-12, what="sum permuted")
        rows = spec(name)(*args, **kwargs, **options, reduction="none")
        moved_rows = spec(name)(*moved_args, **kwargs, **options, reduction="none")
        np.testing.assert_array_equal(moved_rows, rows[perm])


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets(), exponent=st.floats(-300.0, 300.0))
def test_weight_scale_invariance(name, options, data, exponent):
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    c = 10.0**exponent
    base = compute(name, y, P, k, w, options)
    got = compute(name, y, P, k, w * c, options)
    assert_close(got, base, rel=1e-12, abs_=1e-12, what=f"c={c:g}")


SCALES = (1e-300, 1e-200, 1e-10, 1e-6, 0.3, 0.5, 3.0, 1e6, 1e10, 1e200, 1e300)
POWERS_OF_TWO = (2.0**-1000, 2.0**-60, 2.0**70, 2.0**1000)


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@pytest.mark.parametrize("c", SCALES)
def test_weight_scale_extremes(name, options, c):
    """The ends of the range, on rows past the kernels' block (hypothesis may not reach them),
    without a warning; a weighted sum scales by c."""
    y, P, w = block_data()
    base = compute(name, y, P, 4, w, options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compute(name, y, P, 4, w * c, options)
    assert_close(got, base, rel=1e-12, abs_=1e-12, what=f"c={c:g}")
    if takes(name, "reduction") and 1e-200 <= c <= 1e200:
        total = compute(name, y, P, 4, w, {**options, "reduction": "sum"})
        scaled = compute(name, y, P, 4, w * c, {**options, "reduction": "sum"})
        assert_close(scaled, c * total, rel=1e-12, what=f"sum, c={c:g}")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_weights_up_to_the_float_maximum(name, options):
    y, P, w = block_data()
    big = w / w.max() * 1.7e308  # the largest weight near the largest float (1.797e308)
    assert np.isfinite(big).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compute(name, y, P, 4, big, options)
    assert_close(got, compute(name, y, P, 4, w, options), rel=1e-12, what="1.7e308")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_power_of_two_scales_are_bitwise_free(name, options):
    y, P, w = block_data()
    base = compute(name, y, P, 4, w, options)
    for scale in POWERS_OF_TWO:
        assert_close(compute(name, y, P, 4, w * scale, options), base, 0, 0, f"{scale:g}")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_subnormal_weights(name, options):
    y, P, _ = block_data()
    m = np.random.default_rng(5).integers(1, 1000, size=y.size).astype(np.float64)
    sub = m * 2.0**-1074  # exact: the subnormal multiples of the smallest float64
    assert sub.max() < np.finfo(np.float64).tiny
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compute(name, y, P, 4, sub, options)
    assert_close(got, compute(name, y, P, 4, m * 2.0**-20, options), 0, 0, "subnormal")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets(), counts=st.lists(st.integers(0, 3), min_size=40, max_size=40))
def test_integer_weights_equal_repeated_rows(name, options, data, counts):
    y, P, k = data["y"], data["P"], data["k"]
    w = np.array(counts[: y.size])
    if not w.any():
        w[0] = 1
    rel = repetition_tolerance(name)
    repeated = compute(name, np.repeat(y, w), np.repeat(P, w, axis=0), k, None, options)
    got = compute(name, y, P, k, w, options)
    assert_close(got, repeated, rel=rel, abs_=rel, what="repeat")
    assert_close(compute(name, y, P, k, w.astype(float), options), repeated, rel, rel, "float w")
    if takes(name, "reduction"):
        total = compute(name, y, P, k, w, {**options, "reduction": "sum"})
        repeated_total = compute(
            name, np.repeat(y, w), np.repeat(P, w, axis=0), k, None, {**options, "reduction": "sum"}
        )
        assert_close(total, repeated_total, rel=1e-12, abs_=1e-12, what="repeat, sum")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_zero_weight_rows_equal_rows_absent(name, options):
    y, P = fixed_data(seed=3, n=40)
    w = np.random.default_rng(3).uniform(0.1, 2.0, size=40)
    w[[5, 6, 11, 30]] = 0.0
    keep = w > 0
    for extra in [{}] + ([{"reduction": "sum"}] if takes(name, "reduction") else []):
        opts = {**options, **extra}
        got = compute(name, y, P, 4, w, opts)
        expected = compute(name, y[keep], P[keep], 4, w[keep], opts)
        assert_close(got, expected, rel=1e-12, abs_=1e-12, what=f"zero weights {extra}")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_unit_weights_equal_no_weights(name, options):
    y, P = fixed_data(seed=4, n=40)
    for extra in [{}] + ([{"reduction": "sum"}] if takes(name, "reduction") else []):
        opts = {**options, **extra}
        got = compute(name, y, P, 4, np.ones(40), opts)
        assert_close(got, compute(name, y, P, 4, None, opts), 1e-12, 1e-12, f"unit {extra}")


def tied_scores(rng: np.random.Generator, n: int, k: int, n_levels: int = 6, weights: str = "int"):
    """Classes 0..k-1 and one score per row correlated with them, rounded to a few levels
    (ties); integer weights 0..3, or uniform weights of which about 15 % are 0."""
    y = rng.integers(0, k, n)
    s = np.round((y + rng.normal(0, 1.2, n)) * n_levels / k) / n_levels
    if weights == "int":
        return y, s, rng.integers(0, 4, n).astype(float)
    w = rng.uniform(0, 3, n)
    w[rng.random(n) < 0.15] = 0.0
    return y, s, w


#: The metrics of one score per row, which also take the scores themselves (1-D).
SCORE_METRICS = [n for n in METRICS if spec(n).input == "scores"]


@pytest.mark.parametrize("name", SCORE_METRICS)
def test_one_d_tied_scores_integer_weights_equal_repeated_rows(name):
    y, s, w = tied_scores(np.random.default_rng(7), 300, 4, weights="int")
    rep = w.astype(int)
    got = spec(name)(y, s, sample_weight=w)
    assert_close(got, spec(name)(np.repeat(y, rep), np.repeat(s, rep)), 1e-13, 1e-12, "repeat")


@pytest.mark.parametrize("name", SCORE_METRICS)
def test_one_d_tied_scores_scale_free_and_zero_weight_rows_absent(name):
    y, s, w = tied_scores(np.random.default_rng(8), 200, 4, weights="float")
    f = spec(name)
    base = f(y, s, sample_weight=w)
    assert_close(f(y, s, sample_weight=w * 1000), base, 1e-12, 1e-12, "scaled")
    # appended rows of weight 0, with any class and score, change nothing
    y2 = np.concatenate([y, [0, 3, 1]])
    s2 = np.concatenate([s, [99.0, -99.0, 0.123]])
    w2 = np.concatenate([w, [0.0, 0.0, 0.0]])
    assert_close(f(y2, s2, sample_weight=w2), base, 1e-12, 1e-12, "zero-weight rows")
    assert_close(f(y, s, sample_weight=np.ones(y.size)), f(y, s), 1e-14, 1e-12, "unit weights")


# --------------------------------------------------------------------------------------------
# Range and perfect prediction
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets())
def test_value_inside_the_registered_range(name, options, data):
    lo, hi = spec(name).range
    value = float(compute(name, data["y"], data["P"], data["k"], data["w"], options))
    assert math.isnan(value) or lo <= value <= hi, f"{name}: {value} outside [{lo}, {hi}]"


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_value_inside_the_registered_range_every_class_present(name, options):
    lo, hi = spec(name).range
    y, P = fixed_data()
    value = float(compute(name, y, P, 4, None, options))
    assert lo <= value <= hi, f"{name}: {value} outside [{lo}, {hi}]"


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_perfect_prediction_gives_the_registered_perfect_value(name, options):
    perfect = spec(name).perfect
    if perfect is None or math.isnan(perfect):
        pytest.skip(f"{name} registers no perfect value")
    y, _ = fixed_data()
    one_hot = np.eye(4)[y]
    assert_close(compute(name, y, one_hot, 4, None, options), perfect, 1e-12, 1e-12, "perfect")
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=y.size)
    assert_close(compute(name, y, one_hot, 4, w, options), perfect, 1e-12, 1e-12, "weighted")


# --------------------------------------------------------------------------------------------
# nan_policy and reduction, where the signature has them
# --------------------------------------------------------------------------------------------


def _with_nan(name: str, y: np.ndarray, P: np.ndarray, row: int) -> np.ndarray:
    pred = prediction(name, P).astype(float)
    pred[row] = np.nan
    return pred


@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_nan_policy(name, options):
    if not takes(name, "nan_policy"):
        pytest.skip(f"{name} has no nan_policy parameter")
    y, P = fixed_data(n=30)
    kw = {**arguments(name, y, P, 4)[1], **options}
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=30)
    keep = np.ones(30, dtype=bool)
    keep[[3, 8, 12]] = False
    clean = prediction(name, P)
    expected = call(name, y[keep], clean[keep], sample_weight=w[keep], **kw)

    pred = _with_nan(name, y, P, 3)
    y_missing = y.astype(float)
    y_missing[8] = np.nan
    w_missing = w.copy()
    w_missing[12] = np.nan
    for what, args, weights in [
        (prediction_argument(name), (y, pred), w),
        ("y_true", (y_missing, clean), w),
        ("sample_weight", (y, clean), w_missing),
    ]:
        with pytest.raises(ValueError, match=what):
            call(name, *args, sample_weight=weights, **kw)
        with pytest.raises(ValueError, match=what):
            call(name, *args, sample_weight=weights, nan_policy="raise", **kw)
        value = call(name, *args, sample_weight=weights, nan_policy="propagate", **kw)
        assert math.isnan(float(value)), f"{what}: propagate gave {value}"
    got = call(name, y_missing, pred, sample_weight=w_missing, nan_policy="omit", **kw)
    assert_close(got, expected, rel=1e-12, abs_=1e-12, what="omit")


@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_reduction_rows_average_to_the_mean_and_sum_to_the_sum(name, options):
    if not takes(name, "reduction"):
        pytest.skip(f"{name} has no reduction parameter")
    y, P = fixed_data(n=30)
    kw = {**arguments(name, y, P, 4)[1], **options}
    pred = prediction(name, P)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=30)
    for weights in (None, w):
        rows = call(name, y, pred, reduction="none", sample_weight=weights, **kw)
        assert isinstance(rows, np.ndarray) and rows.shape == (30,)
        mean = call(name, y, pred, reduction="mean", sample_weight=weights, **kw)
        assert_close(call(name, y, pred, sample_weight=weights, **kw), mean, 0, 0, "default")
        assert_close(np.average(rows, weights=weights), mean, 1e-13, 1e-15, "mean")
        total = call(name, y, pred, reduction="sum", sample_weight=weights, **kw)
        unit = np.ones(30) if weights is None else weights
        assert_close(math.fsum(unit * rows), total, 1e-13, 1e-15, "sum")


# --------------------------------------------------------------------------------------------
# Label encodings and dtypes
# --------------------------------------------------------------------------------------------


def _encodings(name: str, y: np.ndarray, pred: np.ndarray):
    """(what, truth, prediction, labels keyword) for each encoding of the same classes."""
    decisions = spec(name).input == "decisions"
    names = np.array(GRADES, dtype=object)
    yield "strings", names[y], names[pred] if decisions else pred, {"labels": GRADES}
    yield (
        "string list",
        names[y].tolist(),
        names[pred].tolist() if decisions else pred,
        {"labels": tuple(GRADES)},
    )
    yield (
        "str dtype",
        names[y].astype(str),
        names[pred].astype(str) if decisions else pred,
        {"labels": np.array(GRADES)},
    )
    pd = pytest.importorskip("pandas")

    def cat(codes):
        return pd.Categorical(names[codes], categories=GRADES, ordered=True)

    yield "pandas ordered Categorical", cat(y), cat(pred) if decisions else pred, {}
    yield "pandas Series of it", pd.Series(cat(y)), pd.Series(cat(pred)) if decisions else pred, {}
    yield (
        "pandas Series of it, labels",
        pd.Series(cat(y)),
        pd.Series(cat(pred)) if decisions else pred,
        {"labels": GRADES},
    )
    try:
        import polars as pl
    except ImportError:
        return

    def enum(codes):
        return pl.Series("grade", names[codes].tolist(), dtype=pl.Enum(GRADES))

    yield "polars Enum", enum(y), enum(pred) if decisions else pred, {}
    yield "polars Enum, labels", enum(y), enum(pred) if decisions else pred, {"labels": GRADES}


@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_label_encodings_give_the_same_value(name, options):
    y, P = fixed_data(n=30)
    pred = prediction(name, P)
    base_kw = arguments(name, y, P, 4)[1]
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=30)
    for reduction, weights in itertools.product(reductions(name), (None, w)):
        extra = {**options, **({"reduction": reduction} if takes(name, "reduction") else {})}
        expected = call(name, y, pred, **base_kw, **extra, sample_weight=weights)
        for what, truth, predicted, labels in _encodings(name, y, pred):
            got = call(name, truth, predicted, **labels, **extra, sample_weight=weights)
            assert type(got) is type(expected), f"{what}: {type(got)} vs {type(expected)}"
            if reduction == "none":
                assert got.dtype == expected.dtype == np.float64, what
                np.testing.assert_array_equal(got, expected, err_msg=what)
            else:
                assert_close(got, expected, rel=0, what=f"{what} ({reduction})")


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@SETTINGS
@given(data=datasets(flavours=("dyadic",)))
def test_float32_close_to_float64(name, options, data):
    if spec(name).input == "decisions":
        pytest.skip(f"{name} takes class decisions, not floating-point probabilities")
    y, P, w, k = data["y"], data["P"], data["w"], data["k"]
    P32 = P.astype(np.float32)
    assert np.array_equal(P32.astype(np.float64), P)  # 64ths are exact in float32
    for weights in (None, w):
        expected = compute(name, y, P, k, weights, options)
        got = compute(name, y, P32, k, weights, options)
        assert_close(got, expected, rel=1e-5, abs_=1e-6, what="f32")


# --------------------------------------------------------------------------------------------
# Fronts: streaming, data frames, command line, array API
# --------------------------------------------------------------------------------------------


def _front_data(seed: int = 11, n: int = 60):
    y, P = fixed_data(seed=seed, n=n)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, size=n)
    return y, P, w


def _entry(name: str, options: dict):
    return (name, options) if options else name


@pytest.mark.parametrize("batches", [1, 4])
@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_streaming_equals_the_function(name, options, batches):
    if spec(name).accumulates is None:
        pytest.skip(f"{name} registers no accumulator (accumulates=None): it needs every row")
    y, P, w = _front_data()
    expected = compute(name, y, P, 4, w, options)
    ev = ordmetrics.stream.Evaluator([_entry(name, options)], labels=list(range(4)))
    for part in np.array_split(np.arange(y.size), batches):
        ev.update(y[part], P[part], sample_weight=w[part])
    result = ev.compute()
    ((key, value),) = result.values.items()
    assert_close(value, expected, rel=1e-12, abs_=1e-12 + result.bounds[key], what="stream")


@pytest.mark.parametrize("backend", ["pandas", "polars"])
@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_frame_evaluate_equals_the_function(name, options, backend):
    library = pytest.importorskip(backend)
    y, P, w = _front_data()
    frame = library.DataFrame({"grade": y, **{f"p{j}": P[:, j] for j in range(4)}, "w": w})
    out = om.evaluate(
        frame,
        truth="grade",
        proba=[f"p{j}" for j in range(4)],
        metrics=[_entry(name, options)],
        sample_weight="w",
    )
    assert len(out) == 1
    expected = compute(name, y, P, 4, w, options)
    (estimate,) = out["estimate"].to_list()
    assert_close(estimate, expected, rel=1e-12, abs_=1e-12, what=f"evaluate ({backend})")


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory):
    y, P, w = _front_data()
    path = tmp_path_factory.mktemp("common") / "predictions.csv"
    lines = ["grade,p0,p1,p2,p3,w"]
    lines += [
        ",".join([str(int(c)), *map(repr, p), repr(x)])
        for c, p, x in zip(y, P.tolist(), w.tolist(), strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("name", METRICS)
def test_cli_equals_the_function(name, csv_file):
    y, P, w = _front_data()
    argv = ["evaluate", str(csv_file), "--truth", "grade", "--proba", "p0,p1,p2,p3"]
    argv += ["--weight", "w", "--metrics", name, "--format", "json"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli_main(argv)
    assert status in (0, None), out.getvalue()
    (record,) = json.loads(out.getvalue())
    assert record["metric"] == name
    expected = float(compute(name, y, P, 4, w))
    got = math.nan if record["estimate"] is None else float(record["estimate"])
    assert_close(got, expected, rel=1e-12, abs_=1e-12, what="cli")


def _numpy_only(name: str) -> bool:
    """Whether the metric's documentation says it takes NumPy input only."""
    doc = (spec(name).func.__doc__ or "").lower()
    return "numpy only" in doc or "numpy-only" in doc


#: The kinds of accumulation the array-API path computes on the device (README, "PyTorch,
#: JAX, CuPy arrays": the scoring rules and the confusion-matrix metrics).
DEVICE_ACCUMULATORS = ("mean_score", "confusion_matrix")


@pytest.mark.parametrize(("name", "options"), REGISTERED)
def test_array_api_equals_numpy(name, options):
    xp = pytest.importorskip("array_api_strict")
    if _numpy_only(name):
        pytest.skip(f"{name} is documented as taking NumPy input only")
    y, P, w = _front_data()
    pred = prediction(name, P)
    kw = {**arguments(name, y, P, 4)[1], **options}
    expected = call(name, y, pred, sample_weight=w, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = call(name, xp.asarray(y), xp.asarray(pred), sample_weight=xp.asarray(w), **kw)
    if spec(name).accumulates in DEVICE_ACCUMULATORS:
        assert isinstance(got, type(xp.asarray(0.0))), type(got)
        assert got.shape == ()
    assert_close(float(got), expected, rel=1e-12, abs_=1e-12, what="array API")
