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

When a kernel is first called, every kernel it names as a global (in this or another module)
is compiled first and the module's name is rebound to the numba dispatcher, so numba sees
dispatchers, never the lazy wrappers, when it types the calls between kernels.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["cache_disabled", "njit", "set_compile_hook"]

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


class LazyKernel:
    """A function to be compiled by numba on its first call (see the module notes)."""

    def __init__(self, py_func: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = py_func
        self.options = options
        self._dispatcher: Any = None
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

    def _materialize(self, seen: set[int]) -> None:
        if self._dispatcher is not None or id(self) in seen:
            return
        seen.add(id(self))
        glb = self.py_func.__globals__
        for name in self.py_func.__code__.co_names:  # the kernels it calls, first
            callee = glb.get(name)
            if isinstance(callee, LazyKernel):
                callee._materialize(seen)
                if callee._dispatcher is not None:
                    glb[name] = callee._dispatcher
        dispatcher = _compile(self.py_func, self.options)
        module = sys.modules.get(self.py_func.__module__)
        if module is not None and getattr(module, self.__name__, None) is self:
            setattr(module, self.__name__, dispatcher)
        self._dispatcher = dispatcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # signatures, inspect_types, ...
        if name.startswith("__"):
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
