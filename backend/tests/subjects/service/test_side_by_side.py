"""When the side-by-side phase's latencies may be paired: the pure rules of
tracetax.subjects.service.side_by_side (the phase itself runs in the stack tests)."""

from __future__ import annotations

from tracetax.diagnostics.overhead import SIDE_BY_SIDE_MAX_SHARE_GAP
from tracetax.subjects.service.side_by_side import LATENCY_MAX_SERVICE_BUSY, latency_flag, share_gap_note


def test_an_a_a_on_a_quiet_core_keeps_its_latency() -> None:
    assert latency_flag({"service": 0.08, "load_generator": 0.3, "configurations": {"a": 0.03, "b": 0.031}}) is None


def test_a_busy_core_flags_the_latency_not_the_cpu() -> None:
    why = latency_flag({"service": LATENCY_MAX_SERVICE_BUSY + 0.05, "load_generator": 0.3})
    assert why is not None and "solo phases" in why


def test_configurations_far_apart_in_their_share_of_the_core_are_noted_not_flagged() -> None:
    # A 1 ms spin per request at 300 req/s (30% of the core) beside a 3% baseline: the baseline
    # waits behind the spin, the spin hardly behind the baseline, and their p50 gap shrinks. That
    # is a pair's matter (the diagnostics pair like shares only): the phase is not flagged.
    busy = {"service": 0.4, "load_generator": 0.3, "configurations": {"none": 0.03, "busy": 0.30}}
    assert latency_flag(busy) is None
    why = share_gap_note(busy)
    assert why is not None and "3% to 30%" in why and "solo phases" in why
    close = {"none": 0.03, "batch": 0.03 + SIDE_BY_SIDE_MAX_SHARE_GAP - 0.01}
    assert share_gap_note({"service": 0.2, "load_generator": 0.3, "configurations": close}) is None


def test_an_unknown_share_is_left_out_not_read_as_zero() -> None:
    assert share_gap_note({"service": 0.1, "load_generator": 0.3, "configurations": {"a": 0.3, "b": None}}) is None
