"""h-block cross-validation (HBlockSplit) and sliding windows (ordmetrics.model_selection)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordmetrics.model_selection import BlockSplit, HBlockSplit, Windows, sliding_windows

# -- independent reference implementations (plain loops, np.array_split) ----------------------


def ref_block_ids(n, h, groups=None):
    """Block of each sample from np.array_split, one series per group label."""
    ids = np.empty(n, dtype=np.int64)
    if groups is None:
        groups = [0] * n
    groups = list(groups)
    for g in dict.fromkeys(groups):
        pos = [i for i in range(n) if groups[i] == g]
        for b, part in enumerate(np.array_split(np.array(pos), h)):
            for i in part:
                ids[i] = b
    return ids


def ref_splits(n, h, n_val, n_test, gap, step, groups=None):
    """(train, validation, test) sample lists by a literal reading of the documented rules."""
    ids = ref_block_ids(n, h, groups)
    span = n_val + n_test
    out = []
    s = 0
    while s + span <= h:
        val_b = set(range(s, s + n_val))
        test_b = set(range(s + n_val, s + span))
        train_b = {b for b in range(h) if b < s - gap or b >= s + span + gap}
        out.append(
            (
                [i for i in range(n) if ids[i] in train_b],
                [i for i in range(n) if ids[i] in val_b],
                [i for i in range(n) if ids[i] in test_b],
            )
        )
        s += step
    return out


def ref_windows(labels, length, step, positions):
    """Windows by a loop over maximal runs of consecutive positions with one label."""
    windows, segment = [], []
    for p in [*positions, None]:
        if segment and (p is None or p != segment[-1] + 1 or labels[p] != labels[segment[-1]]):
            for s in range(0, len(segment) - length + 1, step):
                windows.append(segment[s : s + length])
            segment = []
        if p is not None:
            segment.append(p)
    return windows


def brute_counts(h, val, test):
    """(train, val, test) integer counts summing to h nearest to the quotas (least squares)."""
    q = np.array([h * (1 - val - test), h * val, h * test])
    best = []
    for v, t in itertools.product(range(h + 1), repeat=2):
        if v + t <= h:
            c = np.array([h - v - t, v, t])
            best.append((round(float(((c - q) ** 2).sum()), 9), (h - v - t, v, t)))
    best.sort()
    return best[0][1] if best[0][0] != best[1][0] else None  # None: tied optimum


def as_lists(splits):
    return [tuple(part.tolist() for part in s) for s in splits]


# -- HBlockSplit: worked examples -------------------------------------------------------------


def test_defaults_are_the_paper_proportions_on_ten_blocks():
    cv = HBlockSplit()
    assert (cv.n_blocks, cv.n_train_blocks, cv.n_val_blocks, cv.n_test_blocks) == (10, 5, 2, 3)
    assert cv.get_n_splits() == 6
    plan = cv.split_blocks()
    assert isinstance(plan[0], BlockSplit)
    assert [p.validation.tolist() for p in plan] == [[i, i + 1] for i in range(6)]
    assert [p.test.tolist() for p in plan] == [[i + 2, i + 3, i + 4] for i in range(6)]
    assert plan[2].train.tolist() == [0, 1, 7, 8, 9]
    # 20 samples: 2 per block
    train, val, test = list(HBlockSplit().split_with_validation(np.zeros((20, 3))))[2]
    assert val.tolist() == [4, 5, 6, 7]
    assert test.tolist() == [8, 9, 10, 11, 12, 13]
    assert train.tolist() == [0, 1, 2, 3, 14, 15, 16, 17, 18, 19]


def test_unequal_blocks_put_the_extra_samples_first():
    # 23 samples in 5 blocks: 5, 5, 5, 4, 4
    ids = HBlockSplit(5, val_size=1, test_size=1).block_ids(np.arange(23))
    assert ids.tolist() == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 4 + [4] * 4
    splits = as_lists(HBlockSplit(5, val_size=1, test_size=1).split_with_validation(range(23)))
    assert splits[3] == (list(range(15)), list(range(15, 19)), list(range(19, 23)))


def test_gap_and_step_worked_by_hand():
    cv = HBlockSplit(8, val_size=1, test_size=2, gap=1, step=2)
    # spans start at blocks 0, 2, 4; validation 1 block, test 2 blocks
    assert cv.get_n_splits() == 3
    got = [(p.train.tolist(), p.validation.tolist(), p.test.tolist()) for p in cv.split_blocks()]
    assert got == [
        ([4, 5, 6, 7], [0], [1, 2]),
        ([0, 6, 7], [2], [3, 4]),
        ([0, 1, 2], [4], [5, 6]),
    ]
    train, test = list(cv.split(range(16)))[1]
    assert train.tolist() == [0, 1, 12, 13, 14, 15]
    assert test.tolist() == [6, 7, 8, 9]


def test_no_validation_gives_plain_h_block_cv():
    cv = HBlockSplit(4, val_size=0, test_size=1)
    assert (cv.n_train_blocks, cv.n_val_blocks, cv.n_test_blocks) == (3, 0, 1)
    got = as_lists(cv.split_with_validation(range(8)))
    assert got == [
        ([2, 3, 4, 5, 6, 7], [], [0, 1]),
        ([0, 1, 4, 5, 6, 7], [], [2, 3]),
        ([0, 1, 2, 3, 6, 7], [], [4, 5]),
        ([0, 1, 2, 3, 4, 5], [], [6, 7]),
    ]


def test_groups_cut_each_series_on_its_own():
    groups = np.array(["a"] * 6 + ["b"] * 9)
    cv = HBlockSplit(3, val_size=1, test_size=1)
    assert (
        cv.block_ids(range(15), groups=groups).tolist()
        == [0, 0, 1, 1, 2, 2] + [0] * 3 + [1] * 3 + [2] * 3
    )
    train, val, test = next(cv.split_with_validation(range(15), groups=groups))
    assert val.tolist() == [0, 1, 6, 7, 8]
    assert test.tolist() == [2, 3, 9, 10, 11]
    assert train.tolist() == [4, 5, 12, 13, 14]
    # interleaved series: order within each series is the order of its rows
    inter = np.tile([0, 1], 6)
    assert cv.block_ids(range(12), groups=inter).tolist() == ref_block_ids(12, 3, inter).tolist()


def test_block_counts_table():
    # largest remainder, ties to training, then test, then validation
    table = {3: (1, 1, 1), 4: (2, 1, 1), 5: (3, 1, 1), 6: (3, 1, 2), 8: (4, 2, 2)}
    table |= {10: (5, 2, 3), 12: (6, 2, 4)}
    table |= {13: (6, 3, 4), 15: (8, 3, 4), 20: (10, 4, 6)}
    for h, counts in table.items():
        cv = HBlockSplit(h)
        assert (cv.n_train_blocks, cv.n_val_blocks, cv.n_test_blocks) == counts, h


@pytest.mark.parametrize(("val", "test"), [(0.2, 0.3), (0.1, 0.2), (0.25, 0.25), (0.15, 0.35)])
def test_block_counts_are_the_nearest_integers_to_the_quotas(val, test):
    for h in range(3, 41):
        try:
            cv = HBlockSplit(h, val_size=val, test_size=test)
        except ValueError:
            assert min(round(h * val), round(h * test)) <= 1  # only tiny h may fail
            continue
        got = (cv.n_train_blocks, cv.n_val_blocks, cv.n_test_blocks)
        assert sum(got) == h
        quotas = (h * (1 - val - test), h * val, h * test)
        assert all(abs(c - q) < 1 for c, q in zip(got, quotas, strict=True)), (h, got)
        best = brute_counts(h, val, test)
        if best is not None:
            assert got == best, (h, got, best)


def test_docs_gap_example():
    # docs/model_selection.md: h = 10 with gap=1 trains on 4, 3, 3, 3, 3, 4 blocks; blocks
    # are tested 0, 0, 1, 2, 3, 3, 3, 3, 2, 1 times with the defaults
    assert [p.train.size for p in HBlockSplit(gap=1).split_blocks()] == [4, 3, 3, 3, 3, 4]
    tested = np.bincount(np.concatenate([p.test for p in HBlockSplit().split_blocks()]))
    assert tested.tolist() == [0, 0, 1, 2, 3, 3, 3, 3, 2, 1]


def test_readme_example_claims():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(
        b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "HBlockSplit" in b
    )
    ns: dict = {}
    exec(compile(block, "README.md", "exec"), ns)
    assert [ns["val"][[0, -1]].tolist(), ns["test"][[0, -1]].tolist()] == [[0, 239], [240, 599]]
    assert ns["train"][[0, -1]].tolist() == [720, 1199]
    assert ns["signal"][ns["w"].indices].shape == (36, 40, 3)
    assert np.bincount(ns["w"].block).tolist() == [0] * 6 + [9] * 4
    assert "# [0, 239], [240, 599], [720, 1199]" in block and "# (36, 40, 3)" in block


def test_integer_sizes_are_exact_counts():
    cv = HBlockSplit(15, val_size=2, test_size=4)  # the authors' setting for 15 blocks
    assert (cv.n_train_blocks, cv.n_val_blocks, cv.n_test_blocks) == (9, 2, 4)
    assert cv.get_n_splits() == 10


def test_numpy_scalars_are_accepted():
    cv = HBlockSplit(np.int64(10), val_size=np.float64(0.2), test_size=np.int64(3))
    assert as_lists(cv.split_blocks()) == as_lists(HBlockSplit().split_blocks())
    w = sliding_windows(np.int64(13), np.int64(8), np.float64(0.75))
    assert (w.step, w.overlap, w.indices.shape) == (2, 6, (3, 8))


def test_repr_and_determinism():
    cv = HBlockSplit(7, val_size=0.25, test_size=2, gap=1, step=2)
    assert repr(cv) == "HBlockSplit(n_blocks=7, val_size=0.25, test_size=2, gap=1, step=2)"
    a = as_lists(cv.split_with_validation(range(50)))
    b = as_lists(cv.split_with_validation(range(50)))
    assert a == b


def test_x_kinds():
    pd = pytest.importorskip("pandas")
    cv = HBlockSplit(5, val_size=1, test_size=1)
    expected = as_lists(cv.split(np.zeros((13, 2))))
    assert as_lists(cv.split(pd.DataFrame({"a": range(13)}))) == expected
    assert as_lists(cv.split(list(range(13)))) == expected
    assert as_lists(cv.split(range(13), y=np.zeros(13))) == expected


def test_sizes_beyond_any_block_size():
    n, h = 100_003, 13
    cv = HBlockSplit(h, gap=1)
    ids = cv.block_ids(np.empty((n, 0)))
    sizes = np.bincount(ids)
    assert sizes.sum() == n and sizes.max() - sizes.min() <= 1
    assert (np.diff(ids) >= 0).all()
    assert (ids == ref_block_ids(n, h)).all()
    for train, val, test in cv.split_with_validation(np.empty((n, 0))):
        assert np.intersect1d(train, np.concatenate([val, test])).size == 0
        assert (np.diff(val) == 1).all() and (np.diff(test) == 1).all()
        assert val[-1] + 1 == test[0]


# -- HBlockSplit: properties ----------------------------------------------------------------


@st.composite
def configs(draw):
    h = draw(st.integers(2, 14))
    n_test = draw(st.integers(1, h - 1))
    n_val = draw(st.integers(0, h - 1 - n_test))
    gap = draw(st.integers(0, 3))
    step = draw(st.integers(1, 4))
    n = draw(st.integers(h, 6 * h + 5))
    span = n_val + n_test
    assume_ok = all(
        any(b < s - gap or b >= s + span + gap for b in range(h))
        for s in range(0, h - span + 1, step)
    )
    return h, n_val, n_test, gap, step, n, assume_ok


@settings(max_examples=150, deadline=None)
@given(configs())
def test_splits_match_the_reference_and_keep_their_properties(config):
    h, n_val, n_test, gap, step, n, ok = config
    if not ok:
        with pytest.raises(ValueError, match=r"gap=.* leaves no training block"):
            HBlockSplit(h, val_size=n_val, test_size=n_test, gap=gap, step=step)
        return
    cv = HBlockSplit(h, val_size=n_val, test_size=n_test, gap=gap, step=step)
    got = list(cv.split_with_validation(range(n)))
    assert as_lists(got) == [tuple(s) for s in ref_splits(n, h, n_val, n_test, gap, step)]
    assert len(got) == cv.get_n_splits() == (h - n_val - n_test) // step + 1
    ids = cv.block_ids(range(n))
    for train, val, test in got:
        # disjoint, and (gap 0) a partition of all samples
        assert len(set(train) | set(val) | set(test)) == train.size + val.size + test.size
        if gap == 0:
            assert np.array_equal(np.sort(np.concatenate([train, val, test])), np.arange(n))
        # contiguous validation and test, test right after validation
        assert (np.diff(val) == 1).all() and (np.diff(test) == 1).all()
        if val.size:
            assert val[-1] + 1 == test[0]
        # block counts as documented; no training block within gap blocks of the span
        span_blocks = np.unique(ids[np.concatenate([val, test])])
        assert span_blocks.size == n_val + n_test
        assert np.unique(ids[val]).size == n_val and np.unique(ids[test]).size == n_test
        dist = np.abs(ids[train][:, None] - span_blocks[None, :]).min(axis=1)
        assert (dist > gap).all()
        assert train.size > 0
    # the windows of different sets of a split never share a sample
    train, val, test = got[0]
    length = int(np.bincount(ids).min())
    seen = [sliding_windows(ids, length, 0.5, indices=part).indices for part in (train, test)]
    assert np.intersect1d(seen[0], seen[1]).size == 0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6),
    st.lists(st.integers(0, 3), min_size=1, max_size=60),
)
def test_groups_match_the_reference(h, raw):
    groups = np.array(raw)
    sizes = np.bincount(groups)
    cv = HBlockSplit(h, val_size=0, test_size=1)
    if sizes[sizes > 0].min() < h:
        with pytest.raises(ValueError, match="fewer than n_blocks"):
            cv.block_ids(groups, groups=groups)
        return
    n = groups.size
    assert cv.block_ids(groups, groups=groups).tolist() == ref_block_ids(n, h, groups).tolist()
    got = as_lists(cv.split_with_validation(groups, groups=groups))
    assert got == [tuple(s) for s in ref_splits(n, h, 0, 1, 0, 1, groups)]


# -- scikit-learn ---------------------------------------------------------------------------


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    return X, y


def test_cross_validate_uses_the_splits():
    sk = pytest.importorskip("sklearn.model_selection")
    from sklearn.linear_model import LogisticRegression

    X, y = _data()
    cv = HBlockSplit(10, gap=1)
    assert sk.check_cv(cv) is cv
    res = sk.cross_validate(LogisticRegression(), X, y, cv=cv, return_indices=True)
    ours = list(cv.split(X))
    assert len(res["test_score"]) == cv.get_n_splits() == 6
    for k, (train, test) in enumerate(ours):
        assert np.array_equal(res["indices"]["train"][k], train)
        assert np.array_equal(res["indices"]["test"][k], test)
        model = LogisticRegression().fit(X[train], y[train])
        assert res["test_score"][k] == pytest.approx(model.score(X[test], y[test]), abs=1e-12)
    scores = sk.cross_val_score(LogisticRegression(), X, y, cv=cv)
    assert np.allclose(scores, res["test_score"], rtol=0, atol=1e-12)


def test_cross_validate_passes_groups():
    sk = pytest.importorskip("sklearn.model_selection")
    from sklearn.dummy import DummyClassifier

    X, y = _data(90)
    groups = np.repeat([0, 1, 2], 30)
    cv = HBlockSplit(5, val_size=1, test_size=1)
    res = sk.cross_validate(DummyClassifier(), X, y, cv=cv, groups=groups, return_indices=True)
    for k, (_, test) in enumerate(cv.split(X, groups=groups)):
        assert np.array_equal(res["indices"]["test"][k], test)
    assert res["indices"]["test"][0].tolist() == [*range(6, 12), *range(36, 42), *range(66, 72)]


def test_grid_search():
    sk = pytest.importorskip("sklearn.model_selection")
    from sklearn.linear_model import LogisticRegression

    X, y = _data()
    cv = HBlockSplit(8, val_size=0, test_size=2)
    search = sk.GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=cv).fit(X, y)
    assert search.n_splits_ == cv.get_n_splits() == 7
    for j, c in enumerate([0.01, 1.0]):
        manual = [
            LogisticRegression(C=c).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in cv.split(X)
        ]
        assert search.cv_results_["mean_test_score"][j] == pytest.approx(np.mean(manual), abs=1e-12)


# -- sliding windows --------------------------------------------------------------------------


def test_windows_worked_example():
    w = sliding_windows([0] * 6 + [1] * 4, length=4, overlap=0.5)
    assert isinstance(w, Windows)
    assert w.indices.tolist() == [[0, 1, 2, 3], [2, 3, 4, 5], [6, 7, 8, 9]]
    assert w.block.tolist() == [0, 0, 1]
    assert (w.step, w.overlap) == (2, 2)


def test_windows_table1_overlap():
    # 75% overlap of an 8-sample window: step 2, overlap 6; a 13-sample block gives 3 windows
    w = sliding_windows(13, length=8, overlap=0.75)
    assert (w.step, w.overlap) == (2, 6)
    assert w.indices[:, 0].tolist() == [0, 2, 4]
    assert w.indices.shape == (3, 8)
    # floor of overlap * length from the decimal: 0.29 * 100 -> 29 (float product 28.99...)
    assert sliding_windows(100, 100, 0.29).overlap == 29
    # 90 samples, 75%: floor(67.5) = 67, step 23 (the authors' int() of the same product)
    assert sliding_windows(200, 90, 0.75).step == 23


def test_windows_respect_indices_and_groups():
    blocks = np.repeat(["x", "y"], 8)
    w = sliding_windows(blocks, 3, 0.0, indices=[0, 1, 2, 3, 5, 6, 7, 8, 9, 10])
    # runs: 0-3 (x), 5-7 (x), 8-10 (y)
    assert w.indices.tolist() == [[0, 1, 2], [5, 6, 7], [8, 9, 10]]
    assert w.block.tolist() == ["x", "x", "y"]
    g = np.array([0] * 5 + [1] * 11)
    w = sliding_windows(blocks, 3, 0.0, groups=g)
    assert w.indices[:, 0].tolist() == [0, 5, 8, 11]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=80),
    st.integers(1, 6),
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9, 0.3]),
    st.integers(0, 2**31 - 1),
)
def test_windows_match_the_reference(raw, length, overlap, seed):
    blocks = np.array(raw)
    rng = np.random.default_rng(seed)
    positions = np.flatnonzero(rng.random(blocks.size) < 0.8) if seed % 2 else None
    pos = np.arange(blocks.size) if positions is None else positions
    step = length - int(np.floor(overlap * length + 1e-9))
    expected = ref_windows(blocks, length, step, list(pos))
    seg_lengths = []
    cur = []
    for p in [*pos.tolist(), None]:
        if cur and (p is None or p != cur[-1] + 1 or blocks[p] != blocks[cur[-1]]):
            seg_lengths.append(len(cur))
            cur = []
        if p is not None:
            cur.append(p)
    if not seg_lengths or min(seg_lengths) < length:
        with pytest.raises(ValueError, match=r"length=\d+ is longer than a block|no samples"):
            sliding_windows(blocks, length, overlap, indices=positions)
        return
    w = sliding_windows(blocks, length, overlap, indices=positions)
    assert w.indices.tolist() == expected
    assert w.step == step and w.overlap == length - step
    # no window straddles a block boundary; consecutive windows of a run overlap as asked
    assert (blocks[w.indices] == w.block[:, None]).all()
    assert (np.diff(w.indices, axis=1) == 1).all()
    same = (w.indices[1:, 0] - w.indices[:-1, 0] == step) & (w.block[1:] == w.block[:-1])
    shared = [
        np.intersect1d(a, b).size
        for a, b in zip(w.indices[:-1][same], w.indices[1:][same], strict=True)
    ]
    assert all(s == length - step for s in shared)


def test_windows_large():
    n = 200_003
    ids = HBlockSplit(7).block_ids(np.empty((n, 0)))
    w = sliding_windows(ids, 64, 0.75)
    sizes = np.bincount(ids)
    assert w.indices.shape == (int(((sizes - 64) // 16 + 1).sum()), 64)
    assert (ids[w.indices] == w.block[:, None]).all()
    assert (np.diff(w.indices, axis=1) == 1).all()


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_blocks": 1}, ValueError, "n_blocks must be an integer >= 2; got 1"),
        ({"n_blocks": 4.0}, TypeError, "n_blocks must be an integer >= 2; got float 4.0"),
        ({"n_blocks": True}, TypeError, "n_blocks must be an integer"),
        ({"val_size": -0.1}, ValueError, r"val_size must be a fraction in \[0, 1\)"),
        ({"val_size": 1.0}, ValueError, r"val_size must be a fraction in \[0, 1\)"),
        ({"val_size": -1}, ValueError, "val_size must be a number of blocks >= 0"),
        ({"test_size": "0.3"}, TypeError, "test_size must be a fraction of the blocks"),
        ({"test_size": 0}, ValueError, "test_size must give at least one test block"),
        ({"val_size": 0.5, "test_size": 0.5}, ValueError, "leave no training block"),
        ({"val_size": 4, "test_size": 6}, ValueError, "leave no training block"),
        ({"val_size": 0.05}, ValueError, r"val_size=0.05 gives 0 of n_blocks=10 blocks"),
        ({"n_blocks": 2}, ValueError, r"val_size=0.2 gives 0 of n_blocks=2"),
        ({"gap": 3}, ValueError, r"gap=3 leaves no training block .* blocks 2\.\.6 .* gap <= 2"),
        ({"gap": -1}, ValueError, "gap must be an integer >= 0"),
        ({"step": 0}, ValueError, "step must be an integer >= 1"),
    ],
)
def test_parameter_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        HBlockSplit(**kwargs)


def test_data_errors():
    cv = HBlockSplit(5, val_size=1, test_size=1)
    with pytest.raises(ValueError, match="X has 4 samples, fewer than n_blocks=5"):
        next(cv.split(np.zeros((4, 2))))
    with pytest.raises(TypeError, match=r"X must be an array-like .* has no length"):
        next(cv.split(5))
    with pytest.raises(ValueError, match="groups must have one label per sample: 10 labels"):
        next(cv.split(range(10), groups=[0] * 9))
    with pytest.raises(ValueError, match="series 'b' has 4 samples, fewer than n_blocks=5"):
        cv.block_ids(range(9), groups=list("aaaaabbbb"))
    with pytest.raises(ValueError, match="groups contains NaN"):
        cv.block_ids(range(10), groups=[0.0] * 9 + [np.nan])


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((10, 0), {}, ValueError, "length must be an integer >= 1; got 0"),
        ((10, 2.5), {}, TypeError, "length must be an integer >= 1; got float"),
        ((10, 4, 1.0), {}, ValueError, r"overlap must be a fraction in \[0, 1\); got 1.0"),
        ((10, 4, 75), {}, ValueError, "Pass 0.75 for 75%"),
        ((10, 4, -0.1), {}, ValueError, r"overlap must be a fraction in \[0, 1\)"),
        ((10, 4, "0.5"), {}, TypeError, "overlap must be a fraction of the window"),
        (([0] * 6 + [1] * 3, 4), {}, ValueError, r"length=4 is longer than a block: .* sample 6"),
        ((10, 11), {}, ValueError, "length=11 is longer than a block"),
        ((10, 2), {"indices": [3, 2, 5]}, ValueError, "strictly increasing"),
        ((10, 2), {"indices": [1, 10]}, ValueError, r"positions in 0\.\.9"),
        ((10, 2), {"indices": [0.0, 1.0]}, TypeError, "integer sample positions"),
        ((10, 2), {"indices": []}, ValueError, "no samples to window"),
        ((np.zeros((3, 3)), 2), {}, ValueError, "blocks must be 1-D"),
        ((10, 2), {"groups": [0] * 9}, ValueError, "groups must have one label per sample"),
        ((0, 2), {}, ValueError, "blocks must be an integer >= 1"),
    ],
)
def test_window_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        sliding_windows(*args, **kwargs)
