# Dropship: `make run` to play, `make test` to check. Needs only Python 3.12+ and make.
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist): one per CPU core; each has its own test database and, with
# REDIS_URL, its own Redis database (tests/settings.py). TEST_WORKERS=0 runs in this process.
TEST_WORKERS ?= auto

# The first Python 3.12+ found: on PATH, then pyenv's versions.
PYTHON ?= $(shell for p in python3.13 python3.12 python3; do \
	  if $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then command -v $$p; exit 0; fi; done; \
	for p in $$HOME/.pyenv/versions/3.13*/bin/python3 $$HOME/.pyenv/versions/3.12*/bin/python3; do \
	  if [ -x "$$p" ]; then echo "$$p"; exit 0; fi; done)
BOOT_PYTHON ?= $(shell command -v python3 || command -v python)
UV := $(BOOT_PYTHON) -m uv
# The served address tells the settings which host names to allow (see config/settings.py).
MANAGE := DROPSHIP_SERVE_HOST=$(HOST) $(UV) run --frozen python manage.py

.PHONY: help install run test lint deadcode format check-python

help:
	@echo "make run    serve Dropship on http://$(HOST):$(PORT) (HOST=0.0.0.0 for phones on your network)"
	@echo "make test   run the test suite (TEST_WORKERS=auto: one process per core)"
	@echo "make lint   ruff, mypy, the engine import contract and make deadcode"
	@echo "make deadcode  code nothing calls (vulture; settings in pyproject.toml, tools/vulture_whitelist.py)"

check-python:
	@if [ -z "$(PYTHON)" ]; then echo "Dropship needs Python 3.12 or newer (none found on PATH or in ~/.pyenv)." >&2; exit 1; fi

install: check-python
	@$(BOOT_PYTHON) -m uv --version >/dev/null 2>&1 || $(BOOT_PYTHON) -m pip install --quiet uv
	@$(UV) sync --frozen --python "$(PYTHON)" --quiet

run: install
	@mkdir -p var
	@$(MANAGE) migrate --no-input -v 0
	@$(MANAGE) collectstatic --no-input -v 0
	@$(MANAGE) load_tables
	@$(MANAGE) ensure_local_account
	@if [ "$(HOST)" = "0.0.0.0" ]; then \
	  ip=$$(hostname -I 2>/dev/null | awk '{print $$1}'); \
	  echo "Phones at the table: open http://$${ip:-<this computer's address>}:$(PORT)/"; fi
	@echo "Dropship is at http://127.0.0.1:$(PORT)/  (Ctrl+C stops it)"
	@if [ "$(HOST)" = "127.0.0.1" ]; then echo "Only this computer can open it: phones need make run HOST=0.0.0.0"; fi
	@DROPSHIP_SERVE_HOST=$(HOST) $(UV) run --frozen uvicorn config.asgi:application --host $(HOST) --port $(PORT) --log-level warning

# The schema fuzzing runs in one process after the rest: schemathesis gives all its operations
# one test id, and pytest-xdist would run one of them.
SCHEMA_FUZZ := tests/test_api_schemathesis.py

test: install
	@$(UV) run --frozen pytest -n $(TEST_WORKERS) --dist loadfile --ignore=$(SCHEMA_FUZZ) $(PYTEST_ARGS)
	@$(UV) run --frozen pytest $(SCHEMA_FUZZ) $(PYTEST_ARGS)

lint: install
	@$(UV) run --frozen ruff check .
	@$(UV) run --frozen ruff format --check .
	@$(UV) run --frozen mypy .
	@$(UV) run --frozen lint-imports
	@$(UV) run --frozen vulture

deadcode: install
	@$(UV) run --frozen vulture

format: install
	@$(UV) run --frozen ruff format .
	@$(UV) run --frozen ruff check --fix .
