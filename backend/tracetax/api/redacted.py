"""Every JSON answer of the API leaves through the one redaction (tracetax.spec.redaction):
the value of a header, env or setting name that carries a credential is answered as "***",
its name kept, whichever route echoes it (an experiment's or a tuning's spec, a calibration's
signature, a recommendation's env, an error). A pure ASGI middleware over the bytes, so the
routes keep FastAPI's fast serialization and an answer without a secret-named key passes after
one scan. A route that may reveal asks for auth.RevealDep, which marks the request
(`?reveal=true` with the token): its answer passes as it is. Streams (the SSE events) and
text answers pass untouched: the events redact their payloads themselves."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tracetax.spec.redaction import redact_json

# The request state's flag: this answer shows its secrets.
REVEAL_STATE = "reveal_secrets"


def reveal_in(request: Request) -> None:
    setattr(request.state, REVEAL_STATE, True)


class RedactSecrets:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The route's request.state writes into this dict (starlette.requests.Request.state).
        state = scope.setdefault("state", {})
        start: Message | None = None
        chunks: list[bytes] = []

        async def redacting_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if MutableHeaders(raw=message["headers"]).get("content-type", "").startswith("application/json"):
                    start = message  # held until the whole body is here
                    return
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = b"".join(chunks)
                redacted = body if state.get(REVEAL_STATE) else redact_json(body)
                if redacted is not body:  # a HEAD's empty body keeps the length its GET has
                    MutableHeaders(raw=start["headers"])["content-length"] = str(len(redacted))
                await send(start)
                await send({"type": "http.response.body", "body": redacted})
                return
            await send(message)

        await self.app(scope, receive, redacting_send)
