"""One (round, configuration) of an experiment: start the service, warm up, measure the
open-model phase while sampling resources, find the maximum throughput, stop gracefully.

Everything here is blocking and runs in the engine's worker thread. Every process started is
stopped on every path out (success, failure, cancellation).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tracetax.demos import zero_code
from tracetax.demos.catalog import ConcurrencyKnob, ServiceManifest
from tracetax.demos.process import ServiceError, ServiceProcess
from tracetax.diagnostics.service_figures import ServiceClosedPhase, ServiceFigures, ServiceOpenPhase
from tracetax.engine import rate_schedules
from tracetax.engine.isolation import PhaseWatch
from tracetax.engine.loadgen import LoadDriver, LoadError, OpenPhaseResult, Requests, RunningLoad
from tracetax.engine.round import (
    STOP_GRACE_S,
    Report,
    RoundNotStartedError,
    RoundOutcome,
    hold_phase,
    shutdown_record,
)
from tracetax.engine.round import run_round as run_round_skeleton
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.engine.settle import Settle, fixed_settle
from tracetax.profiling import folded
from tracetax.profiling.samplers import SAMPLERS, AnyServiceSampler, SamplerError, StackSampler
from tracetax.spec.service import CommandServiceRef, ConfigurationSpec, ExperimentSpec, LoadSpec
from tracetax.system.placement import Placement
from tracetax.system.ports import free_port, holder_of, port_in_use

SERVICE_START_TIMEOUT_S = 60.0
# A round stopped early (cancelled, or the backend stops) still ends its service with SIGTERM
# and this long to flush its exporters: short enough to fit in TRACETAX_SHUTDOWN_GRACE_S.
CANCELLED_STOP_GRACE_S = 5.0
# After a round's service has stopped (and flushed), the Collector forwards what it holds and
# its own counters are sampled (every second); the span ledger attributes those counters to the
# round by time window, so the round settles before it ends (engine/settle.py). A configuration
# that exports nothing (`none`) leaves nothing to settle: no wait after it.


@dataclass
class RoundContext:
    spec: ExperimentSpec
    configuration: ConfigurationSpec
    manifest: ServiceManifest | None
    run_id: str
    workdir: Path
    otlp_endpoint: str
    placement: Placement
    driver: LoadDriver
    cancel: threading.Event
    report: Report
    # The wait after the phase's service stops (engine/settle.py).
    settle: Settle = fixed_settle
    # What the round's phases measured: the outcome's figures.
    figures: ServiceFigures = field(default_factory=ServiceFigures)
    # The ports this instance listens on: a demo's and a `{port}` command's picked now, free;
    # a command's fixed `service.port` as declared.
    ports: InstancePorts = field(init=False)

    def __post_init__(self) -> None:
        self.ports = InstancePorts.for_service(self.spec)


@dataclass(frozen=True)
class InstancePorts:
    port: int
    # A Go command service's pprof port: declared, or picked for `{pprof_port}`; None otherwise.
    pprof_port: int | None

    @classmethod
    def for_service(cls, spec: ExperimentSpec) -> InstancePorts:
        service = spec.service
        if not isinstance(service, CommandServiceRef):
            return cls(free_port(), None)
        port = service.port if service.port is not None else free_port()
        return cls(port, free_port() if service.pprof_placeholder else service.pprof_port)


def service_environment(ctx: RoundContext, port: int) -> dict[str, str]:
    configuration = ctx.configuration
    return {
        "OTEL_SERVICE_NAME": ctx.spec.service_name,
        "OTEL_EXPORTER_OTLP_ENDPOINT": ctx.otlp_endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_METRIC_EXPORT_INTERVAL": "5000",
        **configuration.env,
        # Set last: a configuration cannot override identity, port or processor.
        "OTEL_RESOURCE_ATTRIBUTES": _resource_attributes(configuration.env, ctx.run_id, configuration.name),
        "TRACETAX_PROCESSOR": configuration.processor,
        "PORT": str(port),
        **({"TRACETAX_INJECT_BUSY_US": str(configuration.inject_busy_us)} if configuration.inject_busy_us else {}),
        **injected_background(configuration),
        **concurrency_environment(configuration, ctx.manifest),
    }


def injected_background(configuration: ConfigurationSpec) -> dict[str, str]:
    """A demo's background-only injected cost (a thread burning CPU every period, off the request path)."""
    if not configuration.inject_background_us:
        return {}
    return {
        "TRACETAX_INJECT_BACKGROUND_US": str(configuration.inject_background_us),
        "TRACETAX_INJECT_BACKGROUND_PERIOD_MS": str(configuration.inject_background_period_ms),
    }


