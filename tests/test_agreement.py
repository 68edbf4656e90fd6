"""Hard-label agreement metrics: literal loops, scikit-learn, worked examples, inputs and errors.

The references below are plain Python loops over the rows, written from docs/definitions.md
section 2; they use nothing from ``ordmetrics``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_score,
    recall_score,
)
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

import ordmetrics
from ordmetrics._core.warnings import UndefinedMetricWarning
from ordmetrics.metrics import agreement as A

METRICS = ["kappa", "qwk", "expected_cost", "mae", "amae", "mmae", "accuracy"]
METRICS += ["within_k_accuracy", "macro_f1", "macro_precision", "macro_recall"]
REL = 1e-12


# --------------------------------------------------------------------------------------------
# Literal references
# --------------------------------------------------------------------------------------------


def _w(w, n):
    return [1.0] * n if w is None else [float(v) for v in w]


def ref_confusion(yt, yp, K, w=None):
    w = _w(w, len(yt))
    M = [[0.0] * K for _ in range(K)]
    for a, b, wi in zip(yt, yp, w, strict=True):
        M[int(a)][int(b)] += wi
    return M


def ref_kappa(yt, yp, K, W, w=None):
    """1 - sum(W O) / sum(W E); None when sum(W E) = 0."""
    M = ref_confusion(yt, yp, K, w)
    total = sum(sum(row) for row in M)
    P = [[M[i][j] / total for j in range(K)] for i in range(K)]
    r = [sum(P[i][j] for j in range(K)) for i in range(K)]
    c = [sum(P[i][j] for i in range(K)) for j in range(K)]
    num = sum(W[i][j] * P[i][j] for i in range(K) for j in range(K))
    den = sum(W[i][j] * r[i] * c[j] for i in range(K) for j in range(K))
    return None if den == 0 else 1.0 - num / den


def ref_weights(kind, K):
    if kind is None:
        return [[0.0 if i == j else 1.0 for j in range(K)] for i in range(K)]
    if kind == "linear":
        return [[abs(i - j) / (K - 1) for j in range(K)] for i in range(K)]
    if kind == "quadratic":
        return [[(i - j) ** 2 / (K - 1) ** 2 for j in range(K)] for i in range(K)]
    raise KeyError(kind)


def ref_costs(kind, K):
    if kind == "absolute":
        return [[abs(i - j) for j in range(K)] for i in range(K)]
    if kind == "squared":
        return [[(i - j) ** 2 for j in range(K)] for i in range(K)]
    if kind == "zero_one":
        return [[0 if i == j else 1 for j in range(K)] for i in range(K)]
    raise KeyError(kind)


def ref_ec(yt, yp, C, w=None):
    w = _w(w, len(yt))
    return math.fsum(wi * C[int(a)][int(b)] for a, b, wi in zip(yt, yp, w, strict=True)) / sum(w)


def ref_ec_normalized(yt, yp, C, K, w=None):
    w = _w(w, len(yt))
    total = sum(w)
    pi = [sum(wi for a, wi in zip(yt, w, strict=True) if a == j) / total for j in range(K)]
    best = min(sum(pi[j] * C[j][k] for j in range(K)) for k in range(K))
    return None if best == 0 else ref_ec(yt, yp, C, w) / best


def ref_mae(yt, yp, w=None):
    w = _w(w, len(yt))
    return math.fsum(wi * abs(a - b) for a, b, wi in zip(yt, yp, w, strict=True)) / sum(w)


def ref_class_maes(yt, yp, K, w=None):
    w = _w(w, len(yt))
    out = []
    for k in range(K):
        wk = sum(wi for a, wi in zip(yt, w, strict=True) if a == k)
        if wk > 0:
            err = sum(wi * abs(a - b) for a, b, wi in zip(yt, yp, w, strict=True) if a == k)
            out.append(err / wk)
    return out


def ref_accuracy(yt, yp, w=None, k=0):
    w = _w(w, len(yt))
    return sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if abs(a - b) <= k) / sum(w)


def ref_macro_f1(yt, yp, K, w=None):
    w = _w(w, len(yt))
    f1s = []
    for c in range(K):
        tp = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a == c and b == c)
        fp = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a != c and b == c)
        fn = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a == c and b != c)
        if tp + fp + fn == 0:
            continue  # class absent from y_true and y_pred
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        f1s.append(f1)
    return sum(f1s) / len(f1s)


def ref_macro_pr(yt, yp, K, w=None, which="precision"):
    """Literal loop: mean over classes present in y_true or y_pred; 0 for a zero denominator."""
    w = _w(w, len(yt))
    vals = []
    for c in range(K):
        tp = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a == c and b == c)
        pred = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if b == c)
        true = sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a == c)
        if pred + true == 0:
            continue
        den = pred if which == "precision" else true
        vals.append(tp / den if den > 0 else 0.0)
    return sum(vals) / len(vals)


def present_classes(yt, yp, K, w=None):
    w = _w(w, len(yt))
    return [
        c
        for c in range(K)
        if sum(wi for a, b, wi in zip(yt, yp, w, strict=True) if a == c or b == c) > 0
    ]


# --------------------------------------------------------------------------------------------
# Random data: ties, weights, classes absent from the data
# --------------------------------------------------------------------------------------------


def make_case(seed):
    """(y_true, y_pred, K, weights) with K = 2..8, some classes absent, weights with zeros."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 9))
    n = int(rng.integers(1, 60))
    used = rng.choice(K, size=int(rng.integers(1, K + 1)), replace=False)
    yt = rng.choice(used, size=n)
    noise = rng.integers(-2, 3, size=n)
    yp = np.clip(yt + noise * (rng.uniform(size=n) < 0.6), 0, K - 1)
    yp[0] = K - 1  # K is the label set 0..K-1 even when K-1 is rare
    mode = seed % 3
    if mode == 0:
        w = None
    elif mode == 1:
        w = rng.uniform(0.0, 3.0, size=n)
    else:
        w = rng.integers(0, 4, size=n).astype(float)
        w[0] = 1.0
    return yt, yp, K, w


