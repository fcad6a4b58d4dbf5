"""POST /experiments/commands: the new experiment form's commands come from the backend
(app/spec_commands.py); the spec is parsed as its submission would be, nothing is stored."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import go_spec

BASE = "http://lab.example:8000"


def test_a_specs_commands_run_its_file_against_the_api_given(client: TestClient) -> None:
    answer = client.post("/api/v1/experiments/commands", params={"api": BASE, "file": "go check.json"}, json=go_spec())

    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "file": "go check.json",
        "cli": "tracetax run 'go check.json'",
        "curl": f"curl -s -XPOST {BASE}/api/v1/experiments \\\n"
        "  -H 'content-type: application/json' -d @'go check.json'",
    }
    assert client.get("/api/v1/experiments").json() == []


def test_without_an_api_the_commands_call_this_backends_public_url(client: TestClient) -> None:
    answer = client.post("/api/v1/experiments/commands", json=go_spec())

    assert answer.status_code == 200, answer.text
    assert answer.json()["cli"] == "tracetax run spec.json"
    assert "/api/v1/experiments " in answer.json()["curl"]


def test_a_spec_that_does_not_parse_is_422_naming_the_field(client: TestClient) -> None:
    answer = client.post("/api/v1/experiments/commands", json=go_spec(rounds=0))

    assert answer.status_code == 422
    assert [item["loc"] for item in answer.json()["detail"]] == [["body", "rounds"]]
