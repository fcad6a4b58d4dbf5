"""`tracetax calibrate`: an A/A experiment through a running TraceTax's API that reports the
noise floor per metric for this machine, service and load, and stores it for checks.

Exit codes: 0 done, 2 error (bad input, TraceTax unreachable, the experiment failed).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import httpx
import typer

from tracetax.app.check_commands import configuration_of
from tracetax.cli.api import ApiAnswerError, answer, api_client
from tracetax.cli.check import EXIT_ERROR


def _floor_lines(floors: dict[str, Any], rounds: int) -> list[str]:
    from tracetax.diagnostics.overhead import format_value  # the statistics: only once there is a floor

    lines = [f"  {'metric':<16} {'noise floor (95%)':>20} {'in its unit':>14}   at {rounds} rounds"]
    for floor in floors.values():
        relative, absolute = floor.get("relative_pct"), floor.get("absolute")
        rel = f"±{relative:.1f}%" if relative is not None else "unknown"
        abs_text = f"±{format_value(absolute, floor['unit'])}" if absolute is not None else "-"
        lines.append(
            f"  {floor['label']:<16} {rel:>20} {abs_text:>14}" + (f"   ({floor['note']})" if floor.get("note") else "")
        )
    return lines


def _await_floor(http: httpx.Client, calibration_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status = answer(http.get(f"/api/v1/calibrations/{calibration_id}"))
        if status.get("noise_floor") is not None or status.get("error"):
            return status
        if time.monotonic() > deadline:
            typer.echo(f"tracetax calibrate: not finished after {timeout:.0f} s", err=True)
            raise typer.Exit(EXIT_ERROR)
        time.sleep(2)


def register(app: typer.Typer) -> None:
    @app.command("calibrate")
    def calibrate(
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
        service: Annotated[str, typer.Option(help="Demo service language, e.g. go.")] = "go",
        configuration: Annotated[str, typer.Option(help="Preset or processor measured twice.")] = "none",
        rate: Annotated[float, typer.Option(help="Open-model rate, req/s.")] = 300,
        duration: Annotated[float, typer.Option(help="Measured seconds per round.")] = 10,
        rounds: Annotated[int, typer.Option(help="Interleaved rounds (at least 2).")] = 5,
        iters: Annotated[int, typer.Option(help="CPU work per request.")] = 1000,
        spans: Annotated[int, typer.Option(help="Spans per request.")] = 5,
        side_by_side_instances: Annotated[
            int,
            typer.Option(
                min=1,
                max=4,
                help="Live instances of each configuration in the side-by-side phase, pooled (a check matches "
                "a calibration with the same number).",
            ),
        ] = 1,
        timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 3600,
    ) -> None:
        """Measure this machine's noise floor with an A/A experiment; checks with the same
        service, baseline and load then refuse budgets tighter than it."""
        body = {
            "service": {"kind": "demo", "language": service},
            "configuration": configuration_of(configuration, []),
            "load": {
                "rate": rate,
                "duration_s": duration,
                "max_throughput_s": 0,
                "side_by_side_instances": side_by_side_instances,
                "query": {"iters": iters, "spans": spans},
            },
            "rounds": rounds,
        }
        with api_client(api, timeout=30) as http:
            try:
                created = answer(http.post("/api/v1/calibrations", json=body), expected=202)
                calibration_id = created["id"]
                typer.echo(f"calibration {calibration_id}: queued (about {created['estimated_seconds']:.0f} s)")
                status = _await_floor(http, calibration_id, timeout)
            except httpx.HTTPError as error:
                typer.echo(f"tracetax calibrate: cannot reach TraceTax at {api}: {error}", err=True)
                raise typer.Exit(EXIT_ERROR) from None
            except ApiAnswerError as error:
                typer.echo(f"tracetax calibrate: refused ({error})", err=True)
                raise typer.Exit(EXIT_ERROR) from None
        if status.get("error"):
            typer.echo(f"tracetax calibrate: {status['error']}", err=True)
            raise typer.Exit(EXIT_ERROR)
        typer.echo("\n".join(_floor_lines(status["noise_floor"], rounds)))
        typer.echo(f"calibration {calibration_id}: stored; checks on {service} with this baseline and load use it")
