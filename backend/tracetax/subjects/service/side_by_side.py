"""The side-by-side phase of a service's round: every configuration of the round live at once
on the service cores, each under its own open-model load at the spec's rate, started together
(the measured part's rates a step apart and swapped at half time: engine/rate_schedules.py).

Why: on a shared two-core VM the service core's speed wanders by up to 2x within minutes
(../shared/studies/noise, docs/diagnostics.md). Configurations measured one after the other
see different speeds, and that wander is most of the interval of CPU per request and p50.
Live together, they see the same speed at every instant: the per-second ratio of their CPU
per request spreads 0.024 instead of 0.16. So CPU per request, RSS and p50 are paired from
this phase; tails and the maximum throughput are not (a neighbour's export bursts would land
in them) and keep coming from each configuration alone on the core (runner.py).

Each instance gets its own port and its own run id (`<round run id>-side`): the phase's
telemetry is not the round's, whose ledger counts the solo phases' requests. The phase runs
before the round's solo slots start and settles after its services stop, so the Collector's
counters it causes fall outside every round's time window.

With `load.side_by_side_instances` above 1, each configuration runs that many instances, each
under its own load at the spec's rate, and its figures pool theirs: two fresh processes of one
build differ by a few percent (a JVM's compiled code most), which more instances average out.

Everything here is blocking and runs in the engine's worker thread; every process started is
stopped on every path out.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from tracetax.demos.process import ServiceError, ServiceProcess
from tracetax.diagnostics.overhead import SIDE_BY_SIDE_MAX_SHARE_GAP
from tracetax.diagnostics.service_figures import ServiceSideBySide
from tracetax.engine import histogram as hdr
from tracetax.engine import rate_schedules
from tracetax.engine.figures import known_sum
from tracetax.engine.loadgen import LoadError, OpenPhaseResult, RunningLoad
from tracetax.engine.round import STOP_GRACE_S, RoundCancelledError, TogetherSlot, hold_phase
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.subjects.service.runner import (
    RoundContext,
    requests_of,
    require_answers,
    service_process,
    startup_timeout,
)
from tracetax.subjects.together import SIDE_RUN_SUFFIX, cpu_shares, start_order, utilisation
from tracetax.system import procfs
from tracetax.system.stored_json import Number

__all__ = ["SIDE_RUN_SUFFIX", "latency_flag", "pooled_figures", "run_side_by_side", "share_gap_note"]
# Above this busy share of the service cores, requests often wait for a neighbour's turn on
# the core: latencies then measure the queue behind the other configurations, not the
# configuration, and the phase's p50 is not used (CPU per request and RSS still are). At the
# default rate the Go demo pair keeps the core about 25% busy, the Java pair about 40%; an
# M/M/1 queue at 0.8 already waits four service times on average.
LATENCY_MAX_SERVICE_BUSY = 0.80
# The load generators share one core: saturated, they send late and the open model bends.
LATENCY_MAX_LOADGEN_BUSY = 0.90


@dataclass
class Instance:
    """One live instance of a configuration in the phase."""

    ctx: RoundContext
    service: ServiceProcess
    # Which of its configuration's instances (1-based; one unless load.side_by_side_instances).
    number: int = 1
    # Its load's rate steps in the measured phase (tracetax.engine.rate_schedules.staggered).
    schedule: rate_schedules.Schedule = field(default_factory=list)
    load: RunningLoad | None = None
    sampler: Sampler | None = None
    result: OpenPhaseResult | None = None
    resources: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.ctx.configuration.name

    @property
    def label(self) -> str:
        """The configuration's name, with the instance's number when it has several."""
        copies = self.ctx.spec.load.side_by_side_instances
        return self.name if copies == 1 else f"{self.name} (instance {self.number} of {copies})"


def run_side_by_side(slot: TogetherSlot, contexts: list[RoundContext]) -> dict[str, ServiceSideBySide]:
    """Run the phase; every configuration's figures, or each with the reason it has none.
    Never raises for the services' or the load's failures; returns {} when cancelled."""
    instances: list[Instance] = []
    try:
        for ctx in contexts:
            for number in range(1, ctx.spec.load.side_by_side_instances + 1):
                # A further instance: its own ports (picked afresh) and its own directory.
                own = ctx if number == 1 else replace(ctx, workdir=ctx.workdir / f"instance-{number}")
                own.workdir.mkdir(parents=True, exist_ok=True)
                service, _launch = service_process(own, None)
                instances.append(Instance(own, service, number))
        return _phases(slot, instances)
    except RoundCancelledError:
        return {}
    except (ServiceError, LoadError, OSError) as error:
        why = f"the side-by-side phase failed: {error}"
        return {ctx.configuration.name: ServiceSideBySide(error=why) for ctx in contexts}
    finally:
        _stop_all(instances)


def _phases(slot: TogetherSlot, instances: list[Instance]) -> dict[str, ServiceSideBySide]:
    load = instances[0].ctx.spec.load
    slot.report("starting", None, {})
    for instance in instances:  # one after the other: each pinned before the next one starts
        instance.service.start()
    for instance in instances:
        instance.service.wait_healthy(startup_timeout(instance.ctx.spec))
    staggered = rate_schedules.staggered(len(instances), load.rate, load.side_by_side_seconds, slot.round_index)
    for instance, schedule in zip(instances, staggered, strict=True):
        instance.schedule = schedule
    if load.side_by_side_warmup_seconds > 0:
        _together(slot, instances, load.side_by_side_warmup_seconds, "warmup", measure=False)
    before = procfs.read_cpu_times()
    _together(slot, instances, load.side_by_side_seconds, "side-by-side", measure=True)
    after = procfs.read_cpu_times()
    by_configuration: dict[str, list[Instance]] = defaultdict(list)
    for instance in instances:
        by_configuration[instance.name].append(instance)
    busy = utilisation(slot, before, after)
    # A process's own share of the core (the mean of a configuration's instances): what its
    # requests' wait behind a neighbour depends on (share_gap_note).
    busy["configurations"] = cpu_shares(
        {name: _mean_cpu_s(group) for name, group in by_configuration.items()}, load.side_by_side_seconds
    )
    flagged = latency_flag(busy)
    note = flagged or share_gap_note(busy)
    return {
        name: _figures(group, busy, flagged, note)
        for name, group in by_configuration.items()
        if all(instance.result is not None for instance in group)
    }


def _together(slot: TogetherSlot, instances: list[Instance], seconds: float, phase: str, *, measure: bool) -> None:
    """Every instance under its own load for `seconds`, started together (in a shuffled order,
    so that no configuration is always the first to be loaded)."""
    load = instances[0].ctx.spec.load
    order = start_order(instances, slot.round_index, phase)
    if measure:
        for instance in order:
            instance.sampler = Sampler(instance.service.pid)
            instance.sampler.start()
    loads: list[tuple[Instance, RunningLoad]] = []
    for instance in order:
        ctx = instance.ctx
        instance.load = ctx.driver.start_open(
            requests_of(load, instance.service.base_url),
            load.rate,
            seconds,
            load.connections,
            ctx.workdir / phase,
            slot.placement.loadgen_cpus,
            # The warm-up's phase between the schedules does not matter: nothing is measured.
            schedule=instance.schedule if measure else None,
        )
        loads.append((instance, instance.load))
    samples: dict[int, list[dict[str, Any]]] = {}
    try:
        _hold(slot, instances, seconds, phase)
    finally:
        for instance in instances:
            if instance.sampler is not None:
                samples[id(instance)] = instance.sampler.stop()
                instance.sampler = None
    for instance, running in loads:
        result = instance.ctx.driver.open_result(running)
        require_answers(result, f"the side-by-side {phase} of {instance.label}")
        if measure:
            instance.result = result
            instance.resources = resource_summary(samples[id(instance)], result.requests)


def _hold(slot: TogetherSlot, instances: list[Instance], seconds: float, phase: str) -> None:
    def watch(elapsed: float) -> None:
        for instance in instances:
            code = instance.service.poll()
            if code is not None:
                raise ServiceError(
                    f"{instance.label} exited with code {code} during the side-by-side {phase}\n"
                    f"{instance.service.last_lines()}"
                )
        if elapsed > seconds + 30:
            raise LoadError(f"the load did not finish the side-by-side {phase} within {seconds + 30:.0f}s")

    def stop() -> None:
        for instance in instances:
            if instance.load is not None:
                instance.load.kill()

    hold_phase(
        slot.cancel,
        slot.report,
        phase,
        seconds,
        watch=watch,
        until=lambda _elapsed: all(i.load is not None and i.load.poll() is not None for i in instances),
        stop=stop,
    )
    for instance in instances:
        if instance.load is not None:
            instance.load.check()


def latency_flag(utilisation: dict[str, Any]) -> str | None:
    """Why none of the phase's latencies may be used, or None. Shares of the core that differ
    between configurations are judged per pair instead (share_gap_note)."""
    service, loadgen = utilisation.get("service"), utilisation.get("load_generator")
    if service is not None and service > LATENCY_MAX_SERVICE_BUSY:
        return (
            f"the service cores were {service:.0%} busy (above {LATENCY_MAX_SERVICE_BUSY:.0%}): requests queued "
            "behind the neighbours, so this round's p50 comes from the solo phases"
        )
    if loadgen is not None and loadgen > LATENCY_MAX_LOADGEN_BUSY:
        return (
            f"the load generators' core was {loadgen:.0%} busy (above {LATENCY_MAX_LOADGEN_BUSY:.0%}): requests were "
            "sent late, so this round's p50 comes from the solo phases"
        )
    return None


def share_gap_note(utilisation: dict[str, Any]) -> str | None:
    """What the configurations' unlike shares of the core mean for their p50 pairs, or None."""
    shares = [share for share in (utilisation.get("configurations") or {}).values() if share is not None]
    if len(shares) < 2 or max(shares) - min(shares) <= SIDE_BY_SIDE_MAX_SHARE_GAP:
        return None
    return (
        f"the configurations used {min(shares):.0%} to {max(shares):.0%} of the core: a pair more than "
        f"{SIDE_BY_SIDE_MAX_SHARE_GAP:.0%} apart takes its p50 from the solo phases (the lighter one's requests "
        "waited behind more of the heavier one's work); pairs of a like share keep this phase's"
    )


