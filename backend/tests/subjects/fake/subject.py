"""The fake subject: a "configuration" costs `cost_us` microseconds, and its rounds measure
that figure in-process (pure logic, no process started). Everything the product asks of a
subject is here; nothing of the product names it."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, model_validator
from sqlalchemy.orm import Session

from tracetax.clients.readback import RunReadback
from tracetax.core.config import Settings
from tracetax.db.models import Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics.checks import Budget, Verdict
from tracetax.engine.aggregate import RoundData
from tracetax.engine.figures import Figures
from tracetax.engine.round import RoundOutcome, RoundSubject, Slot, TogetherSlot
from tracetax.lab.pipelines import OverlayPolicy
from tracetax.spec.base import SpecError, SubjectSpec, require_one_baseline_and_unique_names
from tracetax.spec.inputs import InputModel
from tracetax.spec.provenance import Provenance
from tracetax.subjects.base import (
    CliReport,
    Diagnosis,
    DiagnosticsOptions,
    HistoryMetric,
    HistoryMetricText,
    Judgement,
    Presentation,
    Readback,
    Results,
    RoundsRunner,
    SpecRules,
    Subject,
    SubjectContext,
)

NAME = "fake"
# The most a fake configuration may cost: a bound the subject's own rules hold a spec to.
MAX_COST_US = 1_000_000


class FakeConfiguration(InputModel):
    name: str = Field(pattern=r"^[a-z0-9-]{1,40}$")
    baseline: bool = False
    cost_us: float = Field(ge=0, description="What one round of this configuration measures, µs.")


class FakeSpec(SubjectSpec):
    subject: Literal["fake"]
    name: str | None = None
    configurations: list[FakeConfiguration] = Field(min_length=1, max_length=4)
    rounds: int = Field(default=2, ge=1, le=10)
    seed: int = 0
    provenance: Provenance | None = None

    @model_validator(mode="after")
    def one_baseline(self) -> FakeSpec:
        require_one_baseline_and_unique_names(self.configurations)
        return self

    def estimated_seconds(self) -> float:
        return 0.01 * self.rounds * len(self.configurations)


class FakeFigures(Figures):
    """A fake round's figure, stored in `rounds.figures`."""

    cost_us: float | None = None


class FakeAggregates(BaseModel):
    """One configuration over its rounds: the model the aggregation builds and the API answers."""

    configuration: str
    subject: Literal["fake"] = "fake"
    rounds_completed: int
    rounds_failed: int
    cost_us: float | None


class FakeDiagnostics(BaseModel):
    subject: Literal["fake"] = "fake"
    experiment_id: str
    baseline: str
    # Each configuration's median cost over the baseline's, µs.
    added_cost_us: dict[str, float | None]


class FakeRounds:
    """What the engine runs: every round completes at once with the configuration's cost."""

    def __init__(self, spec: FakeSpec) -> None:
        self.spec = spec

    def environment(self) -> dict[str, Any]:
        return {"fake": True}

    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        return {}

    def run_round(self, slot: Slot) -> RoundOutcome:
        cost = next(c.cost_us for c in self.spec.configurations if c.name == slot.configuration)
        return RoundOutcome(status="completed", figures=FakeFigures(cost_us=cost))

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
        return {
            c.name: _aggregate(c.name, [r for r in rounds if r.configuration == c.name]).model_dump()
            for c in self.spec.configurations
        }


def _aggregate(name: str, rounds: Sequence[RoundData]) -> FakeAggregates:
    completed = [r for r in rounds if r.status == "completed"]
    costs = [
        figures.cost_us for r in completed if (figures := FakeFigures.of(r.figures)) and figures.cost_us is not None
    ]
    return FakeAggregates(
        configuration=name,
        rounds_completed=len(completed),
        rounds_failed=sum(1 for r in rounds if r.status == "failed"),
        cost_us=statistics.median(costs) if costs else None,
    )


