"""Whether this backend may start a spec's command service: security.py's rules applied to the
settings (TRACETAX_COMMAND_SERVICES, TRACETAX_COMMAND_ALLOWLIST, TRACETAX_HOST)."""

from __future__ import annotations

from collections.abc import Sequence

from tracetax.core.config import Settings
from tracetax.core.security import (
    ALLOWLIST_SETTING,
    SERVICES_SETTING,
    CommandNotAllowedError,
    allowed_files,
    commands_enabled,
    resolve_argv0,
)


def check_command(settings: Settings, argv: Sequence[str], cwd: str | None) -> None:
    if not commands_enabled(settings.command_services, settings.host):
        raise CommandNotAllowedError(SERVICES_SETTING, _disabled_message(settings))
    if not settings.command_allowlist:
        return  # loopback with nothing listed: a developer on their own machine
    program = argv[0] if argv else ""
    resolved = resolve_argv0(program, cwd)
    if resolved is None or resolved not in allowed_files(settings.command_allowlist):
        if resolved is None:
            found = " (no such executable)"
        else:
            found = "" if str(resolved) == program else f" (resolved to {resolved})"
        raise CommandNotAllowedError(
            ALLOWLIST_SETTING,
            f"argv[0] {program!r}{found} is not in {ALLOWLIST_SETTING} "
            f"({', '.join(settings.command_allowlist)}): add it there, or start a listed executable",
        )


def _disabled_message(settings: Settings) -> str:
    if settings.command_services == "off":
        why = f"{SERVICES_SETTING}=off"
    else:
        why = f"{SERVICES_SETTING}=auto and the backend listens beyond loopback (TRACETAX_HOST={settings.host})"
    return (
        f"Command services are disabled on this backend ({why}): measure a demo service, or have its "
        f"operator set {SERVICES_SETTING}=on with {ALLOWLIST_SETTING} naming the executables it may start"
    )
