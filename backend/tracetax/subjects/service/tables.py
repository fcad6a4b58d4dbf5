"""The terminal tables of a service experiment (`tracetax run`): the results, the threads,
where export runs; the service's presentation (the subject's part the CLI asks for them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table
from sqlalchemy.orm import Session

from tracetax.db.models import Experiment, Round
from tracetax.diagnostics.overhead import Change, RoundSample, compare
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.diagnostics.sequential import SequentialDesign, design_of
from tracetax.diagnostics.stacks import summarize_configuration
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.base import CliReport, Presentation
from tracetax.subjects.tables import changes_table, format_number, format_us


def results_table(configurations: list[dict[str, Any]], baseline: str) -> Table:
    table = Table(title="Results (latency: merged HDR histogram over all rounds, coordinated-omission corrected)")
    table.add_column("metric")
    for result in configurations:
        name = result["configuration"]
        table.add_column(f"{name} (baseline)" if name == baseline else name, justify="right")
    rows: list[tuple[str, Any]] = [
        ("rounds completed / failed", lambda r: f"{r['rounds_completed']} / {r['rounds_failed']}"),
        ("requests", lambda r: f"{r['requests']:,}"),
        ("p50", lambda r: format_us(r["latency_us"].get("p50"))),
        ("p90", lambda r: format_us(r["latency_us"].get("p90"))),
        ("p99", lambda r: format_us(r["latency_us"].get("p99"))),
        ("p99.9", lambda r: format_us(r["latency_us"].get("p99.9"))),
        ("p99.99", lambda r: format_us(r["latency_us"].get("p99.99"))),
        ("max", lambda r: format_us(r["latency_us"].get("max"))),
        ("max throughput", lambda r: format_number(r["max_throughput_rps"], " req/s", 0)),
        ("  limited by", lambda r: ", ".join(r.get("max_throughput_limited_by") or []) or "-"),
        ("CPU per request", lambda r: format_number(r["cpu_per_request_us"], " µs")),
        (
            "CPU utilization",
            lambda r: format_number(
                (r["cpu_utilization"] or 0) * 100 if r["cpu_utilization"] is not None else None, " %"
            ),
        ),
        ("RSS (max)", lambda r: format_number(r["rss_max_bytes"] / 2**20 if r["rss_max_bytes"] else None, " MiB")),
        ("context switches / request", lambda r: format_number(r["ctx_per_request"], "", 2)),
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
                format_us(figures["cpu_per_request_us"]),
                format_us(figures["cpu_per_span_us"]) if figures["cpu_per_span_us"] is not None else "unknown",
                format_number(figures["ctx_per_request"], "", 3),
                format_number(figures["ctx_per_span"], "", 4) if figures["ctx_per_span"] is not None else "unknown",
            )
    return table


def service_changes(
    samples: dict[str, list[RoundSample]], baseline: str, design: SequentialDesign | None = None
) -> dict[str, dict[str, Change]]:
    return {
        name: compare(samples.get(baseline, []), rounds, design=design)
        for name, rounds in samples.items()
        if name != baseline
    }


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
            format_us(summary.export_cpu_per_request_us),
        )
    return table


class ServicePresentation(Presentation[ExperimentSpec]):
    def cli_report(
        self, session: Session, experiment: Experiment, spec: ExperimentSpec, aggregates: Sequence[dict[str, Any]]
    ) -> CliReport:
        configurations = list(aggregates)
        changes = service_changes(samples_by_configuration(experiment), spec.baseline.name, design_of(spec))
        tables = [
            results_table(configurations, spec.baseline.name),
            changes_table(changes, spec.baseline.name),
            thread_groups_table(configurations, spec),
        ]
        if spec.sample_stacks:
            names = [c["configuration"] for c in configurations]
            by_name = {c["configuration"]: c for c in configurations}
            tables.append(where_export_table(list(experiment.rounds), names, by_name))
        return CliReport(tables, [])
