"""The one place where ordmetrics compiles its kernels with numba.

:func:`njit` is used instead of ``numba.njit`` by every module with compiled kernels. It
differs in two ways:

* **Lazy.** Decorating a function does not import numba. The kernel is compiled (and numba
  imported) on its first call, together with the compiled functions it calls, so that
  ``import ordmetrics``, ``ordmetrics --help`` and ``ordmetrics list`` never load numba.
* **On-disk cache only where possible.** ``cache=True`` asks numba to keep the machine code
  next to the package (``__pycache__``) or in the user's cache directory
  (``NUMBA_CACHE_DIR``, else under ``$HOME``). When none of them is writable, numba refuses
  to compile ("cannot cache function ...: no locator available"); the kernel is then
  compiled without the on-disk cache (recompiled in every new process) instead of failing.

An on-disk cache that cannot be read (a file truncated by a full disk or a killed process,
damaged, or written by an incompatible build) is treated as absent: the kernel is compiled
again and its cache rewritten, with one warning naming the cache directory, instead of every
call failing with numba's ``UnpicklingError`` until the file is deleted by hand.

numba keys a cached kernel to its own source file only; a kernel whose code inlines
(``inline="always"``) a kernel of another file has its cache emptied when that file is newer
than the cache, so an edit of the inlined code is never answered with stale machine code.

When a kernel is first called, every kernel it names as a global (in this or another module)
is compiled first and the module's name is rebound to the numba dispatcher, so numba sees
dispatchers, never the lazy wrappers, when it types the calls between kernels. A global
naming :data:`prange` or an :class:`Intrinsic` is rebound the same way, to ``numba.prange``
or to the intrinsic.

A kernel compiled with ``parallel=True`` has a serial twin (:attr:`LazyKernel.serial`): the
same code compiled without ``parallel`` (``prange`` then runs as ``range``), under its own
name, so that the two never share an on-disk cache entry (numba keys its cache index by the
function's name and code, not by its options). It is compiled on its first use only.
"""

from __future__ import annotations

import os
import sys
import threading
import types
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "Intrinsic",
    "cache_disabled",
    "njit",
    "num_threads",
    "prange",
    "prefetch",
    "prefetch_intrinsic",
    "set_compile_hook",
    "threading_layer",
    "threads_started",
    "vector_add4",
    "vector_add4_intrinsic",
]

_LOCK = threading.RLock()

#: Qualified names of the kernels compiled without the on-disk cache (nothing writable).
_UNCACHED: list[str] = []


def cache_disabled() -> tuple[str, ...]:
    """The kernels compiled so far without the on-disk cache, because no cache directory was
    writable (empty when caching works)."""
    return tuple(_UNCACHED)


#: Called as ``hook(qualified_name)`` when numba starts compiling a kernel (None: nobody).
_HOOK: list[Callable[[str], Any] | None] = [None]
_LISTENING: list[bool] = []


def set_compile_hook(hook: Callable[[str], Any] | None) -> Callable[[str], Any] | None:
    """Have ``hook(name)`` called whenever numba starts compiling a kernel of ordmetrics.

    Only a real compilation calls it (the first run, or after the on-disk cache was
    invalidated), not a kernel loaded from the on-disk cache. The command line uses it to say
    that the first run pauses to compile. An exception of the hook is ignored.

    Parameters
    ----------
    hook : callable or None
        Called with the kernel's qualified name (``module.function``); None removes it.

    Returns
    -------
    callable or None
        The hook set before.

    Examples
    --------
    >>> from ordmetrics._core.jit import set_compile_hook
    >>> previous = set_compile_hook(print)
    >>> set_compile_hook(previous) is print
    True
    """
    previous, _HOOK[0] = _HOOK[0], hook
    return previous


