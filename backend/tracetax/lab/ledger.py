"""What one round of a pipeline cost and where its spans went, from the round's raw readings.

Pure functions over what the pipeline runner stored: telemetrygen's count, the lab
Collector's counters at both ends of the measured phase and every Collector's counters after
the drain, and the /proc summaries of every Collector. Nothing here reads a process or a
backend, so the figures can be recomputed from a stored round at any time.

Unknown is never zero: a counter a Collector did not expose leaves its entry None.

The ledger's shape (`PipelineLedger`) is described here, where it is built, and only here: the
round's stored figures, the aggregates' rounds and the diagnostics type their ledger with it,
and so do the API's answers and the OpenAPI. It is a TypedDict, not a model, because it
describes stored dicts as they are: a round stored without a ledger has `{}` and answers `{}`,
not a ledger of nulls, and a key a newer producer adds passes through (OPEN).
"""

from __future__ import annotations

import statistics
from typing import Any

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.lab.telemetry import Snapshot, total
from tracetax.system.stored_json import OPEN, Number

LAB = "lab"
SENT = "otelcol_exporter_sent_spans"


@with_config(OPEN)
class ReceiverFlow(TypedDict):
    accepted: Number | None
    refused: Number | None
    not_received: Number | None


@with_config(OPEN)
class ProcessorFlow(TypedDict):
    incoming: Number | None
    outgoing: Number | None
    held_or_dropped: Number | None


@with_config(OPEN)
class ExporterFlow(TypedDict):
    sent: Number | None
    send_failed: Number | None
    enqueue_failed: Number | None
    # Left in the queue after the drain.
    queue_size: Number | None


@with_config(OPEN)
class DownstreamFlow(TypedDict):
    accepted: Number | None
    by_collector: dict[str, Number | None]
    sent: Number | None
    send_failed: Number | None


@with_config(OPEN)
class PipelineLedger(TypedDict, total=False):
    """Where a round's spans went, stage by stage, after the drain (`ledger` builds it); a key is
    absent where the round stored no ledger of it."""

    # In the order `ledger` writes them: a ledger validated and written again keeps its text.
    generated: Number | None
    receiver: ReceiverFlow
    # Spans into and out of each processor of the lab pipeline.
    processors: dict[str, ProcessorFlow]
    exporter: ExporterFlow
    # Each processor's own counters, as the Collector names them.
    processor_counters: dict[str, Number]
    downstream: DownstreamFlow
    # Generated and never arrived downstream (a sampling pipeline's kept-out traces too).
    not_arrived: Number | None
    left_out_by_policy: Number | None
    # What a stage reports losing (sampling pipelines), else what never arrived.
    lost: Number | None
    kept_ratio: Number | None


def scraped(snapshot: Snapshot | None) -> bool:
    """A real scrape of a running Collector: it always reports its own process metrics."""
    return snapshot is not None and any(key.startswith("otelcol_process_") for key in snapshot)


def counter(snapshot: Snapshot | None, base: str, **match: str) -> float | None:
    """A counter by its base name, whether the exposition added `_total` or not.

    The Collector creates a counter series at its first increment, so in a real scrape a
    missing series is 0 (nothing accepted, refused, failed yet). Without a scrape, unknown.
    The names are those v0.160 exposes (tests/lab/test_pipelines.py scrapes a real one)."""
    value = total(snapshot, f"{base}_total", **match)
    if value is None:
        value = total(snapshot, base, **match)
    if value is None and scraped(snapshot):
        return 0.0
    return value


