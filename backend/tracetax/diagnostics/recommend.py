"""One recommended processor setting, computed from measured values, with the rules that fired.

Rules, each fed with what the experiment measured (never with assumptions passed off as data):
- simple-on-request-path: SimpleSpanProcessor exports inside the request -> use Batch.
- queue-too-small: the SDK dropped spans -> the queue that holds the measured span rate for
  one schedule delay plus one export, with 25% headroom, rounded up to a power of two (Java
  rounds queue sizes up to a power of two anyway). The export's duration is the mean of the
  SDK's own `otel.sdk.exporter.operation.duration` over the configuration's rounds (read with
  the ledger), when the SDK reports it; otherwise the rule says it was not measured.
- batch-near-queue: max_export_batch_size close to or above max_queue_size -> a queue four
  times the batch (the SDK defaults' ratio, 2048/512). The field measured why: the export
  batch close to the queue size hurts throughput; the trade-off for higher throughput is a
  bigger queue than the batch (../shared/seeds/000, the MPSC + signal-batching study).
- cpu-over-budget: CPU overhead above budget -> head sampling at the ratio that brings the
  traced share of that overhead within budget. Judged on CPU whatever the drop counters say
  (sampling lowers the per-trace work either way); known or unknown drops are said beside it.
- no-telemetry: a configuration meant to export (its processor is not `none`) stored no span,
  no log record and no metric in any round (each read as 0, not unknown) while its overhead was
  measured -> say what it costs and that it yields nothing (e.g. the agent does not instrument
  the service's HTTP server); it is listed in `no_telemetry` and never the one to start from.
- Nothing fired and every rule ran -> keep the setting, and say so, naming only what was
  established. Nothing fired but a rule could not run -> "No recommendation yet", with why:
  never "Keep" while a rule that might have fired was not evaluated. A summary whose rules
  include cpu-over-budget opens with what is over budget.

A rule that cannot be evaluated for want of an input (drops unknown, the CPU change not
measured, the span rate unknown) is listed in `not_evaluated` with why, and the summary never
claims what that rule would have established (e.g. "CPU within budget").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from tracetax.diagnostics.ledger import StoredTelemetry
from tracetax.diagnostics.overhead import Change
from tracetax.spec.presets import BSP_DEFAULTS

HEADROOM = 1.25
NEAR_QUEUE = 0.75  # batch >= 75% of the queue counts as "close to"
SAMPLING_STEPS = (0.5, 0.25, 0.1, 0.05, 0.02, 0.01)


@dataclass
class ConfigurationFacts:
    """What was measured for one configuration (None: not measured or could not be fetched)."""

    name: str
    processor: str
    env: dict[str, str] = field(default_factory=dict)
    baseline: bool = False
    achieved_rps: float | None = None
    spans_per_request: float | None = None
    dropped_spans: float | None = None
    # Share of the service's CPU spent exporting on request threads / in total (0..1).
    export_on_request_path: float | None = None
    export_share: float | None = None
    # Mean duration of one export, seconds (SDK exporter metrics), when measured.
    export_duration_s: float | None = None
    p99_overhead: Change | None = None
    cpu_overhead: Change | None = None
    max_throughput_rps: float | None = None
    # Why dropped_spans is None (the ledger's sdk_dropped stage), when it is.
    dropped_spans_unknown: str | None = None
    # What its rounds stored (ledger.stored_telemetry); None: the ledger was not read.
    stored: StoredTelemetry | None = None
    # Every measured change against the baseline, by metric (overhead.compare).
    overhead: dict[str, Change] = field(default_factory=dict)

    def bsp(self, key: str) -> int:
        raw = self.env.get(key)
        return int(raw) if raw is not None and raw.isdigit() else BSP_DEFAULTS[key]

    @property
    def span_rate(self) -> float | None:
        if self.achieved_rps is None or self.spans_per_request is None:
            return None
        return self.achieved_rps * self.spans_per_request


class RuleFiring(BaseModel):
    rule: str
    configuration: str
    message: str
    evidence: dict[str, Any]
    setting: dict[str, str] = {}


class RuleNotEvaluated(BaseModel):
    rule: str
    configuration: str
    why: str


class Recommendation(BaseModel):
    start_from: str | None
    processor: str | None
    # The processor in words for the service's language ("the OpenTelemetry Java agent" only
    # for Java); set by the caller, which knows the language.
    processor_name: str | None = None
    env: dict[str, str]
    summary: str
    rules: list[RuleFiring]
    # Rules skipped for a configuration because an input they need is unknown, with why.
    not_evaluated: list[RuleNotEvaluated] = []
    # Configurations meant to export that stored no span, log record or metric in any round
    # while their overhead was measured (the no-telemetry rule).
    no_telemetry: list[str] = []


def next_power_of_two(value: float) -> int:
    return 1 << max(0, math.ceil(math.log2(max(value, 1))))


def simple_on_request_path(facts: ConfigurationFacts) -> RuleFiring | None:
    if facts.processor != "simple":
        return None
    evidence: dict[str, Any] = {"processor": "simple"}
    if facts.export_on_request_path is not None:
        if facts.export_on_request_path <= 0:
            return None
        evidence["export_on_request_path_share"] = round(facts.export_on_request_path, 4)
    else:
        evidence["export_on_request_path_share"] = (
            "unknown (stacks not sampled); Simple exports synchronously by design"
        )
    if facts.p99_overhead is not None and facts.p99_overhead.relative_pct.estimate is not None:
        evidence["p99_change"] = facts.p99_overhead.summary
    return RuleFiring(
        rule="simple-on-request-path",
        configuration=facts.name,
        message="SimpleSpanProcessor exports on the request path: every request waits for its spans "
        "to be serialised and sent. Use the BatchSpanProcessor.",
        evidence=evidence,
        setting={"processor": "batch"},
    )


def queue_too_small(facts: ConfigurationFacts) -> RuleFiring | None:
    if facts.processor not in ("batch", "agent") or not facts.dropped_spans:
        return None
    rate = facts.span_rate
    if rate is None:
        return None
    delay_s = facts.bsp("OTEL_BSP_SCHEDULE_DELAY") / 1000
    export_s = facts.export_duration_s
    window = delay_s + (export_s or 0.0)
    queue = next_power_of_two(rate * window * HEADROOM)
    current = facts.bsp("OTEL_BSP_MAX_QUEUE_SIZE")
    queue = max(queue, current * 2)
    return RuleFiring(
        rule="queue-too-small",
        configuration=facts.name,
        message=f"{facts.dropped_spans:,.0f} spans were dropped because the queue was full. A queue of {queue} holds "
        f"{rate:,.0f} spans/s through one schedule delay ({delay_s:g} s)"
        + (f" plus one export ({export_s:.3f} s)" if export_s is not None else " (export time not measured)")
        + f" with {int((HEADROOM - 1) * 100)}% headroom.",
        evidence={
            "dropped_spans": facts.dropped_spans,
            "span_rate_per_s": round(rate, 1),
            "schedule_delay_s": delay_s,
            "export_duration_s": export_s,
            "current_queue_size": current,
        },
        setting={"OTEL_BSP_MAX_QUEUE_SIZE": str(queue)},
    )


def batch_near_queue(facts: ConfigurationFacts, peers: list[ConfigurationFacts]) -> RuleFiring | None:
    if facts.processor not in ("batch", "agent"):
        return None
    queue, batch = facts.bsp("OTEL_BSP_MAX_QUEUE_SIZE"), facts.bsp("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")
    if batch < NEAR_QUEUE * queue:
        return None
    evidence: dict[str, Any] = {
        "max_queue_size": queue,
        "max_export_batch_size": batch,
        "field_result": "An export batch size close to or above the queue size hurts throughput; the trade-off "
        "for higher throughput is a queue bigger than the batch (seeds/000: BSP with MPSC queue and "
        "signal batching; pod CPU 72% -> 56%).",
    }
    others = [p for p in peers if p.processor == facts.processor and p.name != facts.name and p.max_throughput_rps]
    if facts.max_throughput_rps and others:
        best = max(others, key=lambda p: p.max_throughput_rps or 0)
        evidence["max_throughput_rps"] = round(facts.max_throughput_rps, 1)
        evidence[f"max_throughput_rps_of_{best.name}"] = round(best.max_throughput_rps or 0, 1)
    return RuleFiring(
        rule="batch-near-queue",
        configuration=facts.name,
        message=f"max_export_batch_size {batch} is close to or above max_queue_size {queue}. "
        f"Keep the queue about four times the batch.",
        evidence=evidence,
        setting={"OTEL_BSP_MAX_QUEUE_SIZE": str(next_power_of_two(batch * 4))},
    )


def cpu_over_budget(facts: ConfigurationFacts, budget_pct: float) -> RuleFiring | None:
    """CPU per request over budget -> head sampling at the ratio that brings the traced share
    within it. Judged on CPU alone: sampling lowers the per-trace work whether or not spans
    were dropped, so unknown or non-zero drops do not silence it (they are said beside it)."""
    overhead = facts.cpu_overhead
    estimate = overhead.relative_pct.estimate if overhead is not None else None
    if overhead is None or estimate is None or estimate <= budget_pct or overhead.direction != "worse":
        return None  # within budget, or not distinguishable from noise
    if facts.processor == "none":
        return None
    needed = budget_pct / estimate
    ratio = next((step for step in SAMPLING_STEPS if step <= needed), SAMPLING_STEPS[-1])
    return RuleFiring(
        rule="cpu-over-budget",
        configuration=facts.name,
        message=f"CPU per request is {estimate:+.1f}% against the baseline, over the {budget_pct:g}% budget. "
        f"Sampling {ratio:.0%} of traces scales the per-trace work down to about {estimate * ratio:.1f}%."
        + _drops_beside_cpu(facts),
        evidence={
            "cpu_change": overhead.summary,
            "cpu_overhead_pct": overhead.relative_pct.model_dump(),
            "budget_pct": budget_pct,
            "dropped_spans": facts.dropped_spans,
        },
        setting={"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": f"{ratio:g}"},
    )


def _drops_beside_cpu(facts: ConfigurationFacts) -> str:
    if facts.dropped_spans is None:
        return f" Spans dropped inside the SDK are unknown ({facts.dropped_spans_unknown or 'no ledger read'})."
    if facts.dropped_spans > 0:
        return f" The SDK also dropped {facts.dropped_spans:,.0f} spans: see the queue rule."
    return " No spans were dropped."


def not_evaluated(facts: ConfigurationFacts, budget_pct: float) -> list[RuleNotEvaluated]:
    """The rules that could not be evaluated for this configuration for want of an input, with
    why (the conditions under which queue_too_small and cpu_over_budget return None without
    having decided anything)."""
    skipped: list[RuleNotEvaluated] = []

    def skip(rule: str, why: str) -> None:
        skipped.append(RuleNotEvaluated(rule=rule, configuration=facts.name, why=why))

    drops_unknown = f"spans dropped inside the SDK are unknown ({facts.dropped_spans_unknown or 'no ledger read'})"
    if facts.processor in ("batch", "agent"):
        if facts.dropped_spans is None:
            skip("queue-too-small", drops_unknown)
        elif facts.dropped_spans > 0 and facts.span_rate is None:
            skip(
                "queue-too-small", "the span rate is unknown (achieved request rate or spans per request not recorded)"
            )
    if facts.processor != "none":
        overhead = facts.cpu_overhead
        if overhead is None or overhead.relative_pct.estimate is None:
            skip("cpu-over-budget", "the change of CPU per request was not measured")
    return skipped


def _costs(facts: ConfigurationFacts) -> list[str]:
    """The configuration's significant worsenings against the baseline, as people read them."""
    return [
        change.summary or f"{change.label} {change.relative_pct.estimate:+.1f}%"
        for change in facts.overhead.values()
        if change.significant and change.direction == "worse"
    ]


