"""Build the ahead-of-time scoring kernels (see :mod:`ordmetrics._core.aot`); run by ``setup.py``.

Every registered scoring rule's kernel, and :func:`ordmetrics._core.kernels.block_sums` and
:func:`~ordmetrics._core.kernels.combine_blocks`, is compiled with numba's ahead-of-time
compiler (``numba.pycc``) into two extension modules (float64 and float32 probabilities, built
side by side), with the options of the just-in-time kernels: the GIL released (``nogil``) and
numba's NumPy error model (a division by zero gives inf or NaN, never an exception), for this
machine's processor and features, as numba's just-in-time compiler would (``numba.pycc`` alone
would take the processor's name only). A wheel built here is therefore for processors like this
one; elsewhere the exports are not used (:func:`ordmetrics._core.aot.target_stamp`) and the
kernels compile on first use.

The variants are those :func:`ordmetrics._core.kernels.score_rows` calls: float64 and float32
probabilities, with and without weights, per-sample output or none (the log rules always have
it), PLL's penalties. Each kernel also gets a ``<kernel>__stamp`` export returning the hash of
its source files (:func:`ordmetrics._core.aot.source_stamp`), and each module a
``target__stamp`` export, the hash of the processor it was compiled for.

Only the build imports this module (it needs numba and a C compiler); nothing imports it at
run time. ``setup.py`` passes the rules' records (:data:`ordmetrics.metrics.scoring.RULES`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ordmetrics._core.aot import (
    AOT_MODULES,
    TARGET_EXPORT,
    export_name,
    host_target,
    kernel_files,
    source_stamp,
    stamp_name,
    target_stamp,
)

__all__ = ["build", "exports", "is_current"]


def _variants(log_form: bool, penalty: bool) -> Iterator[tuple[bool, bool, bool]]:
    """(weights, out, pen) of every call :func:`score_rows` makes of a kernel."""
    for weights in (False, True):
        for out in (True,) if log_form else (False, True):
            yield weights, out, penalty


def exports(rules: Iterable[Any], part: str) -> Iterator[tuple[str, Any, Callable[..., Any]]]:
    """(name, numba signature, Python function) of every export of the module ``part`` (a key
    of :data:`ordmetrics._core.aot.AOT_MODULES`: the dtype of the probabilities), the stamps
    included, for the scoring rules ``rules`` (:class:`ordmetrics._core.rule.ScoringRule`
    records)."""
    from numba import types as nt

    from ordmetrics._core import kernels

    yield TARGET_EXPORT, nt.int64(), _constant(target_stamp(*host_target()))

    def arr(dtype: Any, ndim: int) -> Any:
        return nt.Array(dtype, ndim, "C")

    f8_1, f8_2, i8_1 = arr(nt.float64, 1), arr(nt.float64, 2), arr(nt.int64, 1)
    p_types = {"f8": f8_2, "f4": arr(nt.float32, 2)}
    result = nt.Tuple((nt.float64, nt.float64, nt.int64))
    seen: set[str] = set()
    for rule in rules:
        py_func = _bound(rule.kernel)
        name = py_func.__name__
        if name in seen:  # a kernel shared by two rules (pseudospherical)
            continue
        seen.add(name)
        for weights, out, pen in _variants(rule.log_form, rule.penalty):
            sig = result(
                p_types[part],
                i8_1,
                f8_1 if weights else nt.none,
                nt.float64,
                nt.float64,
                nt.float64,
                f8_1 if out else nt.none,
                nt.boolean,
                f8_1 if pen else nt.none,
                f8_2,
            )
            yield export_name(name, part, weights, out, pen), sig, py_func
        yield stamp_name(name), nt.int64(), _constant(source_stamp(kernel_files(py_func)))
    if part != "f8":
        return
    helpers = (  # in the float64 module
        (kernels.block_sums, "n", nt.int64(f8_1, f8_1, f8_1, nt.float64, nt.int64, f8_2)),
        (kernels.combine_blocks, "n", result(f8_2)),
    )
    for kernel, variant, sig in helpers:
        py_func = _bound(kernel)
        yield f"{py_func.__name__}__{variant}", sig, py_func
        if variant == "n":
            stamp = source_stamp(kernel_files(py_func))
            yield stamp_name(py_func.__name__), nt.int64(), _constant(stamp)


def _bound(kernel: Any) -> Callable[..., Any]:
    """The Python function of a kernel (a :class:`ordmetrics._core.jit.LazyKernel` or, once
    compiled, numba's dispatcher), with the kernels it calls bound to numba's dispatchers."""
    getattr(kernel, "dispatcher", None)  # a LazyKernel binds its callees here
    return kernel.py_func


def _constant(value: int) -> Callable[[], int]:
    def stamp() -> int:
        return value

    return stamp


def build(rules: Iterable[Any], part: str, output_dir: str, output_file: str | None = None) -> str:
    """Compile the exports of the module ``part`` for the scoring rules ``rules`` into
    ``output_dir``; its path. ``setup.py`` builds the two parts in two processes at once.

    ``output_file``: the file name (default: the platform's name for the module).
    """
    import numba.pycc.compiler
    from numba.core import codegen, compiler
    from numba.pycc import CC

    from ordmetrics._core import kernels

    # numba's internals, patched for the duration of the build only (typed loosely)
    pycc_compiler: Any = numba.pycc.compiler
    aot_codegen: Any = codegen.AOTCPUCodegen

    class _Flags(compiler.Flags):
        """The just-in-time kernels' options (numba.pycc's own flags have neither)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            flags: Any = self
            flags.release_gil = True
            flags.error_model = "numpy"

    cc = CC(AOT_MODULES[part].rsplit(".", 1)[1], source_module=sys.modules[__name__])
    cc.output_dir = output_dir
    if output_file is not None:
        cc.output_file = output_file
    cc.target_cpu = "host"
    cc.use_nrt = True  # each call allocates its blocks' scratch
    for name, sig, func in exports(rules, part):
        cc.export(name, sig)(func)
    original = pycc_compiler.Flags, aot_codegen._customize_tm_features
    pycc_compiler.Flags = _Flags
    features = host_target()[1]  # the host's features, as the just-in-time compiler takes them
    aot_codegen._customize_tm_features = lambda self: features
    kernels.UNROLL = True  # the block loops of UNROLLED_K too: compiled once, at install
    try:
        cc.compile()
    finally:
        pycc_compiler.Flags, aot_codegen._customize_tm_features = original
        kernels.UNROLL = False
    return os.path.join(output_dir, cc.output_file)


def is_current(rules: Iterable[Any], part: str, path: str) -> bool:
    """Whether the module ``part`` at ``path`` (built before) has every export of
    :func:`exports` with the stamps of the source now and of this processor: then a new
    install need not build it again (an editable install's second ``pip install -e .``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(AOT_MODULES[part], path)
    if spec is None or spec.loader is None:
        return False
    try:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except (ImportError, OSError):  # not a module of this Python, or no file
        return False
    for name, _, func in exports(rules, part):
        found = getattr(mod, name, None)
        if found is None:
            return False
        if name.endswith("__stamp") and int(found()) != func():
            return False
    return True
