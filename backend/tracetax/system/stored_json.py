"""How TraceTax types the JSON it stores and answers, at the floor so that each producer (the
lab's span ledger, a subject's aggregation, the diagnostics) describes its own JSON once and
the API answers with that description.

A stored number stays the int or float it was written as (`float` alone would turn every
stored int into a float, and the answer's text would change), and a stored record keeps the
keys it does not declare (`OPEN`): a field a newer producer adds passes through.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, WithJsonSchema

# A JSON number as stored: an int stays an int (1, not 1.0); the OpenAPI says "number".
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
OPEN = ConfigDict(extra="allow")
