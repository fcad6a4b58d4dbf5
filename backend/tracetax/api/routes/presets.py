"""The named OpenTelemetry configurations a spec can start from."""

from __future__ import annotations

from fastapi import APIRouter

from tracetax.spec.presets import PRESETS, Preset

router = APIRouter(prefix="/api/v1/presets", tags=["presets"])


@router.get("", response_model=list[Preset])
async def list_presets() -> list[Preset]:
    return list(PRESETS.values())
