"""Backend settings, read from TRACETAX_* environment variables (and a .env file if present).

The defaults match the native stack that `make up` starts on 127.0.0.1; compose and Helm set
the URLs of their own Tempo, Loki and Mimir. Mimir serves the Prometheus API under
`/prometheus` and wants a tenant header: set TRACETAX_METRICS_PATH_PREFIX=/prometheus and
TRACETAX_METRICS_TENANT.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AnyHttpUrl, Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from tracetax.engine.placement import PlacementError, parse_cpus_setting
from tracetax.procfs import available_cpus


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRACETAX_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)

    tempo_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:3200")
    loki_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:3100")
    metrics_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:9090")
    # "" for Prometheus; "/prometheus" for Mimir.
    metrics_path_prefix: str = ""
    # Readiness path relative to metrics_url: Prometheus "/-/ready", Mimir "/ready".
    metrics_ready_path: str = "/-/ready"
    # Sent as X-Scope-OrgID when set (Mimir, multi-tenant Loki/Tempo).
    metrics_tenant: str | None = None
    # Which product stands behind metrics_url, for /api/health ("prometheus" or "mimir").
    metrics_store: str = "prometheus"
    collector_health_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:13133/")
    # Where instrumented services send OTLP (the Collector's receiver).
    collector_otlp_grpc_endpoint: str = "127.0.0.1:4317"
    collector_otlp_http_endpoint: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:4318")

    # Timeouts for calls to the backends, in seconds.
    backend_timeout_s: float = Field(default=10.0, gt=0)
    # The span ledger reads Tempo this long after a run's last round ended at the earliest:
    # Tempo's search finds a trace only once the ingester has cut it from its live traces
    # (trace_idle_period, 5 s in stack/tempo.yaml, plus its flush check). Read sooner, a
    # closed-loop phase's last seconds were missing (7,680 of 75,460 spans found).
    ledger_settle_s: float = Field(default=10.0, ge=0)
    health_probe_timeout_s: float = Field(default=1.5, gt=0)

    # Experiments, rounds and results. Default: SQLite in the state directory; any SQLAlchemy
    # URL works (postgresql+psycopg://... in Helm).
    database_url: str | None = None
    # Scratch space of running experiments (service logs, load generator output).
    work_dir: Path | None = None
    # CPU lists ("3", "2-3", "0,2") overriding where the measured service and the load
    # generator are pinned; the stack takes the cores left. Default: the layout rule in
    # tracetax/engine/placement.py (docs/engine.md). `make up` reads them from the environment.
    service_cpus: str | None = None
    loadgen_cpus: str | None = None

    # The built UI (frontend/dist); served at / when it exists.
    frontend_dist: Path = Path(__file__).resolve().parents[3] / "frontend" / "dist"
    # Grafana to link to (Explore) from the results, and the names of its data sources there.
    grafana_url: AnyHttpUrl | None = None
    grafana_tempo_datasource: str = "tempo"
    grafana_loki_datasource: str = "loki"
    grafana_metrics_datasource: str = "prometheus"

    @field_validator("service_cpus", "loadgen_cpus")
    @classmethod
    def _cpu_list(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None or not value.strip():
            return None
        variable = f"TRACETAX_{(info.field_name or '').upper()}"
        try:
            parse_cpus_setting(variable, value, available_cpus())
        except PlacementError as error:
            raise ValueError(str(error)) from None
        return value.strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()


def resolved_database_url(settings: Settings) -> str:
    if settings.database_url:
        return settings.database_url
    from tracetax.stack.components import state_dir

    return f"sqlite:///{state_dir() / 'tracetax.db'}"


def resolved_work_dir(settings: Settings) -> Path:
    if settings.work_dir:
        return settings.work_dir
    from tracetax.stack.components import state_dir

    return state_dir() / "experiments"
