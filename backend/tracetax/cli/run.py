"""`tracetax run` and `tracetax services`: the engine from the terminal, on the same code and
database as the API."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from tracetax.cli.provenance import (
    BranchOption,
    CiRunUrlOption,
    CommitOption,
    ProvenanceFlags,
    PullRequestOption,
    RepositoryOption,
)
from tracetax.demos.catalog import demo_services
from tracetax.spec.base import SpecError, SubjectSpec
from tracetax.spec.provenance import Provenance

if TYPE_CHECKING:
    from tracetax.engine.progress import Progress as ProgressEvent

console = Console()


def run(spec_path: Path, flags: ProvenanceFlags | None = None) -> int:
    """Run a spec to its end in this process; returns the exit code. Its provenance: the
    spec's own, under `flags`, over what the CI's environment gives."""
    # The engine, the database and the statistics load here, not with the command line: every
    # other command (`tracetax check` in a CI job above all) starts without their 4 s of imports.
    from tracetax.app.runtime import EngineRuntime
    from tracetax.app.submission import UnknownServiceError, admit_experiment, store_experiment
    from tracetax.core.config import get_settings
    from tracetax.db import repository as repo
    from tracetax.diagnostics.rounds import stack_down_rounds
    from tracetax.subjects.registry import subject_for
    from tracetax.subjects.tables import format_us
    from tracetax.subjects.union import load_spec_file
    from tracetax.system.processes import reap_leftovers

    try:
        spec = with_provenance(load_spec_file(spec_path), flags or ProvenanceFlags())
        # The API's admission: whatever the API refuses, `tracetax run` refuses too.
        admit_experiment(spec, demo_services(), get_settings())
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
            details.append(f"p99 {format_us(event.current_p99_us)}")
        bar.update(task, completed=event.slot, description=" · ".join(d for d in details if d))

    runtime = EngineRuntime.create(get_settings(), publish=on_progress)
    experiment = store_experiment(runtime, spec)
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
        experiment_error = stored.error
        stack_down = stack_down_rounds([r for r in stored.rounds if r.status == "completed"])
        names = [c.name for c in spec.configurations if c.name in by_name]
        finished = subject_for(spec).presentation.cli_report(session, stored, spec, [by_name[name] for name in names])
    runtime.dispose()
    for table in finished.tables:
        console.print(table)
    for warning in finished.warnings:
        console.print(f"[yellow]{warning}")
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


def with_provenance(spec: SubjectSpec, flags: ProvenanceFlags) -> SubjectSpec:
    """The spec with its provenance resolved (raises typer.BadParameter naming a bad flag)."""
    given = spec.provenance.model_dump(exclude_none=True) if spec.provenance is not None else None
    resolved = flags.resolve(given)
    return spec.model_copy(update={"provenance": Provenance.model_validate(resolved) if resolved else None})


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
        repository: RepositoryOption = None,
        branch: BranchOption = None,
        commit: CommitOption = None,
        pull_request: PullRequestOption = None,
        ci_run_url: CiRunUrlOption = None,
    ) -> None:
        """Run an experiment spec with a live progress bar; ends with the results table."""
        raise typer.Exit(run(spec, ProvenanceFlags(repository, branch, commit, pull_request, ci_run_url)))

    @app.command("services")
    def services_command() -> None:
        """List what can be measured: demo services and their OpenTelemetry modes."""
        services()
