"""The metrics store through the Prometheus HTTP API: Prometheus natively, Mimir in
compose and Helm (same API under `/prometheus`, tenant in X-Scope-OrgID)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel

from tracetax.clients.base import BackendClient, BackendError


class Sample(BaseModel):
    labels: dict[str, str]
    timestamp: float
    value: float


class Series(BaseModel):
    labels: dict[str, str]
    # (unix seconds, value)
    points: list[tuple[float, float]]


def _seconds(moment: datetime | float) -> float:
    return moment.timestamp() if isinstance(moment, datetime) else float(moment)


class PrometheusClient(BackendClient):
    backend: ClassVar[str] = "metrics store"

    def __init__(self, base_url: str, *, path_prefix: str = "", ready_path: str = "/-/ready", **kwargs: Any) -> None:
        super().__init__(base_url, ready_path=ready_path, **kwargs)
        self.api = f"{path_prefix.rstrip('/')}/api/v1"

    async def build_info(self) -> dict[str, Any]:
        data: dict[str, Any] = await self._data("/status/buildinfo", "build info", {})
        return data

    async def query(self, promql: str, at: datetime | float | None = None) -> list[Sample]:
        """Instant query; a vector or scalar result comes back as samples."""
        params: dict[str, Any] = {"query": promql}
        if at is not None:
            params["time"] = _seconds(at)
        data = await self._data("/query", f"PromQL query `{promql}`", params)
        result_type = data.get("resultType")
        if result_type == "scalar":
            timestamp, value = data["result"]
            return [Sample(labels={}, timestamp=float(timestamp), value=float(value))]
        if result_type != "vector":
            raise BackendError(self.backend, f"PromQL query `{promql}`", f"expected a vector, got {result_type}")
        return [
            Sample(labels=raw.get("metric", {}), timestamp=float(raw["value"][0]), value=float(raw["value"][1]))
            for raw in data.get("result", [])
        ]

    async def count_samples(self, selector: str, seconds: int, at: datetime | float) -> int:
        """Raw samples of the series matching `selector` in the `seconds` before `at`, counted
        here: count_over_time drops the metric name, so series of several metrics that differ
        only by name would collide."""
        promql = f"{selector}[{seconds}s]"
        data = await self._data("/query", f"PromQL query `{promql}`", {"query": promql, "time": _seconds(at)})
        if data.get("resultType") != "matrix":
            raise BackendError(
                self.backend, f"PromQL query `{promql}`", f"expected a matrix, got {data.get('resultType')}"
            )
        return sum(len(raw.get("values", [])) + len(raw.get("histograms", [])) for raw in data.get("result", []))

    async def query_range(
        self, promql: str, start: datetime | float, end: datetime | float, step_s: float = 15.0
    ) -> list[Series]:
        params = {"query": promql, "start": _seconds(start), "end": _seconds(end), "step": step_s}
        data = await self._data("/query_range", f"PromQL query_range `{promql}`", params)
        return [
            Series(labels=raw.get("metric", {}), points=[(float(t), float(v)) for t, v in raw.get("values", [])])
            for raw in data.get("result", [])
        ]

    async def _data(self, path: str, query: str, params: dict[str, Any]) -> dict[str, Any]:
        payload = await self.get_json(f"{self.api}{path}", query, params)
        if payload.get("status") != "success":
            cause = f"{payload.get('errorType', 'error')}: {payload.get('error', payload)}"
            raise BackendError(self.backend, query, cause)
        data: dict[str, Any] = payload.get("data", {})
        return data
