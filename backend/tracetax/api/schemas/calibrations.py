"""Request and response models of the calibration routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from tracetax.api.schemas.queued import QueuedRecord
from tracetax.diagnostics.calibration import calibration_spec
from tracetax.diagnostics.overhead import NoiseFloor
from tracetax.spec.inputs import SEED_MAX, SEED_MIN, InputModel
from tracetax.spec.service import ConfigurationSpec, ExperimentSpec, LoadSpec, ServiceRef


class CalibrationRequest(InputModel):
    """An A/A experiment: `configuration` twice, interleaved, at `load`."""

    service: ServiceRef
    configuration: ConfigurationSpec = Field(
        default_factory=lambda: ConfigurationSpec.model_validate({"preset": "none"}),
        description="The setting to measure twice; the baseline of the checks this calibration serves.",
    )
    load: LoadSpec
    rounds: int = Field(default=5, ge=2, le=50, description="Paired rounds; at least 2 for a spread.")
    seed: int = Field(default=0, ge=SEED_MIN, le=SEED_MAX)

    def experiment_spec(self) -> ExperimentSpec:
        return calibration_spec(self.service, self.configuration, self.load, self.rounds, self.seed)


class CalibrationCreated(QueuedRecord):
    """A calibration queued: its id and its A/A experiment's place in the queue."""


class CalibrationStatus(BaseModel):
    id: str
    experiment_id: str
    status: str
    created_at: datetime
    service: str
    # What a check must match to be judged against this calibration.
    signature: dict[str, Any]
    # Per metric, once the A/A experiment has completed.
    noise_floor: dict[str, NoiseFloor] | None = None
    error: str | None = None
