# apismith: `make regenerate` and `make test` bootstrap .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install regenerate test golden check bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

regenerate: $(STAMP)
	$(BIN)/apismith generate

check: $(STAMP)
	$(BIN)/apismith check

golden: $(STAMP)
	$(BIN)/python -m tests.golden.update

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/ruff format --check generator tests
	$(BIN)/mypy generator

bench: $(STAMP)
	$(BIN)/python bench/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
