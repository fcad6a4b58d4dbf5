"""What every subject's diagnostics of an experiment share, declared once: each subject's
diagnostics (a service's in report.py, a pipeline's in pipeline.py) derive from
`ExperimentDiagnostics` and add their own ledger, recommendation and figures. They are what GET
…/diagnostics answers, as they are: the API describes them by these models."""

from __future__ import annotations

from pydantic import BaseModel

from tracetax.diagnostics.overhead import Change, NoiseFloor
from tracetax.diagnostics.rounds import SideBySideUse


class ExperimentDiagnostics(BaseModel):
    # The subject's name (each subject's diagnostics narrow it to theirs): what the API's
    # answer is told apart by.
    subject: str
    experiment_id: str
    baseline: str
    # Per configuration (a service's, a pipeline variant) and metric, the paired change against
    # the baseline (see overhead.py).
    overhead: dict[str, dict[str, Change]]
    noise_floor: dict[str, NoiseFloor]
    # Rounds whose measured phases other processes interfered with ("<configuration> round <n>").
    flagged_rounds: list[str]
    # Rounds during which a component of the stack (Tempo, the Collector the service or the
    # downstreams export to, ...) was not ready, with which (the ledger's stages read from it
    # are unknown there).
    stack_down_rounds: list[str] = []
    # Which figures were paired from the rounds' side-by-side phases; None without such a phase.
    side_by_side: SideBySideUse | None = None
