"""The pipeline round's figures and ledger from stored counter snapshots (pure)."""

from __future__ import annotations

from tracetax.lab.ledger import ledger, processor_flow, round_figures
from tracetax.lab.telemetry import parse, total

EXPOSITION = """
# TYPE otelcol_process_uptime_seconds_total counter
otelcol_process_uptime_seconds_total 12
# TYPE otelcol_receiver_accepted_spans_total counter
otelcol_receiver_accepted_spans_total{receiver="otlp/lab",service_instance_id="x",transport="grpc"} 900
otelcol_receiver_refused_spans_total{receiver="otlp/lab",service_instance_id="x",transport="grpc"} 100
# TYPE otelcol_exporter_sent_spans_total counter
otelcol_exporter_sent_spans_total{exporter="otlp/downstream"} 880
otelcol_exporter_send_failed_spans_total{exporter="otlp/downstream"} 20
otelcol_exporter_enqueue_failed_spans_total{exporter="otlp/downstream"} 0
# TYPE otelcol_exporter_queue_size gauge
otelcol_exporter_queue_size{exporter="otlp/downstream"} 0
# TYPE otelcol_processor_incoming_items_total counter
otelcol_processor_incoming_items_total{otel_signal="traces",processor="batch"} 900
otelcol_processor_outgoing_items_total{otel_signal="traces",processor="batch"} 900
"""


def downstream(accepted: int) -> str:
    return (
        "# TYPE otelcol_process_uptime_seconds_total counter\notelcol_process_uptime_seconds_total 12\n"
        "# TYPE otelcol_receiver_accepted_spans_total counter\n"
        f'otelcol_receiver_accepted_spans_total{{receiver="otlp/lab"}} {accepted}\n'
        "# TYPE otelcol_exporter_sent_spans_total counter\n"
        f'otelcol_exporter_sent_spans_total{{exporter="otlp/onward"}} {accepted}\n'
        "# TYPE otelcol_exporter_send_failed_spans_total counter\n"
        'otelcol_exporter_send_failed_spans_total{exporter="otlp/onward"} 0\n'
    )


def test_parse_keeps_pipeline_labels_and_drops_process_identity() -> None:
    snapshot = parse(EXPOSITION)
    key = 'otelcol_receiver_accepted_spans_total{receiver="otlp/lab",transport="grpc"}'
    assert snapshot[key] == 900
    assert total(snapshot, "otelcol_exporter_sent_spans_total", exporter="otlp/downstream") == 880
    assert total(snapshot, "otelcol_nothing_total") is None  # unknown, not zero
    assert total(None, "otelcol_exporter_sent_spans_total") is None


def test_the_ledger_follows_spans_stage_by_stage() -> None:
    final = {"lab": parse(EXPOSITION), "downstream-1": parse(downstream(500)), "downstream-2": parse(downstream(380))}
    result = ledger(1000, final, samples=False)
    assert result["receiver"] == {"accepted": 900, "refused": 100, "not_received": 0}
    assert result["exporter"]["sent"] == 880 and result["exporter"]["send_failed"] == 20
    assert result["downstream"]["accepted"] == 880
    assert result["downstream"]["by_collector"] == {"downstream-1": 500, "downstream-2": 380}
    assert result["lost"] == 120 and result["not_arrived"] == 120
    assert processor_flow(final["lab"])["batch"]["held_or_dropped"] == 0


def test_a_sampling_pipeline_counts_only_reported_losses_as_lost() -> None:
    final = {"lab": parse(EXPOSITION), "downstream-1": parse(downstream(300))}
    result = ledger(1000, final, samples=True)
    assert result["not_arrived"] == 700
    assert result["lost"] == 100 + 0 + 20 + 0  # refused, not received, failed, not enqueued
    assert result["kept_ratio"] == round(300 / 900, 4)


def test_a_downstream_that_did_not_answer_leaves_arrival_unknown() -> None:
    result = ledger(1000, {"lab": parse(EXPOSITION), "downstream-1": {}}, samples=False)
    assert result["downstream"]["accepted"] is None
    assert result["lost"] is None


def test_round_figures_are_the_lab_collectors_cost_over_the_window() -> None:
    start = parse(EXPOSITION.replace(" 900\n", " 100\n", 1))
    end = parse(EXPOSITION.replace(" 900\n", " 10100\n", 1))
    collectors = {
        "lab": {"window_s": 10.0, "cpu_s": 5.0, "rss_max_bytes": 80e6},
        "downstream-1": {"window_s": 10.0, "cpu_s": 2.0},
    }
    samples = [{"rss_bytes": b} for b in (50e6, 60e6, 70e6, 72e6, 74e6)]
    figures = round_figures({"start": start, "end": end}, collectors, samples)
    assert figures["spans_per_s"] == 1000.0
    assert figures["cpu_cores"] == 0.5
    assert figures["spans_per_s_per_core"] == 2000.0
    assert figures["cores_per_10k_spans_s"] == 5.0
    assert figures["rss_steady_bytes"] == 72e6
    assert figures["downstream_cpu_cores"] == 0.2


def test_a_counter_the_collector_never_created_is_zero_in_a_real_scrape() -> None:
    healthy = "\n".join(line for line in EXPOSITION.splitlines() if "failed" not in line and "refused" not in line)
    result = ledger(900, {"lab": parse(healthy), "downstream-1": parse(downstream(900))}, samples=False)
    assert result["receiver"]["refused"] == 0
    assert result["exporter"]["send_failed"] == 0 and result["exporter"]["enqueue_failed"] == 0
    # No scrape at all: unknown, never zero.
    assert ledger(900, {"downstream-1": parse(downstream(900))}, samples=False)["exporter"]["send_failed"] is None
    # A downstream that received nothing has no accepted series: 0 arrived, all lost.
    nothing = parse("# TYPE otelcol_process_uptime_seconds_total counter\notelcol_process_uptime_seconds_total 3\n")
    result = ledger(900, {"lab": parse(healthy), "downstream-1": nothing}, samples=False)
    assert result["downstream"]["accepted"] == 0 and result["lost"] == 900


def test_a_sampling_pipeline_loses_what_neither_arrived_nor_its_policy_left_out() -> None:
    name = "otelcol_processor_tail_sampling_global_count_traces_sampled_total"
    tail = EXPOSITION + (
        f"# TYPE {name} counter\n"
        f'{name}{{decision="not_sampled",sampled="false"}} 120\n'
        f'{name}{{decision="sampled",sampled="true"}} 40\n'
    )
    # 1000 generated in traces of 5: 120 traces (600 spans) left out by the policy, 300 arrived.
    result = ledger(1000, {"lab": parse(tail), "downstream-1": parse(downstream(300))}, True, spans_per_trace=5)
    assert result["left_out_by_policy"] == 600
    assert result["lost"] == 1000 - 300 - 600  # e.g. traces evicted or dropped too early
    filtered = EXPOSITION + (
        "# TYPE otelcol_processor_filter_spans_filtered_total counter\n"
        'otelcol_processor_filter_spans_filtered_total{filter="filter/trace-id-quarter"} 700\n'
    )
    result = ledger(1000, {"lab": parse(filtered), "downstream-1": parse(downstream(300))}, True, spans_per_trace=5)
    assert result["left_out_by_policy"] == 700 and result["lost"] == 0
