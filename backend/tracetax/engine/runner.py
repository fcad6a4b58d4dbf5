"""One (round, configuration) of an experiment: start the service, warm up, measure the
open-model phase while sampling resources, find the maximum throughput, stop gracefully.

Everything here is blocking and runs in the engine's worker thread. Every process started is
stopped on every path out (success, failure, cancellation).
"""

from __future__ import annotations

import math
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracetax.engine.loadgen import LoadDriver, LoadError, RunningLoad
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.engine.spec import CommandServiceRef, ConfigurationSpec, ExperimentSpec
from tracetax.ports import free_port
from tracetax.profiling import folded
from tracetax.profiling.samplers import SAMPLERS, SamplerError, StackSampler
from tracetax.services.catalog import ServiceManifest
from tracetax.services.process import ServiceError, ServiceProcess

SERVICE_START_TIMEOUT_S = 60.0
STOP_GRACE_S = 20.0
# After a round's service has stopped (and flushed), the Collector forwards what it holds and
# reports its own counters (every second); the span ledger attributes those counters to the
# round by time window, so the next round waits this long before it starts.
SETTLE_S = 2.5


class RoundCancelledError(RuntimeError):
    """The experiment was cancelled (or the backend is stopping) while this round ran."""


@dataclass(frozen=True)
class Placement:
    """Which cores the service and the load generator are pinned to (None: not pinned)."""

    service_cpus: set[int] | None
    loadgen_cpus: set[int] | None

    @classmethod
    def for_this_machine(cls) -> Placement:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            return cls(None, None)
        # Service on the last core, load generator on the one before: the service gets a core
        # of its own; the stack and the engine share the rest with the load generator.
        return cls({cpus[-1]}, {cpus[-2]})

    def describe(self) -> dict[str, Any]:
        return {
            "cores": os.cpu_count(),
            "service_cpus": sorted(self.service_cpus) if self.service_cpus else None,
            "loadgen_cpus": sorted(self.loadgen_cpus) if self.loadgen_cpus else None,
            "method": "sched_setaffinity" if self.service_cpus else "none (single core)",
        }


@dataclass
class RoundOutcome:
    status: str  # completed | failed | cancelled
    error: str | None = None
    requests_total: int = 0
    service_log_tail: str | None = None
    exit_code: int | None = None
    histogram: str | None = None
    open_phase: dict[str, Any] | None = None
    max_throughput_rps: float | None = None
    closed_phase: dict[str, Any] | None = None
    samples: list[dict[str, Any]] = field(default_factory=list)
    resources: dict[str, Any] | None = None
    stack_profile: dict[str, Any] | None = None
    folded_stacks: str | None = None


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
    # report(phase, phase_duration_s, extra) -> publishes a Progress event
    report: Callable[[str, float | None, dict[str, Any]], None]


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
    }


def _resource_attributes(env: dict[str, str], run_id: str, configuration: str) -> str:
    extra = env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    ours = f"tracetax.run.id={run_id},tracetax.config={configuration}"
    return f"{extra},{ours}" if extra else ours


def _stack_sampler(ctx: RoundContext) -> StackSampler | None:
    """The service's own stack sampler (from its manifest), when the spec asks for stacks."""
    profiling = ctx.manifest.profiling if ctx.manifest else None
    if not ctx.spec.sample_stacks or ctx.manifest is None or profiling is None or profiling.sampler is None:
        return None
    return SAMPLERS[profiling.sampler](ctx.manifest.directory, ctx.workdir)


def _sampled_seconds(duration_s: float) -> int:
    # Whole seconds (pprof and py-spy take no fractions), ending before the measured phase does.
    return max(1, math.floor(duration_s - 0.5))


