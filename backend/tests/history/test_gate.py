"""The verdict against history on synthetic histories."""

from __future__ import annotations

import pytest

from tracetax.history.changepoints import SeriesPoint
from tracetax.history.gate import (
    HistoryJudgement,
    history_growth,
    history_verdict_counts,
    judge_against_history,
    overall_verdict,
)
from tracetax.history.metrics import HistoryMetricText

MINUS = "\N{MINUS SIGN}"


def _point(estimate: float, half_width: float | None = 1.0) -> SeriesPoint:
    if half_width is None:
        return SeriesPoint(estimate)
    return SeriesPoint(estimate, estimate - half_width, estimate + half_width)


# How the subjects name these metrics (app/ hands the texts down from the registry).
TEXTS = {
    "p50": HistoryMetricText("p50 latency overhead", "pct", "p50_overhead_pct"),
    "p99": HistoryMetricText("p99 latency overhead", "pct", "p99_overhead_pct"),
    "cpu_per_request_us": HistoryMetricText("CPU per request overhead", "pct", "cpu_overhead_pct"),
    "bytes_per_request": HistoryMetricText("OTLP bytes per request", "bytes", "max_bytes_per_request"),
    "usd_per_month": HistoryMetricText("Δ$/month", "usd", "max_usd_per_month"),
}


def _judge(
    metric: str, current: SeriesPoint | None, history: list[SeriesPoint], max_growth: float, branch: str | None = None
) -> HistoryJudgement:
    return judge_against_history(metric, TEXTS[metric], current, history, max_growth, branch=branch)


CALM = [_point(value) for value in (10.0, 10.2, 9.8, 10.1, 9.9, 10.0, 10.1, 9.9, 10.0, 10.0)]


def test_a_clear_growth_beyond_the_limit_fails_with_a_sentence() -> None:
    judgement = _judge("cpu_per_request_us", _point(20.0), CALM, 5.0, branch="main")
    assert judgement.verdict == "fail"
    assert judgement.growth == pytest.approx(10.0, abs=0.1)
    assert judgement.low is not None and judgement.low > 5.0
    assert judgement.points == 10
    assert judgement.reason.startswith("CPU per request overhead grew by +10.0 points (+")
    assert "against the last 10 points of main; limit +5.0: over it beyond noise" in judgement.reason


def test_a_growth_well_within_the_limit_passes() -> None:
    judgement = _judge("p99", _point(11.0), CALM, 5.0, branch="main")
    assert judgement.verdict == "pass"
    assert judgement.high is not None and judgement.high <= 5.0
    assert "within it" in judgement.reason


def test_a_drop_is_a_change_written_with_a_minus_sign() -> None:
    judgement = _judge("p50", _point(4.0), CALM, 5.0)
    assert judgement.verdict == "pass"
    assert judgement.reason.startswith(f"p50 latency overhead changed by {MINUS}6.0 points")
    assert "of this branch" in judgement.reason


def test_an_interval_straddling_the_limit_is_inconclusive() -> None:
    judgement = _judge("cpu_per_request_us", _point(15.0, half_width=4.0), CALM, 5.0)
    assert judgement.verdict == "inconclusive"
    assert judgement.low is not None and judgement.high is not None
    assert judgement.low < 5.0 < judgement.high
    assert "straddles" in judgement.reason


def test_a_noisy_history_widens_the_interval() -> None:
    noisy = [_point(value) for value in (4.0, 16.0, 7.0, 13.0, 10.0, 2.0, 18.0, 9.0, 11.0, 10.0)]
    _, calm_low, calm_high = history_growth(_point(12.0), CALM)
    _, noisy_low, noisy_high = history_growth(_point(12.0), noisy)
    assert calm_low is not None and calm_high is not None and noisy_low is not None and noisy_high is not None
    assert noisy_high - noisy_low > 3 * (calm_high - calm_low)
    assert _judge("p99", _point(13.0), CALM, 1.0).verdict == "fail"
    assert _judge("p99", _point(13.0), noisy, 1.0).verdict == "inconclusive"


