"""A check's history: the overhead snapshot each finished check keeps (`checks.overheads`), the
series of one service's configuration over its checks with their change points, a service's
summary, and a check's verdict against the last points of a branch.

The snapshot is written once, the first time a check is read after its experiment completed:
the figures its verdict read (relative paired changes, oriented so that positive is worse, and
the candidate's own volume and cost), each with its 95% interval, None where unknown (never 0).
Which figures is the subject's (`Subject.history_metrics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.diagnostics.checks import BUDGET_LINES, Budget, JunitCase, Verdict
from tracetax.diagnostics.cost import CostInputs
from tracetax.diagnostics.ledger import RoundLedger
from tracetax.diagnostics.overhead import Interval
from tracetax.history.changepoints import ChangePoint, SeriesPoint, change_points
from tracetax.history.gate import HistoryJudgement, judge_against_history
from tracetax.history.markdown import CheckReport, LedgerLoss, check_markdown
from tracetax.history.metrics import HISTORY_METRICS, metric_text
from tracetax.spec.provenance import HistoryGate
from tracetax.spec.service import parse_spec
from tracetax.subjects.base import HistoryMetricText, SubjectContext
from tracetax.subjects.registry import subject_for

DEFAULT_LIMIT = 100
# How many recent estimates a service's summary shows as each configuration's trend.
TREND_POINTS = 20


class NoHistoryError(LookupError):
    """No completed check of that service (or configuration); the message names the field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


# -- the snapshot ---------------------------------------------------------------------------------


def snapshot(
    session: Session,
    check: Check,
    experiment: Experiment,
    subjects: SubjectContext,
    verdict: Verdict | None = None,
) -> dict[str, Any] | None:
    """The check's overheads as `checks.overheads` keeps them (see the module's docstring);
    None until its experiment has completed. `verdict`: the check's, when already judged."""
    if experiment.status != "completed":
        return None
    spec = parse_spec(experiment.spec)
    subject = subject_for(spec)
    budget = Budget.model_validate(check.budget)
    if verdict is None:
        verdict = subject.verdict(session, experiment, spec, subjects, budget, check.strict)
    metrics = subject.history_metrics(session, experiment, spec, subjects, budget)
    return {"verdict": verdict.verdict, "metrics": {name: metric.model_dump() for name, metric in metrics.items()}}


def stored_snapshot(
    session: Session,
    check: Check,
    experiment: Experiment,
    subjects: SubjectContext,
    verdict: Verdict | None = None,
) -> dict[str, Any] | None:
    """The check's stored snapshot, computed and stored first if its experiment has completed
    since it was last read; None before."""
    if check.overheads is not None:
        return check.overheads
    overheads = snapshot(session, check, experiment, subjects, verdict)
    if overheads is None:
        return None
    stored = repo.save_check_overheads(session, check.id, overheads)
    check.overheads = stored
    return stored


def machine_of(experiment: Experiment) -> str | None:
    """The machine fingerprint the experiment ran on, when recorded."""
    machine = (experiment.environment or {}).get("machine") or {}
    fingerprint = machine.get("fingerprint") if isinstance(machine, dict) else None
    return str(fingerprint) if fingerprint else None


def _point_of(metric: dict[str, Any] | None) -> SeriesPoint | None:
    if metric is None or metric.get("estimate") is None:
        return None
    return SeriesPoint(estimate=float(metric["estimate"]), low=metric.get("low"), high=metric.get("high"))


# -- a series -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryPoint:
    check_id: str
    experiment_id: str
    created_at: datetime
    commit: str | None
    branch: str | None
    pull_request: str | None
    ci_run_url: str | None
    repository: str | None
    machine: str | None
    verdict: str | None
    estimate: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class HistoryChangePoint:
    index: int
    check_id: str
    commit: str | None
    before: float
    after: float
    shift: float
    low: float
    high: float


@dataclass
class HistorySeries:
    service: str
    configuration: str
    metric: str
    unit: str
    branch: str | None
    machine: str | None
    budget: float | None
    points: list[HistoryPoint]
    change_points: list[HistoryChangePoint]
    note: str | None = None


def _history_point(check: Check, experiment: Experiment, overheads: dict[str, Any] | None, metric: str) -> HistoryPoint:
    provenance = experiment.provenance or {}
    value = ((overheads or {}).get("metrics") or {}).get(metric) or {}
    return HistoryPoint(
        check_id=check.id,
        experiment_id=experiment.id,
        created_at=check.created_at,
        commit=provenance.get("commit"),
        branch=provenance.get("branch"),
        pull_request=provenance.get("pull_request"),
        ci_run_url=provenance.get("ci_run_url"),
        repository=provenance.get("repository"),
        machine=machine_of(experiment),
        verdict=(overheads or {}).get("verdict"),
        estimate=value.get("estimate"),
        low=value.get("low"),
        high=value.get("high"),
    )


