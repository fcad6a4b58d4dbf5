"""Request and response models of the CI checks routes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator, model_validator

from tracetax.api.schemas.history import HistoryJudgementModel
from tracetax.api.schemas.queued import QueuedRecord
from tracetax.app.check_commands import CLI_MAX_THROUGHPUT_S, CLI_WARMUP_S
from tracetax.app.submission import CheckOrigin
from tracetax.diagnostics.checks import BUDGET_LINES, Budget, Verdict
from tracetax.history.gate import OverallVerdict
from tracetax.spec.collector import PipelineSpec, VariantSpec
from tracetax.spec.inputs import InputModel, fields_of
from tracetax.spec.provenance import HistoryGate, Provenance
from tracetax.spec.service import ConfigurationSpec, ExperimentSpec, Precision
from tracetax.subjects.registry import subject_named
from tracetax.subjects.union import subject_of


def _check_location(spec_loc: Sequence[Any]) -> Sequence[Any]:
    """Where a field of a check's experiment spec came from in the check request:
    configurations.0.processor -> baseline.processor, configurations.1 -> candidate."""
    if len(spec_loc) >= 2 and spec_loc[0] == "configurations" and spec_loc[1] in (0, 1):
        return ("baseline" if spec_loc[1] == 0 else "candidate", *spec_loc[2:])
    return spec_loc


Pairable = TypeVar("Pairable", ConfigurationSpec, VariantSpec)


def check_pair(baseline: Pairable, candidate: Pairable) -> list[Pairable]:
    """A check's two configurations under fixed names, so an A/A check (the same
    configuration twice) is a valid experiment."""
    return [
        baseline.model_copy(update={"name": "baseline", "baseline": True}),
        candidate.model_copy(update={"name": "candidate", "baseline": False}),
    ]


def _budget_fits(budget: Budget, subject: str) -> Budget:
    kind = subject_named(subject)
    misplaced = budget.misplaced(kind.budget_fields)
    if misplaced:
        raise ValueError(f"{', '.join(misplaced)} does not apply to a check of {kind.description}")
    return budget


PROVENANCE_HELP = (
    "Where the check came from (repository, branch, commit, pull request, CI run); `tracetax check` fills it from "
    "its flags and the CI's environment (docs/ci-checks.md). Stored with the check's experiment; a history is "
    "drawn by branch and commit from it."
)
AGAINST_HISTORY_HELP = (
    "Also judge the check against the last `points` checks of `branch` (same service, configuration and machine): "
    "fail when an overhead grew by more than `max_growth_pct` points (`tracetax check --against-history main:10`)."
)


# A check is its experiment's spec but for what it says its own way: its two configurations
# (`baseline`, `candidate`, fixed names in the experiment), the experiment's name (made from
# theirs) and, for a service, its precision (`max_wall_time_s`). Every other field is the spec's,
# taken from the spec model, so a field added to a spec is a check's too; `change` is where a
# check means a field differently. Type checkers see the base model: the check reads none of
# these fields by name.
SERVICE_CHECK_OWN = ("name", "configurations", "precision")
PIPELINE_CHECK_OWN = ("name", "configurations")
if TYPE_CHECKING:
    _ServiceCheckSpec = InputModel
    _PipelineCheckSpec = InputModel
else:
    _ServiceCheckSpec = fields_of(
        ExperimentSpec,
        "ServiceCheckSpec",
        leave_out=SERVICE_CHECK_OWN,
        change={
            "subject": Field(description="A service check; `collector` for a pipeline."),
            "sample_stacks": Field(
                default=False,
                description="Sample the service's stacks, for the differential flame graph of where the added cost "
                "went (off by default: a verdict reads no stacks, and a check runs as short as it can).",
            ),
            "provenance": Field(description=PROVENANCE_HELP),
        },
    )
    _PipelineCheckSpec = fields_of(
        PipelineSpec,
        "PipelineCheckSpec",
        leave_out=PIPELINE_CHECK_OWN,
        change={"provenance": Field(description=PROVENANCE_HELP)},
    )


def _spec_values(request: BaseModel, spec: type[BaseModel]) -> dict[str, Any]:
    """The request's values of the spec's fields it takes as they are."""
    return {name: getattr(request, name) for name in spec.model_fields if name in type(request).model_fields}


class CheckRequest(_ServiceCheckSpec):
    """A CI check of a service: the candidate configuration against the baseline one."""

    # What `tracetax check` sends when given no load flags (app/check_commands.py), for the form
    # that runs a check as the CLI does.
    model_config = ConfigDict(
        json_schema_extra={"x-cli-load": {"warmup_s": CLI_WARMUP_S, "max_throughput_s": CLI_MAX_THROUGHPUT_S}}
    )

    baseline: ConfigurationSpec
    candidate: ConfigurationSpec
    budget: Budget
    strict: bool = Field(default=False, description="Judge the point estimate instead of the interval's lower bound.")
    max_wall_time_s: float | None = Field(
        default=None,
        gt=0,
        le=86_400,
        description="Buy rounds while a budget line is inconclusive: after `rounds`, rounds are added until every "
        "line is conclusive or this wall time is spent (intervals valid however many are added: docs/diagnostics.md).",
    )
    against_history: HistoryGate | None = Field(default=None, description=AGAINST_HISTORY_HELP)

    def experiment_spec(self) -> ExperimentSpec:
        """The check's experiment: the baseline against the candidate. Names are fixed so an
        A/A check (the same configuration twice) is a valid experiment."""
        return ExperimentSpec(
            **_spec_values(self, ExperimentSpec),
            name=f"check: {self.candidate.name} vs {self.baseline.name}",
            configurations=check_pair(self.baseline, self.candidate),
            precision=self._precision(),
        )

    def origin(self) -> CheckOrigin:
        return CheckOrigin(self.candidate.name, self.baseline.name, self.against_history)

    def _precision(self) -> Precision | None:
        """Until conclusive: the budget's relative and absolute lines name the metrics."""
        if self.max_wall_time_s is None:
            return None
        metrics = sorted({BUDGET_LINES[name][0] for name in BUDGET_LINES if getattr(self.budget, name) is not None})
        return Precision(metrics=metrics or ["p50"], max_wall_time_s=self.max_wall_time_s)

    @field_validator("budget")
    @classmethod
    def service_budget(cls, budget: Budget) -> Budget:
        return _budget_fits(budget, "service")

    @model_validator(mode="after")
    def makes_an_experiment(self) -> CheckRequest:
        """What the check's experiment refuses as a whole (a wall time shorter than the estimate
        of its rounds) is this request's 422, not the route's 500. The check's `max_wall_time_s`
        is its experiment's `precision.max_wall_time_s`: the message names the check's field."""
        try:
            self.experiment_spec()
        except ValidationError as error:
            messages = (str(item["msg"]).removeprefix("Value error, ") for item in error.errors())
            raise ValueError("; ".join(messages).replace("precision.max_wall_time_s", "max_wall_time_s")) from None
        return self


