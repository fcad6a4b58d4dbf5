"""The tuning run: probe, rungs of successive halving, confirmation. Every measurement is an
ordinary experiment run by a `Lab` (the CLI's runs them through the REST API), so a run that is
cancelled or fails keeps every experiment it finished, and each can be opened on its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tracetax.diagnostics.ledger import RoundLedger, SignalLedger, mean_export_s
from tracetax.spec.service import DemoServiceRef, LoadSpec
from tracetax.tuning.candidates import Measured, Setting, candidates, sampled
from tracetax.tuning.halving import plan
from tracetax.tuning.paste import blocks
from tracetax.tuning.spec import PROBE_MEASURE_S, TuningSpec, costs, reserved_s
from tracetax.tuning.tradeoff import Budgets, Choice, Outcome, choose, kept_or_least, misses, pareto_front

BASELINE, SDK_DEFAULTS, CURRENT, RECOMMENDED = "no-sdk", "sdk-defaults", "current", "recommended"


class Lab(Protocol):
    def run(self, spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Run an experiment to its end: (its id, its diagnostics)."""
        ...


@dataclass
class Rung:
    experiment_id: str
    measure_s: float
    outcomes: list[Outcome]


@dataclass
class TuningReport:
    measured: Measured
    # False when the SDK reported no export durations: the sizing used none (export_p99_ms 0).
    export_measured: bool = False
    rungs: list[Rung] = field(default_factory=list)
    choice: Choice | None = None
    front: list[Outcome] = field(default_factory=list)
    recommended_env: dict[str, str] | None = None
    paste: dict[str, str] | None = None
    confirmation_id: str | None = None
    # Against the SDK defaults, in the confirmation's interleaved rounds, in words.
    verdict: str | None = None


def configuration(
    spec: TuningSpec, name: str, setting: Setting | dict[str, str] | None = None, processor: str | None = None
) -> dict[str, Any]:
    """One configuration of a tuning's experiment, with the spec's concurrency: the tuned launch
    (no setting: the SDK's own defaults, no OTEL_BSP_* set), or `processor` none for the baseline."""
    body: dict[str, Any] = {
        "name": name,
        "processor": processor or spec.processor,
        "concurrency": spec.concurrency.model_dump(mode="json", exclude_none=True),
    }
    if processor == "none":
        body["baseline"] = True
    if setting is not None:
        body["env"] = setting if isinstance(setting, dict) else setting.env()
    return body


def _load(load: LoadSpec, measure_s: float) -> dict[str, Any]:
    """The load for a rung: its phase length, the burst kept inside it (centred if it no longer
    fits), no closed-loop phase (the tuner ranks on the open model)."""
    body = load.model_dump(mode="json") | {"duration_s": measure_s, "max_throughput_s": 0}
    if load.burst is not None and load.burst.start_s + load.burst.duration_s > measure_s:
        length = min(load.burst.duration_s, measure_s / 2)
        body["burst"] = {**body["burst"], "duration_s": length, "start_s": (measure_s - length) / 2}
    return body


def _experiment(
    spec: TuningSpec,
    name: str,
    settings: list[tuple[str, Setting | dict[str, str] | None]],
    measure_s: float,
    rounds: int,
) -> dict[str, Any]:
    configurations = [configuration(spec, BASELINE, processor="none")]
    configurations += [configuration(spec, label, setting) for label, setting in settings]
    return {
        "name": f"{spec.name or 'tuning'}: {name}",
        "service": spec.service.model_dump(mode="json"),
        "configurations": configurations,
        "load": _load(spec.load, measure_s),
        "rounds": rounds,
        "sample_stacks": False,
    }


def _spans_per_request(spec: TuningSpec) -> float:
    service = spec.service
    declared = None if isinstance(service, DemoServiceRef) else service.spans_per_request
    found = declared if declared is not None else spec.load.spans_per_request()
    return float(found) if found else 1.0


