"""Text the API stores or looks up, on SQLite and on PostgreSQL (whose text types cannot hold
U+0000, which SQLite stores): the same answers on both, never a 500."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_spec


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/experiments/a%00b",
        "/api/v1/experiments/a%00b/results",
        "/api/v1/checks/a%00b",
        "/api/v1/calibrations/a%00b",
    ],
)
def test_an_id_with_a_nul_is_not_found(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_name_with_a_nul_is_stored_with_a_replacement(client: TestClient) -> None:
    created = client.post("/api/v1/experiments", json=go_spec(name="a\x00b"))
    assert created.status_code == 202, created.text
    stored = client.get(f"/api/v1/experiments/{created.json()['id']}").json()
    assert stored["name"] == "a\ufffdb"
    assert client.get("/api/v1/experiments", params={"service": "go\x00"}).json() == []


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/api/v1/history", {"service": "go\x00", "configuration": "none"}, 404),
        ("/api/v1/history", {"service": "go", "configuration": "none", "branch": "main\x00"}, 404),
        ("/api/v1/history", {"service": "go", "configuration": "none", "machine": "\x00"}, 404),
        ("/api/v1/history/services/go%00", {}, 404),
        # A badge is always an image: one that says there is no check.
        ("/api/v1/badges/go/none.svg", {"branch": "\x00"}, 200),
    ],
)
def test_a_history_looked_up_with_a_nul_is_not_found(
    client: TestClient, path: str, params: dict[str, str], status: int
) -> None:
    # Compared inside the stored JSON (a branch, a machine, a command's service_name), a NUL
    # once reached PostgreSQL, which refused the statement: a 500 (schemathesis found it).
    assert client.get(path, params=params).status_code == status