def _snapshots(
    session: Session, rows: Sequence[tuple[Check, Experiment]], subjects: SubjectContext
) -> list[tuple[Check, Experiment, dict[str, Any] | None]]:
    return [(check, experiment, stored_snapshot(session, check, experiment, subjects)) for check, experiment in rows]


def _change_points(points: Sequence[HistoryPoint]) -> list[HistoryChangePoint]:
    """Change points of the points with an estimate (unknown ones are left out, not read as 0),
    each named by the first point after it in the whole series."""
    measured = [
        (index, point, SeriesPoint(estimate=point.estimate, low=point.low, high=point.high))
        for index, point in enumerate(points)
        if point.estimate is not None
    ]
    series = [value for _, _, value in measured]
    found: list[ChangePoint] = change_points(series) if len(series) >= 2 else []
    result = []
    for change in found:
        index, point, _ = measured[change.index]
        result.append(
            HistoryChangePoint(
                index=index,
                check_id=point.check_id,
                commit=point.commit,
                before=change.before,
                after=change.after,
                shift=change.shift,
                low=change.low,
                high=change.high,
            )
        )
    return result


def _budget_of(check: Check, text: HistoryMetricText) -> float | None:
    value = check.budget.get(text.budget_field) if text.budget_field else None
    return None if value is None else float(value)


