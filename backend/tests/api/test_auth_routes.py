"""Who may use the API: the Host and Origin (400, 403), the body's size (413), the bearer token
(401) and which command services it starts (403).

Offline like every API test: experiments are queued and never run, so no command here is
ever started; what the refusals decide is tested without HTTP in tests/core/test_security.py
and tests/core/test_api_token.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.api.conftest import OFFLINE_TOKEN, go_check, go_spec, offline_headers
from tracetax.core.api_token import OPEN_PATHS, read_token_file
from tracetax.core.config import Settings
from tracetax.main import create_app

TOKEN = "test-token-0123456789abcdef"
# Listening on every interface: beyond loopback.
ANYWHERE = "0.0.0.0"  # noqa: S104


@contextmanager
def app_with(settings: Settings, headers: dict[str, str] | None = None, **changes: Any) -> Iterator[TestClient]:
    """The offline app with `changes` to its settings; its client sends `headers` with every
    request (by default the offline token, which `api_token=...` replaces)."""
    app = create_app(settings.model_copy(update=changes), run_experiments=False)
    with TestClient(app, headers=offline_headers() if headers is None else headers) as client:
        yield client


@pytest.fixture
def guarded(offline_settings: Settings) -> Iterator[TestClient]:
    """An operator's token, and a client that sends none unless told."""
    with app_with(offline_settings, headers={}, api_token=SecretStr(TOKEN)) as client:
        yield client


@pytest.fixture
def generated(offline_settings: Settings) -> Iterator[TestClient]:
    """No operator's token: the backend generates one into its token file (`make up`)."""
    with app_with(offline_settings, headers={}, api_token=None) as client:
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
    assert guarded.get("/api/health/ready").status_code == 200
    assert guarded.get("/openapi.json").status_code == 200


def test_the_token_is_checked_before_the_body(guarded: TestClient) -> None:
    # Someone without the token learns nothing from validation errors.
    assert guarded.post("/api/v1/experiments", json={"nonsense": True}).status_code == 401


def test_the_generated_token_guards_writes_and_leaves_reads_open(generated: TestClient, tmp_path: Path) -> None:
    token_file = tmp_path / "state" / "api-token"
    token = read_token_file(token_file)  # created at start-up
    assert generated.get("/api/v1/experiments").status_code == 200
    assert generated.get("/api/health/live").status_code == 200
    for headers in ({}, bearer(OFFLINE_TOKEN)):
        refused = generated.post("/api/v1/experiments", json=go_spec(), headers=headers)
        assert refused.status_code == 401, refused.text
        assert str(token_file) in refused.json()["detail"]
        assert "make up" in refused.json()["detail"]
    created = generated.post("/api/v1/experiments", json=go_spec(), headers=bearer(token))
    assert created.status_code == 202, created.text
    cancelled = generated.post(f"/api/v1/experiments/{created.json()['id']}/cancel")
    assert cancelled.status_code == 401


def test_reads_need_the_token_when_told(offline_settings: Settings, tmp_path: Path) -> None:
    with app_with(offline_settings, headers={}, api_token=None, reads_need_token=True) as client:
        assert client.get("/api/v1/experiments").status_code == 401
        token = read_token_file(tmp_path / "state" / "api-token")
        assert client.get("/api/v1/experiments", headers=bearer(token)).status_code == 200
    # An operator may open reads too; writes still need the token.
    with app_with(offline_settings, headers={}, reads_need_token=False) as client:
        assert client.get("/api/v1/experiments").status_code == 200
        assert client.post("/api/v1/experiments", json=go_spec()).status_code == 401


# --- Host and Origin: a DNS-rebinding page names its own host -------------------------------


REBIND = {"Host": "rebind.example:8000", "Origin": "http://rebind.example:8000"}


def test_the_rebinding_request_is_refused_before_anything(offline_settings: Settings) -> None:
    # Natively (loopback, command services on, a generated token): the page's request with or
    # without a token never reaches a route.
    with app_with(offline_settings, headers={}, api_token=None, allowed_hosts=[]) as client:
        for headers in (REBIND, {**REBIND, **offline_headers()}):
            answer = client.post("/api/v1/experiments", json=command_spec(["sh", "-c", "id"]), headers=headers)
            assert answer.status_code == 400, answer.text
            assert "'rebind.example:8000'" in answer.json()["detail"]
            assert "TRACETAX_ALLOWED_HOSTS" in answer.json()["detail"]
        for path in ("/", "/api/health/live", "/api/v1/experiments", "/openapi.json"):
            assert client.get(path, headers={"Host": "rebind.example"}).status_code == 400, path
        for host in ("127.0.0.1:8000", "localhost:5173", "[::1]:8000", "LOCALHOST."):
            assert client.get("/api/health/live", headers={"Host": host}).status_code == 200, host


