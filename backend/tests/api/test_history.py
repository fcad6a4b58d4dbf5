"""The history routes offline, on stored finished checks: the series by branch, machine and
limit with its change point, 404 naming the field, 422 naming the metrics; a service's summary;
the badge; a check's verdict against history in its status and JUnit; the Markdown format.
`tracetax history` prints the series through the same API."""

from __future__ import annotations

import contextlib
import re
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from tests.api.conftest import go_check
from tests.app.test_history import store_check
from tracetax.cli import history as cli_history
from tracetax.cli.main import app as cli_app

HISTORY = "/api/v1/history"


def sessions_of(client: TestClient) -> sessionmaker[Session]:
    sessions: sessionmaker[Session] = client.app.state.engine.sessions  # type: ignore[attr-defined]
    return sessions


@pytest.fixture
def stored(client: TestClient) -> list[str]:
    """Eight checks of go batch-default on main (machine m1), the overhead stepping from 0 to
    40% at the fifth, then one on another branch, one on another machine, one of another
    configuration: the ids of the eight."""
    sessions = sessions_of(client)
    steps = [0.0] * 4 + [40.0] * 4
    ids = [store_check(sessions, pct, minutes=i, commit=f"c{i}") for i, pct in enumerate(steps)]
    store_check(sessions, 90.0, minutes=20, branch="feature", commit="f1")
    store_check(sessions, 90.0, minutes=21, machine="m2", commit="m2")
    store_check(sessions, 90.0, minutes=22, configuration="simple", commit="s1")
    return ids


def series(client: TestClient, **params: Any) -> Any:
    return client.get(HISTORY, params={"service": "go", "configuration": "batch-default", **params})


def test_the_series_filters_by_branch_and_machine_oldest_first(client: TestClient, stored: list[str]) -> None:
    answer = series(client, metric="cpu_per_request_us", branch="main", machine="m1")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [p["check_id"] for p in body["points"]] == stored
    first = body["points"][0]
    assert first["commit"] == "c0" and first["branch"] == "main" and first["machine"] == "m1"
    assert first["repository"] == "acme/shop" and first["verdict"] == "pass"
    assert first["low"] < first["estimate"] < first["high"]
    assert body["budget"] == 30.0 and body["unit"] == "pct"
    assert [(c["index"], c["commit"], c["check_id"]) for c in body["change_points"]] == [(4, "c4", stored[4])]
    assert body["change_points"][0]["shift"] == pytest.approx(40.0, abs=1.0)


def test_the_series_without_filters_and_its_limit(client: TestClient, stored: list[str]) -> None:
    every = series(client).json()
    assert [p["commit"] for p in every["points"]] == [*(f"c{i}" for i in range(8)), "f1", "m2"]
    assert every["metric"] == "cpu_per_request_us"  # the default
    newest = series(client, limit=2).json()
    assert [p["commit"] for p in newest["points"]] == ["f1", "m2"]
    other = series(client, machine="m2").json()
    assert [p["commit"] for p in other["points"]] == ["m2"]


def test_unknown_volume_is_null_not_zero(client: TestClient, stored: list[str]) -> None:
    body = series(client, metric="bytes_per_request", branch="main").json()
    assert {p["estimate"] for p in body["points"]} == {None}
    assert body["change_points"] == [] and "not measured" in body["note"]
    assert body["unit"] == "bytes"


def test_404_names_the_field_and_422_the_allowed_metrics(client: TestClient, stored: list[str]) -> None:
    unknown_service = client.get(HISTORY, params={"service": "cobol", "configuration": "batch-default"})
    assert unknown_service.status_code == 404 and "service 'cobol'" in unknown_service.json()["detail"]
    unknown_configuration = series(client, configuration="nope")
    assert unknown_configuration.status_code == 404
    assert "configuration 'nope'" in unknown_configuration.json()["detail"]
    assert "batch-default, simple" in unknown_configuration.json()["detail"]
    unknown_branch = series(client, branch="nope")
    assert unknown_branch.status_code == 404 and "branch 'nope'" in unknown_branch.json()["detail"]
    bad_metric = series(client, metric="p42")
    assert bad_metric.status_code == 422
    assert bad_metric.json()["detail"][0]["loc"] == ["query", "metric"]
    assert "p50, p99, cpu_per_request_us" in bad_metric.json()["detail"][0]["msg"]
    assert series(client, limit=0).status_code == 422


