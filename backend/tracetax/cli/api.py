"""How the CLI's API commands (`check`, `calibrate`, `cost`) talk to a running TraceTax: one
httpx client that sends the API token as a bearer token, and the sentence for an answer that
is not the one expected (401 and 403 say what to do).

The token is TRACETAX_API_TOKEN from the environment, else the one the backend generated into
the state directory (TRACETAX_API_TOKEN_FILE, default `<state dir>/api-token`) when that file
exists: against `make up`'s backend the CLI needs nothing set. Never from an option: a command
line shows in `ps` and in shell history. `tracetax run` measures in this process and needs none
of this.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

from tracetax.core.api_token import TOKEN_FILE_SETTING, TokenFileError, default_token_file, read_token_file
from tracetax.core.security import TOKEN_SETTING


class ApiAnswerError(Exception):
    """The API answered, but not with what was asked; the message is one sentence."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def api_token() -> str | None:
    """TRACETAX_API_TOKEN, else the generated token file's token, else None. A token file that
    is not safe to use (see read_token_file) is not sent; a 401 then says why (`refusal`)."""
    token = os.environ.get(TOKEN_SETTING, "").strip()
    if token:
        return token
    try:
        return read_token_file(token_file())
    except (FileNotFoundError, TokenFileError):
        return None


def token_file() -> Path:
    """Where the backend on this machine keeps its generated token (as the backend decides)."""
    configured = os.environ.get(TOKEN_FILE_SETTING, "").strip()
    if configured:
        return Path(configured).expanduser()
    return default_token_file()


def api_client(base_url: str, timeout: float) -> httpx.Client:
    token = api_token()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base_url, timeout=timeout, headers=headers)


def answer(response: httpx.Response, expected: int = 200) -> dict[str, Any]:
    """The JSON body of an expected answer; otherwise ApiAnswerError saying why and what to do."""
    if response.status_code == expected:
        body: dict[str, Any] = response.json()
        return body
    raise ApiAnswerError(response.status_code, refusal(response))


def refusal(response: httpx.Response) -> str:
    detail = _detail(response)
    status = f"HTTP {response.status_code}"
    if response.status_code == 401:
        if os.environ.get(TOKEN_SETTING, "").strip():
            return f"{status}: the backend refused {TOKEN_SETTING}; set it to the token the backend runs with"
        unusable = _token_file_error()
        if unusable is not None:
            return f"{status}: this TraceTax requires an API token; {unusable}"
        if token_file().exists():
            return (
                f"{status}: the backend refused the token in {token_file()} (that of another backend?); "
                f"set {TOKEN_SETTING} to the token the backend runs with"
            )
        return (
            f"{status}: this TraceTax requires an API token; set {TOKEN_SETTING} to the backend's token "
            f"(a backend on this machine keeps it in {token_file()}, which the CLI reads by itself)"
        )
    return f"{status}: {detail}"


def _token_file_error() -> str | None:
    try:
        read_token_file(token_file())
    except FileNotFoundError:
        return None
    except TokenFileError as error:
        return str(error)
    return None


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    detail = body.get("detail") if isinstance(body, dict) else None
    return str(detail) if detail is not None else str(body)[:300]
