"""What can be measured: the demo services and their OpenTelemetry modes."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from tracetax.api.deps import EngineDep

router = APIRouter(prefix="/api/v1/services", tags=["services"])


class ModeInfo(BaseModel):
    name: str
    available: bool
    why: str | None = None


class ServiceInfo(BaseModel):
    language: str
    framework: str
    sdk_version: str | None
    modes: list[ModeInfo]
    queue_full: str | None
    dropped_spans_metric: str | None
    profiling_command: str | None


@router.get("", response_model=list[ServiceInfo])
async def list_services(engine: EngineDep) -> list[ServiceInfo]:
    return [
        ServiceInfo(
            language=manifest.language,
            framework=manifest.framework,
            sdk_version=manifest.sdk_version,
            modes=[
                ModeInfo(name=name, available=spec.available, why=spec.why) for name, spec in manifest.modes.items()
            ],
            queue_full=manifest.queue_full,
            dropped_spans_metric=manifest.dropped_spans_metric,
            profiling_command=manifest.profiling.command if manifest.profiling else None,
        )
        for manifest in engine.engine.services.values()
    ]