def _listen() -> None:
    """Register (once) a listener of numba's compile events that calls the hook."""
    if _LISTENING:
        return
    _LISTENING.append(True)
    from numba.core import event

    class _CompileListener(event.Listener):
        def on_start(self, ev: Any) -> None:
            hook = _HOOK[0]
            if hook is None:
                return
            func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            module = getattr(func, "__module__", "") or ""
            if func is None or not module.startswith("ordmetrics"):
                return
            try:
                hook(f"{module}.{func.__qualname__}")
            except Exception:  # a notice must never break the work
                pass

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _CompileListener())


_PREFETCH: list[Any] = []


def prefetch_intrinsic() -> Any:
    """A numba intrinsic ``prefetch(arr, offset)``: ask for the cache line ``offset`` bytes
    into ``arr``'s data, into the level-2 cache (LLVM's ``llvm.prefetch``; a hint only,
    nothing is read or written). Built once per process; for kernels that stream tiles of a
    large array and would otherwise wait on memory.
    """
    if _PREFETCH:
        return _PREFETCH[0]
    with _LOCK:
        if _PREFETCH:
            return _PREFETCH[0]
        from llvmlite import ir  # type: ignore[import-untyped]
        from numba.core import cgutils, types
        from numba.extending import intrinsic

        @intrinsic
        def prefetch_l2(typingctx: Any, arr: Any, offset: Any) -> Any:
            if not isinstance(arr, types.Array) or not isinstance(offset, types.Integer):
                return None

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                ary = context.make_array(signature.args[0])(context, builder, args[0])
                i32, i64 = ir.IntType(32), ir.IntType(64)
                off = args[1]
                if off.type.width < 64:
                    off = builder.sext(off, i64)
                ptr_type = ary.data.type
                addr = builder.add(builder.ptrtoint(ary.data, i64), off)
                ptr = builder.inttoptr(addr, ptr_type)
                opaque = getattr(ptr_type, "is_opaque", False)
                name = "llvm.prefetch.p0" if opaque else "llvm.prefetch.p0i8"
                if not opaque:
                    ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
                fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
                fn = cgutils.get_or_insert_function(builder.module, fnty, name)
                # read, locality 2 (the level-2 cache), data
                builder.call(fn, [ptr, i32(0), i32(2), i32(1)])
                return context.get_dummy_value()

            return types.void(arr, offset), codegen

        _PREFETCH.append(prefetch_l2)
    return _PREFETCH[0]


_VECTOR_ADD: list[Any] = []


def vector_add4_intrinsic() -> Any:
    """A numba intrinsic ``vector_add4(tab, index, a, b, c, d)``: ``tab[index : index + 4] +=
    (a, b, c, d)`` on a 1-D C-contiguous float64 array, as one vector load, addition and store
    (LLVM ``<4 x double>``; each lane an ordinary float64 addition, so the sums are those of
    four scalar additions, bit for bit). No bounds check: the caller keeps ``index + 4``
    within ``tab``. Built once per process; for kernels that add several sums to one table
    slot per row.
    """
    if _VECTOR_ADD:
        return _VECTOR_ADD[0]
    with _LOCK:
        if _VECTOR_ADD:
            return _VECTOR_ADD[0]
        from llvmlite import ir
        from numba.core import types
        from numba.extending import intrinsic

        @intrinsic
        def vector_add4(
            typingctx: Any, tab: Any, index: Any, a: Any, b: Any, c: Any, d: Any
        ) -> Any:
            if not (
                isinstance(tab, types.Array)
                and tab.dtype == types.float64
                and tab.ndim == 1
                and tab.layout == "C"  # the four values side by side in memory
                and isinstance(index, types.Integer)
                and all(x == types.float64 for x in (a, b, c, d))
            ):
                return None

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                ary = context.make_array(signature.args[0])(context, builder, args[0])
                i64 = ir.IntType(64)
                index = args[1]
                if index.type.width < 64:
                    signed = signature.args[1].signed
                    index = (builder.sext if signed else builder.zext)(index, i64)
                vec = ir.VectorType(ir.DoubleType(), 4)
                ptr = builder.bitcast(builder.gep(ary.data, [index]), vec.as_pointer())
                add = ir.Constant(vec, ir.Undefined)
                for lane, x in enumerate(args[2:]):
                    add = builder.insert_element(add, x, ir.Constant(ir.IntType(32), lane))
                builder.store(builder.fadd(builder.load(ptr, align=8), add), ptr, align=8)
                return context.get_dummy_value()

            return types.void(tab, index, a, b, c, d), codegen

        _VECTOR_ADD.append(vector_add4)
    return _VECTOR_ADD[0]


