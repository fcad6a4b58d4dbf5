"""What a configuration costs at the user's traffic: cores, telemetry volume per signal and
money per month, each with its 95% interval over the experiment's rounds.

Per round, everything is a linear function of that round's measurements:

    service cores     = rate x (CPU per request - the baseline's in the same round)
    Collector cores   = rate x spans per request x Collector cores per span/s
    GB/day per signal = rate x OTLP bytes per request (sent to the Collector) x 86,400 / 1e9
    network $/month   = sum of the signals' GB/day x days per month x $ per GB of egress
    store $/month     = GB/day handed to the store x (days per month x $ per GB ingested
                        + retention days x $ per GB-month stored)   (steady state: a
                        retention's worth of days is always kept)
    cores $/month     = cores x hours per month x $ per vCPU-hour

so each figure is computed per round and its interval is the Student-t interval of the mean
over rounds, as for overhead: the same paired design, and exact propagation of the rounds'
spread through every sum (no independence assumed between the parts of a total). A round
where an input is unknown leaves the figures that need it unknown in that round, never zero.

Service cores are the extra over the baseline configuration (only a difference is
measurable); volumes and their money are the configuration's own (the baseline `none`
sends nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from tracetax.diagnostics.overhead import t_interval
from tracetax.engine.figures import known_sum
from tracetax.spec.inputs import InputModel

# The signals a volume is read for (volume.py) and priced; defined here so that pricing needs
# none of the backends' clients volume.py reads them with.
VolumeSignal = Literal["traces", "logs", "metrics"]
SIGNALS: tuple[VolumeSignal, ...] = ("traces", "logs", "metrics")
HOURS_PER_MONTH = 8760 / 12
DAYS_PER_MONTH = 365 / 12
SECONDS_PER_DAY = 86_400
GB = 1e9

# The Collector's cost per span when no pipeline experiment is named: the lab's passthrough
# variant (OTLP in, OTLP out) in `make bench-collector`, docs/benchmarks.md (2026-11-24, 5
# rounds at 10,000 spans/s of 5-span traces).
DOCUMENTED_COLLECTOR_CORES_PER_10K = 0.0802
DOCUMENTED_COLLECTOR_SOURCE = (
    "documented: 0.0802 cores per 10k spans/s, the pipeline lab's passthrough variant in make bench-collector "
    "(docs/benchmarks.md, 2026-11-24); name a pipeline experiment to use a measured pipeline instead"
)

Component = Literal["service_cores", "collector_cores", "network", "traces_store", "logs_store", "metrics_store"]
STORE_OF: dict[VolumeSignal, Component] = {"traces": "traces_store", "logs": "logs_store", "metrics": "metrics_store"}


class CostInputs(InputModel):
    """The cost model's inputs. Defaults are public list prices (see `SOURCES`); edit them."""

    requests_per_s: float = Field(100.0, gt=0, le=10_000_000, description="Your service's request rate.")
    vcpu_hour_usd: float = Field(0.0504, ge=0, le=1_000, description="$ per vCPU-hour.")
    egress_gb_usd: float = Field(0.09, ge=0, le=1_000, description="$ per GB of network egress to the Collector.")
    traces_ingest_gb_usd: float = Field(0.50, ge=0, le=1_000, description="$ per GB ingested by the trace store.")
    logs_ingest_gb_usd: float = Field(0.50, ge=0, le=1_000, description="$ per GB ingested by the log store.")
    metrics_ingest_gb_usd: float = Field(0.0, ge=0, le=1_000, description="$ per GB ingested by the metrics store.")
    traces_storage_gb_month_usd: float = Field(0.023, ge=0, le=1_000, description="$ per GB-month of traces kept.")
    logs_storage_gb_month_usd: float = Field(0.023, ge=0, le=1_000, description="$ per GB-month of logs kept.")
    metrics_storage_gb_month_usd: float = Field(0.023, ge=0, le=1_000, description="$ per GB-month of metrics kept.")
    retention_days: float = Field(30, ge=0, le=3_650, description="Days each store keeps what it ingests.")

    def ingest_usd(self, signal: VolumeSignal) -> float:
        price: float = getattr(self, f"{signal}_ingest_gb_usd")
        return price

    def storage_usd(self, signal: VolumeSignal) -> float:
        price: float = getattr(self, f"{signal}_storage_gb_month_usd")
        return price