def concurrency_environment(configuration: ConfigurationSpec, manifest: ServiceManifest | None) -> dict[str, str]:
    """The configuration's concurrency knobs as the variables the service reads: a demo's from
    its manifest, GOMAXPROCS for a Go command (the only knob a command service is given)."""
    variables: dict[ConcurrencyKnob, str] = {"gomaxprocs": "GOMAXPROCS"}
    if manifest is not None:
        variables = manifest.concurrency
    return {variables[knob]: str(value) for knob, value in configuration.concurrency.knobs().items()}


def concurrency_record(ctx: RoundContext) -> dict[str, Any]:
    """What the round ran with, beside its figures: the knobs set and the cores it had."""
    configuration = ctx.configuration
    record: dict[str, Any] = {str(knob): value for knob, value in configuration.concurrency.knobs().items()}
    cores = service_cores(configuration, ctx.placement)
    if configuration.concurrency.cores is not None and cores is not None:
        record["service_cpus"] = sorted(cores)
    return record


def service_cores(configuration: ConfigurationSpec, placement: Placement) -> set[int] | None:
    """The service's cores: the first `concurrency.cores` of the placement's (all of them when unset)."""
    cores, cpus = configuration.concurrency.cores, placement.service_cpus
    return cpus if cores is None or cpus is None else set(sorted(cpus)[:cores])


def _resource_attributes(env: dict[str, str], run_id: str, configuration: str) -> str:
    extra = env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    # Values are percent-encoded in this variable (the SDKs decode them): a name like
    # sampled-10% would otherwise be refused as a bad escape.
    ours = f"tracetax.run.id={quote(run_id, safe='')},tracetax.config={quote(configuration, safe='')}"
    return f"{extra},{ours}" if extra else ours


def _stack_sampler(ctx: RoundContext) -> StackSampler | None:
    """The service's stack sampler, when the spec asks for stacks: a demo's from its manifest, a
    user's own service's chosen by the runtime it turns out to run (AnyServiceSampler)."""
    service = ctx.spec.service
    if not ctx.spec.sample_stacks:
        return None
    if isinstance(service, CommandServiceRef):
        sampler: StackSampler = AnyServiceSampler(ctx.workdir, service.language, ctx.ports.pprof_port)
        sampler.cpus = ctx.placement.stack_cpus
        return sampler
    profiling = ctx.manifest.profiling if ctx.manifest else None
    if ctx.manifest is None or profiling is None or profiling.sampler is None:
        return None
    sampler = SAMPLERS[profiling.sampler](ctx.manifest.directory, ctx.workdir)
    workers = ctx.configuration.concurrency.workers
    if workers is not None and workers > 1:
        sampler.serve_from_workers(workers)
    sampler.cpus = ctx.placement.stack_cpus  # py-spy, jcmd: on the stack's cores
    return sampler


def _sampled_seconds(duration_s: float) -> int:
    # Whole seconds (pprof and py-spy take no fractions), ending before the measured phase does.
    return max(1, math.floor(duration_s - 0.5))


def service_process(ctx: RoundContext, sampler: StackSampler | None) -> tuple[ServiceProcess, str | None]:
    """The service's process, and how a user's own service is launched (in words)."""
    service = ctx.spec.service
    log_path = ctx.workdir / "service.log"
    extra_env: dict[str, str] = {}
    defaults: dict[str, str] = {}
    launch: str | None = None
    if isinstance(service, CommandServiceRef):
        port, cwd, health = ctx.ports.port, service.expanded_cwd(), service.health_path
        if service.port is not None and port_in_use(port):
            raise ServiceError(
                f"port {port} (service.port) is already in use, held by {holder_of(port)}: stop that process "
                "or declare the port your service listens on"
            )
        try:
            launched = zero_code.launch(
                service.expanded_argv(port, ctx.ports.pprof_port),
                cwd,
                service.language,
                ctx.configuration.processor,
                cpu_profile=isinstance(sampler, AnyServiceSampler) and sampler.preloads_node_profiler,
            )
        except zero_code.LaunchUnavailableError as error:
            raise ServiceError(f"{ctx.configuration.name}: cannot launch the service: {error}") from error
        argv, extra_env, defaults, launch = launched.argv, launched.env, launched.defaults, launched.description
    else:
        if ctx.manifest is None:
            raise ServiceError(f"no manifest for demo service {service.language}")
        port = ctx.ports.port
        argv, cwd, health = ctx.manifest.argv(ctx.configuration.processor), ctx.manifest.directory, "/healthz"
    env = {**defaults, **service_environment(ctx, port), **extra_env}
    if sampler is not None:
        argv, env = sampler.argv(argv), {**env, **sampler.environment()}
    process = ServiceProcess(
        argv,
        cwd=cwd,
        env=env,
        port=port,
        log_path=log_path,
        health_path=health,
        name=f"{ctx.configuration.name} service",
        cpus=service_cores(ctx.configuration, ctx.placement),
    )
    return process, launch


