"""Diagnostics of one stored experiment: overhead with intervals, noise floor, span ledger,
sample traces and the recommendation. Knows nothing of HTTP; the API and CLI call it."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracetax.clients.base import BackendError
from tracetax.clients.readback import RUN_ID_ATTRIBUTE, RunReadback
from tracetax.db import repository as repo
from tracetax.db.models import Experiment, LedgerReading, Round
from tracetax.db.repository import FINAL_EXPERIMENT_STATES
from tracetax.demos.catalog import ServiceManifest
from tracetax.demos.zero_code import processor_name
from tracetax.diagnostics.base import ExperimentDiagnostics
from tracetax.diagnostics.ledger import (
    RoundFacts,
    RoundLedger,
    mean_export_s,
    round_ledger,
    sdk_dropped_unknown_reason,
    stored_telemetry,
)
from tracetax.diagnostics.overhead import (
    SIDE_BY_SIDE_MAX_SHARE_GAP,
    SIDE_BY_SIDE_METRICS,
    RoundSample,
    compare,
    noise_floor,
)
from tracetax.diagnostics.recommend import ConfigurationFacts, Recommendation, recommend
from tracetax.diagnostics.rounds import (
    SideBySideUse,
    completed_by_end,
    flagged_rounds,
    paired_rounds,
    settle,
    stack_down_during,
    stack_down_rounds,
)
from tracetax.diagnostics.sequential import design_of
from tracetax.diagnostics.service_figures import ServiceFigures, ServiceSideBySide, service_phases
from tracetax.diagnostics.stacks import StackSummary, summarize_configuration
from tracetax.diagnostics.volume import store_readings
from tracetax.spec.service import CommandServiceRef, ExperimentSpec

SAMPLE_TRACES = 3


class Diagnostics(ExperimentDiagnostics):
    """A service experiment's diagnostics: what every subject's have, and its span ledger, dropped
    spans, sample traces, where export runs and recommendation."""

    subject: Literal["service"] = "service"
    ledger: list[RoundLedger]
    dropped_spans: dict[str, float | None]
    sample_traces: dict[str, list[str]]
    where_export_runs: dict[str, StackSummary]
    recommendation: Recommendation
    # An experiment that asked for a precision: its looks, the rounds it ran and whether every
    # named metric reached the half-width (or, in a check, every line is conclusive).
    precision: dict[str, Any] | None = None


def _service_figures(round_: Round) -> ServiceFigures:
    return ServiceFigures.of(round_.figures) or ServiceFigures()


def _achieved_rps(round_: Round) -> float | None:
    open_phase = _service_figures(round_).open_phase
    return open_phase.achieved_rps if open_phase is not None else None


# Where a service's CPU per request, RSS and p50 are paired from: each round's side-by-side
# phase (the default, and what the diagnostics show), or the configurations' solo phases (as
# before the side-by-side phase; `make bench-truth` compares the two designs).
Design = Literal["side_by_side", "solo"]


def _side_by_side(round_: Round) -> ServiceSideBySide | None:
    side = _service_figures(round_).side_by_side
    return side if side is not None and side.error is None and side.cpu_per_request_us is not None else None


def _sample(round_: Round, side: ServiceSideBySide | None, side_latency: bool) -> RoundSample:
    resources = round_.resources or {}
    latency = side if side is not None and side_latency else None
    return RoundSample(
        round_index=round_.round_index,
        histogram=round_.histogram,
        max_throughput_rps=_service_figures(round_).max_throughput_rps,
        cpu_per_request_us=side.cpu_per_request_us if side else resources.get("cpu_per_request_us"),
        rss_max_bytes=side.rss_max_bytes if side else resources.get("rss_max_bytes"),
        values={"p50": latency.p50_us} if latency is not None else {},
        side_share=_share_of(latency, round_.configuration) if latency is not None else None,
    )


def _share_of(side: ServiceSideBySide, configuration: str) -> float | None:
    """The configuration's busy share of the service cores in the phase; 0 when the phase
    recorded no shares (stored before they were), so that its latencies pair as they did then."""
    shares = (side.utilisation or {}).get("configurations")
    if not isinstance(shares, dict):
        return 0.0
    share = shares.get(configuration)
    return float(share) if isinstance(share, int | float) else None


def side_by_side_rounds(completed: list[Round]) -> tuple[set[int], set[int]]:
    """The round indexes whose every completed configuration has side-by-side figures, and of
    those the ones whose latency may be used (the phase not flagged): a pair never mixes a
    side-by-side value with a solo one."""
    usable = paired_rounds(completed, lambda r: _side_by_side(r) is not None)
    latency = {
        i
        for i in usable
        if not any(
            (side := _side_by_side(r)) is None or side.latency_flagged or side.p50_us is None
            for r in completed
            if r.round_index == i
        )
    }
    return usable, latency


def side_by_side_use(completed: list[Round]) -> SideBySideUse | None:
    if not any(_service_figures(r).side_by_side is not None for r in completed):
        return None
    usable, latency = side_by_side_rounds(completed)
    return SideBySideUse(
        metrics=list(SIDE_BY_SIDE_METRICS),
        rounds=sorted(i + 1 for i in usable),
        latency_rounds=sorted(i + 1 for i in latency),
        note="CPU per request, RSS and p50 are paired from each round's side-by-side phase (every configuration "
        "live at once on the service cores); tails and max throughput from each configuration alone. p50 pairs "
        f"side by side only configurations within {SIDE_BY_SIDE_MAX_SHARE_GAP:.0%} of a core of each other; a pair "
        "further apart (one far heavier) takes both sides' p50 from their solo phases",
    )


def samples_by_configuration(experiment: Experiment, design: Design = "side_by_side") -> dict[str, list[RoundSample]]:
    """The completed rounds of each configuration, as the paired statistics need them."""
    spec = ExperimentSpec.model_validate(experiment.spec)
    completed = [r for r in experiment.rounds if r.status == "completed"]
    usable, latency = side_by_side_rounds(completed) if design == "side_by_side" else (set(), set())
    return {
        c.name: [
            _sample(r, _side_by_side(r) if r.round_index in usable else None, r.round_index in latency)
            for r in completed
            if r.configuration == c.name
        ]
        for c in spec.configurations
    }


def round_facts(spec: ExperimentSpec, round_: Round, manifest: ServiceManifest | None) -> RoundFacts:
    configuration = spec.configuration(round_.configuration)
    service = spec.service
    demo = not isinstance(service, CommandServiceRef)
    signals = (
        manifest.modes[configuration.processor].signals
        if manifest and configuration.processor in manifest.modes
        else None
    )
    spans = spec.spans_per_request()
    logs: int | None = 1 if demo else None
    if not configuration.exports("traces"):
        spans = 0
    elif signals and signals.spans_per_request is not None:
        spans = signals.spans_per_request
    if not configuration.exports("logs") or (signals and not signals.logs):
        logs = 0
    started = round_.started_at or datetime.now(UTC)
    finished = round_.finished_at or started
    return RoundFacts(
        configuration=round_.configuration,
        round_index=round_.round_index,
        run_id=round_.run_id,
        started_at=started,
        # The round's own settle time is inside [started, finished]: no padding, or it overlaps the next round.
        finished_at=finished,
        requests_total=service_phases(ServiceFigures.of(round_.figures))["requests_total"],
        spans_per_request=spans,
        logs_per_request=logs,
        metrics=configuration.exports("metrics") and not (signals and not signals.metrics),
        service_name=spec.service_name,
        dropped_spans_selector=manifest.dropped_spans_selector(configuration.processor) if manifest else None,
        sampler=configuration.env.get("OTEL_TRACES_SAMPLER"),
        span_name=signals.span_name if signals else None,
        # Without an SDK there is nothing held to flush: an unclean exit loses no telemetry.
        flushed=configuration.processor == "none" or round_.shutdown is None or round_.shutdown.get("flushed") is True,
        demo=demo,
        stack_down=stack_down_during(round_),
        store_counters=store_readings(round_.resources),
    )


async def collect_ledger(
    session: Session,
    experiment: Experiment,
    readback: RunReadback,
    manifest: ServiceManifest | None,
    settle_s: float = 0.0,
) -> None:
    """Read (or read again) every completed round's ledger and a few sample trace ids, each
    no sooner than `settle_s` after the round ended. A configuration that exports nothing
    has nothing in flight to wait for: its rounds are read at once."""
    spec = ExperimentSpec.model_validate(experiment.spec)
    exporting = {configuration.name for configuration in spec.configurations if configuration.exports_anything()}
    # Read everything first and write in one short transaction at the end: a write held open
    # across the backends' answers (tens of seconds) locked SQLite for every other writer.
    readings = []
    for round_ in completed_by_end(experiment.rounds):
        if round_.configuration in exporting:
            await settle(round_, settle_s)
        facts = round_facts(spec, round_, manifest)
        ledger = await round_ledger(readback, facts)
        try:
            traces = await readback.tempo.search(
                f'{{ resource.{RUN_ID_ATTRIBUTE} = "{round_.run_id}" }}',
                int(facts.started_at.timestamp()) - 60,
                int(facts.finished_at.timestamp()) + 60,
                limit=SAMPLE_TRACES,
            )
            trace_ids = [trace.trace_id for trace in traces]
        except BackendError:
            trace_ids = []
        readings.append(
            LedgerReading(
                run_id=round_.run_id,
                experiment_id=experiment.id,
                ledger=ledger.model_dump(mode="json"),
                sample_trace_ids=trace_ids,
            )
        )
    repo.replace_ledger_readings(session, experiment.id, readings)


# Diagnostics of finished experiments, by what they are computed from: the bootstrap takes
# about a second per experiment, and the checks list asks for many at once. Kept without the
# recommendation's CPU budget, which is applied after: a new budget costs no new bootstrap.
_CACHE: dict[tuple[Any, ...], _Built] = {}
_CACHE_SIZE = 128
# The API's routes run in a thread pool and read and evict at once; the lock covers the dict
# only, never the bootstrap, so two experiments are still computed side by side.
_CACHE_LOCK = threading.Lock()
DEFAULT_CPU_BUDGET_PCT = 10.0


@dataclass(frozen=True)
class _Built:
    """An experiment's diagnostics with the recommendation at DEFAULT_CPU_BUDGET_PCT, and the
    facts the recommendation is made of, for any other budget."""

    diagnostics: Diagnostics
    facts: list[ConfigurationFacts]
    language: str

    def at_budget(self, cpu_budget_pct: float) -> Diagnostics:
        if cpu_budget_pct == DEFAULT_CPU_BUDGET_PCT:
            return self.diagnostics
        recommendation = _named(recommend(self.facts, cpu_budget_pct), self.language)
        return self.diagnostics.model_copy(update={"recommendation": recommendation})


def build(
    session: Session,
    experiment: Experiment,
    manifest: ServiceManifest | None,
    cpu_budget_pct: float = DEFAULT_CPU_BUDGET_PCT,
) -> Diagnostics:
    readings = {
        reading.run_id: reading
        for reading in session.scalars(select(LedgerReading).where(LedgerReading.experiment_id == experiment.id))
    }
    # A finished experiment's rounds never change; its ledger can be collected again.
    key = (experiment.id, experiment.status, tuple(sorted((r, v.collected_at) for r, v in readings.items())))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is None:
        cached = _build(experiment, manifest, readings)
        if experiment.status in FINAL_EXPERIMENT_STATES:
            _remember(key, cached)
    return cached.at_budget(cpu_budget_pct)


def _remember(key: tuple[Any, ...], built: _Built) -> None:
    """Keep `built` under `key`, the oldest entry leaving when the cache is full."""
    with _CACHE_LOCK:
        if key not in _CACHE and len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = built


def _build(experiment: Experiment, manifest: ServiceManifest | None, readings: dict[str, LedgerReading]) -> _Built:
    spec = ExperimentSpec.model_validate(experiment.spec)
    baseline = spec.baseline.name
    completed = [r for r in experiment.rounds if r.status == "completed"]
    by_config = samples_by_configuration(experiment)
    design = design_of(spec)
    ledgers = [RoundLedger.model_validate(readings[r.run_id].ledger) for r in completed if r.run_id in readings]
    overheads = {
        name: compare(by_config[baseline], samples, design=design)
        for name, samples in by_config.items()
        if name != baseline
    }
    dropped = {c.name: _dropped(ledgers, c.name) for c in spec.configurations}
    samples: dict[str, list[str]] = {c.name: [] for c in spec.configurations}
    for round_ in completed:
        if round_.run_id in readings:
            samples[round_.configuration] += readings[round_.run_id].sample_trace_ids
    aggregates = {result.configuration: result.aggregates for result in experiment.results}
    stacks = {
        c.name: summarize_configuration(
            experiment.rounds, c.name, (aggregates.get(c.name) or {}).get("cpu_per_request_us"), spec.sample_stacks
        )
        for c in spec.configurations
    }
    facts = [
        ConfigurationFacts(
            name=c.name,
            processor=c.processor,
            env=c.env,
            baseline=c.baseline,
            achieved_rps=_mean([_achieved_rps(r) for r in completed if r.configuration == c.name]),
            spans_per_request=spec.spans_per_request(),
            dropped_spans=dropped[c.name],
            export_duration_s=mean_export_s(ledgers, c.name),
            p99_overhead=overheads.get(c.name, {}).get("p99"),
            cpu_overhead=overheads.get(c.name, {}).get("cpu_per_request_us"),
            max_throughput_rps=(aggregates.get(c.name) or {}).get("max_throughput_rps"),
            dropped_spans_unknown=sdk_dropped_unknown_reason(ledgers, c.name),
            stored=stored_telemetry(ledgers, c.name) if ledgers else None,
            overhead=overheads.get(c.name, {}),
            export_on_request_path=_located(stacks[c.name], "export_request_path"),
            export_share=_located(stacks[c.name], "export_share"),
        )
        for c in spec.configurations
    ]
    diagnostics = Diagnostics(
        experiment_id=experiment.id,
        baseline=baseline,
        overhead=overheads,
        noise_floor=noise_floor(by_config[baseline], [s for n, s in by_config.items() if n != baseline], design=design),
        side_by_side=side_by_side_use(completed),
        precision=(experiment.environment or {}).get("precision"),
        flagged_rounds=flagged_rounds(completed),
        stack_down_rounds=stack_down_rounds(completed),
        ledger=ledgers,
        dropped_spans=dropped,
        sample_traces=samples,
        where_export_runs=stacks,
        recommendation=_named(recommend(facts, DEFAULT_CPU_BUDGET_PCT), spec.service.language),
    )
    return _Built(diagnostics, facts, spec.service.language)


def _named(recommendation: Recommendation, language: str) -> Recommendation:
    if recommendation.processor is not None:
        recommendation.processor_name = processor_name(recommendation.processor, language)
    return recommendation


def _located(summary: StackSummary, share: str) -> float | None:
    """A share from the stacks, or None when the sampler could not tell the sides apart."""
    location = summary.location
    if location is None or not location.distinguishable:
        return None
    value: float = getattr(location, share)
    return value


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _dropped(ledgers: list[RoundLedger], configuration: str) -> float | None:
    """Spans dropped inside the SDK over the configuration's rounds; None if any is unknown."""
    total = 0.0
    rounds = [ledger for ledger in ledgers if ledger.configuration == configuration]
    if not rounds:
        return None
    for ledger in rounds:
        spans = next((s for s in ledger.signals if s.signal == "spans"), None)
        value = spans.value("sdk_dropped") if spans else None
        if value is None:
            return None
        total += value
    return total
