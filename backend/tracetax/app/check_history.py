"""A finished check read against its history: its verdict against the last points of a branch
(the `against_history` gate), those judgements as JUnit test cases, and the Markdown summary CI
publishes (`tracetax check --markdown`, `GET /api/v1/checks/{id}?format=markdown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, Protocol
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from tracetax.app.history import history_metrics, machine_of, metric_text, point_of, snapshots, stored_snapshot
from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.diagnostics.checks import BUDGET_LINES, Budget, JunitCase, Verdict
from tracetax.diagnostics.cost import CostInputs
from tracetax.diagnostics.ledger import RoundLedger
from tracetax.diagnostics.overhead import Interval
from tracetax.history.gate import HistoryJudgement, OverallVerdict, judge_against_history, overall_verdict
from tracetax.history.markdown import CheckReport, LedgerLoss, check_markdown
from tracetax.history.metrics import HistoryMetricText
from tracetax.spec.provenance import HistoryGate
from tracetax.subjects.base import SubjectContext
from tracetax.subjects.registry import subject_for
from tracetax.subjects.union import parse_spec

# -- a check's verdicts ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckOutcome:
    """A finished check's verdicts: the same run's against its budget, its judgements against
    the branch's history (None: no gate, or no snapshot yet), and both together
    (history.gate.overall_verdict: what the API answers as `overall`, the Markdown's title says
    and `tracetax check` exits with)."""

    verdict: Verdict
    overall: OverallVerdict
    history: list[HistoryJudgement] | None = None
    error: str | None = None  # why the check has no verdict of its own (its experiment failed)
    overheads: dict[str, Any] | None = field(default=None, repr=False)  # the check's history snapshot


def check_outcome(
    session: Session, check: Check, experiment: Experiment, subjects: SubjectContext
) -> CheckOutcome | None:
    """The check's verdicts once its experiment is finished (None before): an experiment that
    did not complete is an error; a completed one is judged by its subject against the budget,
    then against the branch's history when the check gates on it."""
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        return None
    if experiment.status != "completed":
        verdict = Verdict(verdict="error", strict=check.strict, lines=[])
        error = f"the check's experiment is {experiment.status}: {experiment.error}"
        return CheckOutcome(verdict, overall_verdict(verdict.verdict), error=error)
    spec = parse_spec(experiment.spec)
    budget = Budget.model_validate(check.budget)
    verdict = subject_for(spec).judgement.verdict(session, experiment, spec, subjects, budget, check.strict)
    overheads = stored_snapshot(session, check, experiment, subjects, verdict)
    judgements = history_judgements(session, check, experiment, subjects, overheads)
    overall = overall_verdict(verdict.verdict, (judgement.verdict for judgement in judgements or ()))
    return CheckOutcome(verdict, overall, judgements, overheads=overheads)


# -- a check against its branch's history ---------------------------------------------------------


def _gated_metrics(budget: Budget, metrics: dict[str, Any], texts: dict[str, HistoryMetricText]) -> list[str]:
    """The relative metrics the budget's lines name; every relative one the history keeps when
    it names none (a gate on history needs something to gate)."""
    named = [
        metric
        for name, (metric, kind, _) in BUDGET_LINES.items()
        if kind == "relative" and getattr(budget, name) is not None and metric in metrics
    ]
    return list(dict.fromkeys(named)) or [m for m in metrics if texts.get(m) and texts[m].unit == "pct"]


def history_judgements(
    session: Session,
    check: Check,
    experiment: Experiment,
    subjects: SubjectContext,
    overheads: dict[str, Any] | None,
) -> list[HistoryJudgement] | None:
    """The check's verdict against history (its `against_history` gate): each relative metric
    its budget names against the last N earlier points of the gate's branch, for the same
    service and candidate configuration, on the same machine when its fingerprint is known.
    None: no gate, or the check has no snapshot yet."""
    if check.against_history is None or overheads is None:
        return None
    gate = HistoryGate.model_validate(check.against_history)
    budget = Budget.model_validate(check.budget)
    texts = subject_for(parse_spec(experiment.spec)).history_metric_text
    metrics = overheads.get("metrics") or {}
    gated = _gated_metrics(budget, metrics, texts)
    earlier: list[tuple[Check, Experiment, dict[str, Any] | None]] = []
    if check.configuration is not None:
        rows = repo.history_checks(
            session,
            repo.history_service(experiment),
            check.configuration,
            gate.branch,
            gate.points,
            machine=machine_of(experiment),
            before=check.created_at,
        )
        earlier = snapshots(session, [(c, e) for c, e in rows if c.id != check.id], subjects)
    return [_judge(metric, metrics.get(metric), earlier, gate) for metric in gated]


def _judge(
    metric: str,
    current: dict[str, Any] | None,
    earlier: Sequence[tuple[Check, Experiment, dict[str, Any] | None]],
    gate: HistoryGate,
) -> HistoryJudgement:
    """One metric against the earlier checks' points; their unknown points are left out (not 0)."""
    past = [p for _, _, overheads in earlier if (p := point_of(((overheads or {}).get("metrics") or {}).get(metric)))]
    return judge_against_history(
        metric, metric_text(metric), point_of(current), past, gate.max_growth_pct, branch=gate.branch
    )


