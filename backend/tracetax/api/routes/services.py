"""What can be measured: the demo services and their OpenTelemetry modes."""

from __future__ import annotations

from fastapi import APIRouter

from tracetax.api.deps import EngineDep
from tracetax.api.schemas.services import ModeInfo, ServiceInfo

router = APIRouter(prefix="/api/v1/services", tags=["services"])


@router.get("", response_model=list[ServiceInfo])
def list_services(engine: EngineDep) -> list[ServiceInfo]:
    """Every demo service and its modes, read from the manifests on disk (a threadpool route)."""
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
            concurrency=sorted(manifest.concurrency),
            profiling_command=manifest.profiling.command if manifest.profiling else None,
        )
        for manifest in engine.subjects.services.values()
    ]
