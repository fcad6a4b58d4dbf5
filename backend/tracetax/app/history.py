"""A check's history: the overhead snapshot each finished check keeps (`checks.overheads`), the
series of one service's configuration over its checks with their change points, and a service's
summary (a check read against them: check_history.py; its badge: badges.py).

The snapshot is written once, the first time a check is read after its experiment completed:
the figures its verdict read (relative paired changes, oriented so that positive is worse, and
the candidate's own volume and cost), each with its 95% interval, None where unknown (never 0).
Which figures is the subject's (`Subject.history_metrics`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from types import MappingProxyType
from typing import Any

from sqlalchemy.orm import Session

from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.diagnostics.checks import Budget, Verdict
from tracetax.history.changepoints import ChangePoint, SeriesPoint, change_points
from tracetax.history.metrics import HistoryMetricText, HistoryUnit, is_material, shift_size_pct
from tracetax.subjects.base import Subject, SubjectContext
from tracetax.subjects.registry import SUBJECTS, subject_for
from tracetax.subjects.union import parse_spec

DEFAULT_LIMIT = 100
# How many recent estimates a service's summary shows as each configuration's trend.
TREND_POINTS = 20


def history_metrics() -> Mapping[str, HistoryMetricText]:
    """Every metric a history keeps, whichever subject keeps it: each subject names its own (a
    service's latency, CPU, bytes and $/month; a pipeline's cores, RSS and lost spans), and this
    reads them from the subjects registered now, in their order. Handed down to history/, which
    knows no subject. Built the first time it is asked for, and again when the registry changes."""
    return _merged(tuple(SUBJECTS.values()))


@cache
def _merged(subjects: tuple[Subject[Any, Any], ...]) -> Mapping[str, HistoryMetricText]:
    """The subjects' metrics as one map; a name two subjects give different texts is refused,
    since a history metric means one thing whichever subject keeps it."""
    merged: dict[str, HistoryMetricText] = {}
    for subject in subjects:
        for name, text in subject.history_metric_text.items():
            if merged.setdefault(name, text) != text:
                raise ValueError(f"history metric {name!r} means two things: {merged[name]} and {text}")
    return MappingProxyType(merged)


class UnknownMetricError(ValueError):
    """A metric no subject's history keeps; the message names the allowed ones."""

    def __init__(self, metric: str) -> None:
        super().__init__(f"unknown metric {metric!r}; use one of: {', '.join(history_metrics())}")


def metric_text(metric: str) -> HistoryMetricText:
    """The metric's label and unit; a name outside every subject's history is an error listing them."""
    text = history_metrics().get(metric)
    if text is None:
        raise UnknownMetricError(metric)
    return text


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
        verdict = subject.judgement.verdict(session, experiment, spec, subjects, budget, check.strict)
    metrics = subject.judgement.history_metrics(session, experiment, spec, subjects, budget)
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


def point_of(metric: dict[str, Any] | None) -> SeriesPoint | None:
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
    # The shift's relative size (history.metrics.shift_size_pct) and whether it reaches the
    # series' threshold: a significant shift below it is real but too small to matter.
    size_pct: float | None = None
    material: bool = True


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
    # The relative size below which a change point is listed as too small to matter.
    material_pct: float = 1.0


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


def snapshots(
    session: Session, rows: Sequence[tuple[Check, Experiment]], subjects: SubjectContext
) -> list[tuple[Check, Experiment, dict[str, Any] | None]]:
    return [(check, experiment, stored_snapshot(session, check, experiment, subjects)) for check, experiment in rows]


def _change_points(points: Sequence[HistoryPoint], unit: HistoryUnit, material_pct: float) -> list[HistoryChangePoint]:
    """Change points of the points with an estimate (unknown ones are left out, not read as 0),
    each named by the first point after it in the whole series, and sized against the
    threshold that makes one worth acting on."""
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
        size = shift_size_pct(change.before, change.shift, unit)
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
                size_pct=size,
                material=is_material(size, material_pct),
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
    material_pct: float | None = None,
) -> HistorySeries:
    """The newest `limit` checks of the service's configuration as one metric's series, oldest
    first, with its change points (each sized against `material_pct`, the metric's own
    default when None) and the latest check's budget line for that metric."""
    text = metric_text(metric)
    threshold = text.material_pct if material_pct is None else material_pct
    rows = repo.history_checks(session, service, configuration, branch, limit, machine=machine)
    if not rows:
        _raise_no_history(session, service, configuration, branch, machine)
    stored = snapshots(session, rows, subjects)
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
        change_points=_change_points(points, text.unit, threshold),
        note=note,
        material_pct=threshold,
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
        stored = snapshots(session, rows, subjects)
        summary = ConfigurationHistory(configuration=configuration, checks=len(rows))
        names = {name for _, _, overheads in stored for name in ((overheads or {}).get("metrics") or {})}
        metrics = history_metrics()
        for metric in [name for name in metrics if name in names]:
            series = [_history_point(check, experiment, overheads, metric) for check, experiment, overheads in stored]
            summary.latest[metric] = series[-1]
            summary.trend[metric] = [point.estimate for point in series]
            text = metrics[metric]
            found = _change_points(series, text.unit, text.material_pct)
            # Only shifts worth acting on count: a real but tiny one is no news in a summary.
            summary.change_points[metric] = sum(change.material for change in found)
        summaries.append(summary)
    return ServiceHistory(service=service, configurations=summaries)
