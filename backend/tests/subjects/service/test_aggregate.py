"""Aggregation merges histograms; it never averages percentiles."""

from __future__ import annotations

from tracetax.engine import histogram as hdr
from tracetax.engine.aggregate import RoundData
from tracetax.subjects.service.aggregate import aggregate


def round_of(configuration: str, index: int, latencies_s: list[float], status: str = "completed") -> RoundData:
    histogram = hdr.from_latencies_s(latencies_s)
    summary = hdr.summarize(histogram)
    return RoundData(
        configuration=configuration,
        round_index=index,
        status=status,
        histogram=hdr.encode(histogram),
        figures={
            "open_phase": {
                "requests": len(latencies_s),
                "errors": 0,
                "achieved_rps": len(latencies_s) / 10.0,
                "summary": summary.__dict__,
            },
            "max_throughput_rps": 1000.0 + index,
        },
        resources={
            "cpu_per_request_us": 50.0 + index,
            "rss_max_bytes": 10_000_000,
            "ctx_per_request": 1.0,
            "cpu_utilization": 0.5,
        },
    )


def test_p99_comes_from_the_merged_distribution_not_the_mean_of_p99s() -> None:
    # Round 0: 1000 fast requests (1 ms). Round 1: 100 requests, 50 of them slow (100 ms).
    fast = round_of("batch", 0, [0.001] * 1000)
    mixed = round_of("batch", 1, [0.001] * 50 + [0.1] * 50)
    result = aggregate(["batch"], [fast, mixed])["batch"]
    # 50 slow of 1100 = 4.5% > 1%: the merged p99 is slow. The mean of the two rounds' p99s
    # would be (1 ms + 100 ms) / 2 = 50.5 ms, which no request took.
    assert 99_000 <= result["latency_us"]["p99"] <= 100_500
    assert 990 <= result["latency_us"]["p50"] <= 1_001
    assert result["requests"] == 1100
    assert result["latency_us"]["count"] == 1100


def test_failed_rounds_are_counted_not_merged() -> None:
    good = round_of("simple", 0, [0.002] * 100)
    failed = RoundData("simple", 1, "failed", None, None, None)
    result = aggregate(["simple"], [good, failed])["simple"]
    assert result["rounds_completed"] == 1
    assert result["rounds_failed"] == 1
    assert result["max_throughput_rps"] == 1000.0


def test_percentiles_are_monotonic_and_curve_reaches_100() -> None:
    import random

    rng = random.Random(3)
    rounds = [round_of("x", i, [rng.expovariate(1 / 0.0004) for _ in range(5000)]) for i in range(3)]
    latency = aggregate(["x"], rounds)["x"]["latency_us"]
    values = [latency[key] for key in ("p50", "p90", "p99", "p99.9", "p99.99", "max")]
    assert values == sorted(values)
    curve = aggregate(["x"], rounds)["x"]["percentile_curve"]
    assert curve[-1][0] == 100.0
    assert [p for p, _ in curve] == sorted(p for p, _ in curve)


def test_load_generator_cpu_survives_its_exit_before_the_last_sample() -> None:
    from tracetax.engine.sampler import resource_summary

    def sample(t: float, cpu: float, loadgen: float | None) -> dict[str, object]:
        base: dict[str, object] = {
            "t": t,
            "cpu_user_s": cpu,
            "cpu_system_s": 0.0,
            "rss_bytes": 1,
            "ctx_voluntary": 0,
            "ctx_involuntary": 0,
            "by_thread": {"main": [cpu, 0.0]},
        }
        return base if loadgen is None else base | {"loadgen_cpu_s": loadgen}

    # oha exited before the sampler's final reading: that sample has no loadgen_cpu_s.
    summary = resource_summary(
        [sample(0, 0, 0.0), sample(1, 0.5, 0.25), sample(2, 1.0, 0.5), sample(2.1, 1.0, None)], 1000
    )
    assert summary["loadgen_cpu_s"] == 0.5
    assert summary["loadgen_utilization"] == 0.25
    assert summary["loadgen_cpu_per_1k_requests_s"] == 0.5
