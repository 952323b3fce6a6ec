# Two commands on a fresh machine (see README): `make demo` and `make test`.
# Everything is installed into .venv by these targets; nothing is installed by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.graphmem-installed
PYTEST_OPTS ?= -q -p no:cacheprovider --timeout=1200
export GRAPHMEM_TEST_STRICT := 1
LTS_VERSION     := 5.26.30
DEFAULT_VERSION := 2026.08.1

.PHONY: demo test sysdeps lint unit integration integration-lts integration-default bench clean

$(STAMP): pyproject.toml devtools/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]" -e ./devtools
	touch $(STAMP)

## The main job: start the managed Neo4j (installed from Maven Central on first use), record a
## realistic coding session with tool calls and print it back. It installs graphmem alone (no test
## or lint tools); `make test` adds the dev extras to the same venv afterwards.
DEMO_STAMP := $(VENV)/.graphmem-demo-installed

$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/graphmem demo

## The test suite: lint, types, unit tests, then the integration tests against Neo4j 5.26 LTS
## (OpenJDK 17) and the newest release (Temurin 25), each on a managed server of its own.
test: sysdeps lint unit integration-lts integration-default

## System packages the browser and compose tests need (Debian's chromium and docker-compose).
sysdeps:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v docker-compose >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium docker-compose >/dev/null; \
	  else \
	    echo "missing chromium/docker-compose: run 'sudo apt-get install -y chromium docker-compose'" >&2; exit 1; \
	  fi; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check graphmem devtools tests examples benchmarks
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_OPTS) tests/unit

integration-lts: $(STAMP)
	GRAPHMEM_TEST_NEO4J_VERSION=$(LTS_VERSION) $(BIN)/python -m pytest $(PYTEST_OPTS) tests/integration

integration-default: $(STAMP)
	GRAPHMEM_TEST_NEO4J_VERSION=$(DEFAULT_VERSION) $(BIN)/python -m pytest $(PYTEST_OPTS) tests/integration

integration: integration-lts integration-default

## The benchmark commands one by one (each prints figures and writes benchmarks/results/<name>.md/json);
## they come from devtools/ (graphmem-devtools, installed next to graphmem, never in its wheel).
bench: $(STAMP)
	$(BIN)/graphmem bench store
	$(BIN)/graphmem bench retrieval
	$(BIN)/graphmem bench worker
	$(BIN)/graphmem bench hooks
	$(BIN)/graphmem bench facts
	$(BIN)/graphmem bench locomo

clean:
	rm -rf $(VENV) build dist *.egg-info
