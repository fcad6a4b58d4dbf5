"""Talking to the real stack's backend as its user would: the backend guards every request
that starts or changes anything with the token it generated into its state directory
(README, "Security"), which `make up` prints as a login link and the CLI reads by itself."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import httpx

from tracetax.native_stack.native import NativeStack

TOKEN_FILE = "api-token"


def stack_token(stack: NativeStack) -> str:
    return (stack.state / TOKEN_FILE).read_text().strip()


def stack_headers(stack: NativeStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack_token(stack)}"}


def stack_client(stack: NativeStack, **options: Any) -> httpx.AsyncClient:
    """An async client sending the stack backend's token (options as httpx.AsyncClient's)."""
    return httpx.AsyncClient(headers=stack_headers(stack), **options)


def cli_env(stack: NativeStack) -> dict[str, str]:
    """The environment a `tracetax` subprocess needs to find this stack's token by itself."""
    return {**os.environ, "TRACETAX_STATE_DIR": str(stack.state)}


def run_cli_check(
    stack: NativeStack, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`tracetax check` against this stack's backend as CI runs it, its output captured; `env`
    replaces `cli_env(stack)`."""
    command = [sys.executable, "-m", "tracetax.cli", "check", "--api", stack.component("backend").url, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, env=env or cli_env(stack))
