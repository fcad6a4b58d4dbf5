"""Migration 0009 on a database with stored rounds of both subjects (SQLite and PostgreSQL, by
the `databases` fixture): each round's four overloaded columns become its subject's figures,
the rounds answer exactly what they answered before, and the downgrade puts the columns back."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import command

from tracetax.api.schemas.experiments import RoundSummary
from tracetax.db import repository as repo
from tracetax.db.session import alembic_config, make_engine, migrate, session_factory
from tracetax.engine.experiment import round_data
from tracetax.subjects.registry import subject_named

OLD_COLUMNS = ("open_phase", "requests_total", "max_throughput_rps", "closed_phase")

experiments = sa.table(
    "experiments",
    sa.column("id", sa.String),
    sa.column("status", sa.String),
    sa.column("service", sa.String),
    sa.column("spec", sa.JSON),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
old_rounds = sa.table(
    "rounds",
    sa.column("experiment_id", sa.String),
    sa.column("round_index", sa.Integer),
    sa.column("order_index", sa.Integer),
    sa.column("configuration", sa.String),
    sa.column("run_id", sa.String),
    sa.column("status", sa.String),
    sa.column("requests_total", sa.Integer),
    sa.column("open_phase", sa.JSON),
    sa.column("max_throughput_rps", sa.Float),
    sa.column("closed_phase", sa.JSON),
)

SERVICE_SPEC = {"configurations": [{"name": "none", "baseline": True}]}  # before `subject` existed
COLLECTOR_SPEC = {"subject": "collector", "configurations": [{"name": "batch-default", "baseline": True}]}
RAMP = {
    "ramp": [{"spans_per_s": 2000, "achieved_spans_per_s": 1999.5, "cpu_cores": 0.2, "sustained": True, "why": None}],
    "max_sustainable_spans_per_s": 1999.5,
    "limited_by": "ramp ceiling",
    "why": "every step up to 2,000 spans/s was kept up with",
}
WINDOW = {
    "generator": {"spans": 10_000, "saturated": False, "stopped_flushing": False},
    "window_s": 10,
    "telemetry": {"window": {"lab": {"otelcol_receiver_accepted_spans": 10_000.0}}, "final": {}},
    "ledger": {"generated": 10_000, "lost": 0, "not_arrived": 0, "kept_ratio": 1.0},
}
OPEN = {
    "requests": 200,
    "errors": 1,
    "duration_s": 2.0,
    "achieved_rps": 100.0,
    "summary": {"percentiles_us": {"99": 1990}},
    "per_second": [[0, 100, 1900], [1, 100, 1990]],
    "status_codes": {"200": 200},
}
NOTHING: dict[str, Any] = dict.fromkeys(OLD_COLUMNS)
# A round that failed before it measured anything counted no requests.
FAILED_EARLY = {**NOTHING, "requests_total": 0}
# (experiment, status, the four columns as stored before 0009)
ROUNDS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "service",
        "completed",
        {
            "open_phase": OPEN,
            "requests_total": 1_234,
            "max_throughput_rps": 950.5,
            "closed_phase": {"requests": 1900, "rps": 950.5, "limited_by": "service", "why": "its cores were busy"},
        },
    ),
    (
        "service",
        "completed",
        {"open_phase": OPEN, "requests_total": 400, "max_throughput_rps": None, "closed_phase": None},
    ),
    ("service", "failed", {"open_phase": None, "requests_total": 0, "max_throughput_rps": None, "closed_phase": None}),
    ("service", "cancelled", NOTHING),  # never ran
    (
        "collector",
        "completed",
        {"open_phase": WINDOW, "requests_total": 12_000, "max_throughput_rps": 1999.5, "closed_phase": RAMP},
    ),
    (
        "collector",
        "completed",
        {**NOTHING, "open_phase": WINDOW, "requests_total": 10_000},  # no ramp
    ),
    (
        "collector",
        "failed",
        {"open_phase": None, "requests_total": 0, "max_throughput_rps": None, "closed_phase": None},
    ),
]


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON text, so 1 and 1.0 differ."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def store_before_0009(url: str) -> None:
    command.upgrade(alembic_config(url), "0008")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            for subject, spec in (("service", SERVICE_SPEC), ("collector", COLLECTOR_SPEC)):
                connection.execute(
                    sa.insert(experiments).values(
                        id=subject, status="completed", service=subject, spec=spec, created_at=datetime.now(UTC)
                    )
                )
            for index, (experiment, status, columns) in enumerate(ROUNDS):
                configuration = SERVICE_SPEC if experiment == "service" else COLLECTOR_SPEC
                connection.execute(
                    sa.insert(old_rounds).values(
                        experiment_id=experiment,
                        round_index=index,
                        order_index=0,
                        configuration=configuration["configurations"][0]["name"],
                        run_id=f"run-{index}",
                        status=status,
                        **columns,
                    )
                )
    finally:
        engine.dispose()


def test_stored_rounds_of_both_subjects_keep_their_answers_through_0009(empty_database_url: str) -> None:
    store_before_0009(empty_database_url)
    migrate(empty_database_url)

    engine = make_engine(empty_database_url)
    try:
        with session_factory(engine)() as session:
            for experiment_id in ("service", "collector"):
                experiment = repo.get_experiment(session, experiment_id)
                assert experiment is not None
                subject = subject_named(experiment_id)
                for round_ in experiment.rounds:
                    _, _, old = ROUNDS[round_.round_index]
                    # The round answers what its four columns answered.
                    assert same_json(subject.results.round_phases(round_.figures), old), round_.run_id
                    summary = RoundSummary.of(round_, subject)
                    open_phase, closed_phase = old["open_phase"] or {}, old["closed_phase"] or {}
                    assert summary.requests == open_phase.get("requests")
                    assert summary.achieved_rps == open_phase.get("achieved_rps")
                    assert summary.max_throughput_rps == old["max_throughput_rps"]
                    assert summary.limited_by == closed_phase.get("limited_by")
                    # A round that never ran has no figures; every other one has its subject's.
                    assert (round_.figures is None) == all(value is None for value in old.values())
                    assert round_data(round_).figures == round_.figures
            collector = repo.get_experiment(session, "collector")
            assert collector is not None
            assert collector.rounds[0].figures == {"spans_total": 12_000, "measured": WINDOW, "ramp": RAMP}
    finally:
        engine.dispose()


def test_0009_goes_down_to_the_four_columns_as_they_were(empty_database_url: str) -> None:
    store_before_0009(empty_database_url)
    migrate(empty_database_url)
    command.downgrade(alembic_config(empty_database_url), "0008")

    engine = make_engine(empty_database_url)
    try:
        assert "figures" not in {column["name"] for column in sa.inspect(engine).get_columns("rounds")}
        with engine.connect() as connection:
            query = sa.select(old_rounds.c.run_id, *(old_rounds.c[name] for name in OLD_COLUMNS))
            stored = {row["run_id"]: dict(row) for row in connection.execute(query).mappings()}
        for index, (_, _, old) in enumerate(ROUNDS):
            back = {name: stored[f"run-{index}"][name] for name in OLD_COLUMNS}
            assert same_json(back, old), index
    finally:
        engine.dispose()
    migrate(empty_database_url)  # and up again