def _figures(
    instances: list[Instance], utilisation: dict[str, Any], flagged: str | None, note: str | None
) -> ServiceSideBySide:
    """A configuration's figures from its instances (the caller has checked each has its result)."""
    return pooled_figures(
        [instance.result for instance in instances if instance.result is not None],
        [instance.resources for instance in instances],
        [rate for _seconds, rate in instances[0].schedule],
        utilisation,
        flagged,
        note,
    )


def pooled_figures(
    results: list[OpenPhaseResult],
    resources: list[dict[str, Any]],
    rates_rps: list[Number],
    utilisation: dict[str, Any],
    flagged: str | None,
    note: str | None,
) -> ServiceSideBySide:
    """A configuration's figures pooled over its instances' measured loads and samples: CPU per
    request over all their requests, p50 and p99 from their merged latencies, RSS the mean of
    their peaks (a process's, as the solo phases' is). Any instance's unknown makes it unknown."""
    requests = sum(result.requests for result in results)
    merged = hdr.merge(result.histogram for result in results)
    percentiles = hdr.summarize(merged).percentiles_us
    cpu_s = known_sum(summary.get("cpu_s") for summary in resources)
    cpu_s = None if cpu_s is None else round(cpu_s, 6)  # as the sampler rounds one process's
    rss = known_sum(summary.get("rss_max_bytes") for summary in resources)
    return ServiceSideBySide(
        requests=requests,
        instances=len(results),
        rates_rps=rates_rps,
        achieved_rps=statistics.fmean(result.achieved_rps for result in results),
        errors=sum(result.errors for result in results),
        histogram=hdr.encode(merged),
        p50_us=percentiles.get("50"),
        p99_us=percentiles.get("99"),
        cpu_s=cpu_s,
        cpu_per_request_us=round(cpu_s / requests * 1e6, 3) if cpu_s is not None and requests else None,
        cpu_source=resources[0].get("cpu_source"),
        rss_max_bytes=None if rss is None else round(rss / len(resources)),
        utilisation=utilisation,
        latency_flagged=flagged is not None,
        note=note,
    )


def _mean_cpu_s(instances: list[Instance]) -> float | None:
    """The CPU seconds of one of the configuration's processes, on average."""
    total = known_sum(instance.resources.get("cpu_s") for instance in instances)
    return None if total is None else total / len(instances)


def _stop_all(instances: list[Instance]) -> None:
    """SIGTERM every instance, wait for each (its SDK flushes), then let the Collector settle."""
    for instance in instances:
        if instance.sampler is not None:
            instance.sampler.stop()
        if instance.load is not None and instance.load.poll() is None:
            instance.load.kill()
    for instance in instances:
        instance.service.stop(STOP_GRACE_S)
    stopped_at = time.time()
    # Nothing exported: nothing to settle.
    if any(instance.ctx.configuration.exports_anything() for instance in instances):
        instances[0].ctx.settle(stopped_at)
