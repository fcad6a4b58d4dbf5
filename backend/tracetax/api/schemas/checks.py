"""Request and response models of the CI checks routes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from tracetax.diagnostics.checks import Budget, Verdict
from tracetax.engine.spec import ConfigurationSpec, ExperimentSpec, LoadSpec, ServiceRef


class CheckRequest(BaseModel):
    service: ServiceRef
    baseline: ConfigurationSpec
    candidate: ConfigurationSpec
    load: LoadSpec
    budget: Budget
    rounds: int = Field(default=5, ge=1, le=50)
    seed: int = 0
    strict: bool = Field(default=False, description="Judge the point estimate instead of the interval's lower bound.")

    def experiment_spec(self) -> ExperimentSpec:
        """The check's experiment: the baseline against the candidate. Names are fixed so an
        A/A check (the same configuration twice) is a valid experiment."""
        baseline = self.baseline.model_copy(update={"name": "baseline", "baseline": True})
        candidate = self.candidate.model_copy(update={"name": "candidate", "baseline": False})
        return ExperimentSpec(
            name=f"check: {self.candidate.name} vs {self.baseline.name}",
            service=self.service,
            configurations=[baseline, candidate],
            load=self.load,
            rounds=self.rounds,
            seed=self.seed,
            sample_stacks=False,  # a verdict reads no stacks; a check runs as short as it can
        )

    @staticmethod
    def field_of(spec_loc: Sequence[Any]) -> Sequence[Any]:
        """Where a field of `experiment_spec()` came from in this request:
        configurations.0.processor -> baseline.processor, configurations.1 -> candidate."""
        if len(spec_loc) >= 2 and spec_loc[0] == "configurations" and spec_loc[1] in (0, 1):
            return ("baseline" if spec_loc[1] == 0 else "candidate", *spec_loc[2:])
        return spec_loc


class CheckCreated(BaseModel):
    id: str
    experiment_id: str
    status: str
    queue_position: int | None
    estimated_seconds: float


class CheckStatus(BaseModel):
    id: str
    experiment_id: str
    status: str
    created_at: datetime
    budget: Budget
    strict: bool
    verdict: Verdict | None = None
    error: str | None = None
