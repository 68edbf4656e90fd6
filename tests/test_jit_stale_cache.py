"""A cached kernel whose inlined helper lives in another file is recompiled after that file
changes (numba alone keys the cache to the kernel's own file and would load the old code)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

HELPER = """
from ordmetrics._core.jit import njit

@njit(inline="always", cache=True)
def helper(x):
    return x + {value}
"""

KERNEL = """
from ordmetrics._core.jit import njit
from stale_helper import helper

@njit(cache=True)
def kernel(x):
    return helper(x)
"""

RUN = (
    "import sys; sys.path.insert(0, sys.argv[1]); from stale_kernel import kernel; print(kernel(1))"
)


def _run(folder: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    return done.stdout.strip()


def test_an_edited_inlined_helper_invalidates_the_kernel_cache(tmp_path: Path) -> None:
    (tmp_path / "stale_helper.py").write_text(textwrap.dedent(HELPER.format(value=1)))
    (tmp_path / "stale_kernel.py").write_text(textwrap.dedent(KERNEL))
    assert _run(tmp_path) == "2"
    assert list((tmp_path / "__pycache__").glob("stale_kernel.kernel-*.nbi"))  # cached
    assert _run(tmp_path) == "2"  # from the cache

    helper = tmp_path / "stale_helper.py"
    helper.write_text(textwrap.dedent(HELPER.format(value=10)))
    later = os.stat(helper).st_mtime + 5  # newer than the kernel's cache, whatever the clock
    os.utime(helper, (later, later))
    assert _run(tmp_path) == "11"  # recompiled: not the cached x + 1
    assert _run(tmp_path) == "11"  # and cached again
