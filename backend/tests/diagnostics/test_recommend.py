"""Each recommendation rule, fed with values measured by TraceTax on this project's machines
(make bench-services, Go demo service, 5 spans per request; docs/benchmarks.md)."""

from __future__ import annotations

from tracetax.diagnostics.ledger import StoredTelemetry
from tracetax.diagnostics.overhead import Change, Interval, decide
from tracetax.diagnostics.recommend import ConfigurationFacts, next_power_of_two, recommend

# Measured: Go, closed loop, iters=1000, spans=5 (make bench-services).
GO_NONE_RPS, GO_SIMPLE_RPS, GO_BATCH_RPS = 62_081, 1_106, 7_773


def interval(estimate: float, half_width: float = 5.0) -> Change:
    """A measured relative change (higher is worse), significant when its interval excludes 0."""
    low, high = estimate - half_width, estimate + half_width
    change = Change(
        metric="p99",
        label="p99",
        unit="us",
        higher_is_worse=True,
        pairs=3,
        baseline=1000.0,
        candidate=1000.0 * (1 + estimate / 100),
        absolute=Interval(estimate=10 * estimate, low=10 * low, high=10 * high),
        relative_pct=Interval(estimate=estimate, low=low, high=high),
        summary="",
    )
    return decide(change, 0.001 if low > 0 or high < 0 else 0.5)


def baseline() -> ConfigurationFacts:
    return ConfigurationFacts(name="none", processor="none", baseline=True, max_throughput_rps=GO_NONE_RPS)


def test_simple_with_export_on_request_path_recommends_batch() -> None:
    simple = ConfigurationFacts(
        name="simple",
        processor="simple",
        export_on_request_path=0.41,
        p99_overhead=interval(3250.0, 400.0),
        max_throughput_rps=GO_SIMPLE_RPS,
        dropped_spans=0,
    )
    batch = ConfigurationFacts(
        name="batch-default",
        processor="batch",
        export_on_request_path=0.0,
        p99_overhead=interval(1900.0, 300.0),
        max_throughput_rps=GO_BATCH_RPS,
        dropped_spans=0,
        cpu_overhead=interval(4.0),
    )
    result = recommend([baseline(), simple, batch])
    fired = {(f.rule, f.configuration) for f in result.rules}
    assert ("simple-on-request-path", "simple") in fired
    assert result.start_from == "batch-default"
    assert result.processor == "batch"
    firing = next(f for f in result.rules if f.rule == "simple-on-request-path")
    assert firing.evidence["export_on_request_path_share"] == 0.41


def test_simple_whose_stacks_show_no_request_path_export_does_not_fire() -> None:
    simple = ConfigurationFacts(name="simple", processor="simple", export_on_request_path=0.0)
    assert not recommend([baseline(), simple]).rules


def test_drops_size_the_queue_for_rate_times_delay_plus_export() -> None:
    # 7,773 req/s x 5 spans = 38,865 spans/s; delay 5 s + export 0.02 s -> 195,102 spans
    # x 1.25 headroom = 243,877 -> 262,144 (next power of two).
    batch = ConfigurationFacts(
        name="batch-default",
        processor="batch",
        achieved_rps=GO_BATCH_RPS,
        spans_per_request=5,
        dropped_spans=1_200_000,
        export_duration_s=0.02,
    )
    result = recommend([baseline(), batch])
    firing = next(f for f in result.rules if f.rule == "queue-too-small")
    assert firing.setting == {"OTEL_BSP_MAX_QUEUE_SIZE": "262144"}
    assert result.env["OTEL_BSP_MAX_QUEUE_SIZE"] == "262144"
    assert firing.evidence["span_rate_per_s"] == 38_865.0


def test_no_drops_no_queue_rule() -> None:
    batch = ConfigurationFacts(name="b", processor="batch", achieved_rps=500, spans_per_request=5, dropped_spans=0)
    assert not [f for f in recommend([baseline(), batch]).rules if f.rule == "queue-too-small"]


