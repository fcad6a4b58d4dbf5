"""Paired overhead statistics on synthetic but realistic inputs: known shifts must be measured
as that shift, noise must not come out significant (at the promised rate), and what cannot be
computed is unknown, never zero."""

from __future__ import annotations

import numpy as np

from tracetax.diagnostics.overhead import (
    METRICS,
    SIDE_BY_SIDE_MAX_SHARE_GAP,
    WORDS,
    Change,
    RoundSample,
    change,
    compare,
    describe,
    holm,
    noise_floor,
    paired_values,
    resolution_pct,
    rounds_to_resolve,
)
from tracetax.engine import histogram as hdr


def experiment(
    n_rounds: int,
    seed: int,
    added_s: float = 0.0,
    scale: float = 1.0,
    requests: int = 1500,
    drift: float = 0.15,
) -> tuple[list[RoundSample], list[RoundSample]]:
    """Baseline and candidate rounds with a strong shared drift per round (the machine state
    that the interleaved design cancels) and independent request-level noise."""
    rng = np.random.default_rng(seed)
    base, cand = [], []
    for index in range(n_rounds):
        level = 0.001 * np.exp(rng.normal(0, drift))  # both sides of a round share it
        for side, out in ((0, base), (1, cand)):
            latencies = rng.gamma(6.0, level / 6.0, size=requests) * (scale if side else 1.0) + (added_s if side else 0)
            cpu = level * 0.5e6 * (scale if side else 1.0) * np.exp(rng.normal(0, 0.01)) + (
                added_s * 1e6 if side else 0
            )
            out.append(
                RoundSample(
                    round_index=index,
                    histogram=hdr.encode(hdr.from_latencies_s(latencies)),
                    max_throughput_rps=1 / level * np.exp(rng.normal(0, 0.03)),
                    cpu_per_request_us=cpu,
                    rss_max_bytes=50e6 * np.exp(rng.normal(0, 0.005)),
                )
            )
    return base, cand


def test_a_known_added_millisecond_is_measured_as_one_millisecond() -> None:
    base, cand = experiment(5, seed=1, added_s=0.001)
    result = compare(base, cand)
    for metric in ("p50", "cpu_per_request_us"):
        item = result[metric]
        assert item.direction == "worse", item
        assert item.absolute.low is not None and item.absolute.high is not None
        assert item.absolute.low <= 1000 <= item.absolute.high, item
        assert abs(item.absolute.estimate - 1000) < 100, item  # type: ignore[operator]
    assert "ms p50" in result["p50"].summary and result["p50"].summary.endswith("worse")


def test_a_slower_configuration_reads_worse_and_lower_throughput_reads_as_a_drop() -> None:
    base, cand = experiment(4, seed=2, scale=1.5)
    result = compare(base, cand)
    assert result["p99"].significant and result["p99"].relative_pct.estimate > 30  # type: ignore[operator]
    throughput = result["max_throughput_rps"]
    # The synthetic candidate's throughput is not slowed; this checks orientation only.
    assert throughput.worse_pct().estimate == -throughput.relative_pct.estimate  # type: ignore[operator]


def test_a_a_is_significant_somewhere_in_at_most_about_5_of_100_experiments() -> None:
    # The old unpaired bootstrap called ~half of such A/As significant on some metric.
    false = 0
    runs = 100
    for seed in range(runs):
        base, cand = experiment(3, seed=1000 + seed, requests=400)
        if any(item.significant for item in compare(base, cand).values()):
            false += 1
    assert false <= 9, f"{false} of {runs} A/A experiments had a significant metric"


def test_paired_design_resolves_what_drift_would_hide() -> None:
    # 15% round-to-round drift; a 5% slowdown is invisible unpaired, clear when paired.
    base, cand = experiment(6, seed=7, scale=1.05, requests=3000)
    assert compare(base, cand)["p50"].direction == "worse"


def test_noise_floor_is_the_a_a_interval_half_width() -> None:
    base, cand = experiment(5, seed=11)
    item = compare(base, cand)["p50"]
    floor = noise_floor(base, [cand])["p50"]
    assert item.relative_pct.low is not None and item.relative_pct.high is not None
    half = (item.relative_pct.high - item.relative_pct.low) / 2
    assert floor.relative_pct is not None and abs(floor.relative_pct - half) < 0.25 * half + 0.2
    assert floor.df == 4 and floor.sd_log is not None