def no_telemetry(facts: ConfigurationFacts) -> RuleFiring | None:
    """A configuration meant to export that stored nothing at all while its overhead was
    measured: whatever it costs buys no telemetry."""
    stored = facts.stored
    if facts.baseline or facts.processor == "none" or stored is None or not stored.none_at_all:
        return None
    measured = [change for change in facts.overhead.values() if change.relative_pct.estimate is not None]
    if not measured:
        return None
    costs = _costs(facts)
    cost_text = "; ".join(costs) if costs else "no significant cost measured"
    return RuleFiring(
        rule="no-telemetry",
        configuration=facts.name,
        message=f"{facts.name} costs ({cost_text}) and produced no telemetry: no span, no log record and no "
        f"metric reached the stores in any of its {stored.rounds} rounds. Its instrumentation did not see the "
        "service's work (e.g. the agent does not instrument the service's HTTP server, or the SDK is not set "
        "up to export): fix that before judging its overhead.",
        evidence={
            "costs": costs,
            "rounds": stored.rounds,
            "stored_spans": stored.spans,
            "stored_log_records": stored.log_records,
            "stored_metrics": stored.metrics,
        },
    )


def _start_from(candidates: list[ConfigurationFacts]) -> ConfigurationFacts | None:
    """The measured configuration to build on: the lowest p99 overhead among those that export
    off the request path (not Simple) and stored some telemetry, preferring ones without known
    drops."""

    def key(facts: ConfigurationFacts) -> tuple[int, float]:
        measured = facts.p99_overhead.relative_pct.estimate if facts.p99_overhead else None
        p99 = measured if measured is not None else 1e9
        return (1 if facts.dropped_spans else 0, p99)

    usable = [c for c in candidates if c.processor not in ("none", "simple") and no_telemetry(c) is None]
    return min(usable, key=key) if usable else None


