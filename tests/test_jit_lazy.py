"""Kernels compile on their first call, never because a tool looked at them."""

from __future__ import annotations

import numpy as np

from ordmetrics._core.jit import njit


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
