"""The subjects by name: the only place that tells them apart. A spec's `subject` field names
its subject; a third subject is one folder beside these and one line in SUBJECTS."""

from __future__ import annotations

from typing import Any

from tracetax.spec.service import AnySpec
from tracetax.subjects.base import Subject
from tracetax.subjects.collector import COLLECTOR
from tracetax.subjects.service import SERVICE

SUBJECTS: dict[str, Subject[Any, Any]] = {subject.name: subject for subject in (SERVICE, COLLECTOR)}


def subject_named(name: str) -> Subject[Any, Any]:
    """The subject of this name (a spec's or a check's `subject`); KeyError for another."""
    return SUBJECTS[name]


def subject_for(spec: AnySpec) -> Subject[Any, Any]:
    """The subject of a parsed spec."""
    return subject_named(spec.subject)
