# Every target works on a fresh clone with only python3 and make.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# pytest-xdist workers: one per core, at most 4 (each holds Textual and the models it ran).
# `make test WORKERS=` runs in one process (a debugger, -s, --pdb).
WORKERS ?= -n auto --maxprocesses=4
# The everyday set: what is not marked slow (a second or more of CPU), property (hypothesis)
# or snapshot (syrupy SVGs). tests/conftest.py marks the last two; pyproject.toml lists them.
FAST    := not slow and not property and not snapshot
# pytest with the bytecode cache on: under PYTHONDONTWRITEBYTECODE (set in some shells and CI
# images) every xdist worker and every `rxviz` a CLI test starts compiled textual, hypothesis and
# the models from source again, and pytest rewrote every test module's asserts again: about 7 s
# of CPU per worker, a second per subprocess. The .pyc files go to __pycache__/ (git ignores them).
PYTEST  := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

.PHONY: run table test test-all test-pure lint bench check compile clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@$(BIN)/rxviz --version
	touch $(STAMP)

# The compiled model (mypyc, when a C compiler is present), rebuilt after an edit to models/: until
# then the pure-Python model runs (models/native.py refuses a compiled build older than its sources).
compile: $(STAMP)
	$(BIN)/python hatch_build.py

run: $(STAMP)
	$(BIN)/rxviz

table: $(STAMP)
	$(BIN)/rxviz run rx-basics

# The fast set: under 90 s on two cores. Run it while you work.
test: $(STAMP)
	$(PYTEST) $(WORKERS) -m "$(FAST)"

# The fast set and the golden outputs on the pure-Python model, whatever is compiled (CI runs both builds).
test-pure: $(STAMP)
	RXVIZ_MODEL=pure $(PYTEST) $(WORKERS) -m "($(FAST)) or golden"

# Everything: the fast set, slow, property and snapshot tests, the built wheel, the browser. CI runs it.
test-all: $(STAMP)
	$(PYTEST) $(WORKERS)

# ruff on everything; mypy --strict on models/ and viz/ (pyproject [tool.mypy]); the import-linter contracts.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache      # its mtime-keyed cache once kept a reverted edit; a fresh analysis takes ~1 s

bench: $(STAMP)
	$(PYTEST) tests/bench --benchmark-only -p no:cacheprovider

check: $(STAMP)
	$(BIN)/rxviz check

clean:
	rm -rf $(VENV) .pytest_cache .benchmarks .mypy_cache .ruff_cache models/_compiled
