"""How the CLI's API commands (`check`, `calibrate`, `cost`) talk to a running TraceTax: one
httpx client that sends TRACETAX_API_TOKEN from the environment as a bearer token, and the
sentence for an answer that is not the one expected (401 and 403 say what to do).

The token is read from the environment only, never from an option: a command line shows in
`ps` and in shell history. `tracetax run` measures in this process and needs none of this.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from tracetax.core.security import TOKEN_SETTING


class ApiAnswerError(Exception):
    """The API answered, but not with what was asked; the message is one sentence."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def api_token() -> str | None:
    token = os.environ.get(TOKEN_SETTING, "").strip()
    return token or None


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
        if api_token() is None:
            return f"{status}: this TraceTax requires an API token; set {TOKEN_SETTING} to the backend's token"
        return f"{status}: the backend refused {TOKEN_SETTING}; set it to the token the backend runs with"
    return f"{status}: {detail}"


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    detail = body.get("detail") if isinstance(body, dict) else None
    return str(detail) if detail is not None else str(body)[:300]