def _compile(py_func: Callable[..., Any], options: dict[str, Any]) -> Any:
    """``numba.njit(**options)(py_func)``, without ``cache`` when no cache location works."""
    import numba  # the only import of numba in ordmetrics

    _listen()

    if not options.get("cache"):
        return numba.njit(**options)(py_func)
    try:
        return numba.njit(**options)(py_func)
    except RuntimeError as exc:
        if "cannot cache" not in str(exc):
            raise
        _UNCACHED.append(f"{py_func.__module__}.{py_func.__qualname__}")
        return numba.njit(**{**options, "cache": False})(py_func)


#: Cache directories already named in a warning about an unreadable cache (one each).
_UNREADABLE_WARNED: set[str] = set()


def _guard_cache_load(dispatcher: Any, py_func: Callable[..., Any]) -> None:
    """Make an unreadable on-disk cache of ``dispatcher`` count as absent.

    numba reads a kernel's cache (an index and a data file, both pickles) before compiling,
    and lets any error through: one truncated file would make every call fail until it is
    deleted by hand. Here a failed read warns (once per cache directory), empties the index
    (the new machine code then replaces the damaged entry) and returns "not cached", so that
    numba compiles the kernel. A directory where the index cannot even be rewritten has its
    cache switched off for this kernel in this process.
    """
    cache: Any = getattr(dispatcher, "_cache", None)
    load = getattr(cache, "load_overload", None)
    if cache is None or load is None:  # pragma: no cover - a numba without this cache
        return
    name = f"{py_func.__module__}.{py_func.__qualname__}"

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            return load(sig, target_context)
        except Exception as exc:  # pickle, EOF, OS, or damaged machine code: compile anew
            _forget_unreadable(cache, name, exc)
            return None

    cache.load_overload = load_overload


def _forget_unreadable(cache: Any, name: str, exc: BaseException) -> None:
    """Warn about the unreadable cache of kernel ``name`` and empty (or switch off) it."""
    directory = str(getattr(cache, "cache_path", "") or "(unknown)")
    try:
        cache.flush()  # an empty index: the save after compiling no longer reads the damage
        fate = "it is compiled again and its cache rewritten"
    except Exception:  # the index cannot be rewritten either: no cache for this kernel
        cache.disable()
        fate = "it is compiled again without the on-disk cache in this process"
    if directory in _UNREADABLE_WARNED:
        return
    _UNREADABLE_WARNED.add(directory)
    warnings.warn(
        f"the numba cache of {name} in {directory} could not be read "
        f"({type(exc).__name__}: {exc}); it is treated as absent: {fate}. Other unreadable "
        "caches in that directory are handled the same way without a further warning; "
        "deleting the directory clears them all.",
        RuntimeWarning,
        stacklevel=2,
    )


def _inline_sources(func: Callable[..., Any], seen: set[int]) -> set[str]:
    """The source files of the ``inline="always"`` kernels that ``func`` calls, directly or
    through other inlined kernels (their code is compiled into ``func``'s)."""
    files: set[str] = set()
    glb = func.__globals__
    for name in func.__code__.co_names:
        callee: Any = glb.get(name)
        if isinstance(callee, LazyKernel):
            py, opts = callee.py_func, callee.options
        elif hasattr(callee, "py_func") and hasattr(callee, "targetoptions"):  # a dispatcher
            py, opts = callee.py_func, callee.targetoptions
        else:
            continue
        if id(py) in seen:
            continue
        seen.add(id(py))
        if opts.get("inline") == "always":
            files.add(py.__code__.co_filename)
            files |= _inline_sources(py, seen)
    return files


