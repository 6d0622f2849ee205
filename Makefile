# Every target works on a fresh clone with only python3 and make.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: run table test test-fast lint bench check clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/rxviz

table: $(STAMP)
	$(BIN)/rxviz run rx-basics

test: $(STAMP)
	$(BIN)/python -m pytest

# Leaves out the tests marked slow (whole lessons played, the built wheel, the browser).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

# ruff on everything; mypy --strict on models/ (pyproject [tool.mypy]); the import-linter contracts.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache      # its mtime-keyed cache once kept a reverted edit; a fresh analysis takes ~1 s

bench: $(STAMP)
	$(BIN)/python -m pytest tests/bench --benchmark-only -p no:cacheprovider

check: $(STAMP)
	$(BIN)/rxviz check

clean:
	rm -rf $(VENV) .pytest_cache .benchmarks .mypy_cache .ruff_cache
