# The two commands of README.md: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

LINTER := tools/cypher-lint/node_modules/.installed

.PHONY: install demo test test-neo4j reliability lint bench speed locomo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first: 2.13.0 is the CPU build; letting a resolver choose pulls a CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Neo4j's Cypher linter (npm), which the tests run over every statement sent to Neo4j.
$(LINTER): tools/cypher-lint/package-lock.json
	cd tools/cypher-lint && npm ci --no-audit --no-fund --loglevel=error
	touch $(LINTER)

install: $(STAMP) $(LINTER)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/hindsight demo

test: $(STAMP) $(LINTER)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

# The contract cases against the Neo4j server at NEO4J_URI (and a Qdrant server when
# QDRANT_URL is set). Fails when NEO4J_URI is unset or the server is unreachable. They empty
# hindsight's labels in that database: point them at a test database.
test-neo4j: $(STAMP)
	HINDSIGHT_REQUIRE_LIVE=1 HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m neo4j tests/contract

# The reliability suite at full size: 8 clients x 1000 operations (make test runs 8 x 40).
reliability: $(STAMP)
	HINDSIGHT_LOAD_OPS=1000 HF_HUB_OFFLINE=1 $(PY) -m pytest -q -s tests/reliability

lint: $(STAMP)
	$(VENV)/bin/ruff check engine graph_schema mcp_server bench tests
	$(VENV)/bin/mypy

# Speed at 10k episodes (a few minutes); `make speed` adds 100k (about half an hour).
bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.speed --episodes 10000

speed: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.speed --episodes 10000,100000

# Recall quality on LoCoMo (reads ../shared/data/locomo/locomo10.json; 6-10 minutes).
locomo: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.locomo

clean:
	rm -rf $(VENV) hindsight-data tools/cypher-lint/node_modules
