"""Grafana Loki: LogQL queries (instant and query_range)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from tracetax.clients.base import BackendClient, BackendError


class LogEntry(BaseModel):
    timestamp_ns: int
    line: str
    # Structured metadata and parsed labels Loki returned with the line (categorized labels).
    metadata: dict[str, str] = {}


class LogStream(BaseModel):
    labels: dict[str, str]
    entries: list[LogEntry]


class MetricSample(BaseModel):
    labels: dict[str, str]
    value: float


def _nanoseconds(moment: datetime | int) -> int:
    return moment if isinstance(moment, int) else int(moment.timestamp() * 1_000_000_000)


def _entry(raw: list[Any]) -> LogEntry:
    metadata: dict[str, str] = {}
    if len(raw) > 2 and isinstance(raw[2], dict):
        for group in ("structuredMetadata", "parsed"):
            metadata.update(raw[2].get(group) or {})
    return LogEntry(timestamp_ns=int(raw[0]), line=raw[1], metadata=metadata)


class LokiClient(BackendClient):
    backend: ClassVar[str] = "loki"

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, ready_path="/ready", **kwargs)

    async def build_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await self.get_json("/loki/api/v1/status/buildinfo", "build info")
        return info

    async def query_range(
        self,
        logql: str,
        start: datetime | int,
        end: datetime | int,
        limit: int = 100,
        direction: Literal["forward", "backward"] = "backward",
    ) -> list[LogStream]:
        """Log lines of a LogQL log query between `start` and `end` (datetimes or unix ns)."""
        params = {
            "query": logql,
            "start": _nanoseconds(start),
            "end": _nanoseconds(end),
            "limit": limit,
            "direction": direction,
        }
        data = await self._data("/loki/api/v1/query_range", f"LogQL query_range `{logql}`", params)
        if data.get("resultType") != "streams":
            raise BackendError(
                self.backend, f"LogQL query_range `{logql}`", "not a log query (use `query` for metrics)"
            )
        return [
            LogStream(labels=raw.get("stream", {}), entries=[_entry(value) for value in raw.get("values", [])])
            for raw in data.get("result", [])
        ]

    async def query(self, logql: str, at: datetime | int) -> list[MetricSample]:
        """Instant LogQL metric query, e.g. `sum(count_over_time({...}[1h]))`."""
        params = {"query": logql, "time": _nanoseconds(at)}
        data = await self._data("/loki/api/v1/query", f"LogQL query `{logql}`", params)
        if data.get("resultType") != "vector":
            raise BackendError(
                self.backend, f"LogQL query `{logql}`", f"expected a vector, got {data.get('resultType')}"
            )
        return [
            MetricSample(labels=raw.get("metric", {}), value=float(raw["value"][1])) for raw in data.get("result", [])
        ]

    async def _data(self, path: str, query: str, params: dict[str, Any]) -> dict[str, Any]:
        payload = await self.get_json(path, query, params)
        if payload.get("status") != "success":
            raise BackendError(self.backend, query, f"status {payload.get('status')}: {payload}")
        data: dict[str, Any] = payload.get("data", {})
        return data