def history_series(
    session: Session,
    subjects: SubjectContext,
    service: str,
    configuration: str,
    metric: str,
    branch: str | None = None,
    machine: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> HistorySeries:
    """The newest `limit` checks of the service's configuration as one metric's series, oldest
    first, with its change points and the latest check's budget line for that metric."""
    text = metric_text(metric)
    rows = repo.history_checks(session, service, configuration, branch, limit, machine=machine)
    if not rows:
        _raise_no_history(session, service, configuration, branch, machine)
    stored = _snapshots(session, rows, subjects)
    points = [_history_point(check, experiment, overheads, metric) for check, experiment, overheads in stored]
    unknown = sum(point.estimate is None for point in points)
    note = (
        f"{unknown} of {len(points)} checks have no {text.label} (not measured); left out of the change points"
        if unknown
        else None
    )
    return HistorySeries(
        service=service,
        configuration=configuration,
        metric=metric,
        unit=text.unit,
        branch=branch,
        machine=machine,
        budget=_budget_of(rows[-1][0], text),
        points=points,
        change_points=_change_points(points),
        note=note,
    )


def _raise_no_history(
    session: Session, service: str, configuration: str | None, branch: str | None, machine: str | None
) -> None:
    if not repo.history_checks(session, service, None, None, 1):
        raise NoHistoryError("service", f"no completed check of service {service!r}")
    if configuration is not None and not repo.history_checks(session, service, configuration, None, 1):
        known = ", ".join(repo.history_configurations(session, service)) or "none"
        raise NoHistoryError(
            "configuration",
            f"no completed check of configuration {configuration!r} of service {service!r}; "
            f"its configurations: {known}",
        )
    if branch is not None and not repo.history_checks(session, service, configuration, branch, 1):
        raise NoHistoryError("branch", f"no completed check of {service!r} {configuration or ''} on branch {branch!r}")
    raise NoHistoryError("machine", f"no completed check of {service!r} on machine {machine!r}")


# -- a service's summary --------------------------------------------------------------------------


@dataclass
class ConfigurationHistory:
    configuration: str
    checks: int
    latest: dict[str, HistoryPoint] = field(default_factory=dict)
    trend: dict[str, list[float | None]] = field(default_factory=dict)
    change_points: dict[str, int] = field(default_factory=dict)


@dataclass
class ServiceHistory:
    service: str
    configurations: list[ConfigurationHistory]


def service_history(
    session: Session, subjects: SubjectContext, service: str, branch: str | None = None, points: int = TREND_POINTS
) -> ServiceHistory:
    """Each configuration's latest overhead per metric, its recent trend and its change points."""
    configurations = repo.history_configurations(session, service)
    if not configurations:
        raise NoHistoryError("service", f"no check of service {service!r}")
    summaries = []
    for configuration in configurations:
        rows = repo.history_checks(session, service, configuration, branch, points)
        if not rows:
            continue
        stored = _snapshots(session, rows, subjects)
        summary = ConfigurationHistory(configuration=configuration, checks=len(rows))
        names = {name for _, _, overheads in stored for name in ((overheads or {}).get("metrics") or {})}
        for metric in [name for name in HISTORY_METRICS if name in names]:
            series = [_history_point(check, experiment, overheads, metric) for check, experiment, overheads in stored]
            summary.latest[metric] = series[-1]
            summary.trend[metric] = [point.estimate for point in series]
            summary.change_points[metric] = len(_change_points(series))
        summaries.append(summary)
    return ServiceHistory(service=service, configurations=summaries)


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
        earlier = _snapshots(session, [(c, e) for c, e in rows if c.id != check.id], subjects)
    return [_judge(metric, metrics.get(metric), earlier, gate) for metric in gated]


def _judge(
    metric: str,
    current: dict[str, Any] | None,
    earlier: Sequence[tuple[Check, Experiment, dict[str, Any] | None]],
    gate: HistoryGate,
) -> HistoryJudgement:
    """One metric against the earlier checks' points; their unknown points are left out (not 0)."""
    past = [p for _, _, overheads in earlier if (p := _point_of(((overheads or {}).get("metrics") or {}).get(metric)))]
    return judge_against_history(metric, _point_of(current), past, gate.max_growth_pct, branch=gate.branch)


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


# -- a badge --------------------------------------------------------------------------------------

BADGE_COLORS = {"pass": "#4c1", "fail": "#e05d44"}
BADGE_GREY = "#9f9f9f"


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    color: str


def _shown(value: float, unit: str, signed: bool) -> str:
    sign = "+" if signed and value > 0 else ""
    if unit == "pct":
        return f"{sign}{value:.1f}%"
    if unit == "usd":
        return f"{sign}${value:,.2f}" if value >= 0 else f"-${-value:,.2f}"
    suffix = " B" if unit == "bytes" else " spans"
    return f"{sign}{value:,.0f}{suffix}"


def overhead_text(estimate: float | None, low: float | None, high: float | None, unit: str) -> str:
    """ "+3.1% ±2.0": the estimate and its interval's half-width; "unknown" when not measured."""
    if estimate is None:
        return "unknown"
    relative = unit in ("pct", "usd")
    text = _shown(estimate, unit, signed=relative)
    if low is None or high is None or high <= low:
        return text
    half = (high - low) / 2
    spread = f"{half:.1f}" if unit == "pct" else f"${half:,.2f}" if unit == "usd" else f"{half:,.0f}"
    return f"{text} ±{spread}"


def badge(
    session: Session,
    subjects: SubjectContext,
    service: str,
    configuration: str,
    metric: str,
    branch: str | None = None,
) -> Badge:
    """The latest check's overhead on `metric`, coloured by its verdict (green pass, red fail,
    grey error or no check yet)."""
    text = metric_text(metric)
    label = f"{configuration} {text.label}"
    rows = repo.history_checks(session, service, configuration, branch, 1)
    if not rows:
        return Badge(label=label, message="no checks", color=BADGE_GREY)
    check, experiment = rows[-1]
    overheads = stored_snapshot(session, check, experiment, subjects) or {}
    value = (overheads.get("metrics") or {}).get(metric) or {}
    message = overhead_text(value.get("estimate"), value.get("low"), value.get("high"), text.unit)
    return Badge(label=label, message=message, color=BADGE_COLORS.get(str(overheads.get("verdict")), BADGE_GREY))


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
    stored = _snapshots(session, rows, subjects)
    return {
        metric: [((o or {}).get("metrics") or {}).get(metric, {}).get("estimate") for _, _, o in stored]
        for metric in metrics
        if metric in HISTORY_METRICS and HISTORY_METRICS[metric].unit == "pct"
    }


def markdown_report(
    session: Session,
    check: Check,
    experiment: Experiment,
    subjects: SubjectContext,
    verdict: Verdict | None,
    error: str | None,
    public_url: str,
) -> str:
    """The finished check as GitHub-flavoured Markdown (history.markdown.check_markdown): its
    verdicts, losses, Δ$/month at the check's rate, trends and links under `public_url`."""
    overheads = stored_snapshot(session, check, experiment, subjects, verdict)
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
        verdict=verdict,
        provenance=experiment.provenance or {},
        machine=machine_of(experiment),
        error=error,
        history=history_judgements(session, check, experiment, subjects, overheads) or (),
        losses=_span_losses(session, experiment, metrics) if overheads else (),
        usd_per_month=Interval(estimate=usd["estimate"], low=usd["low"], high=usd["high"]) if usd else None,
        requests_per_s=(budget.cost or CostInputs()).requests_per_s if usd else None,
        trends=_trends(session, subjects, check, experiment, metrics) if overheads else {},
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
