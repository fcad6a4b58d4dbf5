"""Traces from Tempo, for sample-trace display."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, status

from tracetax.api.deps import BackendsDep
from tracetax.api.schemas.errors import error_responses
from tracetax.clients.base import BackendError

router = APIRouter(prefix="/api/v1/traces", tags=["traces"])


@router.get("/{trace_id}", responses=error_responses({404: "not in Tempo", 502: "Tempo failed"}))
async def get_trace(
    trace_id: Annotated[str, Path(pattern=r"^[0-9a-fA-F]{1,32}$", description="1-32 hexadecimal digits")],
    backends: BackendsDep,
) -> dict[str, Any]:
    """The whole trace as OTLP JSON, straight from Tempo."""
    try:
        return await backends.tempo.trace(trace_id)
    except BackendError as error:
        code = status.HTTP_404_NOT_FOUND if "HTTP 404" in error.cause else status.HTTP_502_BAD_GATEWAY
        raise HTTPException(code, str(error)) from None
