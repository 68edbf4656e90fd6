"""ordmetrics.dask.evaluate: the estimates of ordmetrics.evaluate, from a Dask DataFrame.

Every test compares the Dask front with :func:`ordmetrics.evaluate` on the same rows in memory
(the collected frame): the threaded scheduler, a local ``distributed`` cluster of worker
processes, groups, the options passed to the evaluators, and the errors.
"""

from __future__ import annotations

import logging
import os
import pickle
import re
import sys

import numpy as np
import pytest

import ordmetrics
from ordmetrics.stream import Evaluator

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
import dask  # noqa: E402  (only once dask.dataframe is known to import)

import ordmetrics.dask as odask  # noqa: E402
from ordmetrics.integrations import dask as odask_impl  # noqa: E402

K = 5
LABELS = ["none", "mild", "moderate", "severe", "critical"]
PROBA = [f"p_{j}" for j in range(K)]
N_ROWS = 20_000
N_PARTITIONS = 7


def make_frame(n: int = N_ROWS, seed: int = 11) -> pd.DataFrame:
    """String truth drawn from the probabilities, weights, a group column with missing values,
    and rows with a missing truth, probability or weight (for ``nan_policy="omit"``)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(K), size=n)
    y = (np.cumsum(P, axis=1)[:, :-1] < rng.random(n)[:, None]).sum(axis=1)
    grade = np.array(LABELS, dtype=object)[y]
    site = rng.choice(np.array(["north", "south", "east", "west"], dtype=object), size=n)
    site[rng.choice(n, size=40, replace=False)] = None
    weight = rng.uniform(0.5, 2.0, size=n)
    grade[rng.choice(n, size=30, replace=False)] = None
    P[rng.choice(n, size=30, replace=False), 2] = np.nan
    weight[rng.choice(n, size=20, replace=False)] = np.nan
    frame = pd.DataFrame({"grade": grade, "site": site, "shift": rng.integers(0, 3, size=n)})
    frame["w"] = weight
    for j, c in enumerate(PROBA):
        frame[c] = P[:, j]
    return frame


@pytest.fixture(scope="module")
def pdf() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="module")
def ddf(pdf: pd.DataFrame):
    return dd.from_pandas(pdf, npartitions=N_PARTITIONS)


@pytest.fixture(autouse=True)
def threads():
    """The threaded scheduler, whatever a test before has set as the default."""
    with dask.config.set(scheduler="threads"):
        yield


OPTIONS = {"labels": LABELS, "sample_weight": "w", "nan_policy": "omit"}


def expected(frame: pd.DataFrame, **kwargs) -> pd.DataFrame:
    return ordmetrics.evaluate(frame, truth="grade", proba=PROBA, **kwargs)


def assert_same(out: pd.DataFrame, ref: pd.DataFrame, *, exact: bool = True) -> None:
    """Equal to the in-memory table (estimates to 1e-12); ``bound`` 0 when ``exact``."""
    assert list(out.columns) == [*ref.columns, "bound"]
    if exact:
        assert (out["bound"] == 0.0).all(), out
        pd.testing.assert_frame_equal(
            out.drop(columns="bound"), ref, check_exact=False, rtol=1e-12, atol=1e-14
        )
        return
    pd.testing.assert_frame_equal(
        out.drop(columns=["bound", "estimate"]), ref.drop(columns="estimate")
    )
    diff = np.abs(out["estimate"].to_numpy() - ref["estimate"].to_numpy())
    assert (diff <= out["bound"].to_numpy() + 1e-12).all(), out.assign(diff=diff)


# --------------------------------------------------------------------------------------------
# The in-memory values
# --------------------------------------------------------------------------------------------


def test_every_default_metric_equals_the_in_memory_value(pdf, ddf):
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, max_exact=10**6, **OPTIONS)
    assert_same(out, expected(pdf, **OPTIONS))
    assert list(out["metric"]) == list(ordmetrics.DEFAULT_METRICS)


def test_prefix_and_list_of_columns_agree(ddf):
    a = odask.evaluate(ddf, truth="grade", proba="p_", max_exact=10**6, **OPTIONS)
    b = odask.evaluate(ddf, truth="grade", proba=PROBA, max_exact=10**6, **OPTIONS)
    pd.testing.assert_frame_equal(a, b)


def test_ranking_metrics_on_the_grid_are_within_their_bound(pdf, ddf):
    metrics = ["c_index", "kendall_tau", "spearman", "rps"]
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, metrics=metrics, **OPTIONS)
    assert (out["bound"].iloc[:3] > 0.0).all()  # 20,000 distinct grades > max_exact = 4096
    assert out["bound"].iloc[3] == 0.0
    assert out["bound"].max() < 1e-4
    assert_same(out, expected(pdf, metrics=metrics, **OPTIONS), exact=False)


@pytest.mark.parametrize("split_every", [2, 3, 100])
@pytest.mark.parametrize("npartitions", [1, 2, 13])
def test_any_tree_gives_the_same_values(pdf, split_every, npartitions):
    ddf = dd.from_pandas(pdf, npartitions=npartitions)
    metrics = ["rps", "log_loss", "qwk", ("mae", {"decision": "median"}), "ece", "c_index"]
    out = odask.evaluate(
        ddf, truth="grade", proba=PROBA, metrics=metrics, split_every=split_every,
        max_exact=10**6, **OPTIONS,
    )  # fmt: skip
    assert_same(out, expected(pdf, metrics=metrics, **OPTIONS))


def test_options_reach_the_evaluators(pdf, ddf):
    metrics = [("expected_cost", {"costs": "squared"}), "qwk", ("ece", {"n_bins": 7})]
    out = odask.evaluate(
        ddf, truth="grade", proba=PROBA, metrics=metrics, decision="median", **OPTIONS
    )
    assert_same(out, expected(pdf, metrics=metrics, decision="median", **OPTIONS))
    assert list(out["metric"]) == ["expected_cost(costs=squared)", "qwk", "ece(n_bins=7)"]


def test_integer_truth_without_labels(pdf):
    frame = pdf.dropna().assign(grade=lambda f: f["grade"].map(LABELS.index).astype("int64"))
    out = odask.evaluate(
        dd.from_pandas(frame, npartitions=5), truth="grade", proba=PROBA, max_exact=10**6
    )
    assert_same(out, expected(frame))


def test_ordered_categorical_truth_carries_its_order(pdf):
    frame = pdf.assign(grade=pd.Categorical(pdf["grade"], categories=LABELS, ordered=True))
    ddf = dd.from_pandas(frame, npartitions=N_PARTITIONS)
    assert ddf["grade"].cat.known
    options = {"sample_weight": "w", "nan_policy": "omit", "max_exact": 10**6}
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, **options)
    assert_same(out, expected(pdf, **OPTIONS))


def test_propagate_gives_nan_like_the_in_memory_evaluation(pdf, ddf):
    options = {**OPTIONS, "nan_policy": "propagate"}
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, metrics=["rps", "qwk"], **options)
    assert out["estimate"].isna().all()
    assert_same(out, expected(pdf, metrics=["rps", "qwk"], **options))


# --------------------------------------------------------------------------------------------
# Groups
# --------------------------------------------------------------------------------------------


def test_groups_equal_the_in_memory_groups_in_order_of_first_appearance(ddf):
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, by="site", max_exact=10**6, **OPTIONS)
    ref = expected(ddf.compute(), by="site", **OPTIONS)
    assert_same(out, ref)
    assert not out["site"].isna().any()  # omit: the rows without a site are dropped
    assert len(out) == 4 * len(ordmetrics.DEFAULT_METRICS)


def _complete(pdf: pd.DataFrame) -> pd.DataFrame:
    """The rows with a truth, probabilities and a weight (the site may be missing)."""
    return pdf.dropna(subset=["grade", "w", *PROBA]).reset_index(drop=True)


def test_missing_group_keys_follow_nan_policy(pdf):
    frame = _complete(pdf)
    ddf = dd.from_pandas(frame, npartitions=N_PARTITIONS)
    metrics = ["rps", "qwk"]
    args = {"truth": "grade", "proba": PROBA, "labels": LABELS, "sample_weight": "w"}
    args |= {"metrics": metrics, "max_exact": 10**6}
    # propagate: the rows without a site form one group, as in memory
    out = odask.evaluate(ddf, by=["shift", "site"], nan_policy="propagate", **args)
    ref = expected(
        ddf.compute(), metrics=metrics, labels=LABELS, sample_weight="w", by=["shift", "site"],
        nan_policy="propagate",
    )  # fmt: skip
    assert_same(out, ref)
    assert out["site"].isna().sum() == 3 * len(metrics)  # one missing-site group per shift
    assert np.isfinite(out["estimate"]).all()
    # omit: they are dropped
    out = odask.evaluate(ddf, by="site", nan_policy="omit", **args)
    ref = expected(
        ddf.compute().dropna(subset=["site"]), metrics=metrics, labels=LABELS, sample_weight="w",
        by="site",
    )  # fmt: skip
    assert_same(out, ref)
    # raise: an error naming the column, a partition and the first row in it (the partition
    # whose task fails first, which the threaded scheduler does not fix)
    with pytest.raises(ValueError, match=r"by column 'site' is missing \(NaN/None\)") as info:
        odask.evaluate(ddf, by="site", **args)
    got = re.search(r"in row (\d+) of partition (\d+) of the Dask frame", str(info.value))
    assert got is not None and "nan_policy='omit'" in str(info.value)
    row, part = int(got.group(1)), int(got.group(2))
    site = ddf.get_partition(part).compute()["site"].isna().to_numpy()
    assert row == int(np.flatnonzero(site)[0])


def test_two_group_columns(ddf):
    metrics = ["rps", "qwk", "c_index"]
    out = odask.evaluate(
        ddf, truth="grade", proba=PROBA, metrics=metrics, by=["shift", "site"],
        max_exact=10**6, **OPTIONS,
    )  # fmt: skip
    ref = expected(ddf.compute(), metrics=metrics, by=["shift", "site"], **OPTIONS)
    assert len(ref) == 3 * 4 * len(metrics)  # omit drops the rows without a site
    assert_same(out, ref)


def test_groups_absent_from_some_partitions(pdf):
    frame = pdf.sort_values("site", kind="stable", na_position="first").reset_index(drop=True)
    ddf = dd.from_pandas(frame, npartitions=N_PARTITIONS, sort=False)
    ddf = ddf[ddf["shift"] < 2]  # some partitions hold one site only
    out = odask.evaluate(
        ddf, truth="grade", proba=PROBA, metrics=["rps", "ece"], by="site", **OPTIONS
    )
    assert_same(out, expected(ddf.compute(), metrics=["rps", "ece"], by="site", **OPTIONS))


def test_empty_partitions_change_nothing(pdf, ddf):
    filtered = ddf[ddf["shift"] == 1]
    frame = pdf[pdf["shift"] == 1]
    parts = dd.from_pandas(frame.iloc[:0], npartitions=1)
    ddf2 = dd.concat([parts, filtered, parts])
    out = odask.evaluate(ddf2, truth="grade", proba=PROBA, metrics=["rps", "qwk"], **OPTIONS)
    assert_same(out, expected(frame, metrics=["rps", "qwk"], **OPTIONS))


def test_categorical_group_column_keeps_its_dtype(pdf):
    frame = pdf.assign(site=pdf["site"].astype("category"))
    ddf = dd.from_pandas(frame, npartitions=N_PARTITIONS)
    out = odask.evaluate(ddf, truth="grade", proba=PROBA, metrics=["rps"], by="site", **OPTIONS)
    ref = expected(ddf.compute(), metrics=["rps"], by="site", **OPTIONS)
    assert isinstance(out["site"].dtype, pd.CategoricalDtype)
    assert_same(out, ref)


# --------------------------------------------------------------------------------------------
# What travels
# --------------------------------------------------------------------------------------------


def _is_plain(x) -> bool:
    if isinstance(x, dict):
        return all(_is_plain(k) and _is_plain(v) for k, v in x.items())
    if isinstance(x, list | tuple):
        return all(_is_plain(v) for v in x)
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biuf"
    return x is None or isinstance(x, str | bool | int | float)


def test_tasks_send_plain_state_dicts(pdf):
    spec = {
        "truth": "grade",
        "proba": PROBA,
        "weight": "w",
        "by": ["site"],
        "nan_policy": "omit",
        "state": Evaluator(labels=LABELS, nan_policy="omit").state_dict(),
    }
    part = pdf.iloc[:3000]
    states = odask_impl._partition_state(part, 0, spec)
    assert _is_plain(states)
    merged = odask_impl._combine(
        spec, states, odask_impl._partition_state(pdf.iloc[3000:6000], 1, spec)
    )
    assert _is_plain(merged)
    pickle.loads(pickle.dumps(merged))  # plain pickle, not cloudpickle


# --------------------------------------------------------------------------------------------
# A local cluster of worker processes
# --------------------------------------------------------------------------------------------


def test_local_cluster_of_processes(pdf, ddf):
    distributed = pytest.importorskip(
        "distributed", reason="the distributed scheduler is not installed (pip install distributed)"
    )
    with (
        distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
        with distributed.get_task_stream(client) as stream:
            out = odask.evaluate(ddf, truth="grade", proba=PROBA, max_exact=10**6, **OPTIONS)
        workers = {t["worker"] for t in stream.data if "_partition_state" in str(t["key"])}
        assert workers == set(pids)  # the partitions were read on both worker processes
        grouped = odask.evaluate(
            ddf, truth="grade", proba=PROBA, metrics=["rps", "qwk", "c_index"], by="site",
            **OPTIONS,
        )  # fmt: skip
        with pytest.raises(ValueError, match="partition") as info:
            odask.evaluate(ddf, truth="grade", proba=PROBA, labels=LABELS)
    assert_same(out, expected(pdf, **OPTIONS))
    ref = expected(ddf.compute(), metrics=["rps", "qwk", "c_index"], by="site", **OPTIONS)
    assert_same(grouped, ref, exact=False)
    assert "missing" in str(info.value)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_not_a_dask_frame(pdf, ddf):
    with pytest.raises(TypeError, match=r"Dask DataFrame.*ordmetrics.evaluate"):
        odask.evaluate(pdf, truth="grade", proba=PROBA, labels=LABELS)
    with pytest.raises(TypeError, match="Dask Series"):
        odask.evaluate(ddf["grade"], truth="grade", proba=PROBA, labels=LABELS)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"truth": "grad"}, ValueError, r"truth column 'grad' is not in data.*'grade'"),
        ({"proba": "q_"}, ValueError, r"proba prefix 'q_' matches no column.*'p_0'"),
        ({"proba": ["p_0", "p_9"]}, ValueError, r"proba column 'p_9'.*Columns: 'grade'"),
        ({"sample_weight": "weight"}, ValueError, r"sample_weight column 'weight'.*'w'"),
        ({"by": "region"}, ValueError, r"by column 'region' is not in data"),
        ({"proba": "p_", "by": "p_1"}, ValueError, "also a probability column"),
        ({"proba": ["site", *PROBA[1:]]}, TypeError, r"proba column 'site' must be numeric"),
        ({"sample_weight": "site"}, TypeError, r"sample_weight column 'site' must be numeric"),
        ({"labels": LABELS[:4]}, ValueError, r"labels has 4 classes but proba has 5 columns"),
        ({"labels": None}, ValueError, r"truth column 'grade' holds strings.*labels="),
        ({"nan_policy": "drop"}, ValueError, "nan_policy"),
        ({"decision": "mode"}, ValueError, "decision"),
        ({"metrics": ["rps", "nope"]}, ValueError, "nope"),
        ({"metrics": [("ece", {"strategy": "quantile"})]}, ValueError, "quantile"),
        ({"max_exact": -1}, ValueError, "max_exact"),
        ({"split_every": 1}, ValueError, r"split_every must be an integer >= 2"),
    ],
)
def test_bad_arguments_are_named(ddf, kwargs, error, match):
    args = {"truth": "grade", "proba": PROBA, **OPTIONS, **kwargs}
    with pytest.raises(error, match=match):
        odask.evaluate(ddf, **args)


def test_missing_values_under_raise_name_the_partition(ddf):
    with pytest.raises(ValueError, match="missing") as info:
        odask.evaluate(ddf, truth="grade", proba=PROBA, labels=LABELS, sample_weight="w")
    assert any("partition" in note for note in getattr(info.value, "__notes__", []))


def test_errors_in_a_group_name_the_group(pdf):
    frame = pdf.dropna(subset=["grade", "w", "site", *PROBA]).copy()
    frame.loc[frame.index[frame["site"] == "east"][5], "w"] = -1.0
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError) as info:
        odask.evaluate(ddf, truth="grade", proba=PROBA, labels=LABELS, sample_weight="w", by="site")
    assert any("site='east'" in note for note in getattr(info.value, "__notes__", []))


def test_categorical_truth_with_unknown_categories(pdf):
    frame = pdf.assign(grade=pd.Categorical(pdf["grade"], categories=LABELS, ordered=True))
    ddf = dd.from_pandas(frame, npartitions=3)
    unknown = ddf.assign(grade=ddf["grade"].cat.as_unknown())
    assert not unknown["grade"].cat.known
    with pytest.raises(ValueError, match=r"cat\.as_known\(\)"):
        odask.evaluate(unknown, truth="grade", proba=PROBA, nan_policy="omit")
    out = odask.evaluate(unknown, truth="grade", proba=PROBA, labels=LABELS, nan_policy="omit")
    ref = odask.evaluate(ddf, truth="grade", proba=PROBA, nan_policy="omit")
    pd.testing.assert_frame_equal(out, ref)


def test_ordered_categorical_of_another_length(pdf):
    frame = pdf.assign(grade=pd.Categorical(pdf["grade"], categories=LABELS, ordered=True))
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match="ordered categorical with 5 categories"):
        odask.evaluate(ddf, truth="grade", proba=PROBA[:4], nan_policy="omit")


def test_a_group_named_like_an_output_column(pdf):
    ddf = dd.from_pandas(pdf.rename(columns={"site": "bound"}), npartitions=2)
    with pytest.raises(ValueError, match="'bound' has the name of an output column"):
        odask.evaluate(ddf, truth="grade", proba=PROBA, by="bound", **OPTIONS)


def test_without_dask_the_error_says_what_to_install(monkeypatch, ddf):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"pip install ordmetrics\[dask\]"):
        odask.evaluate(ddf, truth="grade", proba=PROBA, **OPTIONS)


# --------------------------------------------------------------------------------------------
# Columns named after the labels; the estimator column
# --------------------------------------------------------------------------------------------


def test_prefix_columns_named_after_labels_follow_the_labels(pdf):
    frame = pdf.dropna(subset=["grade", "w", *PROBA]).reset_index(drop=True)
    named = {c: f"p_{LABELS[j]}" for j, c in enumerate(PROBA)}
    shuffled = ["grade", "w", *(named[PROBA[j]] for j in (3, 0, 4, 2, 1))]  # file order
    frame = frame.rename(columns=named)[shuffled]
    ddf = dd.from_pandas(frame, npartitions=N_PARTITIONS)
    ordered = [named[c] for c in PROBA]
    metrics = ["rps", "qwk", "ece"]
    ref = ordmetrics.evaluate(
        frame, truth="grade", proba=ordered, labels=LABELS, sample_weight="w", metrics=metrics
    )
    out = odask.evaluate(
        ddf, truth="grade", proba="p_", labels=LABELS, sample_weight="w", metrics=metrics
    )
    assert_same(out, ref)
    assert list(out["estimator"]) == ["multiclass", "multiclass", "top_label"]
    # an ordered categorical truth names the classes too
    cat = frame.assign(grade=pd.Categorical(frame["grade"], categories=LABELS, ordered=True))
    out = odask.evaluate(
        dd.from_pandas(cat, npartitions=3), truth="grade", proba="p_", sample_weight="w",
        metrics=metrics,
    )  # fmt: skip
    np.testing.assert_allclose(out["estimate"], ref["estimate"], rtol=1e-12, atol=0)
    # in file order, the columns would be other classes: a different number
    in_file_order = frame[shuffled[2:]].to_numpy()
    wrong = ordmetrics.rps(frame["grade"], in_file_order, labels=LABELS, sample_weight=frame["w"])
    assert abs(wrong - ref["estimate"][0]) > 1e-3


def test_estimator_column_for_two_classes():
    rng = np.random.default_rng(5)
    p1 = rng.random(500)
    frame = pd.DataFrame({"y": (rng.random(500) < p1).astype(int), "p0": 1 - p1, "p1": p1})
    metrics = ["rps", "macro_f1", "c_index", "cumulative_ece"]
    out = odask.evaluate(
        dd.from_pandas(frame, npartitions=3), truth="y", proba="p", metrics=metrics
    )
    ref = ordmetrics.evaluate(frame, truth="y", proba="p", metrics=metrics)
    assert list(out["estimator"]) == ["binary", "macro", "binary", "cumulative"]
    assert_same(out, ref)
