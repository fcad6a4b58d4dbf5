"""A Collector pipeline under span load (`subject: collector`): each variant of the pipeline
in the lab, against the baseline pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel
from sqlalchemy.orm import Session

from tracetax.clients.readback import RunReadback
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics.budget_lines import PIPELINE_BUDGET_FIELDS
from tracetax.diagnostics.checks import Budget, Verdict, budget_metrics, judge
from tracetax.diagnostics.pipeline import (
    PipelineDiagnostics,
    build_pipeline,
    collect_pipeline_traces,
    diagnostics_for,
    pipeline_samples,
)
from tracetax.diagnostics.pipeline_figures import CollectorFigures, collector_phases
from tracetax.diagnostics.rounds import flags_that_matter
from tracetax.engine.round import RoundSubject
from tracetax.lab.pipelines import OverlayPolicy
from tracetax.spec.collector import PipelineSpec
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
    relative_metric,
)
from tracetax.subjects.collector.answers import PipelineAggregates
from tracetax.subjects.collector.rounds import PipelineRounds
from tracetax.subjects.collector.tables import ledger_table, pipeline_results_table, recommendation_table
from tracetax.subjects.collector.validation import span_errors, validate_pipelines
from tracetax.subjects.tables import changes_table


class CollectorRules(SpecRules[PipelineSpec]):
    def label(self, spec: PipelineSpec) -> str:
        return "collector"

    def bound_errors(self, spec: PipelineSpec, settings: Settings) -> list[dict[str, Any]]:
        return span_errors(spec, settings)

    def validate(
        self, spec: PipelineSpec, services: dict[str, ServiceManifest], settings: Settings, overlays: OverlayPolicy
    ) -> ServiceManifest | None:
        validate_pipelines(spec, overlays)
        return None


class CollectorRunner(RoundsRunner[PipelineSpec]):
    """Pipelines run their rounds (no precision yet: no sufficiency of their own)."""

    def rounds(self, spec: PipelineSpec, context: SubjectContext) -> RoundSubject:
        overlays = OverlayPolicy.from_settings(context.settings)
        return PipelineRounds(spec, context.lab_export_endpoint, overlays)


class CollectorResults(Results):
    aggregates_answer: ClassVar[Any] = PipelineAggregates

    def figures(self, stored: dict[str, Any] | None) -> CollectorFigures | None:
        return CollectorFigures.of(stored)

    def round_phases(self, stored: dict[str, Any] | None) -> dict[str, Any]:
        return collector_phases(CollectorFigures.of(stored))


class CollectorReadback(Readback[PipelineSpec]):
    # A pipeline's counters are read during each round; re-collecting reads Tempo's side only.
    answers_round_ledgers: ClassVar[bool] = False

    async def collect(
        self,
        session: Session,
        experiment: Experiment,
        spec: PipelineSpec,
        readback: RunReadback,
        context: SubjectContext,
    ) -> None:
        # A pipeline's counters were read during each round; Tempo's side now.
        await collect_pipeline_traces(session, experiment, readback, context.settings.ledger_settle_s)


class CollectorDiagnosis(Diagnosis[PipelineSpec, PipelineDiagnostics]):
    answer: ClassVar[type[BaseModel]] = PipelineDiagnostics

    def diagnostics(
        self,
        session: Session,
        experiment: Experiment,
        spec: PipelineSpec,
        context: SubjectContext,
        options: DiagnosticsOptions,
    ) -> PipelineDiagnostics:
        readings = repo.ledger_readings(session, experiment.id)
        return diagnostics_for(experiment, spec, readings, options.target_spans_per_s)


class CollectorJudgement(Judgement[PipelineSpec]):
    budget_fields: ClassVar[frozenset[str]] = frozenset(PIPELINE_BUDGET_FIELDS)
    history_metric_text: ClassVar[dict[str, HistoryMetricText]] = {
        "cores_per_10k_spans_s": HistoryMetricText(
            "Collector cores per 10k spans/s overhead", "pct", "cores_per_10k_overhead_pct"
        ),
        "rss_max_bytes": HistoryMetricText("Collector peak RSS overhead", "pct", "rss_overhead_pct"),
        "lost_spans": HistoryMetricText("spans lost in the pipeline", "spans", "max_lost_spans"),
    }

    def verdict(
        self,
        session: Session,
        experiment: Experiment,
        spec: PipelineSpec,
        context: SubjectContext,
        budget: Budget,
        strict: bool,
    ) -> Verdict:
        # With what the run read back from Tempo, so the check's metrics (and Holm's family over
        # them) are the results page's.
        readings = repo.ledger_readings(session, experiment.id)
        samples = pipeline_samples(experiment, spec, readings)
        diagnostics = build_pipeline(experiment, spec, readings, samples=samples)
        return judge(
            budget,
            diagnostics.overhead.get("candidate", {}),
            None,
            strict,
            baseline=samples.get("baseline", []),
            candidate=samples.get("candidate", []),
            # Rounds flagged in their solo windows do not matter to lines on the side-by-side
            # pair (cores per 10k spans/s, RSS); lost spans stay solo and keep them.
            flagged_rounds=flags_that_matter(
                diagnostics.flagged_rounds, experiment.rounds, budget_metrics(budget), diagnostics.side_by_side
            ),
            lost_spans=_lost_spans(experiment),
        )

    def history_metrics(
        self,
        session: Session,
        experiment: Experiment,
        spec: PipelineSpec,
        context: SubjectContext,
        budget: Budget,
    ) -> dict[str, HistoryMetric]:
        # Read as the verdict reads them (with Tempo's side), so the history keeps the check's figures.
        readings = repo.ledger_readings(session, experiment.id)
        samples = pipeline_samples(experiment, spec, readings)
        changes = build_pipeline(experiment, spec, readings, samples=samples).overhead.get("candidate", {})
        lost = _lost_spans(experiment)
        return {
            "cores_per_10k_spans_s": relative_metric(changes.get("cores_per_10k_spans_s")),
            "rss_max_bytes": relative_metric(changes.get("rss_max_bytes")),
            # A count over the rounds, exact: no interval.
            "lost_spans": HistoryMetric(estimate=lost, low=lost, high=lost, unit="spans"),
        }


class CollectorPresentation(Presentation[PipelineSpec]):
    def cli_report(
        self, session: Session, experiment: Experiment, spec: PipelineSpec, aggregates: Sequence[dict[str, Any]]
    ) -> CliReport:
        diagnostics = build_pipeline(experiment, spec, repo.ledger_readings(session, experiment.id))
        baseline = spec.baseline.name
        tables = [
            pipeline_results_table(list(aggregates), baseline, diagnostics.span_delay),
            changes_table(diagnostics.overhead, baseline),
            ledger_table(diagnostics.ledger),
            recommendation_table(diagnostics.recommendation),
        ]
        flagged = (
            (
                "telemetrygen could not deliver the asked rate (its limit, not the Collector's)",
                diagnostics.saturated_rounds,
            ),
            ("interference on the lab Collector's cores", diagnostics.flagged_rounds),
        )
        return CliReport(tables, [f"{label}: {', '.join(rounds)}" for label, rounds in flagged if rounds])


def _lost_spans(experiment: Experiment) -> float | None:
    """The spans the candidate pipeline lost over its rounds (None: unknown)."""
    candidate = next((r.aggregates for r in experiment.results if r.configuration == "candidate"), {})
    lost = (candidate.get("ledger_totals") or {}).get("lost")
    return None if lost is None else float(lost)


COLLECTOR: Subject[PipelineSpec, PipelineDiagnostics] = Subject(
    name="collector",
    description="a Collector pipeline",
    spec_model=PipelineSpec,
    rules=CollectorRules(),
    runner=CollectorRunner(),
    readback=CollectorReadback(),
    results=CollectorResults(),
    diagnosis=CollectorDiagnosis(),
    judgement=CollectorJudgement(),
    presentation=CollectorPresentation(),
)
