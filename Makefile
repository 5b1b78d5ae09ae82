# The whole interface: make run, make test, make bench, make lint (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := help
PY := .venv/bin/python
UV_VERSION := 0.13.9
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: help install run serve build test test-python test-js browsers bench lint format train-tiny golden clean \
  nginx load faults scale-out deploy-local

help:
	@echo "make run    set up everything and serve the site on http://$(HOST):$(PORT)"
	@echo "make test   run every test (Python, JavaScript, browser)"
	@echo "make bench  print performance figures    make lint  ruff + mypy"
	@echo "make load / faults / scale-out   load test, fault runs, two servers behind nginx (minutes)"
	@echo "make deploy-local   PostgreSQL, Redis, 2 app servers, nginx with TLS, until Ctrl-C"

uv:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --quiet "uv==$(UV_VERSION)"

install: uv
	uv sync --frozen
	@command -v npm >/dev/null 2>&1 && npm ci --no-audit --no-fund --silent || echo "npm not found: the accessibility audit needs it"

build: install
	$(PY) manage.py migrate --noinput
	$(PY) -m mathmachine.coursebook build
	$(PY) manage.py collectstatic --noinput -v 0

run: build serve

serve:
	$(PY) manage.py runserver $(HOST):$(PORT)

# Chromium for the browser tests comes from Debian (Playwright drives it via executable_path).
browsers:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "Browser tests need Debian's chromium: sudo apt-get install chromium"; exit 1; fi; \
	fi

test: install browsers
	$(PY) -m mathmachine.coursebook check
	$(PY) -m pytest
	node --test tests/js/

test-python: install
	$(PY) -m pytest -m "not browser"

test-js:
	node --test tests/js/

golden: install
	$(PY) -m mathmachine.coursebook golden

train-tiny: install
	$(PY) -m mathmachine.engine.tiny

bench: install browsers
	@for f in bench/*.py; do echo; echo "== $$f"; $(PY) $$f || exit 1; done

# Load, faults and scale-out (bench/README.md): each starts its own stack (deploy/local.py) in a
# fresh directory, runs for a bounded time and stops everything. LOAD_ARGS, e.g. "--learners 100".
load: install
	$(PY) bench/load/run.py load $(LOAD_ARGS)

faults: install
	$(PY) bench/load/run.py faults $(LOAD_ARGS)

scale-out: install nginx
	$(PY) bench/load/run.py scale-out $(LOAD_ARGS)

# The production layout on this machine (docs/deploy.md); Ctrl-C stops and removes it.
deploy-local: install nginx
	$(PY) deploy/local.py $(DEPLOY_ARGS)

# nginx comes from Debian; we run it as our own process with our own config, never the service.
nginx:
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else echo "The stack needs Debian's nginx: sudo apt-get install nginx"; exit 1; fi; \
	fi

lint: install
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy mathmachine/engine mathmachine/coursebook mathmachine/learning \
	  mathmachine/billing/services.py mathmachine/billing/selectors.py mathmachine/accounts \
	  mathmachine/units.py mathmachine/prepared.py
	PYTHONPATH=. .venv/bin/lint-imports --no-cache

format: install
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

clean:
	rm -rf var/coursebook var/staticfiles .pytest_cache
