"""The side-by-side phase of a pipeline's round: every variant's lab Collector live at once on
the lab core, each fed by its own telemetrygen at the spec's span rate, started together.

Why: the lab core's speed wanders on a shared VM as the service core's does
(docs/diagnostics.md, "Side by side"); variants measured one after the other see different
speeds, variants live together see the same. So cores per 10k spans/s and peak RSS are paired
from this phase. Lost spans and the ramp (the highest sustainable rate) are not: a neighbour's
queueing on the shared core would bias them; they keep coming from each variant alone
(runner.py).

Each variant gets its own downstream Collector(s) (on the stack's cores, as in its solo round),
its own ports and its own run id (`<round run id>-side`): the phase's spans are not the
round's, whose ledger and Tempo read-back count the solo window only. The phase runs before the
round's solo slots start.

Everything here is blocking and runs in the engine's worker thread; every process started is
stopped on every path out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tracetax.demos.process import ServiceError
from tracetax.diagnostics.pipeline_figures import PipelineSideBySide
from tracetax.engine.round import RoundCancelledError, TogetherSlot, hold_phase
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.lab import pipelines, telemetrygen
from tracetax.lab.ledger import LAB, accepted, round_figures
from tracetax.lab.redact import redact_environment
from tracetax.lab.telemetry import Snapshot, scrape
from tracetax.subjects.collector.runner import (
    COLLECTOR_STOP_GRACE_S,
    ROUND_FAILURES,
    LabCollector,
    PipelineRoundContext,
    span_attributes,
    start_lab,
    trace_shape,
    wait_generator,
)
from tracetax.subjects.together import cpu_shares, start_order, utilisation
from tracetax.system import procfs

PHASE = "side-by-side"
# Each telemetrygen sends this much longer than warm-up + window: the generators start one after
# another and the window opens after the counters are read, so every variant is under load for
# the whole window (what it sends after the window is in no figure).
LOAD_MARGIN_S = 1.0


@dataclass
class Variant:
    """One variant's lab in the phase."""

    ctx: PipelineRoundContext
    # Every Collector started for it (downstreams first, the lab last), so each is stopped.
    collectors: list[LabCollector] = field(default_factory=list)
    lab: LabCollector | None = None
    generator: telemetrygen.RunningGenerator | None = None
    sampler: Sampler | None = None
    samples: list[dict[str, Any]] = field(default_factory=list)
    # The lab Collector's counters at the window's two ends, and the seconds between them.
    window: dict[str, Snapshot] = field(default_factory=dict)
    window_s: float | None = None

    @property
    def name(self) -> str:
        return self.ctx.variant.name


def run_side_by_side(slot: TogetherSlot, contexts: list[PipelineRoundContext]) -> dict[str, PipelineSideBySide]:
    """Run the phase; every variant's figures, or each with the reason it has none (one
    variant's failure fails the phase for all: that round is then paired from the solo
    figures). Never raises for a Collector's or telemetrygen's failure; {} when cancelled."""
    variants = [Variant(ctx) for ctx in contexts]
    try:
        for variant in variants:
            variant.ctx.workdir.mkdir(parents=True, exist_ok=True)
        return _phases(slot, variants)
    except RoundCancelledError:
        return {}
    except ROUND_FAILURES as error:
        why = redact_environment(f"the side-by-side phase failed: {error}", _own_input(variants))
        return {variant.name: PipelineSideBySide(error=why) for variant in variants}
    finally:
        _stop_all(variants)


def _phases(slot: TogetherSlot, variants: list[Variant]) -> dict[str, PipelineSideBySide]:
    load = variants[0].ctx.spec.load
    warmup_s, seconds = load.side_by_side_warmup_seconds, load.side_by_side_seconds
    slot.report("starting", None, {})
    for variant in variants:  # one after the other: each lab pinned and healthy before the next
        variant.lab = start_lab(variant.ctx, variant.collectors)
    for variant in start_order(variants, slot.round_index, PHASE):
        variant.generator = _generator(variant, warmup_s + seconds + LOAD_MARGIN_S)
    if warmup_s > 0:
        _hold(slot, variants, warmup_s, "warmup")
    before = procfs.read_cpu_times()
    _measure(slot, variants, seconds)
    after = procfs.read_cpu_times()
    summaries = {variant.name: resource_summary(variant.samples, 0) for variant in variants}
    busy = utilisation(slot, before, after)
    busy["configurations"] = cpu_shares({name: s.get("cpu_s") for name, s in summaries.items()}, seconds)
    figures = {}
    for variant in variants:
        side = side_figures(variant.window, summaries[variant.name], variant.samples, variant.window_s)
        side.generator = _generator_result(variant)
        side.utilisation = busy
        side.note = saturation_note(side.generator)
        figures[variant.name] = side
    return figures


def _generator(variant: Variant, duration_s: float) -> telemetrygen.RunningGenerator:
    ctx, lab = variant.ctx, variant.lab
    assert lab is not None  # noqa: S101 - started before its generator
    load = ctx.spec.load
    return telemetrygen.start(
        endpoint=lab.otlp_endpoint,
        spans_per_s=load.spans_per_s,
        duration_s=duration_s,
        shape=trace_shape(ctx),
        resource_attributes=span_attributes(ctx),
        workers=load.workers,
        cpus=ctx.placement.loadgen_cpus,
        log_path=ctx.workdir / "telemetrygen.log",
    )