def measured_from(spec: TuningSpec, diagnostics: dict[str, Any], rate: float) -> tuple[Measured, bool]:
    """Rates from the open model's arrival rate, the export time from the SDK's own exporter
    metrics (the mean stands for the p99 when nothing finer was measured); and whether the SDK
    reported any export time (none: the sizing assumed none)."""
    mean = rate * _spans_per_request(spec)
    burst = spec.load.burst.multiplier if spec.load.burst else 1.0
    ledgers = [RoundLedger.model_validate(entry) for entry in diagnostics.get("ledger", [])]
    export_s = mean_export_s(ledgers, SDK_DEFAULTS)
    logs_per_span = _logs_per_span(ledgers)
    mean_logs = mean * logs_per_span if logs_per_span else None
    measured = Measured(
        mean_spans_per_s=max(mean, 1e-6),
        peak_spans_per_s=max(mean * burst, mean, 1e-6),
        export_p99_ms=1000 * export_s if export_s is not None else 0.0,
        mean_logs_per_s=mean_logs,
        peak_logs_per_s=mean_logs * burst if mean_logs is not None else None,
    )
    return measured, export_s is not None


def _logs_per_span(ledgers: list[RoundLedger]) -> float | None:
    """Log records per span under the SDK defaults, from the probe's ledger (what the SDK
    counted, else what was stored); None where a round lacks either count or logs none."""
    ratios = []
    for ledger in (entry for entry in ledgers if entry.configuration == SDK_DEFAULTS):
        counts = {signal.signal: _counted(signal) for signal in ledger.signals}
        spans, logs = counts.get("spans"), counts.get("log_records")
        if not spans or not logs:
            return None
        ratios.append(logs / spans)
    return sum(ratios) / len(ratios) if ratios else None


def _counted(signal: SignalLedger) -> float | None:
    return next((value for stage in ("expected", "stored") if (value := signal.value(stage))), None)


def outcome_of(diagnostics: dict[str, Any], name: str, sampled_: bool = False) -> Outcome:
    """One configuration's measured trade-off; an unknown drop count never passes for zero."""
    changes = diagnostics.get("overhead", {}).get(name, {})

    def relative(metric: str) -> float:
        value = ((changes.get(metric) or {}).get("relative_pct") or {}).get("estimate")
        return float(value) if value is not None else math.inf

    dropped = diagnostics.get("dropped_spans", {}).get(name)
    expected = stored = 0.0
    for entry in diagnostics.get("ledger", []):
        if entry["configuration"] != name:
            continue
        spans = next((s for s in entry["signals"] if s["signal"] == "spans"), None)
        stages = {stage["stage"]: stage["value"] for stage in (spans or {}).get("stages", [])}
        expected += stages.get("expected") or 0.0
        stored += stages.get("stored") or 0.0
    rss = ((changes.get("rss_max_bytes") or {}).get("candidate")) if changes else None
    return Outcome(
        name=name,
        p99_overhead_pct=relative("p99"),
        cpu_overhead_pct=relative("cpu_per_request_us"),
        kept=stored / expected if expected else None,
        lost_spans=float(dropped) if dropped is not None else math.inf,
        rss_mib=rss / 2**20 if rss else None,
        sampled=sampled_,
    )


def _ranked(outcomes: list[Outcome], budgets: Budgets) -> list[Outcome]:
    return sorted(outcomes, key=lambda o: (len(misses(o, budgets)), o.p99_overhead_pct, -kept_or_least(o)))


def _choose(final: list[Outcome], everything: list[Outcome], budgets: Budgets) -> Choice:
    """The pick among the final rung; when none of it meets the budgets, the reasons (and the
    closest) over every setting measured."""
    chosen = choose(final, budgets)
    return chosen if chosen.recommended is not None else choose(everything, budgets)


