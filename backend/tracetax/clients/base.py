"""What every backend client shares: one httpx client, readiness with backoff, named errors."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any, ClassVar, Self

import httpx

from tracetax.core.urls import redact_url, redact_urls


class BackendError(RuntimeError):
    """A call to Tempo, Loki or the metrics store failed.

    The message always names the backend and the query, so a failed ledger stage or health
    check says exactly what could not be fetched.
    """

    def __init__(self, backend: str, query: str, cause: str) -> None:
        # Logged and stored (a ledger stage's error): a URL in it never shows its credentials.
        query, cause = redact_urls(query), redact_urls(cause)
        super().__init__(f"{backend}: {query} failed: {cause}")
        self.backend = backend
        self.query = query
        self.cause = cause


class BackendClient:
    """Base for the per-backend clients; subclasses set `backend` and `ready_path`."""

    backend: ClassVar[str]

    def __init__(
        self,
        base_url: str,
        *,
        ready_path: str,
        timeout_s: float = 10.0,
        tenant: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"X-Scope-OrgID": tenant} if tenant else {}
        self.base_url = base_url.rstrip("/")
        self.ready_path = ready_path
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout_s, headers=headers, transport=transport)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def ready(self, timeout_s: float | None = None) -> tuple[bool, str]:
        """One readiness probe: (ready, reason), the reason quoting no credential of a URL. Never raises."""
        try:
            response = await self._http.get(self.ready_path, timeout=timeout_s)
        except httpx.HTTPError as error:
            return False, redact_urls(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
        if response.status_code == 200:
            return True, "ready"
        return False, redact_urls(f"HTTP {response.status_code}: {response.text.strip()[:200]}")

    async def wait_ready(self, timeout_s: float = 60.0, max_delay_s: float = 2.0) -> None:
        """Poll readiness with exponential backoff; raise BackendError naming the backend."""
        deadline = time.monotonic() + timeout_s
        delay = 0.1
        reason = "no answer"
        while True:
            ready, reason = await self.ready()
            if ready:
                return
            if time.monotonic() + delay > deadline:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, max_delay_s)
        raise BackendError(
            self.backend,
            f"readiness {redact_url(self.base_url)}{self.ready_path}",
            f"not ready after {timeout_s:.0f}s ({reason})",
        )

    async def get_json(self, path: str, query: str, params: dict[str, Any] | None = None) -> Any:
        """GET `path` and decode JSON; any failure becomes a BackendError naming `query`."""
        try:
            response = await self._http.get(path, params=params)
        except httpx.HTTPError as error:
            raise BackendError(self.backend, query, f"{type(error).__name__}: {error}") from error
        if response.status_code != 200:
            raise BackendError(self.backend, query, f"HTTP {response.status_code}: {response.text.strip()[:500]}")
        try:
            return response.json()
        except ValueError as error:
            raise BackendError(self.backend, query, f"response is not JSON: {response.text[:200]!r}") from error
