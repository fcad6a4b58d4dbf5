"""The API's 422 answer, safe for any input: FastAPI's own, except that numbers JSON cannot
carry (NaN, Infinity, which Python's JSON parser accepts in a request) are echoed as text,
instead of failing the answer itself with a 500, and the input it echoes has its secrets
redacted like every other answer (tracetax.spec.redaction)."""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from tracetax.spec.redaction import redact, redact_at


def json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


async def validation_error(request: Request, error: Exception) -> Response:
    errors = list(error.errors()) if isinstance(error, RequestValidationError) else []
    errors = [{**e, "input": redact_at(e.get("loc", ()), e["input"])} if "input" in e else e for e in errors]
    safe = RequestValidationError(json_safe(errors), body=redact(json_safe(getattr(error, "body", None))))
    return await request_validation_exception_handler(request, safe)
