"""The pure parts of a pipeline round's side-by-side phase: the spec's defaults and estimate,
a variant's figures from its window, the start order and busy shares every subject shares
(the phase itself runs the real lab in the stack tests)."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.spec.collector import PIPELINE_STARTUP_S, PIPELINE_STOP_S, PipelineSpec
from tracetax.subjects.collector.side_by_side import accepted_between, saturation_note, side_figures
from tracetax.subjects.together import busy_share, cpu_shares, side_run_id, start_order
from tracetax.system.procfs import CpuTimes

ACCEPTED = 'otelcol_receiver_accepted_spans_total{receiver="otlp",transport="grpc"}'


def _spec(variants: int = 2, **load: Any) -> PipelineSpec:
    names = ["batch-default", "memory-limited", "tail-sampling", "loadbalancing"][:variants]
    return PipelineSpec.model_validate(
        {
            "subject": "collector",
            "configurations": [{"pipeline": name, "baseline": index == 0} for index, name in enumerate(names)],
            "load": {"spans_per_s": 5000, "warmup_s": 2, "duration_s": 20, "drain_s": 6, **load},
            "rounds": 5,
        }
    )


def test_the_phase_defaults_to_the_solo_window_up_to_ten_seconds_and_its_warmup() -> None:
    load = _spec().load
    assert load.side_by_side_seconds == 10  # the solo window is 20 s
    assert load.side_by_side_warmup_seconds == 2
    tuned = _spec(side_by_side_s=15, side_by_side_warmup_s=0).load
    assert (tuned.side_by_side_seconds, tuned.side_by_side_warmup_seconds) == (15, 0)


def test_zero_or_a_single_variant_turns_the_phase_off() -> None:
    assert _spec().runs_side_by_side()
    assert not _spec(side_by_side_s=0).runs_side_by_side()
    assert not _spec(variants=1).runs_side_by_side()
    assert _spec(variants=1).side_by_side_seconds() == 0.0


def test_the_estimate_counts_the_phase_once_per_round() -> None:
    per_run = PIPELINE_STARTUP_S + 2 + 20 + 6 + PIPELINE_STOP_S
    phase = 3 * PIPELINE_STARTUP_S + 2 + 10 + PIPELINE_STOP_S  # every variant's Collectors start in turn
    assert _spec(variants=3).estimated_seconds() == pytest.approx((3 * per_run + phase) * 5)
    assert _spec(variants=3, side_by_side_s=0).estimated_seconds() == pytest.approx(3 * per_run * 5)


def test_a_negative_phase_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="side_by_side_s"):
        _spec(side_by_side_s=-1)


def _lab(cpu_s: float, window_s: float, rss: int) -> dict[str, Any]:
    return {"cpu_s": cpu_s, "window_s": window_s, "rss_max_bytes": rss, "cpu_source": "schedstat (ns)"}


def test_a_variants_figures_are_its_cpu_per_span_accepted_in_the_window() -> None:
    window = {"start": {ACCEPTED: 1_000.0}, "end": {ACCEPTED: 101_000.0}}
    samples = [{"t": 0.0, "rss_bytes": 50_000_000}, {"t": 20.0, "rss_bytes": 60_000_000}]
    side = side_figures(window, _lab(cpu_s=4.0, window_s=20.0, rss=60_000_000), samples, 20.0)
    assert side.spans_accepted == 100_000
    assert side.cpu_cores == pytest.approx(0.2)
    assert side.spans_per_s == pytest.approx(5000)
    # 0.2 cores for 5,000 spans/s: 0.4 cores per 10k spans/s.
    assert side.cores_per_10k_spans_s == pytest.approx(0.4)
    assert side.rss_max_bytes == 60_000_000
    assert side.error is None


def test_unread_counters_leave_the_cost_per_span_unknown_not_zero() -> None:
    side = side_figures({"start": {}, "end": {}}, _lab(4.0, 20.0, 1), [], 20.0)
    assert side.spans_accepted is None
    assert side.cores_per_10k_spans_s is None
    assert side.cpu_cores == pytest.approx(0.2)
    assert accepted_between({}) is None


def test_a_saturated_generator_is_said() -> None:
    assert saturation_note({"saturated": False}) is None
    note = saturation_note({"saturated": True, "achieved_spans_per_s": 4100.0})
    assert note is not None and "4100.0 spans/s" in note


def test_the_start_order_is_shuffled_per_round_and_repeatable() -> None:
    names = ["a", "b", "c", "d"]
    orders = {tuple(start_order(names, index, "side-by-side")) for index in range(12)}
    assert len(orders) > 1  # not always the same configuration first
    assert start_order(names, 3, "side-by-side") == start_order(names, 3, "side-by-side")
    assert sorted(start_order(names, 3, "side-by-side")) == names


def _times(busy: float, idle: float) -> CpuTimes:
    return CpuTimes(busy, 0.0, 0.0, idle, 0.0, 0.0, 0.0, 0.0)


def test_busy_shares_are_of_the_named_cores_and_unknown_without_them() -> None:
    before = {0: _times(10, 10), 1: _times(0, 0)}
    after = {0: _times(13, 17), 1: _times(8, 2)}
    assert busy_share({1}, before, after) == pytest.approx(0.8)
    assert busy_share({0, 1}, before, after) == pytest.approx((3 + 8) / 20)
    assert busy_share(None, before, after) is None
    assert busy_share({5}, before, after) is None
    assert cpu_shares({"a": 2.0, "b": None}, 20) == {"a": 0.1, "b": None}


def test_the_phase_telemetry_carries_its_own_run_id() -> None:
    assert side_run_id("r1-batch") == "r1-batch-side"


def test_the_aggregates_keep_the_solo_figures_and_add_the_phase_s() -> None:
    from tracetax.engine.aggregate import RoundData
    from tracetax.subjects.collector.aggregate import aggregate_variant

    def round_(index: int, side: dict[str, Any]) -> RoundData:
        figures = {"measured": {"ledger": {"lost": 0}}, "side_by_side": side}
        return RoundData("batch-default", index, "completed", None, figures, {"cores_per_10k_spans_s": 0.5})

    variant = aggregate_variant(
        "batch-default",
        [
            round_(0, {"cores_per_10k_spans_s": 0.40, "rss_max_bytes": 60}),
            round_(1, {"cores_per_10k_spans_s": 0.42, "rss_max_bytes": 62}),
            round_(2, {"error": "the side-by-side phase failed: ..."}),
        ],
    )
    assert variant["cores_per_10k_spans_s"] == 0.5  # solo, still shown
    side = variant["side_by_side"]
    assert side["rounds"] == 2
    assert side["cores_per_10k_spans_s"] == pytest.approx(0.41)
    assert side["failed_rounds"] == [{"round": 2, "error": "the side-by-side phase failed: ..."}]