class PipelineCheckRequest(_PipelineCheckSpec):
    """A CI check of a Collector pipeline: the candidate variant against the baseline one."""

    # What `tracetax check --collector` sends besides its flags (app/check_commands.py).
    model_config = ConfigDict(json_schema_extra={"x-cli-load": {"warmup_s": CLI_WARMUP_S}})

    baseline: VariantSpec
    candidate: VariantSpec
    budget: Budget
    strict: bool = Field(default=False, description="Judge the point estimate instead of the interval's lower bound.")
    against_history: HistoryGate | None = Field(default=None, description=AGAINST_HISTORY_HELP)

    def experiment_spec(self) -> PipelineSpec:
        return PipelineSpec(
            **_spec_values(self, PipelineSpec),
            name=f"check: {self.candidate.name} vs {self.baseline.name}",
            configurations=check_pair(self.baseline, self.candidate),
        )

    def origin(self) -> CheckOrigin:
        return CheckOrigin(self.candidate.name, self.baseline.name, self.against_history)

    @field_validator("budget")
    @classmethod
    def pipeline_budget(cls, budget: Budget) -> Budget:
        return _budget_fits(budget, "collector")


AnyCheckRequest = CheckRequest | PipelineCheckRequest
# The body of POST /checks: `subject` selects a service check (the default) or a pipeline check.
CheckBody = Annotated[
    Annotated[CheckRequest, Tag("service")] | Annotated[PipelineCheckRequest, Tag("collector")],
    Discriminator(subject_of),
]
field_of = _check_location


class CheckCreated(QueuedRecord):
    """A check queued: its id and its experiment's place in the queue."""


class MachineFingerprint(BaseModel):
    """The machine a check's experiment ran on (tracetax.system.machine): a history compares
    only points of one fingerprint."""

    fingerprint: str
    cpu_model: str | None = None
    cores: int | None = None
    memory_bytes: int | None = None
    kernel: str | None = None
    # "none", a hypervisor's or container's name ("kvm", "docker"), "vm"; None: unknown.
    virtualization: str | None = None


class CheckStatus(BaseModel):
    id: str
    experiment_id: str
    status: str
    created_at: datetime
    budget: Budget
    strict: bool
    verdict: Verdict | None = None
    error: str | None = None
    # Where the check came from and what it ran on (once its experiment has started).
    provenance: Provenance | None = None
    machine: MachineFingerprint | None = None
    # The candidate's and the baseline's own names (None for checks stored before they were kept).
    configuration: str | None = None
    baseline_configuration: str | None = None
    against_history: HistoryGate | None = None
    # The verdict against the branch's history (`against_history`), once finished: one
    # judgement per relative metric the budget names.
    history: list[HistoryJudgementModel] | None = None
    overall: OverallVerdict | None = Field(
        default=None,
        description="The same-run verdict and the judgements against history together (history.gate "
        "overall_verdict): what `tracetax check` exits with (pass 0, fail 1, error 2). None while the "
        "check has no verdict.",
    )