def startup_timeout(spec: ExperimentSpec) -> float:
    service = spec.service
    return service.startup_timeout_s if isinstance(service, CommandServiceRef) else SERVICE_START_TIMEOUT_S


def requests_of(load: LoadSpec, base_url: str) -> Requests:
    """The load's requests against the running service."""
    return Requests(
        urls=tuple((f"{base_url}{target}", weight) for target, weight in load.targets()),
        method=load.method,
        headers=tuple(load.headers.items()),
        body=load.body,
    )


def _await_load(
    ctx: RoundContext,
    running: RunningLoad,
    duration_s: float,
    phase: str,
    service: ServiceProcess,
    sampler: Sampler | None = None,
) -> None:
    """Wait for a load phase, reporting progress each second; stop at once on cancel or when
    the service dies; give up 30 s after the phase should have ended."""

    def watch(elapsed: float) -> None:
        code = service.poll()
        if code is not None:
            raise ServiceError(f"the service exited with code {code} during {phase}\n{service.last_lines()}")
        if elapsed > duration_s + 30:
            raise LoadError(f"{ctx.driver.name} did not finish {phase} within {duration_s + 30:.0f}s")

    def live() -> dict[str, Any]:
        utilization = _recent_utilization(sampler)
        return {} if utilization is None else {"service_cpu_utilization": utilization}

    hold_phase(
        ctx.cancel,
        ctx.report,
        phase,
        duration_s,
        watch=watch,
        until=lambda _elapsed: running.poll() is not None,
        live=live,
        stop=running.kill,
    )
    running.check()


def _recent_utilization(sampler: Sampler | None) -> float | None:
    if sampler is None or len(sampler.samples) < 2:
        return None
    a, b = sampler.samples[-2], sampler.samples[-1]
    dt = b["t"] - a["t"]
    used = (b["cpu_user_s"] + b["cpu_system_s"]) - (a["cpu_user_s"] + a["cpu_system_s"])
    return round(used / dt, 3) if dt > 0 else None


def _warm_up(ctx: RoundContext, service: ServiceProcess, requests: Requests) -> int:
    """Warm-up at the target rate, in 1 s slices so live rate and p99 are reported; not stored."""
    load = ctx.spec.load
    remaining = load.warmup_s
    answered = 0
    while remaining > 0:
        slice_s = min(1.0, remaining)
        running = ctx.driver.start_open(
            requests, load.rate, slice_s, load.connections, ctx.workdir / "warmup", ctx.placement.loadgen_cpus
        )
        _await_load(ctx, running, slice_s, "warmup", service)
        result = ctx.driver.open_result(running)
        require_answers(result, "the warm-up")
        answered += result.requests
        ctx.report(
            "warmup",
            load.warmup_s,
            {
                "phase_elapsed_s": round(load.warmup_s - remaining + slice_s, 1),
                "current_rps": round(result.achieved_rps, 1),
                "current_p99_us": result.summary.get("percentiles_us", {}).get("99"),
            },
        )
        remaining -= slice_s
    return answered


