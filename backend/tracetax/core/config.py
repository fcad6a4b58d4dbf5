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
from tracetax.system.paths import state_dir
from tracetax.system.placement import PlacementError, parse_cpus_setting
from tracetax.system.procfs import available_cpus

# Shorter tokens are guessable enough to matter for an API that starts processes.
MIN_TOKEN_LENGTH = 16


def _comma_list(value: Any) -> list[str] | None:
    """A list setting as written: a comma-separated string or a list, its entries stripped and
    the empty ones dropped; None for anything else (left to the field's own validation)."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list):
        return None
    return [str(item).strip() for item in items if str(item).strip()]


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

    # Which Host names the backend answers (beside the names it is bound to: 127.0.0.1,
    # localhost and ::1 on loopback), comma-separated; `*.example.com` matches subdomains. A
    # request naming any other host is refused before routing: a DNS-rebinding page names its
    # own. State-changing requests whose Origin is not one of these hosts are refused too.
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # When no TRACETAX_API_TOKEN is set, the backend uses the token in this file (created on
    # first start, mode 0600; default <state dir>/api-token), and `make up` prints a link that
    # logs in with it. Such a generated token guards every request that starts or changes
    # anything; reads stay open on loopback unless reads_need_token.
    api_token_file: Path | None = None
    # Whether GET requests need the token too: default yes for a TRACETAX_API_TOKEN set by an
    # operator, no for the generated one (a developer's own machine).
    reads_need_token: bool | None = None

    # Bounds on what one request may ask for (docs: README "Security").
    max_request_body_bytes: int = Field(default=1_048_576, ge=1024)
    # rate x duration of any load phase: the requests one phase may send, every load of the
    # side-by-side phase together (rate x seconds x configurations x instances).
    max_phase_requests: int = Field(default=3_000_000, ge=1)
    # The requests a whole experiment may send: every phase of every round (a precision's most
    # rounds), the side-by-side phase's instances included.
    max_experiment_requests: int = Field(default=100_000_000, ge=1)
    # The same for a Collector pipeline's spans: one phase (the side-by-side phase's
    # telemetrygens together, the ramp's fastest step) and the whole experiment.
    max_phase_spans: int = Field(default=100_000_000, ge=1)
    max_experiment_spans: int = Field(default=1_000_000_000, ge=1)
    # A spec's whole estimated wall time, in seconds.
    max_spec_estimate_s: float = Field(default=6 * 3600, gt=0, allow_inf_nan=False)
    # Experiments waiting in the queue at once (429 past it).
    max_queue_length: int = Field(default=50, ge=1)
    # Reads that compute (diagnostics, results, checks, history, cost, stacks, logs, traces)
    # running at once; one more waits up to 2 s for a slot, then is 429 with Retry-After.
    max_heavy_reads: int = Field(default=4, ge=1)
    # Experiment event streams (SSE) open at once; one more is 429 with Retry-After.
    max_event_streams: int = Field(default=16, ge=1)
    # A pipeline variant's own config_file must lie under this directory (or the lab's own
    # overlays) and be a regular file of at most max_config_file_bytes.
    pipeline_overlays_dir: Path | None = None
    max_config_file_bytes: int = Field(default=262_144, ge=1024)

    # Retention, enforced in the background: experiments (and checks, calibrations, tunings)
    # older than retention_max_age_days, then the oldest until their work directories and rows
    # fit in retention_max_bytes. None keeps them. Running and queued ones are never deleted.
    retention_max_age_days: float | None = Field(default=90, gt=0, allow_inf_nan=False)
    retention_max_bytes: int | None = Field(default=4 * 1024**3, ge=1)
    retention_interval_s: float = Field(default=600, gt=0, allow_inf_nan=False)

    # How long a graceful shutdown may take: open event streams end, the running experiment
    # stops its service with SIGTERM (its exporters flush) and is marked interrupted.
    shutdown_grace_s: float = Field(default=20, gt=0, allow_inf_nan=False)

    tempo_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:3200")
    loki_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:3100")
    # The metrics store: the native stack's Mimir by default (`make up`); a Prometheus works
    # too (metrics_path_prefix "", metrics_ready_path "/-/ready", metrics_store "prometheus").
    metrics_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:9009")
    # "" for Prometheus; "/prometheus" for Mimir.
    metrics_path_prefix: str = "/prometheus"
    # Readiness path relative to metrics_url: Prometheus "/-/ready", Mimir "/ready".
    metrics_ready_path: str = "/ready"
    # Sent as X-Scope-OrgID when set (Mimir, multi-tenant Loki/Tempo).
    metrics_tenant: str | None = None
    # Which product stands behind metrics_url, for /api/health ("prometheus" or "mimir").
    metrics_store: str = "mimir"
    collector_health_url: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:13133/")
    # Where instrumented services send OTLP (the Collector's receiver).
    collector_otlp_grpc_endpoint: str = "127.0.0.1:4317"
    collector_otlp_http_endpoint: AnyHttpUrl = AnyHttpUrl("http://127.0.0.1:4318")
    # Where the Collector's own counters can be queried (Prometheus API) as soon as they are
    # pushed (every second, over OTLP): natively Mimir's, `<mimir>/prometheus`. Set, a phase's
    # settle ends at the first sample after its services stopped that shows everything passed
    # on (engine/settle.py), typically 1.5 s sooner than the fixed 2.5 s. Unset (compose, Helm
    # as shipped): the fixed wait.
    collector_telemetry_query_url: AnyHttpUrl | None = None

    # Timeouts for calls to the backends, in seconds.
    backend_timeout_s: float = Field(default=10.0, gt=0)
    # The span ledger reads a round from Tempo this long after the round's last telemetry at the
    # earliest (when a service's round recorded its service stopped and flushed, else the round's
    # end: diagnostics/rounds.py `last_telemetry_at`): Tempo's search finds a trace only once the
    # ingester has cut it from its live traces (trace_idle_period 2 s, checked every second:
    # stack/tempo/tempo.yaml), and a scraped counter reaches the metrics store up to 1.9 s after
    # it counted (docs/native-stack.md). Read before the cut, a closed-loop phase's last seconds
    # were missing (7,680 of 75,460 spans found). 10 s when Tempo cut at 5 s idle on its default
    # 10 s check.
    ledger_settle_s: float = Field(default=5.0, ge=0)
    health_probe_timeout_s: float = Field(default=1.5, gt=0)
    # Hold the next experiment while a component of the stack (Tempo, Loki, the metrics store,
    # the Collector) is not ready, rather than measure on a broken stack (engine/queue.py). Off:
    # it starts anyway, and its rounds are flagged with what was down.
    stack_wait: bool = True

    # Experiments, rounds and results. Default: SQLite in the state directory; any SQLAlchemy
    # URL works (postgresql+psycopg://... in Helm).
    database_url: str | None = None
    # Scratch space of running experiments (service logs, load generator output).
    work_dir: Path | None = None
    # CPU lists ("3", "2-3", "0,2") overriding where the measured service and the load
    # generator are pinned; the stack takes the cores left. Default: the layout rule in
    # tracetax/system/placement.py (docs/engine.md). `make up` reads them from the environment.
    service_cpus: str | None = None
    loadgen_cpus: str | None = None

    # Where people reach this TraceTax (its UI and API): the links a check's Markdown summary
    # and badges point at (a check, its History page, its flame-graph diff). Behind a proxy or
    # in CI, set the address readers of a pull request can open.
    public_url: AnyHttpUrl = AnyHttpUrl("http://localhost:8000")

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

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: Any) -> Any:
        items = _comma_list(value)
        return value if items is None else [item.lower() for item in items]

    @field_validator("command_allowlist", mode="before")
    @classmethod
    def _allowlist(cls, value: Any) -> Any:
        items = _comma_list(value)
        if items is None:
            return value
        # os.path keeps each entry a str as written (Path would turn "./x" into "x").
        entries = [os.path.expanduser(item) for item in items]  # noqa: PTH111
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
    return f"sqlite:///{state_dir() / 'tracetax.db'}"


def resolved_work_dir(settings: Settings) -> Path:
    if settings.work_dir:
        return settings.work_dir
    return state_dir() / "experiments"
