"""`tracetax cost`: what a finished experiment's configurations cost at your traffic, through
a running TraceTax's API (the same figures as GET /api/v1/experiments/{id}/cost).

Exit codes: 0 printed, 2 error (bad input, TraceTax unreachable, unknown experiment).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from tracetax.cli.api import ApiAnswerError, answer, api_client
from tracetax.cli.check import EXIT_ERROR

console = Console()
COMPONENT_LABELS = {
    "service_cores": "service cores",
    "collector_cores": "Collector cores",
    "network": "network",
    "traces_store": "trace store",
    "logs_store": "log store",
    "metrics_store": "metrics store",
}


def _interval(figure: dict[str, Any], fmt: str) -> str:
    """`estimate (low to high)`, or unknown; the unit is in the row's label."""
    estimate = figure.get("estimate")
    if estimate is None:
        return "unknown"
    text = fmt.format(estimate)
    if figure.get("low") is not None and figure.get("high") is not None:
        text += f" ({fmt.format(figure['low'])} to {fmt.format(figure['high'])})"
    return text


def _by_configuration(title: str, report: dict[str, Any], rows: list[tuple[str, Any]]) -> Table:
    """One column per configuration, one row per figure: narrow enough for a terminal."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for configuration in report["configurations"]:
        name = configuration["configuration"]
        table.add_column(f"{name} (baseline)" if configuration["baseline"] else name, justify="right")
    for label, cell in rows:
        table.add_row(label, *(cell(configuration) for configuration in report["configurations"]))
    return table


def _signal(configuration: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in configuration["signals"] if s["signal"] == name)


def _component(configuration: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in configuration["components"] if c["component"] == name)


def volume_table(report: dict[str, Any]) -> Table:
    figures = {"B/request": "bytes_per_request", "B/item": "bytes_per_item", "B/item stored": "store_bytes_per_item"}
    rows: list[tuple[str, Any]] = [
        (f"{signal} {label}", lambda c, s=signal, f=key: _interval(_signal(c, s)[f], "{:,.0f}"))
        for signal in ("traces", "logs", "metrics")
        for label, key in figures.items()
    ]
    return _by_configuration(
        "Telemetry volume: OTLP bytes sent to the Collector, and what each store ingested per span, line or "
        "sample (mean over rounds, 95% interval)",
        report,
        rows,
    )


def cost_table(report: dict[str, Any]) -> Table:
    rate = report["inputs"]["requests_per_s"]
    rows: list[tuple[str, Any]] = []
    for name, label in COMPONENT_LABELS.items():
        unit = "cores" if name.endswith("cores") else "GB/day"
        digits = "{:,.3f}" if unit == "cores" else "{:,.2f}"
        rows.append((f"{label} ({unit})", lambda c, n=name, d=digits: _interval(_component(c, n)["quantity"], d)))
        rows.append(("  $/month", lambda c, n=name: _interval(_component(c, n)["usd_per_month"], "{:,.2f}")))
    rows.append(("total $/month", lambda c: _interval(c["usd_per_month"], "{:,.2f}")))
    rows.append((f"vs {report['baseline']}, $/month", lambda c: _interval(c["usd_per_month_vs_baseline"], "{:+,.2f}")))
    return _by_configuration(f"Cost at {rate:,.0f} req/s (mean over rounds, 95% interval)", report, rows)


def _params(rate: float | None, settings: list[str], pipeline: str | None, variant: str | None) -> dict[str, Any]:
    from tracetax.diagnostics.cost import CostInputs  # the cost model's statistics: only with --set

    params: dict[str, Any] = {}
    for item in settings:
        name, sep, value = item.partition("=")
        if not sep or name not in CostInputs.model_fields:
            known = ", ".join(CostInputs.model_fields)
            raise typer.BadParameter(f"{item!r}: expected NAME=VALUE with NAME one of {known}", param_hint="--set")
        params[name] = value
    if rate is not None:
        params["requests_per_s"] = rate
    if pipeline is not None:
        params["pipeline_experiment"] = pipeline
    if variant is not None:
        params["pipeline_variant"] = variant
    return params


def register(app: typer.Typer) -> None:
    @app.command("cost")
    def cost(
        experiment_id: Annotated[str, typer.Argument(help="A finished service experiment.")],
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
        rate: Annotated[float | None, typer.Option(help="Your request rate, req/s (default 100).")] = None,
        settings: Annotated[
            list[str],
            typer.Option("--set", help="Another input, NAME=VALUE (e.g. vcpu_hour_usd=0.04, retention_days=14)."),
        ] = [],  # noqa: B006
        pipeline: Annotated[
            str | None, typer.Option(help="A Collector pipeline experiment sizing the Collector.")
        ] = None,
        variant: Annotated[str | None, typer.Option(help="That experiment's variant (default: its baseline).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the API's answer as JSON.")] = False,
    ) -> None:
        """Cores, GB/day per signal and $/month per configuration at your traffic."""
        params = _params(rate, settings, pipeline, variant)
        with api_client(api, timeout=60) as http:
            try:
                report = answer(http.get(f"/api/v1/experiments/{experiment_id}/cost", params=params))
            except httpx.HTTPError as error:
                typer.echo(f"tracetax cost: cannot reach TraceTax at {api}: {error}", err=True)
                raise typer.Exit(EXIT_ERROR) from None
            except ApiAnswerError as error:
                typer.echo(f"tracetax cost: {error}", err=True)
                raise typer.Exit(EXIT_ERROR) from None
        if as_json:
            typer.echo(json.dumps(report, indent=2))
            return
        console.print(volume_table(report))
        console.print(cost_table(report))
        console.print(f"Collector: {report['collector']['source']}")
        if report.get("recommended"):
            console.print(f"Recommended: {report['recommended']['summary']}")
        if report.get("note"):
            console.print(f"Note: {report['note']}")
        console.print("Inputs (edit with --rate / --set):")
        for name, value in report["inputs"].items():
            source = report["sources"].get(name, "")
            console.print(f"  {name} = {value}" + (f"  [{source}]" if source else ""))