SOURCES: dict[str, str] = {
    "vcpu_hour_usd": "AWS EC2 on-demand m7i.large, us-east-1: $0.1008/h for 2 vCPUs "
    "(https://aws.amazon.com/ec2/pricing/on-demand/)",
    "egress_gb_usd": "AWS data transfer out to the internet, first 10 TB/month, us-east-1 "
    "(https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer)",
    "traces_ingest_gb_usd": "Grafana Cloud Pro, traces per GB ingested (https://grafana.com/pricing/)",
    "logs_ingest_gb_usd": "Grafana Cloud Pro, logs per GB ingested (https://grafana.com/pricing/)",
    "metrics_ingest_gb_usd": "no per-GB list price: Grafana Cloud bills metrics per active series "
    "(https://grafana.com/pricing/); 0 unless you set yours",
    "traces_storage_gb_month_usd": "Amazon S3 Standard, first 50 TB/month, us-east-1, where a self-hosted "
    "Tempo keeps its blocks (https://aws.amazon.com/s3/pricing/); 0 on Grafana Cloud (retention included)",
    "logs_storage_gb_month_usd": "Amazon S3 Standard, as for traces (Loki's chunks)",
    "metrics_storage_gb_month_usd": "Amazon S3 Standard, as for traces (Mimir's blocks)",
    "retention_days": "a common default retention; Grafana Cloud Pro includes 30 days of traces and logs",
}


