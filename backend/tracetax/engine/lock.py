"""A machine-wide lock held while measuring: the API's queue and `tracetax run` take it, so two
measurements never share the cores, whichever process starts them."""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tracetax.stack.components import state_dir


@contextmanager
def measurement_lock(on_wait: Callable[[], None] | None = None, path: Path | None = None) -> Iterator[None]:
    lock_path = path or state_dir() / "measurement.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
