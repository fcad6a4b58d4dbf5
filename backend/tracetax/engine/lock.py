"""A machine-wide lock held while measuring: the API's queue and `tracetax run` take it, so two
measurements never share the cores, whichever process starts them."""

from __future__ import annotations

import fcntl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tracetax.stack.components import state_dir

# How often a cancellable wait looks again: a cancel takes effect within this.
POLL_S = 0.25


class LockWaitCancelledError(Exception):
    """The wait for the lock was given up: `cancel` was set before another measurement ended."""


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
        waited = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (fcntl.LOCK_NB if cancel is not None or not waited else 0))
                break
            except BlockingIOError:
                if not waited and on_wait:
                    on_wait()
                waited = True
                if cancel is not None:
                    if cancel.is_set():
                        raise LockWaitCancelledError from None
                    time.sleep(POLL_S)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