def accepted(snapshot: Snapshot | None) -> float | None:
    return counter(snapshot, "otelcol_receiver_accepted_spans")


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _steady_rss(samples: list[dict[str, Any]]) -> float | None:
    """Median RSS over the second half of the measured phase: what the pipeline settles at."""
    tail = [s["rss_bytes"] for s in samples[len(samples) // 2 :] if s.get("rss_bytes") is not None]
    return float(statistics.median(tail)) if tail else None


def round_figures(
    window: dict[str, Snapshot],
    collectors: dict[str, dict[str, Any]],
    samples: list[dict[str, Any]],
    spans_window_s: float | None = None,
) -> dict[str, Any]:
    """The lab Collector's cost over the measured phase: cores, spans/s it took in, spans/s
    per core, cores per 10k spans/s, RSS peak and steady; the downstreams' cores apart.

    Spans arrive in telemetrygen's export batches (512 spans), so the count between the two
    readings is exact to a batch: ±512 / (rate x phase), 0.5% at 5,000 spans/s over 20 s."""
    lab = collectors.get(LAB) or {}
    seconds = lab.get("window_s")
    cpu_s = lab.get("cpu_s")
    spans = _minus(accepted(window.get("end")), accepted(window.get("start")))
    cores = cpu_s / seconds if cpu_s is not None and seconds else None
    spans_s = spans_window_s or seconds
    rate = spans / spans_s if spans is not None and spans_s else None
    downstream = [
        summary["cpu_s"] / summary["window_s"]
        for name, summary in collectors.items()
        if name != LAB and summary.get("cpu_s") is not None and summary.get("window_s")
    ]
    return {
        "cpu_cores": _round(cores, 4),
        "spans_per_s": _round(rate, 1),
        "spans_per_s_per_core": _round(rate / cores, 1) if rate is not None and cores else None,
        # Cores needed per 10,000 spans/s: the unit a capacity plan multiplies.
        "cores_per_10k_spans_s": _round(cores / rate * 10_000, 4) if cores is not None and rate else None,
        "rss_max_bytes": lab.get("rss_max_bytes"),
        "rss_steady_bytes": _steady_rss(samples),
        "downstream_cpu_cores": _round(sum(downstream), 4) if downstream else None,
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _by_downstream(final: dict[str, Snapshot]) -> dict[str, float | None]:
    return {name: accepted(snapshot) for name, snapshot in sorted(final.items()) if name != LAB}


def processor_counters(snapshot: Snapshot | None) -> dict[str, float]:
    """Every otelcol_processor_* counter of the lab Collector, summed over its series (the
    incoming/outgoing items are in `processors`; histogram parts are left out)."""
    if snapshot is None:
        return {}
    found: dict[str, float] = {}
    for key, value in snapshot.items():
        name = key.split("{", 1)[0]
        if name.startswith("otelcol_processor_") and name.endswith("_total") and "_items_" not in name:
            found[name] = found.get(name, 0.0) + value
    return dict(sorted(found.items()))


def processor_flow(snapshot: Snapshot | None) -> dict[str, ProcessorFlow]:
    """Spans into and out of each processor of the lab pipeline (what it held back or dropped)."""
    if snapshot is None:
        return {}
    names = sorted(
        {
            key.split('processor="', 1)[1].split('"', 1)[0]
            for key in snapshot
            if key.startswith("otelcol_processor_incoming_items") and 'processor="' in key
        }
    )
    flow: dict[str, ProcessorFlow] = {}
    for name in names:
        incoming = counter(snapshot, "otelcol_processor_incoming_items", processor=name, otel_signal="traces")
        outgoing = counter(snapshot, "otelcol_processor_outgoing_items", processor=name, otel_signal="traces")
        flow[name] = ProcessorFlow(incoming=incoming, outgoing=outgoing, held_or_dropped=_minus(incoming, outgoing))
    return flow


def left_out_by_policy(lab: Snapshot | None, spans_per_trace: int) -> float | None:
    """Spans a sampling pipeline left out on purpose: the filter's filtered spans (the
    groupbytrace variant's decision) plus tail_sampling's traces decided "not sampled" times
    the spans of a trace (every generated trace has the same shape). None when neither
    processor reported (a user's own sampler: its left-out spans cannot be told from losses)."""
    filtered = total(lab, "otelcol_processor_filter_spans_filtered_total")
    not_sampled = total(lab, "otelcol_processor_tail_sampling_global_count_traces_sampled_total", sampled="false")
    if not_sampled is None:
        not_sampled = total(lab, "otelcol_processor_tail_sampling_count_traces_sampled_total", sampled="false")
    if filtered is None and not_sampled is None:
        return None
    return (filtered or 0.0) + (not_sampled or 0.0) * spans_per_trace


def ledger(
    generated: int | None, final: dict[str, Snapshot], samples: bool, spans_per_trace: int = 1
) -> PipelineLedger:
    """Where the round's spans went, stage by stage, after the drain.

    generated (telemetrygen) -> the lab receiver (accepted / refused) -> its processors (in /
    out) -> its exporter (sent / send failed / enqueue failed, queue left) -> the downstream
    Collector(s) (accepted, each) -> their exporters (sent / failed).

    `lost` is what was generated and never arrived downstream. A sampling pipeline leaves
    traces out on purpose: there `lost` is what did not arrive minus what its policy left
    out (so groupbytrace's evictions and tail_sampling's traces dropped too early count as
    lost), and `kept_ratio` says how much was kept. Where the policy's count is unknown, lost
    counts only what a stage reports losing (refused, failed, not enqueued, never received)."""
    lab = final.get(LAB)
    downstream = _by_downstream(final)
    arrived = sum(v for v in downstream.values() if v is not None) if downstream else None
    if any(v is None for v in downstream.values()):
        arrived = None
    lab_accepted = accepted(lab)
    refused = counter(lab, "otelcol_receiver_refused_spans")
    received = None if lab_accepted is None or refused is None else lab_accepted + refused
    receiver = ReceiverFlow(accepted=lab_accepted, refused=refused, not_received=_minus(generated, received))
    exporter = ExporterFlow(
        sent=counter(lab, SENT),
        send_failed=counter(lab, "otelcol_exporter_send_failed_spans"),
        enqueue_failed=counter(lab, "otelcol_exporter_enqueue_failed_spans"),
        # Left in the queue after the drain (the loadbalancing exporter has no queue series).
        queue_size=total(lab, "otelcol_exporter_queue_size"),
    )
    not_arrived = _minus(generated, arrived)
    policy = left_out_by_policy(lab, spans_per_trace) if samples else 0.0
    if not samples:
        lost = not_arrived
    elif policy is not None:
        lost = _minus(not_arrived, policy)
    else:
        lost = _reported_losses(receiver, exporter)
    # The keys in the order the stored ledgers have always had them (PipelineLedger's).
    return {
        "generated": generated,
        "receiver": receiver,
        "processors": processor_flow(lab),
        "exporter": exporter,
        # Each processor's own counters (tail_sampling's traces dropped too early, groupbytrace's
        # evictions, the filter's filtered spans, memory_limiter's refusals), as the Collector names them.
        "processor_counters": processor_counters(lab),
        "downstream": DownstreamFlow(
            accepted=arrived,
            by_collector=downstream,
            sent=_sum_over(final, SENT),
            send_failed=_sum_over(final, "otelcol_exporter_send_failed_spans"),
        ),
        "not_arrived": not_arrived,
        "left_out_by_policy": policy,
        "lost": lost,
        "kept_ratio": round(arrived / lab_accepted, 4) if arrived is not None and lab_accepted else None,
    }


def _sum_over(final: dict[str, Snapshot], base: str) -> float | None:
    values = [counter(snapshot, base) for name, snapshot in final.items() if name != LAB]
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


def _reported_losses(receiver: ReceiverFlow, exporter: ExporterFlow) -> Number | None:
    parts = [receiver["refused"], receiver["not_received"], exporter["send_failed"], exporter["enqueue_failed"]]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