def _drop_stale_cache(dispatcher: Any, py_func: Callable[..., Any]) -> bool:
    """Empty the on-disk cache of ``dispatcher`` when a file of a kernel inlined into it is
    newer than the cache's index; True when it did.

    numba keys a cached kernel to the file that defines it only: after an edit of an inlined
    helper (the scoring rules' driver in another module), it would load the old machine code,
    which may not even take the new arguments. An installed release is not concerned (its
    files are older than any cache written after the install). numba's internals being
    private, any surprise there skips the check.
    """
    try:
        files = _inline_sources(py_func, set()) - {py_func.__code__.co_filename}
        if not files:
            return False
        index = dispatcher._cache._cache_file._index_path
        if not os.path.exists(index):
            return False
        if max(os.stat(f).st_mtime for f in files) <= os.stat(index).st_mtime:
            return False
        dispatcher._cache.flush()
    except Exception:  # pragma: no cover - another numba, a cache elsewhere
        return False
    return True


class Intrinsic:
    """A numba intrinsic that a kernel names as a global, built on first compilation.

    Like :data:`prange`: when a kernel that names it is first called, the global is rebound
    to the intrinsic ``build()`` returns (built once per process; building imports numba),
    so numba sees the intrinsic when it types the kernel. Called from Python it is
    ``py_func``, the plain version of the same operation.

    Examples
    --------
    >>> from ordmetrics._core.jit import Intrinsic
    >>> twice = Intrinsic(lambda: None, lambda x: 2 * x)
    >>> twice(3)
    6
    """

    def __init__(self, build: Callable[[], Any], py_func: Callable[..., Any]) -> None:
        self.build = build
        self.py_func = py_func
        self.__doc__ = py_func.__doc__

    def __call__(self, *args: Any) -> Any:
        return self.py_func(*args)

    def intrinsic(self) -> Any:
        """The numba intrinsic (built on the first request)."""
        return self.build()


def _vector_add4_py(tab: Any, index: int, a: float, b: float, c: float, d: float) -> None:
    """``tab[index : index + 4] += (a, b, c, d)`` on a contiguous float64 vector ``tab``: the
    Python version of :data:`vector_add4`.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics._core.jit import vector_add4
    >>> tab = np.zeros(6)
    >>> vector_add4(tab, 1, 1.0, 2.0, 3.0, 4.0)
    >>> tab.tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 0.0]
    """
    tab[index : index + 4] += (a, b, c, d)


def _prefetch_py(arr: Any, offset: int) -> None:
    """A hint only: nothing to do in Python."""
    return None


#: ``vector_add4(tab, index, a, b, c, d)`` for kernels: :func:`vector_add4_intrinsic` once
#: compiled, :func:`_vector_add4_py` from Python.
vector_add4 = Intrinsic(vector_add4_intrinsic, _vector_add4_py)
#: ``prefetch(arr, offset)`` for kernels: :func:`prefetch_intrinsic` once compiled, a no-op
#: from Python.
prefetch = Intrinsic(prefetch_intrinsic, _prefetch_py)


class _PRange:
    """``numba.prange`` without importing numba: kernels name it as a global, which is rebound
    to ``numba.prange`` before they are compiled; called from Python it is ``range``."""

    def __call__(self, *args: int) -> range:
        return range(*args)

    def __repr__(self) -> str:
        return "ordmetrics._core.jit.prange"


#: ``numba.prange`` for the kernels of ordmetrics (see :class:`_PRange`).
prange = _PRange()