class Figure(BaseModel):
    """A mean over rounds with its 95% t-interval (None where unknown or fewer than 2 rounds)."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    rounds: int = 0
    note: str | None = None


class SignalCost(BaseModel):
    signal: VolumeSignal
    bytes_per_request: Figure
    # Per span, log record or metric point accepted by the Collector.
    bytes_per_item: Figure
    gb_per_day: Figure
    # What the Collector hands the signal's store, GB/day (the store's ingest volume).
    store_gb_per_day: Figure
    # The store's ingested bytes per item it counted: per span (Tempo), per line (Loki), per
    # sample (the metrics store, over the bytes the Collector sent it).
    store_bytes_per_item: Figure


class ComponentCost(BaseModel):
    component: Component
    quantity: Figure
    unit: Literal["cores", "GB/day"]
    usd_per_month: Figure


class ConfigurationCost(BaseModel):
    configuration: str
    baseline: bool
    signals: list[SignalCost]
    components: list[ComponentCost]
    # OTLP bytes per request, every signal together.
    bytes_per_request: Figure
    usd_per_month: Figure
    # Paired per round: this configuration's $/month minus the baseline's.
    usd_per_month_vs_baseline: Figure
    # Each round's $/month, by round index: what paired comparisons between configurations use.
    usd_per_month_by_round: dict[int, float | None]

    def vs(self, other: ConfigurationCost) -> Figure:
        """This configuration's $/month minus `other`'s, paired per round."""
        pairs = [
            None
            if mine is None or other.usd_per_month_by_round.get(index) is None
            else mine - (other.usd_per_month_by_round[index] or 0.0)
            for index, mine in self.usd_per_month_by_round.items()
            if index in other.usd_per_month_by_round
        ]
        return figure(pairs, len(pairs))


@dataclass(frozen=True)
class CostRound:
    """One completed round as the cost model needs it."""

    round_index: int
    requests: int | None
    cpu_per_request_us: float | None
    sent_bytes: Mapping[VolumeSignal, float | None] = field(default_factory=dict)
    items: Mapping[VolumeSignal, float | None] = field(default_factory=dict)
    store_bytes: Mapping[VolumeSignal, float | None] = field(default_factory=dict)
    store_items: Mapping[VolumeSignal, float | None] = field(default_factory=dict)


Quantities = dict[str, float | None]


def _per_request(value: float | None, requests: int | None) -> float | None:
    return None if value is None or not requests else value / requests


def _per_item(value: float | None, items: float | None) -> float | None:
    """Bytes per item; unknown (not zero) where nothing was counted to divide by."""
    return None if value is None or not items else value / items


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def round_quantities(
    inputs: CostInputs, round_: CostRound, baseline: CostRound | None, collector_cores_per_10k: float
) -> Quantities:
    """Every figure of one round (see the module's docstring for the formulas)."""
    rate = inputs.requests_per_s
    q: Quantities = {}
    extra_us = (
        None
        if baseline is None or round_.cpu_per_request_us is None or baseline.cpu_per_request_us is None
        else round_.cpu_per_request_us - baseline.cpu_per_request_us
    )
    q["service_cores"] = _scaled(extra_us, rate / 1e6)
    spans = _per_request(round_.items.get("traces"), round_.requests)
    q["collector_cores"] = _scaled(spans, rate * collector_cores_per_10k / 10_000)
    for component in ("service_cores", "collector_cores"):
        q[f"{component}_usd"] = _scaled(q[component], HOURS_PER_MONTH * inputs.vcpu_hour_usd)
    day = rate * SECONDS_PER_DAY / GB
    for signal in SIGNALS:
        sent = round_.sent_bytes.get(signal)
        q[f"{signal}_bytes_per_request"] = _per_request(sent, round_.requests)
        q[f"{signal}_bytes_per_item"] = _per_item(sent, round_.items.get(signal))
        q[f"{signal}_gb_per_day"] = _scaled(q[f"{signal}_bytes_per_request"], day)
        store_bytes = round_.store_bytes.get(signal)
        q[f"{signal}_store_bytes_per_item"] = _per_item(store_bytes, round_.store_items.get(signal))
        stored = _scaled(_per_request(store_bytes, round_.requests), day)
        q[f"{signal}_store_gb_per_day"] = stored
        per_gb_day = DAYS_PER_MONTH * inputs.ingest_usd(signal) + inputs.retention_days * inputs.storage_usd(signal)
        q[f"{STORE_OF[signal]}_usd"] = _scaled(stored, per_gb_day)
    q["bytes_per_request"] = known_sum(q[f"{s}_bytes_per_request"] for s in SIGNALS)
    q["network_gb_per_day"] = known_sum(q[f"{s}_gb_per_day"] for s in SIGNALS)
    q["network_usd"] = _scaled(q["network_gb_per_day"], DAYS_PER_MONTH * inputs.egress_gb_usd)
    q["usd"] = known_sum(q[f"{component}_usd"] for component in COMPONENT_UNITS)
    return q


COMPONENT_UNITS: dict[Component, Literal["cores", "GB/day"]] = {
    "service_cores": "cores",
    "collector_cores": "cores",
    "network": "GB/day",
    "traces_store": "GB/day",
    "logs_store": "GB/day",
    "metrics_store": "GB/day",
}
QUANTITY_OF: dict[Component, str] = {
    "service_cores": "service_cores",
    "collector_cores": "collector_cores",
    "network": "network_gb_per_day",
    **{store: f"{signal}_store_gb_per_day" for signal, store in STORE_OF.items()},
}


def figure(values: Sequence[float | None], rounds: int) -> Figure:
    """Mean and 95% t-interval of the rounds' known values."""
    known = np.asarray([v for v in values if v is not None], dtype=float)
    missing = rounds - known.size
    note = f"unknown in {missing} of {rounds} rounds" if missing else None
    if known.size == 0:
        return Figure(estimate=None, rounds=0, note=note or "no round measured it")
    if known.size == 1:
        extra = "an interval needs at least 2 rounds"
        return Figure(estimate=float(known[0]), rounds=1, note=f"{note}; {extra}" if note else extra)
    mean, low, high, _ = t_interval(known)
    return Figure(estimate=mean, low=low, high=high, rounds=int(known.size), note=note)


def configuration_cost(
    name: str,
    is_baseline: bool,
    rounds: Sequence[CostRound],
    baseline_rounds: Sequence[CostRound],
    inputs: CostInputs,
    collector_cores_per_10k: float,
) -> ConfigurationCost:
    """One configuration's cost figures, each round paired with the baseline's same round."""
    base = {r.round_index: r for r in baseline_rounds}
    per_round = [round_quantities(inputs, r, base.get(r.round_index), collector_cores_per_10k) for r in rounds]
    base_totals = {
        r.round_index: round_quantities(inputs, r, r, collector_cores_per_10k)["usd"] for r in baseline_rounds
    }

    def over_rounds(key: str) -> Figure:
        return figure([q[key] for q in per_round], len(per_round))

    def per_item(key: str, counted: Sequence[float | None]) -> Figure:
        """Bytes per item; where no round counted an item, say so rather than "unknown in N rounds"."""
        result = over_rounds(key)
        if result.estimate is None and counted and all(count == 0 for count in counted):
            result.note = "nothing counted in any round: no bytes per item"
        return result

    totals = {r.round_index: q["usd"] for r, q in zip(rounds, per_round, strict=True)}
    differences = [
        None if total is None or base_totals.get(index) is None else total - (base_totals[index] or 0.0)
        for index, total in totals.items()
    ]
    return ConfigurationCost(
        configuration=name,
        baseline=is_baseline,
        signals=[
            SignalCost(
                signal=signal,
                bytes_per_request=over_rounds(f"{signal}_bytes_per_request"),
                bytes_per_item=per_item(f"{signal}_bytes_per_item", [r.items.get(signal) for r in rounds]),
                gb_per_day=over_rounds(f"{signal}_gb_per_day"),
                store_gb_per_day=over_rounds(f"{signal}_store_gb_per_day"),
                store_bytes_per_item=per_item(
                    f"{signal}_store_bytes_per_item", [r.store_items.get(signal) for r in rounds]
                ),
            )
            for signal in SIGNALS
        ],
        components=[
            ComponentCost(
                component=component,
                quantity=over_rounds(QUANTITY_OF[component]),
                unit=unit,
                usd_per_month=over_rounds(f"{component}_usd"),
            )
            for component, unit in COMPONENT_UNITS.items()
        ],
        bytes_per_request=over_rounds("bytes_per_request"),
        usd_per_month=over_rounds("usd"),
        usd_per_month_vs_baseline=figure(differences, len(per_round)),
        usd_per_month_by_round=totals,
    )