class FakeRules(SpecRules[FakeSpec]):
    def label(self, spec: FakeSpec) -> str:
        return NAME

    def bound_errors(self, spec: FakeSpec, settings: Settings) -> list[dict[str, Any]]:
        return [
            {"loc": ("configurations", index, "cost_us"), "msg": f"at most {MAX_COST_US} µs"}
            for index, configuration in enumerate(spec.configurations)
            if configuration.cost_us > MAX_COST_US
        ]

    def validate(
        self, spec: FakeSpec, services: dict[str, ServiceManifest], settings: Settings, overlays: OverlayPolicy
    ) -> ServiceManifest | None:
        if spec.name == "refused":
            raise SpecError([{"loc": ("name",), "msg": "the fake refuses this name"}])
        return None


class FakeRunner(RoundsRunner[FakeSpec]):
    def rounds(self, spec: FakeSpec, context: SubjectContext) -> RoundSubject:
        return FakeRounds(spec)


class FakeReadback(Readback[FakeSpec]):
    async def collect(
        self, session: Session, experiment: Experiment, spec: FakeSpec, readback: RunReadback, context: SubjectContext
    ) -> None:
        """Nothing of a fake round reaches a backend."""


class FakeResults(Results):
    aggregates_answer: ClassVar[Any] = FakeAggregates

    def figures(self, stored: dict[str, Any] | None) -> FakeFigures | None:
        return FakeFigures.of(stored)

    def round_phases(self, stored: dict[str, Any] | None) -> dict[str, Any]:
        figures = FakeFigures.of(stored)
        return {
            "open_phase": {"cost_us": figures.cost_us} if figures is not None else None,
            "closed_phase": None,
            "max_throughput_rps": None,
            "requests_total": None,
        }


class FakeDiagnosis(Diagnosis[FakeSpec, FakeDiagnostics]):
    answer: ClassVar[type[BaseModel]] = FakeDiagnostics

    def diagnostics(
        self,
        session: Session,
        experiment: Experiment,
        spec: FakeSpec,
        context: SubjectContext,
        options: DiagnosticsOptions,
    ) -> FakeDiagnostics:
        costs = {r.configuration: r.aggregates.get("cost_us") for r in experiment.results}
        baseline = next(c.name for c in spec.configurations if c.baseline)
        base = costs.get(baseline)
        added = {
            name: cost - base if cost is not None and base is not None else None
            for name, cost in costs.items()
            if name != baseline
        }
        return FakeDiagnostics(experiment_id=experiment.id, baseline=baseline, added_cost_us=added)


class FakeJudgement(Judgement[FakeSpec]):
    """The fake has no checks: no budget field is its, and nothing reaches a verdict."""

    budget_fields: ClassVar[frozenset[str]] = frozenset()
    history_metric_text: ClassVar[dict[str, HistoryMetricText]] = {}

    def verdict(
        self,
        session: Session,
        experiment: Experiment,
        spec: FakeSpec,
        context: SubjectContext,
        budget: Budget,
        strict: bool,
    ) -> Verdict:
        raise NotImplementedError("the fake subject has no checks")

    def history_metrics(
        self, session: Session, experiment: Experiment, spec: FakeSpec, context: SubjectContext, budget: Budget
    ) -> dict[str, HistoryMetric]:
        return {}


class FakePresentation(Presentation[FakeSpec]):
    def cli_report(
        self, session: Session, experiment: Experiment, spec: FakeSpec, aggregates: Sequence[dict[str, Any]]
    ) -> CliReport:
        return CliReport([], [f"{a['configuration']}: {a['cost_us']} µs" for a in aggregates])


FAKE: Subject[FakeSpec, FakeDiagnostics] = Subject(
    name=NAME,
    description="a fake subject",
    spec_model=FakeSpec,
    rules=FakeRules(),
    runner=FakeRunner(),
    readback=FakeReadback(),
    results=FakeResults(),
    diagnosis=FakeDiagnosis(),
    judgement=FakeJudgement(),
    presentation=FakePresentation(),
)
