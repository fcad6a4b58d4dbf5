"""A backend that is down while results are collected: its ledger stages are unknown with the
reason, the rest of the result stands, and one call collects them again once it is back."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import AnyHttpUrl

from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.diagnostics import report
from tracetax.diagnostics.ledger import RoundLedger, SignalLedger
from tracetax.native_stack.native import NativeStack
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.validation import manifest_for
from tracetax.system.ports import free_port

pytestmark = pytest.mark.stack

SPEC: dict[str, Any] = {
    "name": "tempo down during collection",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "connections": 2, "max_throughput_s": 0},
    "rounds": 1,
    "sample_stacks": False,
}


def batch_spans(runtime: EngineRuntime, experiment_id: str) -> SignalLedger:
    with runtime.sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        diagnostics = report.build(session, experiment, manifest_for(ExperimentSpec(**SPEC), runtime.subjects.services))
    ledger: RoundLedger = next(entry for entry in diagnostics.ledger if entry.configuration == "batch-default")
    return next(signal for signal in ledger.signals if signal.signal == "spans")


def test_tempo_down_leaves_stored_unknown_until_recollected(native_stack: NativeStack, tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}", work_dir=tmp_path / "work")
    runtime = EngineRuntime.create(settings, publish=lambda _: None)
    # The run exports to the real Collector and Tempo; only the collection reads from a Tempo
    # address where nothing answers.
    runtime.settings = settings.model_copy(update={"tempo_url": AnyHttpUrl(f"http://127.0.0.1:{free_port()}")})
    try:
        with runtime.sessions() as session:
            experiment_id = repo.create_experiment(session, SPEC, "go", SPEC["name"]).id
        status = runtime.engine.execute(experiment_id, threading.Event(), threading.Event())
        assert status == "completed"

        spans = batch_spans(runtime, experiment_id)
        stored = next(stage for stage in spans.stages if stage.stage == "stored")
        assert stored.value is None and stored.unknown_reason and "tempo" in stored.unknown_reason.lower(), stored
        assert spans.value("sdk_dropped") == 0  # the metrics store answered: those stages stand
        assert (spans.value("expected") or 0) > 0 and spans.value("collector_accepted") == spans.value("expected")
        assert spans.balanced is not True, "an unknown stage never balances"

        runtime.settings = settings  # Tempo is reachable again: one call collects again
        asyncio.run(runtime.collect_ledger(experiment_id))
        spans = batch_spans(runtime, experiment_id)
        assert spans.value("stored") == spans.value("expected") and spans.balanced is True, spans
    finally:
        runtime.dispose()
