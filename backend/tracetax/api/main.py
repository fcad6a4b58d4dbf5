"""All API routers, mounted by tracetax.main. Every route but /api/health/live (probes; it
tells nothing) requires the bearer token where the request needs it (tracetax.core.api_token:
always to start or change anything, for reads when TRACETAX_READS_NEED_TOKEN); health.py
guards /api/health itself."""

from fastapi import APIRouter, Depends

from tracetax.api.auth import UNAUTHORIZED, require_token
from tracetax.api.routes import (
    badges,
    calibrations,
    checks,
    costs,
    estimates,
    experiments,
    health,
    history,
    logs,
    meta,
    pipelines,
    presets,
    services,
    traces,
    tunings,
)

api_router = APIRouter()
api_router.include_router(health.router)
for guarded in (
    estimates.router,
    experiments.router,
    services.router,
    pipelines.router,
    presets.router,
    traces.router,
    checks.router,
    costs.router,
    calibrations.router,
    tunings.router,
    history.router,
    badges.router,
    logs.router,
    meta.router,
):
    api_router.include_router(guarded, dependencies=[Depends(require_token)], responses=UNAUTHORIZED)
