"""The cost model's arithmetic against hand-computed cases, intervals included."""

from __future__ import annotations

import pytest

from tracetax.diagnostics.checks import Budget, judge
from tracetax.diagnostics.cost import CostInputs, CostRound, VolumeSignal, configuration_cost, round_quantities
from tracetax.diagnostics.cost_report import _recommended

# $0.05 per vCPU-hour, $0.10 per GB of egress, traces: $0.50 per GB ingested, $0.02 per GB-month.
INPUTS = CostInputs(
    requests_per_s=1000,
    vcpu_hour_usd=0.05,
    egress_gb_usd=0.10,
    traces_ingest_gb_usd=0.50,
    logs_ingest_gb_usd=0.0,
    metrics_ingest_gb_usd=0.0,
    traces_storage_gb_month_usd=0.02,
    logs_storage_gb_month_usd=0.0,
    metrics_storage_gb_month_usd=0.0,
    retention_days=30,
)
PER_10K = 0.1  # Collector cores per 10k spans/s


def base(index: int, cpu_us: float = 100.0) -> CostRound:
    nothing: dict[VolumeSignal, float | None] = {"traces": 0.0, "logs": 0.0, "metrics": 0.0}
    return CostRound(index, 10_000, cpu_us, nothing, nothing, nothing)


def traced(index: int, cpu_us: float = 150.0, sent: float | None = 20e6) -> CostRound:
    """10,000 requests, 5 spans each at 400 bytes: 2,000 bytes per request sent, 3,000 per
    request (600 per span) handed to the trace store; no logs or metrics."""
    sent_bytes: dict[VolumeSignal, float | None] = {"traces": sent, "logs": 0.0, "metrics": 0.0}
    items: dict[VolumeSignal, float | None] = {"traces": 50_000, "logs": 0.0, "metrics": 0.0}
    stored: dict[VolumeSignal, float | None] = {"traces": 30e6, "logs": 0.0, "metrics": 0.0}
    return CostRound(index, 10_000, cpu_us, sent_bytes, items, stored, items)


def test_one_round_by_hand() -> None:
    q = round_quantities(INPUTS, traced(0), base(0), PER_10K)
    # 1,000 req/s x 50 µs = 0.05 cores; x 730 h x $0.05
    assert q["service_cores"] == pytest.approx(0.05)
    assert q["service_cores_usd"] == pytest.approx(0.05 * 730 * 0.05)
    # 5,000 spans/s x 0.1 cores per 10k spans/s
    assert q["collector_cores"] == pytest.approx(0.05)
    assert q["traces_bytes_per_request"] == pytest.approx(2000)
    assert q["traces_bytes_per_item"] == pytest.approx(400)
    # 1,000 req/s x 2,000 B x 86,400 s / 1e9 = 172.8 GB/day, x 365/12 days x $0.10
    assert q["traces_gb_per_day"] == pytest.approx(172.8)
    assert q["network_usd"] == pytest.approx(172.8 * 365 / 12 * 0.10)
    # 259.2 GB/day to Tempo: ingest 259.2 x 365/12 x $0.50, kept 30 days: 259.2 x 30 x $0.02
    assert q["traces_store_gb_per_day"] == pytest.approx(259.2)
    assert q["traces_store_bytes_per_item"] == pytest.approx(600)
    # Nothing stored, nothing to divide by: bytes per item is unknown, not zero.
    assert q["logs_store_bytes_per_item"] is None
    assert q["traces_store_usd"] == pytest.approx(259.2 * 365 / 12 * 0.50 + 259.2 * 30 * 0.02)
    assert q["logs_store_usd"] == 0.0
    total = 0.05 * 730 * 0.05 * 2 + 172.8 * 365 / 12 * 0.10 + 259.2 * 365 / 12 * 0.50 + 259.2 * 30 * 0.02
    assert q["usd"] == pytest.approx(total)


