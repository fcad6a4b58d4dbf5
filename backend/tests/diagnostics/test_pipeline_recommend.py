"""The pipeline recommendation stands on measured figures only and says which."""

from __future__ import annotations

from typing import Any

from tracetax.diagnostics.pipeline_recommend import MIB, recommend_pipeline, size_variant


def aggregate(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "spans_per_s": 1000.0,
        "cores_per_10k_spans_s": 0.5,
        "rss_max_bytes": 100 * MIB,
        "max_sustainable_spans_per_s": None,
        "ledger_totals": {"generated": 4000, "lost": 0, "not_arrived": 0},
        "per_round": [],
    }
    return base | changes


def test_cores_scale_from_the_measured_phase_and_the_limiter_holds_the_peak() -> None:
    sizing = size_variant("batch-default", aggregate(), 20_000)
    assert sizing.cores == 1.0
    assert "scaled" in sizing.cores_source
    assert sizing.memory_limiter == {"limit_mib": 125, "spike_limit_mib": 25}
    assert sizing.container_memory_mib == 157
    assert "below the target rate" in sizing.memory_source
    assert sizing.keeps_up is None  # no ramp: not known, not assumed


def test_the_ramp_is_preferred_and_a_rate_beyond_its_best_is_said() -> None:
    ramp = [
        {"achieved_spans_per_s": 10_000, "cpu_cores": 0.4, "rss_max_bytes": 80 * MIB, "sustained": True},
        {"achieved_spans_per_s": 20_000, "cpu_cores": 0.8, "rss_max_bytes": 90 * MIB, "sustained": True},
        {"achieved_spans_per_s": 29_000, "cpu_cores": 0.99, "rss_max_bytes": 200 * MIB, "sustained": False},
    ]
    item = aggregate(per_round=[{"ramp": ramp}], max_sustainable_spans_per_s=20_000)
    sizing = size_variant("tail-sampling", item, 15_000)
    assert sizing.cores == 0.6 and "interpolated" in sizing.cores_source
    assert sizing.peak_rss_bytes == 90 * MIB and "20,000" in sizing.memory_source
    assert sizing.keeps_up is True
    beyond = size_variant("tail-sampling", item, 40_000)
    assert beyond.keeps_up is False and "at most 20,000" in (beyond.note or "")


def test_the_holding_processor_with_fewer_lost_spans_is_chosen() -> None:
    aggregates = {
        "groupbytrace": aggregate(ledger_totals={"generated": 4000, "lost": 0, "not_arrived": 3000}),
        "tail-sampling": aggregate(ledger_totals={"generated": 4000, "lost": 120, "not_arrived": 3100}),
    }
    result = recommend_pipeline(aggregates, {}, 5000)
    assert result.trace_holding == "groupbytrace"
    assert result.batch is None  # batch-tuned and batch-default not both measured
    assert any("spans lost" in line for line in result.evidence)
