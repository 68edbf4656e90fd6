# Two commands set everything up: `make demo` and `make test`.
# Both create (or reuse) the virtual environment .venv and install what they need from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_BASE := $(VENV)/.installed-base
STAMP_TEST := $(VENV)/.installed-test
STAMP_DEMO := $(VENV)/.installed-demo

.PHONY: demo test lint bench study clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_BASE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP_BASE) $@

# The demo's report needs matplotlib (plot) and its table a data-frame library (parquet: pyarrow).
$(STAMP_DEMO): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot,parquet]"
	touch $(STAMP_BASE) $@

demo: $(STAMP_DEMO)
	$(BIN)/ordmetrics demo

test: $(STAMP_TEST)
	$(BIN)/python -m pytest
	$(BIN)/ruff check src tests benchmarks scripts studies examples
	$(BIN)/ruff format --check src tests benchmarks scripts studies examples

lint: $(STAMP_TEST)
	$(BIN)/ruff check src tests benchmarks scripts studies examples
	$(BIN)/ruff format --check src tests benchmarks scripts studies examples

bench: $(STAMP_TEST)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

study: $(STAMP_TEST)
	$(BIN)/python studies/galdran_table1.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis
