"""`make bench-collector`: two reference results on the Collector pipeline lab, at the rates
this machine reaches.

1. Seed 003 (groupbytrace vs tail_sampling under tracegen load). One pipeline experiment:
   passthrough (the baseline), groupbytrace and tail-sampling at one span rate that all three
   keep up with, with a ramp after each round's measured phase. Per variant: peak and steady
   RSS with the paired change against passthrough (95% interval), the span ledger (lost spans,
   kept ratio, what the trace-holding processor dropped on its own), what Tempo stored (complete
   kept traces), and the highest sustainable rate from the ramp with what limited it. Then, by
   default, the three variants again at a rate near the lower of the two trace-holding
   variants' ramp maxima: where the seed saw spans go missing.
2. Seed 001 (the loadbalancing exporter's traceID routing). passthrough (the baseline) and
   loadbalancing at one rate: cores per 10k spans/s of each and the paired change, i.e. what
   routing every span by trace ID to two backends costs over one plain OTLP exporter in the real
   Collector (v0.160.0). The seed's before/after microbenchmark needs two builds of the exporter;
   this prints which routing path the built Collector has.

Runs on the real engine in-process (EngineRuntime; the engine takes the machine-wide
measurement lock, so it waits for any other measurement), with the engine's placement: the lab
Collector on the service's core, telemetrygen on the load generator's, the downstream
Collectors with the stack. Needs `make up`: the downstream Collectors send on to the stack's
Collector, and Tempo is read for what was stored.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import stop_cleanly_on_sigterm
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings, get_settings
from tracetax.db import repository as repo
from tracetax.diagnostics.overhead import (
    PIPELINE_METRICS,
    Change,
    RoundSample,
    compare,
    format_count,
    format_optional,
    format_value,
)
from tracetax.diagnostics.pipeline import PipelineDiagnostics, build_pipeline, pipeline_samples
from tracetax.engine.experiment import measurement_placement
from tracetax.lab import pipelines
from tracetax.native_stack.native import NativeStack
from tracetax.native_stack.supervisor import http_ready
from tracetax.spec.collector import PipelineSpec

BASELINE = "passthrough"
HOLDING = ("groupbytrace", "tail-sampling")
LOADBALANCING = "loadbalancing"
# Both trace-holding overlays keep a trace when the first hex digit of its ID is 0-3.
KEPT_SHARE = 0.25
# Both overlays hold a trace this long (groupbytrace's wait_duration, tail_sampling's decision_wait).
HOLD_S = 2.0
# The overlays' num_traces when LAB_NUM_TRACES is not given.
DEFAULT_NUM_TRACES = 100_000
# What the trace-holding processors count when they drop traces of their own accord.
DROPPED_TRACES = {
    "groupbytrace": "otelcol_processor_groupbytrace_traces_evicted_total",
    "tail-sampling": "otelcol_processor_tail_sampling_sampling_trace_dropped_too_early_total",
}
# The seed's pull request, and the function its one-pass traceID routing added.
LB_PR = "opentelemetry-collector-contrib PR #48983, opened 2026-06-09"
LB_ROUTING_FUNCTION = "consumeTracesByID"
LB_MODULE = "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
# The auto near-saturation rate: this share of the lower trace-holding ramp maximum.
NEAR_SHARE = 0.9
# Components a pipeline round needs from `make up`.
NEEDED = ("collector", "tempo")

console = Console(width=180)


@dataclass
class Outcome:
    """One finished pipeline experiment, read back from its database."""

    title: str
    spec: PipelineSpec
    status: str
    error: str | None
    aggregates: dict[str, dict[str, Any]]
    diagnostics: PipelineDiagnostics
    samples: dict[str, list[RoundSample]]
    failed_rounds: list[str]
    # "<variant> round <n>" -> the share of the lab Collector's core other processes used.
    interference: dict[str, float]
    placement: dict[str, Any]
    wall_s: float
    # Of wall_s: reading Tempo after the rounds (the engine's `collecting` phase).
    readback_s: float | None
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]

    def aggregate(self, name: str) -> dict[str, Any]:
        return self.aggregates.get(name) or {}


class PhaseClock:
    """The engine's progress events, timed: when the `collecting` phase (Tempo) began and ended."""

    def __init__(self) -> None:
        self.marks: dict[str, float] = {}

    def __call__(self, event: Any) -> None:
        phase = getattr(event, "phase", None)
        if isinstance(phase, str):
            self.marks.setdefault(phase, time.monotonic())

    def readback_s(self) -> float | None:
        begun, done = self.marks.get("collecting"), self.marks.get("finished")
        return None if begun is None or done is None else done - begun


@dataclass
class LbFacts:
    """Which traceID routing path the built Collector's loadbalancing exporter has."""

    version: str | None
    one_pass: bool | None
    detail: str
    # When the module version was tagged (the Go module cache's .info), e.g. 2026-09-02.
    released: str | None = None


@dataclass
class Verdict:
    claim: str
    reproduced: bool | None
    why: list[str] = field(default_factory=list)
    # Instead of "cannot tell" when reproduced is None: what was seen instead.
    instead: str | None = None

    def line(self) -> str:
        word = {True: "REPRODUCES", False: "does NOT reproduce", None: self.instead or "cannot tell"}[self.reproduced]
        return f"{self.claim}: {word}" + (f": {'; '.join(self.why)}" if self.why else "")


# -- specs -------------------------------------------------------------------------------------


def _load(args: argparse.Namespace, rate: float, ramp: bool) -> dict[str, Any]:
    load: dict[str, Any] = {
        "spans_per_s": rate,
        "warmup_s": args.warmup,
        "duration_s": args.duration,
        "drain_s": args.drain,
        "spans_per_trace": args.spans_per_trace,
    }
    if ramp:
        load["ramp"] = {"factor": args.ramp_factor, "step_s": args.ramp_step, "max_spans_per_s": args.ramp_max}
    return load


def holding_spec(
    args: argparse.Namespace, rate: float, ramp: bool, label: str, num_traces: int | None
) -> dict[str, Any]:
    """Seed 003: passthrough, groupbytrace and tail-sampling at one rate, the same num_traces."""
    settings = {"LAB_NUM_TRACES": str(num_traces)} if num_traces else {}
    return {
        "subject": "collector",
        "name": f"bench-collector: groupbytrace vs tail-sampling at {rate:,.0f} spans/s ({label})",
        "configurations": [
            {"pipeline": BASELINE, "baseline": True},
            *({"pipeline": name, "settings": settings} for name in HOLDING),
        ],
        "load": _load(args, rate, ramp),
        "rounds": args.rounds,
        "seed": args.seed,
    }


def lb_spec(args: argparse.Namespace, rate: float) -> dict[str, Any]:
    """Seed 001: passthrough against loadbalancing at one rate, no ramp."""
    return {
        "subject": "collector",
        "name": f"bench-collector: loadbalancing routing cost at {rate:,.0f} spans/s",
        "configurations": [{"pipeline": BASELINE, "baseline": True}, {"pipeline": LOADBALANCING}],
        "load": _load(args, rate, ramp=False),
        "rounds": args.rounds,
        "seed": args.seed,
    }


# -- running -----------------------------------------------------------------------------------


def stack_not_ready() -> list[str]:
    """The components a pipeline round needs that do not answer, with why."""
    stack = NativeStack(report=lambda _: None)
    missing = []
    for component in stack.components:
        if component.name in NEEDED:
            ready, why = http_ready(component.ready_url)
            if not ready:
                missing.append(f"{component.name} ({component.ready_url}: {why})")
    return missing


def run(runtime: EngineRuntime, clock: PhaseClock, title: str, body: dict[str, Any]) -> Outcome:
    spec = PipelineSpec.model_validate(body)
    most = spec.estimated_seconds() / 60
    console.print(
        f"[bold]{title}[/bold]: {len(spec.configurations)} variants x {spec.rounds} rounds, "
        f"at most ~{most:.0f} min plus Tempo's read-back",
        highlight=False,
    )
    with runtime.sessions() as session:
        created = repo.create_experiment(session, spec.model_dump(mode="json"), "collector", spec.name)
    load_before = os.getloadavg()
    clock.marks.clear()
    started = time.monotonic()
    status = runtime.engine.execute(created.id, threading.Event(), threading.Event())
    wall_s = time.monotonic() - started
    with runtime.sessions() as session:
        experiment = repo.get_experiment(session, created.id)
        assert experiment is not None  # noqa: S101 - created above
        readings = repo.ledger_readings(session, experiment.id)
        return Outcome(
            title=title,
            spec=spec,
            status=status,
            error=experiment.error,
            aggregates={result.configuration: result.aggregates for result in experiment.results},
            diagnostics=build_pipeline(experiment, spec, readings),
            samples=pipeline_samples(experiment, spec),
            failed_rounds=[
                f"{r.configuration} round {r.round_index + 1}: {r.error}"
                for r in experiment.rounds
                if r.status == "failed"
            ],
            interference={
                f"{r.configuration} round {r.round_index + 1}": float(open_phase.get("foreign_cpu_share") or 0)
                for r in experiment.rounds
                if (open_phase := ((r.resources or {}).get("isolation") or {}).get("open") or {}).get("flagged")
            },
            placement=(experiment.environment or {}).get("placement") or {},
            wall_s=wall_s,
            readback_s=clock.readback_s(),
            load_before=load_before,
            load_after=os.getloadavg(),
        )


def lb_facts() -> LbFacts:
    """The loadbalancing exporter's version in the built Collector (`go version -m`), and
    whether its source in the Go module cache has the seed PR's one-pass traceID routing."""
    try:
        binary = pipelines.collector_binary()
        listing = subprocess.run(
            ["go", "version", "-m", str(binary)], capture_output=True, text=True, timeout=60, check=False
        ).stdout
        modcache = subprocess.run(
            ["go", "env", "GOMODCACHE"], capture_output=True, text=True, timeout=60, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError, pipelines.CollectorMissingError) as error:
        return LbFacts(None, None, f"could not ask Go: {error}")
    match = re.search(rf"\s{re.escape(LB_MODULE)}\s+(v\S+)", listing)
    if match is None:
        return LbFacts(None, None, "the Collector binary names no loadbalancing exporter module")
    version = match.group(1)
    source = Path(modcache) / f"{LB_MODULE}@{version}" / "trace_exporter.go"
    if not source.is_file():
        return LbFacts(version, None, f"{source} is not in the module cache: the routing path cannot be read")
    one_pass = LB_ROUTING_FUNCTION in source.read_text(errors="replace")
    info = Path(modcache) / "cache" / "download" / LB_MODULE.lower() / "@v" / f"{version}.info"
    try:
        released: str | None = str(json.loads(info.read_text()).get("Time", ""))[:10] or None
    except (OSError, ValueError):
        released = None
    detail = (
        f"its trace_exporter.go routes by traceID in one pass ({LB_ROUTING_FUNCTION}, the seed PR's change): "
        "the build measured here is the PR's *after*"
        if one_pass
        else "its trace_exporter.go still splits per trace and merges (SplitTraces + mergeTraces): the PR's *before*"
    )
    return LbFacts(version, one_pass, detail, released)


# -- formatting --------------------------------------------------------------------------------


def _change(change: Change | None, relative: bool = True) -> str:
    """`+12.3 MiB (+8.1 MiB to +16.4 MiB), +15.2% *`: * when significant after Holm."""
    if change is None:
        return "-"
    absolute = change.absolute
    if absolute.estimate is None:
        return change.summary
    text = format_value(absolute.estimate, change.unit, signed=True)
    if absolute.low is not None and absolute.high is not None:
        low, high = format_value(absolute.low, change.unit, signed=True), format_value(absolute.high, change.unit, True)
        text += f" ({low} to {high})"
    pct = change.relative_pct
    if relative and pct.estimate is not None:
        text += f", {pct.estimate:+.1f}%"
    return text + (" *" if change.significant else "")


def _per_10k(value: Any) -> str:
    return "-" if value is None else f"{float(value):.4f}"


def _ledgers(outcome: Outcome, name: str) -> list[Mapping[str, Any]]:
    return [item.ledger for item in outcome.diagnostics.ledger if item.configuration == name]


def _stored(outcome: Outcome, name: str) -> list[Mapping[str, Any] | None]:
    return [item.stored for item in outcome.diagnostics.ledger if item.configuration == name]


def _sum(values: Sequence[float | None]) -> float | None:
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


def processor_dropped_spans(outcome: Outcome, name: str) -> float | None:
    """Spans the trace-holding processor dropped on its own over every round (evicted before
    release, dropped before a decision): its trace count x spans per trace."""
    counter = DROPPED_TRACES.get(name)
    if counter is None:
        return 0.0
    traces = [(ledger.get("processor_counters") or {}).get(counter) for ledger in _ledgers(outcome, name)]
    total = _sum(traces)
    return None if total is None else total * outcome.spec.load.spans_per_trace


def kept_band(accepted: float | None, spans_per_trace: int) -> float | None:
    """Three standard deviations of the kept share of `accepted` spans, when each trace is kept
    with probability KEPT_SHARE: how far a kept ratio strays by chance alone."""
    if not accepted:
        return None
    traces = accepted / spans_per_trace
    return 3 * math.sqrt(KEPT_SHARE * (1 - KEPT_SHARE) / traces)


def stored_cell(items: Sequence[Mapping[str, Any] | None]) -> tuple[str, str]:
    """(stored spans, complete / checked traces) over the rounds, or why unknown."""
    errors = sorted({str(item["error"]) for item in items if item and item.get("error")})
    good = [item for item in items if item and not item.get("error")]
    if not good:
        return ("not read" if not errors else "error", "; ".join(errors)[:80] or "-")
    complete = sum(int(item.get("complete_traces") or 0) for item in good)
    checked = sum(int(item.get("traces_checked") or 0) for item in good)
    uncounted = [item for item in good if item.get("stored_spans") is None]
    if uncounted:  # too many traces to count by search: unknown, never a partial sum
        return (
            f"unknown ({len(uncounted)} of {len(items)} rounds: too many traces to count)",
            f"{complete:,} / {checked:,}",
        )
    spans = sum(int(item["stored_spans"]) for item in good)
    exact = all(item.get("stored_spans_exact") for item in good)
    note = ""
    if len(good) < len(items):
        why = "; ".join(error.split(":")[0] for error in errors) or "not collected"
        note = f" ({len(items) - len(good)} of {len(items)} rounds unread: {why})"
    return (f"{spans:,}{'' if exact else ' (search count)'}{note}", f"{complete:,} / {checked:,}")


def best_ramp_step(aggregate: dict[str, Any]) -> dict[str, Any] | None:
    """The highest kept-up ramp step over every round."""
    steps = [
        step
        for item in aggregate.get("per_round", [])
        for step in item.get("ramp") or []
        if step.get("sustained") and step.get("achieved_spans_per_s")
    ]
    return max(steps, key=lambda step: step["achieved_spans_per_s"]) if steps else None


def one_core_rate(step: dict[str, Any] | None) -> float | None:
    """The span rate at which the lab Collector's one core would be full, extrapolated
    linearly from a ramp step's rate and CPU."""
    if not step or not step.get("cpu_cores") or not step.get("achieved_spans_per_s"):
        return None
    return float(step["achieved_spans_per_s"]) / float(step["cpu_cores"])


def ramp_whys(aggregate: dict[str, Any]) -> list[str]:
    """Why each round's ramp ended (its last step's reason)."""
    whys = []
    for item in aggregate.get("per_round", []):
        steps = item.get("ramp") or []
        if steps and not steps[-1].get("sustained"):
            whys.append(str(steps[-1].get("why")))
        elif steps:
            whys.append("ramp ceiling reached")
    return whys


def ramp_maxima(aggregate: dict[str, Any]) -> list[float | None]:
    return [item.get("max_sustainable_spans_per_s") for item in aggregate.get("per_round", [])]


def print_header(outcome: Outcome) -> None:
    agg = outcome.aggregate(BASELINE)
    rate = outcome.spec.load.spans_per_s
    taken = agg.get("spans_per_s")
    console.print(
        f"\n[bold]{outcome.title}[/bold]: {outcome.spec.rounds} rounds, {outcome.spec.load.warmup_s:g} s warm-up, "
        f"{outcome.spec.load.duration_s:g} s measured, {outcome.spec.load.drain_s:g} s drain, "
        f"{outcome.spec.load.spans_per_trace} spans per trace; asked {rate:,.0f} spans/s, passthrough took in "
        f"{format_optional(taken, 'spans/s')}; status {outcome.status}, wall time {outcome.wall_s / 60:.1f} min"
        + (f" (Tempo's read-back {outcome.readback_s / 60:.1f} min)" if outcome.readback_s is not None else "")
        + f"; load average {outcome.load_before[0]:.2f} before, {outcome.load_after[0]:.2f} after",
        highlight=False,
    )
    for line in outcome.failed_rounds:
        console.print(f"[yellow]failed: {line}", highlight=False)
    if outcome.error:
        console.print(f"[yellow]experiment note: {outcome.error}", highlight=False)
    diag = outcome.diagnostics
    if outcome.interference:
        shares = ", ".join(f"{name} {share:.0%}" for name, share in outcome.interference.items())
        console.print(
            f"[yellow]interference: other processes used the lab Collector's core ({shares} of the phase)",
            highlight=False,
        )
    if diag.saturated_rounds:
        console.print(f"[yellow]telemetrygen fell short of the rate (its limit): {', '.join(diag.saturated_rounds)}")


def memory_table(outcome: Outcome, direct: dict[str, Change]) -> Table:
    overhead = outcome.diagnostics.overhead
    table = Table(
        title=f"Memory and CPU at equal load ({outcome.spec.load.spans_per_s:,.0f} spans/s; medians over rounds; "
        "change vs passthrough paired per round, 95% interval, * significant after Holm)"
    )
    columns = (
        "variant",
        "spans/s taken in",
        "peak RSS",
        "change",
        "steady RSS",
        "change",
        "Collector CPU",
        "cores per 10k spans/s",
        "change",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "variant" else "right")
    for name in (BASELINE, *HOLDING):
        agg = outcome.aggregate(name)
        changes = overhead.get(name, {})
        table.add_row(
            name,
            format_optional(agg.get("spans_per_s"), "spans/s"),
            format_optional(agg.get("rss_max_bytes"), "bytes"),
            _change(changes.get("rss_max_bytes")) if name != BASELINE else "(baseline)",
            format_optional(agg.get("rss_steady_bytes"), "bytes"),
            _change(changes.get("rss_steady_bytes")) if name != BASELINE else "(baseline)",
            format_optional(agg.get("cpu_cores"), "cores"),
            _per_10k(agg.get("cores_per_10k_spans_s")),
            _change(changes.get("cores_per_10k_spans_s"), relative=True) if name != BASELINE else "(baseline)",
        )
    if direct:
        table.caption = (
            f"tail-sampling against groupbytrace, same rounds: peak RSS {_change(direct.get('rss_max_bytes'))}; "
            f"steady RSS {_change(direct.get('rss_steady_bytes'))}; cores per 10k spans/s "
            f"{_change(direct.get('cores_per_10k_spans_s'))}"
        )
    return table


def spans_table(outcome: Outcome) -> Table:
    spt = outcome.spec.load.spans_per_trace
    table = Table(
        title="Where the spans went (all rounds summed; the Collectors' counters after the drain, Tempo after the run)"
    )
    columns = (
        "variant",
        "generated",
        "accepted",
        "arrived downstream",
        "lost (ledger)",
        "dropped by the processor",
        "kept ratio (expected)",
        "stored in Tempo (spans)",
        "complete / checked traces",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "variant" else "right")
    for name in (BASELINE, *HOLDING):
        ledgers = _ledgers(outcome, name)
        accepted = _sum([(ledger.get("receiver") or {}).get("accepted") for ledger in ledgers])
        arrived = _sum([(ledger.get("downstream") or {}).get("accepted") for ledger in ledgers])
        ratio = (arrived / accepted) if arrived is not None and accepted else None
        if name in HOLDING:
            band = kept_band(accepted, spt)
            expected = f"{KEPT_SHARE:.3f} ± {band:.3f}" if band is not None else f"{KEPT_SHARE:.3f}"
        else:
            expected = "1.000"
        stored, complete = stored_cell(_stored(outcome, name))
        table.add_row(
            name,
            format_count(_sum([ledger.get("generated") for ledger in ledgers])),
            format_count(accepted),
            format_count(arrived),
            format_count(_sum([ledger.get("lost") for ledger in ledgers])),
            format_count(processor_dropped_spans(outcome, name)),
            f"{'-' if ratio is None else f'{ratio:.4f}'} ({expected})",
            stored,
            complete,
        )
    table.caption = (
        "lost: generated minus arrived; for the sampling variants only what a stage reports losing (refused, not "
        "received, failed, not enqueued). dropped by the processor: groupbytrace's evicted traces, tail_sampling's "
        f"traces dropped too early, x {spt} spans. expected kept ratio: 25% of trace IDs, ± 3 standard deviations. "
        "Tempo holds the round's run id, ramp steps included."
    )
    return table


def delay_table(outcome: Outcome, names: Sequence[str]) -> Table:
    """Span end in telemetrygen to arrival downstream (diagnostics.span_delay, from Tempo)."""
    table = Table(
        title="Span end -> arrival downstream (medians over rounds of each round's percentile; "
        "change vs passthrough paired per round)"
    )
    for column in ("variant", "p50", "change", "p99", "change", "rounds measured"):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for name in names:
        delay = outcome.diagnostics.span_delay.get(name)
        changes = outcome.diagnostics.overhead.get(name, {})
        baseline = name == BASELINE
        table.add_row(
            name,
            format_optional(None if delay is None else delay.p50_us, "us"),
            "(baseline)" if baseline else _change(changes.get("delay_p50_us")),
            format_optional(None if delay is None else delay.p99_us, "us"),
            "(baseline)" if baseline else _change(changes.get("delay_p99_us")),
            "-" if delay is None else str(delay.rounds),
        )
    table.caption = (
        "Includes telemetrygen's own export batching (up to 1 s, alike for every variant); the change is what the "
        "pipeline adds. Unknown with --no-tempo."
    )
    return table


def ramp_table(outcome: Outcome) -> Table:
    ramp = outcome.spec.load.ramp
    title = "Highest sustainable rate (ramp after each round's measured phase"
    if ramp is not None:
        title += f": x{ramp.factor:g} per {ramp.step_s:g} s step, up to {ramp.max_spans_per_s:,.0f} spans/s)"
    table = Table(title=title)
    columns = (
        "variant",
        "per round (spans/s)",
        "median",
        "limited by",
        "why the ramp ended",
        "at the best step",
        "one core full at (extrapolated)",
    )
    for column in columns:
        table.add_column(
            column, justify="left" if column in ("variant", "limited by", "why the ramp ended") else "right"
        )
    for name in (BASELINE, *HOLDING):
        agg = outcome.aggregate(name)
        best = best_ramp_step(agg)
        at_best = (
            f"{format_optional(best.get('cpu_cores'), 'cores')}, "
            f"peak RSS {format_optional(best.get('rss_max_bytes'), 'bytes')}"
            if best
            else "-"
        )
        table.add_row(
            name,
            ", ".join(format_optional(v, "spans/s").replace(" spans/s", "") for v in ramp_maxima(agg)) or "-",
            format_optional(agg.get("max_sustainable_spans_per_s"), "spans/s"),
            ", ".join(agg.get("ramp_limited_by") or []) or "-",
            "; ".join(sorted(set(ramp_whys(agg)))) or "-",
            at_best,
            format_optional(one_core_rate(best), "spans/s"),
        )
    table.caption = (
        "limited by `load generator`: telemetrygen could not deliver the step's rate (it shares its core with the "
        "downstream Collectors and the stack): the Collector's own limit is higher. one core full at: the best "
        "step's rate / its CPU, a linear extrapolation, not a measurement"
    )
    return table


def lb_table(outcome: Outcome, facts: LbFacts) -> Table:
    change = outcome.diagnostics.overhead.get(LOADBALANCING, {})
    table = Table(
        title=f"Loadbalancing exporter's CPU per span at {outcome.spec.load.spans_per_s:,.0f} spans/s "
        "(medians over rounds; change paired per round, 95% interval, * significant after Holm)"
    )
    columns = (
        "variant",
        "spans/s taken in",
        "Collector CPU",
        "cores per 10k spans/s",
        "change",
        "CPU per span",
        "downstreams' CPU",
        "lost",
        "traces whole on one downstream",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "variant" else "right")
    for name in (BASELINE, LOADBALANCING):
        agg = outcome.aggregate(name)
        per_10k = agg.get("cores_per_10k_spans_s")
        stored = [item for item in _stored(outcome, name) if item and not item.get("error")]
        whole = (
            f"{sum(int(s.get('whole_on_one_downstream') or 0) for s in stored):,} / "
            f"{sum(int(s.get('traces_checked') or 0) for s in stored):,}"
            if stored
            else "not read"
        )
        table.add_row(
            name,
            format_optional(agg.get("spans_per_s"), "spans/s"),
            format_optional(agg.get("cpu_cores"), "cores"),
            _per_10k(per_10k),
            _change(change.get("cores_per_10k_spans_s")) if name != BASELINE else "(baseline)",
            "-" if per_10k is None else f"{per_10k * 100:.1f} µs",
            format_optional(agg.get("downstream_cpu_cores"), "cores"),
            format_count((agg.get("ledger_totals") or {}).get("lost")),
            whole,
        )
    table.caption = (
        f"CPU per span = cores per 10k spans/s x 100 µs. loadbalancing exporter {facts.version or 'unknown'}: "
        f"{facts.detail}"
    )
    return table


# -- verdicts ----------------------------------------------------------------------------------


def _direction(change: Change | None) -> str | None:
    """'up' or 'down' when significant after Holm, 'same' when not, None when unknown."""
    if change is None or change.absolute.estimate is None:
        return None
    if not change.significant:
        return "same"
    return "up" if change.absolute.estimate > 0 else "down"


def _judge(verdict: Verdict, changes: Sequence[Change | None], expected: str) -> None:
    """Reproduced when some change goes the expected way significantly and none the other way;
    not when one goes the other way; else no significant difference at this resolution."""
    directions = [_direction(change) for change in changes]
    other = "down" if expected == "up" else "up"
    if other in directions:
        verdict.reproduced = False
    elif expected in directions:
        verdict.reproduced = True
    elif "same" in directions:
        verdict.instead = "no significant difference at this many rounds (the interval includes 0)"


def seed003_verdicts(outcome: Outcome, direct: dict[str, Change], num_traces: int) -> list[Verdict]:
    spt = outcome.spec.load.spans_per_trace
    gbt, ts = outcome.aggregate("groupbytrace"), outcome.aggregate("tail-sampling")
    verdicts = []

    # Memory: groupbytrace lower than tail_sampling.
    peak, steady = direct.get("rss_max_bytes"), direct.get("rss_steady_bytes")
    memory = Verdict("memory: tail_sampling needs more than groupbytrace at equal load", None)
    _judge(memory, [peak, steady], "up")
    memory.why.append(
        f"tail-sampling vs groupbytrace peak RSS {_change(peak)}, steady {_change(steady)} "
        f"(medians {format_optional(ts.get('rss_max_bytes'), 'bytes')} "
        f"vs {format_optional(gbt.get('rss_max_bytes'), 'bytes')} peak)"
    )
    memory.why.append(
        "the seed's gap was 30 GB against 5 GB at 180-550k spans/s; here both hold about "
        f"{HOLD_S:g} s of {outcome.spec.load.spans_per_s:,.0f} spans/s. tail_sampling v0.160 without a decision "
        f"cache also keeps each decided trace's entry (spans released) until num_traces={num_traces:,} pushes it out"
    )
    verdicts.append(memory)

    # Loss: groupbytrace none, tail_sampling some.
    def losses(name: str) -> tuple[float | None, float | None]:
        ledgers = _ledgers(outcome, name)
        return _sum([ledger.get("lost") for ledger in ledgers]), processor_dropped_spans(outcome, name)

    (gbt_lost, gbt_dropped), (ts_lost, ts_dropped) = losses("groupbytrace"), losses("tail-sampling")
    loss = Verdict("spans: none lost with groupbytrace, some missing with tail_sampling", None)
    if None not in (gbt_lost, gbt_dropped, ts_lost, ts_dropped):
        gbt_clean = (gbt_lost or 0) + (gbt_dropped or 0) == 0
        ts_missing = (ts_lost or 0) + (ts_dropped or 0) > 0
        loss.reproduced = gbt_clean and ts_missing
    loss.why.append(
        f"groupbytrace lost {format_count(gbt_lost)} + dropped {format_count(gbt_dropped)}, "
        f"tail-sampling lost {format_count(ts_lost)} "
        f"+ dropped {format_count(ts_dropped)} spans"
    )
    in_wait = outcome.spec.load.spans_per_s / spt * HOLD_S
    reach = num_traces * spt / HOLD_S
    loss.why.append(
        f"{HOLD_S:g} s at {outcome.spec.load.spans_per_s:,.0f} spans/s is {in_wait:,.0f} traces in the wait against "
        f"num_traces={num_traces:,}: eviction (groupbytrace) and drops before the decision (tail_sampling) start "
        f"above ~{reach:,.0f} spans/s with {spt}-span traces"
    )
    verdicts.append(loss)

    # Throughput: the seed's tail_sampling peaked higher (550k) than groupbytrace (110-130k).
    gbt_max, ts_max = gbt.get("max_sustainable_spans_per_s"), ts.get("max_sustainable_spans_per_s")
    rate = Verdict("throughput: tail_sampling goes faster than groupbytrace", None)
    limited = set(gbt.get("ramp_limited_by") or []) | set(ts.get("ramp_limited_by") or [])
    rate.why.append(
        f"highest sustainable: groupbytrace {format_optional(gbt_max, 'spans/s')}, "
        f"tail-sampling {format_optional(ts_max, 'spans/s')}; "
        f"limited by: {', '.join(sorted(limited)) or 'unknown'}"
    )
    if limited == {"collector"} and gbt_max is not None and ts_max is not None:
        rate.reproduced = ts_max > gbt_max
    else:
        # The ramp could not saturate the Collector here: rank them by CPU per span instead,
        # the rate one core would carry.
        per_span = direct.get("cores_per_10k_spans_s")
        _judge(rate, [per_span], "down")
        rate.why.append(
            "the ramp ended at the load generator's (or the ramp's) limit, below either Collector's, so it cannot "
            f"rank them; by CPU per span instead, tail-sampling vs groupbytrace cores per 10k spans/s "
            f"{_change(per_span)} "
            f"(one core full at ~{format_optional(one_core_rate(best_ramp_step(ts)), 'spans/s')} vs "
            f"~{format_optional(one_core_rate(best_ramp_step(gbt)), 'spans/s')}, extrapolated)"
        )
    verdicts.append(rate)
    return verdicts


def near_rate(args: argparse.Namespace, first: Outcome) -> float | None:
    if args.near_rate == "off":
        return None
    if args.near_rate != "auto":
        return float(args.near_rate)
    maxima = [first.aggregate(name).get("max_sustainable_spans_per_s") for name in HOLDING]
    known = [float(value) for value in maxima if value]
    return round(NEAR_SHARE * min(known), -2) if known else None


def near_lines(outcome: Outcome, num_traces: int) -> list[str]:
    spt = outcome.spec.load.spans_per_trace
    in_wait = outcome.spec.load.spans_per_s / spt * HOLD_S
    lines = [f"{HOLD_S:g} s of this rate is {in_wait:,.0f} traces in the wait, num_traces={num_traces:,}"]
    missing: dict[str, float | None] = {}
    for name in HOLDING:
        ledgers = _ledgers(outcome, name)
        lost = _sum([ledger.get("lost") for ledger in ledgers])
        dropped = processor_dropped_spans(outcome, name)
        missing[name] = None if lost is None or dropped is None else lost + dropped
        kept = outcome.aggregate(name).get("kept_ratio")
        lines.append(
            f"{name}: lost {format_count(lost)}, dropped by the processor {format_count(dropped)}, kept ratio "
            f"{'-' if kept is None else f'{kept:.4f}'} (expected {KEPT_SHARE:.2f}), peak RSS "
            f"{format_optional(outcome.aggregate(name).get('rss_max_bytes'), 'bytes')} "
            f"({_change(outcome.diagnostics.overhead.get(name, {}).get('rss_max_bytes'))} vs passthrough)"
        )
    loss = Verdict("the seed's loss shape (none with groupbytrace, some with tail_sampling)", None)
    gbt, ts = missing["groupbytrace"], missing["tail-sampling"]
    if gbt is not None and ts is not None:
        loss.reproduced = gbt == 0 and ts > 0
        if gbt > 0 and ts > 0:
            loss.why.append(
                "both drop: v0.160's groupbytrace discards the traces it evicts when num_traces is full, where the "
                "seed's groupbytrace blocked (its throughput suffered, no span was lost)"
            )
        elif gbt == 0 and ts == 0:
            loss.why.append("neither dropped: num_traces held the traces in the wait at this rate")
    lines.append(loss.line())
    return lines


# -- main --------------------------------------------------------------------------------------


def describe_placement(placement: dict[str, Any]) -> str:
    return (
        f"lab Collector on cores {placement.get('service_cpus')}, telemetrygen on {placement.get('loadgen_cpus')}, "
        f"downstream Collectors and the stack on {placement.get('stack_cpus')} "
        f"({placement.get('cores')} cores; {placement.get('method')}, {placement.get('source')})"
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=20, help="measured seconds per round")
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--drain", type=float, default=6, help="seconds the pipeline drains after the load")
    parser.add_argument("--rate", type=float, default=10_000, help="spans/s of the equal-load comparison (seed 003)")
    parser.add_argument(
        "--near-rate",
        default="auto",
        help="second seed-003 rate, near saturation: spans/s, `auto` (90%% of the lower trace-holding ramp "
        "maximum) or `off`",
    )
    parser.add_argument("--lb-rate", type=float, default=None, help="spans/s of seed 001 (default: --rate)")
    parser.add_argument("--spans-per-trace", type=int, default=5)
    parser.add_argument(
        "--num-traces", type=int, default=None, help=f"LAB_NUM_TRACES for both holding variants ({DEFAULT_NUM_TRACES})"
    )
    parser.add_argument(
        "--near-num-traces",
        type=int,
        default=None,
        help="LAB_NUM_TRACES of the near-saturation run (default: --num-traces); below the traces held in the "
        "wait, it provokes the processors' own drops, the seed's loss mechanism",
    )
    parser.add_argument("--ramp-factor", type=float, default=1.5)
    parser.add_argument("--ramp-step", type=float, default=3, help="seconds per ramp step")
    parser.add_argument("--ramp-max", type=float, default=200_000)
    parser.add_argument(
        "--no-tempo",
        action="store_true",
        help="skip reading Tempo after each experiment (stored spans and complete traces stay unread)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("003", "001"), default=None, help="run one seed's part only")
    args = parser.parse_args(argv)
    if args.near_rate not in ("auto", "off"):
        try:
            float(args.near_rate)
        except ValueError:
            parser.error(f"--near-rate: a number of spans/s, `auto` or `off`, got {args.near_rate!r}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    stop_cleanly_on_sigterm()
    begun = time.monotonic()
    console.print(f"bench-collector, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()}")
    try:
        console.print(
            f"placement: {describe_placement(measurement_placement(get_settings()).describe())}", highlight=False
        )
    except ValueError as error:
        console.print(f"[red]placement: {error}")
        return 2
    missing = stack_not_ready()
    if missing:
        console.print(f"[red]the stack is not running ({', '.join(missing)}): start it with `make up` first")
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-bench-collector-"))
    clock = PhaseClock()
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'bench.db'}", work_dir=workdir / "work"), publish=clock
    )
    if args.no_tempo:
        runtime.engine.after_run = None  # no Tempo read-back: `stored` stays unread
    summary: list[str] = []
    placement: dict[str, Any] = {}
    try:
        if args.only in (None, "003"):
            num_traces = args.num_traces or DEFAULT_NUM_TRACES
            first = run(
                runtime,
                clock,
                "Seed 003 at equal load",
                holding_spec(args, args.rate, True, "equal load + ramp", args.num_traces),
            )
            placement = first.placement or placement
            direct = _direct(first)
            print_header(first)
            console.print(memory_table(first, direct))
            console.print(spans_table(first))
            console.print(delay_table(first, (BASELINE, *HOLDING)))
            console.print(ramp_table(first))
            summary += [f"seed 003, {verdict.line()}" for verdict in seed003_verdicts(first, direct, num_traces)]
            second_rate = near_rate(args, first)
            if second_rate is not None:
                near_traces = args.near_num_traces or args.num_traces
                if args.near_rate == "auto":
                    limits = sorted(
                        {by for name in HOLDING for by in first.aggregate(name).get("ramp_limited_by") or []}
                    )
                    summary.append(
                        f"seed 003 near saturation: {second_rate:,.0f} spans/s = {NEAR_SHARE:.0%} of the lower "
                        f"trace-holding ramp maximum (the ramps were limited by: {', '.join(limits) or 'unknown'})"
                    )
                near = run(
                    runtime,
                    clock,
                    "Seed 003 near saturation",
                    holding_spec(args, second_rate, False, "near saturation", near_traces),
                )
                print_header(near)
                console.print(memory_table(near, _direct(near)))
                console.print(spans_table(near))
                summary += [
                    f"seed 003 at {second_rate:,.0f} spans/s (near saturation), {line}"
                    for line in near_lines(near, near_traces or DEFAULT_NUM_TRACES)
                ]
            else:
                summary.append("seed 003 near saturation: not run (no ramp maximum, or --near-rate off)")
        if args.only in (None, "001"):
            facts = lb_facts()
            lb = run(runtime, clock, "Seed 001", lb_spec(args, args.lb_rate or args.rate))
            placement = lb.placement or placement
            print_header(lb)
            console.print(lb_table(lb, facts))
            console.print(delay_table(lb, (BASELINE, "loadbalancing")))
            summary.append(seed001_line(lb, facts))
    finally:
        runtime.dispose()
    console.print("\n[bold]Summary[/bold]")
    for line in summary:
        console.print(f"- {line}", highlight=False)
    wall = time.monotonic() - begun
    console.print(f"\nwall time {wall / 60:.1f} min; load average at the end {os.getloadavg()}", highlight=False)
    if placement:
        console.print(f"placement (as the engine ran it): {describe_placement(placement)}", highlight=False)
    return 0


def _direct(outcome: Outcome) -> dict[str, Change]:
    """tail-sampling against groupbytrace, paired by round: which holds more memory."""
    samples = outcome.samples
    if not all(samples.get(name) for name in HOLDING):
        return {}
    metrics = {key: PIPELINE_METRICS[key] for key in ("rss_max_bytes", "rss_steady_bytes", "cores_per_10k_spans_s")}
    return compare(samples["groupbytrace"], samples["tail-sampling"], metrics)


def seed001_line(outcome: Outcome, facts: LbFacts) -> str:
    change = outcome.diagnostics.overhead.get(LOADBALANCING, {}).get("cores_per_10k_spans_s")
    base = outcome.aggregate(BASELINE).get("cores_per_10k_spans_s")
    lb = outcome.aggregate(LOADBALANCING).get("cores_per_10k_spans_s")
    per_span = ""
    if change is not None and change.absolute.estimate is not None:
        per_span = f" = {change.absolute.estimate * 100:+.1f} µs of CPU per span"
        if change.absolute.low is not None and change.absolute.high is not None:
            per_span += f" ({change.absolute.low * 100:+.1f} to {change.absolute.high * 100:+.1f} µs)"
    routing = {
        True: f"v{(facts.version or '?').lstrip('v')} (tagged {facts.released or 'on an unknown date'}) already has "
        f"the seed PR's one-pass routing ({LB_PR}), so this is the after-state's routing cost, not the PR's speedup",
        False: f"v{(facts.version or '?').lstrip('v')} has the split + merge routing the seed PR ({LB_PR}) replaced: "
        "this is the before-state's routing cost",
        None: f"whether this build has the seed PR's one-pass routing ({LB_PR}) is unknown: {facts.detail}",
    }[facts.one_pass]
    return (
        f"seed 001: cores per 10k spans/s passthrough {'-' if base is None else f'{base:.4f}'}, loadbalancing "
        f"{'-' if lb is None else f'{lb:.4f}'}; change {_change(change)}{per_span}. The seed's -43% to -58% is a Go "
        f"microbenchmark of ConsumeTraces before/after; one build cannot show it. {routing}. The change includes "
        "hashing each trace ID, regrouping per backend and exporting two smaller requests instead of one"
    )


if __name__ == "__main__":
    sys.exit(main())