SEEDS = list(range(60))


@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_matrix_matches_loop_and_sklearn(seed):
    yt, yp, K, w = make_case(seed)
    got = A.confusion_matrix(yt, yp, sample_weight=w)
    np.testing.assert_allclose(got, ref_confusion(yt, yp, K, w), rtol=REL)
    expected = sk_confusion_matrix(yt, yp, labels=range(K), sample_weight=w)
    np.testing.assert_allclose(got, expected, rtol=REL)
    assert got.shape == (K, K)
    assert got.dtype == (np.int64 if w is None else np.float64)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_matches_loop_and_sklearn_with_all_labels(seed, weights):
    yt, yp, K, w = make_case(seed)
    expected = ref_kappa(yt, yp, K, ref_weights(weights, K), w)
    if expected is None:
        with pytest.warns(UndefinedMetricWarning, match="kappa is undefined"):
            assert math.isnan(A.kappa(yt, yp, sample_weight=w, weights=weights))
        return
    got = A.kappa(yt, yp, sample_weight=w, weights=weights)
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=REL, abs=1e-13)
    sk = cohen_kappa_score(yt, yp, labels=list(range(K)), weights=weights, sample_weight=w)
    assert got == pytest.approx(sk, rel=1e-10, abs=1e-12)
    if weights == "quadratic":
        assert A.qwk(yt, yp, sample_weight=w) == got


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_kappa_with_a_custom_weight_matrix(seed):
    yt, yp, K, w = make_case(seed)
    rng = np.random.default_rng(1000 + seed)
    W = rng.uniform(0.1, 2.0, size=(K, K))
    np.fill_diagonal(W, 0.0)
    expected = ref_kappa(yt, yp, K, W.tolist(), w)
    if expected is None:
        return
    assert A.kappa(yt, yp, sample_weight=w, weights=W) == pytest.approx(expected, rel=1e-11)
    # the built-in weights given as matrices, at any scale
    d = np.subtract.outer(np.arange(K), np.arange(K))
    lin = A.kappa(yt, yp, sample_weight=w, weights="linear")
    assert A.kappa(yt, yp, sample_weight=w, weights=7.0 * np.abs(d)) == pytest.approx(lin)
    quad = A.kappa(yt, yp, sample_weight=w, weights="quadratic")
    assert A.kappa(yt, yp, sample_weight=w, weights=(d**2).tolist()) == pytest.approx(quad)


