"""Grafana Tempo: TraceQL search and trace by id."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from tracetax.clients.base import BackendClient


class TraceSummary(BaseModel):
    """One trace of a TraceQL search result."""

    trace_id: str = Field(alias="traceID")
    root_service_name: str | None = Field(default=None, alias="rootServiceName")
    root_trace_name: str | None = Field(default=None, alias="rootTraceName")
    start_time_unix_nano: int = Field(default=0, alias="startTimeUnixNano")
    duration_ms: int | None = Field(default=None, alias="durationMs")
    # Spans that matched the query in this trace, summed over its span sets.
    matched_spans: int = 0

    @field_validator("trace_id")
    @classmethod
    def full_width(cls, trace_id: str) -> str:
        """Tempo's search drops leading zeros (a 31-digit id); trace ids are 32 hex digits,
        which lookups and Grafana links need."""
        return trace_id.rjust(32, "0") if len(trace_id) < 32 else trace_id


def _seconds(moment: datetime | int) -> int:
    return moment if isinstance(moment, int) else int(moment.timestamp())


def spans_in_trace(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten a trace-by-id response (OTLP JSON, `batches` or `resourceSpans`) into spans,
    each carrying its resource attributes under `resource`."""
    spans: list[dict[str, Any]] = []
    body = trace.get("trace", trace)
    for resource_spans in body.get("batches") or body.get("resourceSpans") or []:
        resource = resource_spans.get("resource", {})
        scopes = resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans") or []
        for scope in scopes:
            for span in scope.get("spans", []):
                spans.append({**span, "resource": resource})
    return spans


def attribute_value(attributes: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    """The OTLP JSON value (`{"stringValue": ...}`, `{"intValue": ...}`) of `key`, None when absent."""
    for attribute in attributes:
        if attribute.get("key") == key:
            value: dict[str, Any] = attribute.get("value", {})
            return value
    return None


def resource_string(span: dict[str, Any], key: str) -> str | None:
    """A string resource attribute of a span from spans_in_trace, None when absent."""
    value = attribute_value(span.get("resource", {}).get("attributes", []), key)
    return None if value is None else value.get("stringValue")


class TempoClient(BackendClient):
    backend: ClassVar[str] = "tempo"

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(base_url, ready_path="/ready", **kwargs)

    async def build_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await self.get_json("/api/status/buildinfo", "build info")
        return info

    async def search(
        self,
        traceql: str,
        start: datetime | int,
        end: datetime | int,
        limit: int = 20,
        spans_per_span_set: int = 3,
    ) -> list[TraceSummary]:
        """TraceQL search between `start` and `end` (datetimes or unix seconds)."""
        params = {
            "q": traceql,
            "start": _seconds(start),
            "end": _seconds(end),
            "limit": limit,
            "spss": spans_per_span_set,
        }
        payload = await self.get_json("/api/search", f"TraceQL search `{traceql}`", params)
        summaries = []
        for raw in payload.get("traces") or []:
            summary = TraceSummary.model_validate(raw)
            span_sets = raw.get("spanSets") or ([raw["spanSet"]] if raw.get("spanSet") else [])
            summary.matched_spans = sum(int(span_set.get("matched", 0)) for span_set in span_sets)
            summaries.append(summary)
        return summaries

    async def trace(self, trace_id: str) -> dict[str, Any]:
        """The whole trace as OTLP JSON; BackendError if Tempo does not have it."""
        trace: dict[str, Any] = await self.get_json(f"/api/traces/{trace_id}", f"trace by id {trace_id}")
        return trace
