"""Response models of the services route."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ModeInfo(BaseModel):
    name: str
    available: bool
    why: str | None = None


class ServiceInfo(BaseModel):
    language: str
    framework: str
    sdk_version: str | None
    modes: list[ModeInfo]
    queue_full: str | None
    dropped_spans_metric: str | None
    profiling_command: str | None
    concurrency: list[str] = Field(
        default_factory=list,
        description="The concurrency knobs the service has (threads, workers, gomaxprocs); every service has `cores`.",
    )