def test_noise_floor_without_a_second_configuration_is_unknown() -> None:
    base, _ = experiment(3, seed=3)
    floor = noise_floor(base, [])
    assert floor["p50"].relative_pct is None and floor["p50"].note


def test_resolution_and_rounds_needed() -> None:
    # sd 5% per round: 3 rounds give ±12.9%, and ±5% needs 7 rounds (t(6) x 5% / sqrt(7) = 4.6%).
    assert 12 < (resolution_pct(0.05, 10, 3) or 0) < 14
    assert rounds_to_resolve(0.05, 10, 5.0) == 7
    assert rounds_to_resolve(0.5, 10, 1.0) is None


def test_holm() -> None:
    assert holm([0.01, 0.04, None, 0.03]) == [0.03, 0.06, None, 0.06]
    assert holm([]) == []


def test_zero_or_missing_baseline_leaves_the_ratio_unknown() -> None:
    cpu = METRICS["cpu_per_request_us"]
    item = change(cpu, [(0.0, 10.0), (0.0, 12.0)])
    assert item.relative_pct.estimate is None
    assert item.absolute.estimate == 11.0
    assert "zero" in (item.note or "")
    missing = change(cpu, [])
    assert missing.absolute.estimate is None and missing.pairs == 0
    assert "unknown" in describe(missing)


def test_unpaired_rounds_are_left_out() -> None:
    base, cand = experiment(3, seed=5)
    result = compare(base[:2], cand)
    assert result["p50"].pairs == 2


def test_single_pair_has_an_estimate_and_no_interval() -> None:
    item = change(METRICS["cpu_per_request_us"], [(100.0, 150.0)])
    assert item.relative_pct.estimate == 50.0
    assert item.relative_pct.low is None and item.p_value is None
    assert "2 paired rounds" in (item.note or "")


def side_sample(index: int, solo_p50_s: float, side_p50_us: float | None, share: float | None) -> RoundSample:
    """A round with a solo histogram (all requests at `solo_p50_s`) and a side-by-side p50."""
    solo = hdr.encode(hdr.from_latencies_s(np.full(100, solo_p50_s)))
    given = {} if side_p50_us is None else {"p50": side_p50_us}
    return RoundSample(round_index=index, histogram=solo, values=given, side_share=share)


def test_a_side_by_side_p50_pairs_only_with_a_partner_of_a_like_share_of_the_core() -> None:
    p50 = METRICS["p50"]
    baseline = [side_sample(0, 0.002, 400.0, 0.03)]
    # An A/A partner (a like share) pairs with the phase's p50, whatever a third configuration took.
    alike = [side_sample(0, 0.003, 410.0, 0.03 + SIDE_BY_SIDE_MAX_SHARE_GAP / 2)]
    assert paired_values(baseline, alike, p50) == [(400.0, 410.0)]
    # A partner that took far more of the core: both sides' p50 come from their solo phases.
    heavy = [side_sample(0, 0.003, 900.0, 0.30)]
    [(base_solo, heavy_solo)] = paired_values(baseline, heavy, p50)
    assert abs(base_solo - 2000) < 20 and abs(heavy_solo - 3000) < 30
    # Never one side's phase value against the other's solo one.
    unshared = [side_sample(0, 0.003, None, None)]
    [(base_solo, solo)] = paired_values(baseline, unshared, p50)
    assert abs(base_solo - 2000) < 20 and abs(solo - 3000) < 30


def test_the_share_rule_leaves_figures_that_are_not_latencies_alone() -> None:
    cpu = METRICS["cpu_per_request_us"]
    baseline = [RoundSample(round_index=0, cpu_per_request_us=100.0, side_share=0.03)]
    heavy = [RoundSample(round_index=0, cpu_per_request_us=1100.0, side_share=0.33)]
    assert paired_values(baseline, heavy, cpu) == [(100.0, 1100.0)]


def test_a_changes_direction_words_are_published_for_the_ui() -> None:
    assert Change.model_json_schema()["x-direction-words"] == {
        "worse": "worse",
        "better": "better",
        "unchanged": "no significant change",
        "unknown": "unknown",
    }
    assert set(WORDS) == {"worse", "better", "unchanged", "unknown"}
