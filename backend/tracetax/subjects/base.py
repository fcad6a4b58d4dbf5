"""What a subject (what an experiment measures) plugs into: small interfaces, one per reader,
defined once (as the Collector's testbed splits its load generator, runner, backend and
validator).

A `Subject` is its name, its spec model and its parts: the rules a spec is held to at
submission (`SpecRules`), what the engine runs (`RoundsRunner`: the engine itself only sees
the `RoundSubject` it hands over, tracetax.engine.round), the after-run read-back
(`Readback`), a round's figures as answered (`Results`), what a finished experiment means
(`Diagnosis`), a check's verdict and history (`Judgement`) and the CLI's tables
(`Presentation`, whose tables are the subject's own rich module: this interface imports no
rich). Each is looked up in the registry (tracetax.subjects.registry): a third subject is one
new folder beside service/ and collector/ and one line there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy.orm import Session

from tracetax.clients.readback import RunReadback
from tracetax.core.config import Settings
from tracetax.db.models import Check, Experiment
from tracetax.demos.catalog import ServiceManifest, demo_services
from tracetax.diagnostics.checks import Budget, Verdict
from tracetax.diagnostics.cost import Figure
from tracetax.diagnostics.overhead import Change
from tracetax.engine.experiment import Sufficiency
from tracetax.engine.figures import Figures
from tracetax.engine.loadgen import LoadDriver, OhaDriver
from tracetax.engine.round import RoundSubject
from tracetax.engine.settle import Settle, fixed_settle
from tracetax.history.metrics import HistoryMetricText as HistoryMetricText  # re-exported: a subject names its
from tracetax.history.metrics import HistoryUnit as HistoryUnit  # history metrics in the history's vocabulary
from tracetax.lab.pipelines import OverlayPolicy
from tracetax.spec.base import SubjectSpec

if TYPE_CHECKING:
    from rich.console import RenderableType

SpecT = TypeVar("SpecT", bound=SubjectSpec)
DiagnosticsT = TypeVar("DiagnosticsT", bound=BaseModel)


@dataclass
class SubjectContext:
    """What subjects need of this process, built once with the runtime: the settings, the demo
    catalog and the HTTP load generator."""

    settings: Settings
    # None: the demo catalog on disk (read when first asked for); a test may give its own.
    catalog: dict[str, ServiceManifest] | None = None
    driver: LoadDriver = field(default_factory=OhaDriver)
    # The wait after a phase's services stop (engine/settle.py): the runtime reads the
    # Collector's counters where it can, else the fixed wait.
    settle: Settle = fixed_settle

    @property
    def services(self) -> dict[str, ServiceManifest]:
        return self.catalog if self.catalog is not None else demo_services()

    @property
    def otlp_endpoint(self) -> str:
        """Where a service's SDK exports (the stack's Collector, OTLP HTTP)."""
        return str(self.settings.collector_otlp_http_endpoint).rstrip("/")

    @property
    def lab_export_endpoint(self) -> str:
        """Where a Collector pipeline's downstream Collectors send on (the stack's OTLP gRPC)."""
        return self.settings.collector_otlp_grpc_endpoint


@dataclass(frozen=True)
class DiagnosticsOptions:
    """The diagnostics' query parameters, each read by the subject it applies to."""

    # Services: the CPU overhead the recommendation may spend, in percent.
    cpu_budget_pct: float = 10.0
    # Collector pipelines: size the recommendation for this span rate.
    target_spans_per_s: float | None = None


class HistoryMetric(BaseModel):
    """One figure a check's history keeps (`checks.overheads`): an estimate and its 95% interval,
    None where unknown (never 0)."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    unit: HistoryUnit


def relative_metric(change: Change | None) -> HistoryMetric:
    """A paired change as the history keeps it: relative, oriented so that positive is worse, %."""
    interval = change.worse_pct() if change is not None else None
    if interval is None:
        return HistoryMetric(estimate=None, unit="pct")
    return HistoryMetric(estimate=interval.estimate, low=interval.low, high=interval.high, unit="pct")


def figure_metric(figure: Figure | None, unit: HistoryUnit) -> HistoryMetric:
    """One of the candidate's own figures (a mean over rounds with its interval) as the history keeps it."""
    if figure is None:
        return HistoryMetric(estimate=None, unit=unit)
    return HistoryMetric(estimate=figure.estimate, low=figure.low, high=figure.high, unit=unit)


@dataclass
class CliReport:
    """What `tracetax run` prints of a finished experiment, after its progress bar."""

    # Renderables the CLI prints (rich tables, made by the subject's presentation module).
    tables: Sequence[RenderableType]
    # Warnings about the run (rounds the subject's own figures flag), printed in yellow.
    warnings: list[str]


# -- The parts of a subject: each what one reader of it needs, and nothing else -------------------


class SpecRules(ABC, Generic[SpecT]):
    """At submission (the API, the CLI, a check, a tuning): what a spec asks, checked before
    anything runs, and how it is named."""

    @abstractmethod
    def label(self, spec: SpecT) -> str:
        """What the experiments list shows as the subject."""

    @abstractmethod
    def bound_errors(self, spec: SpecT, settings: Settings) -> list[dict[str, Any]]:
        """What the operator's per-spec bounds refuse, beyond the estimate every spec is held to."""

    @abstractmethod
    def validate(
        self, spec: SpecT, services: dict[str, ServiceManifest], settings: Settings, overlays: OverlayPolicy
    ) -> ServiceManifest | None:
        """Check the spec against what it would run (raise SpecError or UnknownServiceError):
        the demo service's manifest, or None."""

    def check_allowed(self, settings: Settings, spec: SpecT) -> None:
        """Raise CommandNotAllowedError unless the settings let this backend start what the spec runs."""

    def unresolvable(self, session: Session, spec: SpecT, budget: Budget) -> list[dict[str, Any]]:
        """The budget lines tighter than this machine is known to resolve (none without a calibration)."""
        return []

    def service_name(self, spec: SpecT) -> str | None:
        """The service name its logs carry; None: it sends no service logs."""
        return None


