"""Benchmarks that print figures (make bench-services, make bench-engine)."""

from __future__ import annotations

import signal
from typing import Any


def stop_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into KeyboardInterrupt, so the services and load generators a benchmark
    started are stopped by the code that started them (they run in their own sessions)."""

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
