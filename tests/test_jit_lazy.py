"""Kernels compile on their first call, never because a tool looked at them."""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import Intrinsic, njit


def _make():
    def total(a):
        s = 0.0
        for i in range(a.size):
            s += a[i]
        return s

    return njit(nogil=True)(total)


def test_probing_private_names_does_not_compile():
    """pytest's collection and other introspection ask for names such as
    ``_pytestfixturefunction``: they get an AttributeError, and the kernel stays uncompiled
    (its module keeps the lazy kernel, with its serial twin)."""
    kernel = _make()
    for name in ("_pytestfixturefunction", "__wrapped_fixture__", "_cache", "__test__"):
        assert not hasattr(kernel, name)
    assert "not compiled yet" in repr(kernel)
    assert kernel(np.arange(4.0)) == 6.0
    assert "compiled" in repr(kernel) and "not compiled" not in repr(kernel)


def test_public_names_reach_the_dispatcher():
    kernel = _make()
    assert kernel(np.ones(3)) == 3.0
    assert len(kernel.signatures) == 1


def _double_intrinsic():
    """A numba intrinsic doubling a float64 (built on request: imports numba)."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def double(typingctx, x):
        def codegen(context, builder, signature, args):
            return builder.fadd(args[0], args[0])

        return types.float64(types.float64), codegen

    return double


#: A global of the kernel below: Python's version until the kernel compiles.
DOUBLE = Intrinsic(_double_intrinsic, lambda x: 2.0 * x)


def test_an_intrinsic_global_is_bound_when_its_kernel_compiles():
    """A kernel naming an :class:`Intrinsic` as a global gets the compiled intrinsic (its
    module's name is rebound before numba types the kernel); from Python it is the plain
    version."""
    assert DOUBLE(1.5) == 3.0  # the Python version

    def twice_sum(a):
        s = 0.0
        for i in range(a.size):
            s += DOUBLE(a[i])
        return s

    kernel = njit(twice_sum)
    assert kernel(np.arange(4.0)) == 12.0
    assert globals()["DOUBLE"] is not None and not isinstance(globals()["DOUBLE"], Intrinsic)
    globals()["DOUBLE"] = Intrinsic(_double_intrinsic, lambda x: 2.0 * x)  # for a rerun
