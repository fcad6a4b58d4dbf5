"""`tracetax tune SPEC`: start a tuning run on a running TraceTax (POST /api/v1/tunings), follow
its progress and print its report: the trade-off, the recommended setting as blocks to paste,
and the confirmation against the SDK defaults (docs/tuning.md). Every measurement is an
ordinary experiment, kept whatever happens to the run.

Exit codes: 0 a setting was recommended, 1 no setting met the budgets (which one is out of
reach is printed), 2 error (bad spec, TraceTax unreachable, an experiment that failed).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
import yaml
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from tracetax.cli.api import ApiAnswerError, answer, api_client
from tracetax.cli.check import EXIT_ERROR
from tracetax.tuning.spec import TuningSpec

console = Console()
FINAL = ("completed", "failed", "cancelled")


def _load(path: Path) -> TuningSpec:
    try:
        return TuningSpec.model_validate(yaml.safe_load(path.read_text()))
    except (OSError, yaml.YAMLError) as error:
        raise typer.BadParameter(f"cannot read {path}: {error}") from None
    except ValidationError as error:
        lines = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors(include_url=False))
        raise typer.BadParameter(lines) from None


def register(app: typer.Typer) -> None:
    @app.command("tune")
    def tune_command(
        spec: Annotated[
            Path, typer.Argument(help="The tuning spec (YAML or JSON): service, load, budgets, wall_time_s.")
        ],
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Search OTEL_BSP_* within a wall-time budget and confirm the winner against the SDK defaults."""
        tuning = _load(spec)
        with api_client(api, timeout=60) as http:
            try:
                created = answer(http.post("/api/v1/tunings", json=tuning.model_dump(mode="json")), expected=202)
                detail = _follow(http, str(created["id"]), tuning.wall_time_s * 2)
            except httpx.HTTPError as error:
                typer.echo(f"tracetax tune: cannot reach TraceTax at {api}: {error}", err=True)
                raise typer.Exit(EXIT_ERROR) from None
            except ApiAnswerError as error:
                typer.echo(f"tracetax tune: {error}", err=True)
                raise typer.Exit(EXIT_ERROR) from None
        if detail["status"] != "completed" or detail["report"] is None:
            typer.echo(f"tracetax tune: tuning {detail['id']} {detail['status']}: {detail.get('error')}", err=True)
            typer.echo(f"its experiments: {', '.join(detail['experiment_ids']) or 'none'}", err=True)
            raise typer.Exit(EXIT_ERROR)
        if as_json:
            typer.echo(json.dumps(detail, indent=2))
        else:
            _print(detail["id"], detail["report"])
        raise typer.Exit(0 if detail["report"]["recommended_env"] else 1)


def _follow(http: httpx.Client, tuning_id: str, timeout_s: float) -> dict[str, Any]:
    """Poll the run, printing each new progress line, until it ends."""
    deadline, said = time.monotonic() + timeout_s, None
    while True:
        detail = answer(http.get(f"/api/v1/tunings/{tuning_id}"))
        if detail["progress"] and detail["progress"] != said:
            said = detail["progress"]
            typer.echo(f"tuning {tuning_id[:8]}: {said}", err=True)
        if detail["status"] in FINAL:
            return detail
        if time.monotonic() > deadline:
            raise ApiAnswerError(0, f"tuning {tuning_id} did not finish within {timeout_s:.0f} s")
        time.sleep(2)


def tradeoff_table(report: dict[str, Any]) -> Table:
    on_front = {o["name"] for o in report["front"]}
    table = Table(title="Candidates (last rung each reached; * on the Pareto front)", title_justify="left")
    for column in ("setting", "p99 overhead", "CPU overhead", "spans kept", "lost in SDK", "RSS"):
        table.add_column(column, justify="left" if column == "setting" else "right")
    latest = {o["name"]: o for rung in report["rungs"] for o in rung["outcomes"]}
    for o in latest.values():
        table.add_row(
            ("* " if o["name"] in on_front else "  ") + o["name"],
            _pct(o["p99_overhead_pct"]),
            _pct(o["cpu_overhead_pct"]),
            "unknown" if o["kept"] is None else f"{o['kept']:.1%}",
            "unknown" if o["lost_spans"] is None else f"{o['lost_spans']:g}",
            f"{o['rss_mib']:.0f} MiB" if o["rss_mib"] else "unknown",
        )
    return table


def _pct(value: float | None) -> str:
    return "unknown" if value is None else f"{value:+.1f}%"


def _print(tuning_id: str, report: dict[str, Any]) -> None:
    measured = report["measured"]
    console.print(
        f"Tuning {tuning_id}. Measured: {measured['mean_spans_per_s']:,.0f} spans/s "
        f"(peak {measured['peak_spans_per_s']:,.0f}), one export "
        + (
            "not measured (the SDK reports no export time)"
            if measured["export_p99_ms"] is None
            else f"{measured['export_p99_ms']:.1f} ms"
        )
        + (
            "; log records unknown or none (OTEL_BLRP_* left at its defaults)"
            if measured.get("mean_logs_per_s") is None
            else f"; {measured['mean_logs_per_s']:,.0f} log records/s (peak {measured['peak_logs_per_s']:,.0f})"
        )
    )
    console.print(tradeoff_table(report))
    console.print("Experiments: " + ", ".join(rung["experiment_id"] for rung in report["rungs"]))
    choice = report["choice"] or {}
    if not report["paste"]:
        console.print("No setting met the budgets:")
        for budget, why in (choice.get("out_of_reach") or {}).items():
            console.print(f"  {budget}: {why}")
        if choice.get("closest"):
            console.print(f"Closest: {choice['closest']['name']}")
        return
    console.print(f"Recommended: {choice['recommended']['name']}")
    console.print(f"Confirmation {report['confirmation_id']}: {report['verdict']}")
    for kind, block in report["paste"].items():
        console.print(f"--- {kind} ---")
        console.print(block.rstrip(), markup=False, highlight=False)
