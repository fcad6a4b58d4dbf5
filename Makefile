# TraceTax: `make up` starts everything natively, `make test` runs every suite.
#
# Third-party tools and binaries are built into $(CACHE_DIR) (never into the repository);
# the running stack keeps pid files, logs and data in $(STATE_DIR).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

CACHE_DIR ?= $(HOME)/.cache/tracetax
export TRACETAX_CACHE_DIR := $(CACHE_DIR)
ifdef STATE_DIR
export TRACETAX_STATE_DIR := $(abspath $(STATE_DIR))
endif

UV_VERSION := 0.13.9
# oha: the default load generator. Installed --locked because its unlocked resolve wants a
# newer Rust than the machine's (about 8 minutes cold on 2 cores).
OHA_VERSION := 1.16.0
OHA := $(CACHE_DIR)/tools/oha-$(OHA_VERSION)/bin/oha
UV := $(CACHE_DIR)/tools/uv-$(UV_VERSION)/bin/uv
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/backend/.venv
TRACETAX := cd backend && $(UV) run --frozen tracetax

SERVICE_DIRS := $(sort $(dir $(wildcard instrumented-services/*/service.json)))

.PHONY: help up prepare prepare-test down clean status health toolchain backend-deps frontend-deps frontend stack-build \
        postgres services tools zero-code examples test test-unit test-backend test-frontend test-e2e lint bench-services bench-engine bench-stacks bench-truth bench-packaged bench-collector bench-studies bench-history check-packaging \
        docker docker-engine compose-plugin images test-compose cluster-build cluster-up cluster-down cluster-clean cluster-images test-cluster

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

up: prepare ## Build what is missing and start the whole stack (UI at http://localhost:8000)
	@$(TRACETAX) stack up

# Cold, the builds take most of `make up` and `make test`. They run in two lanes: the Go builds
# (the stack; for the tests also the cluster) in one, everything else one after another in the
# other, so downloads and single-threaded steps (npm, Maven, uv, links) fill the cores the
# compilers leave idle. The second lane is a chain on purpose: Maven's local repository is not
# safe for two writers. Warm, each target finds its output and returns at once.
PREPARE_REST := tools frontend services zero-code examples
ifdef TRACETAX_LANES
frontend: | tools
services: | frontend
zero-code: | services
examples: | zero-code
cluster-build: | stack-build
compose-plugin: | cluster-build
endif
prepare: toolchain backend-deps ## Build everything `make up` needs, in two lanes (see the comment above)
	@$(MAKE) --no-print-directory -j2 --output-sync=line TRACETAX_LANES=1 stack-build $(PREPARE_REST)
# apt-get stays out of the lanes (dpkg takes one writer): postgres and the Docker engine install
# first; the compose plugin, a Go build, goes in the Go lane.
prepare-test: toolchain backend-deps postgres docker-engine
	@$(MAKE) --no-print-directory -j2 --output-sync=line TRACETAX_LANES=1 stack-build cluster-build compose-plugin $(PREPARE_REST) frontend-deps

down: ## Stop every process `make up` started; data stays
	@if [ -x "$(UV)" ] && [ -d backend/.venv ]; then $(TRACETAX) stack down; else echo "nothing to stop (never set up)"; fi

clean: ## Stop everything and delete the state directory (data, logs) and build outputs in the repo
	@if [ -x "$(UV)" ] && [ -d backend/.venv ]; then $(TRACETAX) stack clean; fi
	rm -rf frontend/dist

status: ## Show each component's readiness, restarts and last exit, and whether the watcher runs
	@$(TRACETAX) stack status

health: ## Ask the running backend's /api/health
	@$(TRACETAX) health

toolchain: ## Check the toolchains this repository builds with
	@command -v go >/dev/null || { echo "make: the Go toolchain is missing (needed to build the Collector, Tempo, Loki and Mimir). Install Go >= 1.26 and retry." >&2; exit 1; }
	@command -v npm >/dev/null || { echo "make: Node.js/npm is missing (needed to build the UI). Install Node.js >= 20.19 and retry." >&2; exit 1; }
	@python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "make: python3 >= 3.11 is missing (needed for the backend). Install it and retry." >&2; exit 1; }
	@command -v java >/dev/null && command -v mvn >/dev/null || { echo "make: Java 17 and Maven are missing (needed to build the Java demo service). Install them and retry." >&2; exit 1; }
	@if ! command -v clang >/dev/null || ! command -v llvm-strip >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing clang and llvm from Debian (they compile the Go service's eBPF instrumentation)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang llvm >/dev/null; \
	  else echo "note: clang/llvm are missing and this is not root: the Go service's ebpf mode will be reported unavailable"; fi; \
	fi

# The repository and API tests run on PostgreSQL as well as SQLite: a throwaway cluster from
# Debian's server binaries (backend/tests/postgres.py). Debian's package would also create a
# cluster of its own, started on port 5432 where services run: the tests need only the binaries.
postgres: ## Check for PostgreSQL's server binaries (the database tests run on it too); as root, install Debian's
	@if ! ls /usr/lib/postgresql/*/bin/postgres /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing PostgreSQL from Debian (the repository and API tests run against it as well as SQLite)"; \
	    mkdir -p /etc/postgresql-common/createcluster.d; \
	    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/tracetax.conf; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	  else echo "make: PostgreSQL's server is missing (/usr/lib/postgresql/<version>/bin): the repository and API tests run against it as well as SQLite. Install Debian's postgresql package (apt-get install postgresql) and retry, or run pytest -m 'not postgres'." >&2; exit 1; fi; \
	fi

$(UV):
	@echo "installing uv $(UV_VERSION) into $(CACHE_DIR)/tools"
	@python3 -m venv $(CACHE_DIR)/tools/uv-$(UV_VERSION)
	@$(CACHE_DIR)/tools/uv-$(UV_VERSION)/bin/pip install --quiet uv==$(UV_VERSION)

backend-deps: $(UV) ## Install the backend's locked Python environment
	@cd backend && $(UV) sync --frozen --quiet

frontend-deps: frontend/node_modules/.package-lock.json
# `npm install` with the committed lock installs exactly the locked versions. Not `npm ci`: the
# registry reachable here serves only Biome's linux-x64 binary, so the lock cannot list the other
# platforms' optional packages and `npm ci` refuses it as out of sync.
frontend/node_modules/.package-lock.json: frontend/package-lock.json frontend/package.json
	cd frontend && npm install --no-audit --no-fund --loglevel=error

frontend: frontend/dist/index.html ## Build the UI into frontend/dist (served by the backend); rebuilt only when its sources change

# What the UI's build reads: a warm `make up` skips the build (about 15 s on 2 cores).
FRONTEND_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
  frontend/index.html frontend/vite.config.ts frontend/tsconfig.json frontend/package.json frontend/openapi.json
frontend/dist/index.html: $(FRONTEND_SOURCES) frontend/node_modules/.package-lock.json
	@cd frontend && npm run --silent build >/dev/null && touch dist/index.html && echo "UI built into frontend/dist"

services: $(UV) ## Build the demo services (Go, Python, Java, Node); cached by each service's own Makefile
	@for dir in $(SERVICE_DIRS); do echo "building $$dir"; $(MAKE) --no-print-directory -C $$dir build UV=$(UV); done

tools: $(OHA) ## Install the load generator (oha) into the cache

zero-code: $(UV) ## Install the zero-code sets (Python opentelemetry-instrument, Java agent, Node auto-instrumentations) into the cache's zero-code/; cached
	@python3 scripts/zero_code.py zero-code --uv $(UV)

examples: $(UV) ## Install the third-party example apps (httpbin under gunicorn, WireMock) into the cache's examples/; cached
	@python3 scripts/zero_code.py examples --uv $(UV)

$(OHA):
	@command -v cargo >/dev/null || { echo "make: cargo (Rust) is missing: needed to install the load generator oha. Install Rust and retry." >&2; exit 1; }
	@echo "installing oha $(OHA_VERSION) into $(CACHE_DIR)/tools (cold: about 8 min on 2 cores)"
	@cargo install oha --version $(OHA_VERSION) --locked --root $(CACHE_DIR)/tools/oha-$(OHA_VERSION) --quiet

stack-build: backend-deps ## Build the Collector, Tempo, Loki and Mimir into the cache
	@$(TRACETAX) stack build

lint: backend-deps frontend-deps ## Linters and type checkers
	cd backend && $(UV) run --frozen ruff check . && $(UV) run --frozen ruff format --check . && $(UV) run --frozen mypy && $(UV) run --frozen lint-imports
	cd frontend && npx biome check . && npx tsc -b && npm run --silent check:api
	@cd backend && $(UV) run --frozen python -c "import json, sys; from tracetax.main import create_app; current = create_app().openapi(); committed = json.load(open('../frontend/openapi.json')); sys.exit(0 if current == committed else 'frontend/openapi.json is stale: run cd frontend && npm run gen:openapi')"

test: prepare-test lint test-backend test-frontend test-e2e check-packaging test-compose test-cluster ## Every test suite (starts the real stack if it is not running)

# Two passes. What measures nothing (pure logic, the offline API, PostgreSQL, schemathesis) runs on
# every core (pytest-xdist); then, one test at a time, what starts real services and the stack:
# those measure, and a measurement must have the cores to itself.
test-backend: toolchain postgres backend-deps stack-build frontend services tools zero-code examples
	cd backend && $(UV) run --frozen pytest -m "not stack and not services and not compose and not cluster" -n auto
	cd backend && $(UV) run --frozen pytest -m "stack or services"

test-unit: backend-deps frontend-deps ## The quick loop: pytest of pure logic and the offline API (no stack, demo services, schemathesis or PostgreSQL) and Vitest
	cd backend && $(UV) run --frozen pytest -q -m "not stack and not schemathesis and not services and not postgres and not compose and not cluster" -n auto
	cd frontend && npx vitest run

test-e2e: backend-deps frontend services tools zero-code examples ## Browser tests (Chromium) against the running stack, or one started for them
	@UV=$(UV) scripts/run-e2e.sh $(E2E_ARGS)

check-packaging: ## Packaging checks without a Docker engine: compose, Dockerfiles, Helm chart (UPDATE_GOLDEN=1 rewrites the golden file)
	@scripts/check-packaging.sh

# Docker without systemd or a registry: Debian's engine and mmdebstrap, a daemon started by
# scripts/docker-daemon.sh (stopped by `scripts/docker-daemon.sh stop`), the compose v2 plugin
# (pinned in scripts/check-packaging.sh, built from the Go module proxy; docs/native-stack.md).
docker: docker-engine compose-plugin ## Docker for the images and the compose test: docker.io and mmdebstrap from Debian when missing (as root), dockerd started unless one answers, the compose v2 plugin
docker-engine:
	@if ! command -v dockerd >/dev/null || ! command -v mmdebstrap >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing docker.io and mmdebstrap from Debian (the Docker engine; the images' Debian base)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io mmdebstrap >/dev/null; \
	  else echo "make: dockerd or mmdebstrap is missing: install a Docker engine and mmdebstrap (Debian: apt-get install docker.io mmdebstrap) and retry" >&2; exit 1; fi; \
	fi
	@scripts/docker-daemon.sh start
# A Go build (about 10 min cold on 2 cores): in the tests' Go lane, beside the other builds.
compose-plugin:
	@scripts/check-packaging.sh --install-compose

# Every image from what the targets before it built; nothing compiled twice (scripts/images.sh).
images: docker backend-deps stack-build frontend services tools ## Build every image compose.yml runs, here, with no registry (names in images/local.env)
	@scripts/images.sh build

# The real compose.yml on the local images, published on UI_PORT 18000 (GRAFANA_PORT 13000) so
# it runs beside `make up`'s stack; ends with `docker compose down -v`.
test-compose: images ## `docker compose up` for real: every health check green, the UI, a Go experiment inside
	cd backend && $(UV) run --frozen pytest -m compose -n 0 tests/compose

test-frontend: frontend-deps
	cd frontend && npx vitest run

# A real single-node Kubernetes built here from source (stack/kubernetes/README.md): builds are
# cached by version in $(CACHE_DIR), the running cluster's state is in ~/.local/state/tracetax-k8s.
cluster-build: ## Build the single-node Kubernetes, CoreDNS, kube-router and helm into the cache (about 20 min cold, once)
	@stack/kubernetes/build.sh

cluster-up: cluster-build ## Start the single-node Kubernetes (root; KUBECONFIG=~/.local/state/tracetax-k8s/admin.kubeconfig)
	@stack/kubernetes/up.sh

cluster-down: ## Stop the single-node Kubernetes; nothing is left on the host (its data stays)
	@stack/kubernetes/down.sh

cluster-clean: cluster-down ## Stop it and delete its state: certificates, etcd data, imported images
	rm -rf "$${TRACETAX_K8S_STATE_DIR:-$$HOME/.local/state/tracetax-k8s}"

cluster-images: ## Import the TraceTax images built with Docker (docs: helm/README.md) into the cluster's containerd
	@stack/kubernetes/images.sh

# The chart on the real cluster: the cluster starts once for the session and stops after it,
# also when a test fails (backend/tests/cluster/conftest.py).
test-cluster: backend-deps cluster-build images ## The Helm chart installed on the single-node Kubernetes (root, Docker for the images)
	cd backend && $(UV) run --frozen pytest -m cluster tests/cluster

# The compose and cluster tests leave their experiment's figures and spec in the cache.
bench-packaged: backend-deps ## Benchmark: the compose and cluster tests' experiments beside the same specs run natively (needs `make up`)
	cd backend && $(UV) run --frozen python -m benchmarks.packaged $(BENCH_ARGS)

bench-services: backend-deps services tools ## Benchmark: each demo service's max throughput and p50/p99 per mode
	cd backend && $(UV) run --frozen python -m benchmarks.services $(BENCH_ARGS)

bench-engine: backend-deps services tools ## Benchmark: the harness's footprint, highest accurate rate, default experiment's wall time
	cd backend && $(UV) run --frozen python -m benchmarks.engine $(BENCH_ARGS)

# TRUTH=neighbour: the A/A under a random on/off CPU hog on the service cores; TRUTH=background:
# only the background-only injected cost. Unset: the standard set.
bench-truth: backend-deps services tools ## Benchmark: A/A on Go and Java in both designs, injected costs measured as themselves (TRUTH=neighbour|background|injected|aa|aa-series)
	cd backend && $(UV) run --frozen python -m benchmarks.truth $(if $(TRUTH),--$(TRUTH)) $(BENCH_ARGS)

bench-studies: backend-deps services tools ## Benchmark: the two ready studies in docs/examples (seed 000's producer threads on Java, seed 002's eBPF vs SDK on Go; about 20 min, needs `make up`)
	cd backend && $(UV) run --frozen tracetax run ../docs/examples/java-producer-threads.yaml
	cd backend && $(UV) run --frozen tracetax run ../docs/examples/go-ebpf-vs-sdk.yaml

bench-history: backend-deps services ## Benchmark: 12 checks with a 300 µs step at the 7th give one change point there, 12 unchanged give none (needs `make up`; BENCH_ARGS=--save FILE)
	cd backend && $(UV) run --frozen python -m benchmarks.history $(BENCH_ARGS)

bench-collector: backend-deps ## Benchmark: groupbytrace vs tail_sampling (memory, loss, best rate) and the loadbalancing exporter's CPU per span (needs `make up`)
	cd backend && $(UV) run --frozen python -m benchmarks.collector $(BENCH_ARGS)

bench-stacks: backend-deps services ## Benchmark: where export runs per language and the stack sampler's cost (needs `make up`)
	cd backend && $(UV) run --frozen python -m benchmarks.stacks $(BENCH_ARGS)
