"""What every subject's answers share: a side-by-side phase that failed in a round (a stored
number and an open record are typed in tracetax.system.stored_json).

A subject's answers (its `answers.py`) describe, for the API and so for its OpenAPI and the
UI's generated types, the JSON its aggregation stores and the results answer (its diagnostics
answer as their own model, tracetax.diagnostics; a round's ledger and ramp steps are typed in
tracetax.lab, where they are built). They are
TypedDicts, not models, where they describe stored dicts as they are: a key absent from an
older result stays absent (NotRequired) instead of coming back as a null, and keys a newer
producer adds pass through (extra="allow").
"""

from __future__ import annotations

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.system.stored_json import OPEN


@with_config(OPEN)
class SideBySideFailure(TypedDict):
    round: int
    error: str
