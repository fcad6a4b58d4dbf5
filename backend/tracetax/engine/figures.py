"""What every subject's figures of one round are: what its phases measured, stored as one JSON
column (`rounds.figures`, migration 0009) instead of columns one subject named and the other
overloaded (a pipeline's ledger in `open_phase`, its ramp in `closed_phase`, its span rate in
`max_throughput_rps`, its spans in `requests_total`).

Each subject's own figures derive from `Figures` (a service's and a pipeline's in
tracetax.diagnostics, beside the diagnostics that read them; another subject's in its folder).
The engine never picks one: a subject's round hands its empty figures to the round skeleton,
and each reader knows which subject's rounds it reads.

The models describe the stored JSON and keep it as it is: phases keep keys they do not declare
(`extra="allow"`), numbers stay int or float as written, and `stored()` writes only the fields
a round set, so that a figure read back and written again is the same JSON."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict

NumberT = TypeVar("NumberT", int, float)


def known_sum(values: Iterable[NumberT | None]) -> NumberT | None:
    """The sum of figures that add up to one (parts, instances, rounds); unknown when any part
    is unknown, never the sum of the known ones as if the missing one were 0."""
    parts = list(values)
    if any(part is None for part in parts):
        return None
    return sum(part for part in parts if part is not None)


class Figures(BaseModel):
    """What every subject's figures share: they round-trip their stored JSON unchanged."""

    model_config = ConfigDict(extra="allow")

    def stored(self) -> dict[str, Any]:
        """The JSON the column keeps: the fields that were set, nested ones too, as values the
        column serializes itself (as it did the dicts before: a float stays what json writes)."""
        return self.model_dump(exclude_unset=True)

    @classmethod
    def of(cls, stored: dict[str, Any] | None) -> Self | None:
        """The figures of a stored round; None for a round that never ran."""
        return cls.model_validate(stored) if stored is not None else None


def stored_or_none(figures: Figures | None) -> dict[str, Any] | None:
    return figures.stored() if figures is not None else None