def test_a_foreign_origin_may_not_start_anything(client: TestClient) -> None:
    for origin in ("http://rebind.example:8000", "https://evil.example", "null", "file://"):
        answer = client.post("/api/v1/experiments", json=go_spec(), headers={"Origin": origin})
        assert answer.status_code == 403, (origin, answer.text)
        assert "TRACETAX_ALLOWED_HOSTS" in answer.json()["detail"]
        assert origin in answer.json()["detail"]
    # Reads carry no Origin check (the Host check and the same-origin policy cover them).
    assert client.get("/api/v1/experiments", headers={"Origin": "https://evil.example"}).status_code == 200


def test_our_own_origin_and_no_origin_are_accepted(client: TestClient) -> None:
    for headers in ({}, {"Origin": "http://testserver"}, {"Origin": "http://localhost:5173"}):
        created = client.post("/api/v1/experiments", json=go_spec(), headers=headers)
        assert created.status_code == 202, (headers, created.text)


def test_allowed_hosts_and_ip_literals_beyond_loopback(offline_settings: Settings) -> None:
    with app_with(offline_settings, allowed_hosts=["*.example.com", "tracetax.internal"]) as client:
        for host, status in [
            ("ui.example.com", 200),
            ("a.b.example.com:443", 200),
            ("tracetax.internal:8000", 200),
            ("example.com", 400),
            ("evilexample.com", 400),
            ("10.1.2.3:8000", 400),  # on loopback, nothing reaches it under another address
        ]:
            assert client.get("/api/health/live", headers={"Host": host}).status_code == status, host
    with app_with(offline_settings, host=ANYWHERE) as client:
        for host, status in [("10.1.2.3:8000", 200), ("[fd00::1]:8000", 200), ("rebind.example", 400)]:
            assert client.get("/api/health/live", headers={"Host": host}).status_code == status, host


# --- the body's size: refused before it is read ---------------------------------------------


FIFTY_MB = 50 * 1024 * 1024


async def raw_post(settings: Settings, headers: dict[str, str], chunks: list[bytes]) -> tuple[int, str, int]:
    """POST /api/v1/experiments through the app's ASGI interface, the body streamed in
    `chunks`: the answer's status and detail, and how many chunks the app read."""
    app = create_app(settings, run_experiments=False)
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        if read > len(chunks):
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/experiments",
        "raw_path": b"/api/v1/experiments",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in {"Host": "testserver", **headers}.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    async with app.router.lifespan_context(app):
        await app(scope, receive, send)  # type: ignore[arg-type]
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)["detail"], read


async def test_a_50_mb_body_is_413_before_a_byte_is_read(offline_settings: Settings) -> None:
    for headers in ({}, offline_headers()):
        declared = {**headers, "Content-Type": "application/json", "Content-Length": str(FIFTY_MB)}
        status, detail, read = await raw_post(offline_settings, declared, [b"{" * 1024])
        assert status == 413, detail
        assert "TRACETAX_MAX_REQUEST_BODY_BYTES" in detail
        assert str(FIFTY_MB) in detail
        assert read == 0


async def test_a_streamed_body_is_cut_off_at_the_limit(offline_settings: Settings) -> None:
    chunk = b" " * 65536
    chunks = [chunk] * (FIFTY_MB // len(chunk))
    status, detail, read = await raw_post(
        offline_settings, {**offline_headers(), "Content-Type": "application/json"}, chunks
    )
    assert status == 413, detail
    assert "TRACETAX_MAX_REQUEST_BODY_BYTES" in detail
    assert read * len(chunk) <= offline_settings.max_request_body_bytes + len(chunk)


async def test_without_the_token_a_body_is_never_read(offline_settings: Settings) -> None:
    chunks = [json.dumps(go_spec()).encode()]
    status, detail, read = await raw_post(offline_settings, {"Content-Type": "application/json"}, chunks)
    assert status == 401, detail
    assert read == 0


def test_a_body_within_the_limit_passes(client: TestClient) -> None:
    padded = go_spec(name="x" * 100)
    assert client.post("/api/v1/experiments", json=padded).status_code == 202


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
    scheme = document["components"]["securitySchemes"]["APIToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert "TRACETAX_API_TOKEN" in scheme["description"]
    assert "TRACETAX_READS_NEED_TOKEN" in scheme["description"]
    error = {"$ref": "#/components/schemas/ErrorMessage"}
    for path in ("/api/v1/experiments", "/api/v1/checks", "/api/v1/calibrations"):
        operation = document["paths"][path]["post"]
        assert operation["security"] == [{"APIToken": []}]
        for code in ("401", "403"):
            assert operation["responses"][code]["content"]["application/json"]["schema"] == error, (path, code)
    for path, operation in ((p, o) for p, ops in document["paths"].items() for o in ops.values()):
        if path in OPEN_PATHS:
            assert "security" not in operation and "401" not in operation["responses"]
        else:
            assert "401" in operation["responses"], path
