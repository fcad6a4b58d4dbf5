"""The error answers every route documents.

Validation errors (422) are FastAPI's own `HTTPValidationError`: a `detail` list whose items
name the field (`loc`). Every other error carries one sentence in `detail`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

# The 429 of every route that queues an experiment (tracetax.app.submission.QueueFullError).
QUEUE_FULL = "the queue is full: TRACETAX_MAX_QUEUE_LENGTH experiments are waiting"


class ErrorMessage(BaseModel):
    detail: str


def error_responses(descriptions: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries documenting each status code with an ErrorMessage body."""
    return {code: {"model": ErrorMessage, "description": text} for code, text in descriptions.items()}
