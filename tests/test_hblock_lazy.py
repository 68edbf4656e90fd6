"""HBlockSplit builds its splits when they are read, and bounds its size parameters.

With h blocks there are about h/2 splits of about h block numbers each: building them all up
front takes O(h^2) time and memory (about 190 MiB at h = 10^4, 19 GiB at h = 10^5). Memory is
measured with tracemalloc (deterministic, unlike timings).
"""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest

from ordmetrics.model_selection import BlockSplit, HBlockSplit
from ordmetrics.model_selection._hblock import MAX_BLOCKS, _first_untrained_start, _largest_gap


def _peak_bytes(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _brute_first_untrained(h, span, gap, step):
    """The first span start without a training block, by a loop over every split."""
    for start in range(0, h - span + 1, step):
        if not any(b < start - gap or b >= start + span + gap for b in range(h)):
            return start
    return None


def test_construction_does_not_build_the_splits():
    # 10^4 blocks: 5001 splits of up to 10^4 block numbers; built up front that is ~190 MiB
    peak = _peak_bytes(lambda: HBlockSplit(10**4))
    assert peak < 2**20, f"constructing took {peak / 2**20:.1f} MiB"
    cv = HBlockSplit(10**5)
    assert cv.get_n_splits() == 50001


def test_the_first_split_costs_one_split():
    cv = HBlockSplit(10**4)
    # one split holds 10^4 block numbers and 10^4 sample indices (8 bytes each), plus the
    # block bounds: a few hundred KiB, not the ~190 MiB of every split
    peak = _peak_bytes(lambda: next(cv.split_with_validation(range(10**4))))
    assert peak < 2 * 2**20, f"the first split took {peak / 2**20:.1f} MiB"
    first = cv.split_blocks()[0]
    assert first.validation.tolist() == list(range(2000))
    assert first.test.tolist() == list(range(2000, 5000))
    assert first.train.tolist() == list(range(5000, 10**4))


def test_the_plan_is_a_read_only_sequence():
    cv = HBlockSplit(8, val_size=1, test_size=2, gap=1, step=2)
    plan = cv.split_blocks()
    assert len(plan) == 3 == cv.get_n_splits()
    built = list(plan)
    assert all(isinstance(p, BlockSplit) for p in built)
    as_lists = [tuple(a.tolist() for a in p) for p in built]
    assert as_lists == [
        ([4, 5, 6, 7], [0], [1, 2]),
        ([0, 6, 7], [2], [3, 4]),
        ([0, 1, 2], [4], [5, 6]),
    ]
    assert [tuple(a.tolist() for a in p) for p in plan[1:]] == as_lists[1:]
    assert tuple(a.tolist() for a in plan[-1]) == as_lists[-1]
    assert all(a.dtype == np.arange(1).dtype for p in built for a in p)
    with pytest.raises(IndexError, match="split index 3 out of range for 3 splits"):
        plan[3]
    with pytest.raises(IndexError):
        plan[-4]
    with pytest.raises(TypeError):
        plan[1.0]
    assert "3 h-block splits of 8 blocks" in repr(plan)


def test_closed_form_gap_check_matches_a_loop_over_the_splits():
    for h in range(2, 13):
        for span, gap, step in itertools.product(range(1, h), range(0, h + 2), range(1, h + 1)):
            got = _first_untrained_start(h, span, gap, step)
            assert got == _brute_first_untrained(h, span, gap, step), (h, span, gap, step)
            if gap:
                ok = _largest_gap(h, span, gap, step)
                assert all(_brute_first_untrained(h, span, g, step) is None for g in range(ok + 1))
                if ok + 1 < gap:
                    assert _brute_first_untrained(h, span, ok + 1, step) is not None


def test_a_huge_gap_is_refused_without_a_loop_over_it():
    # the largest usable gap was found by trying every gap below the one given
    with pytest.raises(ValueError, match=r"gap=10+ leaves no training block .* gap <= 24"):
        HBlockSplit(100, gap=10**15)


def test_n_blocks_is_bounded_with_the_memory_it_would_take():
    assert HBlockSplit(MAX_BLOCKS).get_n_splits() == MAX_BLOCKS // 2 + 1
    with pytest.raises(ValueError, match=r"n_blocks must be at most 16777216 .* 7\.45 GiB"):
        HBlockSplit(10**9)
    cv = HBlockSplit(10)
    cv.n_blocks = 2**40  # set_params changes it after construction
    with pytest.raises(ValueError, match=r"n_blocks must be at most .*8,192\.00 GiB per split"):
        cv.get_n_splits()
    with pytest.raises(ValueError, match=r"n_blocks must be at most"):
        cv.block_ids(range(10))
