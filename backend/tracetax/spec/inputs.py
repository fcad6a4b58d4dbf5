"""The base of every model a request body or a spec file is read into, and the caps on its sizes.

Input is taken literally and bounded. A key the model does not know is a 422 naming it: a typo
such as `load.duration` would otherwise be dropped and the default measured. A number must be
finite: NaN passes no comparison, so a NaN budget would pass every check on SQLite and fail
PostgreSQL's insert after the experiment was queued. Every string, list and map has a cap, so one
request cannot make the backend hold, store or write an unbounded amount; the caps are far above
what any example or test asks for (docs/examples).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, StringConstraints, create_model
from pydantic.fields import FieldInfo

# Free-form names: an experiment's, a service's OTEL_SERVICE_NAME.
NAME_CHARS = 120
# Identifiers chosen from a list the backend has: a demo language, a preset, a shipped pipeline.
IDENTIFIER_CHARS = 64
# A file-system path on the backend's host (cwd, a pipeline overlay).
FILE_PATH_CHARS = 4096
# A command's argv: items and the length of each.
ARGV_ITEMS = 256
ARGV_ITEM_CHARS = 4096
# A URL path with its query (the load's targets, a health path).
URL_PATH_CHARS = 2048
# The load's query parameters.
QUERY_ENTRIES = 64
QUERY_KEY_CHARS = 256
QUERY_VALUE_CHARS = 2048
# The headers sent with every request.
HEADER_ENTRIES = 64
HEADER_NAME_CHARS = 256
HEADER_VALUE_CHARS = 8192
# The body sent with every request: written to a file oha reads.
BODY_CHARS = 64 * 1024
# OTEL_* variables of a configuration (or a tuning's current setting).
ENV_ENTRIES = 128
ENV_KEY_CHARS = 256
ENV_VALUE_CHARS = 4096
# LAB_* settings of a pipeline variant.
SETTING_ENTRIES = 64
SETTING_KEY_CHARS = 256
SETTING_VALUE_CHARS = 1024
# An HTTP method's name.
METHOD_CHARS = 16
# A seed: what a 64-bit column and every random generator take.
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1

EnvKey = Annotated[str, StringConstraints(max_length=ENV_KEY_CHARS)]
EnvValue = Annotated[str, StringConstraints(max_length=ENV_VALUE_CHARS)]
QueryKey = Annotated[str, StringConstraints(max_length=QUERY_KEY_CHARS)]
QueryValue = Annotated[str, StringConstraints(max_length=QUERY_VALUE_CHARS)]
HeaderName = Annotated[str, StringConstraints(max_length=HEADER_NAME_CHARS)]
HeaderValue = Annotated[str, StringConstraints(max_length=HEADER_VALUE_CHARS)]
SettingKey = Annotated[str, StringConstraints(max_length=SETTING_KEY_CHARS)]
SettingValue = Annotated[str, StringConstraints(max_length=SETTING_VALUE_CHARS)]
ArgvItem = Annotated[str, StringConstraints(max_length=ARGV_ITEM_CHARS)]


class InputModel(BaseModel):
    """What every request body and spec model derives from: unknown keys and non-finite
    numbers are refused, each error naming its field."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def fields_of(
    model: type[BaseModel], name: str, *, leave_out: Collection[str] = (), change: Mapping[str, Any] | None = None
) -> type[InputModel]:
    """A model of `model`'s fields, in its order, but those left out, for a request that is
    that model but for a few fields it says its own way (a check is its experiment's spec with
    a baseline and a candidate): a field added to `model` is one of the request's too, with its
    type, bounds, default and description. `change` gives a field another default or description
    (a `Field(...)`, typed as its default); what it does not set stays the model's."""
    changes: Mapping[str, FieldInfo] = change or {}
    fields: dict[str, Any] = {
        field: (Annotated[info.annotation, info], changes[field]) if field in changes else (info.annotation, info)
        for field, info in model.model_fields.items()
        if field not in leave_out
    }
    return create_model(name, __base__=InputModel, **fields)


class _PhaseTimes(Protocol):
    duration_s: float
    warmup_s: float
    side_by_side_s: float | None
    side_by_side_warmup_s: float | None


# An unset side-by-side phase is as long as the solo phase, up to this: its figures are paired
# per round, and their spread comes from the processes of each round, not from the phase's length
# (an A/A's CPU per request is as tight from 6 s as from 20 s, docs/benchmarks.md), so longer
# solo phases (the tails) do not lengthen it.
SIDE_BY_SIDE_DEFAULT_MAX_S = 10.0


class SideBySideTiming:
    """The side-by-side phase's times of a load that has one (a service's LoadSpec, a pipeline's
    SpanLoadSpec): unset, as long as the solo phase (at most SIDE_BY_SIDE_DEFAULT_MAX_S) and
    its warm-up."""

    @property
    def side_by_side_seconds(self: _PhaseTimes) -> float:
        """The side-by-side phase's measured seconds (0: it does not run)."""
        if self.side_by_side_s is None:
            return min(self.duration_s, SIDE_BY_SIDE_DEFAULT_MAX_S)
        return self.side_by_side_s

    @property
    def side_by_side_warmup_seconds(self: _PhaseTimes) -> float:
        return self.warmup_s if self.side_by_side_warmup_s is None else self.side_by_side_warmup_s
