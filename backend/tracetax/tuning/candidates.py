"""Candidate BatchSpanProcessor settings for a traffic shape, sized from measurements, each with
its BatchLogRecordProcessor twin (OTEL_BLRP_*) sized the same way from the log record rate.

A queue must hold what arrives while the worker waits and exports: at the peak span rate (a
burst, not the mean), for one schedule delay plus one export (its measured p99 duration), with
headroom for the export that runs late. A batch is what arrives in one delay at the mean rate,
kept well below the queue (a batch close to the queue size costs throughput: seed 000). The
export timeout leaves room for a slow export without holding the worker for the SDK's 30 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tracetax.spec.presets import BSP_DEFAULTS

# The SDKs' defaults (the same in every SDK): what every tuning is confirmed against.
DEFAULTS = {
    "queue": BSP_DEFAULTS["OTEL_BSP_MAX_QUEUE_SIZE"],
    "batch": BSP_DEFAULTS["OTEL_BSP_MAX_EXPORT_BATCH_SIZE"],
    "delay_ms": BSP_DEFAULTS["OTEL_BSP_SCHEDULE_DELAY"],
    "timeout_ms": BSP_DEFAULTS["OTEL_BSP_EXPORT_TIMEOUT"],
}
DELAYS_MS = (200, 1000, 5000)
# candidates() gives at most this many: each delay's setting and its deeper queue.
MAX_CANDIDATES = 2 * len(DELAYS_MS)
HEADROOM = 2.0
MIN_QUEUE, MAX_QUEUE = 256, 1 << 20
MIN_BATCH, MAX_BATCH = 64, 8192
# A batch at most this share of the queue: seed 000 measured throughput falling as the batch
# approached the queue size.
BATCH_SHARE_OF_QUEUE = 0.25


@dataclass(frozen=True)
class Measured:
    """What a short measurement of the service under the SDK defaults tells the sizing."""

    mean_spans_per_s: float
    peak_spans_per_s: float  # the burst's rate, or the mean for constant traffic
    export_p99_ms: float  # from the SDK's exporter metrics or the stack samples
    # Log records per second, mean and peak; None where the service's log rate is unknown or it
    # logs nothing: then no OTEL_BLRP_* is set (its defaults stay).
    mean_logs_per_s: float | None = None
    peak_logs_per_s: float | None = None

    def __post_init__(self) -> None:
        if self.mean_spans_per_s <= 0 or self.peak_spans_per_s < self.mean_spans_per_s:
            raise ValueError("need 0 < mean_spans_per_s <= peak_spans_per_s")
        if self.export_p99_ms < 0:
            raise ValueError("export_p99_ms must not be negative")
        if (self.mean_logs_per_s is None) != (self.peak_logs_per_s is None):
            raise ValueError("give both log rates or neither")
        if self.mean_logs_per_s is not None and not 0 < self.mean_logs_per_s <= (self.peak_logs_per_s or 0):
            raise ValueError("need 0 < mean_logs_per_s <= peak_logs_per_s")


@dataclass(frozen=True)
class Setting:
    queue: int
    batch: int
    delay_ms: int
    timeout_ms: int
    # Head sampling ratio, only when no unsampled setting meets the budgets; None: no sampler.
    sampler_ratio: float | None = None
    # The log record processor's setting (OTEL_BLRP_*), None where the log rate is unknown.
    logs: Setting | None = None

    @property
    def name(self) -> str:
        sampled = f"-s{self.sampler_ratio:g}" if self.sampler_ratio is not None else ""
        logs = f"-lq{self.logs.queue}-lb{self.logs.batch}" if self.logs is not None else ""
        return f"q{self.queue}-b{self.batch}-d{self.delay_ms}{logs}{sampled}"

    def with_sampler(self, ratio: float) -> Setting:
        return replace(self, sampler_ratio=ratio)

    def env(self) -> dict[str, str]:
        variables = self.processor_env("BSP")
        if self.logs is not None:
            variables |= self.logs.processor_env("BLRP")
        if self.sampler_ratio is not None:
            variables["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
            variables["OTEL_TRACES_SAMPLER_ARG"] = f"{self.sampler_ratio:g}"
        return variables

    def processor_env(self, processor: str) -> dict[str, str]:
        """The four variables of OTEL_BSP_* or OTEL_BLRP_* (the same names in every SDK)."""
        return {
            f"OTEL_{processor}_MAX_QUEUE_SIZE": str(self.queue),
            f"OTEL_{processor}_MAX_EXPORT_BATCH_SIZE": str(self.batch),
            f"OTEL_{processor}_SCHEDULE_DELAY": str(self.delay_ms),
            f"OTEL_{processor}_EXPORT_TIMEOUT": str(self.timeout_ms),
        }


def _power_of_two_at_least(value: float) -> int:
    return 1 << max(0, math.ceil(math.log2(max(value, 1.0))))


def _sized(mean_per_s: float, peak_per_s: float, export_ms: float, delay_ms: int) -> Setting:
    """One processor's setting for one schedule delay, from its item rates and export time."""
    window_s = (delay_ms + export_ms) / 1000
    queue = _power_of_two_at_least(peak_per_s * window_s * HEADROOM)
    queue = min(max(queue, MIN_QUEUE), MAX_QUEUE)
    per_delay = mean_per_s * delay_ms / 1000
    batch = int(min(max(per_delay, MIN_BATCH), MAX_BATCH, queue * BATCH_SHARE_OF_QUEUE))
    timeout = int(min(max(10 * export_ms, 1000), DEFAULTS["timeout_ms"]))
    return Setting(queue=queue, batch=max(batch, 1), delay_ms=delay_ms, timeout_ms=timeout)


def sized(measured: Measured, delay_ms: int) -> Setting:
    """The setting for one schedule delay, sized from what was measured: the span processor's,
    and the log processor's with the same delay from the log rate. Only span exports are timed,
    so the span export's duration stands for the log export's (one exporter, one Collector)."""
    spans = _sized(measured.mean_spans_per_s, measured.peak_spans_per_s, measured.export_p99_ms, delay_ms)
    if measured.mean_logs_per_s is None or measured.peak_logs_per_s is None:
        return spans
    logs = _sized(measured.mean_logs_per_s, measured.peak_logs_per_s, measured.export_p99_ms, delay_ms)
    return replace(spans, logs=logs)


def candidates(measured: Measured, delays_ms: tuple[int, ...] = DELAYS_MS) -> list[Setting]:
    """One sized setting per delay, plus each with the queue doubled (bursts longer than one
    window); distinct, in order."""
    found: dict[str, Setting] = {}
    for delay in delays_ms:
        base = sized(measured, delay)
        deeper = replace(base, queue=min(base.queue * 2, MAX_QUEUE))
        for setting in (base, deeper):
            found.setdefault(setting.name, setting)
    return list(found.values())


def sampled(setting: Setting, ratios: tuple[float, ...] = (0.5, 0.25, 0.1)) -> list[Setting]:
    """The same setting under head sampling: tried only when no unsampled one meets the budgets."""
    return [setting.with_sampler(ratio) for ratio in ratios]
