"""Health of the backend and of every component it depends on."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Response, status
from pydantic import BaseModel

from tracetax.api.auth import UNAUTHORIZED, require_token
from tracetax.api.deps import BackendsDep, EngineDep, SettingsDep
from tracetax.api.schemas.health import HealthAnswer, StackSupervision
from tracetax.clients.health import check_components
from tracetax.native_stack.watch import read_supervision
from tracetax.system.paths import state_dir

router = APIRouter(prefix="/api/health", tags=["health"])


@router.get(
    "",
    response_model=HealthAnswer,
    responses={503: {"model": HealthAnswer, "description": "at least one component is not ready"}, **UNAUTHORIZED},
    # The component addresses and versions are the deployment's business: behind the token.
    dependencies=[Depends(require_token)],
)
async def health(backends: BackendsDep, settings: SettingsDep, response: Response) -> HealthAnswer:
    """Readiness and version of the backend, Tempo, Loki, the metrics store and the Collector,
    probed now, and in a native stack (`make up`) what its watcher restarted: each component's
    restarts and last exit. 200 when all are ready, 503 (same body) when any is not."""
    report = await check_components(backends, settings)
    if report.status != "ok":
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    supervision = read_supervision(state_dir())
    return HealthAnswer(
        **report.model_dump(), supervision=StackSupervision.of(supervision) if supervision is not None else None
    )


@router.get("/live")
async def live() -> dict[str, str]:
    """Liveness of the backend process alone (for supervisors and Kubernetes probes); open
    even when the API requires a token, as it tells nothing."""
    return {"status": "alive"}


class Readiness(BaseModel):
    status: Literal["ready", "not ready"]
    detail: str = ""


@router.get(
    "/ready",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "the experiment queue's worker has stopped"}},
)
async def ready(engine: EngineDep, response: Response) -> Readiness:
    """Readiness of the backend itself (for supervisors and Kubernetes probes): 503 when the
    experiment queue's worker is no longer running, since experiments submitted then would wait
    `queued` for good; a restart brings it back. Open even when the API requires a token: it
    names nothing. The stack's components are /api/health's business."""
    queue = engine.queue
    if queue.stopping:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
        return Readiness(status="not ready", detail="the backend is stopping")
    if queue.worker_alive is False:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
        return Readiness(
            status="not ready",
            detail="the experiment queue's worker has stopped (see the backend's log); restart the backend",
        )
    return Readiness(status="ready")
