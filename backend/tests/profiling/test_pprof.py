"""The pprof decoder against a profile encoded here field by field (profile.proto numbers)."""

from __future__ import annotations

import gzip

import pytest

from tracetax.profiling.pprof import ProfileFormatError, fold


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value: int | bytes) -> bytes:
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def packed(values: list[int]) -> bytes:
    return b"".join(varint(v) for v in values)


STRINGS = [
    "",
    "samples",
    "count",
    "tracetax.role",
    "request",
    "otel-sdk",
    "main.handler",
    "net/http.serve",
    "sdk.export",
]


def profile() -> bytes:
    s = STRINGS.index
    functions = [(1, "main.handler"), (2, "net/http.serve"), (3, "sdk.export")]
    body = b"".join(field(6, text.encode()) for text in STRINGS)
    body += b"".join(field(5, field(1, ident) + field(2, s(name))) for ident, name in functions)
    # Location 10 holds main.handler inlined into net/http.serve (innermost line first).
    body += field(4, field(1, 10) + field(4, field(1, 1)) + field(4, field(1, 2)))
    body += field(4, field(1, 11) + field(4, field(1, 3)))
    request = field(3, field(1, s("tracetax.role")) + field(2, s("request")))
    sdk = field(3, field(1, s("tracetax.role")) + field(2, s("otel-sdk")))
    body += field(2, field(1, packed([10])) + field(2, packed([3, 30_000_000])) + request)
    body += field(2, field(1, 11) + field(2, 2) + field(2, 20_000_000) + sdk)  # unpacked repeated fields
    body += field(2, field(1, packed([11, 10])) + field(2, packed([1, 10_000_000])))  # no label
    return gzip.compress(body)


def test_folds_by_label_root_first_with_inlined_frames() -> None:
    folded = fold(profile(), "tracetax.role", lambda role: f"goroutine {role or 'unlabelled'}")
    assert folded == {
        "goroutine request;net/http.serve;main.handler": 3,
        "goroutine otel-sdk;sdk.export": 2,
        "goroutine unlabelled;net/http.serve;main.handler;sdk.export": 1,
    }


def test_samples_whose_root_is_none_are_left_out() -> None:
    folded = fold(profile(), "tracetax.role", lambda role: None if role is None else role)
    assert sum(folded.values()) == 5


def test_not_a_profile() -> None:
    with pytest.raises(ProfileFormatError, match="not a pprof profile"):
        fold(b"\x0a\xff", "tracetax.role", lambda role: "x")
