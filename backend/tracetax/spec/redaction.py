"""Secrets in a spec: which names carry one, their values answered as "***", and the stored
values filled back into a spec that is submitted again from a redacted answer.

A spec's request headers (`load.headers`), query (`load.query`), a configuration's or a
tuning's environment (`env`, `current_env`) and a pipeline variant's `settings` are stored as
given: the service and the load generator need them. Every answer that echoes them gives the
value of a name that carries a credential as REDACTED, the name kept. The walk goes by name at
any depth rather than by field, so anything that nests a spec or a part of one (a tuning's
spec, a calibration's signature, a recommendation's env) is covered without this module
knowing its shape. Only text values are replaced: a name like `headers` or `signature` that
holds an object is walked into, never hidden.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

REDACTED = "***"

# The one rule of which names carry a credential, matched case-insensitively anywhere in the
# name (`-` read as `_`): an OpenTelemetry exporter's headers (OTEL_EXPORTER_OTLP_HEADERS,
# OTEL_EXPORTER_OTLP_TRACES_HEADERS), anything naming a token, key, password, secret,
# credential, session or signature, and the HTTP headers that carry one (Authorization,
# Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, X-Auth-Token, X-CSRF-Token, ...).
# Erring on the side of hiding: a value hidden by mistake is one `?reveal=true` away.
SECRET_NAME = re.compile(
    r"(?:^|_)HEADERS$|TOKEN|KEY|PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL|AUTH|COOKIE|SESSION|SIGNATURE",
    re.IGNORECASE,
)

Location = tuple[str | int, ...]


class UnfilledSecretsError(ValueError):
    """A submitted spec holds REDACTED where a secret goes, and no stored value fills it."""

    def __init__(self, locations: list[Location]) -> None:
        super().__init__("; ".join(".".join(map(str, loc)) for loc in locations))
        self.locations = locations


def is_secret_name(name: str) -> bool:
    return SECRET_NAME.search(name.replace("-", "_")) is not None


def _is_secret(key: object, value: object) -> bool:
    return isinstance(key, str) and isinstance(value, str) and is_secret_name(key)


def redact(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, scalars) with the text value of every
    secret-named key replaced by REDACTED."""
    if isinstance(value, Mapping):
        return {key: REDACTED if _is_secret(key, item) else redact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value


def redact_json(text: bytes) -> bytes:
    """A JSON document with its secrets redacted. Most answers (results, diagnostics) hold no
    secret-named key with a text value: those are returned as they are after one scan of the
    bytes for `":"` (a few ms for megabytes), rather than parsed and written again."""
    if not any(is_secret_name(key) for key in _text_valued_keys(text)):
        return text
    return json.dumps(redact(json.loads(text)), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def _text_valued_keys(text: bytes) -> Iterator[str]:
    """Every key whose value is a string (`"key":"value"`, or `"key": "value"` when indented),
    and the odd stretch of a string value that looks like one: enough to tell that no
    secret-named key is there. The names a secret can have (header, env and setting names)
    hold no quote."""
    for separator in (b'":"', b'": "'):
        position = text.find(separator)
        while position != -1:
            start = text.rfind(b'"', 0, position)
            yield text[start + 1 : position].decode("utf-8", "replace")
            position = text.find(separator, position + len(separator))


def redact_at(location: Sequence[object], value: Any) -> Any:
    """`value` found at `location` (a validation error's `loc` and `input`): REDACTED when the
    location ends in a secret name and the value is text, else redacted like any value."""
    if location and _is_secret(location[-1], value):
        return REDACTED
    return redact(value)


def fill_secrets(submitted: Any, stored: Any) -> Any:
    """`submitted` with every REDACTED value of a secret-named key replaced by the value at the
    same place in `stored` (a spec as stored, or None when there is none). A list's items are
    matched by their `name` when both sides have one (configurations and variants may be
    reordered or added), else by position. Raises UnfilledSecretsError naming each REDACTED
    value that `stored` has no value for."""
    missing: list[Location] = []
    filled = _fill(submitted, stored, (), missing)
    if missing:
        raise UnfilledSecretsError(missing)
    return filled


def _fill(submitted: Any, stored: Any, loc: Location, missing: list[Location]) -> Any:
    if isinstance(submitted, Mapping):
        source = stored if isinstance(stored, Mapping) else {}
        filled = {}
        for key, item in submitted.items():
            if _is_secret(key, item) and item == REDACTED:
                original = source.get(key)
                if isinstance(original, str):
                    filled[key] = original
                else:
                    missing.append((*loc, key))
                    filled[key] = item
            else:
                filled[key] = _fill(item, source.get(key), (*loc, key), missing)
        return filled
    if isinstance(submitted, list | tuple):
        source_items = list(stored) if isinstance(stored, list | tuple) else []
        return [
            _fill(item, _counterpart(item, index, source_items), (*loc, index), missing)
            for index, item in enumerate(submitted)
        ]
    return submitted


def _counterpart(item: Any, index: int, stored: list[Any]) -> Any:
    """The stored item `item` was copied from: the one of the same name, else the one at its index."""
    name = item.get("name") if isinstance(item, Mapping) else None
    if isinstance(name, str) and name:
        named = [s for s in stored if isinstance(s, Mapping) and s.get("name") == name]
        if named:
            return named[0]
    return stored[index] if index < len(stored) else None


def redacted_locations(value: Any) -> list[Location]:
    """Where `value` holds REDACTED for a secret-named key: what a spec submitted without a
    stored one to fill it from must not hold."""
    try:
        fill_secrets(value, None)
    except UnfilledSecretsError as error:
        return error.locations
    return []
