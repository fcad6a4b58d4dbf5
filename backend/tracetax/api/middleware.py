"""The web door: pure ASGI middlewares that refuse a request before any route sees it.

In the order a request meets them (tracetax.main registers them):

1. `HostGuard`: the Host header must name this backend (400), and a state-changing request
   that carries an Origin must come from a page of one of those names (403). A DNS-rebinding
   page reaches 127.0.0.1 under its own domain name, which is neither.
2. `BodyLimit`: a body over TRACETAX_MAX_REQUEST_BODY_BYTES is 413, by its Content-Length
   before a byte is read, or as soon as its streamed chunks add up to more.
3. `TokenGuard`: the bearer token (401), before the body is read or parsed, so a request
   without it costs nothing and learns nothing from validation errors.
4. `ReadGuard`: the reads that cost the machine (HEAVY_READS: diagnostics, results, checks,
   history, cost, stacks, logs, traces) and the event streams: refused from another site's page
   (403: a GET carries no Origin check otherwise, so any web page could fire them at a
   developer's backend), and bounded in number at once (429 with Retry-After):
   TRACETAX_MAX_HEAVY_READS, TRACETAX_MAX_EVENT_STREAMS.

Each answers with JSON `{"detail": <sentence>}` like the routes do.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tracetax.core.api_token import READ_METHODS, ApiToken
from tracetax.core.security import is_loopback

HOSTS_SETTING = "TRACETAX_ALLOWED_HOSTS"
BODY_SETTING = "TRACETAX_MAX_REQUEST_BODY_BYTES"
# Names every backend answers to: only a browser pointed at this machine itself sends them.
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(authority: str) -> str:
    """The name in a Host header or an Origin's authority, without port, brackets or the
    trailing dot of a fully qualified name, lower-cased."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority[1:]
    if authority.count(":") == 1:
        authority = authority.split(":", 1)[0]
    return authority.rstrip(".")


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """The names this backend answers to: the loopback names, the address it is bound to,
    TRACETAX_ALLOWED_HOSTS (`*.example.com` matches subdomains; `*` anything), and, when it
    listens beyond loopback, any IP literal (Kubernetes probes and pod IPs; a rebinding page
    can only name a domain)."""

    def __init__(self, bound_host: str, configured: Iterable[str]) -> None:
        self.names = set(LOOPBACK_NAMES) | {host_name(bound_host)}
        self.suffixes: list[str] = []
        self.anything = False
        for entry in configured:
            pattern = entry.strip().lower()
            if pattern == "*":
                self.anything = True
            elif pattern.startswith("*."):
                self.suffixes.append(pattern[1:])  # ".example.com"
            elif pattern:
                self.names.add(host_name(pattern))
        self.ip_literals = not is_loopback(bound_host)

    def allows(self, name: str) -> bool:
        if self.anything or name in self.names:
            return True
        if any(name.endswith(suffix) and len(name) > len(suffix) for suffix in self.suffixes):
            return True
        return self.ip_literals and _is_ip_literal(name)


async def _answer(scope: Scope, receive: Receive, send: Send, status: int, detail: str, **headers: str) -> None:
    await JSONResponse({"detail": detail}, status_code=status, headers=headers or None)(scope, receive, send)


class HostGuard:
    def __init__(self, app: ASGIApp, *, allowed: AllowedHosts) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self.allowed.allows(host_name(host)):
            shown = repr(host) if host else "no host"
            await _answer(
                scope,
                receive,
                send,
                400,
                f"This TraceTax does not answer to the host {shown}: open it under one of the names it is bound "
                f"to, or have its operator add the name to {HOSTS_SETTING}",
            )
            return
        origin = headers.get("origin")
        method = scope.get("method", "GET")
        if origin is not None and method.upper() not in READ_METHODS and not self._allowed_origin(origin):
            await _answer(
                scope,
                receive,
                send,
                403,
                f"Requests that start or change anything are refused from pages of other sites (Origin {origin!r}):"
                f" use TraceTax's own UI, or have its operator add that host to {HOSTS_SETTING}",
            )
            return
        await self.app(scope, receive, send)

    def _allowed_origin(self, origin: str) -> bool:
        return allowed_origin(self.allowed, origin)


def allowed_origin(allowed: AllowedHosts, origin: str) -> bool:
    """Whether an Origin header names a page of one of the backend's names."""
    # `null`: a sandboxed frame, a file:// page or a redirect from elsewhere; never ours.
    if origin.strip().lower() == "null":
        return False
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and allowed.allows(host_name(parts.netloc))


