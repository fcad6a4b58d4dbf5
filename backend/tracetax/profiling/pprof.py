"""Go CPU profiles (pprof's gzipped profile.proto) to folded stacks, in pure Python.

Only what folding needs is decoded: samples (location ids, values, labels), locations (their
inlined lines), functions and the string table. The field numbers are those of
github.com/google/pprof/proto/profile.proto. A hand-written decoder keeps the backend free of
a Go toolchain and a protobuf code generator at run time.
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tracetax.profiling.folded import Folded


class ProfileFormatError(ValueError):
    """The bytes are not a pprof profile."""


@dataclass
class _Sample:
    location_ids: list[int] = field(default_factory=list)
    values: list[int] = field(default_factory=list)
    labels: list[tuple[int, int]] = field(default_factory=list)  # (key, str) string indexes


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ProfileFormatError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) for each field of one message."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            yield number, wire, value
        elif wire == 2:
            length, pos = _varint(data, pos)
            yield number, wire, data[pos : pos + length]
            pos += length
        elif wire == 1:
            yield number, wire, int.from_bytes(data[pos : pos + 8], "little")
            pos += 8
        elif wire == 5:
            yield number, wire, int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
        else:
            raise ProfileFormatError(f"unsupported wire type {wire}")


def _ints(wire: int, value: int | bytes) -> list[int]:
    """A repeated integer field, packed (wire type 2) or not."""
    if isinstance(value, int):
        return [value]
    out, pos = [], 0
    while pos < len(value):
        item, pos = _varint(value, pos)
        out.append(item)
    return out


def _bytes(value: int | bytes) -> bytes:
    if not isinstance(value, bytes):
        raise ProfileFormatError("expected an embedded message, found a number")
    return value


def _message(data: bytes, handlers: dict[int, Callable[[int, int | bytes], None]]) -> None:
    for number, wire, value in _fields(data):
        handler = handlers.get(number)
        if handler is not None:
            handler(wire, value)


def fold(raw: bytes, label: str, root: Callable[[str | None], str | None]) -> Folded:
    """Fold a CPU profile by sample count. Each stack's first frame is `root(<value of the
    goroutine label `label`, or None>)`; samples whose root is None are left out."""
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    strings: list[str] = []
    samples: list[_Sample] = []
    functions: dict[int, int] = {}  # function id -> name string index
    locations: dict[int, list[int]] = {}  # location id -> function ids, innermost first

    def sample(_: int, value: int | bytes) -> None:
        current = _Sample()
        _message(
            _bytes(value),
            {
                1: lambda w, v: current.location_ids.extend(_ints(w, v)),
                2: lambda w, v: current.values.extend(_ints(w, v)),
                3: lambda _w, v: current.labels.append(_label(_bytes(v))),
            },
        )
        samples.append(current)

    def location(_: int, value: int | bytes) -> None:
        message = _bytes(value)
        (ident,) = _int_fields(message, 1)
        lines = [item for number, _wire, item in _fields(message) if number == 4 and isinstance(item, bytes)]
        locations[ident] = [_int_fields(line, 1)[0] for line in lines]  # Line.function_id

    def function(_: int, value: int | bytes) -> None:
        ident, name = _int_fields(_bytes(value), 1, 2)
        functions[ident] = name

    def string(_: int, value: int | bytes) -> None:
        strings.append(_bytes(value).decode("utf-8", "replace"))

    try:
        _message(data, {2: sample, 4: location, 5: function, 6: string})
    except (IndexError, ProfileFormatError) as error:
        raise ProfileFormatError(f"not a pprof profile: {error}") from error
    if not strings:
        raise ProfileFormatError("not a pprof profile: no string table")

    folded: Folded = Counter()
    label_key = strings.index(label) if label in strings else -1
    for item in samples:
        role = next((strings[s] for k, s in item.labels if k == label_key), None)
        first = root(role)
        if first is None or not item.values:
            continue
        names = [
            strings[functions.get(function_id, 0)]
            for location_id in item.location_ids  # leaf first
            for function_id in locations.get(location_id, [])
        ]
        folded[";".join([first, *reversed(names)])] += item.values[0]
    return folded


def _label(message: bytes) -> tuple[int, int]:
    key, text = _int_fields(message, 1, 2)  # Label.key, Label.str: string table indexes
    return key, text


def _int_fields(message: bytes, *numbers: int) -> list[int]:
    """The value of each named integer field of a message, 0 when absent (proto3's default)."""
    found = dict.fromkeys(numbers, 0)
    for number, _wire, item in _fields(message):
        if number in found and isinstance(item, int):
            found[number] = item
    return [found[number] for number in numbers]
