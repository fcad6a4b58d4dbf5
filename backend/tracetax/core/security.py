"""Who may use the API and which commands it may start: plain decisions, no HTTP.

A spec whose service is `{kind: command, argv: [...]}` makes the backend start that argv as
its own subprocess. That is a developer's tool on their own machine, and remote code
execution anywhere else, so (see README.md, "Security"):

- TRACETAX_COMMAND_SERVICES=auto (the default) enables command services only when the backend
  listens on a loopback address (TRACETAX_HOST); `on` enables them anywhere, `off` nowhere.
- TRACETAX_COMMAND_ALLOWLIST, when not empty, names the executables argv[0] may be: absolute
  paths or bare names looked up on PATH. argv[0] is resolved the way the service's exec will
  resolve it (relative to the spec's cwd, or on PATH) and both sides are compared as the files
  they are (symlinks followed); no globs. Empty on loopback: anything (today's behaviour).
- TRACETAX_API_TOKEN, when set, is the bearer token every /api route but liveness requires.

The API turns `CommandNotAllowedError` into 403 and a failed `token_matches` into 401. The checks
that need the settings live in `command_policy.py`: the settings validate themselves with the
plain decisions here, so this module must not import them.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

SERVICES_SETTING = "TRACETAX_COMMAND_SERVICES"
ALLOWLIST_SETTING = "TRACETAX_COMMAND_ALLOWLIST"
TOKEN_SETTING = "TRACETAX_API_TOKEN"  # noqa: S105 (the variable's name, not a token)


class CommandNotAllowedError(PermissionError):
    """A command service this backend may not start; the message names the setting."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and `localhost`; anything else (0.0.0.0, ::, a name) reaches further."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def commands_enabled(mode: str, host: str) -> bool:
    return mode == "on" or (mode == "auto" and is_loopback(host))


def token_matches(expected: str | None, presented: str | None) -> bool:
    """True when no token is configured, or `presented` equals it (in constant time, so the
    answer's timing says nothing about how much of a guess was right)."""
    if expected is None:
        return True
    if presented is None:
        return False
    return hmac.compare_digest(presented.encode(), expected.encode())


def resolve_argv0(program: str, cwd: str | None) -> Path | None:
    """The file exec will run for argv[0], symlinks followed; None when there is none.

    As exec does: a name with a slash is a path (relative ones from the service's cwd, itself
    relative to the backend's), a bare name is looked up on PATH, whose relative entries are
    taken from the service's cwd too (the child changes directory before it execs)."""
    # os.path, not Path: Path("./x") is "x", and a slash is what makes argv[0] a path to exec.
    program = os.path.expanduser(program)  # noqa: PTH111
    if not program:
        return None
    base = Path(cwd or ".").expanduser().absolute()
    if "/" in program:
        return _executable(base / program)
    path = os.pathsep.join(str(base / entry) for entry in os.get_exec_path())
    found = shutil.which(program, path=path)
    return _executable(Path(found)) if found else None


def allowed_files(entries: Sequence[str]) -> set[Path]:
    """The allow-list's executables, resolved now: a bare name on the absolute entries of the
    backend's PATH (a relative entry would depend on the directory the backend runs in)."""
    path = os.pathsep.join(entry for entry in os.get_exec_path() if Path(entry).is_absolute())
    files = set()
    for entry in entries:
        if "/" in entry:
            resolved = _executable(Path(entry))
        else:
            found = shutil.which(entry, path=path)
            resolved = _executable(Path(found)) if found else None
        if resolved is not None:
            files.add(resolved)
    return files


def _executable(path: Path) -> Path | None:
    real = path.resolve()
    return real if real.is_file() and os.access(real, os.X_OK) else None


def allowlist_entry_error(entry: str) -> str | None:
    """Why an allow-list entry is not an absolute path or a bare name, or None."""
    expanded = os.path.expanduser(entry)  # noqa: PTH111 (a str: Path would drop a "./")
    if "/" in expanded and not Path(expanded).is_absolute():
        return f"{ALLOWLIST_SETTING} entry {entry!r} is a relative path: give an absolute path or a bare name"
    if any(char in expanded for char in "*?["):
        return f"{ALLOWLIST_SETTING} entry {entry!r} has a glob character: list each executable"
    return None
