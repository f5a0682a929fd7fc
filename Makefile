# apismith: `make regenerate` and `make test` bootstrap .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# test-time Node tools (swagger2openapi, the Swagger 2.0 oracle): never a runtime dependency
ORACLES := tests/oracles
ORACLE_STAMP := $(ORACLES)/node_modules/.installed

.PHONY: install regenerate test golden check bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(ORACLE_STAMP): $(ORACLES)/package.json $(ORACLES)/package-lock.json
	npm ci --prefix $(ORACLES) --no-audit --no-fund --silent
	touch $(ORACLE_STAMP)

install: $(STAMP) $(ORACLE_STAMP)

regenerate: $(STAMP)
	$(BIN)/apismith generate

check: $(STAMP)
	$(BIN)/apismith check

golden: $(STAMP)
	$(BIN)/python -m tests.golden.update

test: $(STAMP) $(ORACLE_STAMP)
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/ruff format --check generator tests
	$(BIN)/mypy generator

bench: $(STAMP)
	$(BIN)/python bench/generate.py

clean:
	rm -rf $(VENV) $(ORACLES)/node_modules .pytest_cache .mypy_cache .ruff_cache

# Corpus benchmark (issue 11): real public specs, fetched outside the repo, and the peers.
CORPUS ?= $(HOME)/.cache/apismith-corpus
OPC_VENV ?= $(CORPUS)/opc-venv
CORPUS_ARGS ?= --sample 723 --seed 11 --jobs 1 --timeout 300 --out /tmp/corpus-results.json
.PHONY: bench-corpus
$(CORPUS)/manifest.json: bench/corpus_fetch.py
	$(BIN)/python bench/corpus_fetch.py --dest $(CORPUS)
$(OPC_VENV)/bin/openapi-python-client:
	$(PYTHON) -m venv $(OPC_VENV)
	$(OPC_VENV)/bin/python -m pip install --quiet openapi-python-client==0.29.1 python-dateutil
bench-corpus: $(STAMP) $(CORPUS)/manifest.json $(OPC_VENV)/bin/openapi-python-client
	$(BIN)/python bench/corpus.py $(CORPUS)/specs --opc $(OPC_VENV)/bin/openapi-python-client $(CORPUS_ARGS)
# Mid-size specs (100 KB to 2 MB, see bench/corpus.py): apismith against datamodel-codegen.
CORPUS_MID_ARGS ?= --min-bytes 100000 --max-bytes 2000000 --sample 113 --seed 11 --jobs 1 \
	--timeout 300 --tools apismith,dcg --out /tmp/corpus-mid.json
.PHONY: bench-corpus-mid
bench-corpus-mid: $(STAMP) $(CORPUS)/manifest.json
	$(BIN)/python bench/corpus.py $(CORPUS)/specs $(CORPUS_MID_ARGS)

# Mock benchmark (issue 12): the official SDKs' calls and latency, apismith's mock beside
# Prism (npm-installed outside the repo; needs node). Prints a Markdown report.
BENCH_MOCK_ARGS ?= --requests 1000
.PHONY: bench-mock
bench-mock: $(STAMP)
	$(BIN)/python bench/mock_vs_prism.py $(BENCH_MOCK_ARGS)

# Client benchmark (issue 13): LlmEngineClient beside openai-python 2.x, both against raw
# httpx in the same run, in the official SDKs' cached venv (openai 2.x, httpx, pydantic;
# built by the harness if missing, else the script runs without openai). Prints Markdown.
BENCH_CLIENT_ARGS ?= --calls 2000 --chunks 20000 --repeat 7
.PHONY: bench-client
bench-client: $(STAMP)
	@sdk_python=$$($(BIN)/python -c "import sys; sys.path.insert(0, '.'); \
	from tests.server.sdk_calls.harness import sdk_python; \
	print(sdk_python('openai-scale-gp'))") || sdk_python=$(BIN)/python; \
	$$sdk_python bench/client.py $(BENCH_CLIENT_ARGS)

# Scale benchmark (issue 14): GitHub REST, AWS EC2 and Microsoft Graph beta (npm packages,
# fetched into ~/.cache/apismith-bench/scale, pinned by sha256): apismith beside
# datamodel-codegen alone, wall time and peak RSS of the process tree. Prints Markdown.
BENCH_SCALE_ARGS ?= --runs 3
.PHONY: bench-scale
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py $(BENCH_SCALE_ARGS)

# Import benchmark: `import <pkg>; <Client>()` for the generated GitHub package (generated
# into a temporary directory from bench-scale's cached spec), beside `import httpx, pydantic`
# and the LLM Engine package in the same run; fresh interpreters, medians. Target < 1 s.
BENCH_IMPORT_ARGS ?= --runs 5
.PHONY: bench-import
bench-import: $(STAMP)
	$(BIN)/python bench/import_time.py $(BENCH_IMPORT_ARGS)
