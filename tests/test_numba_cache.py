"""An unreadable on-disk numba cache is treated as absent: one warning naming the directory,
then the kernel compiles again and its cache is rewritten (numba alone raises
``UnpicklingError`` on every call until the file is deleted by hand)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from ordmetrics._core import jit

KERNEL = """
from ordmetrics._core.jit import njit

@njit(cache=True)
def add_one(x):
    return x + 1
"""

RUN = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from cached_kernel import add_one; print(add_one(1))"
)


def _run(folder: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONWARNINGS": "default"}
    return subprocess.run(
        [sys.executable, "-c", RUN, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("damaged", ["data", "index", "empty index"])
def test_a_truncated_cache_file_is_recompiled_with_one_warning(
    tmp_path: Path, damaged: str
) -> None:
    (tmp_path / "cached_kernel.py").write_text(textwrap.dedent(KERNEL))
    cache = tmp_path / "numba_cache"
    first = _run(tmp_path, cache)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "2"
    (index,) = cache.rglob("cached_kernel.add_one-*.nbi")
    (data,) = cache.rglob("cached_kernel.add_one-*.nbc")
    target = data if damaged == "data" else index
    size = 0 if damaged == "empty index" else target.stat().st_size // 2
    os.truncate(target, size)

    second = _run(tmp_path, cache)
    assert second.returncode == 0, second.stderr  # numba alone: UnpicklingError / EOFError
    assert second.stdout.strip() == "2"
    assert second.stderr.count("RuntimeWarning") == 1
    assert "could not be read" in second.stderr
    assert str(index.parent) in second.stderr  # the directory is named

    third = _run(tmp_path, cache)  # the cache was rewritten: read again, silently
    assert third.returncode == 0, third.stderr
    assert third.stdout.strip() == "2"
    assert "RuntimeWarning" not in third.stderr


class _FailingCache:
    """A numba cache whose files cannot be read nor rewritten (a read-only damaged cache)."""

    cache_path = "/read-only/cache"

    def __init__(self) -> None:
        self.enabled = True

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        raise EOFError("Ran out of input")

    def flush(self) -> None:
        raise PermissionError("read-only file system")

    def disable(self) -> None:
        self.enabled = False


class _Dispatcher:
    def __init__(self) -> None:
        self._cache = _FailingCache()


def test_a_cache_that_cannot_be_rewritten_is_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jit, "_UNREADABLE_WARNED", set())
    dispatcher = _Dispatcher()

    def kernel(x: float) -> float:
        return x

    jit._guard_cache_load(dispatcher, kernel)
    with pytest.warns(RuntimeWarning, match=r"/read-only/cache could not be read \(EOFError"):
        assert dispatcher._cache.load_overload(None, None) is None  # "not cached": compile
    assert not dispatcher._cache.enabled  # the save after compiling does nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per directory
        assert dispatcher._cache.load_overload(None, None) is None
