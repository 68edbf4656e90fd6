"""A least-significant-digit radix sort of non-negative int64 keys, optionally carrying a payload.

Used where NumPy's comparison sorts are the cost (the decompositions with one bin per distinct
forecast value sort the bits of the forecasts): one pass finds the bits that vary among the
keys (the AND and the OR of all keys); the digits, of at most :data:`DIGIT_BITS` bits, are laid
over the varying bits only, from the lowest (a bit that no key changes never costs a pass: the
top bits of the bits of probabilities are nearly constant, the low bits of float32 values
widened to float64 are all zero); each digit then costs a counting pass and a scatter pass from
one buffer into the other (ping-pong: one extra buffer the size of the keys, and one the size of
the payload). A counting sort is stable, so an LSD radix sort is: the keys come out in
ascending order, equal keys (and their payload) in their input order, the permutation of
``np.argsort(keys, kind="stable")``.

Below :data:`SMALL_N` keys NumPy's sorts are at least as fast and are used instead (the same
result: the sorted keys, and the stable permutation of the payload).
"""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit

__all__ = [
    "DIGIT_BITS",
    "PAIR_DIGIT_BITS",
    "SMALL_N",
    "SMALL_N_PAIRS",
    "radix_argsort",
    "radix_sort",
    "radix_sort_kernel",
]

#: The widest digit of a sort of keys alone (a pass sorts by up to this many bits).
DIGIT_BITS = 10

#: The widest digit of a sort that moves a payload too (twice the streams of writes: fewer
#: buckets keep them in the first-level cache).
PAIR_DIGIT_BITS = 9

#: Below this many keys :func:`radix_sort` sorts keys alone with NumPy's sort instead.
SMALL_N = 1_024

#: Below this many keys a sort with a payload uses NumPy's stable argsort instead.
SMALL_N_PAIRS = 2_048

