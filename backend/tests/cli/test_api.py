"""The CLI's API commands send TRACETAX_API_TOKEN (else the token the backend generated into the
state directory) as a bearer token and explain 401 and 403."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from tracetax.cli import api as cli_api
from tracetax.cli import calibrate as cli_calibrate
from tracetax.cli import check as cli_check
from tracetax.cli import cost as cli_cost
from tracetax.cli.main import app
from tracetax.core.api_token import read_or_create_token_file

TOKEN = "cli-token-0123456789abcdef"
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state directory of the test's own: never the user's token file."""
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("TRACETAX_API_TOKEN_FILE", raising=False)
    return tmp_path / "state"


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
    assert cli_api.api_client("http://127.0.0.1:8000", 1).headers["authorization"] == f"Bearer {TOKEN}"
    monkeypatch.setenv("TRACETAX_API_TOKEN", "")
    assert "authorization" not in cli_api.api_client("http://127.0.0.1:8000", 1).headers


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


def test_without_the_variable_the_client_reads_the_token_file(
    monkeypatch: pytest.MonkeyPatch, own_state_dir: Path
) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    assert "authorization" not in cli_api.api_client("http://127.0.0.1:8000", 1).headers  # no backend ever ran here
    generated = read_or_create_token_file(own_state_dir / "api-token")
    assert cli_api.api_client("http://127.0.0.1:8000", 1).headers["authorization"] == f"Bearer {generated}"
    # The variable wins over the file.
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    assert cli_api.api_client("http://127.0.0.1:8000", 1).headers["authorization"] == f"Bearer {TOKEN}"


def test_the_token_file_setting_is_followed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    elsewhere = tmp_path / "elsewhere" / "token"
    generated = read_or_create_token_file(elsewhere)
    monkeypatch.setenv("TRACETAX_API_TOKEN_FILE", str(elsewhere))
    assert cli_api.api_client("http://127.0.0.1:8000", 1).headers["authorization"] == f"Bearer {generated}"


def test_an_unsafe_token_file_is_not_sent_and_the_401_says_why(
    monkeypatch: pytest.MonkeyPatch, own_state_dir: Path
) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    path = own_state_dir / "api-token"
    read_or_create_token_file(path)
    path.chmod(0o644)
    seen = serve(monkeypatch, lambda _: httpx.Response(401, json={"detail": "This TraceTax requires an API token"}))
    result = CliRunner().invoke(app, ["cost", "some-experiment"])
    assert result.exit_code == 2
    assert "authorization" not in seen[0].headers
    assert "chmod 600" in result.output
    assert str(path) in result.output.replace("\n", "")


def test_a_refused_token_file_says_which_file(monkeypatch: pytest.MonkeyPatch, own_state_dir: Path) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    read_or_create_token_file(own_state_dir / "api-token")
    serve(monkeypatch, lambda _: httpx.Response(401, json={"detail": "The API token was refused"}))
    result = CliRunner().invoke(app, ["cost", "some-experiment"])
    assert result.exit_code == 2
    assert "refused the token in" in result.output


@pytest.mark.parametrize("command", ["check", "calibrate"])
def test_the_side_by_side_instances_flag_reaches_the_request_s_load(
    monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # A check is held to a calibration measured the same way (its signature names the setting),
    # so both commands send it, and each body is one its route accepts.
    from tracetax.api.schemas.calibrations import CalibrationRequest
    from tracetax.api.schemas.checks import CheckRequest

    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    seen = serve(monkeypatch, lambda _: httpx.Response(403, json={"detail": "stop here"}))
    result = CliRunner().invoke(app, [command, "--service", "go", "--side-by-side-instances", "2"])
    assert result.exit_code == 2, result.output
    body = json.loads(seen[0].content)
    assert body["load"]["side_by_side_instances"] == 2
    model = CheckRequest if command == "check" else CalibrationRequest
    assert model.model_validate(body).load.side_by_side_instances == 2


# -- where the token may go (issue 40) ---------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", "https://lab.example.com"]
)
def test_the_token_goes_over_https_anywhere_or_plain_http_to_loopback(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    assert cli_api.api_client(url, 1).headers["authorization"] == f"Bearer {TOKEN}"


def test_the_token_is_not_sent_in_clear_text_to_another_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    monkeypatch.delenv("TRACETAX_ALLOW_INSECURE_TOKEN", raising=False)
    seen = serve(monkeypatch, lambda _: httpx.Response(202, json={"id": "c1", "estimated_seconds": 1}))
    result = CliRunner().invoke(
        app, ["check", "--api", "http://lab.example.com:8000", "--service", "go", "--p99-overhead-pct", "10"]
    )
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "--api" in said and "https://" in said and "TRACETAX_ALLOW_INSECURE_TOKEN=1" in said, said
    assert TOKEN not in result.output
    assert seen == []  # nothing was sent


def test_clear_text_to_another_host_is_allowed_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", TOKEN)
    monkeypatch.setenv("TRACETAX_ALLOW_INSECURE_TOKEN", "1")
    assert cli_api.api_client("http://lab.example.com:8000", 1).headers["authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("url", ["http://lab.example.com:8000", "https://lab.example.com", "http://10.0.0.5:8000"])
def test_the_token_file_of_this_machine_goes_to_loopback_only(
    monkeypatch: pytest.MonkeyPatch, own_state_dir: Path, url: str
) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    generated = read_or_create_token_file(own_state_dir / "api-token")
    assert "authorization" not in cli_api.api_client(url, 1).headers
    assert cli_api.api_client("http://127.0.0.1:8000", 1).headers["authorization"] == f"Bearer {generated}"
