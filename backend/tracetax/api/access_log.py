"""The access log never shows a token: `make up` prints a link that logs in with
`/?token=...`, and uvicorn's access log would otherwise keep that token in the backend's log
file on every visit of the link."""

from __future__ import annotations

import logging
import re

ACCESS_LOGGER = "uvicorn.access"
TOKEN_IN_QUERY = re.compile(r"([?&]token=)[^&#\s]*", re.IGNORECASE)


def redact_token(text: str) -> str:
    return TOKEN_IN_QUERY.sub(r"\1<redacted>", text)


class RedactTokenFilter(logging.Filter):
    """Rewrites the path argument of uvicorn's access records (client, method, path, version,
    status) and any other string argument that carries `token=`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact_token(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif isinstance(record.msg, str):
            record.msg = redact_token(record.msg)
        return True


def redact_tokens_in_access_log() -> None:
    """Installs the filter once per process (create_app may run several times in tests)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(existing, RedactTokenFilter) for existing in logger.filters):
        logger.addFilter(RedactTokenFilter())
