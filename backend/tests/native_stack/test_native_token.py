"""`make up`'s login link: the stack's backend and the link printed agree on one token (no
process is started here)."""

from __future__ import annotations

import stat
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tracetax.core.api_token import read_token_file
from tracetax.native_stack.native import NativeStack


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NativeStack:
    for variable in ("TRACETAX_API_TOKEN", "TRACETAX_API_TOKEN_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return NativeStack(state=tmp_path / "state", report=lambda _: None)


def test_the_backend_is_told_where_its_token_file_is(stack: NativeStack) -> None:
    backend = stack.component("backend")
    assert backend.env["TRACETAX_API_TOKEN_FILE"] == str(stack.state / "api-token")
    assert all("TRACETAX_API_TOKEN_FILE" not in c.env for c in stack.components if c.name != "backend")


def test_the_link_carries_the_generated_token(stack: NativeStack) -> None:
    assert stack.ui_link() is None  # nothing generated before the first `up`
    token = stack.login_token(create=True)
    assert token is not None
    assert stat.S_IMODE((stack.state / "api-token").stat().st_mode) == 0o600
    link = stack.ui_link()
    assert link is not None
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == stack.component("backend").url
    assert parts.path == "/"
    assert parse_qs(parts.query) == {"token": [token]}
    assert read_token_file(stack.state / "api-token") == token
    assert stack.login_token(create=True) == token  # reused on the next `up`


def test_an_operator_token_is_the_links(stack: NativeStack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_API_TOKEN", "operator/token+0123456789")
    assert stack.ui_link() == f"{stack.component('backend').url}/?token=operator%2Ftoken%2B0123456789"
    assert not (stack.state / "api-token").exists()
