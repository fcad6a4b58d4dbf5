"""What each configuration of a service experiment ran, as its environment records it: a demo's
SDK, the zero-code agent and the SDK it bundles (from the pins in versions.json), nothing for
`none`, and unknown for a command service's own SDK."""

from __future__ import annotations

from typing import Any

from tracetax.demos import zero_code
from tracetax.demos.catalog import demo_services
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.versions import configuration_versions

LOAD = {"rate": 100, "duration_s": 2}


def spec(service: dict[str, Any], *configurations: tuple[str, str]) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "service": service,
            "configurations": [
                {"name": name, "processor": processor, "baseline": index == 0}
                for index, (name, processor) in enumerate(configurations)
            ],
            "load": LOAD,
        }
    )


def test_a_demo_names_its_sdk_and_its_agent() -> None:
    java = demo_services()["java"]
    versions = configuration_versions(
        spec({"kind": "demo", "language": "java"}, ("none", "none"), ("batch", "batch"), ("agent", "agent")), java
    )
    pins = zero_code.versions()["java"]
    assert versions["none"] == {"sdk": None, "agent": None}
    assert versions["batch"] == {"sdk": java.sdk_version, "agent": None}
    assert versions["agent"]["agent"] == f"opentelemetry-javaagent {pins['agent']}"
    assert pins["sdk"] in (versions["agent"]["sdk"] or "")


def test_go_ebpf_names_the_auto_instrumentation() -> None:
    versions = configuration_versions(
        spec({"kind": "demo", "language": "go"}, ("none", "none"), ("ebpf", "ebpf")), demo_services()["go"]
    )
    assert versions["ebpf"] == {"agent": f"go.opentelemetry.io/auto {zero_code.versions()['go']['auto']}", "sdk": None}


def test_a_command_services_own_sdk_is_unknown() -> None:
    command = {"kind": "command", "language": "python", "argv": ["python", "app.py"], "port": 8080}
    versions = configuration_versions(spec(command, ("none", "none"), ("batch", "batch"), ("agent", "agent")), None)
    assert versions["batch"] == {"sdk": None, "agent": None}
    assert versions["agent"]["agent"] == f"opentelemetry-distro {zero_code.versions()['python']['distro']}"
