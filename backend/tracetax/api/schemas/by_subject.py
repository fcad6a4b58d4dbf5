"""An answer whose shape is its subject's (a configuration's aggregates, an experiment's
diagnostics): the union of the shapes the registered subjects describe, picked by the answer's
`subject`. The OpenAPI describes the subjects registered when the API is built; a subject
registered later (a test's) answers as its subject builds it, undescribed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Union

from pydantic import Discriminator, Tag
from pydantic.json_schema import SkipJsonSchema

from tracetax.subjects.registry import DEFAULT_SUBJECT

UNDESCRIBED = "undescribed"


def by_subject(shapes: Mapping[str, Any]) -> Any:
    """The union of `shapes` (by subject name), told apart by the answer's `subject` (the
    default subject's when absent, as in a service's aggregates stored before there were others)."""

    def subject_of(answer: Any) -> str:
        if isinstance(answer, dict):
            subject = answer.get("subject", DEFAULT_SUBJECT)
        else:
            subject = getattr(answer, "subject", DEFAULT_SUBJECT)
        return subject if isinstance(subject, str) and subject in shapes else UNDESCRIBED

    described = [Annotated[shape, Tag(name)] for name, shape in shapes.items()]
    undescribed = SkipJsonSchema[Annotated[Any, Tag(UNDESCRIBED)]]
    return Annotated[Union[(*described, undescribed)], Discriminator(subject_of)]
