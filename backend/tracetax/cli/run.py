"""`tracetax run` and `tracetax services`: the engine from the terminal, on the same code and
database as the API."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from tracetax.app.runtime import EngineRuntime
from tracetax.app.submission import UnknownServiceError, validate
from tracetax.cli.pipeline import ledger_table, pipeline_results_table, recommendation_table
from tracetax.core.config import get_settings
from tracetax.db import repository as repo
from tracetax.db.models import Round
from tracetax.demos.catalog import demo_services
from tracetax.diagnostics.overhead import Change, RoundSample, compare
from tracetax.diagnostics.pipeline import build_pipeline
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.diagnostics.rounds import stack_down_rounds
from tracetax.diagnostics.stacks import summarize_configuration
from tracetax.engine.progress import Progress as ProgressEvent
from tracetax.engine.subjects import subject_label
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec, SpecError, load_spec_file
from tracetax.system.processes import reap_leftovers

console = Console()


def _fmt_us(value: Any) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value / 1000:.2f} ms"
    return f"{value} µs" if isinstance(value, int) else f"{value:.1f} µs"


def _fmt(value: Any, unit: str = "", digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def results_table(configurations: list[dict[str, Any]], baseline: str) -> Table:
    table = Table(title="Results (latency: merged HDR histogram over all rounds, coordinated-omission corrected)")
    table.add_column("metric")
    for result in configurations:
        name = result["configuration"]
        table.add_column(f"{name} (baseline)" if name == baseline else name, justify="right")
    rows: list[tuple[str, Any]] = [
        ("rounds completed / failed", lambda r: f"{r['rounds_completed']} / {r['rounds_failed']}"),
        ("requests", lambda r: f"{r['requests']:,}"),
        ("p50", lambda r: _fmt_us(r["latency_us"].get("p50"))),
        ("p90", lambda r: _fmt_us(r["latency_us"].get("p90"))),
        ("p99", lambda r: _fmt_us(r["latency_us"].get("p99"))),
        ("p99.9", lambda r: _fmt_us(r["latency_us"].get("p99.9"))),
        ("p99.99", lambda r: _fmt_us(r["latency_us"].get("p99.99"))),
        ("max", lambda r: _fmt_us(r["latency_us"].get("max"))),
        ("max throughput", lambda r: _fmt(r["max_throughput_rps"], " req/s", 0)),
        ("  limited by", lambda r: ", ".join(r.get("max_throughput_limited_by") or []) or "-"),
        ("CPU per request", lambda r: _fmt(r["cpu_per_request_us"], " µs")),
        (
            "CPU utilization",
            lambda r: _fmt((r["cpu_utilization"] or 0) * 100 if r["cpu_utilization"] is not None else None, " %"),
        ),
        ("RSS (max)", lambda r: _fmt(r["rss_max_bytes"] / 2**20 if r["rss_max_bytes"] else None, " MiB")),
        ("context switches / request", lambda r: _fmt(r["ctx_per_request"], "", 2)),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(result) for result in configurations))
    return table


def thread_groups_table(configurations: list[dict[str, Any]], spec: ExperimentSpec, top: int = 4) -> Table:
    """Each configuration's busiest thread groups: CPU and context switches per request and per
    span (seed 000: the batch worker's rise with the request threads feeding it)."""
    table = Table(title="Threads (median over rounds; a group is a name with its trailing number as *)")
    for column in ("configuration", "concurrency", "thread group", "threads"):
        table.add_column(column)
    for column in ("CPU/request", "CPU/span", "switches/request", "switches/span"):
        table.add_column(column, justify="right")
    for result in configurations:
        name = result["configuration"]
        knobs = spec.configuration(name).concurrency.model_dump(exclude_none=True)
        concurrency = ", ".join(f"{knob} {value}" for knob, value in knobs.items()) or "defaults"
        for group, figures in list((result.get("thread_groups") or {}).items())[:top]:
            table.add_row(
                name,
                concurrency,
                group,
                str(figures["threads"]),
                _fmt_us(figures["cpu_per_request_us"]),
                _fmt_us(figures["cpu_per_span_us"]) if figures["cpu_per_span_us"] is not None else "unknown",
                _fmt(figures["ctx_per_request"], "", 3),
                _fmt(figures["ctx_per_span"], "", 4) if figures["ctx_per_span"] is not None else "unknown",
            )
    return table


def service_changes(samples: dict[str, list[RoundSample]], baseline: str) -> dict[str, dict[str, Change]]:
    return {name: compare(samples.get(baseline, []), rounds) for name, rounds in samples.items() if name != baseline}


def changes_table(changes: dict[str, dict[str, Change]], baseline: str) -> Table:
    """Each configuration's paired change against the baseline, in words (docs/diagnostics.md)."""
    table = Table(title=f"Change against {baseline} (paired by round, 95% intervals, Holm over the metrics)")
    table.add_column("configuration")
    table.add_column("metric")
    table.add_column("change")
    for name, by_metric in changes.items():
        for item in by_metric.values():
            colour = {"worse": "red", "better": "green"}.get(item.direction, "")
            table.add_row(name, item.label, f"[{colour}]{item.summary}[/{colour}]" if colour else item.summary)
    return table


def _share(value: float) -> str:
    return f"{value * 100:.0f}%"


def where_export_table(rounds: list[Round], names: list[str], aggregates: dict[str, dict[str, Any]]) -> Table:
    """Per configuration, where the service's CPU went (stack samples of the measured phases)."""
    table = Table(title="Where export runs (share of the service's CPU samples)")
    for column in ("configuration", "samples", "export: request path", "export: background", "unattributed"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for column in ("other SDK", "application", "export CPU/req"):
        table.add_column(column, justify="right")
    for name in names:
        summary = summarize_configuration(rounds, name, (aggregates.get(name) or {}).get("cpu_per_request_us"), True)
        location = summary.location
        if location is None:
            table.add_row(name, "-", "; ".join(summary.problems) or "no stacks", "", "", "", "", "")
            continue
        table.add_row(
            name,
            str(location.samples),
            _share(location.export_request_path),
            _share(location.export_background),
            _share(location.export_unattributed) + ("" if location.distinguishable else " (cannot tell apart)"),
            _share(location.sdk_other),
            _share(location.application),
            _fmt_us(summary.export_cpu_per_request_us),
        )
    return table


def run(spec_path: Path) -> int:
    """Run a spec to its end in this process; returns the exit code."""
    try:
        spec = load_spec_file(spec_path)
        validate(spec, demo_services(), get_settings())
    except UnknownServiceError as error:
        console.print(f"[red]{error}")
        return 2
    except SpecError as error:
        console.print(f"[red]invalid spec {spec_path}:")
        for item in error.errors:
            console.print(f"  {'.'.join(map(str, item['loc']))}: {item['msg']}")
        return 2

    # What a killed `tracetax run` or backend left running would share the cores: stop it.
    for line in reap_leftovers():
        console.print(f"[yellow]stopped a leftover of an interrupted measurement: {line}")

    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), TimeRemainingColumn(), console=console
    )
    task = bar.add_task("starting", total=len(spec.configurations) * spec.rounds)

    def on_progress(event: ProgressEvent) -> None:
        details = [
            f"round {event.round + 1 if event.round is not None else '-'}/{event.rounds}",
            event.configuration or "",
            event.phase,
        ]
        if event.current_rps is not None:
            details.append(f"{event.current_rps:,.0f} req/s")
        if event.current_p99_us is not None:
            details.append(f"p99 {_fmt_us(event.current_p99_us)}")
        bar.update(task, completed=event.slot, description=" · ".join(d for d in details if d))

    runtime = EngineRuntime.create(get_settings(), publish=on_progress)
    with runtime.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), subject_label(spec), spec.name)
    console.print(
        f"experiment {experiment.id}: {len(spec.configurations)} configurations x {spec.rounds} rounds, "
        f"about {spec.estimated_seconds() / 60:.1f} min"
    )
    cancel, shutdown = threading.Event(), threading.Event()
    # SIGTERM (a CI job timing out, `kill`) cancels like Ctrl-C: the services this run started
    # live in their own sessions and would otherwise outlive it.
    signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    outcome: dict[str, str] = {}
    worker = threading.Thread(
        target=lambda: outcome.update(status=runtime.engine.execute(experiment.id, cancel, shutdown)), daemon=True
    )
    with bar:
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.2)
        except KeyboardInterrupt:
            console.print("cancelling: stopping the service and the load generator...")
            cancel.set()
            worker.join()
        bar.update(task, completed=len(spec.configurations) * spec.rounds)

    with runtime.sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None  # noqa: S101 - we just created it
        by_name = {r.configuration: r.aggregates for r in stored.results}
        failed_rounds = [r for r in stored.rounds if r.status == "failed"]
        rounds = list(stored.rounds)
        experiment_error = stored.error
        stack_down = stack_down_rounds([r for r in stored.rounds if r.status == "completed"])
        if isinstance(spec, PipelineSpec):
            diagnostics = build_pipeline(stored, spec, repo.ledger_readings(session, stored.id))
        else:
            changes = service_changes(samples_by_configuration(stored), spec.baseline.name)
    runtime.dispose()
    names = [c.name for c in spec.configurations if c.name in by_name]
    if isinstance(spec, PipelineSpec):
        console.print(
            pipeline_results_table([by_name[name] for name in names], spec.baseline.name, diagnostics.span_delay)
        )
        console.print(changes_table(diagnostics.overhead, spec.baseline.name))
        console.print(ledger_table(diagnostics.ledger))
        console.print(recommendation_table(diagnostics.recommendation))
        for label, rounds_named in (
            (
                "telemetrygen could not deliver the asked rate (its limit, not the Collector's)",
                diagnostics.saturated_rounds,
            ),
            ("interference on the lab Collector's cores", diagnostics.flagged_rounds),
        ):
            if rounds_named:
                console.print(f"[yellow]{label}: {', '.join(rounds_named)}")
    else:
        console.print(results_table([by_name[name] for name in names], spec.baseline.name))
        console.print(changes_table(changes, spec.baseline.name))
        console.print(thread_groups_table([by_name[name] for name in names], spec))
    if isinstance(spec, ExperimentSpec) and spec.sample_stacks:
        console.print(where_export_table(rounds, names, by_name))
    if stack_down:
        console.print(
            f"[yellow]a component of the stack was down (its ledger stages are unknown): {', '.join(stack_down)}"
        )
    for round_ in failed_rounds:
        console.print(f"[yellow]round {round_.round_index + 1} of {round_.configuration} failed: {round_.error}")
    status = outcome.get("status", "failed")
    if status != "completed" and experiment_error:
        console.print(f"[red]{experiment_error}")
    console.print(f"experiment {experiment.id}: {status}")
    return 0 if status == "completed" else 1


def services() -> None:
    table = Table(title="Demo services")
    for column in ("language", "framework", "modes", "SDK"):
        table.add_column(column)
    for manifest in demo_services().values():
        modes = ", ".join(
            name if spec.available else f"[dim]{name} (unavailable)[/dim]" for name, spec in manifest.modes.items()
        )
        table.add_row(manifest.language, manifest.framework, modes, manifest.sdk_version or "-")
    console.print(table)
    console.print(
        "A service of your own: a spec with service: {kind: command, argv: [...], port: N, health_path: /...}"
    )


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_command(
        spec: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Experiment spec (YAML or JSON).")],
    ) -> None:
        """Run an experiment spec with a live progress bar; ends with the results table."""
        raise typer.Exit(run(spec))

    @app.command("services")
    def services_command() -> None:
        """List what can be measured: demo services and their OpenTelemetry modes."""
        services()
