r"""h-block cross-validation for time-ordered data (Ahmadian et al., Algorithm 4)."""

from __future__ import annotations

import numbers
import operator
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, NamedTuple, overload

import numpy as np

from ordmetrics._core.params import Interval, check_param
from ordmetrics._core.validation import type_name
from ordmetrics.model_selection._common import (
    _codes,
    _labels_1d,
    _n_samples,
)

__all__ = ["BlockSplit", "HBlockSplit"]


# The integer parameters (checked where they are read: ``set_params`` may change them).
_N_BLOCKS = [Interval(numbers.Integral, 2, None, closed="left")]
_GAP = [Interval(numbers.Integral, 0, None, closed="left")]
_STEP = [Interval(numbers.Integral, 1, None, closed="left")]
#: The largest ``n_blocks`` accepted: a split holds one block number per block (8 bytes each),
#: so 2^24 blocks take 128 MiB per split, and every block needs at least one sample.
MAX_BLOCKS = 2**24


class BlockSplit(NamedTuple):
    """The blocks (0-based block numbers) of one split of :class:`HBlockSplit`.

    Attributes
    ----------
    train : numpy.ndarray
        Training blocks, in increasing order (before and after the validation/test span, less
        the ``gap`` blocks on each side of it).
    validation : numpy.ndarray
        Validation blocks: a contiguous run (empty when ``val_size=0``).
    test : numpy.ndarray
        Test blocks: a contiguous run that starts right after the validation blocks.
    """

    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray


