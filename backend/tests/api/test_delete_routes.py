"""DELETE of experiments, checks, calibrations and tunings, offline: a finished one goes with
every row stored for it and its work directory; a queued or running one is 409 saying to
cancel it first; an unknown id is 404."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from tests.api.conftest import go_check, go_spec
from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, ConfigurationResult, Experiment, LedgerReading, Round, Tuning

EXPERIMENTS = "/api/v1/experiments"


def sessions_of(client: TestClient) -> sessionmaker[Session]:
    sessions: sessionmaker[Session] = client.app.state.engine.sessions  # type: ignore[attr-defined]
    return sessions


def work_dir_of(client: TestClient, experiment_id: str) -> Path:
    work_dir: Path = client.app.state.engine.engine.work_dir  # type: ignore[attr-defined]
    return work_dir / experiment_id


def finish_with_data(client: TestClient, experiment_id: str) -> Path:
    """Cancel the queued experiment, then store what a run leaves: a round with samples, a
    result, a ledger reading, and files in its work directory (an oha database, a log)."""
    assert client.post(f"{EXPERIMENTS}/{experiment_id}/cancel").status_code == 200
    with sessions_of(client)() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        [round_] = repo.create_rounds(session, experiment, [(0, 0, "none")])
        samples = [{"t": 0.25 * i, "by_thread": {"main": [0.1 * i, 0.0]}} for i in range(40)]
        repo.update_round(session, round_, status="completed", samples=samples, folded_stacks="main;work 10\n")
        session.add(ConfigurationResult(experiment_id=experiment_id, configuration="none", aggregates={"x": 1}))
        session.add(LedgerReading(run_id=round_.run_id, experiment_id=experiment_id, ledger={}, sample_trace_ids=[]))
        session.commit()
    directory = work_dir_of(client, experiment_id)
    (directory / "r0-none" / "warmup").mkdir(parents=True)
    (directory / "r0-none" / "open.sqlite").write_bytes(b"\0" * 4096)
    (directory / "r0-none" / "service.log").write_text("started\n")
    return directory


def stored_rows(client: TestClient, experiment_id: str) -> dict[str, int]:
    models: tuple[Any, ...] = (Round, ConfigurationResult, LedgerReading, Check, Calibration)
    with sessions_of(client)() as session:
        counts = {
            model.__tablename__: session.scalar(
                select(func.count()).select_from(model).where(model.experiment_id == experiment_id)
            )
            for model in models
        }
        counts["experiments"] = session.scalar(
            select(func.count()).select_from(Experiment).where(Experiment.id == experiment_id)
        )
    return {table: int(count or 0) for table, count in counts.items()}


def test_deleting_a_finished_experiment_removes_its_rows_and_work_directory(client: TestClient) -> None:
    experiment_id = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    kept_id = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    directory = finish_with_data(client, experiment_id)
    kept_directory = finish_with_data(client, kept_id)
    assert stored_rows(client, experiment_id)["rounds"] == 1

    response = client.delete(f"{EXPERIMENTS}/{experiment_id}")

    assert response.status_code == 204, response.text
    assert response.content == b""
    assert not directory.exists()
    assert set(stored_rows(client, experiment_id).values()) == {0}
    assert client.get(f"{EXPERIMENTS}/{experiment_id}").status_code == 404
    # Another experiment is untouched.
    assert kept_directory.is_dir() and stored_rows(client, kept_id)["rounds"] == 1
    assert client.delete(f"{EXPERIMENTS}/{experiment_id}").status_code == 404


def test_a_queued_experiment_is_409_naming_the_cancel_route(client: TestClient) -> None:
    experiment_id = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    response = client.delete(f"{EXPERIMENTS}/{experiment_id}")
    assert response.status_code == 409, response.text
    assert "is queued" in response.json()["detail"]
    assert f"POST /api/v1/experiments/{experiment_id}/cancel" in response.json()["detail"]
    assert client.get(f"{EXPERIMENTS}/{experiment_id}").json()["status"] == "queued"


def test_a_running_experiment_is_409_and_keeps_its_files(client: TestClient) -> None:
    experiment_id = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    with sessions_of(client)() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        repo.set_status(session, experiment, "running")
    directory = work_dir_of(client, experiment_id)
    directory.mkdir(parents=True)
    response = client.delete(f"{EXPERIMENTS}/{experiment_id}")
    assert response.status_code == 409, response.text
    assert "is running" in response.json()["detail"]
    assert directory.is_dir()


@pytest.mark.parametrize("kind", ["experiments", "checks", "calibrations", "tunings"])
def test_an_unknown_id_is_404_naming_it(client: TestClient, kind: str) -> None:
    response = client.delete(f"/api/v1/{kind}/no-such-id")
    assert response.status_code == 404, response.text
    assert "no-such-id" in response.json()["detail"]


def test_deleting_a_check_deletes_its_experiment(client: TestClient) -> None:
    check = client.post("/api/v1/checks", json=go_check()).json()
    response = client.delete(f"/api/v1/checks/{check['id']}")
    assert response.status_code == 409 and "cancel it first" in response.json()["detail"], response.text

    directory = finish_with_data(client, check["experiment_id"])
    assert client.delete(f"/api/v1/checks/{check['id']}").status_code == 204
    assert client.get(f"/api/v1/checks/{check['id']}").status_code == 404
    assert client.get(f"{EXPERIMENTS}/{check['experiment_id']}").status_code == 404
    assert not directory.exists()


def test_deleting_an_experiment_deletes_its_check(client: TestClient) -> None:
    # Else the check would be left without its experiment, and the checks list would fail.
    check = client.post("/api/v1/checks", json=go_check()).json()
    finish_with_data(client, check["experiment_id"])
    assert client.delete(f"{EXPERIMENTS}/{check['experiment_id']}").status_code == 204
    assert client.get(f"/api/v1/checks/{check['id']}").status_code == 404
    assert client.get("/api/v1/checks").json() == []


def test_deleting_a_calibration_deletes_its_experiment(client: TestClient) -> None:
    body = {
        "service": {"kind": "demo", "language": "go"},
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "rounds": 3,
    }
    calibration = client.post("/api/v1/calibrations", json=body).json()
    assert client.delete(f"/api/v1/calibrations/{calibration['id']}").status_code == 409
    directory = finish_with_data(client, calibration["experiment_id"])
    assert client.delete(f"/api/v1/calibrations/{calibration['id']}").status_code == 204
    assert client.get(f"/api/v1/calibrations/{calibration['id']}").status_code == 404
    assert client.get(f"{EXPERIMENTS}/{calibration['experiment_id']}").status_code == 404
    assert not directory.exists()


def wait_for_tuning(client: TestClient, tuning_id: str, condition: Any, timeout_s: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        tuning: dict[str, Any] = client.get(f"/api/v1/tunings/{tuning_id}").json()
        if condition(tuning) or time.monotonic() > deadline:
            return tuning
        time.sleep(0.1)


def test_a_tuning_is_409_while_it_runs_then_goes_with_its_experiments(client: TestClient) -> None:
    body = {
        "service": {"kind": "demo", "language": "go"},
        "load": {"rate": 500, "duration_s": 10, "warmup_s": 1},
        "budgets": {"p99_overhead_pct": 10, "cpu_overhead_pct": 20},
        "wall_time_s": 1200,
    }
    tuning_id = client.post("/api/v1/tunings", json=body).json()["id"]
    # Its probe experiment is queued (no measurement runs offline): the run waits on it.
    tuning = wait_for_tuning(client, tuning_id, lambda t: t["status"] == "running" and t["experiment_ids"])
    [probe_id] = tuning["experiment_ids"]
    response = client.delete(f"/api/v1/tunings/{tuning_id}")
    assert response.status_code == 409 and f"/api/v1/tunings/{tuning_id}/cancel" in response.json()["detail"]
    response = client.delete(f"{EXPERIMENTS}/{probe_id}")
    assert response.status_code == 409, response.text

    assert client.post(f"/api/v1/tunings/{tuning_id}/cancel").status_code == 200
    tuning = wait_for_tuning(client, tuning_id, lambda t: t["status"] == "cancelled")
    assert tuning["status"] == "cancelled", tuning
    work_dir_of(client, probe_id).mkdir(parents=True)

    assert client.delete(f"/api/v1/tunings/{tuning_id}").status_code == 204
    assert client.get(f"/api/v1/tunings/{tuning_id}").status_code == 404
    assert client.get(f"{EXPERIMENTS}/{probe_id}").status_code == 404
    assert not work_dir_of(client, probe_id).exists()
    with sessions_of(client)() as session:
        assert session.scalar(select(func.count()).select_from(Tuning)) == 0


def test_delete_routes_document_their_answers(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/v1/experiments/{experiment_id}",
        "/api/v1/checks/{check_id}",
        "/api/v1/calibrations/{calibration_id}",
        "/api/v1/tunings/{tuning_id}",
    ):
        responses = paths[path]["delete"]["responses"]
        assert {"204", "404", "409"} <= set(responses), (path, responses)
