from __future__ import annotations

from pathlib import Path

import pytest

from tracetax.native_stack.components import BUILDS, COLLECTOR_BUILD, LOKI_BUILD, Ports, components


def test_ports_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_PORT_BACKEND", "8080")
    ports = Ports.from_env()
    assert ports.backend == 8080
    assert ports.otlp_grpc == 4317


@pytest.mark.parametrize("raw", ["http", "0", "70000", "-1"])
def test_bad_port_names_the_variable(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("TRACETAX_PORT_LOKI_HTTP", raw)
    with pytest.raises(ValueError, match="TRACETAX_PORT_LOKI_HTTP"):
        Ports.from_env()


def test_no_two_components_share_a_port() -> None:
    stack = components(Ports(), Path("/state"), ("backend",), backend_shutdown_grace_s=20)
    ports = [port for component in stack for port in component.ports]
    assert len(ports) == len(set(ports))


def test_collector_cache_key_follows_the_manifest() -> None:
    assert COLLECTOR_BUILD.binary_name.startswith("otelcol-tracetax-v0.160.0-")
    assert len({build.binary_name for build in BUILDS}) == len(BUILDS)


def test_loki_replace_points_at_a_published_push_module() -> None:
    assert any("github.com/grafana/loki/pkg/push@v0.0.0-" in edit for edit in LOKI_BUILD.go_mod_edits)
