"""Which rounds flagged for foreign CPU in their solo phases a check must report: none when every
budget line reads a metric paired side by side in those rounds (the interference slows every
configuration of the phase alike and cancels in the pair), all of them otherwise. One rule for a
service and for a Collector pipeline."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from tracetax.db.models import Round
from tracetax.diagnostics.checks import Budget, budget_metrics
from tracetax.diagnostics.pipeline import pipeline_side_by_side_use
from tracetax.diagnostics.rounds import SideBySideUse, completed_by_end, flagged_rounds, flags_that_matter, settle

# -- A Collector pipeline: real rounds, the side-by-side use read from them -------------------------


def _pipeline_round(name: str, index: int, *, paired: bool = True, flagged: bool = False) -> Round:
    side = {"cores_per_10k_spans_s": 0.4, "rss_max_bytes": 60_000_000, "cpu_cores": 0.2}
    figures: dict[str, Any] = {
        "spans_total": 100_000,
        "measured": {"ledger": {"lost": 0}},
        "side_by_side": side if paired else {"error": "the side-by-side phase failed"},
    }
    return Round(
        configuration=name,
        round_index=index,
        run_id=f"r{index}-{name}",
        status="completed",
        figures=figures,
        resources={"cores_per_10k_spans_s": 0.5, "isolation": {"window": {"flagged": flagged}}},
    )


def _pipeline_flags(rounds: list[Round], budget: Budget) -> list[str]:
    return flags_that_matter(flagged_rounds(rounds), rounds, budget_metrics(budget), pipeline_side_by_side_use(rounds))


# The baseline's solo window of round 2 saw another process on the lab Collector's core.
FLAGGED_SOLO = [
    _pipeline_round("batch-default", 0),
    _pipeline_round("memory-limited", 0),
    _pipeline_round("batch-default", 1, flagged=True),
    _pipeline_round("memory-limited", 1),
]


def test_a_pipeline_check_on_the_paired_metrics_is_not_made_unknown_by_solo_flags() -> None:
    budget = Budget(cores_per_10k_overhead_pct=10, rss_added_mib=50)
    assert _pipeline_flags(FLAGGED_SOLO, budget) == []


def test_a_pipeline_line_on_lost_spans_keeps_the_flags() -> None:
    budget = Budget(cores_per_10k_overhead_pct=10, max_lost_spans=0)
    assert _pipeline_flags(FLAGGED_SOLO, budget) == ["batch-default round 2"]


def test_a_flagged_round_paired_from_its_solo_figures_keeps_the_flags() -> None:
    # Round 2's phase failed for one variant: its cores per 10k spans/s came from the solo windows.
    rounds = [*FLAGGED_SOLO[:3], _pipeline_round("memory-limited", 1, paired=False)]
    assert _pipeline_flags(rounds, Budget(cores_per_10k_overhead_pct=10)) == ["batch-default round 2"]


def test_a_pipeline_run_without_a_side_by_side_phase_keeps_the_flags() -> None:
    rounds = [_pipeline_round("batch-default", 0, flagged=True), _pipeline_round("memory-limited", 0)]
    for round_ in rounds:
        round_.figures = {key: value for key, value in (round_.figures or {}).items() if key != "side_by_side"}
    assert _pipeline_flags(rounds, Budget(rss_overhead_pct=10)) == ["batch-default round 1"]


# -- A service: the side-by-side use as the diagnostics report it -----------------------------------

SERVICE_SIDE = SideBySideUse(
    metrics=["cpu_per_request_us", "rss_max_bytes", "p50"],
    rounds=[1, 2],
    latency_rounds=[1],  # round 2's phase was flagged for a busy core: its p50 came from the solo phase
    note="",
)
SERVICE_ROUNDS = [
    Round(configuration=name, round_index=index, status="completed", resources=resources)
    for index in (0, 1)
    for name, resources in (
        ("none", {"isolation": {"open": {"flagged": index == 1}}}),
        ("candidate", {"isolation": {"open": {"flagged": False}, "closed": {"flagged": False}}}),
    )
]


def _service_flags(budget: Budget, side: SideBySideUse | None = SERVICE_SIDE) -> list[str]:
    return flags_that_matter(flagged_rounds(SERVICE_ROUNDS), SERVICE_ROUNDS, budget_metrics(budget), side)


def test_a_service_check_on_cpu_per_request_is_not_made_unknown_by_solo_flags() -> None:
    assert _service_flags(Budget(cpu_overhead_pct=5, cpu_added_us=20)) == []


def test_a_service_p50_line_needs_the_flagged_round_latency_paired_too() -> None:
    assert _service_flags(Budget(p50_overhead_pct=5)) == ["none round 2"]
    latency_paired = SERVICE_SIDE.model_copy(update={"latency_rounds": [1, 2]})
    assert _service_flags(Budget(p50_overhead_pct=5, cpu_added_us=20), latency_paired) == []


def test_a_service_line_on_a_solo_metric_keeps_the_flags() -> None:
    assert _service_flags(Budget(p99_overhead_pct=5)) == ["none round 2"]
    assert _service_flags(Budget(cpu_overhead_pct=5, max_dropped_spans=0)) == ["none round 2"]
    # Only volume lines: nothing paired to excuse the flags with.
    assert _service_flags(Budget(max_bytes_per_request=2000)) == ["none round 2"]
    assert _service_flags(Budget(cpu_overhead_pct=5), side=None) == ["none round 2"]


def test_the_budget_names_what_its_lines_read() -> None:
    budget = Budget(cores_per_10k_added=0.1, rss_overhead_pct=10, max_lost_spans=0)
    assert budget_metrics(budget) == {"cores_per_10k_spans_s", "rss_max_bytes", "lost_spans"}
    assert budget_metrics(Budget(p99_added_ms=2, max_usd_per_month=40)) == {"p99"}


# -- Reading the ledger: each round waits for its own end, the earliest-ended first ---------------


def _ended(name: str, status: str, ago_s: float | None) -> Round:
    finished = None if ago_s is None else datetime.now(UTC) - timedelta(seconds=ago_s)
    return Round(configuration=name, round_index=0, run_id=name, status=status, finished_at=finished)


def test_completed_rounds_are_read_in_the_order_they_ended() -> None:
    rounds = [_ended("last", "completed", 1), _ended("failed", "failed", 30), _ended("first", "completed", 20)]
    rounds.append(_ended("no end on record", "completed", None))
    assert [r.configuration for r in completed_by_end(rounds)] == ["first", "last", "no end on record"]


def test_a_round_waits_only_what_is_left_of_its_own_settle() -> None:
    started = time.monotonic()
    asyncio.run(settle(_ended("long ago", "completed", 60), 10.0))
    assert time.monotonic() - started < 5  # ended a minute ago: nothing is left of its 10 s
    asyncio.run(settle(_ended("just now", "completed", 0), 0.3))
    assert time.monotonic() - started >= 0.25


def test_a_round_that_recorded_its_stop_waits_from_the_stop_not_its_end() -> None:
    # Its service stopped (and flushed) 4 s before the round ended: of a 4.3 s settle, 0.3 s are left.
    round_ = _ended("settled", "completed", 0)
    round_.shutdown = {"exit_code": 0, "stopped_at": time.time() - 4.0}
    started = time.monotonic()
    asyncio.run(settle(round_, 4.3))
    assert 0.25 <= time.monotonic() - started < 2.0