def test_qwk_uses_the_full_label_set():
    yt, yp = [0, 2, 5], [0, 5, 5]
    # By hand over the six classes 0..5: sum (i-j)^2 O = 9/3 = 3; sum (i-j)^2 r_i c_j = 97/9.
    assert A.qwk(yt, yp) == pytest.approx(70 / 97, rel=1e-15)
    sk_full = cohen_kappa_score(yt, yp, labels=list(range(6)), weights="quadratic")
    sk_observed = cohen_kappa_score(yt, yp, weights="quadratic")
    assert A.qwk(yt, yp) == pytest.approx(sk_full, rel=1e-12)
    assert abs(A.qwk(yt, yp) - sk_observed) > 0.05
    assert A.qwk(yt, yp, labels=range(6)) == A.qwk(yt, yp)
    # a larger label set (class 6 absent too) changes nothing for QWK but is still honoured
    assert A.qwk(yt, yp, labels=range(7)) == pytest.approx(70 / 97, rel=1e-15)


def test_kappa_worked_examples():
    yt, yp = [0, 1, 2, 2], [0, 2, 2, 1]
    # p_o = 1/2, p_e = 3/8: (1/2 - 3/8) / (1 - 3/8) = 1/5
    assert A.kappa(yt, yp) == pytest.approx(0.2, rel=1e-15)
    # linear: sum W O = 1/4, sum W E = 7/16
    assert A.kappa(yt, yp, weights="linear") == pytest.approx(1 - 4 / 7, rel=1e-15)
    # total disagreement on two classes
    assert A.kappa([0, 1], [1, 0]) == pytest.approx(-1.0)
    assert A.qwk([0, 2], [2, 0]) == pytest.approx(-1.0)
    assert A.qwk([0, 1, 2, 3], [0, 1, 2, 3]) == 1.0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("costs", ["absolute", "squared", "zero_one", "matrix"])
def test_expected_cost_matches_loop(seed, costs):
    yt, yp, K, w = make_case(seed)
    if costs == "matrix":
        C = np.random.default_rng(seed).uniform(0.0, 5.0, size=(K, K))
        arg, ref_C = C, C.tolist()
    else:
        arg, ref_C = costs, ref_costs(costs, K)
    got = A.expected_cost(yt, yp, sample_weight=w, costs=arg)
    assert got == pytest.approx(ref_ec(yt, yp, ref_C, w), rel=REL, abs=1e-14)
    expected = ref_ec_normalized(yt, yp, ref_C, K, w)
    if expected is None:
        with pytest.warns(UndefinedMetricWarning, match="best constant prediction costs 0"):
            assert math.isnan(A.expected_cost(yt, yp, sample_weight=w, costs=arg, normalize=True))
    else:
        got = A.expected_cost(yt, yp, sample_weight=w, costs=arg, normalize=True)
        assert got == pytest.approx(expected, rel=REL, abs=1e-14)


def test_expected_cost_by_hand():
    yt, yp = [0, 1, 2, 2], [0, 2, 2, 0]
    # per-row costs: absolute 0, 1, 0, 2; squared 0, 1, 0, 4; zero-one 0, 1, 0, 1
    assert A.expected_cost(yt, yp) == 0.75
    assert A.expected_cost(yt, yp, costs="squared") == 1.25
    assert A.expected_cost(yt, yp, costs="zero_one") == 0.5
    # pi = (1/4, 1/4, 1/2); constant predictions 0, 1, 2 cost
    # absolute 5/4, 3/4, 3/4; squared 9/4, 3/4, 5/4; zero-one 3/4, 3/4, 1/2
    assert A.expected_cost(yt, yp, normalize=True) == pytest.approx(1.0)
    assert A.expected_cost(yt, yp, costs="squared", normalize=True) == pytest.approx(5 / 3)
    assert A.expected_cost(yt, yp, costs="zero_one", normalize=True) == pytest.approx(1.0)
    C = [[0, 1, 4], [2, 0, 1], [9, 3, 0]]
    # per-row costs 0, C[1][2] = 1, 0, C[2][0] = 9 -> 10/4; constants: 5, 7/4, 5/4
    assert A.expected_cost(yt, yp, costs=C) == 2.5
    assert A.expected_cost(yt, yp, costs=C, normalize=True) == pytest.approx(2.0)
    # with weights (1, 1, 2, 0): costs 0, 1, 0 -> 1/4; pi = (1/4, 1/4, 1/2)
    assert A.expected_cost(yt, yp, sample_weight=[1, 1, 2, 0]) == 0.25