@dataclass
class ServiceRound:
    """One round of a service, as the engine's round skeleton drives it."""

    ctx: RoundContext
    service: ServiceProcess
    sampler: StackSampler | None
    # How a user's own service was launched (in words), kept with the round's figures.
    launch: str | None
    failures: tuple[type[Exception], ...] = (ServiceError, LoadError, OSError)
    # Set once the measured phases are done: a later failure says so.
    measured: bool = False

    def phases(self, outcome: RoundOutcome) -> None:
        ctx, service = self.ctx, self.service
        service.start()
        service.wait_healthy(startup_timeout(ctx.spec))
        requests = requests_of(ctx.spec.load, service.base_url)
        ctx.figures.requests_total += _warm_up(ctx, service, requests)
        _measure_open(ctx, service, requests, outcome)
        self.sampler = _sample_stacks(ctx, service, requests, self.sampler, outcome)
        _measure_closed(ctx, service, requests, outcome)
        self.measured = True
        ctx.report("stopping", None, {})
        outcome.exit_code = service.stop(STOP_GRACE_S)
        stopped_at = time.time()
        # When its last telemetry left: the ledger reads the round ledger_settle_s after it.
        outcome.shutdown = {**shutdown_record(outcome.exit_code, STOP_GRACE_S), "stopped_at": round(stopped_at, 3)}
        _collect_stacks(self.sampler, outcome)
        if self.launch is not None and outcome.resources is not None:  # kept with the round's figures
            outcome.resources["launch"] = self.launch
        if outcome.resources is not None and (concurrency := concurrency_record(ctx)):
            outcome.resources["concurrency"] = concurrency
        if ctx.configuration.exports_anything():  # nothing exported: nothing to settle
            ctx.settle(stopped_at)

    def clean_up(self, outcome: RoundOutcome) -> None:
        if self.sampler is not None:
            self.sampler.cancel()
        if outcome.exit_code is None:
            outcome.exit_code = self.service.stop(CANCELLED_STOP_GRACE_S)
            if outcome.status == "cancelled" and outcome.exit_code is not None:
                outcome.shutdown = shutdown_record(outcome.exit_code, CANCELLED_STOP_GRACE_S)
        if outcome.status == "failed" and self.measured:
            outcome.error = f"after the measured phases: {outcome.error}"
        outcome.service_log_tail = self.service.last_lines(40) if outcome.status != "completed" else None


def begin_round(ctx: RoundContext) -> ServiceRound:
    """The round's stack sampler and service process, neither started yet."""
    sampler = _stack_sampler(ctx)
    try:
        service, launch = service_process(ctx, sampler)
    except ServiceError as error:  # nothing was started
        raise RoundNotStartedError(str(error)) from error
    return ServiceRound(ctx, service, sampler, launch)


def run_round(ctx: RoundContext) -> RoundOutcome:
    """Run one round of one configuration; never raises for service or load failures.

    Phases: warm-up, the measured open-model phase (resource samples), the stacks phase (the
    stack sampler under the same load, never measured), the closed-loop phase, the stop."""
    return run_round_skeleton(ctx.workdir, ctx.report, lambda: begin_round(ctx), ctx.figures)


def require_answers(result: OpenPhaseResult, phase: str) -> None:
    """A phase in which no request succeeded measured nothing: fail the round saying what the
    service answered, instead of keeping a round without latencies."""
    if result.requests == 0 and result.errors:
        answers = ", ".join(f"HTTP {code} x{count}" for code, count in sorted(result.status_codes.items()))
        kinds = ", ".join(f"{kind} x{count}" for kind, count in sorted(result.error_kinds.items()))
        raise LoadError(
            f"no request succeeded in {phase} ({answers or kinds}): check load.path and load.query (or "
            "load.paths), load.method, load.headers and load.body against what the service accepts"
        )


def _measure_open(ctx: RoundContext, service: ServiceProcess, requests: Requests, outcome: RoundOutcome) -> None:
    """The measured open-model phase, with resource samples (and nothing of ours on the service's cores)."""
    load = ctx.spec.load
    running = ctx.driver.start_open(
        requests,
        load.rate,
        load.duration_s,
        load.connections,
        ctx.workdir,
        ctx.placement.loadgen_cpus,
        schedule=load.steps(),
    )
    resources = Sampler(service.pid, running.pid)
    resources.start()
    watch = PhaseWatch(ctx.placement, service.pid, running.pid)
    watch.start()
    try:
        _await_load(ctx, running, load.duration_s, "measuring", service, resources)
    finally:
        outcome.samples = resources.stop()
        watch.stop()
    open_result = ctx.driver.open_result(running)
    require_answers(open_result, "the measured phase")
    ctx.figures.requests_total += open_result.requests
    outcome.histogram = open_result.histogram
    ctx.figures.open_phase = ServiceOpenPhase.model_validate(
        {key: value for key, value in open_result.__dict__.items() if key != "histogram"}
    )
    outcome.resources = resource_summary(outcome.samples, open_result.requests)
    outcome.resources["isolation"] = {"open": watch.isolation(open_result.requests)}
    ctx.report(
        "measuring",
        load.duration_s,
        {
            "phase_elapsed_s": load.duration_s,
            "current_rps": round(open_result.achieved_rps, 1),
            "current_p99_us": open_result.summary.get("percentiles_us", {}).get("99"),
        },
    )


