"""Keep the native stack up: start again a component that exits, with backoff.

`stack up` starts a small detached process beside the components once they are all ready
(`tracetax stack watch`, pid file run/watcher.json like theirs); `stack down` stops it first,
so it never starts again what `down` stops. Once a second it looks at each component's pid
file (the same test as `down`'s: the pid still belongs to the process that was started). One
that has exited is started again after 1 s, then 2 s, 4 s ... up to BACKOFF_MAX_S while it
keeps exiting; one that stays up BACKOFF_RESET_S starts afresh at 1 s. Readiness is not
asked: a slow start (Mimir's rings) is no reason to kill anything, and only an exit is
acted on.

What it did is kept in <state>/stack-watch.json (restarts and the last exit of each
component), which `stack status`, /api/health and the engine read: a round during which a
component exited is flagged even when it is back by the round's end. How a component ended
(exit status, signal) is known only for one this watcher started: `stack up`, which started
the first, has ended and cannot tell.

Only the standard library is used, as in supervisor.py: it must run even when the backend's
environment is broken.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracetax.system import procfs

POLL_S = 1.0
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0
# Up this long without exiting: the next exit is restarted after BACKOFF_FIRST_S again.
BACKOFF_RESET_S = 60.0
WATCHER = "watcher"
RECORD_FILE = "stack-watch.json"
UNKNOWN_EXIT = "exited (how is unknown: `stack up`, which started it, has ended)"

Log = Callable[[str], None]


def describe_exit(returncode: int) -> str:
    """A Popen return code in words: 'exit status 1', 'killed by SIGKILL'."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


@dataclass
class ComponentWatch:
    """What the watcher knows of one component. Times: `now` (monotonic) for the backoff,
    wall-clock seconds for what is recorded."""

    name: str
    restarts: int = 0
    last_exit: str | None = None
    last_exit_at: float | None = None
    # Why the last attempt to start it failed (port still taken, binary gone); None after a start.
    last_error: str | None = None
    delay_s: float = BACKOFF_FIRST_S
    # Monotonic: when it is started again while it is down (None: up, or not yet seen down).
    restart_at: float | None = None
    up_since: float | None = None

    def public(self, now: float) -> dict[str, Any]:
        state = "running"
        if self.restart_at is not None:
            state = f"down: starting it again in {max(self.restart_at - now, 0.0):.0f} s"
        return {
            "restarts": self.restarts,
            "last_exit": self.last_exit,
            "last_exit_at": self.last_exit_at,
            "last_error": self.last_error,
            "state": state,
        }


@dataclass
class Watcher:
    """The restart logic, free of processes: `alive(name)`, `exit_of(name)` (how it ended, None
    when unknown) and `start(name)` (raises on failure) are given, and so are the clocks."""

    names: tuple[str, ...]
    alive: Callable[[str], bool]
    exit_of: Callable[[str], str | None]
    start: Callable[[str], object]
    log: Log
    monotonic: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    components: dict[str, ComponentWatch] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.components = {name: ComponentWatch(name) for name in self.names}

    def step(self) -> bool:
        """Look at every component once; True when anything changed (the record is written)."""
        changed = False
        for watch in self.components.values():
            changed |= self._step_one(watch, self.monotonic())
        return changed

    def _step_one(self, watch: ComponentWatch, now: float) -> bool:
        if self.alive(watch.name):
            if watch.up_since is None:
                watch.up_since = now
            elif now - watch.up_since >= BACKOFF_RESET_S:
                watch.delay_s = BACKOFF_FIRST_S
            watch.restart_at = None
            return False
        if watch.restart_at is None:  # it has just exited
            watch.up_since = None
            watch.last_exit = self.exit_of(watch.name) or UNKNOWN_EXIT
            watch.last_exit_at = self.wall()
            self.log(f"{watch.name} {watch.last_exit}; starting it again in {self._schedule(watch, now):.0f} s")
            return True
        if now < watch.restart_at:
            return False
        try:
            self.start(watch.name)
        except Exception as error:  # whatever failed (a port still taken), try again later
            watch.last_error = str(error).splitlines()[0] if str(error) else repr(error)
            wait_s = self._schedule(watch, now)
            self.log(f"{watch.name} could not be started ({watch.last_error}); trying again in {wait_s:.0f} s")
            return True
        watch.restarts += 1
        watch.last_error = None
        watch.restart_at = None
        self.log(f"{watch.name} started again (restart {watch.restarts})")
        return True

    def _schedule(self, watch: ComponentWatch, now: float) -> float:
        """The next attempt after the current delay, which doubles for the one after; returns
        the wait."""
        wait_s = watch.delay_s
        watch.restart_at = now + wait_s
        watch.delay_s = min(wait_s * 2, BACKOFF_MAX_S)
        return wait_s

    def record(self) -> dict[str, Any]:
        now = self.monotonic()
        return {name: watch.public(now) for name, watch in self.components.items()}


