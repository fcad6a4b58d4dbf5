"""A machine-wide lock held while measuring: the API's queue and `tracetax run` take it, so two
measurements never share the cores, whichever process starts them."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tracetax.stack.components import state_dir

# How often a cancellable wait looks again: a cancel takes effect within this.
POLL_S = 0.25


class LockWaitCancelledError(Exception):
    """The wait for the lock was given up: `cancel` was set before another measurement ended."""


def _acquire(handle: IO[str], on_wait: Callable[[], None] | None, cancel: threading.Event | None) -> None:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        if on_wait:
            on_wait()
    if cancel is None:
        fcntl.flock(handle, fcntl.LOCK_EX)
        return
    # flock cannot be interrupted by an event: try again every POLL_S until it is set.
    while not cancel.wait(POLL_S):
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
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
    with lock_path.open("w") as handle:
        _acquire(handle, on_wait, cancel)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
