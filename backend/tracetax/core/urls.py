"""A URL as TraceTax shows it: in /api/health, `tracetax health`, `make status` and the logs.

A store's URL may carry credentials (`http://user:pass@tempo:3200`, `?token=...`): it is used
as configured, but shown without them. `redact_url` is the one rule; `redact_urls` applies it
to every URL inside a text (an error message quoting one).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from tracetax.spec.redaction import REDACTED, is_secret_name

# Short query names that carry a credential in URLs only (`?sig=`, `?pass=`), beside the one rule
# of secret names that the spec's redaction uses.
SHORT_SECRET_QUERY_NAME = re.compile(r"^(SIG|PASS|PWD)$", re.IGNORECASE)
# A URL inside a text: a scheme, `//`, then anything up to whitespace or a closing quote/bracket.
URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]]+")
USERINFO = re.compile(r"(//)[^/?#@]*@")


def redact_url(url: str) -> str:
    """`url` without its userinfo (`user:password@`) and with the value of every query
    parameter whose name says it is a credential replaced by REDACTED (the name kept)."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:  # not a URL urllib can take apart: at least no userinfo
        return USERINFO.sub(r"\1", url)
    if any(_secret(name) for name, _ in query):
        shown = urlencode([(name, REDACTED if _secret(name) else value) for name, value in query], safe="*")
    else:
        shown = parts.query
    return urlunsplit((parts.scheme, host, parts.path, shown, parts.fragment))


def redact_urls(text: str) -> str:
    """`text` with every URL in it shown as `redact_url` shows it."""
    return URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)


def _secret(name: str) -> bool:
    return is_secret_name(name) or SHORT_SECRET_QUERY_NAME.match(name) is not None
