"""Pure parts of the span ledger: balance and where a gap is."""

from __future__ import annotations

from datetime import UTC, datetime

from tracetax.diagnostics.ledger import (
    RoundLedger,
    Signal,
    SignalLedger,
    Stage,
    _balanced,
    _lost_in_store,
    stored_telemetry,
)


def stages(**values: float | None) -> list[Stage]:
    return [Stage(stage=name, value=value) for name, value in values.items()]


def test_balanced_only_when_every_stage_is_known() -> None:
    losses = ["sdk_dropped", "exporter_failed"]
    assert _balanced(stages(expected=10, sdk_dropped=2, exporter_failed=0, stored=8), losses) is True
    assert _balanced(stages(expected=10, sdk_dropped=0, exporter_failed=0, stored=8), losses) is False
    assert _balanced(stages(expected=10, sdk_dropped=None, exporter_failed=0, stored=8), losses) is None


def test_gap_after_the_exporter_is_named() -> None:
    note = _lost_in_store(stages(exporter_sent=75_460, stored=7_680), "Tempo", "tempo_discarded_spans_total")
    assert note is not None and note.startswith("67,780 sent by the Collector but not found in Tempo")
    assert _lost_in_store(stages(exporter_sent=10, stored=10), "Tempo", "x") is None
    assert _lost_in_store(stages(exporter_sent=10, stored=None), "Tempo", "x") is None


def _round_ledger(index: int, spans: float | None, logs: float | None, counter: float | None) -> RoundLedger:
    def signal(name: Signal, stored: float | None) -> SignalLedger:
        stage = Stage(stage="stored", value=stored, unknown_reason=None if stored is not None else "tempo down")
        return SignalLedger(signal=name, stages=[stage], balanced=None)

    return RoundLedger(
        configuration="agent",
        round_index=index,
        run_id=f"r{index}",
        window=(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, 0, 1, tzinfo=UTC)),
        signals=[signal("spans", spans), signal("log_records", logs), signal("request_counter", counter)],
    )


def test_stored_telemetry_is_zero_only_when_every_round_read_zero() -> None:
    silent = stored_telemetry([_round_ledger(0, 0, 0, 0), _round_ledger(1, 0, 0, 0)], "agent")
    assert silent.none_at_all and silent.rounds == 2
    unknown = stored_telemetry([_round_ledger(0, 0, 0, 0), _round_ledger(1, None, 0, 0)], "agent")
    assert unknown.spans is None and not unknown.none_at_all
    assert unknown.unknown == ["round 2: spans stored: tempo down"]
    some = stored_telemetry([_round_ledger(0, 0, 3, 0)], "agent")
    assert some.log_records == 3 and not some.none_at_all
    assert not stored_telemetry([], "agent").none_at_all
