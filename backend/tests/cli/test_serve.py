"""`tracetax serve` prints the login link when the token in force is the generated one (the
notebook servers' way: `docker compose logs backend` shows it), never an operator's token.
uvicorn is replaced: no server starts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tracetax.cli.main import app, login_link
from tracetax.core.api_token import read_token_file
from tracetax.core.config import Settings, get_settings

OPERATOR_TOKEN = "operator-chose-this-0123456789"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """A token file of the test's own, no operator token, and uvicorn.run recorded, not run."""
    monkeypatch.setenv("TRACETAX_API_TOKEN_FILE", str(tmp_path / "state" / "api-token"))
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    for variable in ("TRACETAX_HOST", "TRACETAX_PORT"):
        # Set first, so the restore at the end also removes what `serve` puts in os.environ.
        monkeypatch.setenv(variable, "unset")
        monkeypatch.delenv(variable)
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda *_, **kwargs: runs.append(kwargs))
    yield runs
    get_settings.cache_clear()  # `serve` cached settings from this test's environment


def test_serve_prints_the_login_link_with_the_generated_token(tmp_path: Path, isolated: list[dict[str, Any]]) -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "127.0.0.1", "--port", "8123"])
    assert result.exit_code == 0, result.output
    token = read_token_file(tmp_path / "state" / "api-token")  # generated before the server starts
    assert result.output.splitlines() == [f"TraceTax: http://127.0.0.1:8123/?token={token}"]
    assert isolated[0]["host"] == "127.0.0.1"
    assert isolated[0]["port"] == 8123


@pytest.mark.parametrize(("host", "shown"), [("0.0.0.0", "localhost"), ("::", "localhost"), ("::1", "[::1]")])  # noqa: S104
def test_the_link_names_a_host_a_browser_can_open(tmp_path: Path, host: str, shown: str) -> None:
    link = login_link(Settings(), host, 8000)
    token = read_token_file(tmp_path / "state" / "api-token")
    assert link == f"http://{shown}:8000/?token={token}"


def test_serve_never_prints_an_operators_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated: list[dict[str, Any]]
) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", OPERATOR_TOKEN)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])  # noqa: S104
    assert result.exit_code == 0, result.output
    assert OPERATOR_TOKEN not in result.output
    assert "TraceTax:" not in result.output
    assert not (tmp_path / "state" / "api-token").exists()
    assert len(isolated) == 1


def test_serve_refuses_a_token_file_others_can_read(tmp_path: Path, isolated: list[dict[str, Any]]) -> None:
    token_file = tmp_path / "state" / "api-token"
    token_file.parent.mkdir()
    token_file.write_text("readable-by-everyone-0123456789\n")
    token_file.chmod(0o644)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 1
    assert f"The API token file {token_file} must belong to this user" in result.output
    assert "readable-by-everyone" not in result.output
    assert isolated == []