def test_interval_propagates_through_the_rounds() -> None:
    # CPU deltas 40, 50, 60 µs: cores 0.04, 0.05, 0.06; mean 0.05, sd 0.01, t(0.975, 2) = 4.302653
    cost = configuration_cost(
        "batch",
        False,
        [traced(i, cpu) for i, cpu in enumerate((140.0, 150.0, 160.0))],
        [base(i) for i in range(3)],
        INPUTS,
        PER_10K,
    )
    cores = next(c for c in cost.components if c.component == "service_cores")
    half = 4.302653 * 0.01 / 3**0.5
    assert cores.quantity.estimate == pytest.approx(0.05)
    assert cores.quantity.low == pytest.approx(0.05 - half, rel=1e-5)
    assert cores.quantity.high == pytest.approx(0.05 + half, rel=1e-5)
    dollars = 730 * 0.05
    assert cores.usd_per_month.low == pytest.approx((0.05 - half) * dollars, rel=1e-5)
    # Everything else is the same in every round: the total's interval is the cores' alone.
    assert cost.usd_per_month.high is not None and cost.usd_per_month.low is not None
    assert cost.usd_per_month.high - cost.usd_per_month.low == pytest.approx(2 * half * dollars, rel=1e-5)
    assert cost.usd_per_month.rounds == 3


def test_baseline_pairs_with_itself_and_differences_are_paired() -> None:
    baseline = [base(i, cpu) for i, cpu in enumerate((100.0, 200.0))]
    none = configuration_cost("none", True, baseline, baseline, INPUTS, PER_10K)
    assert none.usd_per_month.estimate == 0.0
    # The baseline's CPU moves 100 µs between rounds; the candidate's follows it: paired, the
    # extra is exactly 50 µs in both rounds, so the difference has no spread.
    candidate = configuration_cost("batch", False, [traced(0, 150.0), traced(1, 250.0)], baseline, INPUTS, PER_10K)
    difference = candidate.usd_per_month_vs_baseline
    assert difference.estimate == pytest.approx(candidate.usd_per_month.estimate)
    assert difference.low == pytest.approx(difference.high)
    assert candidate.vs(none).estimate == pytest.approx(difference.estimate)


def test_nothing_sent_has_no_bytes_per_item_and_says_why() -> None:
    none = configuration_cost("none", True, [base(0), base(1)], [base(0), base(1)], INPUTS, PER_10K)
    traces = next(s for s in none.signals if s.signal == "traces")
    assert traces.bytes_per_request.estimate == 0.0
    assert traces.bytes_per_item.estimate is None
    assert traces.bytes_per_item.note == "nothing counted in any round: no bytes per item"


def test_an_unknown_volume_is_unknown_not_zero() -> None:
    cost = configuration_cost("batch", False, [traced(0), traced(1, sent=None)], [base(0), base(1)], INPUTS, PER_10K)
    traces = next(s for s in cost.signals if s.signal == "traces")
    assert traces.bytes_per_request.rounds == 1
    assert traces.bytes_per_request.note is not None and "unknown in 1 of 2 rounds" in traces.bytes_per_request.note
    assert cost.usd_per_month.rounds == 1  # the round without its volume has no total
    assert cost.usd_per_month_by_round[1] is None


def test_inputs_are_validated() -> None:
    with pytest.raises(ValueError, match="requests_per_s"):
        CostInputs(requests_per_s=0)


def test_check_budgets_on_bytes_and_money() -> None:
    cost = configuration_cost("candidate", False, [traced(0), traced(1, 160.0)], [base(0), base(1)], INPUTS, PER_10K)
    # 2,000 bytes per request in both rounds; thousands of dollars a month.
    verdict = judge(Budget(max_bytes_per_request=2500, max_usd_per_month=1), {}, None, cost=cost)
    lines = {line.name: line for line in verdict.lines}
    assert lines["max_bytes_per_request"].verdict == "pass", lines
    assert lines["max_usd_per_month"].verdict == "fail", lines
    assert verdict.verdict == "fail"
    tight = judge(Budget(max_bytes_per_request=1999), {}, None, strict=True, cost=cost)
    assert tight.lines[0].verdict == "fail"
    unread = judge(Budget(max_bytes_per_request=1), {}, None, cost=None)
    assert unread.lines[0].verdict == "unknown" and unread.verdict == "error"


def test_the_recommendation_says_what_it_saves() -> None:
    baseline = [base(0), base(1)]
    none = configuration_cost("none", True, baseline, baseline, INPUTS, PER_10K)
    cheap = configuration_cost("sampled", False, [traced(0, sent=2e6), traced(1, sent=2e6)], baseline, INPUTS, PER_10K)
    dear = configuration_cost("batch", False, [traced(0), traced(1)], baseline, INPUTS, PER_10K)
    summary = _recommended([none, cheap, dear], "sampled", "none", INPUTS)
    assert summary is not None
    saving = dear.vs(cheap).estimate
    assert saving is not None and saving > 0
    assert f"it saves ${saving:,.2f}" in summary.summary and "against batch" in summary.summary
    assert "than the baseline" not in summary.summary  # none costs nothing: the total says it all
