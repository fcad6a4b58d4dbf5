"""Candidate settings are sized from what was measured, not fixed ratios."""

from __future__ import annotations

import pytest

from tracetax.tuning.candidates import DEFAULTS, Measured, Setting, candidates, sampled, sized


def test_the_queue_holds_a_burst_for_one_delay_plus_one_export() -> None:
    # 1,000 req/s x 5 spans, bursts x4: 20,000 spans/s for 1 s delay + 0.2 s export, x2 headroom.
    setting = sized(Measured(mean_spans_per_s=5_000, peak_spans_per_s=20_000, export_p99_ms=200), 1000)
    assert setting.queue == 65_536  # the power of two at or above 48,000
    assert setting.batch == 5_000  # one delay's spans at the mean rate, below a quarter of the queue
    assert setting.timeout_ms == 2_000  # ten slow exports, not the SDK's 30 s


def test_the_batch_stays_far_below_the_queue() -> None:
    setting = sized(Measured(mean_spans_per_s=10_000, peak_spans_per_s=10_000, export_p99_ms=10), 5000)
    assert setting.batch <= setting.queue // 4


def test_a_slower_export_needs_a_deeper_queue() -> None:
    fast = sized(Measured(2_000, 2_000, export_p99_ms=5), 200)
    slow = sized(Measured(2_000, 2_000, export_p99_ms=800), 200)
    assert slow.queue > fast.queue


def test_candidates_are_distinct_and_sampling_only_on_request() -> None:
    found = candidates(Measured(500, 2_000, 50))
    assert len({c.name for c in found}) == len(found) >= 3
    assert all(c.sampler_ratio is None for c in found)
    ratios = [s.env()["OTEL_TRACES_SAMPLER_ARG"] for s in sampled(found[0])]
    assert ratios == ["0.5", "0.25", "0.1"]


def test_the_defaults_are_the_sdks() -> None:
    defaults = Setting(DEFAULTS["queue"], DEFAULTS["batch"], DEFAULTS["delay_ms"], DEFAULTS["timeout_ms"])
    assert defaults.env() == {
        "OTEL_BSP_MAX_QUEUE_SIZE": "2048",
        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512",
        "OTEL_BSP_SCHEDULE_DELAY": "5000",
        "OTEL_BSP_EXPORT_TIMEOUT": "30000",
    }


def test_a_peak_below_the_mean_is_refused() -> None:
    with pytest.raises(ValueError, match="peak"):
        Measured(mean_spans_per_s=100, peak_spans_per_s=50, export_p99_ms=1)


def test_the_log_processor_is_sized_from_the_log_rate_with_the_same_delay() -> None:
    measured = Measured(5_000, 20_000, 200, mean_logs_per_s=1_000, peak_logs_per_s=4_000)
    setting = sized(measured, 1000)
    assert setting.logs is not None and setting.logs.delay_ms == 1000
    assert setting.logs.queue == 16_384  # 4,000 logs/s x 1.2 s x 2 = 9,600
    assert setting.logs.batch == 1_000
    env = setting.env()
    assert env["OTEL_BLRP_MAX_QUEUE_SIZE"] == "16384" and env["OTEL_BSP_MAX_QUEUE_SIZE"] == "65536"
    assert "-lq16384-lb1000" in setting.name


def test_an_unknown_log_rate_leaves_the_log_processor_alone() -> None:
    setting = sized(Measured(5_000, 5_000, 20), 200)
    assert setting.logs is None and not any(key.startswith("OTEL_BLRP_") for key in setting.env())
    with pytest.raises(ValueError, match="both log rates"):
        Measured(5_000, 5_000, 20, mean_logs_per_s=10)