def test_the_mean_weights_points_by_their_intervals() -> None:
    # A wide-interval outlier barely moves the mean of tight points.
    history = [_point(10.0, 0.5), _point(10.0, 0.5), _point(10.0, 0.5), _point(40.0, 100.0)]
    growth, _, _ = history_growth(_point(10.0, 0.5), history)
    assert abs(growth) < 0.1


def test_history_without_intervals_uses_the_plain_mean_and_its_scatter() -> None:
    history = [_point(value, None) for value in (9.0, 11.0, 10.0, 10.0, 9.5, 10.5)]
    growth, low, high = history_growth(_point(20.0, 1.0), history)
    assert growth == pytest.approx(10.0)
    assert low is not None and high is not None
    assert low < 10.0 < high
    assert _judge("p50", _point(20.0, 1.0), history, 5.0).verdict == "fail"


def test_a_single_history_point_without_an_interval_gives_no_interval() -> None:
    judgement = _judge("p50", _point(20.0), [_point(10.0, None)], 5.0, branch="main")
    assert judgement.verdict == "inconclusive"
    assert judgement.growth == pytest.approx(10.0)
    assert judgement.low is None and judgement.high is None
    assert "against the last 1 point of main" in judgement.reason


def test_no_history_says_so() -> None:
    judgement = _judge("p99", _point(20.0), [], 5.0, branch="main")
    assert judgement.verdict == "no_history"
    assert judgement.points == 0
    assert judgement.growth is None
    assert judgement.reason == "no earlier point of p99 latency overhead on main to compare with"


def test_an_unknown_current_value_is_inconclusive_not_zero() -> None:
    judgement = _judge("bytes_per_request", None, CALM, 100.0, branch="main")
    assert judgement.verdict == "inconclusive"
    assert judgement.growth is None and judgement.low is None
    assert "unknown" in judgement.reason


def test_bytes_and_dollars_are_written_in_their_units() -> None:
    history = [_point(value, 20.0) for value in (1000.0, 1010.0, 990.0)]
    judgement = _judge("bytes_per_request", _point(1500.0, 20.0), history, 100.0)
    assert judgement.verdict == "fail"
    assert judgement.reason.startswith("OTLP bytes per request grew by +500 B (+")
    dollars = _judge("usd_per_month", _point(12.0, 0.5), [_point(10.0, 0.5)] * 3, 5.0)
    assert dollars.reason.startswith("Δ$/month grew by +$2.00 (+$")
    assert "limit +$5.00" in dollars.reason


def test_bad_input_is_refused_naming_what_to_fix() -> None:
    with pytest.raises(ValueError, match="max_growth"):
        _judge("p99", _point(1.0), CALM, float("inf"))


@pytest.mark.parametrize(
    ("same_run", "history", "overall"),
    [
        ("pass", [], "pass"),  # no gate on history
        ("fail", [], "fail"),
        ("error", [], "error"),
        ("pass", ["pass", "pass"], "pass"),
        ("pass", ["no_history"], "pass"),  # a branch's first check neither fails nor errs
        ("pass", ["pass", "no_history"], "pass"),
        ("pass", ["pass", "fail"], "fail"),
        ("fail", ["pass"], "fail"),
        ("error", ["fail"], "fail"),  # a failure against history fails even an erring run
        ("pass", ["inconclusive"], "error"),
        ("pass", ["pass", "inconclusive"], "error"),
        ("fail", ["inconclusive"], "fail"),
        ("error", ["pass"], "error"),
        ("error", ["no_history"], "error"),
        ("pass", ["a verdict of a newer version"], "error"),  # unknown is not a pass
        ("unknown", [], "error"),
    ],
)
def test_the_overall_verdict_combines_the_run_and_the_history(same_run: str, history: list[str], overall: str) -> None:
    assert overall_verdict(same_run, history) == overall


def test_history_verdicts_are_counted_worst_first_an_unknown_one_last() -> None:
    counts = history_verdict_counts(["pass", "no_history", "fail", "pass", "inconclusive", "later"])
    assert counts == [("fail", 1), ("inconclusive", 1), ("no_history", 1), ("pass", 2), ("later", 1)]
    assert history_verdict_counts([]) == []
