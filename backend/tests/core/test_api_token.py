"""The token in force and which requests need it; the generated token's file (no HTTP here)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from tracetax.core.api_token import (
    ApiToken,
    TokenFileError,
    read_or_create_token_file,
    read_token_file,
    token_file_path,
)
from tracetax.core.config import Settings

OPERATOR_TOKEN = "operator-token-0123456789abcdef"


def settings(tmp_path: Path, **values: object) -> Settings:
    # Explicit values win over any TRACETAX_* in the environment running the tests.
    defaults: dict[str, object] = {
        "api_token": None,
        "reads_need_token": None,
        "api_token_file": tmp_path / "api-token",
    }
    return Settings(**{**defaults, **values})


def test_the_token_file_is_created_0600_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "state" / "api-token"
    token = read_or_create_token_file(path)
    assert len(token) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_or_create_token_file(path) == token
    assert read_token_file(path) == token
    assert [p.name for p in path.parent.iterdir()] == ["api-token"]  # no draft left behind


def test_a_second_backend_keeps_the_first_token(tmp_path: Path) -> None:
    first = ApiToken(settings(tmp_path)).value()
    assert ApiToken(settings(tmp_path)).value() == first


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o660])
def test_a_token_file_others_can_read_is_refused_naming_it(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "api-token"
    read_or_create_token_file(path)
    path.chmod(mode)
    with pytest.raises(TokenFileError, match=f"{path}.*chmod 600"):
        read_or_create_token_file(path)


@pytest.mark.parametrize("content", ["", "\n", "short"])
def test_an_empty_or_short_token_file_is_refused_naming_it(tmp_path: Path, content: str) -> None:
    path = tmp_path / "api-token"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(TokenFileError, match=str(path)):
        read_or_create_token_file(path)


def test_a_symlink_or_a_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    read_or_create_token_file(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(TokenFileError, match=str(link)):
        read_token_file(link)
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    with pytest.raises(TokenFileError, match=str(folder)):
        read_token_file(folder)


def test_the_default_file_is_in_the_state_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path))
    assert token_file_path(settings(tmp_path, api_token_file=None)) == tmp_path.resolve() / "api-token"


def test_an_operator_token_wins_and_no_file_is_made(tmp_path: Path) -> None:
    token = ApiToken(settings(tmp_path, api_token=SecretStr(OPERATOR_TOKEN)))
    assert token.value() == OPERATOR_TOKEN
    assert token.file is None
    assert not (tmp_path / "api-token").exists()


def test_deciding_needs_no_file(tmp_path: Path) -> None:
    token = ApiToken(settings(tmp_path))
    assert not token.needed_for("GET", "/api/v1/experiments")
    assert token.refusal("GET", "/api/v1/experiments", None) is None
    assert not (tmp_path / "api-token").exists()


@pytest.mark.parametrize(
    ("operator", "reads", "method", "path", "needed"),
    [
        # Writes under /api: always.
        (False, None, "POST", "/api/v1/experiments", True),
        (False, None, "DELETE", "/api/v1/experiments/x", True),
        (False, None, "PUT", "/api", True),
        (True, False, "PATCH", "/api/v1/experiments/x", True),
        # Reads: by default with an operator's token only.
        (False, None, "GET", "/api/v1/experiments", False),
        (True, None, "GET", "/api/v1/experiments", True),
        (True, None, "HEAD", "/api/health", True),
        (False, True, "GET", "/api/v1/experiments", True),
        (True, False, "GET", "/api/v1/experiments", False),
        # Probes and anything outside /api: never.
        (True, True, "GET", "/api/health/live", False),
        (True, True, "GET", "/api/health/ready", False),
        (True, True, "GET", "/", False),
        (True, True, "GET", "/openapi.json", False),
        (True, True, "POST", "/apiary", False),
    ],
)
def test_which_requests_need_the_token(
    tmp_path: Path, operator: bool, reads: bool | None, method: str, path: str, needed: bool
) -> None:
    token = ApiToken(
        settings(tmp_path, api_token=SecretStr(OPERATOR_TOKEN) if operator else None, reads_need_token=reads)
    )
    assert token.needed_for(method, path) is needed


def test_refusals_say_where_the_token_is(tmp_path: Path) -> None:
    generated = ApiToken(settings(tmp_path))
    missing = generated.refusal("POST", "/api/v1/experiments", None)
    assert missing is not None
    assert str(tmp_path / "api-token") in missing.detail
    assert "make up" in missing.detail
    assert missing.challenge == "Bearer"
    wrong = generated.refusal("POST", "/api/v1/experiments", "not-it-0123456789abcdef")
    assert wrong is not None
    assert wrong.challenge.startswith('Bearer error="invalid_token"')
    assert generated.refusal("POST", "/api/v1/experiments", generated.value()) is None
    operator = ApiToken(settings(tmp_path, api_token=SecretStr(OPERATOR_TOKEN)))
    refused = operator.refusal("GET", "/api/v1/experiments", None)
    assert refused is not None
    assert "TRACETAX_API_TOKEN" in refused.detail
    assert str(tmp_path) not in refused.detail


def test_the_generated_file_is_owned_by_us(tmp_path: Path) -> None:
    path = tmp_path / "api-token"
    read_or_create_token_file(path)
    assert path.stat().st_uid == os.getuid()
