# Two commands set everything up: `make demo` and `make test`.
# Both create (or reuse) the virtual environment .venv and install what they need from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_BASE := $(VENV)/.installed-base
STAMP_TEST := $(VENV)/.installed-test
STAMP_DEMO := $(VENV)/.installed-demo
STAMP_TORCH := $(VENV)/.installed-torch
STAMP_RELEASE := $(VENV)/.installed-release
STAMP_DOCS := $(VENV)/.installed-docs
# torch is not in the test extra (from the public index it brings several GB of CUDA
# packages). `make test` tries the CPU build and goes on without it (its tests then skip):
# it is found where a CPU wheel is at hand, or from PyTorch's CPU index with
#   make test TORCH_PIP_ARGS="--extra-index-url https://download.pytorch.org/whl/cpu"
TORCH_SPEC ?= torch==2.13.0+cpu
TORCH_PIP_ARGS ?=

.PHONY: demo test lint typecheck package-check docs bench study clean clean-cache

# An install compiles the scoring kernels ahead of time (setup.py, ordmetrics._core._scoring_aot_*):
# an edit of their source reinstalls, so that the tests always run the module of the current code.
AOT_SOURCES := setup.py src/ordmetrics/_core/aot.py src/ordmetrics/_core/aot_build.py \
	src/ordmetrics/_core/kernels.py $(wildcard src/ordmetrics/metrics/scoring/*.py)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_BASE): pyproject.toml $(AOT_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml $(AOT_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP_BASE) $@

# The demo's report needs matplotlib (plot) and its table a data-frame library (parquet: pyarrow).
$(STAMP_DEMO): pyproject.toml $(AOT_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot,parquet]"
	touch $(STAMP_BASE) $@

# Tolerant: without a CPU build of torch at hand, the torch and lightning tests skip.
$(STAMP_TORCH): | $(STAMP_TEST)
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)" "lightning>=2.0" $(TORCH_PIP_ARGS) \
		|| echo "make: torch ($(TORCH_SPEC)) could not be installed; its tests will be skipped"
	touch $@

# the release and docs tools need no compiled kernels (ORDMETRICS_AOT=0: no second build; a
# module built before stays)
$(STAMP_RELEASE): pyproject.toml | $(BIN)/python
	ORDMETRICS_AOT=0 $(BIN)/python -m pip install --quiet -e ".[release]"
	touch $@

demo: $(STAMP_DEMO)
	$(BIN)/ordmetrics demo

# The tests run on 2 processes (pytest-xdist; PYTEST_WORKERS=0 runs them in this process).
PYTEST_WORKERS ?= 2

# Where a C compiler is at hand the install must have built the ahead-of-time kernels
# (ORDMETRICS_EXPECT_AOT=1: tests/test_aot.py fails otherwise); without one the install goes on
# without them, the kernels compile on first use, and their tests skip.
HAS_CC = import os, shutil, sysconfig; print(int(bool(shutil.which((os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]))))

test: $(STAMP_TEST) $(STAMP_TORCH)
	ORDMETRICS_EXPECT_AOT=$$($(BIN)/python -c '$(HAS_CC)') \
		$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal
	$(BIN)/mypy
	$(BIN)/ruff check src tests benchmarks scripts studies examples docs/conf.py docs/screenshots.py docs/gallery
	$(BIN)/ruff format --check src tests benchmarks scripts studies examples docs/conf.py docs/screenshots.py docs/gallery

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests benchmarks scripts studies examples docs/conf.py docs/screenshots.py docs/gallery
	$(BIN)/ruff format --check src tests benchmarks scripts studies examples docs/conf.py docs/screenshots.py docs/gallery

# mypy over src/ordmetrics (configuration: [tool.mypy] in pyproject.toml)
typecheck: $(STAMP_TEST)
	$(BIN)/mypy

# sdist and wheel: build, twine check, install into a new virtual environment (the base
# install, no extras) and run `ordmetrics demo` and `ordmetrics evaluate` there
package-check: $(STAMP_RELEASE)
	scripts/check_package.sh $(BIN)/python

$(STAMP_DOCS): pyproject.toml | $(BIN)/python
	ORDMETRICS_AOT=0 $(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@

# The documentation site (Sphinx): docs/_build/html; warnings are errors, and the examples of
# the migration page run as doctests.
docs: $(STAMP_DOCS)
	$(BIN)/sphinx-build -W --keep-going -q -b html -d docs/_build/doctrees docs docs/_build/html
	$(BIN)/sphinx-build -W --keep-going -q -b doctest -d docs/_build/doctrees docs docs/_build/doctest

bench: $(STAMP_TEST)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

study: $(STAMP_TEST)
	$(BIN)/python studies/galdran_table1.py
	$(BIN)/python studies/galdran_aursc_scale.py
	$(BIN)/python studies/ahmadian_appendix8.py
	$(BIN)/python studies/ahmadian_checkpoints.py
	$(BIN)/python studies/ahmadian_checkpoints.py --cv hblock

clean:
	rm -rf $(VENV) build dist src/*.egg-info src/ordmetrics/_core/_scoring_aot* .pytest_cache \
		.hypothesis .mypy_cache \
		docs/_build docs/api/generated docs/auto_examples docs/sg_execution_times.rst

# numba caches each kernel by the file that defines it: after editing the shared driver
# (src/ordmetrics/_core/kernels.py), remove the compiled kernels so that they are rebuilt
clean-cache:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
