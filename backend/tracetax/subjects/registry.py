"""The subjects by name: the only place that tells them apart. A spec's `subject` field names
its subject; a third subject is one folder beside these and one line in SUBJECTS (or, for a
subject that is not part of the product, such as a test's, one call to `register`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tracetax.spec.base import SubjectSpec
from tracetax.subjects.base import Subject
from tracetax.subjects.collector import COLLECTOR
from tracetax.subjects.service import SERVICE

SUBJECTS: dict[str, Subject[Any, Any]] = {subject.name: subject for subject in (SERVICE, COLLECTOR)}
# A spec without `subject` is a service's (every spec before pipelines had one).
DEFAULT_SUBJECT = SERVICE.name


def subject_named(name: str) -> Subject[Any, Any]:
    """The subject of this name (a spec's or a check's `subject`); KeyError for another."""
    return SUBJECTS[name]


def subject_for(spec: SubjectSpec) -> Subject[Any, Any]:
    """The subject of a parsed spec."""
    return subject_named(spec.subject)


def register(subject: Subject[Any, Any]) -> None:
    """Add a subject beside the product's (a test's own): specs naming it parse, queue and run
    as any other's. Refuses a name already taken, so a subject is never replaced unseen."""
    if subject.name in SUBJECTS:
        raise ValueError(f"a subject named {subject.name!r} is already registered")
    SUBJECTS[subject.name] = subject


def unregister(name: str) -> None:
    """Remove a subject `register` added."""
    SUBJECTS.pop(name, None)


@contextmanager
def registered(subject: Subject[Any, Any]) -> Iterator[Subject[Any, Any]]:
    """`subject` registered while the block runs."""
    register(subject)
    try:
        yield subject
    finally:
        unregister(subject.name)