def _size(value: Any, name: str) -> Fraction | int:
    """A block count (int) or a fraction of the blocks (exact, from the decimal the user typed)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a fraction of the blocks (a float in [0, 1)) or a number of blocks "
            f"(an int >= 0); got {type_name(value)} {value!r}."
        )
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be a number of blocks >= 0; got {value!r}.")
        return int(value)
    value = float(value)
    if not 0.0 <= value < 1.0:
        raise ValueError(
            f"{name} must be a fraction in [0, 1) of the blocks, or an int number of blocks; "
            f"got {value!r}."
        )
    # repr gives the shortest decimal that round-trips, so 0.3 is taken as 3/10 exactly and
    # 0.3 * 10 blocks is exactly 3, not 3.0000000000000004.
    return Fraction(repr(value))


def _apportion(n_blocks: int, val: Fraction | int, test: Fraction | int) -> tuple[int, int, int]:
    """Block counts (train, validation, test) by the largest-remainder method.

    Fractions become the quotas ``fraction * n_blocks``, counts are exact quotas and the training
    quota is what is left; every part gets the floor of its quota and the blocks still missing go
    to the largest remainders, ties in the order training, test, validation.
    """
    q_val = Fraction(val) * n_blocks if isinstance(val, Fraction) else Fraction(val)
    q_test = Fraction(test) * n_blocks if isinstance(test, Fraction) else Fraction(test)
    q_train = n_blocks - q_val - q_test
    quotas = [q_train, q_test, q_val]  # the tie order
    counts = [int(q // 1) for q in quotas]
    missing = n_blocks - sum(counts)
    order = sorted(range(3), key=lambda j: (-(quotas[j] - counts[j]), j))
    for j in order[:missing]:
        counts[j] += 1
    return counts[0], counts[2], counts[1]


class HBlockSplit:
    r"""h-block cross-validation: contiguous validation and test blocks, the rest for training.

    The samples, in time order, are cut into ``n_blocks`` contiguous, non-overlapping blocks of
    (almost) equal size. Each split takes a contiguous run of validation blocks, the contiguous
    run of test blocks right after it, and trains on every other block except ``gap`` blocks on
    each side of the validation/test span. The span slides by ``step`` blocks from the start of
    the series to its end. This is Algorithm 4 of Ahmadian, Ghatee and Wahlström [1]_ (20%
    validation, 30% test, 50% training by default) with the buffer of classic h-block
    cross-validation [2]_ as an option. Nothing is shuffled: the splits depend only on the
    number of samples (and on ``groups``).

    It is a scikit-learn cross-validation splitter: :meth:`split` yields ``(train, test)``
    index arrays, so an ``HBlockSplit`` can be passed as ``cv=`` to ``cross_validate``,
    ``cross_val_score`` or ``GridSearchCV``. :meth:`split_with_validation` yields ``(train,
    validation, test)``, for checkpoint selection and early stopping on the validation blocks.

    Parameters
    ----------
    n_blocks : int, default=10
        Number of blocks (the paper's h; at least 2).
    val_size : float or int, default=0.2
        Validation blocks per split: a fraction in [0, 1) of ``n_blocks``, or a number of
        blocks. 0 gives plain h-block cross-validation without validation blocks.
    test_size : float or int, default=0.3
        Test blocks per split: a fraction in (0, 1) of ``n_blocks``, or a number of blocks
        (at least 1).
    gap : int, default=0
        Blocks left out of training on each side of the validation/test span, so that no
        training sample is adjacent in time to a validation or test sample. The gap blocks are
        used in no set of that split.
    step : int, default=1
        Blocks by which the validation/test span moves from one split to the next.

    Attributes
    ----------
    n_train_blocks, n_val_blocks, n_test_blocks : int
        Block counts of each split before the gap is removed (they add up to ``n_blocks``); a
        split trains on ``n_train_blocks`` less the gap blocks that fall inside the series.

    Raises
    ------
    TypeError
        If a parameter has the wrong type.
    ValueError
        If ``n_blocks < 2`` or ``n_blocks > 2**24`` (``MAX_BLOCKS``: one split alone would
        take over 128 MiB), if the sizes leave no test block, no training block, or no
        validation block when ``val_size > 0``, if ``gap`` leaves some split without training
        blocks, or (in :meth:`split`) if there are fewer samples than blocks.

    See Also
    --------
    sliding_windows : Windows of fixed length and overlap that stay inside one block.

    Notes
    -----
    The printed Algorithm 4 leaves several points open or inconsistent; they are resolved as
    follows (``docs/model_selection.md`` gives the reasoning and worked examples).

    1. **Blocks.** With :math:`n` samples and :math:`h` blocks, the first :math:`n \bmod h`
       blocks hold :math:`\lfloor n/h \rfloor + 1` samples and the others
       :math:`\lfloor n/h \rfloor`, so every sample is in exactly one block (the authors'
       notebook drops the :math:`n \bmod h` last samples and, by an off-by-one, the last sample
       of every block).
    2. **Block counts.** :math:`\lfloor 0.2 h \rfloor` and :math:`\lfloor 0.3 h \rfloor` give
       50/30/20 only when :math:`h` is a multiple of 10 and no validation block at all for
       :math:`h < 5`. Here the counts are apportioned by the largest-remainder method: each
       part gets the floor of its quota (fraction times :math:`h`, training gets what
       validation and test leave) and the remaining blocks go to the largest remainders, ties
       to training, then test, then validation. Every count is within one block of its quota
       and the counts add up to :math:`h`. As training/validation/test blocks, :math:`h = 10`
       gives 5/2/3, :math:`h = 12` gives 6/2/4 and :math:`h = 4` gives 2/1/1. Integers are
       used as exact counts.
    3. **Positions.** The printed loop ``for i = 1 to h`` runs the span past the last block.
       Here the validation span starts at block :math:`k \cdot \text{step}` for
       :math:`k = 0, \dots, K-1` with :math:`K = \lfloor (h - v - t)/\text{step} \rfloor + 1`
       (:math:`v`, :math:`t`: validation and test blocks): the span never wraps around, as in
       the notebook. So the first :math:`v` blocks are never tested, and with the defaults
       (:math:`h = 10`) there are 6 splits.
    4. **Training.** Training is every block outside the span, before and after it, as
       :math:`B \setminus (B_v \cup B_{ts})` says (not only the past, as in forward
       chaining), less ``gap`` blocks on each side of the span (fewer at the ends of the
       series). Training on later blocks is what the paper does; pass ``gap >= 1`` to keep
       the neighbours of the span out of training.
    5. **Order.** The test blocks follow the validation blocks ("starting from the end of the
       validation block"); there is no gap between them, since the validation blocks are
       never trained on.
    6. **split.** :meth:`split` yields the same training and test sets as
       :meth:`split_with_validation` (validation samples are left out of both), so scores of
       ``cross_validate`` and of a loop that uses the validation blocks are comparable. The
       test sets of consecutive splits overlap, so ``cross_val_predict`` (which needs a
       partition) does not apply.
    7. **groups.** Without ``groups`` the rows are one series in time order. With ``groups``
       (one label per sample), each group is a separate series (a recording, a subject, one
       class's file, as in the authors' experiments): each is cut into ``n_blocks`` blocks
       on its own, in the order of its rows, and block :math:`b` of a split is the union of
       the :math:`b`-th blocks of all series.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Sect. 5.2, Algorithm 4.
    .. [2] Burman, P., Chow, E., Nolan, D. (1994). A cross-validatory method for dependent
       data. Biometrika 81(2), 351-358.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.model_selection import HBlockSplit
    >>> cv = HBlockSplit(n_blocks=5, val_size=1, test_size=1)
    >>> cv
    HBlockSplit(n_blocks=5, val_size=1, test_size=1, gap=0, step=1)
    >>> cv.get_n_splits()
    4
    >>> X = np.arange(10).reshape(-1, 1)
    >>> for train, val, test in cv.split_with_validation(X):
    ...     print(train, val, test)
    [4 5 6 7 8 9] [0 1] [2 3]
    [0 1 6 7 8 9] [2 3] [4 5]
    [0 1 2 3 8 9] [4 5] [6 7]
    [0 1 2 3 4 5] [6 7] [8 9]

    With ``gap=1`` the block on each side of the span is left out of training:

    >>> for train, test in HBlockSplit(5, val_size=1, test_size=1, gap=1).split(X):
    ...     print(train, test)
    [6 7 8 9] [2 3]
    [8 9] [4 5]
    [0 1] [6 7]
    [0 1 2 3] [8 9]
    """

    def __init__(
        self,
        n_blocks: int = 10,
        *,
        val_size: float | int = 0.2,
        test_size: float | int = 0.3,
        gap: int = 0,
        step: int = 1,
    ) -> None:
        self.n_blocks = n_blocks
        self.val_size = val_size
        self.test_size = test_size
        self.gap = gap
        self.step = step
        self._plan()  # check the parameters now, not at the first split

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(n_blocks={self.n_blocks!r}, val_size={self.val_size!r}, "
            f"test_size={self.test_size!r}, gap={self.gap!r}, step={self.step!r})"
        )

    # -- the plan over blocks ------------------------------------------------------------------

    def _counts(self) -> tuple[int, int, int]:
        h = _check_n_blocks(self.n_blocks)
        val = _size(self.val_size, "val_size")
        test = _size(self.test_size, "test_size")
        if test == 0:
            raise ValueError(
                f"test_size must give at least one test block; got test_size={self.test_size!r}."
            )
        total = (val if isinstance(val, Fraction) else Fraction(val, h)) + (
            test if isinstance(test, Fraction) else Fraction(test, h)
        )
        if total >= 1:
            raise ValueError(
                f"val_size={self.val_size!r} and test_size={self.test_size!r} leave no training "
                f"block out of n_blocks={h}: together they must be less than all the blocks. "
                "Lower them or raise n_blocks."
            )
        n_train, n_val, n_test = _apportion(h, val, test)
        for name, requested, count in (
            ("val_size", val, n_val),
            ("test_size", test, n_test),
            ("training blocks", None, n_train),
        ):
            if count == 0 and requested != 0:
                fix = "raise n_blocks or pass the number of blocks as an int"
                what = f"{name}={getattr(self, name)!r}" if requested is not None else name
                raise ValueError(
                    f"{what} gives 0 of n_blocks={h} blocks (counts train/validation/test = "
                    f"{n_train}/{n_val}/{n_test}); {fix}."
                )
        return n_train, n_val, n_test

    def _plan(self) -> _SplitPlan:
        n_train, n_val, n_test = self._counts()
        gap = check_param(self.gap, "gap", _GAP)
        step = check_param(self.step, "step", _STEP)
        h = int(self.n_blocks)
        self.n_train_blocks, self.n_val_blocks, self.n_test_blocks = n_train, n_val, n_test
        span = n_val + n_test
        start = _first_untrained_start(h, span, gap, step)
        if start is not None:
            ok = _largest_gap(h, span, gap, step)
            raise ValueError(
                f"gap={gap} leaves no training block in the split whose validation/test "
                f"span is blocks {start}..{start + span - 1} of n_blocks={h}: each side of the "
                f"span loses up to {gap} blocks. Use gap <= {ok}, or more blocks with the same "
                "number of validation and test blocks."
            )
        return _SplitPlan(h, n_val, n_test, gap, step)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of splits: :math:`\\lfloor (h - v - t) / \\text{step} \\rfloor + 1`.

        Parameters
        ----------
        X, y, groups : object
            Ignored; the number of splits depends only on the parameters.

        Returns
        -------
        int
            The number of splits that :meth:`split` yields.

        Examples
        --------
        >>> from ordmetrics.model_selection import HBlockSplit
        >>> HBlockSplit().get_n_splits()  # 10 blocks, 2 validation and 3 test blocks
        6
        """
        return len(self._plan())

    def split_blocks(self) -> Sequence[BlockSplit]:
        """The block numbers of each split, before any data is seen.

        Returns
        -------
        sequence of BlockSplit
            One ``(train, validation, test)`` tuple of block-number arrays per split. The
            sequence is read-only and builds a split when it is read (by index or while
            iterating), so it takes the memory of one split, O(n_blocks), not that of all
            of them, O(n_blocks^2); ``list(cv.split_blocks())`` builds them all.

        Examples
        --------
        >>> from ordmetrics.model_selection import HBlockSplit
        >>> first = HBlockSplit().split_blocks()[0]
        >>> first.train, first.validation, first.test
        (array([5, 6, 7, 8, 9]), array([0, 1]), array([2, 3, 4]))
        """
        return self._plan()

    # -- samples -------------------------------------------------------------------------------

    def block_ids(self, X: Any, y: Any = None, groups: Any = None) -> np.ndarray:
        """The block (0 to ``n_blocks - 1``) of every sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            The samples in time order (only their number is used).
        y : object
            Ignored.
        groups : array-like of shape (n_samples,), optional
            Series labels: each series is cut into ``n_blocks`` blocks on its own (Notes, 7).

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            Block numbers (int64): non-decreasing along each series.

        Raises
        ------
        ValueError
            If there are fewer samples (in some series) than blocks.

        Examples
        --------
        >>> from ordmetrics.model_selection import HBlockSplit
        >>> HBlockSplit(n_blocks=3, val_size=1, test_size=1).block_ids(range(8))
        array([0, 0, 0, 1, 1, 1, 2, 2])
        >>> HBlockSplit(3, val_size=1, test_size=1).block_ids(range(7), groups=list("aaabbbb"))
        array([0, 1, 2, 0, 0, 1, 2])
        """
        h = _check_n_blocks(self.n_blocks)
        n = _n_samples(X)
        if groups is None:
            _check_enough(n, h)
            return np.repeat(np.arange(h, dtype=np.int64), _sizes(np.array([n]), h))
        codes = _codes(_labels_1d(groups, "groups", n), "groups")
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes)
        if sizes.min() < h:
            small = int(np.argmin(sizes))
            label = np.asarray(groups)[order[np.searchsorted(codes[order], small)]].tolist()
            raise ValueError(
                f"groups: series {label!r} has {int(sizes[small])} samples, fewer than "
                f"n_blocks={h}: every series is cut into n_blocks blocks of at least one sample. "
                "Lower n_blocks, or merge or drop the short series."
            )
        # in the order of (series, position in series), the blocks are runs of known sizes
        ids = np.empty(n, dtype=np.int64)
        ids[order] = np.repeat(np.tile(np.arange(h, dtype=np.int64), sizes.size), _sizes(sizes, h))
        return ids

    def split_with_validation(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Yield ``(train, validation, test)`` sample indices of every split.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            The samples in time order (only their number is used).
        y : object
            Ignored.
        groups : array-like of shape (n_samples,), optional
            Series labels (Notes, 7).

        Yields
        ------
        train, validation, test : numpy.ndarray
            Increasing sample indices (int64); ``validation`` is empty when ``val_size=0``.

        Examples
        --------
        >>> from ordmetrics.model_selection import HBlockSplit
        >>> cv = HBlockSplit(n_blocks=4, val_size=1, test_size=1)
        >>> train, val, test = next(cv.split_with_validation(range(8)))
        >>> train, val, test
        (array([4, 5, 6, 7]), array([0, 1]), array([2, 3]))
        """
        plan = self._plan()
        h = int(self.n_blocks)
        if groups is None:
            # one series: block b is the range bounds[b]..bounds[b + 1] - 1
            n = _n_samples(X)
            ids = None
            _check_enough(n, h)
            bounds = np.concatenate(([0], np.cumsum(_sizes(np.array([n]), h))))
        else:
            ids = self.block_ids(X, groups=groups)

        def take(blocks: np.ndarray) -> np.ndarray:
            if ids is None:
                # runs of consecutive blocks become one range each
                cuts = np.flatnonzero(np.diff(blocks) != 1) + 1
                runs = np.split(blocks, cuts) if blocks.size else []
                parts = [np.arange(bounds[b[0]], bounds[b[-1] + 1], dtype=np.int64) for b in runs]
                return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
            chosen = np.zeros(h, dtype=bool)
            chosen[blocks] = True
            return np.flatnonzero(chosen[ids]).astype(np.int64, copy=False)

        for part in plan:
            yield take(part.train), take(part.validation), take(part.test)

    def split(
        self, X: Any, y: Any = None, groups: Any = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train, test)`` sample indices of every split (scikit-learn's interface).

        The validation samples are in neither set (Notes, 6).

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            The samples in time order (only their number is used).
        y : object
            Ignored.
        groups : array-like of shape (n_samples,), optional
            Series labels (Notes, 7).

        Yields
        ------
        train, test : numpy.ndarray
            Increasing sample indices (int64).

        Examples
        --------
        >>> from ordmetrics.model_selection import HBlockSplit
        >>> [test.tolist() for _, test in HBlockSplit(4, val_size=1, test_size=1).split(range(8))]
        [[2, 3], [4, 5], [6, 7]]
        """
        for train, _, test in self.split_with_validation(X, y, groups):
            yield train, test


class _SplitPlan(Sequence[BlockSplit]):
    """The splits of an :class:`HBlockSplit` over blocks, each built when it is read.

    Split ``i`` has its validation/test span at blocks ``i * step`` to ``i * step + span - 1``;
    the plan stores only the five numbers that define it, so that its size does not grow with
    the number of splits.
    """

    def __init__(self, h: int, n_val: int, n_test: int, gap: int, step: int) -> None:
        self._h, self._n_val, self._n_test, self._gap, self._step = h, n_val, n_test, gap, step
        self._len = (h - n_val - n_test) // step + 1

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> BlockSplit: ...

    @overload
    def __getitem__(self, index: slice) -> list[BlockSplit]: ...

    def __getitem__(self, index: int | slice) -> BlockSplit | list[BlockSplit]:
        if isinstance(index, slice):
            return [self._split(i) for i in range(*index.indices(self._len))]
        i = operator.index(index)  # a float index is an error, as for a list
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"split index {index} out of range for {self._len} splits")
        return self._split(i)

    def __iter__(self) -> Iterator[BlockSplit]:
        for i in range(self._len):
            yield self._split(i)

    def __repr__(self) -> str:
        return f"<{self._len} h-block splits of {self._h} blocks>"

    def _split(self, i: int) -> BlockSplit:
        h, gap = self._h, self._gap
        start = i * self._step
        mid = start + self._n_val
        end = mid + self._n_test
        train = np.concatenate((np.arange(0, max(0, start - gap)), np.arange(min(h, end + gap), h)))
        return BlockSplit(train, np.arange(start, mid), np.arange(mid, end))


def _first_untrained_start(h: int, span: int, gap: int, step: int) -> int | None:
    """The first span start whose split has no training block with this gap, or None.

    A split whose span starts at block ``s`` trains on nothing when the gap reaches both ends
    of the series, ``s <= gap`` and ``s + span + gap >= h``: the starts in
    ``[h - span - gap, gap]`` that are multiples of ``step`` (at most the last start). Solved
    in closed form, so that a huge ``gap`` or ``n_blocks`` costs no loop over the splits.
    """
    last = (h - span) // step * step
    lo = max(0, h - span - gap)
    first = -(-lo // step) * step  # the first multiple of step >= lo
    return first if first <= min(gap, last) else None


def _largest_gap(h: int, span: int, gap: int, step: int) -> int:
    """The largest gap below ``gap`` with which every split trains (gap 0 always does).

    The set of splits without training only grows with the gap, so a bisection finds it.
    """
    lo, hi = 0, gap - 1  # lo works; the answer is in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _first_untrained_start(h, span, mid, step) is None:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _check_n_blocks(value: Any) -> int:
    """``n_blocks`` checked: an int in [2, MAX_BLOCKS]."""
    h = check_param(value, "n_blocks", _N_BLOCKS)
    if h > MAX_BLOCKS:
        raise ValueError(
            f"n_blocks must be at most {MAX_BLOCKS} (2^24, MAX_BLOCKS); got {h!r}. Each split "
            f"holds one block number per block (8 bytes each), so {h!r} blocks would need "
            f"{8 * h / 2**30:,.2f} GiB per split, and at least {h!r} samples (one per block). "
            "Use fewer, longer blocks."
        )
    return h


def _check_enough(n: int, h: int) -> None:
    if n < h:
        raise ValueError(
            f"X has {n} samples, fewer than n_blocks={h}: every block needs at least one "
            "sample. Lower n_blocks or pass more samples."
        )


def _sizes(n: np.ndarray, h: int) -> np.ndarray:
    """Block sizes (one row per series of ``n`` samples): the first ``n % h`` blocks are longer.

    Returns the sizes of all blocks, series after series (``len(n) * h`` values).
    """
    q, r = np.divmod(np.asarray(n, dtype=np.int64), h)
    return (q[:, None] + (np.arange(h) < r[:, None])).ravel()
