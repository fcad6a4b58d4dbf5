#!/usr/bin/env bash
# `docker compose` on the images built here (images/local.env over .env), where no registry
# serves images. Before anything that starts containers, every image must be present: a
# missing one is named with the command that builds it, instead of compose's pull error.
#
#   make images                        build them (once; about N min cold, see docs/benchmarks.md)
#   scripts/compose-local.sh up -d     start the stack (never pulls)
#   scripts/compose-local.sh ps        any other compose command, with the same env files
#   scripts/compose-local.sh down -v   stop and delete the data
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
COMPOSE=(docker compose --env-file .env --env-file images/local.env)
case "${1:-}" in
  up)
    scripts/images.sh check
    shift
    exec "${COMPOSE[@]}" up --pull never "$@"
    ;;
  create | run | start | restart)
    scripts/images.sh check
    ;;
esac
exec "${COMPOSE[@]}" "$@"
