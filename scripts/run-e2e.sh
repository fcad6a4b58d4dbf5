#!/usr/bin/env bash
# Browser tests (e2e/) against the running stack: the one `make up` started (with the token it
# generated, which e2e/lib/token.mjs reads from the state directory), or, when none answers, a
# stack started here in a temporary state directory and stopped afterwards, with an operator's
# TRACETAX_API_TOKEN: reads need the token too then, as on Kubernetes, so the whole UI (and its
# downloads) is driven with a token.
# Installs Debian's Chromium when it is missing (Playwright never downloads a browser here).
# Usage: scripts/run-e2e.sh [playwright test arguments]   (make test-e2e E2E_ARGS=…)
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:?set UV to the uv binary (the Makefile does)}
URL=${TRACETAX_URL:-http://127.0.0.1:${TRACETAX_PORT_BACKEND:-8000}}

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "e2e: installing Debian's chromium"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "e2e: /usr/bin/chromium is missing; install Debian's chromium package (as root: apt-get install chromium)" >&2
    exit 2
  fi
fi
(cd e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)

started_here=""
if ! curl -sf "$URL/api/health/live" >/dev/null; then
  state=$(mktemp -d -t tracetax-e2e-XXXXXX)
  echo "e2e: no TraceTax at $URL: starting the stack in $state"
  export TRACETAX_STATE_DIR=$state
  TRACETAX_API_TOKEN=${TRACETAX_API_TOKEN:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}
  export TRACETAX_API_TOKEN
  (cd backend && "$UV" run --frozen tracetax stack up >/dev/null) || { echo "e2e: the stack did not start; see $state/logs" >&2; exit 2; }
  started_here=$state
fi
stop() {
  if [ -n "$started_here" ]; then
    (cd backend && TRACETAX_STATE_DIR=$started_here "$UV" run --frozen tracetax stack down >/dev/null) || true
    rm -rf "$started_here"
  fi
}
trap stop EXIT
# Arguments go to Playwright: a file, `-g <title>`, `--list`… (e2e/README.md).
(cd e2e && TRACETAX_URL=$URL npx playwright test "$@")
