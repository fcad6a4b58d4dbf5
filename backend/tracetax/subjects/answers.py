"""What every subject's answers share: how a stored number is described, and the open
configuration the API's descriptions of stored dicts take.

A subject's answers (its `answers.py`) describe, for the API and so for its OpenAPI and the
UI's generated types, the JSON its aggregation and diagnostics store and answer. They are
TypedDicts, not models, where they describe stored dicts as they are: a key absent from an
older result stays absent (NotRequired) instead of coming back as a null, and keys a newer
producer adds pass through (extra="allow").
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, WithJsonSchema, with_config
from typing_extensions import TypedDict

# A JSON number as stored: an int stays an int (1, not 1.0), so the answer is the same text
# as before these types; `float` alone would turn every stored int into a float.
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
OPEN = ConfigDict(extra="allow")


@with_config(OPEN)
class SideBySideFailure(TypedDict):
    round: int
    error: str