def num_threads() -> int:
    """numba's thread count for parallel kernels started from this thread
    (``numba.get_num_threads()``, set with ``numba.set_num_threads``).

    Before numba is imported (the scoring kernels compiled at install need it not), the
    count it would start with: ``NUMBA_NUM_THREADS``, else the CPUs this process may run on;
    nobody can have called ``numba.set_num_threads`` yet.
    """
    if "numba" not in sys.modules:
        value = os.environ.get("NUMBA_NUM_THREADS", "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not on Linux
            return max(1, os.cpu_count() or 1)
    import numba

    return int(numba.get_num_threads())


def threads_started() -> bool:
    """Whether numba's threading layer has started its threads in this process (by anyone),
    without importing numba."""
    if "numba" not in sys.modules:
        return False
    try:
        from numba.np.ufunc import parallel

        return bool(getattr(parallel, "_is_initialized", False))
    except Exception:  # a layout of numba without it: assume started
        return True


def threading_layer() -> str | None:
    """The threading layer numba chose (``"omp"``, ``"tbb"`` or ``"workqueue"``), or None
    before the first parallel kernel ran."""
    import numba

    try:
        return str(numba.threading_layer())
    except ValueError:  # no parallel kernel has run yet
        return None


class LazyKernel:
    """A function to be compiled by numba on its first call (see the module notes)."""

    def __init__(self, py_func: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = py_func
        self.options = options
        self._dispatcher: Any = None
        self._serial: LazyKernel | None = None
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    @property
    def dispatcher(self) -> Any:
        """The numba dispatcher (compiling the kernels it calls first)."""
        if self._dispatcher is None:
            with _LOCK:
                if self._dispatcher is None:
                    self._materialize(set())
        return self._dispatcher

    @property
    def serial(self) -> LazyKernel:
        """The serial twin of a ``parallel=True`` kernel (itself for a serial kernel).

        Same code and results, compiled without ``parallel`` under the name
        ``<name>_serial`` (its own on-disk cache entry), on its first call.
        """
        if not self.options.get("parallel"):
            return self
        if self._serial is None:
            with _LOCK:
                if self._serial is None:
                    f = self.py_func
                    twin = types.FunctionType(
                        f.__code__,
                        f.__globals__,
                        f.__name__ + "_serial",
                        f.__defaults__,
                        f.__closure__,
                    )
                    twin.__qualname__ = f.__qualname__ + "_serial"
                    twin.__module__ = f.__module__
                    twin.__doc__ = f.__doc__
                    options = {k: v for k, v in self.options.items() if k != "parallel"}
                    self._serial = LazyKernel(twin, options)
        return self._serial

    def _materialize(self, seen: set[int]) -> None:
        if self._dispatcher is not None or id(self) in seen:
            return
        seen.add(id(self))
        glb = self.py_func.__globals__
        for name in self.py_func.__code__.co_names:  # the kernels it calls, first
            callee = glb.get(name)
            if callee is prange:
                import numba

                glb[name] = numba.prange
                continue
            if isinstance(callee, Intrinsic):
                glb[name] = callee.intrinsic()
                continue
            if isinstance(callee, LazyKernel):
                callee._materialize(seen)
                if callee._dispatcher is not None:
                    glb[name] = callee._dispatcher
        dispatcher = _compile(self.py_func, self.options)
        if self.options.get("cache"):
            _guard_cache_load(dispatcher, self.py_func)
            _drop_stale_cache(dispatcher, self.py_func)
        module = sys.modules.get(self.py_func.__module__)
        if module is not None and getattr(module, self.__name__, None) is self:
            setattr(module, self.__name__, dispatcher)
        self._dispatcher = dispatcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # signatures, inspect_types, ...
        # private names are never forwarded: tools probing an object (pytest's collection
        # asks for ``_pytestfixturefunction``, say) must not compile the kernel
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        state = "compiled" if self._dispatcher is not None else "not compiled yet"
        return f"<ordmetrics kernel {self.__qualname__} ({state})>"


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit``, compiled on first call and cached on disk only where possible.

    Used as ``@njit`` or ``@njit(cache=True, nogil=True, ...)`` with numba's options.
    """
    if args and callable(args[0]) and not options:
        return LazyKernel(args[0], {})

    def decorate(func: Callable[..., Any]) -> LazyKernel:
        return LazyKernel(func, dict(options))

    return decorate
