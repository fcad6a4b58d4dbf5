"""Entry point of the TraceTax Python demo service.

1. Validate the environment (config.py; no OTel import). Bad input: one line on stderr, exit 2.
2. `simple`/`batch`: import otel.py (only then is any OpenTelemetry module loaded), build the SDK,
   wrap the app in the ASGI middleware. `none`: nothing of OTel is imported.
3. Serve with uvicorn (one worker, in this process) until SIGTERM/SIGINT; uvicorn stops accepting
   and finishes in-flight requests (at most GRACEFUL_S), then the OTel shutdown flushes spans,
   logs and metrics (at most OTEL_SHUTDOWN_S), and the process exits 0.

TRACETAX_WORKERS=N > 1: workers.py binds the port and forks N worker processes, each of which runs
steps 2-3 (`serve`) on that socket with an SDK of its own; see workers.py.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING

import uvicorn

import config
import handler

if TYPE_CHECKING:
    from workers import Slot

GRACEFUL_S = 3.0
OTEL_SHUTDOWN_S = 6.0


def main() -> int:
    cfg = config.load_or_exit()
    if cfg.workers > 1:
        import workers

        return workers.supervise(cfg, serve)
    return serve(cfg)


def serve(cfg: config.Config, worker: Slot | None = None) -> int:
    """Build the app (and the SDK), serve until SIGTERM/SIGINT, shut down; return the exit code.
    `worker`: this is one of the TRACETAX_WORKERS processes, serving the supervisor's socket."""
    threading.current_thread().name = "MainThread(uvicorn-requests)"

    shutdown = None
    if cfg.processor == "none":
        app = handler.build_app(handler.NoTelemetry(), cfg.processor, cfg.inject_busy_us)
    else:
        import otel  # the only place OpenTelemetry gets loaded

        shutdown = otel.setup_otel_sdk(cfg.processor, cfg.signals, None if worker is None else worker.index)
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

    def on_signal(signum: int, _frame: object) -> None:
        received.append(signum)
        if worker is not None:
            # A worker's stop signal may come before uvicorn has taken the signals over (they are
            # held back from the fork until just below): the server then stops once it has started.
            server.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)

    # Each process serving requests (every worker, when there are several) burns on its own.
    background = handler.burn_in_background(cfg.inject_background_us, cfg.inject_background_period_ms)
    if worker is None:
        print(
            f"{config.DEFAULT_SERVICE_NAME}: listening on 0.0.0.0:{cfg.port} processor={cfg.processor}"
            f" inject_busy_us={cfg.inject_busy_us} inject_background_us={cfg.inject_background_us}"
            f" every {cfg.inject_background_period_ms} ms",
            flush=True,
        )
        server.run()
    else:
        worker.unblock_signals()
        server.run(sockets=[worker.sock])
    if background is not None:
        background.set()
    if not server.started:
        # e.g. the port is taken: uvicorn has already logged why.
        return 1

    who = config.DEFAULT_SERVICE_NAME if worker is None else f"{config.DEFAULT_SERVICE_NAME}: worker {worker.index}"

    if shutdown is not None:
        try:
            shutdown(OTEL_SHUTDOWN_S)
        except ExceptionGroup as group:
            for err in group.exceptions:
                print(f"{who}: {err}", file=sys.stderr)
            sys.stderr.flush()
            sys.stdout.flush()
            # An export may still be stuck in a daemon thread (and grpc keeps its own threads):
            # leave now rather than wait for them in the interpreter's exit.
            os._exit(0)
    print(f"{who}: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
