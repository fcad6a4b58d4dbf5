"""Entry point of the TraceTax Python demo service.

1. Validate the environment (config.py; no OTel import). Bad input: one line on stderr, exit 2.
2. `simple`/`batch`: import otel.py (only then is any OpenTelemetry module loaded), build the SDK,
   wrap the app in the ASGI middleware. `none`: nothing of OTel is imported.
3. Serve with uvicorn (one worker, in this process) until SIGTERM/SIGINT; uvicorn stops accepting
   and finishes in-flight requests (at most GRACEFUL_S), then the OTel shutdown flushes spans,
   logs and metrics (at most OTEL_SHUTDOWN_S), and the process exits 0.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

import uvicorn

import config
import handler

GRACEFUL_S = 3.0
OTEL_SHUTDOWN_S = 6.0


def main() -> int:
    cfg = config.load_or_exit()
    threading.current_thread().name = "MainThread(uvicorn-requests)"

    shutdown = None
    if cfg.processor == "none":
        app = handler.build_app(handler.NoTelemetry(), cfg.processor, cfg.inject_busy_us)
    else:
        import otel  # the only place OpenTelemetry gets loaded

        shutdown = otel.setup_otel_sdk(cfg.processor, cfg.signals)
        app = otel.instrument_app(handler.build_app(otel.OTelTelemetry(), cfg.processor, cfg.inject_busy_us))

    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="0.0.0.0",
            port=cfg.port,
            workers=1,
            lifespan="off",
            access_log=False,
            log_level="warning",
            timeout_graceful_shutdown=int(GRACEFUL_S),
        )
    )
    # uvicorn catches SIGINT/SIGTERM while serving, shuts down gracefully, restores the handlers
    # that were installed before and re-raises the signal. Install no-op handlers so that re-raise
    # lands here instead of killing the process before the OTel flush.
    received: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, _frame: received.append(signum))

    print(
        f"{config.DEFAULT_SERVICE_NAME}: listening on 0.0.0.0:{cfg.port} processor={cfg.processor}"
        f" inject_busy_us={cfg.inject_busy_us}",
        flush=True,
    )
    server.run()
    if not server.started:
        # e.g. the port is taken: uvicorn has already logged why.
        return 1

    if shutdown is not None:
        try:
            shutdown(OTEL_SHUTDOWN_S)
        except ExceptionGroup as group:
            for err in group.exceptions:
                print(f"{config.DEFAULT_SERVICE_NAME}: {err}", file=sys.stderr)
            sys.stderr.flush()
            sys.stdout.flush()
            # An export may still be stuck in a daemon thread (and grpc keeps its own threads):
            # leave now rather than wait for them in the interpreter's exit.
            os._exit(0)
    print(f"{config.DEFAULT_SERVICE_NAME}: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
