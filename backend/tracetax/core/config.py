"""Backend settings, read from TRACETAX_* environment variables (and a .env file if present).

The defaults match the native stack that `make up` starts on 127.0.0.1; compose and Helm set
the URLs of their own Tempo, Loki and Mimir. Mimir serves the Prometheus API under
`/prometheus` and wants a tenant header: set TRACETAX_METRICS_PATH_PREFIX=/prometheus and
TRACETAX_METRICS_TENANT.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AnyHttpUrl, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from tracetax.core import security
from tracetax.engine.placement import PlacementError, parse_cpus_setting
from tracetax.procfs import available_cpus

# Shorter tokens are guessable enough to matter for an API that starts processes.
MIN_TOKEN_LENGTH = 16


class Settings(BaseSettings):
    # hide_input_in_errors: a validation error would otherwise print the input, the token too.
    model_config = SettingsConfigDict(
        env_prefix="TRACETAX_", env_file=".env", extra="ignore", hide_input_in_errors=True
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)

    # Who may use the API and which commands it may start: see tracetax/core/security.py and
    # README.md ("Security"). When set, every /api route but /api/health/live requires
    # `Authorization: Bearer <token>`.
    api_token: SecretStr | None = None
    # auto: command services (`service: {kind: command}`) only when `host` is a loopback
    # address; on: anywhere (beyond loopback only with an allow-list); off: nowhere.
    command_services: Literal["auto", "on", "off"] = "auto"
    # Executables argv[0] may be, comma-separated: absolute paths or bare names on PATH.
    # Empty: anything, where command services are enabled on loopback.
    command_allowlist: Annotated[list[str], NoDecode] = Field(default_factory=list)

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

    @field_validator("api_token", mode="before")
    @classmethod
    def _token(cls, value: Any) -> Any:
        # An empty TRACETAX_API_TOKEN= (a blank line in an env file) means no token, not "".
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str) and not text.strip():
            return None
        if isinstance(text, str) and len(text.strip()) < MIN_TOKEN_LENGTH:
            raise ValueError(
                f"{security.TOKEN_SETTING} has {len(text.strip())} characters; use at least {MIN_TOKEN_LENGTH} "
                "(e.g. `openssl rand -hex 32`)"
            )
        return text.strip() if isinstance(text, str) else value

    @field_validator("command_allowlist", mode="before")
    @classmethod
    def _allowlist(cls, value: Any) -> Any:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list):
            return value
        # os.path keeps each entry a str as written (Path would turn "./x" into "x").
        entries = [os.path.expanduser(str(item).strip()) for item in items if str(item).strip()]  # noqa: PTH111
        errors = [error for entry in entries if (error := security.allowlist_entry_error(entry))]
        if errors:
            raise ValueError("; ".join(errors))
        return entries

    @model_validator(mode="after")
    def _commands_beyond_loopback(self) -> Self:
        if self.command_services == "on" and not self.command_allowlist and not security.is_loopback(self.host):
            raise ValueError(
                f"{security.SERVICES_SETTING}=on while the backend listens beyond loopback "
                f"(TRACETAX_HOST={self.host}) needs {security.ALLOWLIST_SETTING}: name the executables "
                "command services may start (comma-separated absolute paths or bare names)"
            )
        return self

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