@pytest.mark.parametrize("seed", SEEDS)
def test_mae_family_matches_loops(seed):
    yt, yp, K, w = make_case(seed)
    assert A.mae(yt, yp, sample_weight=w) == pytest.approx(ref_mae(yt, yp, w), rel=REL, abs=1e-14)
    per_class = ref_class_maes(yt, yp, K, w)
    amae = A.amae(yt, yp, sample_weight=w)
    mmae = A.mmae(yt, yp, sample_weight=w)
    assert amae == pytest.approx(sum(per_class) / len(per_class), rel=REL, abs=1e-14)
    assert mmae == pytest.approx(max(per_class), rel=REL, abs=1e-14)
    assert A.mae(yt, yp, sample_weight=w) == pytest.approx(
        A.expected_cost(yt, yp, sample_weight=w), rel=REL
    )


def test_amae_and_mmae_with_an_absent_class():
    yt, yp = [0, 0, 2, 2], [0, 1, 2, 0]
    # class 0: MAE (0 + 1)/2 = 0.5; class 1: absent; class 2: (0 + 2)/2 = 1
    for labels in (None, [0, 1, 2], [0, 1, 2, 3]):
        assert A.amae(yt, yp, labels=labels) == 0.75  # averaging over 3 positions gives 0.5
        assert A.mmae(yt, yp, labels=labels) == 1.0
        assert A.mae(yt, yp, labels=labels) == 0.75
    # a class whose rows all have weight 0 is absent too
    assert A.amae([0, 0, 1, 2, 2], [0, 1, 0, 2, 0], sample_weight=[1, 1, 0, 1, 1]) == 0.75


@pytest.mark.parametrize("seed", SEEDS)
def test_accuracy_and_within_k_match_loops_and_sklearn(seed):
    yt, yp, K, w = make_case(seed)
    acc = A.accuracy(yt, yp, sample_weight=w)
    assert acc == pytest.approx(ref_accuracy(yt, yp, w), rel=REL, abs=1e-15)
    assert acc == pytest.approx(accuracy_score(yt, yp, sample_weight=w), rel=1e-12)
    assert A.within_k_accuracy(yt, yp, sample_weight=w, k=0) == pytest.approx(acc, rel=REL)
    for k in (1, 2, 3, K - 1, K + 5, np.int64(1)):
        got = A.within_k_accuracy(yt, yp, sample_weight=w, k=k)
        assert got == pytest.approx(ref_accuracy(yt, yp, w, k=int(k)), rel=REL, abs=1e-15)
    assert A.within_k_accuracy(yt, yp, sample_weight=w, k=K - 1) == pytest.approx(1.0)