def _service_process(ctx: RoundContext, sampler: StackSampler | None) -> ServiceProcess:
    service = ctx.spec.service
    log_path = ctx.workdir / "service.log"
    if isinstance(service, CommandServiceRef):
        port = service.port
        argv, cwd, health = service.argv, Path(service.cwd or "."), service.health_path
    else:
        if ctx.manifest is None:
            raise ServiceError(f"no manifest for demo service {service.language}")
        port = free_port()
        argv, cwd, health = ctx.manifest.argv(ctx.configuration.processor), ctx.manifest.directory, "/healthz"
    env = service_environment(ctx, port)
    if sampler is not None:
        argv, env = sampler.argv(argv), {**env, **sampler.environment()}
    return ServiceProcess(
        argv,
        cwd=cwd,
        env=env,
        port=port,
        log_path=log_path,
        health_path=health,
        name=f"{ctx.configuration.name} service",
        cpus=ctx.placement.service_cpus,
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
    started = time.monotonic()
    while running.poll() is None:
        elapsed = time.monotonic() - started
        if ctx.cancel.is_set():
            running.kill()
            raise RoundCancelledError()
        code = service.poll()
        if code is not None:
            running.kill()
            raise ServiceError(f"the service exited with code {code} during {phase}\n{service.last_lines()}")
        if elapsed > duration_s + 30:
            running.kill()
            raise LoadError(f"{ctx.driver.name} did not finish {phase} within {duration_s + 30:.0f}s")
        extra: dict[str, Any] = {"phase_elapsed_s": round(min(elapsed, duration_s), 1)}
        utilization = _recent_utilization(sampler)
        if utilization is not None:
            extra["service_cpu_utilization"] = utilization
        ctx.report(phase, duration_s, extra)
        time.sleep(min(1.0, max(0.05, duration_s + 0.5 - elapsed)))
    running.check()


def _recent_utilization(sampler: Sampler | None) -> float | None:
    if sampler is None or len(sampler.samples) < 2:
        return None
    a, b = sampler.samples[-2], sampler.samples[-1]
    dt = b["t"] - a["t"]
    used = (b["cpu_user_s"] + b["cpu_system_s"]) - (a["cpu_user_s"] + a["cpu_system_s"])
    return round(used / dt, 3) if dt > 0 else None


def _warm_up(ctx: RoundContext, service: ServiceProcess, url: str) -> int:
    """Warm-up at the target rate, in 1 s slices so live rate and p99 are reported; not stored."""
    load = ctx.spec.load
    remaining = load.warmup_s
    answered = 0
    while remaining > 0:
        slice_s = min(1.0, remaining)
        running = ctx.driver.start_open(
            url, load.rate, slice_s, load.connections, ctx.workdir / "warmup", ctx.placement.loadgen_cpus
        )
        _await_load(ctx, running, slice_s, "warmup", service)
        result = ctx.driver.open_result(running)
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


def run_round(ctx: RoundContext) -> RoundOutcome:
    """Run one round of one configuration; never raises for service or load failures."""
    shutil.rmtree(ctx.workdir, ignore_errors=True)
    ctx.workdir.mkdir(parents=True)
    load = ctx.spec.load
    sampler = _stack_sampler(ctx)
    service = _service_process(ctx, sampler)
    outcome = RoundOutcome(status="failed")
    try:
        ctx.report("starting", None, {})
        service.start()
        service.wait_healthy(SERVICE_START_TIMEOUT_S)
        sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.prepare(service.pid))
        url = f"{service.base_url}{load.url_path()}"
        outcome.requests_total += _warm_up(ctx, service, url)

        running = ctx.driver.start_open(
            url, load.rate, load.duration_s, load.connections, ctx.workdir, ctx.placement.loadgen_cpus
        )
        resources = Sampler(service.pid, running.pid)
        resources.start()
        seconds = _sampled_seconds(load.duration_s)
        if sampler is not None:
            outcome.stack_profile = {"sampler": sampler.name, "seconds": seconds}
        sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.start(service.pid, seconds))
        try:
            _await_load(ctx, running, load.duration_s, "measuring", service, resources)
        finally:
            outcome.samples = resources.stop()
        sampler = _sampler_step(sampler, outcome, lambda stacks: stacks.end_window())
        open_result = ctx.driver.open_result(running)
        outcome.requests_total += open_result.requests
        outcome.histogram = open_result.histogram
        outcome.open_phase = {key: value for key, value in open_result.__dict__.items() if key != "histogram"}
        outcome.resources = resource_summary(outcome.samples, open_result.requests)
        ctx.report(
            "measuring",
            load.duration_s,
            {
                "phase_elapsed_s": load.duration_s,
                "current_rps": round(open_result.achieved_rps, 1),
                "current_p99_us": open_result.summary.get("percentiles_us", {}).get("99"),
            },
        )

        if load.max_throughput_s > 0:
            closed = ctx.driver.start_closed(
                url, load.max_throughput_s, load.connections, ctx.workdir, ctx.placement.loadgen_cpus
            )
            _await_load(ctx, closed, load.max_throughput_s, "max-throughput", service)
            closed_result = ctx.driver.closed_result(closed)
            outcome.requests_total += closed_result.requests
            outcome.max_throughput_rps = closed_result.rps
            outcome.closed_phase = closed_result.__dict__
            ctx.report("max-throughput", load.max_throughput_s, {"current_rps": round(closed_result.rps, 1)})

        ctx.report("stopping", None, {})
        outcome.exit_code = service.stop(STOP_GRACE_S)
        if outcome.exit_code != 0:
            raise ServiceError(f"the service did not exit cleanly after SIGTERM (exit code {outcome.exit_code})")
        _collect_stacks(sampler, outcome)
        outcome.status = "completed"
        time.sleep(SETTLE_S)
    except RoundCancelledError:
        outcome.status = "cancelled"
        outcome.error = "cancelled"
    except (ServiceError, LoadError, OSError) as error:
        outcome.status = "failed"
        outcome.error = str(error)
    finally:
        if sampler is not None:
            sampler.cancel()
        outcome.exit_code = service.stop(2) if outcome.exit_code is None else outcome.exit_code
        outcome.service_log_tail = service.last_lines(40) if outcome.status != "completed" else None
    return outcome


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
    """Fold the samples once the service has stopped (Node writes its profile on exit)."""
    if sampler is None or outcome.stack_profile is None:
        return
    try:
        stacks = sampler.folded()
    except (SamplerError, OSError, ValueError) as error:
        outcome.stack_profile["error"] = str(error)
        return
    outcome.stack_profile["samples"] = sum(stacks.values())
    outcome.folded_stacks = folded.render(stacks)
