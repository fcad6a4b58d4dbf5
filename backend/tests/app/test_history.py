"""A check's history on a real database: the snapshot of a stored finished check (relative
overheads with their intervals, unknown volume as None), written once; the series of a
configuration by branch and machine with its change point; the verdict against history.

`store_check` stores a finished check the way the engine leaves one (rounds, results, status
completed); tests/api/test_history.py uses it too."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from tracetax.app import check_history, history
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine import histogram as hdr
from tracetax.engine.aggregate import RoundData
from tracetax.history.gate import judge_against_history
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.base import SubjectContext
from tracetax.subjects.service.aggregate import aggregate

T0 = datetime(2026, 11, 1, tzinfo=UTC)
ROUNDS = 4
CHECK_SPEC = ExperimentSpec.model_validate(
    {
        "name": "check: batch-default vs none",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"name": "baseline", "processor": "none", "baseline": True},
            {"name": "candidate", "processor": "batch"},
        ],
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "rounds": ROUNDS,
        "sample_stacks": False,
    }
).model_dump(mode="json")


@pytest.fixture
def sessions(empty_database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(empty_database_url)
    engine = make_engine(empty_database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def subjects(tmp_path: Path) -> SubjectContext:
    return SubjectContext(Settings(database_url=f"sqlite:///{tmp_path / 'unused.db'}", work_dir=tmp_path))


def _round(configuration: str, index: int, cpu_us: float) -> dict[str, Any]:
    latency_s = cpu_us / 100_000  # latency follows the CPU per request: both overheads alike
    return {
        "configuration": configuration,
        "round_index": index,
        "histogram": hdr.encode(hdr.from_latencies_s([latency_s * (1 + i / 400) for i in range(400)])),
        "figures": {
            "requests_total": 400,
            "open_phase": {"requests": 400, "achieved_rps": 100.0, "errors": 0},
            "max_throughput_rps": None,
        },
        "resources": {"cpu_per_request_us": cpu_us, "rss_max_bytes": 50_000_000},
    }


def store_check(
    sessions: sessionmaker[Session],
    overhead_pct: float,
    *,
    minutes: float,
    branch: str | None = "main",
    commit: str | None = None,
    machine: str | None = "m1",
    configuration: str = "batch-default",
    budget: dict[str, Any] | None = None,
    against_history: dict[str, Any] | None = None,
    status: str = "completed",
) -> str:
    """A check of the Go demo whose candidate costs `overhead_pct` more CPU (and latency) per
    request than its baseline in every round (±0.5% jitter), created `minutes` after T0, on
    `branch` at `commit` on machine `machine`; `status` other than completed leaves it unrun."""
    provenance = {"branch": branch, "commit": commit, "repository": "acme/shop"}
    with sessions() as session:
        experiment = repo.create_experiment(
            session, CHECK_SPEC, "go", CHECK_SPEC["name"], {k: v for k, v in provenance.items() if v}
        )
        check = repo.create_check(
            session,
            experiment.id,
            budget or {"cpu_overhead_pct": 30.0},
            False,
            configuration=configuration,
            baseline_configuration="none",
            against_history=against_history,
        )
        when = T0 + timedelta(minutes=minutes)
        session.execute(update(Check).where(Check.id == check.id).values(created_at=when))
        environment = {"machine": {"fingerprint": machine}} if machine else {}
        session.execute(update(Experiment).where(Experiment.id == experiment.id).values(environment=environment))
        session.commit()
        if status == "queued":
            return check.id
        experiment = repo.get_experiment(session, experiment.id)
        assert experiment is not None
        repo.set_status(session, experiment, "running")
        jitter = [1.0, 1.005, 0.995, 1.002, 0.998, 1.004]
        # Each configuration its own jitter, so the paired change has an interval.
        rounds = [
            _round(name, i, 100.0 * jitter[(i + shift) % 6] * (1 + overhead_pct / 100 if name == "candidate" else 1.0))
            for i in range(ROUNDS)
            for name, shift in (("baseline", 0), ("candidate", 3))
        ]
        slots = [(r["round_index"], order, r["configuration"]) for order, r in enumerate(rounds)]
        stored = repo.create_rounds(session, experiment, slots)
        for round_, fields in zip(stored, rounds, strict=True):
            values = {k: v for k, v in fields.items() if k not in ("configuration", "round_index")}
            repo.update_round(session, round_, status="completed", **values)
        data = [
            RoundData(r.configuration, r.round_index, "completed", r.histogram, r.figures, r.resources) for r in stored
        ]
        repo.save_results(session, experiment, aggregate(["baseline", "candidate"], data))
        repo.set_status(session, experiment, status)
        return check.id


def _loaded(sessions: sessionmaker[Session], check_id: str) -> tuple[Check, Experiment]:
    with sessions() as session:
        check = repo.get_check(session, check_id)
        assert check is not None
        experiment = repo.get_experiment(session, check.experiment_id)
        assert experiment is not None
        return check, experiment


def test_the_snapshot_keeps_the_verdicts_overheads_with_intervals_and_unknown_as_none(
    sessions: sessionmaker[Session], subjects: SubjectContext
) -> None:
    check_id = store_check(sessions, 20.0, minutes=0)
    check, experiment = _loaded(sessions, check_id)
    with sessions() as session:
        overheads = history.snapshot(session, check, experiment, subjects)
    assert overheads is not None
    assert overheads["verdict"] == "pass"  # +20% within a 30% budget
    metrics = overheads["metrics"]
    assert set(metrics) == {"p50", "p99", "cpu_per_request_us", "bytes_per_request", "usd_per_month"}
    cpu = metrics["cpu_per_request_us"]
    assert cpu["unit"] == "pct"
    assert cpu["estimate"] == pytest.approx(20.0, abs=0.5)
    assert cpu["low"] < cpu["estimate"] < cpu["high"]
    assert metrics["p50"]["estimate"] == pytest.approx(20.0, abs=1.0)
    # No ledger was read: the volume is unknown, not 0.
    assert metrics["bytes_per_request"] == {"estimate": None, "low": None, "high": None, "unit": "bytes"}
    assert metrics["usd_per_month"]["estimate"] is None


def test_no_snapshot_before_the_experiment_completed(sessions: sessionmaker[Session], subjects: SubjectContext) -> None:
    check, experiment = _loaded(sessions, store_check(sessions, 20.0, minutes=0, status="queued"))
    with sessions() as session:
        assert history.stored_snapshot(session, check, experiment, subjects) is None
        assert repo.get_check(session, check.id).overheads is None  # type: ignore[union-attr]


def test_the_snapshot_is_written_once(sessions: sessionmaker[Session], subjects: SubjectContext) -> None:
    check_id = store_check(sessions, 20.0, minutes=0)
    check, experiment = _loaded(sessions, check_id)
    with sessions() as session:
        first = history.stored_snapshot(session, check, experiment, subjects)
        assert first is not None
        # A second writer (another request that computed it too) keeps the first.
        assert repo.save_check_overheads(session, check_id, {"verdict": "fail", "metrics": {}}) == first
        stored = repo.get_check(session, check_id)
        assert stored is not None and stored.overheads == first


def test_the_series_filters_branch_and_machine_and_finds_the_step(
    sessions: sessionmaker[Session], subjects: SubjectContext
) -> None:
    steps = [0.0] * 6 + [40.0] * 6
    ids = [store_check(sessions, pct, minutes=i, commit=f"c{i:02d}") for i, pct in enumerate(steps)]
    store_check(sessions, 90.0, minutes=30, branch="feature", commit="f1")
    store_check(sessions, 90.0, minutes=31, machine="m2", commit="m2")
    store_check(sessions, 90.0, minutes=32, configuration="simple", commit="s1")
    with sessions() as session:
        series = history.history_series(
            session, subjects, "go", "batch-default", "cpu_per_request_us", branch="main", machine="m1"
        )
        assert [p.check_id for p in series.points] == ids  # oldest first
        assert [p.commit for p in series.points][:2] == ["c00", "c01"]
        assert series.budget == 30.0 and series.unit == "pct"
        assert [(c.index, c.commit) for c in series.change_points] == [(6, "c06")]
        assert series.change_points[0].shift == pytest.approx(40.0, abs=1.0)
        newest = history.history_series(session, subjects, "go", "batch-default", "cpu_per_request_us", limit=3)
        assert [p.commit for p in newest.points] == ["c11", "f1", "m2"]
        with pytest.raises(history.NoHistoryError) as missing:
            history.history_series(session, subjects, "go", "batch-default", "p99", branch="nope")
        assert missing.value.field == "branch"
        with pytest.raises(history.UnknownMetricError, match="use one of: p50, p99"):
            history.history_series(session, subjects, "go", "batch-default", "p42")


def test_a_check_against_history_fails_on_growth_and_skips_without_history(
    sessions: sessionmaker[Session], subjects: SubjectContext
) -> None:
    gate = {"branch": "main", "points": 5, "max_growth_pct": 5.0}
    first = store_check(sessions, 10.0, minutes=0, branch="pr-1", against_history=gate)
    for i in range(5):
        store_check(sessions, 10.0, minutes=1 + i)
    grown = store_check(sessions, 40.0, minutes=10, branch="pr-2", against_history=gate)
    same = store_check(sessions, 10.0, minutes=11, branch="pr-3", against_history=gate)

    def judged(check_id: str) -> list[tuple[str, str]]:
        check, experiment = _loaded(sessions, check_id)
        with sessions() as session:
            overheads = history.stored_snapshot(session, check, experiment, subjects)
            judgements = check_history.history_judgements(session, check, experiment, subjects, overheads)
        assert judgements is not None
        return [(j.metric, j.verdict) for j in judgements]

    assert judged(first) == [("cpu_per_request_us", "no_history")]
    assert judged(grown) == [("cpu_per_request_us", "fail")]
    assert judged(same) == [("cpu_per_request_us", "pass")]
    cases = check_history.junit_cases(
        [judge_against_history("cpu_per_request_us", history.metric_text("cpu_per_request_us"), None, [], 5.0)]
    )
    assert cases[0].outcome == "skipped" and cases[0].classname == "tracetax.history"
