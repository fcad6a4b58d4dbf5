"""What GET …/diagnostics answers: a finished experiment's diagnostics as its subject builds
them (its diagnosis' `answer`, the diagnostics' own model: a service's or a pipeline's, both
tracetax.diagnostics.base.ExperimentDiagnostics), looked up in the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from tracetax.api.schemas.by_subject import by_subject
from tracetax.subjects.registry import SUBJECTS

if TYPE_CHECKING:
    AnyDiagnostics = BaseModel
else:
    # One experiment's diagnostics, its subject's shape (picked by `subject`).
    AnyDiagnostics = by_subject({name: subject.diagnosis.answer for name, subject in SUBJECTS.items()})
