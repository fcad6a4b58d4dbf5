"""A check's verdicts on a real database (app/check_history.check_outcome): none before its
experiment finishes, an error when it did not complete, and once judged the overall verdict is
the one rule's (history.gate.overall_verdict) over the same-run verdict and the judgements
against history, as the API answers it and the Markdown's title says it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tests.app.test_history import _loaded, store_check
from tracetax.app import check_history
from tracetax.core.config import Settings
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.history.gate import overall_verdict
from tracetax.subjects.base import SubjectContext

GATE = {"branch": "main", "points": 5, "max_growth_pct": 5.0}


@pytest.fixture
def sessions(empty_database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(empty_database_url)
    engine = make_engine(empty_database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def subjects(tmp_path: Path) -> SubjectContext:
    return SubjectContext(Settings(database_url=f"sqlite:///{tmp_path / 'unused.db'}", work_dir=tmp_path))


def outcome_of(
    sessions: sessionmaker[Session], subjects: SubjectContext, check_id: str
) -> check_history.CheckOutcome | None:
    check, experiment = _loaded(sessions, check_id)
    with sessions() as session:
        return check_history.check_outcome(session, check, experiment, subjects)


def test_an_unfinished_check_has_no_outcome(sessions: sessionmaker[Session], subjects: SubjectContext) -> None:
    assert outcome_of(sessions, subjects, store_check(sessions, 10.0, minutes=0, status="queued")) is None


def test_a_check_whose_experiment_failed_is_an_error_saying_so(
    sessions: sessionmaker[Session], subjects: SubjectContext
) -> None:
    outcome = outcome_of(sessions, subjects, store_check(sessions, 10.0, minutes=0, status="failed"))

    assert outcome is not None
    assert (outcome.verdict.verdict, outcome.overall, outcome.history) == ("error", "error", None)
    assert outcome.error is not None and "failed" in outcome.error


def test_the_overall_verdict_is_the_same_run_and_history_together(
    sessions: sessionmaker[Session], subjects: SubjectContext
) -> None:
    for i in range(5):
        store_check(sessions, 10.0, minutes=1 + i)
    # Within its budget (60%) in the same run, but grown by 30 points against main's history.
    grown_id = store_check(
        sessions, 40.0, minutes=10, branch="pr", budget={"cpu_overhead_pct": 60.0}, against_history=GATE
    )
    grown = outcome_of(sessions, subjects, grown_id)
    ungated = outcome_of(sessions, subjects, store_check(sessions, 10.0, minutes=11, branch="pr"))

    assert grown is not None and grown.history is not None
    assert grown.verdict.verdict == "pass" and [j.verdict for j in grown.history] == ["fail"]
    assert grown.overall == "fail" == overall_verdict(grown.verdict.verdict, [j.verdict for j in grown.history])
    assert ungated is not None and ungated.history is None
    assert ungated.overall == overall_verdict(ungated.verdict.verdict)