# -- the record file ---------------------------------------------------------------------------


def record_path(state: Path) -> Path:
    return state / RECORD_FILE


def write_record(state: Path, components: dict[str, Any]) -> None:
    """Atomically: a reader never sees half a file."""
    pid = os.getpid()
    record = {"pid": pid, "start_time": procfs.start_time(pid), "updated_at": time.time(), "components": components}
    path = record_path(state)
    temporary = path.with_suffix(f".{pid}.tmp")
    temporary.write_text(json.dumps(record, indent=1))
    temporary.replace(path)


@dataclass(frozen=True)
class Supervision:
    """What the record says, for `stack status`, /api/health and the engine."""

    # Whether the watcher that wrote it still runs (else nothing restarts a component).
    watching: bool
    watcher_pid: int | None
    components: dict[str, dict[str, Any]]

    def exits_since(self, since: float) -> dict[str, str]:
        """Components that exited at or after `since` (wall-clock seconds): name -> how."""
        return {
            name: str(entry.get("last_exit") or "exited")
            for name, entry in self.components.items()
            if entry.get("last_exit_at") is not None and float(entry["last_exit_at"]) >= since
        }


def read_supervision(state: Path) -> Supervision | None:
    """The record in `state`, or None when no watcher ever ran there (or it is unreadable)."""
    try:
        record = json.loads(record_path(state).read_text())
        pid = int(record["pid"])
        components = dict(record["components"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    watching = procfs.start_time(pid) == record.get("start_time")
    return Supervision(watching, pid, components)


def run(watcher: Watcher, state: Path, stop: threading.Event, poll_s: float = POLL_S) -> None:
    """Step every `poll_s` until `stop` is set, writing the record whenever it changed."""
    write_record(state, watcher.record())
    while not stop.is_set():
        # Written on every change, and at least every few seconds (its "down: in N s").
        if watcher.step() or any(w.restart_at is not None for w in watcher.components.values()):
            write_record(state, watcher.record())
        stop.wait(poll_s)
    write_record(state, watcher.record())


def summary(watch: dict[str, Any], watching: bool = True) -> str:
    """One line of a component's record: 'restarted 2x, last: killed by SIGKILL at 08:12:03'.
    Without a watcher running, what it was about to do no longer holds and is left out."""
    restarts = int(watch.get("restarts") or 0)
    parts = [f"restarted {restarts}x" if restarts else "never restarted"]
    if watch.get("last_exit"):
        at = watch.get("last_exit_at")
        when = f" at {time.strftime('%H:%M:%S', time.localtime(float(at)))}" if at is not None else ""
        parts.append(f"last: {watch['last_exit']}{when}")
    state = str(watch.get("state") or "running")
    if watching and state != "running":
        parts.append(state)
    if watching and watch.get("last_error"):
        parts.append(f"start failed: {watch['last_error']}")
    return ", ".join(parts)
