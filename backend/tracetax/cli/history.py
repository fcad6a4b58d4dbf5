"""`tracetax history`: a configuration's overhead per commit and its change points, from a
running TraceTax's API (GET /api/v1/history).

Exit codes: 0 printed, 2 error (bad input, TraceTax unreachable, no such history).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, cast

import httpx
import typer

from tracetax.cli.api import ApiAnswerError, answer, api_client
from tracetax.history.metrics import HistoryUnit, format_level

EXIT_ERROR = 2


def _error(message: str) -> typer.Exit:
    typer.echo(f"tracetax history: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def _value(value: float | None, unit: str) -> str:
    return "unknown" if value is None else format_level(value, cast("HistoryUnit", unit))


def _interval(point: dict[str, Any], unit: str) -> str:
    if point.get("low") is None or point.get("high") is None:
        return ""
    return f"[{_value(point['low'], unit)}, {_value(point['high'], unit)}]"


def series_lines(series: dict[str, Any]) -> list[str]:
    """The series as text: one line per check (commit, date, estimate [low, high], verdict),
    then its change points."""
    unit = series["unit"]
    scope = f" on {series['branch']}" if series.get("branch") else ""
    lines = [f"{series['service']} {series['configuration']} {series['metric']}{scope}: {len(series['points'])} checks"]
    if series.get("budget") is not None:
        lines.append(f"  budget {_value(series['budget'], unit)}")
    for point in series["points"]:
        commit = (point.get("commit") or point["check_id"])[:12]
        date = str(point["created_at"])[:19].replace("T", " ")
        estimate = _value(point.get("estimate"), unit)
        lines.append(f"  {commit:<12} {date}  {estimate:>10} {_interval(point, unit):<24} {point.get('verdict') or ''}")
    changes = series.get("change_points") or []
    if not changes:
        lines.append("no change points")
    for change in changes:
        commit = change.get("commit") or change["check_id"]
        small = "" if change.get("material", True) else f" (too small to matter: under {series['material_pct']:g}%)"
        lines.append(
            f"change point at {commit[:12]} (check {change['index'] + 1}): "
            f"{_value(change['before'], unit)} -> {_value(change['after'], unit)}, shift "
            f"{_value(change['shift'], unit)} [{_value(change['low'], unit)}, {_value(change['high'], unit)}]{small}"
        )
    if series.get("note"):
        lines.append(f"note: {series['note']}")
    return lines


def register(app: typer.Typer) -> None:
    @app.command("history")
    def history(
        service: Annotated[str, typer.Option(help="A demo's language (go) or a command service's service_name.")],
        configuration: Annotated[str, typer.Option(help="The candidate configuration's name (batch-default).")],
        metric: Annotated[
            str,
            typer.Option(help="p50, p99, cpu_per_request_us, bytes_per_request, usd_per_month (or a pipeline's)."),
        ] = "cpu_per_request_us",
        branch: Annotated[str | None, typer.Option(help="Only the checks of this branch.")] = None,
        machine: Annotated[str | None, typer.Option(help="Only the checks run on this machine fingerprint.")] = None,
        limit: Annotated[int, typer.Option(help="The newest N checks.")] = 100,
        min_shift_pct: Annotated[
            float | None,
            typer.Option(
                help="A change point smaller than this (points of %, or % of the level before it) is too small to "
                "matter; default: the metric's own."
            ),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the API's answer as JSON.")] = False,
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
    ) -> None:
        """A configuration's overhead per commit (estimate and 95% interval) and its change points."""
        params: dict[str, Any] = {"service": service, "configuration": configuration, "metric": metric, "limit": limit}
        optional = (("branch", branch), ("machine", machine), ("min_shift_pct", min_shift_pct))
        params.update({k: v for k, v in optional if v is not None})
        with api_client(api, timeout=60) as http:
            try:
                series = answer(http.get("/api/v1/history", params=params))
            except httpx.HTTPError as error:
                raise _error(f"cannot reach TraceTax at {api}: {error}") from None
            except ApiAnswerError as error:
                raise _error(str(error)) from None
        if as_json:
            typer.echo(json.dumps(series, indent=2))
            return
        for line in series_lines(series):
            typer.echo(line)