JUNIT_OUTCOME: dict[str, Literal["pass", "failure", "error", "skipped"]] = {
    "pass": "pass",
    "fail": "failure",
    "inconclusive": "error",
    "no_history": "skipped",
}


class JudgementLike(Protocol):
    """A judgement against history as stored or answered (HistoryJudgement, its API model)."""

    @property
    def metric(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def points(self) -> int: ...


def junit_cases(judgements: Sequence[JudgementLike]) -> list[JunitCase]:
    """One JUnit test case per judgement (classname tracetax.history): a failure for fail, an
    error for inconclusive, skipped for no history yet (a branch's first checks)."""
    return [
        JunitCase(
            classname="tracetax.history",
            name=judgement.metric,
            outcome=JUNIT_OUTCOME[judgement.verdict],
            message=judgement.reason,
            detail=f"against {judgement.points} earlier checks",
        )
        for judgement in judgements
    ]


# -- the Markdown report --------------------------------------------------------------------------

# The span ledger's stages that count spans lost on the way (diagnostics/ledger.py).
LOSS_STAGES = ("sdk_dropped", "collector_refused", "exporter_failed")
# How many recent checks the report's sparklines show.
MARKDOWN_TREND_POINTS = 10


def _span_losses(session: Session, experiment: Experiment, metrics: dict[str, Any]) -> list[LedgerLoss]:
    """The candidate's spans lost per stage over its rounds: a pipeline's own count, or a
    service's span ledger (unknown when a round's stage is)."""
    if "lost_spans" in metrics:
        return [LedgerLoss(stage="pipeline_lost", spans=(metrics["lost_spans"] or {}).get("estimate"))]
    ledgers = [RoundLedger.model_validate(reading.ledger) for reading in repo.ledger_readings(session, experiment.id)]
    spans = [
        signal
        for ledger in ledgers
        if ledger.configuration == "candidate"
        for signal in ledger.signals
        if signal.signal == "spans"
    ]
    if not spans:
        return []
    losses = []
    for stage in LOSS_STAGES:
        values = [signal.value(stage) for signal in spans]
        known = [value for value in values if value is not None]
        missing = len(values) - len(known)
        note = f"unknown in {missing} of {len(values)} rounds" if missing else None
        losses.append(LedgerLoss(stage=stage, spans=None if missing else sum(known), note=note))
    return losses


def _trends(
    session: Session, subjects: SubjectContext, check: Check, experiment: Experiment, metrics: dict[str, Any]
) -> dict[str, list[float | None]]:
    """Each metric's estimates over the branch's latest checks up to this one, oldest first."""
    if check.configuration is None:
        return {}
    branch = (experiment.provenance or {}).get("branch")
    rows = repo.history_checks(
        session,
        repo.history_service(experiment),
        check.configuration,
        branch,
        MARKDOWN_TREND_POINTS,
        before=check.created_at + timedelta(microseconds=1),
    )
    stored = snapshots(session, rows, subjects)
    return {
        metric: [((o or {}).get("metrics") or {}).get(metric, {}).get("estimate") for _, _, o in stored]
        for metric in metrics
        if (text := history_metrics().get(metric)) is not None and text.unit == "pct"
    }


def markdown_report(
    session: Session,
    check: Check,
    experiment: Experiment,
    subjects: SubjectContext,
    outcome: CheckOutcome,
    public_url: str,
) -> str:
    """The finished check as GitHub-flavoured Markdown (history.markdown.check_markdown): its
    verdicts (`check_outcome`'s), losses, Δ$/month at the check's rate, trends and links under
    `public_url`."""
    overheads = outcome.overheads
    metrics = (overheads or {}).get("metrics") or {}
    service = repo.history_service(experiment)
    configuration = check.configuration or "candidate"
    base = public_url.rstrip("/")
    usd = metrics.get("usd_per_month")
    budget = Budget.model_validate(check.budget)
    folded = any(round_.folded_stacks for round_ in experiment.rounds)
    query = {"service": service, "configuration": configuration}
    branch = (experiment.provenance or {}).get("branch")
    report = CheckReport(
        check_id=check.id,
        service=service,
        baseline=check.baseline_configuration or "baseline",
        candidate=configuration,
        verdict=outcome.verdict,
        provenance=experiment.provenance or {},
        machine=machine_of(experiment),
        error=outcome.error,
        history=outcome.history or (),
        losses=_span_losses(session, experiment, metrics) if overheads else (),
        usd_per_month=Interval(estimate=usd["estimate"], low=usd["low"], high=usd["high"]) if usd else None,
        requests_per_s=(budget.cost or CostInputs()).requests_per_s if usd else None,
        trends=_trends(session, subjects, check, experiment, metrics) if overheads else {},
        metric_texts=history_metrics(),
        check_url=f"{base}/checks/{check.id}",
        history_url=f"{base}/history?{urlencode({**query, **({'branch': branch} if branch else {})})}",
        # Checks sample no stacks by default: a diff link only where there are stacks to diff.
        flamegraph_diff_url=(
            f"{base}/api/v1/experiments/{experiment.id}/stacks/candidate/diff?against=baseline&format=folded"
            if folded
            else None
        ),
    )
    return check_markdown(report)
