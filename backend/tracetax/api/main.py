"""All API routers, mounted by tracetax.main."""

from fastapi import APIRouter

from tracetax.api.routes import (
    calibrations,
    checks,
    costs,
    experiments,
    health,
    logs,
    meta,
    pipelines,
    presets,
    services,
    traces,
)

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(experiments.router)
api_router.include_router(services.router)
api_router.include_router(pipelines.router)
api_router.include_router(presets.router)
api_router.include_router(traces.router)
api_router.include_router(checks.router)
api_router.include_router(costs.router)
api_router.include_router(calibrations.router)
api_router.include_router(logs.router)
api_router.include_router(meta.router)
