"""A service configuration's badge: its latest check's overhead on one metric, coloured by that
check's verdict (`GET /api/v1/badges/{service}/{configuration}.svg`)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from tracetax.app.history import metric_text, stored_snapshot
from tracetax.db import repository as repo
from tracetax.history.badge import badge_message
from tracetax.subjects.base import SubjectContext

# -- a badge --------------------------------------------------------------------------------------

BADGE_COLORS = {"pass": "#4c1", "fail": "#e05d44"}
BADGE_GREY = "#9f9f9f"


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    color: str


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
    message = badge_message(value.get("estimate"), value.get("low"), value.get("high"), text.unit)
    return Badge(label=label, message=message, color=BADGE_COLORS.get(str(overheads.get("verdict")), BADGE_GREY))
