"""One (round, variant) of a Collector pipeline experiment.

The lab for one round: the downstream Collector(s) (on the stack's cores), the lab Collector
running the variant (on the service's cores: it is what is measured), then telemetrygen (on
the load generator's cores) at a constant span rate for warm-up + measured phase. The
measured phase samples the CPU and memory of every Collector from /proc and brackets it with
snapshots of the lab Collector's own counters; once telemetrygen has stopped, the pipeline
drains for `drain_s` and every Collector's counters are read: that is the round's ledger.

Blocking; runs in the engine's worker thread. Every process started is stopped on every path
out, and each is tracked in the measurement state file while it runs. A user's overlay is
checked again when the round starts (the settings may have changed since it was queued), and
what the round reports of the Collectors' logs is redacted (tracetax.lab.redact).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracetax.demos.process import ServiceError, ServiceProcess
from tracetax.diagnostics.pipeline_figures import CollectorFigures, PipelineRamp, PipelineWindow
from tracetax.engine.isolation import PhaseWatch
from tracetax.engine.round import (
    STOP_GRACE_S,
    Report,
    RoundCancelledError,
    RoundOutcome,
    hold_phase,
    run_round,
    shutdown_record,
)
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.lab import pipelines, telemetrygen
from tracetax.lab.ledger import ledger, round_figures
from tracetax.lab.ramp import RampStep, evaluate, step_losses
from tracetax.lab.ramp import summarize as summarize_ramp
from tracetax.lab.redact import redact_environment
from tracetax.lab.telemetry import Snapshot, TelemetryError, scrape
from tracetax.spec.collector import PipelineSpec, RampSpec, VariantSpec
from tracetax.system.placement import Placement
from tracetax.system.ports import free_port, taken_port_message

COLLECTOR_START_TIMEOUT_S = 30.0
# A Collector shuts down within a second or two once its queues are empty.
COLLECTOR_STOP_GRACE_S = 10.0
LAB = "lab"
# How long telemetrygen may flush after its run before it is stopped (it retries refused
# exports for minutes; healthy runs exit within a second).
GENERATOR_FLUSH_S = 10.0
# After a ramp step, before its counters are read: the exporter's queue empties or shows a backlog.
RAMP_SETTLE_S = 1.0
# The errors that fail a round (or a side-by-side phase): a Collector that would not start or
# died, telemetrygen that failed, counters that could not be read, a refused overlay.
ROUND_FAILURES: tuple[type[Exception], ...] = (
    ServiceError,
    telemetrygen.GeneratorError,
    TelemetryError,
    pipelines.PipelineConfigError,
    pipelines.OverlayRefusedError,
    OSError,
)


@dataclass
class LabCollector:
    """One Collector of the lab: its process, where it listens, its metrics port."""

    name: str
    process: ServiceProcess
    otlp_endpoint: str
    metrics_port: int
    samples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PipelineRoundContext:
    spec: PipelineSpec
    variant: VariantSpec
    run_id: str
    workdir: Path
    # Where the downstream Collectors send on (the stack's Collector, then Tempo).
    export_endpoint: str
    # Where a variant's config_file may come from, checked again as the round starts.
    overlays: pipelines.OverlayPolicy
    placement: Placement
    cancel: threading.Event
    report: Report
    # What the round measured: the outcome's figures.
    figures: CollectorFigures = field(default_factory=CollectorFigures)


def downstream_count(variant: VariantSpec) -> int:
    """The loadbalancing variant routes to two downstream Collectors; every other variant
    exports to one, which counts what arrived."""
    shipped = pipelines.VARIANTS.get(variant.pipeline or "")
    return max(shipped.downstreams, 1) if shipped else 1


def _collector(
    ctx: PipelineRoundContext, name: str, files: list[Path], env: dict[str, str], cpus: set[int] | None
) -> LabCollector:
    binary = pipelines.collector_binary()
    argv = [str(binary), *(f"--config=file:{path}" for path in files)]
    health_port = free_port()
    metrics_port = free_port()
    otlp = f"127.0.0.1:{free_port()}"
    env = {
        **env,
        "LAB_OTLP_GRPC_ENDPOINT": otlp,
        "LAB_HEALTH_ENDPOINT": f"127.0.0.1:{health_port}",
        "LAB_METRICS_PORT": str(metrics_port),
    }
    process = ServiceProcess(
        argv,
        cwd=ctx.workdir,
        env=env,
        port=health_port,
        log_path=ctx.workdir / f"{name}.log",
        health_path="/",
        name=f"{ctx.variant.name} {name} Collector",
        cpus=cpus,
        track=f"{name} Collector",
    )
    return LabCollector(name, process, otlp, metrics_port)


def _start(collector: LabCollector) -> None:
    """Start a Collector and wait for its health check. A port it could not bind is named,
    with the process that holds it."""
    collector.process.start()
    try:
        collector.process.wait_healthy(COLLECTOR_START_TIMEOUT_S)
    except ServiceError as error:
        taken = taken_port_message(collector.process.last_lines(40))
        if taken is None:
            raise
        raise ServiceError(f"{collector.process.name} could not start: {taken}\n{error}") from error


def start_lab(ctx: PipelineRoundContext, started: list[LabCollector]) -> LabCollector:
    """Start the downstream Collector(s), then the lab Collector pointed at them. Every
    Collector started is appended to `started` at once, so the caller stops it on any path."""
    for index in range(downstream_count(ctx.variant)):
        name = f"downstream-{index + 1}"
        env = {"LAB_EXPORT_ENDPOINT": ctx.export_endpoint, "LAB_DOWNSTREAM_NAME": name}
        downstream = _collector(ctx, name, [pipelines.DOWNSTREAM_CONFIG], env, ctx.placement.stack_cpus)
        started.append(downstream)
        _start(downstream)
    downstreams = [c.otlp_endpoint for c in started]
    env = {**ctx.variant.settings, **_routing(downstreams)}
    files = pipelines.config_files(ctx.variant.pipeline, ctx.variant.config_path, ctx.overlays)
    lab = _collector(ctx, LAB, files, env, ctx.placement.service_cpus)
    started.append(lab)
    _start(lab)
    return lab


def _routing(downstreams: list[str]) -> dict[str, str]:
    """LAB_EXPORT_ENDPOINT for a single downstream; LAB_DOWNSTREAM_A/B for loadbalancing."""
    env = {"LAB_EXPORT_ENDPOINT": downstreams[0]}
    if len(downstreams) > 1:
        env |= {"LAB_DOWNSTREAM_A": downstreams[0], "LAB_DOWNSTREAM_B": downstreams[1]}
    return env


def _hold(
    ctx: PipelineRoundContext,
    seconds: float,
    phase: str,
    collectors: list[LabCollector],
    generator: telemetrygen.RunningGenerator | None,
) -> None:
    """Let a phase run for `seconds`, reporting each second; stop at once on cancel, when a
    Collector dies, or when telemetrygen fails before its time is up."""

    def watch(_elapsed: float) -> None:
        for collector in collectors:
            code = collector.process.poll()
            if code is not None:
                raise ServiceError(
                    f"{collector.process.name} exited with code {code} during {phase}\n{collector.process.last_lines()}"
                )
        if generator is not None and generator.poll() not in (None, 0):
            generator.check()

    hold_phase(ctx.cancel, ctx.report, phase, seconds, watch=watch)


def wait_generator(ctx: PipelineRoundContext, generator: telemetrygen.RunningGenerator) -> bool:
    """Wait for telemetrygen to exit after its run. Its workers log their counts when their
    time is up; then it flushes, retrying exports the Collector refuses or fails, for as long
    as its exporter's retry allows. Past GENERATOR_FLUSH_S it is stopped: what it still held
    never reached the lab (the ledger's `not_received`). True when it had to be stopped."""
    deadline = time.monotonic() + GENERATOR_FLUSH_S
    while generator.poll() is None:
        if ctx.cancel.is_set():
            raise RoundCancelledError()
        if time.monotonic() > deadline:
            generator.kill()
            return True
        time.sleep(0.1)
    generator.check()
    return False


def _scrape_all(collectors: list[LabCollector]) -> dict[str, Snapshot]:
    return {collector.name: scrape(collector.process.name, collector.metrics_port) for collector in collectors}


def _measure(
    ctx: PipelineRoundContext,
    collectors: list[LabCollector],
    lab: LabCollector,
    generator: telemetrygen.RunningGenerator,
    outcome: RoundOutcome,
) -> tuple[dict[str, Snapshot], float]:
    """The measured phase: /proc samples of every Collector, the lab's counters at both ends."""
    load = ctx.spec.load
    samplers = {c.name: Sampler(c.process.pid, generator.pid if c is lab else None) for c in collectors}
    watch = PhaseWatch(ctx.placement, lab.process.pid, generator.pid)
    before = scrape(lab.process.name, lab.metrics_port)
    opened = time.monotonic()
    for sampler in samplers.values():
        sampler.start()
    watch.start()
    try:
        _hold(ctx, load.duration_s, "measuring", collectors, generator)
    finally:
        for collector in collectors:
            collector.samples = samplers[collector.name].stop()
        watch.stop()
    closed = time.monotonic()
    after = scrape(lab.process.name, lab.metrics_port)
    outcome.samples = lab.samples
    outcome.resources = {
        "collectors": {c.name: resource_summary(c.samples, 0) for c in collectors},
        "isolation": {"open": watch.isolation(None)},
    }
    # The seconds between the two counter readings: the spans' window (the CPU's is the samplers').
    return {"start": before, "end": after}, closed - opened


def trace_shape(ctx: PipelineRoundContext) -> telemetrygen.TraceShape:
    load = ctx.spec.load
    return telemetrygen.TraceShape(load.spans_per_trace, load.attribute_bytes, load.services_per_trace)


def span_attributes(ctx: PipelineRoundContext, phase: str = "") -> dict[str, str]:
    """The resource of what telemetrygen sends. The ramp's spans carry `<run id>.ramp`, so the
    round's traces in Tempo are the measured phase's only (the side-by-side phase's carry
    `<run id>-side`: its context's run id)."""
    run_id = f"{ctx.run_id}.{phase}" if phase else ctx.run_id
    return {"tracetax.run.id": run_id, "tracetax.config": ctx.variant.name}


def _ramp_step(
    ctx: PipelineRoundContext, index: int, rate: float, lab: LabCollector, collectors: list[LabCollector]
) -> RampStep:
    """One ramp step: telemetrygen at `rate` for step_s against the running lab Collector,
    its CPU sampled meanwhile, the counters read before and a second after."""
    ramp = ctx.spec.load.ramp
    assert ramp is not None  # noqa: S101 - only called when the spec has a ramp
    before = scrape(lab.process.name, lab.metrics_port)
    generator = telemetrygen.start(
        endpoint=lab.otlp_endpoint,
        spans_per_s=rate,
        duration_s=ramp.step_s,
        shape=trace_shape(ctx),
        resource_attributes=span_attributes(ctx, "ramp"),
        workers=ctx.spec.load.workers,
        cpus=ctx.placement.loadgen_cpus,
        log_path=ctx.workdir / f"ramp-{index}.log",
    )
    sampler = Sampler(lab.process.pid, generator.pid)
    sampler.start()
    try:
        _hold(ctx, ramp.step_s, "ramp", collectors, generator)
        wait_generator(ctx, generator)
    finally:
        samples = sampler.stop()
        generator.kill()
    _hold(ctx, RAMP_SETTLE_S, "ramp", collectors, None)
    sent = telemetrygen.result(generator)
    cpu = resource_summary(samples, 0)
    losses = step_losses(before, scrape(lab.process.name, lab.metrics_port))
    step: RampStep = {
        "spans_per_s": rate,
        "achieved_spans_per_s": sent.achieved_spans_per_s,
        "generator_saturated": sent.saturated,
        "generated": sent.spans,
        "cpu_cores": round(cpu["cpu_s"] / cpu["window_s"], 4) if cpu.get("window_s") else None,
        "rss_max_bytes": cpu.get("rss_max_bytes"),
        "generator_utilization": cpu.get("loadgen_utilization"),
        "accepted": losses["accepted"],
        "refused": losses["refused"],
        "send_failed": losses["send_failed"],
        "enqueue_failed": losses["enqueue_failed"],
        "queue_size": losses["queue_size"],
        "queue_capacity": losses["queue_capacity"],
    }
    return evaluate(step)


def _ramp(
    ctx: PipelineRoundContext,
    ramp: RampSpec,
    lab: LabCollector,
    collectors: list[LabCollector],
) -> PipelineRamp:
    """Steps of rising rate until one is not kept up with (or the ceiling): the CPU-vs-rate
    curve and the highest sustainable rate."""
    steps: list[RampStep] = []
    for index, rate in enumerate(ramp.rates(ctx.spec.load.spans_per_s)):
        step = _ramp_step(ctx, index, rate, lab, collectors)
        steps.append(step)
        ctx.figures.spans_total += step["generated"] or 0
        ctx.report("ramp", None, {"current_rps": step["achieved_spans_per_s"]})
        if not step["sustained"]:
            break
    return PipelineRamp.model_validate(summarize_ramp(steps, ramp.max_spans_per_s))


@dataclass
class PipelineRound:
    """One round of a pipeline variant, as the engine's round skeleton drives it."""

    ctx: PipelineRoundContext
    # Every Collector started, in order, so each is stopped on any path out.
    collectors: list[LabCollector] = field(default_factory=list)
    generator: telemetrygen.RunningGenerator | None = None
    failures: tuple[type[Exception], ...] = ROUND_FAILURES

    def phases(self, outcome: RoundOutcome) -> None:
        ctx, collectors = self.ctx, self.collectors
        load = ctx.spec.load
        lab = start_lab(ctx, collectors)
        generator = self.generator = telemetrygen.start(
            endpoint=lab.otlp_endpoint,
            spans_per_s=load.spans_per_s,
            duration_s=load.warmup_s + load.duration_s,
            shape=trace_shape(ctx),
            resource_attributes=span_attributes(ctx),
            workers=load.workers,
            cpus=ctx.placement.loadgen_cpus,
            log_path=ctx.workdir / "telemetrygen.log",
        )
        _hold(ctx, load.warmup_s, "warmup", collectors, generator)
        window, window_s = _measure(ctx, collectors, lab, generator, outcome)
        figures = round_figures(window, collectors_of(outcome), lab.samples, window_s)
        outcome.resources = {**(outcome.resources or {}), **figures}
        stopped = wait_generator(ctx, generator)
        sent = telemetrygen.result(generator)
        _hold(ctx, load.drain_s, "draining", collectors, None)
        final = _scrape_all(collectors)
        ctx.figures.spans_total = sent.spans
        ctx.figures.measured = PipelineWindow.model_validate(
            {
                # stopped_flushing: it was still retrying exports GENERATOR_FLUSH_S after its run.
                "generator": {**sent.__dict__, "stopped_flushing": stopped},
                "window_s": load.duration_s,
                "telemetry": {"window": window, "final": final},
                "ledger": ledger(sent.spans, final, _samples(ctx.variant), load.spans_per_trace),
            }
        )
        if load.ramp is not None:
            # After the ledger was read: the ramp's spans (and its losses, by design) stay out of it.
            ctx.figures.ramp = _ramp(ctx, load.ramp, lab, collectors)
        ctx.report("stopping", None, {})
        outcome.exit_code = lab.process.stop(COLLECTOR_STOP_GRACE_S)
        outcome.shutdown = shutdown_record(outcome.exit_code, COLLECTOR_STOP_GRACE_S)

    def clean_up(self, outcome: RoundOutcome) -> None:
        if self.generator is not None:
            self.generator.kill()
        for collector in reversed(self.collectors):
            code = collector.process.stop(STOP_GRACE_S if collector.name == LAB else 2)
            if collector.name == LAB and outcome.exit_code is None:
                outcome.exit_code = code
        if outcome.status != "completed":
            outcome.service_log_tail = "\n".join(
                f"{c.process.name}:\n{c.process.last_lines(20)}" for c in self.collectors
            ) + _generator_tail(self.ctx.workdir / "telemetrygen.log")
        _redact(self.ctx, outcome)


def run_pipeline_round(ctx: PipelineRoundContext) -> RoundOutcome:
    """Run one round of one variant; never raises for a Collector's or telemetrygen's failure."""
    return run_round(ctx.workdir, ctx.report, lambda: PipelineRound(ctx), ctx.figures)


def _redact(ctx: PipelineRoundContext, outcome: RoundOutcome) -> None:
    """What the round reports of its processes' output, without the backend's environment
    values (the lab's processes never get them, but a Collector's log may quote a value)."""
    own_input = f"{ctx.workdir}\n{pipelines.LAB_DIR}"
    if outcome.error:
        outcome.error = redact_environment(outcome.error, own_input)
    if outcome.service_log_tail:
        outcome.service_log_tail = redact_environment(outcome.service_log_tail, own_input)


def collectors_of(outcome: RoundOutcome) -> dict[str, dict[str, Any]]:
    collectors: dict[str, dict[str, Any]] = (outcome.resources or {}).get("collectors", {})
    return collectors


def _samples(variant: VariantSpec) -> bool:
    """Whether the variant samples (keeps some traces out on purpose). A user's own overlay is
    taken as not sampling: its every missing span counts as lost."""
    shipped = pipelines.VARIANTS.get(variant.pipeline or "")
    return bool(shipped and shipped.samples)


def _generator_tail(log: Path) -> str:
    return f"\ntelemetrygen:\n{telemetrygen.log_tail(log, 10)}" if log.exists() else ""
