"""Every JSON answer of the API leaves through the one redaction (tracetax.spec.redaction):
the value of a header, env or setting name that carries a credential is answered as "***",
its name kept, whichever route echoes it (an experiment's or a tuning's spec, a calibration's
signature, a recommendation's env, an error's input). `create_app` makes RedactedJSONResponse
every route's default; a route that may reveal (`?reveal=true` with the token, auth.RevealDep)
answers `revealed(...)` instead."""

from __future__ import annotations

from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from tracetax.spec.redaction import redact


class RedactedJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return super().render(redact(content))


def revealed(answer: Any) -> JSONResponse:
    """The answer as stored, secrets included: only for a token holder who asked."""
    return JSONResponse(jsonable_encoder(answer))
