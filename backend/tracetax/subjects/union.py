"""Every subject's spec as one: the body of POST /experiments and of a spec file, built from
the registry (each subject brings its spec model), so that a subject added there parses here
with no line of its own. `subject` selects the model; a spec without it is a service's."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Union

import yaml
from pydantic import Discriminator, PlainValidator, Tag, TypeAdapter, ValidationError

from tracetax.spec.base import SpecError, SubjectSpec
from tracetax.subjects.base import Subject
from tracetax.subjects.registry import DEFAULT_SUBJECT, SUBJECTS


def subject_of(data: Any) -> str:
    """The discriminator of a spec: `subject`, the default subject when absent; an unknown
    value is left to the default subject's spec (its `subject` field) to refuse by name."""
    value = (
        data.get("subject", DEFAULT_SUBJECT) if isinstance(data, dict) else getattr(data, "subject", DEFAULT_SUBJECT)
    )
    # Not a name (a number, an object): the default subject's spec refuses it by field.
    return value if isinstance(value, str) and value in SUBJECTS else DEFAULT_SUBJECT


def _union(subjects: Iterable[Subject[Any, Any]]) -> Any:
    """The tagged union of the subjects' spec models, told apart by `subject_of`."""
    tagged = tuple(Annotated[subject.spec_model, Tag(subject.name)] for subject in subjects)
    return Annotated[Union[tagged], Discriminator(subject_of)]  # noqa: UP007 - a union built at run time


@cache
def _adapter(models: tuple[tuple[str, type[SubjectSpec]], ...]) -> TypeAdapter[SubjectSpec]:
    return TypeAdapter(_union(SUBJECTS[name] for name, _ in models))


def parse_spec(raw: Any) -> SubjectSpec:
    """A stored or submitted spec of any registered subject; raises pydantic's ValidationError."""
    models = tuple((name, subject.spec_model) for name, subject in SUBJECTS.items())
    return _adapter(models).validate_python(raw)


# The request body of a spec (POST /experiments): described as the union of the subjects
# registered when the API is built (its OpenAPI), parsed by the registry as it is when the
# request comes (a subject registered later, a test's, parses too). Typed as the spec it
# parses into; at run time `Any` underneath, so the OpenAPI gets no schema of the empty base.
if TYPE_CHECKING:
    SpecBody = SubjectSpec
else:
    SpecBody = Annotated[Any, PlainValidator(parse_spec, json_schema_input_type=_union(SUBJECTS.values()))]


def load_spec_file(path: Path) -> SubjectSpec:
    """Read a JSON or YAML spec; errors name the file and each bad field."""
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise SpecError([{"loc": (str(path),), "msg": f"cannot read the spec: {error}"}]) from error
    try:
        return parse_spec(raw)
    except ValidationError as error:
        raise SpecError([{"loc": tuple(e["loc"]), "msg": e["msg"]} for e in error.errors(include_url=False)]) from error
