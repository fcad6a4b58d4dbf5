"""The native stack: which third-party binaries TraceTax builds, and how each one runs.

Everything here is data. `build.py` turns a `GoBuild` or `CollectorBuild` into a binary in the
tool cache; `supervisor.py` starts a `Component` from it and waits for its readiness URL.

Pinned versions and why (the Go module proxy here refuses many recent pseudo-versions):
- Loki v3.7.8: its go.mod replaces github.com/grafana/loki/pkg/push with ./pkg/push, a nested
  module that the published module zip lacks; the replace is pointed at the published
  pkg/push version its go.mod already requires.
- Tempo v1.5.1-0.20241001135150-ed943d7a56b2 (the 2.6 line; Tempo's module path has no /v2):
  not in the checksum database, so GONOSUMDB covers exactly that module.
- Mimir v1.3.1-0.20260423142704-aced80d74930 (main after 3.0.6): the metrics store, with the
  same configuration as compose and Helm (stack/mimir/mimir.yaml, paths and addresses moved).
- Collector v0.160.0: built by ocb from collector-pipelines/builder-config.yaml.
- telemetrygen v0.160.0 (cmd/telemetrygen of collector-contrib, a module of its own): the
  Collector pipeline lab's load, from the same release line as the Collector it loads. It
  needs no replace and no edits; about 10 s to build after the Collector (shared build
  cache), 53 s from an empty Go build cache, on 2 cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tracetax.system.paths import REPO_ROOT, cache_dir

COLLECTOR_MANIFEST = REPO_ROOT / "collector-pipelines" / "builder-config.yaml"
COLLECTOR_CONFIG_DIR = REPO_ROOT / "collector-pipelines"
# Each third-party component's one source config, in stack/<component>/ (compose's and Helm's
# copies are generated from them by scripts/gen-stack-configs.py).
TEMPO_CONFIG = REPO_ROOT / "stack" / "tempo" / "tempo.yaml"
LOKI_CONFIG = REPO_ROOT / "stack" / "loki" / "loki.yaml"
# compose's and Helm's Mimir configuration; the native one is generated from it (mimir_config).
MIMIR_CONFIG = REPO_ROOT / "stack" / "mimir" / "mimir.yaml"
# Where that configuration keeps its data: a volume mounted at /data in the container.
MIMIR_CONTAINER_DATA = "/data"


@dataclass(frozen=True)
class GoBuild:
    """A binary built from a published Go module, inside a writable copy of that module."""

    name: str
    module: str
    version: str
    package: str
    expected_minutes: int
    ldflags: tuple[str, ...] = ()
    # `go mod edit` arguments applied to the copy's go.mod before building.
    go_mod_edits: tuple[str, ...] = ()
    # Modules to fetch without the checksum database (only ones it does not know).
    nosumdb: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def binary_name(self) -> str:
        return f"{self.name}-{self.version}"


@dataclass(frozen=True)
class CollectorBuild:
    """The TraceTax Collector distribution, built by the OpenTelemetry Collector Builder."""

    name: str
    builder_module: str
    version: str
    manifest: Path
    expected_minutes: int

    @property
    def binary_name(self) -> str:
        # The manifest's hash is part of the name: editing the manifest forces a rebuild.
        import hashlib

        digest = hashlib.sha256(self.manifest.read_bytes()).hexdigest()[:10]
        return f"{self.name}-{self.version}-{digest}"


LOKI_PUSH_VERSION = "v0.0.0-20250630054201-94c0ba7b0952"

TEMPO_BUILD = GoBuild(
    name="tempo",
    module="github.com/grafana/tempo",
    version="v1.5.1-0.20241001135150-ed943d7a56b2",
    package="./cmd/tempo",
    expected_minutes=3,
    ldflags=(
        "-X main.Version=2.6.0-ed943d7a",
        "-X main.Revision=ed943d7a56b2",
        "-X main.Branch=main",
    ),
    nosumdb=("github.com/grafana/tempo",),
)

LOKI_BUILD = GoBuild(
    name="loki",
    module="github.com/grafana/loki/v3",
    version="v3.7.8",
    package="./cmd/loki",
    expected_minutes=8,
    ldflags=(
        "-X github.com/grafana/loki/v3/pkg/util/build.Version=3.7.8",
        "-X github.com/grafana/loki/v3/pkg/util/build.Revision=v3.7.8",
        "-X github.com/grafana/loki/v3/pkg/util/build.Branch=release-3.7.x",
    ),
    go_mod_edits=(
        "-dropreplace=github.com/grafana/loki/pkg/push",
        f"-replace=github.com/grafana/loki/pkg/push=github.com/grafana/loki/pkg/push@{LOKI_PUSH_VERSION}",
    ),
    tags=("netgo",),
)

# Mimir's module path has no /v2 (nor /v3) and its releases are tagged `mimir-X.Y.Z`, which is
# no semantic version: Go can name a release only by its commit's pseudo-version, and the
# module proxy here serves none of the release commits (mimir-2.17.2, the compose and Helm
# image's, is refused by tag, by branch and by commit). `@latest` resolves to this one, the
# 2026-04-23 main (after 3.0.6, the unreleased 3.1 line); docs/native-stack.md says more.
MIMIR_COMMIT = "aced80d74930"
# What its build info says (/api/health shows it): the unreleased 3.1 line at that commit.
MIMIR_VERSION = f"3.1.0-main-{MIMIR_COMMIT}"
MIMIR_BUILD = GoBuild(
    name="mimir",
    module="github.com/grafana/mimir",
    version=f"v1.3.1-0.20260423142704-{MIMIR_COMMIT}",
    package="./cmd/mimir",
    # Measured on 2 cores: 3.3 min quiet (issue 25), 6.2 min beside another build
    # (docs/native-stack.md); 1.7-2.0 GB peak.
    expected_minutes=4,
    ldflags=(
        f"-X github.com/grafana/mimir/pkg/util/version.Version={MIMIR_VERSION}",
        f"-X github.com/grafana/mimir/pkg/util/version.Revision={MIMIR_COMMIT}",
        "-X github.com/grafana/mimir/pkg/util/version.Branch=main",
    ),
    # Its go.mod's replaces (mimir-prometheus, grafana's forks) stay in force: the build runs
    # in a writable copy of the module. Pseudo-versions of grafana's modules are not in the
    # checksum database.
    nosumdb=("github.com/grafana",),
    # As Mimir's own Makefile builds it.
    tags=("netgo", "stringlabels"),
)

# The lab's load: the Collector project's own OTLP generator, from the same release line as
# the Collector it loads. A module of its own (cmd/telemetrygen), so it is built at its root.
TELEMETRYGEN_BUILD = GoBuild(
    name="telemetrygen",
    module="github.com/open-telemetry/opentelemetry-collector-contrib/cmd/telemetrygen",
    version="v0.160.0",
    package=".",
    # Measured: 53 s from an empty Go build cache, 10 s after the Collector's build.
    expected_minutes=1,
)

COLLECTOR_BUILD = CollectorBuild(
    name="otelcol-tracetax",
    builder_module="go.opentelemetry.io/collector/cmd/builder",
    version="v0.160.0",
    manifest=COLLECTOR_MANIFEST,
    expected_minutes=9,
)

# Build order: shortest first, so a broken toolchain shows up after minutes, not after Loki.
BUILDS: tuple[GoBuild | CollectorBuild, ...] = (
    TELEMETRYGEN_BUILD,
    TEMPO_BUILD,
    MIMIR_BUILD,
    LOKI_BUILD,
    COLLECTOR_BUILD,
)


def binary_path(build: GoBuild | CollectorBuild) -> Path:
    return cache_dir() / "bin" / build.binary_name


@dataclass(frozen=True)
class Ports:
    """Every port the native stack listens on, all on 127.0.0.1; each overridable by env."""

    backend: int = 8000
    otlp_grpc: int = 4317
    otlp_http: int = 4318
    collector_health: int = 13133
    tempo_http: int = 3200
    tempo_grpc: int = 9097
    tempo_otlp_grpc: int = 4417
    loki_http: int = 3100
    loki_grpc: int = 9096
    mimir_http: int = 9009
    mimir_grpc: int = 9095
    # Mimir's rings live in memberlist, which listens even without peers.
    mimir_memberlist: int = 7946

    @classmethod
    def from_env(cls) -> Ports:
        """Read TRACETAX_PORT_<FIELD> overrides, e.g. TRACETAX_PORT_BACKEND=8080."""
        values: dict[str, int] = {}
        for name in cls.__dataclass_fields__:
            raw = os.environ.get(f"TRACETAX_PORT_{name.upper()}")
            if raw is None:
                continue
            if not raw.isdigit() or not 0 < int(raw) < 65536:
                raise ValueError(f"TRACETAX_PORT_{name.upper()}={raw!r} is not a TCP port (1-65535)")
            values[name] = int(raw)
        return cls(**values)


@dataclass(frozen=True)
class Component:
    """One supervised process of the native stack."""

    name: str
    ready_url: str
    # The URL users and the backend talk to (shown in the status table).
    url: str
    argv: tuple[str, ...]
    # Ports it binds; checked free before start so a clash is reported, not a crash loop.
    ports: tuple[int, ...]
    env: dict[str, str] = field(default_factory=dict)
    data_subdir: str | None = None
    start_timeout_s: float = 90.0
    # Files written before each start (path -> text): configuration that depends on the ports.
    files: dict[Path, str] = field(default_factory=dict)
    # How long `down` waits after SIGTERM before SIGKILL; None: the supervisor's STOP_GRACE_S.
    stop_grace_s: float | None = None
    # Why a kill after that grace is expected and harmless, said with it (None: nothing known).
    known_stop_hang: str | None = None


# Tempo (2.6) never exits on SIGTERM once it has answered a query: its query frontend's request
# queue waits on a cleanup ticker that has already stopped (grafana/tempo PR #7967, open). What
# matters is done by then: the ingester stops at once (its WAL is replayed at the next start).
# Measured with 20,000 live traces and a query answered: the ingester stopped 6 ms after
# SIGTERM, the rings 1.2 s after, the process still running 15 s later. So Tempo gets 3 s, not
# the supervisor's 20, before SIGKILL. (It got 10 s while the stack ran Tempo's metrics
# generator, which stopped 5 s after the signal; nothing reads what it made, and it is gone.)
TEMPO_STOP_GRACE_S = 3.0
TEMPO_STOP_HANG = "expected: Tempo 2.6 hangs in its shutdown once it has answered a query; its data is flushed"


# Mimir's settings that hold an address or a port (dotted YAML paths), every one of them set
# natively: loopback only. In a container its components advertise the container's address;
# natively the query-frontend would advertise the machine's and the querier, dialing it back
# on a gRPC port bound to loopback, would never answer a query.
def mimir_addresses(ports: Ports) -> dict[str, Any]:
    loopback = "127.0.0.1"
    rings = ("distributor", "ingester", "querier", "ruler", "query_scheduler", "overrides_exporter")
    return {
        "server.http_listen_address": loopback,
        "server.http_listen_port": ports.mimir_http,
        "server.grpc_listen_address": loopback,
        "server.grpc_listen_port": ports.mimir_grpc,
        "frontend.address": loopback,
        **{f"{component}.ring.instance_addr": loopback for component in rings},
        "store_gateway.sharding_ring.instance_addr": loopback,
        "compactor.sharding_ring.instance_addr": loopback,
        "memberlist.bind_addr": [loopback],
        "memberlist.advertise_addr": loopback,
        "memberlist.bind_port": ports.mimir_memberlist,
        "memberlist.advertise_port": ports.mimir_memberlist,
    }


def mimir_settings(data: Path, ports: Ports) -> dict[str, Any]:
    """stack/mimir/mimir.yaml (compose's and Helm's) as the native stack runs it: its data
    under `data` instead of /data, every address on loopback and the stack's ports. Nothing
    else differs (tests/native_stack/test_mimir_native.py holds the two to that)."""
    config: dict[str, Any] = _moved_paths(yaml.safe_load(MIMIR_CONFIG.read_text()), data)
    for dotted, value in mimir_addresses(ports).items():
        *parents, key = dotted.split(".")
        node = config
        for parent in parents:
            node = node.setdefault(parent, {})
        node[key] = value
    return config


def _moved_paths(node: Any, data: Path) -> Any:
    if isinstance(node, dict):
        return {key: _moved_paths(value, data) for key, value in node.items()}
    if isinstance(node, str) and (node == MIMIR_CONTAINER_DATA or node.startswith(f"{MIMIR_CONTAINER_DATA}/")):
        return str(data) + node.removeprefix(MIMIR_CONTAINER_DATA)
    return node


def mimir_config(data: Path, ports: Ports) -> str:
    header = "# Written by TraceTax at stack start from stack/mimir/mimir.yaml: paths and addresses moved.\n"
    return header + yaml.safe_dump(mimir_settings(data, ports), sort_keys=False)


# The backend's graceful shutdown (TRACETAX_SHUTDOWN_GRACE_S: streams end, the running service's
# SIGTERM flush, the experiment marked interrupted) plus this: time to exit after it, so `make
# down` never kills a backend that is still shutting down as documented.
BACKEND_STOP_MARGIN_S = 10.0


def backend_stop_grace_s(shutdown_grace_s: float) -> float:
    """How long `down` waits for the backend: its own shutdown grace, plus a margin."""
    return shutdown_grace_s + BACKEND_STOP_MARGIN_S


def components(
    ports: Ports, state: Path, backend_argv: tuple[str, ...], *, backend_shutdown_grace_s: float
) -> tuple[Component, ...]:
    """The native stack in start order: stores first, then the Collector, then the backend
    (`backend_shutdown_grace_s`: the settings' TRACETAX_SHUTDOWN_GRACE_S it runs with)."""
    data = state / "data"
    loopback = "127.0.0.1"
    otlp_base = str(COLLECTOR_CONFIG_DIR / "otelcol-base.yaml")
    otlp_native = str(COLLECTOR_CONFIG_DIR / "otelcol-native.yaml")
    backend_url = f"http://{loopback}:{ports.backend}"
    mimir_url = f"http://{loopback}:{ports.mimir_http}"
    return (
        Component(
            name="mimir",
            url=mimir_url,
            ready_url=f"{mimir_url}/ready",
            argv=(str(binary_path(MIMIR_BUILD)), f"-config.file={state / 'mimir.yaml'}"),
            ports=(ports.mimir_http, ports.mimir_grpc, ports.mimir_memberlist),
            data_subdir="mimir",
            files={state / "mimir.yaml": mimir_config(data / "mimir", ports)},
        ),
        Component(
            name="tempo",
            url=f"http://{loopback}:{ports.tempo_http}",
            ready_url=f"http://{loopback}:{ports.tempo_http}/ready",
            argv=(
                str(binary_path(TEMPO_BUILD)),
                f"-config.file={TEMPO_CONFIG}",
                "-config.expand-env=true",
            ),
            env={
                "TEMPO_DATA_DIR": str(data / "tempo"),
                "TEMPO_HTTP_PORT": str(ports.tempo_http),
                "TEMPO_GRPC_PORT": str(ports.tempo_grpc),
                "TEMPO_OTLP_GRPC_ENDPOINT": f"{loopback}:{ports.tempo_otlp_grpc}",
            },
            ports=(ports.tempo_http, ports.tempo_grpc, ports.tempo_otlp_grpc),
            data_subdir="tempo",
            stop_grace_s=TEMPO_STOP_GRACE_S,
            known_stop_hang=TEMPO_STOP_HANG,
        ),
        Component(
            name="loki",
            url=f"http://{loopback}:{ports.loki_http}",
            ready_url=f"http://{loopback}:{ports.loki_http}/ready",
            argv=(
                str(binary_path(LOKI_BUILD)),
                f"-config.file={LOKI_CONFIG}",
                "-config.expand-env=true",
            ),
            env={
                "LOKI_DATA_DIR": str(data / "loki"),
                "LOKI_HTTP_PORT": str(ports.loki_http),
                "LOKI_GRPC_PORT": str(ports.loki_grpc),
            },
            ports=(ports.loki_http, ports.loki_grpc),
            data_subdir="loki",
        ),
        Component(
            name="collector",
            url=f"http://{loopback}:{ports.otlp_http}",
            ready_url=f"http://{loopback}:{ports.collector_health}/",
            argv=(
                str(binary_path(COLLECTOR_BUILD)),
                f"--config=file:{otlp_base}",
                f"--config=file:{otlp_native}",
            ),
            env={
                "OTLP_GRPC_ENDPOINT": f"{loopback}:{ports.otlp_grpc}",
                "OTLP_HTTP_ENDPOINT": f"{loopback}:{ports.otlp_http}",
                "HEALTH_CHECK_ENDPOINT": f"{loopback}:{ports.collector_health}",
                "TEMPO_OTLP_GRPC_ENDPOINT": f"{loopback}:{ports.tempo_otlp_grpc}",
                "LOKI_OTLP_ENDPOINT": f"http://{loopback}:{ports.loki_http}/otlp",
                "METRICS_OTLP_ENDPOINT": f"{mimir_url}/otlp",
            },
            ports=(ports.otlp_grpc, ports.otlp_http, ports.collector_health),
        ),
        Component(
            name="backend",
            url=backend_url,
            ready_url=f"{backend_url}/api/health/live",
            argv=backend_argv,
            env={
                "TRACETAX_HOST": loopback,
                "TRACETAX_PORT": str(ports.backend),
                # Its database, work directories, token and overlays live in the stack's state.
                "TRACETAX_STATE_DIR": str(state),
                "TRACETAX_TEMPO_URL": f"http://{loopback}:{ports.tempo_http}",
                "TRACETAX_LOKI_URL": f"http://{loopback}:{ports.loki_http}",
                # Mimir with multitenancy off: no tenant header (stack/mimir/mimir.yaml).
                "TRACETAX_METRICS_URL": mimir_url,
                "TRACETAX_METRICS_PATH_PREFIX": "/prometheus",
                "TRACETAX_METRICS_READY_PATH": "/ready",
                "TRACETAX_METRICS_STORE": "mimir",
                "TRACETAX_COLLECTOR_HEALTH_URL": f"http://{loopback}:{ports.collector_health}/",
                "TRACETAX_COLLECTOR_OTLP_GRPC_ENDPOINT": f"{loopback}:{ports.otlp_grpc}",
                "TRACETAX_COLLECTOR_OTLP_HTTP_ENDPOINT": f"http://{loopback}:{ports.otlp_http}",
                # Where the Collector pushes its own counters every second (Mimir's Prometheus API):
                # a phase settles once a sample after its services stopped is in.
                "TRACETAX_COLLECTOR_TELEMETRY_QUERY_URL": f"{mimir_url}/prometheus",
            },
            ports=(ports.backend,),
            stop_grace_s=backend_stop_grace_s(backend_shutdown_grace_s),
        ),
    )
