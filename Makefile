PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: test check demo lint types install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP) $(DEMO_STAMP)

# What the default demo runs: the package and the emulated phone (bumble; prebuilt
# wheels only). The deterministic provider needs no model, so llama.cpp, which compiles
# from source, is left to `make test` and to users of `demo --provider llama`.
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[emulator]'
	touch $(DEMO_STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check companion_memory core ble storage memory agent device tests bench

# mypy cannot follow the editable install's package mapping, so it checks a view of
# the installed layout: build/typecheck/companion_memory with links to the packages.
TYPECHECK := build/typecheck/companion_memory
types: $(STAMP)
	rm -rf build/typecheck && mkdir -p $(TYPECHECK)
	ln -s ../../../companion_memory/__init__.py $(TYPECHECK)/__init__.py
	ln -s ../../../companion_memory/testing.py $(TYPECHECK)/testing.py
	touch $(TYPECHECK)/py.typed
	for p in core ble storage memory agent device; do ln -s ../../../$$p $(TYPECHECK)/$$p; done
	MYPYPATH=build/typecheck $(BIN)/mypy -p companion_memory -p tests

test: lint types
	$(BIN)/python -m pytest -q

# The fast loop: lint, types and every test that needs no native model, BlueZ or
# kill -9 children (a few minutes less than `make test`, which CI runs).
check: lint types
	$(BIN)/python -m pytest -q -m "not llama and not bluez and not crash"

demo: $(DEMO_STAMP)
	$(BIN)/companion-memory demo

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
