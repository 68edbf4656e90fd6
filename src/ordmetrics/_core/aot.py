"""The scoring kernels compiled ahead of time, at install, and how a call finds them.

A fresh environment would otherwise compile every scoring kernel on its first call (numba's
import and target set-up, about 0.7 s, then 0.4 to 0.6 s per kernel). When the package is built
(``pip install``; ``setup.py``), :mod:`ordmetrics._core.aot_build` compiles the same kernels,
from the same source, with numba's ahead-of-time compiler into two extension modules
(:data:`AOT_MODULES`: float64 and float32 probabilities): one exported function per kernel and
variant of its arguments (:func:`export_name`). A call of
:func:`ordmetrics._core.kernels.score_rows` asks :func:`kernel_for` for the export matching its
arrays and runs it (numba is then not even imported); where there is none, the kernel is
compiled just in time as before. Both run the same code through the same compiler, so they give
the same bits (``tests/test_aot.py`` compares them on every variant).

The export is used only when all of these hold, otherwise the just-in-time kernel runs:

* the extension was built (a C compiler was at hand at install; without one the install goes
  on without it) and the environment variable ``ORDMETRICS_AOT`` is not ``0``;
* it was compiled for this processor, name and features as LLVM sees them
  (:func:`target_stamp`, checked once per process; numba's ``NUMBA_CPU_NAME`` and
  ``NUMBA_CPU_FEATURES`` unset): a wheel taken to another machine never runs instructions
  that machine lacks;
* its stamp matches the source: each kernel's export carries a hash of the files its code
  comes from (the rule's module, :mod:`ordmetrics._core.kernels`, this module and the build
  module), computed again here on the first call; an edit of a kernel after the build
  (an editable install) is never answered with the old machine code;
* every array has exactly the type of the export: dtype (float64 or float32 probabilities,
  int64 classes, float64 weights and outputs), number of dimensions and C order. The
  exported functions do not check their arguments (a wrong type would read the wrong
  memory), so this check is complete, not a courtesy.

The exported functions release the GIL, as the just-in-time kernels do (``nogil``), so the
chunks of a large call still run on several threads.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "AOT_MODULES",
    "ENV_SWITCH",
    "TARGET_EXPORT",
    "aot_status",
    "block_sums_for",
    "combine_blocks_for",
    "export_name",
    "host_target",
    "kernel_for",
    "source_stamp",
    "stamp_name",
    "target_stamp",
]

#: The extension modules the build writes (absent when they could not be built), by the dtype
#: of the probabilities of their exports: two halves, compiled side by side on two processes.
#: The float64 module also holds the helpers (block sums, their combination).
AOT_MODULES = {
    "f8": "ordmetrics._core._scoring_aot_f8",
    "f4": "ordmetrics._core._scoring_aot_f4",
}
#: ``ORDMETRICS_AOT=0`` makes every call compile its kernels just in time.
ENV_SWITCH = "ORDMETRICS_AOT"
#: The export giving :func:`target_stamp` of the processor the module was compiled for.
TARGET_EXPORT = "target__stamp"

_LOCK = threading.Lock()
#: part -> the module, or False when absent, stale for this processor or switched off
_MODULES: dict[str, Any] = {}
#: (kernel name, file, line) -> whether its exports' stamp matches the source
_CURRENT: dict[tuple[str, str, int], bool] = {}

_F8 = np.dtype(np.float64)
_F4 = np.dtype(np.float32)
_I8 = np.dtype(np.int64)


def export_name(kernel: str, p_dtype: str, weights: bool, out: bool, pen: bool) -> str:
    """The name of the export of ``kernel`` for one variant of its arguments.

    ``p_dtype`` is ``"f8"`` or ``"f4"``; ``weights``, ``out`` and ``pen``: whether the
    argument is an array (else None).

    Examples
    --------
    >>> export_name("rps_kernel", "f8", True, False, False)
    'rps_kernel__f8_w'
    >>> export_name("pll_kernel", "f4", False, True, True)
    'pll_kernel__f4_op'
    """
    flags = ("w" if weights else "") + ("o" if out else "") + ("p" if pen else "")
    return f"{kernel}__{p_dtype}" + (f"_{flags}" if flags else "")


def stamp_name(kernel: str) -> str:
    """The name of the export giving the source stamp of ``kernel``'s exports."""
    return f"{kernel}__stamp"


def source_stamp(files: list[str]) -> int:
    """A 63-bit hash of the contents of ``files`` (in the order given), with this module and
    the build module: what the exports of a kernel were compiled from."""
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for path in [*files, os.path.join(here, "aot.py"), os.path.join(here, "aot_build.py")]:
        with open(path, "rb") as f:
            digest.update(f.read())
        digest.update(b"\0")
    return int.from_bytes(digest.digest()[:8], "little") & ((1 << 63) - 1)


def host_target() -> tuple[str, str]:
    """This machine's processor name and features, as LLVM (numba's just-in-time compiler)
    sees them."""
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    return str(llvm.get_host_cpu_name()), str(llvm.get_host_cpu_features().flatten())


