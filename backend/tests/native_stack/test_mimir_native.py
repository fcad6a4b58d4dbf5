"""The native stack's Mimir and the metrics flow around it, from the stack's definition (no
process started): one Mimir configuration with compose and Helm, loopback only, no Prometheus,
the Collector (its own telemetry too) and the backend pointed at Mimir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tracetax.core.config import Settings
from tracetax.native_stack.components import (
    BUILDS,
    COLLECTOR_CONFIG_DIR,
    MIMIR_BUILD,
    MIMIR_CONFIG,
    Component,
    Ports,
    components,
    mimir_addresses,
    mimir_settings,
)

STATE = Path("/state")
MIMIR_DATA = STATE / "data" / "mimir"
# Every port distinct from the defaults, so a setting that ignores the stack's ports shows.
MOVED = Ports(**{name: 20000 + index for index, name in enumerate(Ports.__dataclass_fields__)})


def stack(ports: Ports = MOVED) -> dict[str, Component]:
    return {c.name: c for c in components(ports, STATE, ("backend",), backend_shutdown_grace_s=20)}


def without(config: dict[str, Any], dotted_keys: list[str]) -> dict[str, Any]:
    """The configuration with those settings removed, and the sections they leave empty."""
    for dotted in dotted_keys:
        *parents, key = dotted.split(".")
        node = config
        for parent in parents:
            node = node.get(parent, {})
        node.pop(key, None)
    return pruned(config)


def pruned(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    kept = {key: pruned(value) for key, value in node.items()}
    return {key: value for key, value in kept.items() if value != {}}


def container_paths(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: container_paths(value) for key, value in node.items()}
    if isinstance(node, str) and node.startswith(str(MIMIR_DATA)):
        return "/data" + node.removeprefix(str(MIMIR_DATA))
    return node


def test_native_mimir_differs_from_composes_only_in_paths_and_addresses() -> None:
    native = mimir_settings(MIMIR_DATA, MOVED)
    addresses = list(mimir_addresses(MOVED))
    compose = yaml.safe_load(MIMIR_CONFIG.read_text())
    assert without(container_paths(native), addresses) == without(compose, addresses)


def test_native_mimir_keeps_its_data_in_the_state_directory_and_listens_on_loopback_only() -> None:
    text = yaml.safe_dump(mimir_settings(MIMIR_DATA, MOVED))
    assert "/data/" not in text.replace(str(MIMIR_DATA), "")
    native = mimir_settings(MIMIR_DATA, MOVED)
    assert native["server"]["http_listen_address"] == native["server"]["grpc_listen_address"] == "127.0.0.1"
    assert (native["server"]["http_listen_port"], native["server"]["grpc_listen_port"]) == (
        MOVED.mimir_http,
        MOVED.mimir_grpc,
    )
    assert native["memberlist"]["bind_addr"] == ["127.0.0.1"]
    assert native["memberlist"]["bind_port"] == MOVED.mimir_memberlist
    # The query-frontend's advertised address: the querier dials it back with every answer.
    assert native["frontend"]["address"] == "127.0.0.1"
    assert native["multitenancy_enabled"] is False


def test_mimir_is_a_supervised_store_with_its_ports_and_readiness() -> None:
    mimir = stack()["mimir"]
    assert mimir.ready_url == f"http://127.0.0.1:{MOVED.mimir_http}/ready"
    assert set(mimir.ports) == {MOVED.mimir_http, MOVED.mimir_grpc, MOVED.mimir_memberlist}
    (config_file,) = mimir.files
    assert f"-config.file={config_file}" in mimir.argv
    assert yaml.safe_load(mimir.files[config_file]) == mimir_settings(MIMIR_DATA, MOVED)
    # Stores first: Mimir is up before the Collector writes to it.
    names = list(stack())
    assert "prometheus" not in names
    assert names.index("mimir") < names.index("collector")


def test_the_collector_sends_metrics_and_its_own_telemetry_to_mimir() -> None:
    env = stack()["collector"].env
    assert env["METRICS_OTLP_ENDPOINT"] == f"http://127.0.0.1:{MOVED.mimir_http}/otlp"
    # The native overlay keeps the base's periodic OTLP push (as compose and Helm do): no
    # reader of its own, no port to scrape.
    overlay = yaml.safe_load((COLLECTOR_CONFIG_DIR / "otelcol-native.yaml").read_text())
    assert "metrics" not in overlay["service"]["telemetry"]
    base = yaml.safe_load((COLLECTOR_CONFIG_DIR / "otelcol-base.yaml").read_text())
    (reader,) = base["service"]["telemetry"]["metrics"]["readers"]
    # Every second: the ledger reads the counters ledger_settle_s after a round.
    assert reader["periodic"]["interval"] == 1000
    assert reader["periodic"]["exporter"]["otlp"]["endpoint"] == "${env:METRICS_OTLP_ENDPOINT}/v1/metrics"


def test_a_phase_settles_on_the_collector_counters_in_mimir() -> None:
    env = stack()["backend"].env
    assert env["TRACETAX_COLLECTOR_TELEMETRY_QUERY_URL"] == f"http://127.0.0.1:{MOVED.mimir_http}/prometheus"


def test_the_backend_and_the_cli_read_mimir() -> None:
    env = stack()["backend"].env
    settings = Settings(
        metrics_url=env["TRACETAX_METRICS_URL"],
        metrics_path_prefix=env["TRACETAX_METRICS_PATH_PREFIX"],
        metrics_ready_path=env["TRACETAX_METRICS_READY_PATH"],
        metrics_store=env["TRACETAX_METRICS_STORE"],
    )
    assert str(settings.metrics_url).rstrip("/") == f"http://127.0.0.1:{MOVED.mimir_http}"
    # The defaults (the CLI's `tracetax run` and `tracetax health`) are the default stack's.
    assert stack(Ports())["backend"].env["TRACETAX_METRICS_URL"] == str(Settings().metrics_url).rstrip("/")
    defaults = Settings()
    assert (defaults.metrics_path_prefix, defaults.metrics_ready_path, defaults.metrics_store) == (
        settings.metrics_path_prefix,
        settings.metrics_ready_path,
        settings.metrics_store,
    )


def test_mimir_is_built_from_its_module_with_its_own_go_mod() -> None:
    assert MIMIR_BUILD in BUILDS
    # Its replaces (mimir-prometheus and grafana's forks) stay in force: nothing edited.
    assert MIMIR_BUILD.go_mod_edits == ()
    assert MIMIR_BUILD.module == "github.com/grafana/mimir" and MIMIR_BUILD.package == "./cmd/mimir"
