"""The CLI's API commands send TRACETAX_API_TOKEN as a bearer token and explain 401 and 403."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from typer.testing import CliRunner

from tracetax import cli_api, cli_calibrate, cli_check, cli_cost
from tracetax.cli import app

TOKEN = "cli-token-0123456789abcdef"
Handler = Callable[[httpx.Request], httpx.Response]


def serve(monkeypatch: pytest.MonkeyPatch, handler: Handler) -> list[httpx.Request]:
    """Every API command's client answers through `handler`, with the headers api_client set."""
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    def client(base_url: str, timeout: float) -> httpx.Client:
        real = cli_api.api_client(base_url, timeout)
        return httpx.Client(base_url=base_url, headers=real.headers, transport=httpx.MockTransport(record))

    for module in (cli_check, cli_calibrate, cli_cost):
        monkeypatch.setattr(module, "api_client", client)
    return seen


def test_the_client_sends_the_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", f" {TOKEN}\n")
    assert cli_api.api_client("http://x", 1).headers["authorization"] == f"Bearer {TOKEN}"
    monkeypatch.setenv("TRACETAX_API_TOKEN", "")
    assert "authorization" not in cli_api.api_client("http://x", 1).headers


def test_401_without_a_token_says_to_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    serve(monkeypatch, lambda _: httpx.Response(401, json={"detail": "This TraceTax requires an API token"}))
    result = CliRunner().invoke(app, ["check", "--service", "go", "--p99-overhead-pct", "10"])
    assert result.exit_code == 2
    assert "HTTP 401" in result.output
    assert "set TRACETAX_API_TOKEN to the backend's token" in result.output


def test_401_with_a_token_says_it_was_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    seen = serve(monkeypatch, lambda _: httpx.Response(401, json={"detail": "The API token was refused"}))
    result = CliRunner().invoke(app, ["cost", "some-experiment"])
    assert result.exit_code == 2
    assert "refused TRACETAX_API_TOKEN" in result.output
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_403_prints_the_backends_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    detail = "argv[0] '/bin/sh' is not in TRACETAX_COMMAND_ALLOWLIST (gunicorn): add it there"
    serve(monkeypatch, lambda _: httpx.Response(403, json={"detail": detail}))
    result = CliRunner().invoke(app, ["calibrate", "--service", "go"])
    assert result.exit_code == 2
    assert f"HTTP 403: {detail}" in result.output


def test_a_check_with_the_token_goes_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)

    def api(request: httpx.Request) -> httpx.Response:
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return httpx.Response(401, json={"detail": "no token"})
        if request.method == "POST":
            return httpx.Response(202, json={"id": "c1", "estimated_seconds": 1})
        verdict = {"verdict": "pass", "lines": []}
        return httpx.Response(200, json={"id": "c1", "status": "completed", "verdict": verdict})

    seen = serve(monkeypatch, api)
    result = CliRunner().invoke(app, ["check", "--service", "go", "--p99-overhead-pct", "10"])
    assert result.exit_code == 0, result.output
    assert "check c1: pass" in result.output
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in seen)
