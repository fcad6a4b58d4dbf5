"""An SVG badge per service and configuration: the latest check's overhead, coloured by its
verdict, for a README or a dashboard. A GET like the others: it needs the token only where
reads do (TRACETAX_READS_NEED_TOKEN)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from tracetax.api.deps import EngineDep
from tracetax.api.routes.history import METRIC_HELP, NAME, history_errors
from tracetax.app import badges
from tracetax.history.badge import badge_svg

router = APIRouter(prefix="/api/v1/badges", tags=["history"])


@router.get(
    "/{service}/{configuration}.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "A shields-style flat badge."}},
)
def get_badge(
    service: str,
    configuration: str,
    engine: EngineDep,
    metric: Annotated[str, Query(description=METRIC_HELP, max_length=64)] = "cpu_per_request_us",
    branch: Annotated[str | None, Query(description="The latest check of this branch.", **NAME)] = None,
) -> Response:
    """ "<configuration> <metric>": the latest check's overhead ("+3.1% ±2.0", "unknown" when not
    measured, "no checks" before the first), green when that check passed, red when it failed,
    grey otherwise. Never cached: it changes with every check."""
    with history_errors(), engine.sessions() as session:
        shown = badges.badge(session, engine.subjects, service, configuration, metric, branch)
    return Response(
        badge_svg(shown.label, shown.message, shown.color),
        media_type="image/svg+xml",
        headers={"Cache-Control": "no-cache"},
    )