def _established(facts: ConfigurationFacts, budget_pct: float, skipped: list[str]) -> str:
    """What the rules that ran established for a configuration none of them fired for."""
    parts = []
    if facts.processor in ("batch", "agent"):
        if "queue-too-small" not in skipped:
            parts.append("no drops")
        parts.append("batch well below the queue")
    overhead = facts.cpu_overhead
    estimate = overhead.relative_pct.estimate if overhead is not None else None
    if "cpu-over-budget" not in skipped and estimate is not None:
        parts.append("CPU within budget" if estimate <= budget_pct else "CPU not shown above budget")
    return ", ".join(parts)


def _not_evaluated_text(skipped: list[RuleNotEvaluated]) -> str:
    return "; ".join(f"{item.rule} ({item.why})" for item in skipped)


def recommend(configurations: list[ConfigurationFacts], cpu_budget_pct: float = 10.0) -> Recommendation:
    candidates = [c for c in configurations if not c.baseline]
    firings: list[RuleFiring] = []
    skipped: list[RuleNotEvaluated] = []
    for facts in candidates:
        for firing in (
            no_telemetry(facts),
            simple_on_request_path(facts),
            queue_too_small(facts),
            batch_near_queue(facts, candidates),
            cpu_over_budget(facts, cpu_budget_pct),
        ):
            if firing is not None:
                firings.append(firing)
        skipped += not_evaluated(facts, cpu_budget_pct)
    silent = [f.configuration for f in firings if f.rule == "no-telemetry"]
    result = _recommendation(candidates, firings, skipped, cpu_budget_pct)
    result.not_evaluated, result.no_telemetry = skipped, silent
    if silent:
        said = " ".join(f.message for f in firings if f.rule == "no-telemetry")
        nothing = result.start_from is None and result.processor is None
        result.summary = f"No configuration to start from. {said}" if nothing else f"{result.summary} {said}"
    return result


