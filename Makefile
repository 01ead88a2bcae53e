# Redline — the two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint typecheck pytest worker bench clean

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
	$(BIN)/python -m project.localenv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	BIN=$(BIN) PORT=$(PORT) ./bin/run-local

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
	$(BIN)/celery -A project worker -B --loglevel=INFO

bench: install
	$(BIN)/python bench/engine_bench.py
	$(BIN)/python bench/review_bench.py

clean:
	rm -rf $(VENV) var/*.sqlite3 var/broker staticfiles