def tune(spec: TuningSpec, lab: Lab, say: Callable[[str], None] = lambda _: None) -> TuningReport:
    budgets = Budgets(spec.budgets.p99_overhead_pct, spec.budgets.cpu_overhead_pct, spec.budgets.max_lost_spans)
    say("probe: no SDK against the SDK defaults, one round")
    _, probe = lab.run(_experiment(spec, "probe", [(SDK_DEFAULTS, None)], PROBE_MEASURE_S, 1))
    # The open model sends at `rate` whatever the service does: the spans it must take.
    measured, export_measured = measured_from(spec, probe, spec.load.rate)
    report = TuningReport(measured=measured, export_measured=export_measured)
    settings = {setting.name: setting for setting in candidates(report.measured)}
    rungs = plan(
        len(settings),
        spec.wall_time_s,
        costs(spec.load, spec.rounds),
        reserved_s(spec.load, spec.confirm_rounds, bool(spec.current_env)),
    )
    alive = list(settings)[: rungs[0].candidates]
    latest: dict[str, Outcome] = {}
    for index, rung in enumerate(rungs):
        say(f"rung {index + 1} of {len(rungs)}: {len(alive)} candidates, {rung.measure_s:g} s, {spec.rounds} rounds")
        experiment_id, diagnostics = lab.run(
            _experiment(
                spec,
                f"rung {index + 1}",
                [(SDK_DEFAULTS, None), *((n, settings[n]) for n in alive)],
                rung.measure_s,
                spec.rounds,
            )
        )
        outcomes = [outcome_of(diagnostics, name) for name in alive]
        latest.update({o.name: o for o in outcomes})
        report.rungs.append(Rung(experiment_id, rung.measure_s, outcomes))
        keep = math.ceil(len(alive) / 2) if index + 1 < len(rungs) else len(alive)
        alive = [o.name for o in _ranked(outcomes, budgets)[:keep]]
    # The winner is chosen among the longest-measured (the last rung's survivors): a setting
    # eliminated after a short rung is not compared with one measured twice as long.
    choice = _choose(report.rungs[-1].outcomes, list(latest.values()), budgets)
    if choice.recommended is None and latest:
        best = settings[_ranked(list(latest.values()), budgets)[0].name]
        variants = {s.name: s for s in sampled(best)}
        settings.update(variants)
        say(f"no unsampled setting meets the budgets: {len(variants)} sampled variants of {best.name}")
        experiment_id, diagnostics = lab.run(
            _experiment(spec, "sampled", [(SDK_DEFAULTS, None), *variants.items()], rungs[-1].measure_s, spec.rounds)
        )
        outcomes = [outcome_of(diagnostics, name, sampled_=True) for name in variants]
        latest.update({o.name: o for o in outcomes})
        report.rungs.append(Rung(experiment_id, rungs[-1].measure_s, outcomes))
        choice = _choose(outcomes, list(latest.values()), budgets)
    report.choice, report.front = choice, pareto_front(list(latest.values()))
    if choice.recommended is None:
        return report
    recommended = settings[choice.recommended.name]
    report.recommended_env = recommended.env()
    report.paste = blocks(report.recommended_env)
    current = [(CURRENT, spec.current_env)] if spec.current_env else []
    say(f"confirmation: no SDK, SDK defaults{', the current setting' if current else ''} and {recommended.name}")
    report.confirmation_id, confirmation = lab.run(
        _experiment(
            spec,
            "confirmation",
            [(SDK_DEFAULTS, None), *current, (RECOMMENDED, recommended)],
            spec.load.duration_s,
            spec.confirm_rounds,
        )
    )
    report.verdict = "; ".join(verdict(confirmation, against) for against in (SDK_DEFAULTS, *(c for c, _ in current)))
    return report


def verdict(confirmation: dict[str, Any], against: str = SDK_DEFAULTS) -> str:
    """The recommended setting against another (the SDK defaults, the current setting), each as
    a change against no SDK in the same interleaved rounds: better only when the p99 intervals
    do not overlap or it lost fewer spans."""
    other, recommended = outcome_of(confirmation, against), outcome_of(confirmation, RECOMMENDED)
    overhead = confirmation.get("overhead", {})
    ours = ((overhead.get(RECOMMENDED) or {}).get("p99") or {}).get("relative_pct") or {}
    theirs = ((overhead.get(against) or {}).get("p99") or {}).get("relative_pct") or {}
    lower_p99 = ours.get("high") is not None and theirs.get("low") is not None and ours["high"] < theirs["low"]
    fewer_lost = recommended.lost_spans < other.lost_spans
    label = "the SDK defaults" if against == SDK_DEFAULTS else "the current setting"
    figures = (
        f"p99 overhead {recommended.p99_overhead_pct:+.1f}% against {other.p99_overhead_pct:+.1f}%, "
        f"spans lost in the SDK {recommended.lost_spans:g} against {other.lost_spans:g}"
    )
    if lower_p99 or fewer_lost:
        return f"better than {label}: {figures}"
    right = "the SDK defaults are" if against == SDK_DEFAULTS else "the current setting is"
    return f"no measurable difference from {label}: {right} already right at this traffic; {figures}"
