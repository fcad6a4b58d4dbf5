"""When the side-by-side phase's latencies may be paired, and how a configuration's instances
pool: the pure rules of tracetax.subjects.service.side_by_side (the phase itself runs in the
stack tests)."""

from __future__ import annotations

from tracetax.diagnostics.overhead import SIDE_BY_SIDE_MAX_SHARE_GAP
from tracetax.engine import histogram as hdr
from tracetax.engine.loadgen import OpenPhaseResult
from tracetax.subjects.service.side_by_side import (
    LATENCY_MAX_SERVICE_BUSY,
    latency_flag,
    pooled_figures,
    share_gap_note,
)


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


def _result(latencies_ms: list[float], achieved_rps: float = 300.0, errors: int = 0) -> OpenPhaseResult:
    histogram = hdr.from_latencies_s(ms / 1000 for ms in latencies_ms)
    return OpenPhaseResult(
        requests=len(latencies_ms),
        errors=errors,
        duration_s=10.0,
        achieved_rps=achieved_rps,
        histogram=hdr.encode(histogram),
        summary=hdr.summarize(histogram).__dict__,
        per_second=[],
    )


def test_one_instance_keeps_its_own_figures() -> None:
    result = _result([1.0] * 50 + [2.0] * 50)
    resources = {"cpu_s": 0.02, "cpu_per_request_us": 200.0, "rss_max_bytes": 1000, "cpu_source": "schedstat (ns)"}
    figures = pooled_figures([result], [resources], [300.0, 301.0], {}, None, None)
    assert figures.instances == 1
    assert figures.requests == 100
    assert figures.cpu_per_request_us == 200.0
    assert figures.rss_max_bytes == 1000
    assert figures.p50_us == result.summary["percentiles_us"]["50"]
    assert figures.rates_rps == [300.0, 301.0]


def test_instances_pool_cpu_over_requests_latencies_merged_and_rss_per_process() -> None:
    # Two instances of one configuration: CPU per request is their CPU over their requests
    # (not the mean of two ratios), p50 comes from all their requests, RSS is one process's.
    fast, slow = _result([1.0] * 300, achieved_rps=299.0), _result([3.0] * 100, achieved_rps=301.0, errors=2)
    resources = [
        {"cpu_s": 0.03, "rss_max_bytes": 1000, "cpu_source": "schedstat (ns)"},
        {"cpu_s": 0.05, "rss_max_bytes": 3000, "cpu_source": "schedstat (ns)"},
    ]
    figures = pooled_figures([fast, slow], resources, [300.0], {}, None, None)
    assert figures.instances == 2
    assert figures.requests == 400
    assert figures.errors == 2
    assert figures.cpu_per_request_us == 200.0  # 0.08 s over 400 requests
    assert figures.rss_max_bytes == 2000
    assert figures.achieved_rps == 300.0
    assert figures.p50_us is not None and 990 <= figures.p50_us <= 1010  # 300 of the 400 took 1 ms
    assert figures.histogram is not None and hdr.decode(figures.histogram).get_total_count() == 400


def test_an_instance_s_unknown_cpu_or_rss_is_unknown_not_zero() -> None:
    resources = [{"cpu_s": 0.03, "rss_max_bytes": 1000}, {"error": "fewer than two samples"}]
    figures = pooled_figures([_result([1.0] * 10), _result([1.0] * 10)], resources, [300.0], {}, None, None)
    assert figures.cpu_s is None and figures.cpu_per_request_us is None
    assert figures.rss_max_bytes is None
