"""When the kernels run their blocks of rows in parallel, and on which threads.

The scoring, decision and calibration kernels split the rows into fixed blocks (e.g.
:data:`ordmetrics._core.kernels.BLOCK` rows); each block's partial results go to their own
slot and are combined in block order afterwards. Which thread computed a block, and how many
threads there were, therefore never changes a result. Two ways of running blocks in parallel
give the same bits as running them in order:

* the scoring rules run chunks of blocks on Python threads (:func:`run_chunks`, on the
  threads of :func:`thread_pool`; the compiled kernels and NumPy's ufuncs release the GIL), as
  many as numba's thread count (``numba.set_num_threads``);
* the decision and calibration kernels are numba ``parallel=True`` kernels (blocks in
  ``prange``) with a serial twin (the same code compiled without ``parallel``,
  :attr:`ordmetrics._core.jit.LazyKernel.serial`), except ``decide`` with a general cost
  matrix, whose small inputs call the compiled work of one block directly.

:func:`parallel_slot` decides, per call, whether the blocks may run in parallel. They run in
order

* for small input (less than :data:`PARALLEL_MIN_WORK` entries), where starting the threads
  costs more than it saves;
* while another Python thread is inside a parallel call of ordmetrics: numba's default
  ``workqueue`` threading layer aborts the process on concurrent parallel calls, so parallel
  entry is serialised by a lock that is never waited for;
* in a child process forked after a parallel kernel ran: numba's ``omp`` layer (GNU OpenMP)
  terminates such a child when it starts a parallel region.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ordmetrics._core.jit import num_threads, threads_started

__all__ = [
    "PARALLEL_MIN_WORK",
    "parallel_slot",
    "run_chunks",
    "run_kernel",
    "thread_pool",
    "usable_cpus",
]

#: Entries (rows x columns) below which the serial kernel runs. Starting numba's threads costs
#: 5 to 150 microseconds on idle cores, but when the other cores are busy a parallel region
#: waits for a descheduled thread: with GNU OpenMP (numba's ``omp`` layer) a call on 10^5 rows
#: x 5 classes then took a median 8 ms instead of 0.67 ms serially. Below 2^20 entries (about
#: 1.3 ms of serial work) the serial kernel runs whatever the load.
PARALLEL_MIN_WORK = 1 << 20

_ENTRY = threading.Lock()
#: [numba's threads were started in this process, this process was forked after they were]
_STATE = [False, False]
_POOL: list[ThreadPoolExecutor | None] = [None]
_POOL_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    global _ENTRY
    _STATE[1] = _STATE[0] or threads_started()  # also by code outside ordmetrics
    _ENTRY = threading.Lock()  # a lock held by a thread of the parent would stay held
    _POOL[0] = None  # the parent's pool threads do not exist here


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def parallel_slot(work: int) -> Iterator[bool]:
    """True when this call may run its blocks in parallel (see the module notes).

    Parameters
    ----------
    work : int
        The size of the input (rows x columns).

    Examples
    --------
    >>> from ordmetrics._core.parallel import parallel_slot
    >>> with parallel_slot(10) as parallel:  # too small to be worth the threads
    ...     parallel
    False
    """
    if work < PARALLEL_MIN_WORK or _STATE[1]:
        yield False
        return
    _STATE[0] = True  # numba's threads start now (num_threads): not in a forked child
    entry = _ENTRY
    if num_threads() < 2 or not entry.acquire(blocking=False):  # or another thread is in
        yield False
        return
    try:
        yield True
    finally:
        entry.release()


def run_kernel(kernel: Any, work: int, *args: Any) -> Any:
    """``kernel(*args)`` for a ``parallel=True`` kernel (a
    :class:`ordmetrics._core.jit.LazyKernel`), or its serial twin where :func:`parallel_slot`
    says so for ``work`` entries (small input, another thread in a parallel kernel, a forked
    child). A kernel whose blocks or chunks depend on the input only gives the same bits
    either way.
    """
    with parallel_slot(work) as parallel:
        return (kernel if parallel else kernel.serial)(*args)


def usable_cpus() -> int:
    """The number of CPUs this process may run on (its affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def thread_pool() -> ThreadPoolExecutor:
    """The threads ordmetrics keeps for the process: one per usable CPU but the caller's,
    started on first use (starting a thread waits until it is scheduled: milliseconds on a
    busy machine), replaced in a forked child.

    Work submitted here must never wait for other work of the pool: a caller runs its own
    share and takes over (or cancels) what a pool thread has not started, so that a busy
    pool only costs parallelism, never a deadlock.
    """
    pool = _POOL[0]
    if pool is None:
        with _POOL_LOCK:
            pool = _POOL[0]
            if pool is None:
                workers = max(1, usable_cpus() - 1)
                pool = ThreadPoolExecutor(workers, thread_name_prefix="ordmetrics")
                _POOL[0] = pool
    return pool


def run_chunks(work: Callable[[int], None], n_chunks: int, parallel: bool) -> None:
    """Call ``work(c)`` for every chunk ``c`` in ``range(n_chunks)``, on several threads when
    ``parallel`` (the calling thread and up to numba's thread count minus one helpers).

    The chunks must be independent: each writes its own rows and block slots, so the result
    does not depend on the thread that ran a chunk or on their number.
    """
    threads = min(num_threads(), n_chunks) if parallel else 1
    if threads < 2:
        for c in range(n_chunks):
            work(c)
        return
    todo = itertools.count()  # next() is atomic under the GIL: each chunk runs once
    failed: list[BaseException] = []

    def loop() -> None:
        for c in todo:
            if c >= n_chunks or failed:
                return
            try:
                work(c)
            except BaseException as exc:  # re-raised in the calling thread
                failed.append(exc)
                return

    pool = thread_pool()
    helpers: list[Future[None]] = [pool.submit(loop) for _ in range(threads - 1)]
    loop()
    for f in helpers:
        # a helper that has not started yet (its thread not scheduled: a busy machine) is
        # cancelled instead of waited for: the calling thread has done its chunks
        if not f.cancel():
            f.result()
    if failed:
        raise failed[0]