def target_stamp(cpu_name: str, features: str) -> int:
    """A 63-bit hash of a processor name and its feature string."""
    digest = hashlib.sha256(f"{cpu_name}\n{features}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def _target_ok(mod: Any) -> bool:
    """Whether the machine code of ``mod`` runs here as the just-in-time code would: built for
    this processor (name and features)."""
    if os.environ.get("NUMBA_CPU_NAME") or os.environ.get("NUMBA_CPU_FEATURES"):
        return False  # numba is told to compile for another target: so be it
    stamp = getattr(mod, TARGET_EXPORT, None)
    if stamp is None:
        return False
    return int(stamp()) == target_stamp(*host_target())


def kernel_files(py_func: Callable[..., Any]) -> list[str]:
    """The source files of a kernel's code: its own and those of every kernel it inlines
    (the shared driver, the row functions), ordered by their path inside the package."""
    from ordmetrics._core.jit import _inline_sources

    files = {os.path.abspath(py_func.__code__.co_filename)}
    files |= {os.path.abspath(f) for f in _inline_sources(py_func, set())}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return sorted(files, key=lambda f: os.path.relpath(f, root))


def _module(part: str = "f8") -> Any:
    mod = _MODULES.get(part)
    if mod is None:
        with _LOCK:
            mod = _MODULES.get(part)
            if mod is None:
                mod = False
                if os.environ.get(ENV_SWITCH, "1").strip() != "0":
                    try:
                        mod = importlib.import_module(AOT_MODULES[part])
                    except ImportError:
                        mod = False
                    if mod is not False and not _target_ok(mod):
                        mod = False
                _MODULES[part] = mod
    return mod


def _current(mod: Any, name: str, py_func: Callable[..., Any]) -> bool:
    code = py_func.__code__
    key = (name, code.co_filename, code.co_firstlineno)
    ok = _CURRENT.get(key)
    if ok is None:
        stamp = getattr(mod, stamp_name(name), None)
        try:
            ok = stamp is not None and int(stamp()) == source_stamp(kernel_files(py_func))
        except OSError:  # a source file not readable: no way to tell, compile instead
            ok = False
        _CURRENT[key] = ok
    return ok


def _is(a: Any, dtype: np.dtype[Any], ndim: int) -> bool:
    return (
        isinstance(a, np.ndarray)
        and a.dtype == dtype
        and a.ndim == ndim
        and a.flags.c_contiguous
        and a.flags.aligned
    )


def kernel_for(
    kernel: Any,
    P: Any,
    y: Any,
    w: Any,
    out: Any,
    pen: Any,
    parts: Any,
) -> Callable[..., Any] | None:
    """The ahead-of-time export of the scoring kernel ``kernel`` (a
    :class:`ordmetrics._core.jit.LazyKernel`) for these arguments, or None (see the module
    notes: not built, switched off, stale, or another type of argument)."""
    py_func = getattr(kernel, "py_func", None)
    if py_func is None:
        return None
    if _is(P, _F8, 2):
        p_dtype = "f8"
    elif _is(P, _F4, 2):
        p_dtype = "f4"
    else:
        return None
    mod = _module(p_dtype)
    if mod is False:
        return None
    if not (_is(y, _I8, 1) and _is(parts, _F8, 2)):
        return None
    for a in (w, out, pen):
        if a is not None and not _is(a, _F8, 1):
            return None
    name = py_func.__name__
    func = getattr(
        mod, export_name(name, p_dtype, w is not None, out is not None, pen is not None), None
    )
    if func is None or not _current(mod, name, py_func):
        return None
    return func


def block_sums_for(block_sums: Any, w: Any, parts: Any) -> Callable[..., Any] | None:
    """The ahead-of-time export of :func:`ordmetrics._core.kernels.block_sums` for the
    weights ``w`` (or None) and the slots ``parts`` (its other arrays are float64 arrays of
    :func:`~ordmetrics._core.kernels.score_rows`), or None."""
    if not _is(parts, _F8, 2) or (w is not None and not _is(w, _F8, 1)):
        return None
    return _helper(block_sums, "n")


def combine_blocks_for(combine_blocks: Any, parts: Any) -> Callable[..., Any] | None:
    """The ahead-of-time export of :func:`ordmetrics._core.kernels.combine_blocks` for
    ``parts``, or None."""
    return _helper(combine_blocks, "n") if _is(parts, _F8, 2) else None


def _helper(lazy: Any, variant: str) -> Callable[..., Any] | None:
    mod = _module()
    py_func = getattr(lazy, "py_func", None)
    if mod is False or py_func is None:
        return None
    name = py_func.__name__
    func = getattr(mod, f"{name}__{variant}", None)
    if func is None or not _current(mod, name, py_func):
        return None
    return func


def aot_status() -> str:
    """One line: whether the ahead-of-time scoring kernels are in use, and if not why.

    Examples
    --------
    >>> from ordmetrics._core.aot import aot_status
    >>> aot_status().startswith(("in use", "not built", "not used", "switched off"))
    True
    """
    if os.environ.get(ENV_SWITCH, "1").strip() == "0":
        return f"switched off ({ENV_SWITCH}=0): the scoring kernels compile on first use"
    if all(_module(part) is not False for part in AOT_MODULES):
        files = ", ".join(sys.modules[name].__file__ or name for name in AOT_MODULES.values())
        return f"in use ({files})"
    try:
        for name in AOT_MODULES.values():
            importlib.import_module(name)
    except ImportError:
        return (
            "not built (no C compiler at install, or a source checkout without "
            "`pip install -e .`): the scoring kernels compile on first use"
        )
    return (
        "not used: built for another processor (or NUMBA_CPU_NAME / NUMBA_CPU_FEATURES "
        "set): the scoring kernels compile on first use"
    )
