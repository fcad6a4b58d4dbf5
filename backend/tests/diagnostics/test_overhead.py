"""Overhead intervals on synthetic but realistic inputs: known shifts must be detected, noise
must not be."""

from __future__ import annotations

import numpy as np

from tracetax.diagnostics.overhead import RoundSample, latency_overhead, noise_floor, overhead, round_metric_overhead
from tracetax.engine import histogram as hdr


def rounds(center_s: float, n_rounds: int, seed: int, requests: int = 2000, drift: float = 0.02) -> list[RoundSample]:
    rng = np.random.default_rng(seed)
    result = []
    for _ in range(n_rounds):
        scale = center_s * (1 + rng.normal(0, drift))
        latencies = rng.gamma(4.0, scale / 4.0, size=requests)
        result.append(
            RoundSample(
                histogram=hdr.encode(hdr.from_latencies_s(latencies)),
                max_throughput_rps=1 / center_s * (1 + rng.normal(0, drift)),
                cpu_per_request_us=center_s * 1e6 * 0.8 * (1 + rng.normal(0, drift)),
                rss_max_bytes=50e6 * (1 + rng.normal(0, 0.01)),
            )
        )
    return result


def test_a_50_percent_slower_configuration_is_significant_everywhere_it_should_be() -> None:
    base, slow = rounds(0.001, 3, seed=1), rounds(0.0015, 3, seed=2)
    result = overhead(base, slow)
    for metric in ("p50", "p90", "p99"):
        interval = result[metric]
        assert interval.significant, (metric, interval)
        assert interval.low is not None and interval.high is not None
        assert interval.low <= interval.estimate <= interval.high  # type: ignore[operator]
        assert 30 < interval.estimate < 70  # type: ignore[operator]
    assert result["max_throughput_rps"].significant
    assert result["max_throughput_rps"].estimate > 0, "lower throughput is a positive overhead"  # type: ignore[operator]
    assert result["cpu_per_request_us"].significant


def test_same_distribution_is_not_significant() -> None:
    a, b = rounds(0.001, 3, seed=3), rounds(0.001, 3, seed=4)
    result = overhead(a, b)
    assert not any(result[m].significant for m in ("p50", "p90", "p99"))


def test_noise_floor_is_centered_and_never_significant() -> None:
    floor = noise_floor(rounds(0.001, 4, seed=5))
    for metric in ("p50", "p99", "max_throughput_rps", "cpu_per_request_us"):
        interval = floor[metric]
        assert interval.estimate == 0.0
        assert not interval.significant
        assert interval.low is not None and interval.low <= 0 <= interval.high  # type: ignore[operator]


def test_single_round_metrics_report_estimate_without_interval() -> None:
    interval = round_metric_overhead([100.0], [150.0], higher_is_worse=True)
    assert interval.estimate == 50.0
    assert interval.low is None
    assert not interval.significant
    assert interval.note


def test_missing_data_is_unknown_not_zero() -> None:
    assert latency_overhead([], [], 99.0).estimate is None
    assert round_metric_overhead([], [1.0], True).estimate is None