def test_batch_close_to_queue_cites_the_field_result_and_measured_throughput() -> None:
    near = ConfigurationFacts(
        name="batch-near",
        processor="batch",
        env={"OTEL_BSP_MAX_QUEUE_SIZE": "2048", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2048"},
        max_throughput_rps=6_100,
        dropped_spans=0,
    )
    default = ConfigurationFacts(
        name="batch-default", processor="batch", max_throughput_rps=GO_BATCH_RPS, dropped_spans=0
    )
    result = recommend([baseline(), near, default])
    firing = next(f for f in result.rules if f.rule == "batch-near-queue")
    assert firing.configuration == "batch-near"
    assert firing.setting == {"OTEL_BSP_MAX_QUEUE_SIZE": "8192"}
    assert "seeds/000" in firing.evidence["field_result"]
    assert firing.evidence["max_throughput_rps_of_batch-default"] == GO_BATCH_RPS


def test_cpu_over_budget_without_drops_recommends_the_sampling_ratio_that_meets_it() -> None:
    batch = ConfigurationFacts(name="batch", processor="batch", dropped_spans=0, cpu_overhead=interval(42.0))
    result = recommend([baseline(), batch], cpu_budget_pct=10)
    firing = next(f for f in result.rules if f.rule == "cpu-over-budget")
    # 10 / 42 = 0.238 -> the largest step not above it is 0.1.
    assert firing.setting == {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"}
    assert result.env["OTEL_TRACES_SAMPLER_ARG"] == "0.1"


def test_cpu_over_budget_is_judged_on_cpu_whatever_the_drop_counters_say() -> None:
    # Sampling lowers the per-trace work whether or not spans were dropped.
    unknown = ConfigurationFacts(name="batch", processor="batch", dropped_spans=None, cpu_overhead=interval(42.0))
    firing = next(f for f in recommend([baseline(), unknown]).rules if f.rule == "cpu-over-budget")
    assert "dropped inside the SDK are unknown" in firing.message
    dropping = ConfigurationFacts(name="batch", processor="batch", dropped_spans=500, cpu_overhead=interval(42.0))
    firing = next(f for f in recommend([baseline(), dropping]).rules if f.rule == "cpu-over-budget")
    assert "also dropped 500 spans" in firing.message


def test_a_third_party_service_over_budget_opens_with_what_is_over_budget_not_keep() -> None:
    # The reported case: ebpf, CPU per request +124%, drops unknown (the agent reports no counter).
    ebpf = ConfigurationFacts(
        name="ebpf",
        processor="ebpf",
        dropped_spans=None,
        dropped_spans_unknown="round 1: the SDK reported no drop counter",
        cpu_overhead=interval(124.0, 40.0),
        p99_overhead=interval(1.0),
    )
    result = recommend([baseline(), ebpf], cpu_budget_pct=10)
    assert result.summary.startswith(
        "Over budget: CPU per request is +124.0% against the baseline, over the 10% budget. Start from ebpf"
    )
    assert "Keep" not in result.summary
    assert "within budget" not in result.summary
    assert "no drops" not in result.summary


def test_unknown_drops_leave_the_queue_rule_not_evaluated_and_unclaimed() -> None:
    batch = ConfigurationFacts(
        name="batch", processor="batch", dropped_spans=None, cpu_overhead=interval(3.0), p99_overhead=interval(1.0)
    )
    result = recommend([baseline(), batch], cpu_budget_pct=10)
    assert {item.rule for item in result.not_evaluated} == {"queue-too-small"}
    assert result.summary.startswith(
        "No recommendation yet for batch: queue-too-small (spans dropped inside the SDK are unknown"
    )
    assert result.summary.endswith("Established: batch well below the queue, CPU within budget.")
    assert "Keep" not in result.summary


def test_an_unmeasured_cpu_change_is_not_evaluated() -> None:
    batch = ConfigurationFacts(name="batch", processor="batch", dropped_spans=0, p99_overhead=interval(1.0))
    result = recommend([baseline(), batch])
    assert [item.rule for item in result.not_evaluated] == ["cpu-over-budget"]
    assert result.summary.startswith("No recommendation yet for batch: cpu-over-budget (the change of CPU")
    assert "CPU within budget" not in result.summary and "CPU not shown" not in result.summary


def silent_agent(stored: StoredTelemetry) -> ConfigurationFacts:
    rss, p999 = interval(60.0), interval(40.0)
    rss.summary, p999.summary = "RSS +134 MiB", "p99.9 +17 ms"
    return ConfigurationFacts(
        name="zero-code",
        processor="agent",
        dropped_spans=0,
        cpu_overhead=interval(2.0),
        p99_overhead=interval(1.0),
        overhead={"rss_bytes": rss, "p999": p999},
        stored=stored,
    )


def test_a_configuration_that_costs_and_stores_nothing_is_said_so() -> None:
    nothing = StoredTelemetry(rounds=3, spans=0, log_records=0, metrics=0)
    result = recommend([baseline(), silent_agent(nothing)])
    assert result.no_telemetry == ["zero-code"]
    assert "no rule fired" not in result.summary
    assert "produced no telemetry" in result.summary and "RSS +134 MiB" in result.summary
    firing = next(f for f in result.rules if f.rule == "no-telemetry")
    assert firing.evidence["costs"] == ["RSS +134 MiB", "p99.9 +17 ms"]
    assert result.start_from is None


def test_a_silent_configuration_is_not_the_one_to_start_from() -> None:
    nothing = StoredTelemetry(rounds=3, spans=0, log_records=0, metrics=0)
    batch = ConfigurationFacts(
        name="batch", processor="batch", dropped_spans=0, cpu_overhead=interval(3.0), p99_overhead=interval(5.0)
    )
    result = recommend([baseline(), silent_agent(nothing), batch])
    assert result.start_from == "batch"
    assert result.no_telemetry == ["zero-code"]
    assert result.summary.startswith("Keep batch: no rule fired") and "zero-code costs" in result.summary


def test_unknown_stored_counts_are_not_no_telemetry() -> None:
    unknown = StoredTelemetry(rounds=3, spans=0, log_records=0, metrics=None, unknown=["round 1: metrics: down"])
    result = recommend([baseline(), silent_agent(unknown)])
    assert result.no_telemetry == []
    assert not [f for f in result.rules if f.rule == "no-telemetry"]


def test_nothing_to_change_says_so() -> None:
    batch = ConfigurationFacts(
        name="batch-default",
        processor="batch",
        dropped_spans=0,
        cpu_overhead=interval(3.0),
        achieved_rps=200,
        spans_per_request=5,
        p99_overhead=interval(2.0),
    )
    result = recommend([baseline(), batch])
    assert result.rules == []
    assert result.start_from == "batch-default"
    assert result.summary.startswith("Keep batch-default: no rule fired")


def test_next_power_of_two() -> None:
    assert [next_power_of_two(v) for v in (0, 1, 2, 3, 2048, 2049)] == [1, 1, 2, 4, 2048, 4096]
