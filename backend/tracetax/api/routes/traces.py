"""Traces from Tempo, for sample-trace display."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, HTTPException, status

from tracetax.api.deps import BackendsDep
from tracetax.clients.base import BackendError

router = APIRouter(prefix="/api/v1/traces", tags=["traces"])
TRACE_ID = re.compile(r"^[0-9a-fA-F]{1,32}$")


@router.get("/{trace_id}", responses={404: {"description": "not in Tempo"}, 502: {"description": "Tempo failed"}})
async def get_trace(trace_id: str, backends: BackendsDep) -> dict[str, Any]:
    """The whole trace as OTLP JSON, straight from Tempo."""
    if not TRACE_ID.match(trace_id):
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, "trace_id must be 1-32 hexadecimal digits")
    try:
        return await backends.tempo.trace(trace_id)
    except BackendError as error:
        code = status.HTTP_404_NOT_FOUND if "HTTP 404" in error.cause else status.HTTP_502_BAD_GATEWAY
        raise HTTPException(code, str(error)) from None
