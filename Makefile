# The two commands of README.md: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint bench locomo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first: 2.13.0 is the CPU build; letting a resolver choose pulls a CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/hindsight demo

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check engine graph_schema mcp_server bench tests
	$(VENV)/bin/mypy

bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.quick

# Recall quality on LoCoMo (reads ../shared/data/locomo/locomo10.json; about 10 minutes).
locomo: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m bench.locomo

clean:
	rm -rf $(VENV) hindsight-data
