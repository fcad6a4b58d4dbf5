#!/usr/bin/env bash
# A Docker daemon for machines where nothing else starts one (no systemd as PID 1, as in CI
# containers and this project's build machine). Idempotent; used by `make images` and
# `make test-compose`.
#
#   scripts/docker-daemon.sh start    start dockerd unless a daemon already answers; wait for it
#   scripts/docker-daemon.sh stop     stop the dockerd this script started (its pid file)
#   scripts/docker-daemon.sh status   say whether a daemon answers
#
# A daemon that already answers on the socket (systemd's, Docker Desktop's) is used as is and
# never stopped. Ours logs to $STATE/dockerd.log and keeps its pid in $STATE/dockerd.pid, where
# STATE is ${TRACETAX_STATE_DIR:-~/.local/state/tracetax}/docker-daemon. Debian's `docker.io`
# provides dockerd (the Makefile installs it as root when missing); it starts its own containerd.
set -euo pipefail

STATE="${TRACETAX_STATE_DIR:-$HOME/.local/state/tracetax}/docker-daemon"
PID_FILE="$STATE/dockerd.pid"
LOG="$STATE/dockerd.log"
START_TIMEOUT_S=60

answers() { docker info >/dev/null 2>&1; }

our_pid() {
  local pid
  [ -f "$PID_FILE" ] || return 1
  pid="$(cat "$PID_FILE")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
  if answers; then
    echo "docker daemon: running"
    return 0
  fi
  command -v dockerd >/dev/null || {
    echo "docker daemon: dockerd is missing; install Debian's docker.io (apt-get install docker.io) or Docker Engine, then retry" >&2
    return 1
  }
  if our_pid >/dev/null; then
    echo "docker daemon: our dockerd (pid $(our_pid)) runs but does not answer yet; waiting"
  else
    mkdir -p "$STATE"
    echo "docker daemon: starting dockerd (log $LOG)"
    # setsid: the daemon outlives the make or test that started it, and no terminal's signal reaches it.
    setsid dockerd --pidfile "$PID_FILE" >>"$LOG" 2>&1 </dev/null &
  fi
  local waited=0
  until answers; do
    if [ "$waited" -ge "$START_TIMEOUT_S" ]; then
      echo "docker daemon: no answer after ${START_TIMEOUT_S} s; last lines of $LOG:" >&2
      tail -n 20 "$LOG" >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "docker daemon: ready after ${waited} s"
}

stop() {
  local pid
  if ! pid="$(our_pid)"; then
    echo "docker daemon: none of ours running"
    return 0
  fi
  kill -TERM "$pid"
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || { echo "docker daemon: stopped"; return 0; }
    sleep 1
  done
  echo "docker daemon: pid $pid still running after 30 s; see $LOG" >&2
  return 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if answers; then echo "docker daemon: running"; else echo "docker daemon: not running"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