_EMPTY = np.empty(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def radix_sort_kernel(
    keys, keys_tmp, payload, payload_tmp, carry, digit_bits, count
):  # pragma: no cover
    """Sort the non-negative ``keys`` (int64) between ``keys`` and ``keys_tmp``, with the
    payload between ``payload`` and ``payload_tmp``: ``carry`` 0, no payload (its arrays
    unused); 1, ``payload`` moves with the keys; 2, the row numbers 0..N-1 do (``payload``'s
    values unused: the result is the stable permutation). ``count``: an int64 buffer of
    2^digit_bits counters.

    Returns the number of digit passes made: even, the result is in ``keys`` and ``payload``;
    odd, in ``keys_tmp`` and ``payload_tmp``; -1 (nothing moved) when a key is negative.
    """
    n = keys.size
    low = keys[0] if n else 0
    high = low
    for i in range(n):
        low &= keys[i]
        high |= keys[i]
    if high < 0:  # a key with the sign bit
        return -1
    vary = low ^ high  # the bits that differ between two keys
    radix = 1 << digit_bits
    mask = radix - 1
    src = keys
    dst = keys_tmp
    psrc = payload
    pdst = payload_tmp
    passes = 0
    shift = 0
    while shift < 63:
        if not (vary >> shift) & 1:  # no digit starts at a bit no key changes
            shift += 1
            continue
        for r in range(radix):
            count[r] = 0
        for i in range(n):
            count[(src[i] >> shift) & mask] += 1
        start = 0
        for r in range(radix):  # where the keys of each digit value start
            c = count[r]
            count[r] = start
            start += c
        if carry == 0:
            for i in range(n):
                k = src[i]
                d = (k >> shift) & mask
                at = count[d]
                count[d] = at + 1
                dst[at] = k
        elif carry == 2 and passes == 0:  # the row numbers
            for i in range(n):
                k = src[i]
                d = (k >> shift) & mask
                at = count[d]
                count[d] = at + 1
                dst[at] = k
                pdst[at] = i
        else:
            for i in range(n):
                k = src[i]
                d = (k >> shift) & mask
                at = count[d]
                count[d] = at + 1
                dst[at] = k
                pdst[at] = psrc[i]
        src, dst = dst, src
        psrc, pdst = pdst, psrc
        passes += 1
        shift += digit_bits
    if carry == 2 and passes == 0:  # all keys equal: the identity
        for i in range(n):
            payload[i] = i
    return passes


def _sorted(
    keys: np.ndarray,
    keys_tmp: np.ndarray,
    payload: np.ndarray,
    payload_tmp: np.ndarray,
    carry: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Run :func:`radix_sort_kernel`; the arrays that hold the result."""
    n = keys.size
    sizes = (keys_tmp.size, payload.size, payload_tmp.size) if carry else (keys_tmp.size,)
    if any(size != n for size in sizes):  # the kernel does not check its indices
        raise ValueError(
            f"radix_sort needs buffers of the size of keys ({n}); got sizes {list(sizes)} "
            "(keys_tmp, then payload and payload_tmp). Pass arrays of as many values."
        )
    bits = DIGIT_BITS if carry == 0 else PAIR_DIGIT_BITS
    count = np.empty(1 << bits, dtype=np.int64)
    passes = radix_sort_kernel(keys, keys_tmp, payload, payload_tmp, carry, bits, count)
    if passes < 0:
        raise ValueError(
            "radix_sort sorts non-negative int64 keys; got a negative key. Offset or mask "
            "the keys so that they are >= 0."
        )
    return (keys_tmp, payload_tmp) if passes % 2 else (keys, payload)


def radix_sort(
    keys: np.ndarray,
    keys_tmp: np.ndarray,
    payload: np.ndarray | None = None,
    payload_tmp: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Sort the non-negative int64 ``keys`` (and ``payload`` with them, stably).

    ``keys_tmp`` (and ``payload_tmp``) are buffers of the same size and type, overwritten; the
    result lies in one array of each pair, returned: the sorted keys, and the payload in the
    order of ``np.argsort(keys, kind="stable")`` (None without a payload). Below
    :data:`SMALL_N` keys (:data:`SMALL_N_PAIRS` with a payload) NumPy's sorts do it, with
    the same result.

    Parameters
    ----------
    keys, keys_tmp : ndarray of int64, 1-D, C-contiguous
        The keys (all >= 0) and a buffer of the same size; both overwritten.
    payload, payload_tmp : ndarray of int64, 1-D, C-contiguous, optional
        Values moved with the keys and a buffer of the same size; both overwritten.

    Returns
    -------
    sorted_keys : ndarray of int64
        ``keys`` or ``keys_tmp``, holding the keys in ascending order.
    sorted_payload : ndarray of int64 or None
        ``payload`` or ``payload_tmp``, holding ``payload[np.argsort(keys, kind="stable")]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.radix import radix_sort
    >>> keys = np.array([5, 3, 5, 0, 3], dtype=np.int64)
    >>> payload = np.array([10, 11, 12, 13, 14], dtype=np.int64)
    >>> s, p = radix_sort(keys, np.empty(5, np.int64), payload, np.empty(5, np.int64))
    >>> s.tolist(), p.tolist()
    ([0, 3, 3, 5, 5], [13, 11, 14, 10, 12])
    """
    if payload is None or payload_tmp is None:
        if keys.size < SMALL_N:
            keys.sort()
            return keys, None
        return _sorted(keys, keys_tmp, _EMPTY, _EMPTY, 0)[0], None
    if keys.size < SMALL_N_PAIRS:
        order = np.argsort(keys, kind="stable")
        np.take(keys, order, out=keys_tmp)
        np.take(payload, order, out=payload_tmp)
        return keys_tmp, payload_tmp
    return _sorted(keys, keys_tmp, payload, payload_tmp, 1)


def radix_argsort(
    keys: np.ndarray, keys_tmp: np.ndarray, order: np.ndarray, order_tmp: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Sort the non-negative int64 ``keys``; the sorted keys and ``np.argsort(keys,
    kind="stable")``.

    All four arrays have the size of ``keys``, are overwritten, and the results lie in one
    array of each pair (the sorted keys in ``keys`` or ``keys_tmp``, the permutation in
    ``order`` or ``order_tmp``). Below :data:`SMALL_N_PAIRS` keys NumPy's stable argsort
    does it.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.radix import radix_argsort
    >>> keys = np.array([5, 3, 5, 0, 3], dtype=np.int64)
    >>> buffers = [np.empty(5, np.int64) for _ in range(3)]
    >>> s, order = radix_argsort(keys, *buffers)
    >>> s.tolist(), order.tolist()
    ([0, 3, 3, 5, 5], [3, 1, 4, 0, 2])
    """
    if keys.size < SMALL_N_PAIRS:
        order[:] = np.argsort(keys, kind="stable")
        np.take(keys, order, out=keys_tmp)
        return keys_tmp, order
    return _sorted(keys, keys_tmp, order, order_tmp, 2)