class BodyTooLargeError(HTTPException):
    """Raised from `receive` once a streamed body passes the limit: an HTTPException, so
    wherever the body is being read (a route's JSON parsing) it still ends as the 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, body_too_large(limit))


def body_too_large(limit: int, size: int | None = None) -> str:
    what = f"is {size} bytes" if size is not None else "is longer"
    return (
        f"The request body {what}, over this TraceTax's limit of {limit} bytes ({BODY_SETTING}): "
        "send a smaller body, or have its operator raise the limit"
    )


class BodyLimit:
    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                await _answer(scope, receive, send, 400, f"The Content-Length {declared!r} is not a number of bytes")
                return
            if int(declared) > self.limit:
                await _answer(scope, receive, send, 413, body_too_large(self.limit, int(declared)))
                return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLargeError(self.limit)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLargeError as error:
            # Read outside the routes (where no exception handler turned it into the answer).
            if started:
                raise
            await _answer(scope, receive, send, 413, str(error.detail))


class TokenGuard:
    def __init__(self, app: ASGIApp, *, token: ApiToken) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = bearer_token(Headers(scope=scope).get("authorization"))
        refusal = self.token.refusal(scope["method"], scope["path"], presented)
        if refusal is not None:
            await _answer(scope, receive, send, 401, refusal.detail, **{"WWW-Authenticate": refusal.challenge})
            return
        await self.app(scope, receive, send)


def bearer_token(authorization: str | None) -> str | None:
    """The credentials of an `Authorization: Bearer <token>` header, None for any other."""
    scheme, _, credentials = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


HEAVY_READS_SETTING = "TRACETAX_MAX_HEAVY_READS"
EVENT_STREAMS_SETTING = "TRACETAX_MAX_EVENT_STREAMS"
# Reads that compute (a bootstrap, a check's verdict, a flame graph) or ask the stores (logs,
# traces, the ledger), each seconds of a core at worst.
HEAVY_READS = re.compile(
    r"^/api/v1/(?:experiments/[^/]+/(?:diagnostics|results|cost|stacks|logs)(?:/.*)?"
    r"|checks(?:/[^/]+)?|calibrations(?:/[^/]+)?|history(?:/.*)?|traces/[^/]+)/?$"
)
# Badges are meant for other sites' pages (a README): bounded like a heavy read, never refused
# by site.
EMBEDDED_READS = re.compile(r"^/api/v1/badges/.*$")
# Event streams live as long as their experiment runs, holding its events and reloading it.
EVENT_STREAMS = re.compile(r"^/api/v1/experiments/[^/]+/events/?$")
# How long a heavy read waits for a slot before it is refused: a results page asks for a few
# at once, which queue for a moment instead of failing.
HEAVY_READ_WAIT_S = 2.0
HEAVY_READ_RETRY_AFTER_S = 2
EVENT_STREAM_RETRY_AFTER_S = 15


class ReadGuard:
    def __init__(self, app: ASGIApp, *, allowed: AllowedHosts, max_heavy_reads: int, max_event_streams: int) -> None:
        self.app = app
        self.allowed = allowed
        self.max_heavy_reads = max_heavy_reads
        self.max_event_streams = max_event_streams
        self.heavy_reads = asyncio.Semaphore(max_heavy_reads)
        self.event_streams = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope["method"].upper() not in READ_METHODS:
            await self.app(scope, receive, send)
            return
        streams, heavy = bool(EVENT_STREAMS.match(path)), bool(HEAVY_READS.match(path))
        if not (streams or heavy or EMBEDDED_READS.match(path)):
            await self.app(scope, receive, send)
            return
        if (streams or heavy) and (site := self._other_site(Headers(scope=scope))):
            await _answer(
                scope,
                receive,
                send,
                403,
                f"This read is refused from pages of other sites ({site}): open it in TraceTax's own UI, or "
                f"have its operator add that host to {HOSTS_SETTING}",
            )
            return
        if streams:
            await self._stream(scope, receive, send)
        else:
            await self._heavy(scope, receive, send)

    def _other_site(self, headers: Headers) -> str | None:
        """What says the request comes from another site's page, or None."""
        origin = headers.get("origin")
        if origin is not None and not allowed_origin(self.allowed, origin):
            return f"Origin {origin!r}"
        if headers.get("sec-fetch-site", "").strip().lower() == "cross-site":
            return "Sec-Fetch-Site: cross-site"
        return None

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The event loop runs one thing at a time: counting and checking cannot interleave.
        if self.event_streams >= self.max_event_streams:
            await _answer(
                scope,
                receive,
                send,
                429,
                f"{self.event_streams} event streams are open, the most {EVENT_STREAMS_SETTING} allows: close one "
                "(another tab) or try again later",
                **{"Retry-After": str(EVENT_STREAM_RETRY_AFTER_S)},
            )
            return
        self.event_streams += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.event_streams -= 1

    async def _heavy(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await asyncio.wait_for(self.heavy_reads.acquire(), HEAVY_READ_WAIT_S)
        except TimeoutError:
            await _answer(
                scope,
                receive,
                send,
                429,
                f"{self.max_heavy_reads} reads that compute are running, the most {HEAVY_READS_SETTING} allows: "
                "try again in a moment",
                **{"Retry-After": str(HEAVY_READ_RETRY_AFTER_S)},
            )
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.heavy_reads.release()
