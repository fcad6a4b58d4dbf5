from __future__ import annotations

from tracetax.readback import with_run_id


def test_with_run_id_adds_a_matcher_to_every_selector_shape() -> None:
    assert with_run_id("up", "r1") == 'up{tracetax_run_id="r1"}'
    assert with_run_id("up{}", "r1") == 'up{tracetax_run_id="r1"}'
    assert (
        with_run_id('otel_sdk_processor_span_processed_total{error_type="queue_full"}', "r1")
        == 'otel_sdk_processor_span_processed_total{error_type="queue_full", tracetax_run_id="r1"}'
    )


def test_with_run_id_escapes_quotes() -> None:
    assert with_run_id("up", 'a"b') == 'up{tracetax_run_id="a\\"b"}'