def _measure_closed(ctx: RoundContext, service: ServiceProcess, requests: Requests, outcome: RoundOutcome) -> None:
    """The closed-loop phase: the highest throughput the service sustains."""
    load = ctx.spec.load
    if load.max_throughput_s <= 0:
        return
    closed = ctx.driver.start_closed(
        requests, load.max_throughput_s, load.connections, ctx.workdir, ctx.placement.loadgen_cpus
    )
    watch = PhaseWatch(ctx.placement, service.pid, closed.pid)
    watch.start()
    try:
        _await_load(ctx, closed, load.max_throughput_s, "max-throughput", service)
    finally:
        watch.stop()
    closed_result = ctx.driver.closed_result(closed)
    ctx.figures.requests_total += closed_result.requests
    ctx.figures.max_throughput_rps = closed_result.rps
    # limited_by (service / load generator / stack / none / unknown), why, and the utilisations.
    ctx.figures.closed_phase = ServiceClosedPhase.model_validate({**closed_result.__dict__, **watch.limiter()})
    if outcome.resources is not None:
        outcome.resources.setdefault("isolation", {})["closed"] = watch.isolation(closed_result.requests)
    ctx.report("max-throughput", load.max_throughput_s, {"current_rps": round(closed_result.rps, 1)})


def _sample_stacks(
    ctx: RoundContext, service: ServiceProcess, requests: Requests, sampler: StackSampler | None, outcome: RoundOutcome
) -> StackSampler | None:
    """The stacks phase: the same open-model load for `stacks_s`, with the stack sampler
    attached. Nothing of it is measured, so the sampler's cost never reaches a figure; its
    requests count in the ledger like every other request the service answered."""
    load = ctx.spec.load
    if sampler is None:
        return None
    seconds = _sampled_seconds(load.stacks_s)
    outcome.stack_profile = {"sampler": sampler.name, "seconds": seconds, "phase": "stacks (after the measured phase)"}
    sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.prepare(service.pid))
    if sampler is None:
        return None
    if isinstance(sampler, AnyServiceSampler):  # chosen now, by the runtime it detected
        outcome.stack_profile.update(sampler=sampler.name, runtime=sampler.runtime)
    # Sliding, not at one rate: a load locked to the kernel's tick or the sampler's timer is
    # sampled at one point of its requests, or not at all (engine/rate_schedules.py).
    running = ctx.driver.start_open(
        requests,
        load.rate,
        load.stacks_s,
        load.connections,
        ctx.workdir / "stacks",
        ctx.placement.loadgen_cpus,
        schedule=rate_schedules.sliding(load.rate, load.stacks_s),
    )
    sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.start(service.pid, seconds))
    _await_load(ctx, running, load.stacks_s, "stacks", service)
    sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.end_window())
    ctx.figures.requests_total += ctx.driver.open_result(running).requests
    return sampler


def _sampler_step(
    sampler: StackSampler | None, outcome: RoundOutcome, step: Callable[[StackSampler], None]
) -> StackSampler | None:
    """Run one step of the stack sampler. A sampler that fails is recorded in the outcome and
    dropped; the round goes on without stacks."""
    if sampler is None:
        return None
    try:
        step(sampler)
    except (SamplerError, OSError) as error:
        sampler.cancel()
        outcome.stack_profile = {**(outcome.stack_profile or {"sampler": sampler.name}), "error": str(error)}
        return None
    return sampler


def _collect_stacks(sampler: StackSampler | None, outcome: RoundOutcome) -> None:
    """Fold the samples once the service has stopped."""
    if sampler is None or outcome.stack_profile is None:
        return
    try:
        stacks = sampler.folded()
    except (SamplerError, OSError, ValueError) as error:
        outcome.stack_profile["error"] = str(error)
        return
    outcome.stack_profile["samples"] = sum(stacks.values())
    outcome.folded_stacks = folded.render(stacks)