class RoundsRunner(ABC, Generic[SpecT]):
    """What the engine runs for a spec (the runner), and whether a look has seen enough."""

    @abstractmethod
    def rounds(self, spec: SpecT, context: SubjectContext) -> RoundSubject:
        """What the engine runs for this spec: its rounds, and the aggregation of them."""

    def sufficiency(
        self, session: Session, experiment: Experiment, spec: SpecT, context: SubjectContext, check: Check | None
    ) -> Sufficiency | None:
        """After a planned look of a running experiment: whether it has the precision its spec
        asks for (a check's: every budget line conclusive); None when it asked for a number of
        rounds."""
        return None


class Readback(ABC, Generic[SpecT]):
    """After the run, or again on request: what the backends hold of its rounds."""

    # Whether re-collecting the ledger (POST .../ledger) answers the rounds' service ledgers.
    answers_round_ledgers: ClassVar[bool] = False

    @abstractmethod
    async def collect(
        self, session: Session, experiment: Experiment, spec: SpecT, readback: RunReadback, context: SubjectContext
    ) -> None:
        """Read what the backends hold of the experiment's rounds, and store it."""


class Results(ABC):
    """A stored round's figures, as the API answers them, and how the API describes one
    configuration's aggregates (what the rounds' `aggregate` stores)."""

    # The description of one configuration's aggregates (a TypedDict or a model, with a
    # `configuration` key; `subject` too, for every subject but the first): the results'
    # OpenAPI and the UI's generated types read it.
    aggregates_answer: ClassVar[Any]

    @abstractmethod
    def figures(self, stored: dict[str, Any] | None) -> Figures | None:
        """A stored round's figures (`Round.figures`), typed; None for a round that never ran."""

    @abstractmethod
    def round_phases(self, stored: dict[str, Any] | None) -> dict[str, Any]:
        """A stored round's figures under the keys a round's answer has always had:
        open_phase, closed_phase, max_throughput_rps and requests_total."""


class Diagnosis(ABC, Generic[SpecT, DiagnosticsT]):
    """What a finished experiment means (GET .../diagnostics, a tuning's ranking)."""

    # The diagnostics' model (DiagnosticsT), which the API answers and describes them by; its
    # `subject` field names the subject (the product's derive from
    # tracetax.diagnostics.base.ExperimentDiagnostics).
    answer: ClassVar[type[BaseModel]]

    @abstractmethod
    def diagnostics(
        self,
        session: Session,
        experiment: Experiment,
        spec: SpecT,
        context: SubjectContext,
        options: DiagnosticsOptions,
    ) -> DiagnosticsT:
        """What a finished experiment means."""


class Judgement(ABC, Generic[SpecT]):
    """A check of this subject: its budget lines, its verdict and what its history keeps."""

    # The budget fields a check of this subject may set.
    budget_fields: ClassVar[frozenset[str]]
    # The metrics a check's history keeps for this subject (`history_metrics`), by name.
    history_metric_text: ClassVar[dict[str, HistoryMetricText]]

    @abstractmethod
    def verdict(
        self,
        session: Session,
        experiment: Experiment,
        spec: SpecT,
        context: SubjectContext,
        budget: Budget,
        strict: bool,
    ) -> Verdict:
        """A finished check's verdict on its candidate against the baseline."""

    @abstractmethod
    def history_metrics(
        self,
        session: Session,
        experiment: Experiment,
        spec: SpecT,
        context: SubjectContext,
        budget: Budget,
    ) -> dict[str, HistoryMetric]:
        """What a finished check's history keeps of its candidate against the baseline: one
        figure per name of `history_metric_text`, read as the check's verdict reads them."""


class Presentation(ABC, Generic[SpecT]):
    """How the command line shows a finished experiment (the tables are the subject's own
    module's, which imports rich; this interface does not)."""

    @abstractmethod
    def cli_report(
        self, session: Session, experiment: Experiment, spec: SpecT, aggregates: Sequence[dict[str, Any]]
    ) -> CliReport:
        """`tracetax run`'s tables for a finished experiment (`aggregates`: its configurations' results)."""


@dataclass(frozen=True)
class Subject(Generic[SpecT, DiagnosticsT]):
    """One kind of subject, made of its parts: each reader (the submission, the engine, the
    collection, the API's answers, the diagnostics, a check, the CLI) looks up the part it
    needs. Its spec is a `spec_model` whose `subject` field is `name`."""

    # The spec's `subject` value.
    name: str
    # In messages: "a service", "a Collector pipeline".
    description: str
    # Its spec's model (the union of every subject's is built from these: subjects/union.py).
    spec_model: type[SpecT]
    rules: SpecRules[SpecT]
    runner: RoundsRunner[SpecT]
    readback: Readback[SpecT]
    results: Results
    diagnosis: Diagnosis[SpecT, DiagnosticsT]
    judgement: Judgement[SpecT]
    presentation: Presentation[SpecT]

    @property
    def budget_fields(self) -> frozenset[str]:
        return self.judgement.budget_fields

    @property
    def history_metric_text(self) -> dict[str, HistoryMetricText]:
        return self.judgement.history_metric_text