def test_a_services_summary(client: TestClient, stored: list[str]) -> None:
    answer = client.get(f"{HISTORY}/services/go", params={"branch": "main"})
    assert answer.status_code == 200, answer.text
    configurations = {c["configuration"]: c for c in answer.json()["configurations"]}
    assert set(configurations) == {"batch-default", "simple"}
    batch = configurations["batch-default"]
    assert batch["checks"] == 9  # main's eight, and main's on machine m2
    assert batch["latest"]["cpu_per_request_us"]["commit"] == "m2"
    assert len(batch["trend"]["cpu_per_request_us"]) == 9
    assert batch["trend"]["bytes_per_request"] == [None] * 9
    assert batch["change_points"]["cpu_per_request_us"] >= 1
    assert client.get(f"{HISTORY}/services/cobol").status_code == 404


def test_the_badge_is_an_svg_never_cached(client: TestClient, stored: list[str]) -> None:
    answer = client.get("/api/v1/badges/go/batch-default.svg", params={"branch": "main"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.headers["cache-control"] == "no-cache"
    assert "batch-default CPU per request overhead" in answer.text
    # main's latest is machine m2's check: +90% against a 30% budget, failed (red).
    assert re.search(r"\+9\d\.\d% ±\d\.\d", answer.text) and "#e05d44" in answer.text
    unknown = client.get("/api/v1/badges/go/batch-default.svg", params={"metric": "bytes_per_request"})
    assert "unknown" in unknown.text
    assert client.get("/api/v1/badges/go/batch-default.svg", params={"metric": "p42"}).status_code == 422
    none_yet = client.get("/api/v1/badges/go/never.svg")
    assert none_yet.status_code == 200 and "no checks" in none_yet.text


def test_a_check_against_history_in_its_status_and_junit(client: TestClient, stored: list[str]) -> None:
    gate = {"branch": "main", "points": 4, "max_growth_pct": 5.0}
    check_id = store_check(sessions_of(client), 80.0, minutes=30, branch="pr-7", against_history=gate)
    status = client.get(f"/api/v1/checks/{check_id}").json()
    assert status["against_history"] == gate
    assert [(j["metric"], j["verdict"], j["points"]) for j in status["history"]] == [("cpu_per_request_us", "fail", 4)]
    assert status["verdict"]["verdict"] == "fail"  # +80% against a 30% budget, too
    assert status["overall"] == "fail"  # the one `tracetax check` exits with
    junit = ET.fromstring(client.get(f"/api/v1/checks/{check_id}", params={"format": "junit"}).text)
    cases = [(c.get("classname"), c.get("name")) for c in junit.iter("testcase")]
    assert ("tracetax.history", "cpu_per_request_us") in cases
    history_case = next(c for c in junit.iter("testcase") if c.get("classname") == "tracetax.history")
    assert history_case.find("failure") is not None
    assert junit.get("tests") == str(len(cases))


def test_markdown_is_409_before_the_check_finished_and_text_after(client: TestClient, stored: list[str]) -> None:
    queued = client.post("/api/v1/checks", json=go_check()).json()
    early = client.get(f"/api/v1/checks/{queued['id']}", params={"format": "markdown"})
    assert early.status_code == 409 and "no verdict yet" in early.json()["detail"]
    answer = client.get(f"/api/v1/checks/{stored[-1]}", params={"format": "markdown"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/markdown")
    text = answer.text
    assert "TraceTax check: fail" in text  # +40% against a 30% budget
    assert f"http://localhost:8000/checks/{stored[-1]}" in text
    assert "http://localhost:8000/history?service=go&configuration=batch-default&branch=main" in text
    assert "CPU per request" in text


def test_the_history_command_prints_the_series_and_its_change_point(
    client: TestClient, stored: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_history, "api_client", lambda base_url, timeout: contextlib.nullcontext(client))
    args = ["history", "--service", "go", "--configuration", "batch-default", "--branch", "main", "--machine", "m1"]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "go batch-default cpu_per_request_us on main: 8 checks"
    assert any(line.strip().startswith("c0 ") and "pass" in line for line in lines)
    assert any(line.startswith("change point at c4 (check 5)") for line in lines)
    as_json = CliRunner().invoke(cli_app, [*args, "--json"])
    assert '"change_points"' in as_json.output
    missing = CliRunner().invoke(cli_app, ["history", "--service", "cobol", "--configuration", "x"])
    assert missing.exit_code == 2 and "service 'cobol'" in missing.output
