"""What the UI needs to know about this deployment: the version and where Grafana is."""

from __future__ import annotations

from fastapi import APIRouter

from tracetax import __version__
from tracetax.api.deps import SettingsDep
from tracetax.api.schemas.meta import GrafanaLinks, Meta

router = APIRouter(prefix="/api/v1/meta", tags=["meta"])


@router.get("", response_model=Meta)
async def get_meta(settings: SettingsDep) -> Meta:
    grafana = None
    if settings.grafana_url is not None:
        grafana = GrafanaLinks(
            url=str(settings.grafana_url).rstrip("/"),
            tempo_datasource=settings.grafana_tempo_datasource,
            loki_datasource=settings.grafana_loki_datasource,
            metrics_datasource=settings.grafana_metrics_datasource,
        )
    return Meta(version=__version__, grafana=grafana)
