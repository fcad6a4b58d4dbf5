"""A graceful shutdown that starts when the backend is told to stop.

uvicorn, on SIGTERM, stops accepting connections and waits for the open ones to close before
it runs the app's lifespan shutdown. An open event stream never closes by itself, so the
running experiment would be stopped only when the supervisor's patience ran out and killed
the backend: its service never got its own SIGTERM (no exporter flush) and the run was marked
interrupted at the next start. So the app hooks the signal itself: it ends the event streams
and stops the running experiment at once, then hands the signal on to the server.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGINT)


def on_termination(begin_shutdown: Callable[[], None]) -> Callable[[], None]:
    """Call `begin_shutdown` on the running loop as soon as SIGTERM or SIGINT arrives, then the
    handler installed before (the server's own, which drains connections and runs the lifespan
    shutdown). Returns the function that puts the previous handlers back.

    Signals can only be handled on the main thread: elsewhere (a test client runs the app in a
    thread of its own) nothing is installed, and the lifespan shutdown does the same work."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    previous: dict[int, Any] = {sig: signal.getsignal(sig) for sig in SIGNALS}

    def handle(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(begin_shutdown)
        chained = previous[sig]
        if callable(chained):
            chained(sig, frame)
        elif chained == signal.SIG_DFL:
            # No server handler before ours: do what the signal would have done.
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    for sig in SIGNALS:
        signal.signal(sig, handle)

    def restore() -> None:
        for sig, handler in previous.items():
            if signal.getsignal(sig) is handle:
                signal.signal(sig, handler)

    return restore
