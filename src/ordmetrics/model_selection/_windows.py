r"""Sliding windows that never cross a block (or series) boundary."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ordmetrics._core.params import Interval, check_param, validate_params
from ordmetrics._core.validation import type_name
from ordmetrics.model_selection._common import (
    _labels_1d,
)

__all__ = ["Windows", "sliding_windows"]


class Windows(NamedTuple):
    """Windows built by :func:`sliding_windows`.

    Attributes
    ----------
    indices : numpy.ndarray of shape (n_windows, length)
        Sample indices of each window (int64), in time order; ``X[windows.indices]`` stacks the
        windows of an array ``X``.
    block : numpy.ndarray of shape (n_windows,)
        The block label (from ``blocks``) of each window.
    step : int
        Samples between the starts of consecutive windows of a segment.
    overlap : int
        Samples shared by consecutive windows of a segment (``length - step``).
    """

    indices: np.ndarray
    block: np.ndarray
    step: int
    overlap: int


def _overlap_samples(length: int, overlap: Any) -> int:
    if isinstance(overlap, (bool, np.bool_)) or not isinstance(overlap, numbers.Real):
        raise TypeError(
            f"overlap must be a fraction of the window in [0, 1), e.g. 0.75 for 75%; got "
            f"{type_name(overlap)} {overlap!r}."
        )
    value = float(overlap)
    if not (0.0 <= value < 1.0):
        hint = " Pass 0.75 for 75%, not 75." if value >= 1 else ""
        raise ValueError(f"overlap must be a fraction in [0, 1); got {overlap!r}.{hint}")
    # floor of overlap * length, computed from the decimal the user typed (0.29 * 100 is 29,
    # not 28 as the float product 28.999999999999996 would give)
    return math.floor(Fraction(repr(value)) * length)


@validate_params({"length": [Interval(numbers.Integral, 1, None, closed="left")]})
def sliding_windows(
    blocks: Any,
    length: int,
    overlap: float = 0.0,
    *,
    indices: Any = None,
    groups: Any = None,
) -> Windows:
    r"""Windows of ``length`` samples sliding with ``overlap``, each inside one block.

    The samples are in time order. A *segment* is a maximal run of consecutive samples with the
    same block label (and the same ``groups`` label); with ``indices``, only those samples
    count and a missing sample also ends a segment. Windows start at the first sample of each
    segment and every ``step = length - floor(overlap * length)`` samples after it, as long as
    the whole window fits; the samples left at the end of a segment, fewer than a window, are
    not used. So no window straddles a block boundary and the windows of the training, the
    validation and the test blocks of an :class:`HBlockSplit` never share a sample.

    Parameters
    ----------
    blocks : int or array-like of shape (n_samples,)
        The block label of every sample (e.g. :meth:`HBlockSplit.block_ids`), or the number
        of samples of a single block.
    length : int
        Samples per window (at least 1).
    overlap : float, default=0.0
        Fraction in [0, 1) of a window shared with the next one: 0.75 for the 75% of
        Ahmadian et al.'s Table 1. The overlap in samples is ``floor(overlap * length)``.
    indices : array-like of int, optional
        Strictly increasing sample positions to window over (e.g. the training indices of a
        split); by default all samples.
    groups : array-like of shape (n_samples,), optional
        Series labels: a window never spans two series either.

    Returns
    -------
    Windows
        ``indices`` (n_windows, length) sample indices, ``block`` (n_windows,) block label of each
        window, and the ``step`` and ``overlap`` in samples.

    Raises
    ------
    TypeError
        If ``length`` is not an integer or ``overlap`` not a number.
    ValueError
        If ``length < 1``, ``overlap`` is outside [0, 1), ``indices`` are not strictly
        increasing positions, or a segment is shorter than ``length`` (its samples would
        silently be lost: lower ``length`` or use fewer blocks).

    Notes
    -----
    A segment of :math:`m \ge L` samples gives :math:`\lfloor (m - L)/s \rfloor + 1` windows
    of length :math:`L` and step :math:`s`. The authors' code concatenates the blocks of each
    set before windowing, so its windows can join the last samples of one block to the first
    of a block that is not adjacent in time; here they cannot.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.model_selection import sliding_windows
    >>> w = sliding_windows([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], length=4, overlap=0.5)
    >>> w.indices
    array([[0, 1, 2, 3],
           [2, 3, 4, 5],
           [6, 7, 8, 9]])
    >>> w.block, w.step, w.overlap
    (array([0, 0, 1]), 2, 2)

    Windows over the training blocks of an h-block split:

    >>> from ordmetrics.model_selection import HBlockSplit
    >>> cv = HBlockSplit(n_blocks=4, val_size=1, test_size=1)
    >>> ids = cv.block_ids(range(16))
    >>> train, val, test = next(cv.split_with_validation(range(16)))
    >>> sliding_windows(ids, 4, 0.75, indices=train).indices[[0, -1]]
    array([[ 8,  9, 10, 11],
           [12, 13, 14, 15]])
    """
    length = int(length)
    n_overlap = _overlap_samples(length, overlap)
    step = length - n_overlap
    if isinstance(blocks, numbers.Integral) and not isinstance(blocks, (bool, np.bool_)):
        n = check_param(blocks, "blocks", [Interval(numbers.Integral, 1, None, closed="left")])
        block_values = np.zeros(n, dtype=np.int64)
    else:
        block_values = _no_nan(_labels_1d(blocks, "blocks"), "blocks")
        n = block_values.shape[0]
    group_values = None if groups is None else _no_nan(_labels_1d(groups, "groups", n), "groups")
    if indices is None:
        pos = None
        lab, grp = block_values, group_values
    else:
        pos = _positions(indices, n)
        if pos.size == 0:
            raise ValueError("there are no samples to window: indices is empty.")
        lab = block_values[pos]
        grp = None if group_values is None else group_values[pos]
    # a segment ends where the block label, the series label or the run of positions changes
    change = lab[1:] != lab[:-1]
    if grp is not None:
        change |= grp[1:] != grp[:-1]
    if pos is not None:
        change |= np.diff(pos) != 1
    n_pos = lab.shape[0]
    breaks = np.flatnonzero(change) + 1
    seg_start = np.concatenate(([0], breaks))
    seg_len = np.diff(np.concatenate((seg_start, [n_pos])))
    short = int(np.argmin(seg_len))
    if seg_len[short] < length:
        first = int(seg_start[short] if pos is None else pos[seg_start[short]])
        label = block_values[first].tolist()
        raise ValueError(
            f"length={length} is longer than a block: the segment that starts at sample "
            f"{first} (block {label!r}) has only {int(seg_len[short])} samples, "
            f"so no window fits in it and its samples would be lost. Use length <= "
            f"{int(seg_len[short])}, or fewer, longer blocks."
        )
    counts = (seg_len - length) // step + 1
    total = int(counts.sum())
    # start of every window, as a position in pos: segment start + step * (rank in segment)
    first_window = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(total, dtype=np.int64) - np.repeat(first_window, counts)
    starts = np.repeat(seg_start, counts) + step * rank
    index = starts[:, None] + np.arange(length, dtype=np.int64)
    if pos is not None:
        index = pos[index]
    return Windows(index, block_values[index[:, 0]], step, n_overlap)


def _no_nan(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype.kind in "fc" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN; give every sample a label.")
    return arr


def _positions(indices: Any, n: int) -> np.ndarray:
    arr = np.asarray(indices)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(
            "indices must be a 1-D array of integer sample positions (e.g. the train indices of "
            f"a split); got {type_name(indices)} of dtype {arr.dtype} and shape {arr.shape}."
        )
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(
            f"indices must be positions in 0..{n - 1} (one per sample of blocks); got values "
            f"from {int(arr.min())} to {int(arr.max())}."
        )
    if arr.size > 1 and not (np.diff(arr) > 0).all():
        raise ValueError(
            "indices must be strictly increasing (time order, no repeats); sort them first, "
            "e.g. np.unique(indices)."
        )
    return arr
