"""The one scrubber for text a lab subprocess wrote that goes back to a client.

A Collector quotes the values it refuses ("invalid duration ..."), after expanding them: a
value that came from `${env:...}` or `${file:...}` would be echoed to whoever submitted it. So
before a Collector's (or telemetrygen's) message leaves the backend:

- a quoted stretch ("...", '...' or `...`) that is not part of our own input (the config
  files' text, the LAB_* values we set, the argv) is replaced: only what we gave is echoed;
- any value of the backend's own environment (but the few that are no secret: PATH, HOME, ...)
  is replaced wherever it appears, unless it is part of our own input too.

The line naming the component and the key stays, so the message still says what to fix.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

REDACTED = "<redacted>"
# Shorter values ("1", "C", "true") would shred ordinary words, and no secret is that short
# (TRACETAX_API_TOKEN needs 16 characters, a database URL is longer still).
MIN_REDACTED_LENGTH = 6
# Variables every process has and that say nothing secret; their values (paths mostly) appear
# in error messages for good reasons.
NOT_SECRET = frozenset(
    {"PATH", "HOME", "PWD", "OLDPWD", "SHELL", "TERM", "USER", "LOGNAME", "SHLVL", "HOSTNAME", "TMPDIR", "TZ", "_"}
)
QUOTED = re.compile(r"\"(?P<double>[^\"\n]*)\"|'(?P<single>[^'\n]*)'|`(?P<back>[^`\n]*)`")


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The backend's environment values that could be secret, longest first (so a value that
    contains another is replaced whole)."""
    source = os.environ if environ is None else environ
    values = {
        value
        for name, value in source.items()
        if name not in NOT_SECRET and not name.startswith(("LC_", "LANG")) and len(value) >= MIN_REDACTED_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str, own_input: Iterable[str], environ: Mapping[str, str] | None = None) -> str:
    """`text` with every quoted stretch not found in `own_input` and every secret value of
    `environ` (default: this process's environment) replaced by REDACTED."""
    corpus = "\n".join(own_input)

    def keep_ours(match: re.Match[str]) -> str:
        inner = next(group for group in match.groups() if group is not None)
        if not inner or inner in corpus:
            return match.group(0)
        quote = match.group(0)[0]
        return f"{quote}{REDACTED}{quote}"

    text = QUOTED.sub(keep_ours, text)
    return redact_environment(text, corpus, environ)


def redact_environment(text: str, own_input: str = "", environ: Mapping[str, str] | None = None) -> str:
    """`text` with every secret value of the backend's environment replaced (log lines, whose
    quotes are the program's own: only the environment is taken out)."""
    for value in secret_values(environ):
        if value in text and value not in own_input:
            text = text.replace(value, REDACTED)
    return text