def _measure(slot: TogetherSlot, variants: list[Variant], seconds: float) -> None:
    """The window: every lab Collector's counters read at both ends, its CPU and memory sampled
    from /proc meanwhile (with its telemetrygen's CPU, as the solo window does)."""
    opened: dict[str, float] = {}
    for variant in variants:
        lab, generator = variant.lab, variant.generator
        assert lab is not None and generator is not None  # noqa: S101 - started above
        variant.window["start"] = scrape(lab.process.name, lab.metrics_port)
        opened[variant.name] = time.monotonic()
        variant.sampler = Sampler(lab.process.pid, generator.pid)
    for variant in variants:
        if variant.sampler is not None:
            variant.sampler.start()
    try:
        _hold(slot, variants, seconds, PHASE)
    finally:
        for variant in variants:
            if variant.sampler is not None:
                variant.samples = variant.sampler.stop()
                variant.sampler = None
    for variant in variants:
        lab = variant.lab
        assert lab is not None  # noqa: S101 - started above
        variant.window_s = time.monotonic() - opened[variant.name]
        variant.window["end"] = scrape(lab.process.name, lab.metrics_port)


def _hold(slot: TogetherSlot, variants: list[Variant], seconds: float, phase: str) -> None:
    """Hold for `seconds`, reporting `phase` (a progress phase: "warmup" or "side-by-side"); stop at
    once on cancel, when a Collector dies or a telemetrygen fails."""

    def watch(_elapsed: float) -> None:
        for variant in variants:
            for collector in variant.collectors:
                code = collector.process.poll()
                if code is not None:
                    raise ServiceError(
                        f"{collector.process.name} exited with code {code} during the side-by-side phase's "
                        f"{phase}\n"
                        f"{collector.process.last_lines()}"
                    )
            if variant.generator is not None and variant.generator.poll() not in (None, 0):
                variant.generator.check()

    hold_phase(slot.cancel, slot.report, phase, seconds, watch=watch)


def _generator_result(variant: Variant) -> dict[str, Any]:
    """What its telemetrygen generated over the whole phase, once it has flushed; the reason
    when its count cannot be read (the window's figures come from the Collector's counters)."""
    generator = variant.generator
    assert generator is not None  # noqa: S101 - started above
    stopped = wait_generator(variant.ctx, generator)
    try:
        return {**telemetrygen.result(generator).__dict__, "stopped_flushing": stopped}
    except telemetrygen.GeneratorError as error:
        if not stopped:
            raise
        return {"error": str(error), "stopped_flushing": True}


def side_figures(
    window: dict[str, Snapshot], lab: dict[str, Any], samples: list[dict[str, Any]], window_s: float | None
) -> PipelineSideBySide:
    """A variant's figures over the window, computed as its solo window's are
    (tracetax.lab.ledger.round_figures): the lab Collector's CPU over the sampled seconds, per
    span its receiver accepted between the two counter readings."""
    figures = round_figures(window, {LAB: lab}, samples, window_s)
    return PipelineSideBySide(
        spans_accepted=accepted_between(window),
        spans_window_s=round(window_s, 3) if window_s is not None else None,
        cpu_s=lab.get("cpu_s"),
        cpu_source=lab.get("cpu_source"),
        cpu_cores=figures["cpu_cores"],
        spans_per_s=figures["spans_per_s"],
        cores_per_10k_spans_s=figures["cores_per_10k_spans_s"],
        rss_max_bytes=figures["rss_max_bytes"],
    )


def accepted_between(window: dict[str, Snapshot]) -> float | None:
    """Spans the lab receiver accepted between the window's two readings; None if unknown."""
    start, end = accepted(window.get("start")), accepted(window.get("end"))
    return end - start if start is not None and end is not None else None


def saturation_note(generator: dict[str, Any]) -> str | None:
    """Said when telemetrygen fell short of the rate: the variant's cost per span still holds
    (it is per span accepted), but at a lower rate than asked."""
    if generator.get("saturated"):
        achieved = generator.get("achieved_spans_per_s")
        return (
            f"telemetrygen delivered {achieved} spans/s, under 95% of the asked rate beside the other variants' "
            "generators: cores per 10k spans/s is per span accepted, at that lower rate"
        )
    return None


def _own_input(variants: list[Variant]) -> str:
    return "\n".join([*(str(variant.ctx.workdir) for variant in variants), str(pipelines.LAB_DIR)])


def _stop_all(variants: list[Variant]) -> None:
    """Kill the generators, stop every variant's Collectors (the lab first: it flushes into its
    downstreams, which flush into the stack). No settle after: the round's ledger reads its own
    fresh Collectors' counters and Tempo by run id, not the stack's counters by time, and the
    first solo slot's start and warm-up come before its window."""
    for variant in variants:
        if variant.sampler is not None:
            variant.sampler.stop()
        if variant.generator is not None:
            variant.generator.kill()
    for variant in variants:
        for collector in reversed(variant.collectors):
            collector.process.stop(COLLECTOR_STOP_GRACE_S if collector.name == LAB else 2)