def test_within_k_by_hand():
    yt, yp = [0, 1, 3, 3, 4], [0, 2, 3, 1, 1]
    assert A.within_k_accuracy(yt, yp) == 0.6
    assert A.within_k_accuracy(yt, yp, k=2) == 0.8
    assert A.within_k_accuracy(yt, yp, k=3) == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_macro_f1_matches_loop_and_sklearn(seed):
    yt, yp, K, w = make_case(seed)
    got = A.macro_f1(yt, yp, sample_weight=w)
    assert got == pytest.approx(ref_macro_f1(yt, yp, K, w), rel=REL, abs=1e-15)
    present = present_classes(yt, yp, K, w)
    sk = f1_score(yt, yp, average="macro", labels=present, zero_division=0, sample_weight=w)
    assert got == pytest.approx(sk, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_macro_precision_and_recall_match_loop_and_sklearn(seed):
    yt, yp, K, w = make_case(seed)
    present = present_classes(yt, yp, K, w)
    for name, sk_func in (("precision", precision_score), ("recall", recall_score)):
        got = getattr(A, f"macro_{name}")(yt, yp, sample_weight=w)
        assert got == pytest.approx(ref_macro_pr(yt, yp, K, w, name), rel=REL, abs=1e-15)
        sk = sk_func(yt, yp, average="macro", labels=present, zero_division=0, sample_weight=w)
        assert got == pytest.approx(sk, rel=1e-12, abs=1e-15)


def test_macro_precision_and_recall_by_hand():
    yt, yp = [0, 1, 3, 3], [0, 2, 3, 1]
    # precision: class 0 = 1, class 1 = 0 (one prediction, wrong), class 2 = 0, class 3 = 1
    assert A.macro_precision(yt, yp) == pytest.approx(0.5, rel=1e-15)
    # recall: class 0 = 1, class 1 = 0, class 2 = 0 (never true), class 3 = 1/2
    assert A.macro_recall(yt, yp) == pytest.approx(0.375, rel=1e-15)
    # a label-set class absent from both is left out, as for macro F1
    assert A.macro_precision(yt, yp, labels=range(6)) == pytest.approx(0.5, rel=1e-15)
    # with all classes present and every class predicted, recall is the balanced accuracy
    from sklearn.metrics import balanced_accuracy_score

    yt, yp = [0, 0, 1, 2, 2, 2], [0, 1, 1, 2, 0, 2]
    assert A.macro_recall(yt, yp) == pytest.approx(balanced_accuracy_score(yt, yp), rel=1e-15)
    assert ordmetrics.macro_precision is A.macro_precision
    assert ordmetrics.macro_recall is A.macro_recall


def test_macro_precision_and_recall_weights_and_nan_policy():
    yt, yp = [0, 1, 2, 2], [0, 2, 2, 1]
    w = [1.0, 2.0, 3.0, 0.0]
    # the weight-0 row is absent: precision (1 + 0 + 3/5) / 3, recall (1 + 0 + 1) / 3
    assert A.macro_precision(yt, yp, sample_weight=w) == pytest.approx(1.6 / 3, rel=1e-15)
    assert A.macro_recall(yt, yp, sample_weight=w) == pytest.approx(2 / 3, rel=1e-15)
    yt_nan = [0, 1, 2, 2, np.nan]
    yp_nan = [0, 2, 2, 1, 1]
    with pytest.raises(ValueError, match="nan_policy"):
        A.macro_precision(yt_nan, yp_nan)
    assert A.macro_recall(yt_nan, yp_nan, nan_policy="omit") == A.macro_recall(yt, yp)
    assert math.isnan(A.macro_precision(yt_nan, yp_nan, nan_policy="propagate"))
    with pytest.raises(ValueError, match="sample_weight"):
        A.macro_recall(yt, yp, sample_weight=[1.0, -1.0, 1.0, 1.0])


def test_macro_f1_leaves_out_classes_absent_from_both():
    yt, yp = [0, 1, 3, 3], [0, 2, 3, 1]
    # F1: class 0 = 1, class 1 = 0, class 2 = 0 (predicted only), class 3 = 2/3
    assert A.macro_f1(yt, yp) == pytest.approx((1 + 0 + 0 + 2 / 3) / 4)
    # class 4 of the label set occurs nowhere: left out of the mean
    assert A.macro_f1(yt, yp, labels=range(6)) == pytest.approx((1 + 2 / 3) / 4)


# --------------------------------------------------------------------------------------------
# Labels and containers
# --------------------------------------------------------------------------------------------

GRADES = ["none", "mild", "moderate", "severe"]  # not alphabetical


def call(name, yt, yp, **kw):
    return getattr(A, name)(yt, yp, **kw)


@pytest.mark.parametrize("name", METRICS)
def test_string_labels_in_their_ordinal_order(name):
    yt, yp, _, w = make_case(7)
    yt, yp = yt % 4, yp % 4
    names = np.array(GRADES, dtype=object)
    expected = call(name, yt, yp, labels=range(4), sample_weight=w)
    got = call(name, names[yt], names[yp], labels=GRADES, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-15, nan_ok=True)
    got = call(name, names[yt].astype(str).tolist(), list(names[yp]), labels=tuple(GRADES))
    assert got == pytest.approx(call(name, yt, yp, labels=range(4)), rel=1e-15, nan_ok=True)
    # the alphabetical order is another ordinal order, with other values for ordinal metrics
    if name in ("qwk", "mae"):
        assert call(name, names[yt], names[yp], labels=sorted(GRADES)) != pytest.approx(expected)


def test_string_labels_for_the_confusion_matrix():
    yt = ["mild", "severe", "none", "mild"]
    yp = ["mild", "moderate", "none", "none"]
    got = A.confusion_matrix(yt, yp, labels=GRADES)
    expected = [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", METRICS)
def test_pandas_and_polars_inputs(name):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    yt, yp, K, w = make_case(11)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=yt.size)
    expected = call(name, yt, yp, labels=range(K), sample_weight=w)
    got = call(name, pd.Series(yt), pd.Series(yp), labels=range(K), sample_weight=pd.Series(w))
    assert got == pytest.approx(expected, rel=1e-15)
    got = call(name, pl.Series(yt), pl.Series(yp), labels=range(K), sample_weight=pl.Series(w))
    assert got == pytest.approx(expected, rel=1e-15)
    frame = pd.DataFrame({"t": yt, "p": yp})
    got = call(name, frame[["t"]], frame["p"], labels=range(K), sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-15)
    # ordered categoricals carry their own order
    cats = [f"g{i}" for i in range(K)][::-1]  # reverse-alphabetical order
    t = pd.Categorical(np.array(cats)[yt], categories=cats, ordered=True)
    p = pd.Categorical(np.array(cats)[yp], categories=cats, ordered=True)
    assert call(name, t, p, sample_weight=w) == pytest.approx(expected, rel=1e-15)
    enum = pl.Enum(cats)
    t = pl.Series(np.array(cats)[yt].tolist(), dtype=enum)
    p = pl.Series(np.array(cats)[yp].tolist(), dtype=enum)
    assert call(name, t, p, sample_weight=w) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("name", METRICS)
def test_row_order_and_input_forms_do_not_matter(name):
    yt, yp, _, _ = make_case(13)
    w = np.random.default_rng(13).uniform(0.5, 2.0, size=yt.size)
    perm = np.random.default_rng(14).permutation(yt.size)
    expected = call(name, yt, yp, sample_weight=w)
    assert call(name, yt[perm], yp[perm], sample_weight=w[perm]) == pytest.approx(expected)
    assert call(name, yt.tolist(), yp.tolist(), sample_weight=w.tolist()) == expected
    assert call(name, yt.astype(float), yp.astype(np.int32), sample_weight=w) == expected
    assert call(name, yt.reshape(-1, 1), yp, sample_weight=w) == expected


# --------------------------------------------------------------------------------------------
# Weights: repetition and scale
# --------------------------------------------------------------------------------------------


def test_confusion_matrix_weights_equal_repeated_rows():
    yt, yp, K, _ = make_case(5)
    w = np.random.default_rng(5).integers(0, 4, size=yt.size)
    w[0] = 1
    weighted = A.confusion_matrix(yt, yp, labels=range(K), sample_weight=w)
    repeated = A.confusion_matrix(np.repeat(yt, w), np.repeat(yp, w), labels=range(K))
    np.testing.assert_array_equal(weighted, repeated)


def test_confusion_matrix_normalizations():
    yt, yp = [0, 0, 1, 3, 3, 3], [0, 1, 1, 3, 2, 0]
    M = np.array(ref_confusion(yt, yp, 4))
    np.testing.assert_allclose(A.confusion_matrix(yt, yp, normalize="all"), M / 6)
    np.testing.assert_allclose(
        A.confusion_matrix(yt, yp, labels=[0, 1, 2, 3], normalize="pred"), M / M.sum(axis=0)
    )
    with pytest.warns(UndefinedMetricWarning, match=r"classes \[2\].*y_true"):
        got = A.confusion_matrix(yt, yp, normalize="true")
    assert np.isnan(got[2]).all()
    rows = M[[0, 1, 3]]
    np.testing.assert_allclose(got[[0, 1, 3]], rows / rows.sum(axis=1, keepdims=True))
    expected = sk_confusion_matrix(yt, yp, normalize="true")
    np.testing.assert_allclose(got[[0, 1, 3]], expected[[0, 1, 3]])
    with pytest.warns(UndefinedMetricWarning, match=r"classes \[4\].*y_pred"):
        got = A.confusion_matrix(yt, yp, labels=range(5), normalize="pred")
    assert np.isnan(got[:, 4]).all()


# --------------------------------------------------------------------------------------------
# Missing values and undefined values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*METRICS, "confusion_matrix"])
def test_nan_policies(name):
    yt = np.array([0, 1, 2, np.nan, 2, 1, 0])
    yp = np.array([0, 2, 2, 1, 1, 1, np.nan])
    w = np.array([1.0, 2.0, 1.0, 1.0, np.nan, 1.0, 1.0])
    keep = np.array([True, True, True, False, False, True, False])
    with pytest.raises(ValueError, match=r"y_true is missing .* in row 3.*nan_policy='omit'"):
        call(name, yt, yp, sample_weight=w)
    with pytest.raises(ValueError, match=r"sample_weight is missing .* in row 1\b"):
        call(name, [0, 1], [0, 1], sample_weight=[1.0, np.nan])
    with pytest.raises(ValueError, match=r"y_pred is missing .* in row 0\b"):
        call(name, [0, 1], [None, 1])
    omitted = call(name, yt, yp, sample_weight=w, nan_policy="omit")
    expected = call(name, yt[keep].astype(int), yp[keep].astype(int), sample_weight=w[keep])
    np.testing.assert_array_equal(omitted, expected)
    propagated = call(name, yt, yp, sample_weight=w, nan_policy="propagate")
    assert np.isnan(propagated).all()
    # nothing missing: "propagate" computes the value
    np.testing.assert_array_equal(
        call(name, yt[keep], yp[keep], nan_policy="propagate"), call(name, yt[keep], yp[keep])
    )


@pytest.mark.parametrize("name", [*METRICS, "confusion_matrix"])
def test_propagate_still_validates(name):
    with pytest.raises(ValueError, match="y_pred has values not in labels"):
        call(name, [0, None, 1], [0, 1, 5], labels=[0, 1, 2], nan_policy="propagate")
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        call(name, [0, None, 1], [0, 1, 1], sample_weight=[1, 1, -1], nan_policy="propagate")


def test_propagate_still_validates_the_options():
    with pytest.raises(ValueError, match="weights must be a 3 x 3 matrix"):
        A.kappa([0, None, 2], [0, 1, 2], weights=np.eye(2), nan_policy="propagate")
    with pytest.raises(ValueError, match="costs must be one of"):
        A.expected_cost([0, None, 2], [0, 1, 2], costs="cubic", nan_policy="propagate")


def test_undefined_kappa_gives_nan_with_a_warning():
    for func in (A.kappa, A.qwk):
        with pytest.warns(UndefinedMetricWarning, match="undefined: the chance disagreement"):
            assert math.isnan(func([1, 1, 1], [1, 1, 1]))
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(func(["b", "b"], ["b", "b"], labels=["a", "b", "c"]))
        with pytest.warns(UndefinedMetricWarning):  # weight 0 removes the only other class
            assert math.isnan(func([0, 1, 1], [2, 1, 1], sample_weight=[0, 1, 1]))
    # only y_true constant: defined (kappa 0 for a prediction independent of the truth)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert A.kappa([1, 1, 1, 1], [0, 1, 2, 1]) == 0.0
        assert A.qwk([1, 1, 1, 1], [0, 1, 2, 1]) == 0.0


def test_undefined_normalized_expected_cost_gives_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match=r"expected_cost\(normalize=True\)"):
        assert math.isnan(A.expected_cost([2, 2, 2], [0, 1, 2], normalize=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert A.expected_cost([2, 2, 2], [0, 1, 2]) == 1.0


def test_no_warning_on_ordinary_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in METRICS:
            call(name, [0, 1, 2, 2, 1], [0, 2, 2, 1, 1])


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_option_errors():
    yt, yp = [0, 1, 2], [0, 2, 2]
    with pytest.raises(
        ValueError, match=r"weights must be one of 'linear', 'quadratic'; got 'cubic'"
    ):
        A.kappa(yt, yp, weights="cubic")
    with pytest.raises(
        ValueError, match=r"weights must be a 3 x 3 matrix.*got shape \(2, 2\).*\(labels=, or"
    ):
        A.kappa(yt, yp, weights=[[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"weights must hold finite numbers; got nan at \[0, 1\]"):
        A.kappa(yt, yp, weights=[[0, np.nan, 1], [1, 0, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match=r"weights must be non-negative.*-1.0 at \[2, 0\]"):
        A.kappa(yt, yp, weights=[[0, 1, 1], [1, 0, 1], [-1, 1, 0]])
    with pytest.raises(
        TypeError, match=r"weights must (be one of .* or a 3 x 3 matrix of numbers|hold numbers)"
    ):
        A.kappa(yt, yp, weights=[["a", "b", "c"]] * 3)
    with pytest.raises(ValueError, match="costs must be one of 'absolute', 'squared', 'zero_one'"):
        A.expected_cost(yt, yp, costs="linear")
    with pytest.raises(ValueError, match=r"costs must be a 3 x 3 matrix.*got shape \(4, 4\)"):
        A.expected_cost(yt, yp, costs=np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"costs must hold finite numbers; got inf"):
        A.expected_cost(yt, yp, costs=np.full((3, 3), np.inf))
    with pytest.raises(ValueError, match=r"k must be a non-negative integer.*got -1"):
        A.within_k_accuracy(yt, yp, k=-1)
    with pytest.raises(TypeError, match=r"k must be a non-negative integer.*got float 1.5"):
        A.within_k_accuracy(yt, yp, k=1.5)
    with pytest.raises(TypeError, match=r"k must be a non-negative integer.*got bool True"):
        A.within_k_accuracy(yt, yp, k=True)
    with pytest.raises(ValueError, match="normalize must be one of 'true', 'pred', 'all'"):
        A.confusion_matrix(yt, yp, normalize="rows")
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        A.mae(yt, yp, nan_policy="ignore")


@pytest.mark.parametrize("name", [*METRICS, "confusion_matrix"])
def test_input_errors(name):
    with pytest.raises(ValueError, match=r"y_pred has values not in labels: 'x'"):
        call(name, ["a", "b"], ["a", "x"], labels=["a", "b"])
    with pytest.raises(ValueError, match=r"y_pred has values not in labels: 3"):
        call(name, [0, 1], [0, 3], labels=[0, 1, 2])
    with pytest.raises(ValueError, match=r"y_true has values not in labels: 7"):
        call(name, [0, 7], [0, 1], labels=[0, 1, 2])
    with pytest.raises(ValueError, match="y_true has 3 rows but y_pred has 2"):
        call(name, [0, 1, 2], [0, 1])
    with pytest.raises(TypeError, match=r"y_true holds labels such as 'a'.*labels= was not given"):
        call(name, ["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match=r"y_pred must hold class indices 0, 1, 2, ...; got neg"):
        call(name, [0, 1], [0, -1])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        call(name, [0, 1], [0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        call(name, [0, 1], [0, 1], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="sample_weight has 3 entries but there are 2 rows"):
        call(name, [0, 1], [0, 1], sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="labels must be distinct"):
        call(name, [0, 1], [0, 1], labels=[0, 1, 1])
    with pytest.raises(ValueError, match="y_true must hold integer class indices"):
        call(name, [0.5, 1], [0, 1])
    with pytest.raises(ValueError, match="y_true is empty"):
        call(name, [], [])
    with pytest.raises(ValueError, match=r"do not look like class indices.*labels="):
        call(name, [0, 10**6], [0, 1])


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

EXPECTED_SPECS = {
    "kappa": ("maximize", (-1.0, 1.0), 1.0),
    "qwk": ("maximize", (-1.0, 1.0), 1.0),
    "expected_cost": ("minimize", (0.0, math.inf), 0.0),
    "mae": ("minimize", (0.0, math.inf), 0.0),
    "amae": ("minimize", (0.0, math.inf), 0.0),
    "mmae": ("minimize", (0.0, math.inf), 0.0),
    "accuracy": ("maximize", (0.0, 1.0), 1.0),
    "within_k_accuracy": ("maximize", (0.0, 1.0), 1.0),
    "macro_f1": ("maximize", (0.0, 1.0), 1.0),
    "macro_precision": ("maximize", (0.0, 1.0), 1.0),
    "macro_recall": ("maximize", (0.0, 1.0), 1.0),
}


def test_registered_specs():
    assert ordmetrics.list_metrics("agreement") == list(EXPECTED_SPECS)
    for name, (direction, rng, perfect) in EXPECTED_SPECS.items():
        spec = ordmetrics.get_metric(name)
        assert spec.func is getattr(A, name)
        assert spec.kind == "agreement"
        assert spec.direction == direction
        assert spec.range == rng
        assert spec.perfect == perfect
        assert spec.description
    for name in ("mae", "amae", "mmae"):
        assert "K-1" in ordmetrics.get_metric(name).range_note
    assert "confusion_matrix" not in ordmetrics.list_metrics()
    assert "decide" not in ordmetrics.list_metrics()


@pytest.mark.parametrize("name", METRICS)
def test_perfect_value_and_range(name):
    spec = ordmetrics.get_metric(name)
    y = [0, 1, 2, 3, 3, 1]
    assert spec(y, y) == spec.perfect
    lo, hi = spec.range
    for seed in SEEDS:
        yt, yp, K, w = make_case(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            v = spec(yt, yp, sample_weight=w)
        if math.isnan(v):
            continue
        assert lo - 1e-12 <= v <= hi + 1e-12
        if name in ("mae", "amae", "mmae"):
            assert v <= K - 1
