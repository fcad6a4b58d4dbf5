"""Which commands the backend may start, and the settings that decide it (no HTTP here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from tracetax.core.command_policy import check_command
from tracetax.core.config import Settings
from tracetax.core.security import (
    ALLOWLIST_SETTING,
    SERVICES_SETTING,
    CommandNotAllowedError,
    commands_enabled,
    is_loopback,
    resolve_argv0,
    token_matches,
)

# Listening on every interface: beyond loopback.
ANYWHERE = "0.0.0.0"  # noqa: S104


def settings(**values: object) -> Settings:
    # Explicit values win over any TRACETAX_* in the environment running the tests.
    return Settings(**{"api_token": None, "command_services": "auto", "command_allowlist": [], **values})


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", [ANYWHERE, "::", "", "10.0.0.5", "192.168.1.2", "tracetax.example.com"])
def test_addresses_beyond_loopback(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize(
    ("mode", "host", "enabled"),
    [
        ("auto", "127.0.0.1", True),
        ("auto", ANYWHERE, False),
        ("on", ANYWHERE, True),
        ("off", "127.0.0.1", False),
    ],
)
def test_command_services_mode(mode: str, host: str, enabled: bool) -> None:
    assert commands_enabled(mode, host) is enabled


def test_token_compare() -> None:
    assert token_matches(None, None)
    assert token_matches(None, "anything")
    assert token_matches("a-token-of-sixteen", "a-token-of-sixteen")
    assert not token_matches("a-token-of-sixteen", None)
    assert not token_matches("a-token-of-sixteen", "a-token-of-sixteeN")
    assert not token_matches("a-token-of-sixteen", "")


# --- settings -------------------------------------------------------------------------------


def test_defaults() -> None:
    plain = settings()
    assert (plain.api_token, plain.command_services, plain.command_allowlist) == (None, "auto", [])


def test_allowlist_from_the_environment_is_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("TRACETAX_COMMAND_ALLOWLIST", " gunicorn, /usr/bin/java ,~/bin/svc,, ")
    monkeypatch.delenv("TRACETAX_COMMAND_SERVICES", raising=False)
    assert Settings().command_allowlist == ["gunicorn", "/usr/bin/java", "/home/someone/bin/svc"]


@pytest.mark.parametrize(("entry", "why"), [("bin/svc", "relative path"), ("/usr/bin/*", "glob")])
def test_allowlist_entries_are_absolute_paths_or_bare_names(entry: str, why: str) -> None:
    with pytest.raises(ValidationError, match=ALLOWLIST_SETTING) as raised:
        settings(command_allowlist=entry)
    assert why in str(raised.value)


def test_on_beyond_loopback_needs_an_allowlist() -> None:
    with pytest.raises(ValidationError) as raised:
        settings(host=ANYWHERE, command_services="on")
    assert SERVICES_SETTING in str(raised.value)
    assert ALLOWLIST_SETTING in str(raised.value)
    # With a list, or on loopback, it starts.
    settings(host=ANYWHERE, command_services="on", command_allowlist="gunicorn")
    settings(host="127.0.0.1", command_services="on")
    settings(host=ANYWHERE, command_services="auto")


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValidationError, match="command_services"):
        settings(command_services="yes")


def test_token_blank_is_none_and_short_is_refused_without_printing_it() -> None:
    assert settings(api_token="  ").api_token is None
    assert settings(api_token="0123456789abcdef").api_token is not None
    with pytest.raises(ValidationError, match="at least 16") as raised:
        settings(api_token="tiny-secret")
    assert "tiny-secret" not in str(raised.value)


# --- the command check ----------------------------------------------------------------------


def test_loopback_without_allowlist_allows_anything() -> None:
    check_command(settings(), ["/no/such/program", "--flag"], None)


def test_auto_beyond_loopback_refuses_naming_the_setting() -> None:
    with pytest.raises(CommandNotAllowedError, match=SERVICES_SETTING) as raised:
        check_command(settings(host=ANYWHERE), ["/bin/sh"], None)
    assert raised.value.setting == SERVICES_SETTING
    assert "beyond loopback" in str(raised.value)


def test_off_refuses_even_on_loopback() -> None:
    with pytest.raises(CommandNotAllowedError, match=f"{SERVICES_SETTING}=off"):
        check_command(settings(command_services="off"), ["/bin/sh"], None)


def test_allowlist_by_absolute_path(tmp_path: Path) -> None:
    svc = executable(tmp_path / "bin" / "svc")
    policy = settings(command_allowlist=[str(svc)])
    check_command(policy, [str(svc), "--port", "8080"], None)
    check_command(policy, ["./svc"], str(svc.parent))  # relative to the service's cwd
    check_command(policy, ["bin/svc"], str(tmp_path))
    with pytest.raises(CommandNotAllowedError) as raised:
        check_command(policy, ["/bin/sh", "-c", "id"], None)
    assert raised.value.setting == ALLOWLIST_SETTING
    assert "'/bin/sh'" in str(raised.value)
    assert ALLOWLIST_SETTING in str(raised.value)


def test_allowlist_applies_beyond_loopback_when_on(tmp_path: Path) -> None:
    svc = executable(tmp_path / "svc")
    policy = settings(host=ANYWHERE, command_services="on", command_allowlist=[str(svc)])
    check_command(policy, [str(svc)], None)
    with pytest.raises(CommandNotAllowedError, match=ALLOWLIST_SETTING):
        check_command(policy, ["sh"], None)


def test_bare_names_resolve_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = executable(tmp_path / "bin" / "svc")
    monkeypatch.setenv("PATH", f"{svc.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    by_name = settings(command_allowlist="svc")
    check_command(by_name, [str(svc)], None)
    check_command(by_name, ["svc"], None)
    check_command(settings(command_allowlist=[str(svc)]), ["svc"], None)


def test_symlinks_are_compared_as_the_file_they_name(tmp_path: Path) -> None:
    svc = executable(tmp_path / "real" / "svc")
    link = tmp_path / "link"
    link.symlink_to(svc)
    check_command(settings(command_allowlist=[str(svc)]), [str(link)], None)
    # A link to another program is that program, and the refusal says which.
    (tmp_path / "to-other").symlink_to(executable(tmp_path / "other"))
    with pytest.raises(CommandNotAllowedError, match=f"resolved to {tmp_path / 'other'}"):
        check_command(settings(command_allowlist=[str(svc)]), [str(tmp_path / "to-other")], None)


def test_relative_path_entries_are_taken_from_the_services_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As exec does: a relative PATH entry is searched from the directory the child runs in,
    # so a spec cannot slip a program of the same name past the list through its cwd.
    listed = executable(tmp_path / "good" / "svc")
    executable(tmp_path / "evil" / "svc")
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.environ.get('PATH', '')}")
    policy = settings(command_allowlist=[str(listed)])
    check_command(policy, ["svc"], str(listed.parent))
    with pytest.raises(CommandNotAllowedError, match=ALLOWLIST_SETTING):
        check_command(policy, ["svc"], str(tmp_path / "evil"))


def test_home_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    svc = executable(tmp_path / "bin" / "svc")
    check_command(settings(command_allowlist="~/bin/svc"), ["~/bin/svc"], None)
    check_command(settings(command_allowlist=[str(svc)]), ["./svc"], "~/bin")


def test_missing_or_not_executable_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "data.txt"
    plain.write_text("not a program")
    assert resolve_argv0(str(plain), None) is None
    assert resolve_argv0("no-such-program-anywhere", None) is None
    with pytest.raises(CommandNotAllowedError, match="no such executable"):
        check_command(settings(command_allowlist="sh"), [str(plain)], None)
