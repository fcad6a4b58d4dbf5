"""Put on PYTHONPATH by TraceTax's zero-code Python launch (backend/tracetax/demos/zero_code.py).

opentelemetry-instrument's providers shut down at exit in the reverse order they were set up:
the MeterProvider's final export runs before the TracerProvider flushes its last batch, so the
SDK's own processed-spans counter, which the ledger reads as "expected", misses that batch (seen:
333 counted, 361 stored). This hook, an `opentelemetry_post_instrument` entry point, registers
one exit handler after theirs, so it runs first: flush the spans and log records, then the
metrics, then let the providers shut down as they always do. It runs only at exit, after every
measured phase, and changes nothing else.
"""

from __future__ import annotations

import atexit

FLUSH_TIMEOUT_MS = 5000


def register() -> None:
    atexit.register(flush_in_order)


def flush_in_order() -> None:
    from opentelemetry import _logs, metrics, trace

    for provider in (trace.get_tracer_provider(), _logs.get_logger_provider(), metrics.get_meter_provider()):
        flush = getattr(provider, "force_flush", None)
        if flush is not None:
            try:
                flush(FLUSH_TIMEOUT_MS)
            except Exception:  # noqa: BLE001 - at exit, a failed flush must not hide the others
                pass
