"""A ramp step is kept up with only when nothing was refused, failed, left unreceived or
queued up, and telemetrygen delivered the rate; the ramp reports the best rate kept up with."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.lab.ramp import evaluate, summarize
from tracetax.spec.collector import RampSpec


def step(**changes: Any) -> dict[str, Any]:
    base = {
        "spans_per_s": 10_000.0,
        "achieved_spans_per_s": 9_900.0,
        "generator_saturated": False,
        "generated": 30_000,
        "accepted": 30_000,
        "refused": 0,
        "send_failed": 0,
        "enqueue_failed": 0,
        "queue_size": 0,
        "queue_capacity": 1000,
    }
    return base | changes


@pytest.mark.parametrize(
    ("changes", "limited_by", "why"),
    [
        ({}, None, None),
        ({"generator_saturated": True, "achieved_spans_per_s": 7000.0}, "load generator", "delivered 7,000 of 10,000"),
        ({"refused": 120}, "collector", "120 spans refused"),
        ({"send_failed": 5}, "collector", "failed to export"),
        ({"enqueue_failed": 5}, "collector", "not enqueued"),
        ({"accepted": 29_000}, "collector", "1,000 of 30,000 spans sent were not received"),
        ({"queue_size": 400}, "collector", "queue grew to 400 of 1,000"),
        ({"queue_size": 50}, None, None),  # a batch in flight is no backlog
    ],
)
def test_a_step_says_what_kept_it_from_being_sustained(
    changes: dict[str, Any], limited_by: str | None, why: str | None
) -> None:
    result = evaluate(step(**changes))
    assert result["sustained"] is (limited_by is None)
    assert result["limited_by"] == limited_by
    if why is not None:
        assert why in result["why"]


def test_the_ramp_reports_the_best_rate_kept_up_with_and_what_stopped_it() -> None:
    steps = [
        evaluate(step(spans_per_s=1000.0, achieved_spans_per_s=995.0)),
        evaluate(step(spans_per_s=1500.0, achieved_spans_per_s=1490.0)),
        evaluate(step(spans_per_s=2250.0, achieved_spans_per_s=2240.0, refused=300)),
    ]
    result = summarize(steps, ceiling=100_000)
    assert result["max_sustainable_spans_per_s"] == 1490.0
    assert result["limited_by"] == "collector" and "refused" in result["why"]
    assert summarize(steps[:2], ceiling=1500)["limited_by"] == "ramp ceiling"
    assert summarize([], ceiling=1)["max_sustainable_spans_per_s"] is None


def test_ramp_rates_rise_by_the_factor_to_the_ceiling() -> None:
    assert RampSpec(factor=2, max_spans_per_s=9000).rates(1000) == [1000, 2000, 4000, 8000]
    assert RampSpec(start_spans_per_s=500, factor=1.5, max_steps=3).rates(1000) == [500, 750, 1125]
