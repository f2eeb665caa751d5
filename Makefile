PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint types install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check core ble storage memory agent device tests bench

types: $(STAMP)
	$(BIN)/mypy core ble storage memory agent device

test: lint types
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/companion-memory demo

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
