"""The `tracetax` command line."""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import threading
import time
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

import typer

from tracetax.cli.calibrate import register as register_calibrate_command
from tracetax.cli.check import register as register_check_command
from tracetax.cli.cost import register as register_cost_command
from tracetax.cli.flame_diff import register as register_flame_diff_command
from tracetax.cli.history import register as register_history_command
from tracetax.cli.run import register as register_run_commands
from tracetax.cli.tune import register as register_tune_command
from tracetax.clients.health import Backends, check_components
from tracetax.core.api_token import ApiToken, TokenFileError, read_or_create_token_file
from tracetax.core.config import Settings, get_settings
from tracetax.demos.catalog import CatalogError
from tracetax.native_stack.build import BuildError
from tracetax.native_stack.native import NativeStack
from tracetax.native_stack.supervisor import StackError, format_table

app = typer.Typer(help="TraceTax: what OpenTelemetry costs a service.", no_args_is_help=True)
stack_app = typer.Typer(help="The native stack: Collector, Tempo, Loki, Mimir and the backend.")
app.add_typer(stack_app, name="stack")
register_run_commands(app)
register_check_command(app)
register_calibrate_command(app)
register_cost_command(app)
register_tune_command(app)
register_history_command(app)
register_flame_diff_command(app)

StateOption = Annotated[
    Path | None,
    typer.Option("--state-dir", envvar="TRACETAX_STATE_DIR", help="Pid files, logs and data of the stack."),
]


# Listen addresses that name no host a browser can open: the link names this machine instead.
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})  # noqa: S104 (compared against, never bound)


def login_link(settings: Settings, host: str, port: int) -> str | None:
    """The UI's URL with the generated token, a link that logs in (the notebook servers' way;
    `docker compose logs backend` shows it). None when an operator set TRACETAX_API_TOKEN: a
    token someone chose is theirs to hand out, never printed. Generates the token file when
    there is none yet, as the app would: both read the same file."""
    api_token = ApiToken(settings)
    if api_token.file is None:
        return None
    token = read_or_create_token_file(api_token.file)
    shown = "localhost" if host in WILDCARD_ADDRESSES else host
    if ":" in shown:  # an IPv6 address goes in brackets in a URL
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/?token={quote(token, safe='')}"


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Listen address (default: settings).")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port (default: settings, 8000).")] = None,
) -> None:
    """Run the API and UI in the foreground."""
    import uvicorn

    # The app reads its settings again (uvicorn's factory): what it decides from the listen
    # address (command services only on loopback, TRACETAX_COMMAND_SERVICES=auto) must see
    # the address given here.
    for variable, value in (("TRACETAX_HOST", host), ("TRACETAX_PORT", port)):
        if value is not None:
            os.environ[variable] = str(value)
    get_settings.cache_clear()
    settings = get_settings()
    bound_host, bound_port = host or settings.host, port or settings.port
    try:
        link = login_link(settings, bound_host, bound_port)
    except TokenFileError as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(1) from None
    if link is not None:
        typer.echo(f"TraceTax: {link}")
    uvicorn.run(
        "tracetax.main:create_app",
        factory=True,
        host=bound_host,
        port=bound_port,
        # Open connections get this long on SIGTERM; event streams end at once (tracetax.api.shutdown).
        timeout_graceful_shutdown=math.ceil(settings.shutdown_grace_s),
    )


@app.command()
def health(as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False) -> None:
    """Probe every component now; exit 1 when any is not ready."""

    async def probe() -> str:
        settings = get_settings()
        backends = Backends(settings)
        try:
            report = await check_components(backends, settings)
        finally:
            await backends.aclose()
        if as_json:
            return report.model_dump_json(indent=2)
        lines = [
            f"{c.name:<12} {'ready' if c.ready else 'NOT READY':<10} {c.version or '-':<22} {c.url}  {c.detail}"
            for c in report.components
        ]
        return "\n".join(lines) + f"\nstatus: {report.status}"

    output = asyncio.run(probe())
    typer.echo(output)
    ok = (json.loads(output)["status"] if as_json else output.rsplit(" ", 1)[-1]) == "ok"
    raise typer.Exit(0 if ok else 1)


@stack_app.command("up")
def stack_up(state_dir: StateOption = None) -> None:
    """Build what is missing, start every component and wait until each is ready."""
    stack = NativeStack(state_dir)
    try:
        statuses = stack.up()
    except (StackError, BuildError) as error:
        typer.echo(f"\nmake up failed:\n{error}", err=True)
        typer.echo("Everything this command started has been stopped again.", err=True)
        raise typer.Exit(1) from None
    typer.echo(format_table(statuses))
    typer.echo(f"\nUI and API: {stack.ui_link()}   (the link logs in; stop with `make down`)")


@stack_app.command("down")
def stack_down(state_dir: StateOption = None) -> None:
    """Stop every component; data stays in the state directory."""
    NativeStack(state_dir).down()
    typer.echo("stack stopped")


@stack_app.command("clean")
def stack_clean(state_dir: StateOption = None) -> None:
    """Stop everything and delete the state directory with all data."""
    stack = NativeStack(state_dir)
    stack.clean()
    typer.echo(f"stack stopped; removed {stack.state}")


@stack_app.command("status")
def stack_status(state_dir: StateOption = None) -> None:
    """Show whether each component runs and is ready; exit 1 when any is not."""
    stack = NativeStack(state_dir)
    statuses = stack.status()
    typer.echo(format_table(statuses))
    typer.echo(stack.supervisor.watcher_line())
    link = stack.ui_link()
    if link and all(s.ready for s in statuses):
        typer.echo(f"\nUI (this link logs in): {link}")
    raise typer.Exit(0 if all(s.ready for s in statuses) else 1)


@stack_app.command("watch", hidden=True)
def stack_watch(state_dir: StateOption = None) -> None:
    """Start again a component that exits, with backoff, until SIGTERM (`stack up` starts
    this in the background, `stack down` stops it first)."""

    def report(line: str) -> None:
        typer.echo(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}")  # its log; echo flushes

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        # Only a flag: a start under way finishes and writes its pid file, so `down` finds it.
        signal.signal(signum, lambda *_: stop.set())
    stack = NativeStack(state_dir, report=report)
    report(f"watching {', '.join(c.name for c in stack.components)} (state: {stack.state})")
    stack.supervisor.keep_up(stop)
    report("stopped")


@stack_app.command("build")
def stack_build(force: Annotated[bool, typer.Option(help="Rebuild even if cached.")] = False) -> None:
    """Build the Collector, Tempo, Loki and Mimir (and telemetrygen) into the tool cache."""
    try:
        NativeStack().build(force=force)
    except BuildError as error:
        typer.echo(f"build failed: {error}", err=True)
        raise typer.Exit(1) from None


def main() -> None:
    """Entry point: configuration errors end in one readable line, not a traceback."""
    try:
        app()
    except CatalogError as error:
        typer.echo(f"tracetax: {error}", err=True)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
