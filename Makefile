# The two commands of README.md: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

LINTER := tools/cypher-lint/node_modules/.installed
BROWSER := tools/browser-check/node_modules/.installed

.PHONY: install demo test test-neo4j neo4j-up neo4j-down qdrant-up qdrant-down cypher-grammar reliability lint bench speed entities locomo bilingual ingest multilingual semantic answers updates agent clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first and pinned, so that a resolver does not pick another. PyPI's 2.13.0 for Linux
	# is the CUDA build (~4 GB of NVIDIA libraries unused on a CPU); the CPU-only wheel is on
	# PyTorch's own index, which these machines do not reach.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Neo4j's Cypher linter (npm), which the tests run over every statement sent to Neo4j.
$(LINTER): tools/cypher-lint/package-lock.json
	cd tools/cypher-lint && npm ci --no-audit --no-fund --loglevel=error
	touch $(LINTER)

# playwright-core, which drives Debian's Chromium through Neo4j Browser (tests/test_neo4j_browser.py).
$(BROWSER): tools/browser-check/package-lock.json
	cd tools/browser-check && npm ci --no-audit --no-fund --loglevel=error
	touch $(BROWSER)

install: $(STAMP) $(LINTER) $(BROWSER)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/hindsight demo

# The code is checked before the behaviour: ruff, then mypy --strict (pyproject.toml).
test: $(STAMP) $(LINTER) $(BROWSER)
	$(VENV)/bin/ruff check engine graph_schema mcp_server bench tests
	$(VENV)/bin/mypy
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

# A test Neo4j 5.26 Community on loopback, from its jars on Maven Central (needs Java 17 and
# Maven): Bolt on 7687, Browser on http://127.0.0.1:7474/browser/. `make test` runs every
# Neo4j case when NEO4J_URI is set: `eval "$$(tools/neo4j/neo4j.sh env)"`.
neo4j-up:
	tools/neo4j/neo4j.sh up

neo4j-down:
	tools/neo4j/neo4j.sh down

# A test Qdrant 1.18.3 on loopback, a plain process of the binary built for these machines
# (QDRANT_BIN, else ../shared/tools/qdrant/qdrant), on two free ports; `make test` runs every
# Qdrant-server case when QDRANT_URL is set: `eval "$$(tools/qdrant/qdrant.sh env)"`.
qdrant-up:
	tools/qdrant/qdrant.sh up

qdrant-down:
	tools/qdrant/qdrant.sh down

# Only the Neo4j cases, against the server at NEO4J_URI (the test Neo4j when unset); they fail
# when it is unreachable. They empty hindsight's labels in that database: use a test database.
test-neo4j: $(STAMP) $(LINTER)
	NEO4J_URI=$${NEO4J_URI:-bolt://127.0.0.1:7687} HINDSIGHT_REQUIRE_LIVE=neo4j HF_HUB_OFFLINE=1 \
		$(PY) -m pytest -q -m neo4j

# Neo4j's Cypher 5 grammar (the ATN that engine/analyst/grammar.py runs), from the sources jar
# of org.neo4j:cypher-v5-antlr-parser; NEO4J_GRAMMAR picks another Neo4j version.
NEO4J_GRAMMAR ?= 5.26.30
cypher-grammar:
	mvn -B -q dependency:copy -Dartifact=org.neo4j:cypher-v5-antlr-parser:$(NEO4J_GRAMMAR):jar:sources \
		-DoutputDirectory=tools/neo4j/target/grammar
	unzip -o -j -q tools/neo4j/target/grammar/cypher-v5-antlr-parser-$(NEO4J_GRAMMAR)-sources.jar \
		'*/Cypher5Lexer.interp' '*/Cypher5Parser.interp' -d engine/grammar

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

# Neo4j's lookup of the entities a question names, by indexes against a filter (needs NEO4J_URI).
entities: $(STAMP)
	$(PY) -m bench.entities

# Recall quality on LoCoMo (reads ../shared/data/locomo/locomo10.json; 6-10 minutes).
locomo: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.locomo

# The same harness on hindsight's own dated English and Chinese chats (bench/data/).
bilingual: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.locomo --data bench/data/bilingual.json

# LoCoMo ingest: a turn's own model pass against its sentences' mean, A/B in one process (~4 minutes).
ingest: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.ingest

# What the multilingual space costs Chinese text: store_many, recall and memory, A/B (~3 minutes).
multilingual: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.multilingual

# Semantic memory on LoCoMo: reflection's facts against the annotators' observations (~3 minutes).
semantic: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.semantic

answers: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.answers

updates: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.updates --verbose

# An agent's work: real tool errors among routine tool calls, fixes found by the next occurrence (~2 minutes).
agent: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.agent

clean:
	rm -rf $(VENV) hindsight-data tools/cypher-lint/node_modules tools/neo4j/target \
		tools/browser-check/node_modules tools/browser-check/target
