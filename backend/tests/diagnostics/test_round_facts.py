"""What the ledger is told of a stored round: an unclean exit is news only where an SDK held
telemetry (a configuration without one has nothing to flush)."""

from __future__ import annotations

from tracetax.db.models import Round
from tracetax.diagnostics.report import round_facts
from tracetax.spec.service import ExperimentSpec

SPEC = ExperimentSpec.model_validate(
    {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 300},
        "rounds": 1,
    }
)


def _unclean_round(configuration: str) -> Round:
    return Round(
        configuration=configuration,
        round_index=0,
        run_id=f"r0-{configuration}",
        status="completed",
        figures={"requests_total": 3000},
        shutdown={"flushed": False},
    )


def test_an_unclean_exit_without_an_sdk_is_not_an_unflushed_sdk() -> None:
    assert round_facts(SPEC, _unclean_round("none"), None).flushed is True


def test_an_unclean_exit_with_an_sdk_may_have_lost_what_it_held() -> None:
    assert round_facts(SPEC, _unclean_round("batch-default"), None).flushed is False
