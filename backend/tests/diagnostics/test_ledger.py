"""Pure parts of the span ledger: balance and where a gap is."""

from __future__ import annotations

from tracetax.diagnostics.ledger import Stage, _balanced, _lost_in_store


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
