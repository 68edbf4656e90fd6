"""The build of ordmetrics beyond ``pyproject.toml``: its ahead-of-time scoring kernels.

``pip install`` (and ``pip install -e .``) compiles the scoring kernels into the extension
module ``ordmetrics._core._scoring_aot`` (:mod:`ordmetrics._core.aot_build`, with numba's
ahead-of-time compiler and the C compiler), so that their first call in a new environment
does not wait for the just-in-time compiler. Without a C compiler, or with
``ORDMETRICS_AOT=0`` set at install, the install goes on without the module and the kernels
compile on their first call instead.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

AOT = "ordmetrics._core._scoring_aot"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")


class BuildExt(build_ext):
    """``build_ext`` that builds the ahead-of-time kernels with numba, and never fails on them."""

    def build_extension(self, ext: Extension) -> None:
        if ext.name != AOT:
            super().build_extension(ext)
            return
        if os.environ.get("ORDMETRICS_AOT", "1").strip() == "0":
            print("ordmetrics: ORDMETRICS_AOT=0: the scoring kernels will compile on first use")
            return
        path = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sys.path.insert(0, SRC)
        try:
            from ordmetrics._core.aot_build import build
            from ordmetrics.metrics.scoring import RULES

            build(RULES.values(), os.path.dirname(path), os.path.basename(path))
        except Exception as exc:  # no C compiler, no numba: the kernels compile on first use
            print(
                "ordmetrics: the ahead-of-time scoring kernels could not be built "
                f"({type(exc).__name__}: {exc}); they will compile on first use instead"
            )
        finally:
            sys.path.remove(SRC)


# optional: where it was not built, an editable install has nothing to copy into src/
setup(ext_modules=[Extension(AOT, sources=[], optional=True)], cmdclass={"build_ext": BuildExt})
