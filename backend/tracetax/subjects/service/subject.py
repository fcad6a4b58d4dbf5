"""A service under HTTP load (`subject: service`, the default): a demo service of the catalog
or a user's own command."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel
from sqlalchemy.orm import Session

from tracetax.clients.readback import RunReadback
from tracetax.core.command_policy import check_command
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics import report
from tracetax.diagnostics.checks import SERVICE_BUDGET_FIELDS, Budget, Verdict, budget_metrics, judge
from tracetax.diagnostics.cost import ConfigurationCost, CostInputs
from tracetax.diagnostics.cost_report import build_cost, collector_figure
from tracetax.diagnostics.overhead import precision_status
from tracetax.diagnostics.report import Diagnostics, samples_by_configuration
from tracetax.diagnostics.rounds import flags_that_matter
from tracetax.diagnostics.sequential import design_of
from tracetax.diagnostics.service_figures import ServiceFigures, service_phases
from tracetax.engine.experiment import Sufficiency
from tracetax.engine.round import RoundSubject
from tracetax.lab.pipelines import OverlayPolicy
from tracetax.spec.service import CommandServiceRef, DemoServiceRef, ExperimentSpec
from tracetax.subjects.base import (
    Diagnosis,
    DiagnosticsOptions,
    HistoryMetric,
    HistoryMetricText,
    Judgement,
    Readback,
    Results,
    RoundsRunner,
    SpecRules,
    Subject,
    SubjectContext,
    figure_metric,
    relative_metric,
)
from tracetax.subjects.service.answers import ConfigurationAggregates
from tracetax.subjects.service.rounds import ServiceRounds
from tracetax.subjects.service.tables import ServicePresentation
from tracetax.subjects.service.validation import (
    manifest_for,
    request_errors,
    unresolvable_lines,
    validate_service,
)


class ServiceRules(SpecRules[ExperimentSpec]):
    def label(self, spec: ExperimentSpec) -> str:
        """The demo service's language, or "command" for a user's own."""
        return spec.service.language if isinstance(spec.service, DemoServiceRef) else "command"

    def bound_errors(self, spec: ExperimentSpec, settings: Settings) -> list[dict[str, Any]]:
        # Every request of a load phase is read back into its histogram.
        return request_errors(spec, settings)

    def validate(
        self, spec: ExperimentSpec, services: dict[str, ServiceManifest], settings: Settings, overlays: OverlayPolicy
    ) -> ServiceManifest | None:
        return validate_service(spec, services, settings)

    def check_allowed(self, settings: Settings, spec: ExperimentSpec) -> None:
        # Demo services always may run; a user's own command as the settings allow.
        if isinstance(spec.service, CommandServiceRef):
            check_command(settings, spec.service.argv, spec.service.cwd)

    def unresolvable(self, session: Session, spec: ExperimentSpec, budget: Budget) -> list[dict[str, Any]]:
        return unresolvable_lines(session, spec, budget)

    def service_name(self, spec: ExperimentSpec) -> str | None:
        return spec.service_name


class ServiceResults(Results):
    aggregates_answer: ClassVar[Any] = ConfigurationAggregates

    def figures(self, stored: dict[str, Any] | None) -> ServiceFigures | None:
        return ServiceFigures.of(stored)

    def round_phases(self, stored: dict[str, Any] | None) -> dict[str, Any]:
        return service_phases(ServiceFigures.of(stored))


class ServiceReadback(Readback[ExperimentSpec]):
    answers_round_ledgers: ClassVar[bool] = True

    async def collect(
        self,
        session: Session,
        experiment: Experiment,
        spec: ExperimentSpec,
        readback: RunReadback,
        context: SubjectContext,
    ) -> None:
        manifest = manifest_for(spec, context.services)
        await report.collect_ledger(session, experiment, readback, manifest, context.settings.ledger_settle_s)


class ServiceDiagnosis(Diagnosis[ExperimentSpec, Diagnostics]):
    answer: ClassVar[type[BaseModel]] = Diagnostics

    def diagnostics(
        self,
        session: Session,
        experiment: Experiment,
        spec: ExperimentSpec,
        context: SubjectContext,
        options: DiagnosticsOptions,
    ) -> Diagnostics:
        return report.build(session, experiment, manifest_for(spec, context.services), options.cpu_budget_pct)


class ServiceJudgement(Judgement[ExperimentSpec]):
    budget_fields: ClassVar[frozenset[str]] = frozenset(SERVICE_BUDGET_FIELDS)
    history_metric_text: ClassVar[dict[str, HistoryMetricText]] = {
        "p50": HistoryMetricText("p50 latency overhead", "pct", "p50_overhead_pct"),
        "p99": HistoryMetricText("p99 latency overhead", "pct", "p99_overhead_pct", material_pct=2.0),
        "cpu_per_request_us": HistoryMetricText("CPU per request overhead", "pct", "cpu_overhead_pct"),
        "bytes_per_request": HistoryMetricText("OTLP bytes per request", "bytes", "max_bytes_per_request"),
        # The budget line reads the candidate's own $/month; against a baseline that sends nothing
        # (the usual `none`) that is its $/month over the baseline's, what the history keeps.
        "usd_per_month": HistoryMetricText("Δ$/month", "usd", "max_usd_per_month"),
    }

    def verdict(
        self,
        session: Session,
        experiment: Experiment,
        spec: ExperimentSpec,
        context: SubjectContext,
        budget: Budget,
        strict: bool,
    ) -> Verdict:
        diagnostics = report.build(session, experiment, manifest_for(spec, context.services))
        samples = samples_by_configuration(experiment)
        cost = _candidate_cost(session, experiment, budget)
        return judge(
            budget,
            diagnostics.overhead.get("candidate", {}),
            diagnostics.dropped_spans.get("candidate"),
            strict,
            baseline=samples.get("baseline", []),
            candidate=samples.get("candidate", []),
            flagged_rounds=flags_that_matter(
                diagnostics.flagged_rounds, experiment.rounds, budget_metrics(budget), diagnostics.side_by_side
            ),
            cost=cost,
            design=design_of(spec),
        )

    def history_metrics(
        self,
        session: Session,
        experiment: Experiment,
        spec: ExperimentSpec,
        context: SubjectContext,
        budget: Budget,
    ) -> dict[str, HistoryMetric]:
        diagnostics = report.build(session, experiment, manifest_for(spec, context.services))
        changes = diagnostics.overhead.get("candidate", {})
        cost = _cost_of_candidate(session, experiment, budget.cost or CostInputs())
        return {
            "p50": relative_metric(changes.get("p50")),
            "p99": relative_metric(changes.get("p99")),
            "cpu_per_request_us": relative_metric(changes.get("cpu_per_request_us")),
            "bytes_per_request": figure_metric(cost.bytes_per_request if cost else None, "bytes"),
            "usd_per_month": figure_metric(cost.usd_per_month_vs_baseline if cost else None, "usd"),
        }


class ServiceRunner(RoundsRunner[ExperimentSpec]):
    def __init__(self, judgement: Judgement[ExperimentSpec]) -> None:
        # A check's look is enough when its verdict has no inconclusive line.
        self.judgement = judgement

    def rounds(self, spec: ExperimentSpec, context: SubjectContext) -> RoundSubject:
        manifest = manifest_for(spec, context.services)
        return ServiceRounds(spec, manifest, context.driver, context.otlp_endpoint, context.settle)

    def sufficiency(
        self,
        session: Session,
        experiment: Experiment,
        spec: ExperimentSpec,
        context: SubjectContext,
        check: Check | None,
    ) -> Sufficiency | None:
        precision = spec.precision
        if precision is None:
            return None
        if check is not None:
            budget = Budget.model_validate(check.budget)
            verdict = self.judgement.verdict(session, experiment, spec, context, budget, check.strict)
            open_lines = [line.name for line in verdict.lines if line.verdict == "inconclusive"]
            if open_lines:
                return Sufficiency(False, f"still inconclusive: {', '.join(open_lines)}")
            return Sufficiency(True, "every budget line is conclusive")
        if precision.half_width_pct is None:  # refused at submission outside a check
            return Sufficiency(True, "no half-width asked")
        samples = samples_by_configuration(experiment)
        baseline = spec.baseline.name
        candidates = {name: rounds for name, rounds in samples.items() if name != baseline}
        status = precision_status(
            samples[baseline], candidates, precision.metrics, precision.half_width_pct, design_of(spec)
        )
        return Sufficiency(status.reached, status.summary)


def _candidate_cost(session: Session, experiment: Experiment, budget: Budget) -> ConfigurationCost | None:
    """The candidate's volume and $/month, when the budget has a line on them."""
    if budget.max_bytes_per_request is None and budget.max_usd_per_month is None:
        return None
    return _cost_of_candidate(session, experiment, budget.cost or CostInputs())


def _cost_of_candidate(session: Session, experiment: Experiment, inputs: CostInputs) -> ConfigurationCost | None:
    """The candidate's volume and $/month at `inputs` (the documented Collector cost per span)."""
    readings = repo.ledger_readings(session, experiment.id)
    costs = build_cost(experiment, readings, inputs, collector_figure(None, None), None)
    return next((c for c in costs.configurations if c.configuration == "candidate"), None)


_JUDGEMENT = ServiceJudgement()
SERVICE: Subject[ExperimentSpec, Diagnostics] = Subject(
    name="service",
    description="a service",
    spec_model=ExperimentSpec,
    rules=ServiceRules(),
    runner=ServiceRunner(_JUDGEMENT),
    readback=ServiceReadback(),
    results=ServiceResults(),
    diagnosis=ServiceDiagnosis(),
    judgement=_JUDGEMENT,
    presentation=ServicePresentation(),
)
