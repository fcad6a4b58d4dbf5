"""A machine-wide lock held while measuring: the API's queue and `tracetax run` take it, so two
measurements never share the cores, whichever process starts them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from tracetax.system.paths import state_dir

# How often a cancellable wait looks again: a cancel takes effect within this.
POLL_S = 0.25


class LockWaitCancelledError(Exception):
    """The wait for the lock was given up: `cancel` was set before another measurement ended."""


def _acquire(lock: FileLock, on_wait: Callable[[], None] | None, cancel: threading.Event | None) -> None:
    try:
        lock.acquire(blocking=False)
        return
    except Timeout:
        if on_wait:
            on_wait()
    if cancel is None:
        lock.acquire()
        return
    # A wait for the file lock cannot be interrupted by an event: try again every POLL_S until it is set.
    while not cancel.wait(POLL_S):
        try:
            lock.acquire(blocking=False)
            return
        except Timeout:
            continue
    raise LockWaitCancelledError


@contextmanager
def measurement_lock(
    on_wait: Callable[[], None] | None = None,
    path: Path | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[None]:
    """Hold the machine's measurement lock. Waits while another measurement holds it; with
    `cancel`, gives up (LockWaitCancelledError) as soon as that is set, so an experiment cancelled
    in the queue ends at once rather than after the other measurement."""
    lock_path = path or state_dir() / "measurement.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(lock_path)
    _acquire(lock, on_wait, cancel)
    try:
        yield
    finally:
        lock.release()
