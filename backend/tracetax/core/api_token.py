"""The API token in force, and which requests need it: plain decisions and one file, no HTTP.

An operator's TRACETAX_API_TOKEN wins. Without one, the backend uses the token in
TRACETAX_API_TOKEN_FILE (default `<state dir>/api-token`), generated on first start the way
notebook servers do: `make up` prints the UI's URL with it as a link that logs in, and the CLI
reads the same file. Every request that starts or changes anything (any method but GET, HEAD
and OPTIONS under /api) needs the token in every deployment; reads need it when
TRACETAX_READS_NEED_TOKEN says so, by default for an operator's token only (a generated one
guards a developer's own machine, where the Host check already keeps other sites' pages out).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tracetax.core.security import TOKEN_SETTING, token_matches
from tracetax.system.paths import state_dir

if TYPE_CHECKING:
    from tracetax.core.config import Settings

TOKEN_FILE_SETTING = "TRACETAX_API_TOKEN_FILE"  # noqa: S105 (the variable's name, not a token)
READS_SETTING = "TRACETAX_READS_NEED_TOKEN"
TOKEN_FILE_NAME = "api-token"  # noqa: S105 (a file name)
# The routes that must stay open: probes call them without any credentials (they name nothing).
OPEN_PATHS = frozenset({"/api/health/live", "/api/health/ready"})
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Bytes of randomness in a generated token (43 URL-safe characters).
GENERATED_TOKEN_BYTES = 32
# Shorter tokens are guessable enough to matter (the same bound as TRACETAX_API_TOKEN's).
MIN_TOKEN_LENGTH = 16


class TokenFileError(RuntimeError):
    """The token file cannot be used; the message names it and says what to do."""


def token_file_path(settings: Settings) -> Path:
    if settings.api_token_file is not None:
        return settings.api_token_file.expanduser()
    return default_token_file()


def default_token_file() -> Path:
    return state_dir() / TOKEN_FILE_NAME


def read_token_file(path: Path) -> str:
    """The token in `path`, which must be a regular file of ours, readable by us alone, and
    not empty: a token others can read or write is not a secret."""
    try:
        # O_NOFOLLOW: a symlink planted at the path would make us trust someone else's file;
        # O_NONBLOCK: a FIFO there must not hang the start.
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise TokenFileError(f"Cannot read the API token file {path} ({error.strerror}): {_fix(path)}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise TokenFileError(f"The API token file {path} is not a regular file: {_fix(path)}")
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            raise TokenFileError(
                f"The API token file {path} must belong to this user and be readable by it alone "
                f"(mode {stat.S_IMODE(info.st_mode):04o}, owner uid {info.st_uid}): run `chmod 600 {path}` "
                f"if it is yours, or {_fix(path)}"
            )
        token = os.read(descriptor, 4096).decode("utf-8", errors="replace").strip()
    finally:
        os.close(descriptor)
    if len(token) < MIN_TOKEN_LENGTH:
        what = "is empty" if not token else f"holds {len(token)} characters"
        raise TokenFileError(f"The API token file {path} {what}; it needs at least {MIN_TOKEN_LENGTH}: {_fix(path)}")
    return token


def read_or_create_token_file(path: Path) -> str:
    """The token in `path`, generated into it first if there is none. Created atomically and
    mode 0600 from the start, so no other user ever reads it and two backends (or a backend
    and `make up`) starting at once agree on one token."""
    try:
        return read_token_file(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(secrets.token_urlsafe(GENERATED_TOKEN_BYTES) + "\n")
            file.flush()
            os.fsync(file.fileno())
        # Fails if another process created it meanwhile: theirs wins, and both read it below.
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
    return read_token_file(path)


def _fix(path: Path) -> str:
    return (
        f"delete it (the backend generates a new one) or set {TOKEN_SETTING}, or {TOKEN_FILE_SETTING} to another path"
    )


@dataclass(frozen=True)
class Refusal:
    """Why a request may not pass: the 401's sentence and its WWW-Authenticate challenge."""

    detail: str
    challenge: str


class ApiToken:
    """The token in force for one backend. Deciding whether a request needs it reads no file;
    the generated token is read (and created) once, the first time it is needed or when the
    backend starts (`value()`)."""

    def __init__(self, settings: Settings) -> None:
        self._operator_token = settings.api_token.get_secret_value() if settings.api_token is not None else None
        self.file = None if self._operator_token is not None else token_file_path(settings)
        self.reads_need_token = (
            settings.reads_need_token if settings.reads_need_token is not None else self._operator_token is not None
        )

    def value(self) -> str:
        return self._value

    @cached_property
    def _value(self) -> str:
        if self._operator_token is not None:
            return self._operator_token
        assert self.file is not None  # noqa: S101 (set whenever there is no operator token)
        return read_or_create_token_file(self.file)

    def needed_for(self, method: str, path: str) -> bool:
        if path != "/api" and not path.startswith("/api/"):
            return False  # the UI's files, /docs and /openapi.json: nothing to start or change
        if path.rstrip("/") in OPEN_PATHS:
            return False
        return method.upper() not in READ_METHODS or self.reads_need_token

    def refusal(self, method: str, path: str, presented: str | None) -> Refusal | None:
        """None when the request may pass, else why not (`presented`: the bearer token sent)."""
        return self.refusal_of(presented) if self.needed_for(method, path) else None

    def refusal_of(self, presented: str | None) -> Refusal | None:
        """None when `presented` is the token, else why not: for what needs the token whatever
        the settings say of reads (an answer with its secrets revealed)."""
        if presented is not None and token_matches(self.value(), presented):
            return None
        if presented is None:
            return Refusal(f"This TraceTax requires an API token for this request: {self._where()}", "Bearer")
        return Refusal(f"The API token was refused: {self._where()}", 'Bearer error="invalid_token"')

    def _where(self) -> str:
        if self.file is None:
            return (
                f"send `Authorization: Bearer <token>` with the backend's {TOKEN_SETTING} (the UI asks for it; "
                f"the CLI reads {TOKEN_SETTING} from its environment)"
            )
        return (
            f"send `Authorization: Bearer <token>` with the token in {self.file} on the backend's machine "
            f"(the UI link `make up` prints logs in with it; the CLI reads that file by itself)"
        )
