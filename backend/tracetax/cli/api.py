"""How the CLI's API commands (`check`, `calibrate`, `cost`) talk to a running TraceTax: one
httpx client that sends the API token as a bearer token, and the sentence for an answer that
is not the one expected (401 and 403 say what to do).

The token is TRACETAX_API_TOKEN from the environment, else the one the backend generated into
the state directory (TRACETAX_API_TOKEN_FILE, default `<state dir>/api-token`) when that file
exists: against `make up`'s backend the CLI needs nothing set. Never from an option: a command
line shows in `ps` and in shell history. `tracetax run` measures in this process and needs none
of this.

Where the token goes (`token_refusal`): the generated token file belongs to the backend on this
machine and is sent to a loopback address only; TRACETAX_API_TOKEN goes over https anywhere, or
over plain http to loopback. Plain http to another host would show it to the network: refused,
naming `--api`, unless TRACETAX_ALLOW_INSECURE_TOKEN says so out loud.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import typer

from tracetax.core.api_token import TOKEN_FILE_SETTING, TokenFileError, default_token_file, read_token_file
from tracetax.core.security import TOKEN_SETTING, is_loopback

INSECURE_TOKEN_SETTING = "TRACETAX_ALLOW_INSECURE_TOKEN"  # noqa: S105 (the variable's name, not a token)
API_OPTION = "'--api' / TRACETAX_URL"


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
    """A client of the API at `base_url` that sends the token where it may go; a token that may
    not go there is a usage error naming `--api` (typer prints it, exit code 2)."""
    token = token_for(base_url)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base_url, timeout=timeout, headers=headers)


def token_for(base_url: str) -> str | None:
    """The token to send to `base_url`: TRACETAX_API_TOKEN where `token_refusal` allows it, the
    token file's on loopback only; raises typer.BadParameter for TRACETAX_API_TOKEN over plain
    http to another host."""
    url = httpx.URL(base_url)
    loopback = is_loopback(url.host)
    operator_token = os.environ.get(TOKEN_SETTING, "").strip()
    if not operator_token:
        return api_token() if loopback else None
    refusal = token_refusal(url.scheme, loopback, _truthy(os.environ.get(INSECURE_TOKEN_SETTING, "")))
    if refusal is not None:
        raise typer.BadParameter(refusal, param_hint=API_OPTION)
    return operator_token


def token_refusal(scheme: str, loopback: bool, insecure_allowed: bool) -> str | None:
    """Why TRACETAX_API_TOKEN may not be sent over `scheme` to such a host; None when it may."""
    if scheme == "https" or loopback or insecure_allowed:
        return None
    return (
        f"{TOKEN_SETTING} would go in clear text over {scheme}:// to a host that is not this machine; "
        f"give --api an https:// URL (or a loopback address), or set {INSECURE_TOKEN_SETTING}=1 to send it anyway"
    )


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


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
