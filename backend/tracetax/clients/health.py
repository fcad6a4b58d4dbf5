"""Readiness and version of every component TraceTax depends on, probed live.

Knows nothing of HTTP routing: the health route and the CLI both call `check_components`.
Probes run concurrently with a short timeout, so one dead component answers in about a
second and never delays the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from tracetax import __version__
from tracetax.clients.base import BackendClient, BackendError
from tracetax.clients.readback import COLLECTOR_SERVICE_NAME, RunReadback
from tracetax.core.config import Settings
from tracetax.core.urls import redact_url, redact_urls

# The Collector has no build-info endpoint: its version is read from its own telemetry in the
# metrics store (service.version on target_info), falling back to the pinned build version.
COLLECTOR_PINNED_VERSION = "0.160.0"


class ComponentHealth(BaseModel):
    name: str
    url: str
    ready: bool
    version: str | None = None
    detail: str = ""


class HealthReport(BaseModel):
    status: Literal["ok", "degraded"]
    components: list[ComponentHealth]


class Backends:
    """The clients of one app instance, built from settings and closed together."""

    def __init__(self, settings: Settings) -> None:
        clients = RunReadback.from_settings(settings)
        self.tempo, self.loki, self.metrics = clients.tempo, clients.loki, clients.metrics
        self.probe = httpx.AsyncClient(timeout=settings.health_probe_timeout_s)

    async def aclose(self) -> None:
        await asyncio.gather(self.tempo.aclose(), self.loki.aclose(), self.metrics.aclose(), self.probe.aclose())


async def _backend_health(
    name: str, client: BackendClient, version_of: Callable[[], Awaitable[dict[str, Any]]], timeout_s: float
) -> ComponentHealth:
    ready, reason = await client.ready(timeout_s=timeout_s)
    health = ComponentHealth(name=name, url=redact_url(client.base_url), ready=ready, detail="" if ready else reason)
    if ready:
        try:
            health.version = str((await asyncio.wait_for(version_of(), timeout_s)).get("version") or "") or None
        except (BackendError, TimeoutError) as error:
            health.detail = redact_urls(f"version unknown: {error}")
    return health


async def _collector_ready(backends: Backends, settings: Settings) -> tuple[bool, str]:
    """The Collector's health check: (ready, reason). Never raises."""
    try:
        response = await backends.probe.get(str(settings.collector_health_url))
    except httpx.HTTPError as error:
        return False, redact_urls(f"{type(error).__name__}: {error}".rstrip(": "))
    if response.status_code != 200:
        return False, redact_urls(f"HTTP {response.status_code}: {response.text.strip()[:200]}")
    return True, "ready"


async def _collector_health(backends: Backends, settings: Settings) -> ComponentHealth:
    health = ComponentHealth(name="collector", url=redact_url(str(settings.collector_health_url)), ready=False)
    health.ready, reason = await _collector_ready(backends, settings)
    if not health.ready:
        health.detail = reason
        return health
    health.version = COLLECTOR_PINNED_VERSION
    try:
        samples = await asyncio.wait_for(
            backends.metrics.query(f'max by (service_version) (target_info{{job="{COLLECTOR_SERVICE_NAME}"}})'),
            settings.health_probe_timeout_s,
        )
        reported = {sample.labels.get("service_version") for sample in samples} - {None}
        if reported:
            health.version = sorted(v for v in reported if v)[-1]
    except (BackendError, TimeoutError):
        pass  # the pinned build version stands; readiness is what matters here
    return health


async def check_components(backends: Backends, settings: Settings) -> HealthReport:
    timeout = settings.health_probe_timeout_s
    components = await asyncio.gather(
        _backend_health("tempo", backends.tempo, backends.tempo.build_info, timeout),
        _backend_health("loki", backends.loki, backends.loki.build_info, timeout),
        _backend_health(settings.metrics_store, backends.metrics, backends.metrics.build_info, timeout),
        _collector_health(backends, settings),
    )
    backend = ComponentHealth(
        name="backend", url=f"http://{settings.host}:{settings.port}", ready=True, version=__version__
    )
    everything = [backend, *components]
    status: Literal["ok", "degraded"] = "ok" if all(c.ready for c in everything) else "degraded"
    return HealthReport(status=status, components=everything)


async def stack_down(settings: Settings) -> dict[str, str]:
    """The stack's components that are not ready now, each with the reason; empty when all
    are. Readiness only (no versions), so the engine can probe around every round: the metrics
    store is named `metrics` whichever store it is."""
    backends = Backends(settings)
    timeout = settings.health_probe_timeout_s
    try:
        probes = await asyncio.gather(
            backends.tempo.ready(timeout_s=timeout),
            backends.loki.ready(timeout_s=timeout),
            backends.metrics.ready(timeout_s=timeout),
            _collector_ready(backends, settings),
        )
    finally:
        await backends.aclose()
    names = ("tempo", "loki", "metrics", "collector")
    return {name: reason for name, (ready, reason) in zip(names, probes, strict=True) if not ready}
