"""The radix sort of non-negative int64 keys (ordmetrics._core.radix).

Against NumPy's sorts: the sorted keys of ``np.sort`` and the permutation of
``np.argsort(kind="stable")``, on random, sorted, reverse, all-equal and sparse keys, with the
digit passes over bits that no key changes skipped, at sizes around and beyond every threshold.
"""

from __future__ import annotations

import numpy as np
import pytest

from ordmetrics._core import radix as RX

SIZES = [0, 1, 2, 3, 100, RX.SMALL_N - 1, RX.SMALL_N, RX.SMALL_N_PAIRS + 1, 70_001]


def kernel(keys, payload=None, carry=0, bits=RX.DIGIT_BITS):
    """Run the kernel itself (any size); the sorted keys, payload and the number of passes."""
    keys = keys.copy()
    tmp = np.empty_like(keys)
    payload = np.empty(0, np.int64) if payload is None else payload.copy()
    ptmp = np.empty_like(payload)
    count = np.empty(1 << bits, dtype=np.int64)
    passes = RX.radix_sort_kernel(keys, tmp, payload, ptmp, carry, bits, count)
    if passes % 2:
        return tmp, ptmp, passes
    return keys, payload, passes


def check(keys):
    """Both wrappers and the kernel, with and without a payload, against NumPy."""
    n = keys.size
    want = np.sort(keys)
    order = np.argsort(keys, kind="stable")
    payload = np.arange(n, dtype=np.int64) * 7 - 3
    got, none = RX.radix_sort(keys.copy(), np.empty(n, np.int64))
    assert none is None
    assert np.array_equal(got, want)
    got, moved = RX.radix_sort(
        keys.copy(), np.empty(n, np.int64), payload.copy(), np.empty(n, np.int64)
    )
    assert np.array_equal(got, want)
    assert np.array_equal(moved, payload[order])
    buffers = [np.empty(n, np.int64) for _ in range(3)]
    got, perm = RX.radix_argsort(keys.copy(), *buffers)
    assert np.array_equal(got, want)
    assert np.array_equal(perm, order)
    for bits in (RX.DIGIT_BITS, RX.PAIR_DIGIT_BITS, 1, 16):
        got, _, _ = kernel(keys, bits=bits)
        assert np.array_equal(got, want)
        got, moved, _ = kernel(keys, payload, 1, bits)
        assert np.array_equal(got, want)
        assert np.array_equal(moved, payload[order])
        got, perm, _ = kernel(keys, payload, 2, bits)  # the payload's values unused
        assert np.array_equal(got, want)
        assert np.array_equal(perm, order)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["random", "sorted", "reverse", "few", "equal", "floats"])
def test_the_sort_matches_numpy(rng, n, kind):
    if kind == "random":
        keys = rng.integers(0, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    elif kind == "sorted":
        keys = np.sort(rng.integers(0, 2**40, n, dtype=np.int64))
    elif kind == "reverse":
        keys = np.sort(rng.integers(0, 2**40, n, dtype=np.int64))[::-1].copy()
    elif kind == "few":  # many ties: the stability shows
        keys = rng.choice(np.array([0, 5, 2**62, 2**63 - 1], dtype=np.int64), n)
    elif kind == "equal":
        keys = np.full(n, 123_456_789, dtype=np.int64)
    else:  # the keys of the decompositions: 2 bits(f) + outcome, with 0, 1, subnormals
        f = rng.dirichlet(np.ones(3), n)[:, 0]
        f[::5] = np.round(f[::5], 2)
        f[::7] = 0.0
        f[::11] = 1.0
        f[::13] = 5e-324
        keys = (f.view(np.int64) << 1) + rng.integers(0, 2, n)
    check(keys)


def test_bits_that_no_key_changes_cost_no_pass(rng):
    n = 5_000
    assert kernel(np.full(n, 2**62 + 17, dtype=np.int64))[2] == 0  # every pass skipped
    perm = kernel(np.full(n, 9, dtype=np.int64), np.zeros(n, np.int64), 2)[1]
    assert np.array_equal(perm, np.arange(n))  # no pass: the identity
    low = rng.integers(0, 2**RX.DIGIT_BITS, n, dtype=np.int64)
    assert kernel(low)[2] == 1
    assert kernel(low << 40)[2] == 1  # the same bits, higher up
    assert kernel((low << 40) + 2**62)[2] == 1  # and a constant top bit
    assert kernel(low * 2 + 1)[2] == 1  # bits 1..10 (bit 0 always set)
    assert kernel(low * 2 + rng.integers(0, 2, n))[2] == 2  # bits 0..10
    sparse = rng.integers(0, 2, n, dtype=np.int64) + (rng.integers(0, 2, n) << 62)
    assert kernel(sparse)[2] == 2  # bits 0 and 62 vary, nothing between
    check(sparse)
    # float32 values widened to float64: the low 29 bits of the mantissa are zero
    f = rng.random(n).astype(np.float32).astype(np.float64)
    keys = f.view(np.int64) << 1
    assert kernel(keys)[2] < kernel(rng.random(n).view(np.int64) << 1)[2]
    check(keys)


def test_the_result_lies_in_one_buffer_of_each_pair(rng):
    n = 10_000
    keys = rng.integers(0, 2**20, n, dtype=np.int64)  # two passes: back in ``keys``
    a, b = keys.copy(), np.empty(n, np.int64)
    got, _ = RX.radix_sort(a, b)
    assert got is a
    keys = rng.integers(0, 2**10, n, dtype=np.int64)  # one pass: in ``keys_tmp``
    a, b = keys.copy(), np.empty(n, np.int64)
    got, _ = RX.radix_sort(a, b)
    assert got is b
    assert np.array_equal(got, np.sort(keys))


def test_negative_keys_are_refused():
    keys = np.arange(RX.SMALL_N_PAIRS + 5, dtype=np.int64)
    keys[7] = -1
    with pytest.raises(ValueError, match="non-negative int64 keys"):
        RX.radix_sort(keys.copy(), np.empty_like(keys))
    buffers = [np.empty_like(keys) for _ in range(3)]
    with pytest.raises(ValueError, match="non-negative int64 keys"):
        RX.radix_argsort(keys.copy(), *buffers)
    assert kernel(keys)[2] == -1


def test_buffers_of_another_size_are_refused():
    n = RX.SMALL_N_PAIRS + 5
    keys = np.arange(n, dtype=np.int64)
    with pytest.raises(ValueError, match="buffers of the size of keys"):
        RX.radix_sort(keys.copy(), np.empty(n - 1, np.int64))
    with pytest.raises(ValueError, match="buffers of the size of keys"):
        RX.radix_argsort(keys.copy(), np.empty(n, np.int64), np.empty(n, np.int64), keys[:3])
