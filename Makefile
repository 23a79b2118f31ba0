# Everything a fresh clone needs: `make run` and `make test` create the virtualenv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

CHROMIUM := /usr/bin/chromium

.PHONY: install compiled run test strength ladder bench bench-http lint openapi clean chromium node

install: $(STAMP)

# pip also compiles the hot path (setup.py, engine/compiled.py); without a C compiler it warns
$(STAMP): pyproject.toml setup.py clients/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[embedded,dev,bench]'
	$(BIN)/python -m pip install --quiet -e clients/python   # the official client, tested against the server
	$(BIN)/python -c "from engine.compiled import main; main()"
	touch $(STAMP)

# Rebuild the compiled modules whose sources changed since (a stale one runs from source meanwhile)
compiled: $(STAMP)
	$(BIN)/python setup.py --quiet build_ext --inplace
	$(BIN)/python -c "from engine.compiled import main; main()"

run: compiled
	$(BIN)/python -m api.runtime.devserver

test: lint chromium node compiled
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

strength: compiled
	$(BIN)/python -m pytest -m slow -s -p no:cacheprovider
	$(MAKE) ladder

# The rated ladder (ai/ratings.json, shown by GET /v1/games): LADDER_GAMES games per pair of players.
LADDER_GAMES ?= 100
ladder: compiled
	$(BIN)/python -m ai.ladder --per-pair $(LADDER_GAMES)

bench: compiled
	$(BIN)/python -m bench.search
	$(BIN)/python -m ai.openspiel --output bench/results/openspiel.json

# The web tier on loopback: waiters held, /healthz and move latency, requests/s against a bare
# Flask + Redis endpoint, bot-turn latency, Redis bytes per match (a few minutes; bench/results/http.json).
bench-http: $(STAMP)
	$(BIN)/python -m bench.http

# ruff (style), mypy (types; config in pyproject.toml), vulture (unused code; whitelist.py)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/vulture

openapi: $(STAMP)
	$(BIN)/flask --app wsgi openapi > openapi.yaml

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis build clients/typescript/node_modules
	find engine ai -name '*.so' -delete
