"""Response models of the meta route."""

from __future__ import annotations

from pydantic import BaseModel


class GrafanaLinks(BaseModel):
    url: str
    # Data source names (or uids) for Explore links.
    tempo_datasource: str
    loki_datasource: str
    metrics_datasource: str


class Meta(BaseModel):
    version: str
    # None unless TRACETAX_GRAFANA_URL is set: the UI then shows no Explore links.
    grafana: GrafanaLinks | None
