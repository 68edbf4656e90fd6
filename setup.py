"""The build of ordmetrics beyond ``pyproject.toml``: its ahead-of-time scoring kernels.

``pip install`` (and ``pip install -e .``) compiles the scoring kernels into two extension
modules, ``ordmetrics._core._scoring_aot_f8`` and ``_f4`` (float64 and float32 probabilities;
:mod:`ordmetrics._core.aot_build`, with numba's ahead-of-time compiler and the C compiler), each
in its own process, side by side, so that their first call in a new environment does not wait
for the just-in-time compiler. An editable install keeps the modules an earlier one left in
``src/`` when they are current (every export there, stamped with the source and the processor of
now), so a second ``pip install -e .`` does not compile them again. Without a C compiler, or
with ``ORDMETRICS_AOT=0`` set at install, the install goes on without them and the kernels
compile on their first call instead.
"""

from __future__ import annotations

import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: module -> the part of ordmetrics._core.aot.AOT_MODULES it holds
AOT = {"ordmetrics._core._scoring_aot_f8": "f8", "ordmetrics._core._scoring_aot_f4": "f4"}
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
BUILD = """
import os, sys
sys.path.insert(0, sys.argv[1])
from ordmetrics._core.aot_build import build, is_current
from ordmetrics.metrics.scoring import RULES
src, part, out_dir, out_file = sys.argv[1:5]
kept = sys.argv[5] if len(sys.argv) > 5 else ""
if kept and os.path.exists(kept) and is_current(RULES.values(), part, kept):
    print("up to date:", kept)
else:
    build(RULES.values(), part, out_dir, out_file)
"""


class BuildExt(build_ext):
    """``build_ext`` that builds the ahead-of-time kernels with numba (one process per module,
    at once), and never fails on them."""

    def build_extensions(self) -> None:
        own = [ext for ext in self.extensions if ext.name in AOT]
        others = [ext for ext in self.extensions if ext.name not in AOT]
        if others:
            self.extensions = others
            try:
                super().build_extensions()
            finally:
                self.extensions = others + own
        if own:
            self._build_aot(own)

    def _build_aot(self, exts: list[Extension]) -> None:
        if os.environ.get("ORDMETRICS_AOT", "1").strip() == "0":
            print("ordmetrics: ORDMETRICS_AOT=0: the scoring kernels will compile on first use")
            return
        jobs = []
        for ext in exts:
            path = self.get_ext_fullpath(ext.name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            args = [SRC, AOT[ext.name], os.path.dirname(path), os.path.basename(path)]
            if getattr(self, "editable_mode", False):
                # the module an earlier editable install left in src/: kept when current
                build_py = self.get_finalized_command("build_py")
                args.append(self._get_inplace_equivalent(build_py, ext)[0])
            jobs.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUILD, *args],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        for ext, job in zip(exts, jobs, strict=True):
            out, _ = job.communicate()
            if job.returncode != 0:  # no C compiler, no numba: the kernels compile on first use
                last = (out or "").strip().splitlines()[-1:] or ["no output"]
                print(
                    f"ordmetrics: the ahead-of-time scoring kernels ({ext.name}) could not be "
                    f"built ({last[0]}); they will compile on first use instead"
                )


# optional: where they were not built, an editable install has nothing to copy into src/
setup(
    ext_modules=[Extension(name, sources=[], optional=True) for name in AOT],
    cmdclass={"build_ext": BuildExt},
)