def _recommendation(
    candidates: list[ConfigurationFacts],
    firings: list[RuleFiring],
    skipped: list[RuleNotEvaluated],
    cpu_budget_pct: float,
) -> Recommendation:
    start = _start_from(candidates)
    if start is None:
        only_simple = [f for f in firings if f.rule == "simple-on-request-path"]
        if only_simple:
            env = {k: str(v) for k, v in BSP_DEFAULTS.items()}
            return Recommendation(
                start_from=None,
                processor="batch",
                env=env,
                summary="Use the BatchSpanProcessor (defaults shown); no batch configuration was measured here.",
                rules=firings,
            )
        return Recommendation(start_from=None, processor=None, env={}, summary="Nothing to compare.", rules=firings)
    env = dict(start.env)
    for firing in firings:
        if firing.configuration == start.name:
            env.update({k: v for k, v in firing.setting.items() if k.startswith("OTEL_")})
    own = [f for f in firings if f.configuration == start.name]
    own_skipped = [item for item in skipped if item.configuration == start.name]
    over_budget = next((f for f in own if f.rule == "cpu-over-budget"), None)
    if own:
        # What is over budget comes first: a reader who stops at the first sentence knows it.
        lead = f"Over budget: {over_budget.message.split('. ')[0]}. " if over_budget else ""
        summary = f"{lead}Start from {start.name} and apply: {', '.join(f.rule for f in own)}."
    elif own_skipped:
        # Never "Keep" while a rule could not run: it might have fired.
        established = _established(start, cpu_budget_pct, [item.rule for item in own_skipped])
        summary = f"No recommendation yet for {start.name}: {_not_evaluated_text(own_skipped)}" + (
            f". Established: {established}." if established else "."
        )
    else:
        established = _established(start, cpu_budget_pct, [])
        summary = f"Keep {start.name}: no rule fired for it" + (f" ({established})." if established else ".")
    if own and own_skipped:
        summary += f" Not evaluated for {start.name}: {_not_evaluated_text(own_skipped)}."
    return Recommendation(start_from=start.name, processor=start.processor, env=env, summary=summary, rules=firings)
