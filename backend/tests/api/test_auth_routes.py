"""Who may use the API: the bearer token (401) and which command services it starts (403).

Offline like every API test: experiments are queued and never run, so no command here is
ever started; what the refusals decide is tested without HTTP in tests/core/test_security.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.api.conftest import go_check, go_spec
from tracetax.core.config import Settings
from tracetax.main import create_app

TOKEN = "test-token-0123456789abcdef"
# Listening on every interface: beyond loopback.
ANYWHERE = "0.0.0.0"  # noqa: S104


@contextmanager
def app_with(settings: Settings, **changes: Any) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update=changes), run_experiments=False)) as client:
        yield client


@pytest.fixture
def guarded(offline_settings: Settings) -> Iterator[TestClient]:
    with app_with(offline_settings, api_token=SecretStr(TOKEN)) as client:
        yield client


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def command(argv: list[str], **extra: Any) -> dict[str, Any]:
    return {"kind": "command", "argv": argv, "port": 18080, **extra}


def command_spec(argv: list[str], **extra: Any) -> dict[str, Any]:
    return go_spec(service=command(argv, **extra))


def executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


# --- the token ------------------------------------------------------------------------------


def test_without_the_token_every_api_route_is_401(guarded: TestClient) -> None:
    for method, path in [
        ("GET", "/api/v1/experiments"),
        ("GET", "/api/v1/services"),
        ("GET", "/api/v1/meta"),
        ("GET", "/api/v1/checks"),
        ("GET", "/api/health"),
        ("GET", "/api/v1/experiments/any/events"),
        ("POST", "/api/v1/experiments"),
    ]:
        answer = guarded.request(method, path, json={} if method == "POST" else None)
        assert answer.status_code == 401, (path, answer.text)
        assert answer.headers["www-authenticate"] == "Bearer"
        assert "TRACETAX_API_TOKEN" in answer.json()["detail"]
        assert "Authorization: Bearer" in answer.json()["detail"]


def test_a_wrong_token_is_401(guarded: TestClient) -> None:
    for headers in (bearer("not-the-token-0123456789"), bearer(TOKEN + "x"), {"Authorization": f"Basic {TOKEN}"}):
        answer = guarded.get("/api/v1/experiments", headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "TRACETAX_API_TOKEN" in answer.json()["detail"]


def test_with_the_token_the_api_answers(guarded: TestClient) -> None:
    assert guarded.get("/api/v1/experiments", headers=bearer()).status_code == 200
    created = guarded.post("/api/v1/experiments", json=go_spec(), headers=bearer())
    assert created.status_code == 202, created.text


def test_liveness_and_the_openapi_stay_open(guarded: TestClient) -> None:
    assert guarded.get("/api/health/live").json() == {"status": "alive"}
    assert guarded.get("/openapi.json").status_code == 200


def test_the_token_is_checked_before_the_body(guarded: TestClient) -> None:
    # Someone without the token learns nothing from validation errors.
    assert guarded.post("/api/v1/experiments", json={"nonsense": True}).status_code == 401


def test_no_token_configured_needs_no_header(client: TestClient) -> None:
    assert client.get("/api/v1/experiments").status_code == 200
    assert client.get("/api/v1/experiments", headers=bearer("whatever-is-sent-here")).status_code == 200


# --- command services -----------------------------------------------------------------------


def test_loopback_default_accepts_a_command(client: TestClient) -> None:
    created = client.post("/api/v1/experiments", json=command_spec(["./my-service", "--port", "18080"]))
    assert created.status_code == 202, created.text


def test_beyond_loopback_commands_are_403_naming_the_setting(offline_settings: Settings) -> None:
    with app_with(offline_settings, host=ANYWHERE) as client:
        for path, body in [
            ("/api/v1/experiments", command_spec(["/bin/sh", "-c", "id"])),
            ("/api/v1/checks", go_check(service=command(["/bin/sh", "-c", "id"]))),
            ("/api/v1/calibrations", {"service": command(["/bin/sh"]), "load": go_spec()["load"]}),
        ]:
            answer = client.post(path, json=body)
            assert answer.status_code == 403, (path, answer.text)
            assert "TRACETAX_COMMAND_SERVICES" in answer.json()["detail"]
        # Demo services are not commands: still accepted.
        assert client.post("/api/v1/experiments", json=go_spec()).status_code == 202


def test_a_command_outside_the_allowlist_is_403_quoting_argv0(offline_settings: Settings, tmp_path: Path) -> None:
    listed = executable(tmp_path / "my-service")
    with app_with(offline_settings, command_allowlist=[str(listed)]) as client:
        for path, body in [
            ("/api/v1/experiments", command_spec(["/bin/sh", "-c", "id"])),
            ("/api/v1/checks", go_check(service=command(["/bin/sh"]))),
            ("/api/v1/calibrations", {"service": command(["/bin/sh"]), "load": go_spec()["load"]}),
        ]:
            answer = client.post(path, json=body)
            assert answer.status_code == 403, (path, answer.text)
            assert "TRACETAX_COMMAND_ALLOWLIST" in answer.json()["detail"]
            assert "'/bin/sh'" in answer.json()["detail"]
        allowed = client.post("/api/v1/experiments", json=command_spec(["./my-service"], cwd=str(tmp_path)))
        assert allowed.status_code == 202, allowed.text


def test_on_with_an_allowlist_beyond_loopback(offline_settings: Settings, tmp_path: Path) -> None:
    listed = executable(tmp_path / "my-service")
    with app_with(offline_settings, host=ANYWHERE, command_services="on", command_allowlist=[str(listed)]) as client:
        assert client.post("/api/v1/experiments", json=command_spec([str(listed)])).status_code == 202
        assert client.post("/api/v1/experiments", json=command_spec(["/bin/sh"])).status_code == 403


def test_a_queued_command_no_longer_allowed_fails_at_start(offline_settings: Settings) -> None:
    with app_with(offline_settings) as client:
        queued = client.post("/api/v1/experiments", json=command_spec(["./my-service"])).json()["id"]
        demo = client.post("/api/v1/experiments", json=go_spec()).json()["id"]
    # Restarted beyond loopback (the same database): the command is not run, the demo waits.
    with app_with(offline_settings, host=ANYWHERE) as client:
        refused = client.get(f"/api/v1/experiments/{queued}").json()
        assert refused["status"] == "failed"
        assert "TRACETAX_COMMAND_SERVICES" in refused["error"]
        assert client.get(f"/api/v1/experiments/{demo}").json()["status"] == "queued"


# --- the OpenAPI ----------------------------------------------------------------------------


def test_openapi_documents_the_bearer_scheme_and_the_refusals(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["components"]["securitySchemes"]["APIToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "The backend's TRACETAX_API_TOKEN, required when it has one.",
    }
    error = {"$ref": "#/components/schemas/ErrorMessage"}
    for path in ("/api/v1/experiments", "/api/v1/checks", "/api/v1/calibrations"):
        operation = document["paths"][path]["post"]
        assert operation["security"] == [{"APIToken": []}]
        for code in ("401", "403"):
            assert operation["responses"][code]["content"]["application/json"]["schema"] == error, (path, code)
    for path, operation in ((p, o) for p, ops in document["paths"].items() for o in ops.values()):
        if path == "/api/health/live":
            assert "security" not in operation and "401" not in operation["responses"]
        else:
            assert "401" in operation["responses"], path
