"""Named OpenTelemetry configurations a spec can start from.

The BSP defaults are the same in every SDK (queue 2048, batch 512, delay 5000 ms, timeout
30000 ms), so `batch-default` sets nothing and lets each SDK apply them. `batch-tuned`
follows what the field measured: a larger queue absorbs bursts instead of dropping spans,
the batch stays well below the queue (a batch close to the queue size costs throughput), and a
shorter delay keeps the queue shallow between exports.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

# The BatchSpanProcessor's defaults, the same in every SDK (the OpenTelemetry spec's): the one
# copy the recommendation (diagnostics/recommend.py) and the tuner (tuning/candidates.py) read.
BSP_DEFAULTS = {
    "OTEL_BSP_MAX_QUEUE_SIZE": 2048,
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": 512,
    "OTEL_BSP_SCHEDULE_DELAY": 5000,
    "OTEL_BSP_EXPORT_TIMEOUT": 30000,
}


class Preset(BaseModel):
    name: str
    description: str
    processor: str
    env: dict[str, str] = Field(default_factory=dict)
    baseline: bool = False
    # Languages the preset applies to; None means every language.
    languages: list[str] | None = None


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="none",
            description="No OpenTelemetry SDK loaded at all: the uninstrumented baseline.",
            processor="none",
            baseline=True,
        ),
        Preset(
            name="simple",
            description="SimpleSpanProcessor + SimpleLogRecordProcessor: export on the request path.",
            processor="simple",
        ),
        Preset(
            name="batch-default",
            description="BatchSpanProcessor with the SDK defaults (queue 2048, batch 512, delay 5000 ms).",
            processor="batch",
        ),
        Preset(
            name="batch-tuned",
            description="BatchSpanProcessor with a deeper queue, a batch far below it and a shorter delay.",
            processor="batch",
            env={
                "OTEL_BSP_MAX_QUEUE_SIZE": "8192",
                "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512",
                "OTEL_BSP_SCHEDULE_DELAY": "1000",
                "OTEL_BSP_EXPORT_TIMEOUT": "10000",
            },
        ),
        Preset(
            name="sampled-10%",
            description="BatchSpanProcessor with parent-based 10% trace-id ratio sampling.",
            processor="batch",
            env={"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"},
        ),
        *(
            Preset(
                name=f"{signal}-only",
                description=f"BatchSpanProcessor with only {signal} exported (the other signals' exporters set to "
                "none): one signal's share of the overhead and of the volume.",
                processor="batch",
                env={
                    f"OTEL_{other.upper()}_EXPORTER": "none"
                    for other in ("traces", "logs", "metrics")
                    if other != signal
                },
            )
            for signal in ("traces", "logs", "metrics")
        ),
        Preset(
            name="zero-code",
            description="A service of your own under its language's zero-code instrumentation: Python "
            "opentelemetry-instrument, the Java agent, Node auto-instrumentations-node (their own SDK and "
            "BatchSpanProcessor, configured by the OTEL_* variables), with the SDK's own span counters on, "
            "for the ledger (their cost is included in the figures).",
            processor="agent",
            languages=["python", "java", "node"],
        ),
        Preset(
            name="ebpf",
            description="Go eBPF auto-instrumentation (go.opentelemetry.io/auto) attached to the running binary: "
            "one server span per request, no code change and no SDK in the process.",
            processor="ebpf",
            languages=["go"],
        ),
        Preset(
            name="java-agent",
            description="The official OpenTelemetry Java agent (its own SDK and BatchSpanProcessor).",
            processor="agent",
            languages=["java"],
        ),
    )
}
