"""The zero-code sets and the example apps stay pinned and agree with versions.json.

versions.json (instrumented-services/zero-code/) is what the backend reads to launch a service
under its zero-code agent; scripts/zero_code.py (`make zero-code`, `make examples`) installs from
the pin files. Offline: nothing is installed here.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from tracetax.spec.service import CommandServiceRef
from tracetax.subjects.union import load_spec_file

REPO = Path(__file__).resolve().parents[3]
ZERO_CODE = REPO / "instrumented-services" / "zero-code"
EXAMPLES = REPO / "docs" / "examples"


@pytest.fixture(scope="module")
def installer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("zero_code_installer", REPO / "scripts" / "zero_code.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pins(requirements: Path) -> dict[str, str]:
    """name -> version of every requirement line; fails on any line that is not `name==version`."""
    found = {}
    for line in requirements.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
        assert match, f"{requirements.name}: not an exact pin: {line!r}"
        found[match.group(1).lower()] = match.group(2)
    return found


def test_versions_json_agrees_with_the_pin_files(installer: ModuleType) -> None:
    installer.check_versions(installer.load_versions())


def test_a_stale_versions_json_is_refused(installer: ModuleType) -> None:
    versions = installer.load_versions()
    versions["java"]["agent"] = "9.9.9"
    with pytest.raises(installer.InstallError, match="pins agent 2"):
        installer.check_versions(versions)


def test_every_python_package_is_pinned_and_the_instrumentations_are_one_release() -> None:
    zero_code = pins(ZERO_CODE / "python" / "requirements.txt")
    distro = zero_code["opentelemetry-distro"]
    sdk = zero_code["opentelemetry-sdk"]
    for name, version in zero_code.items():
        if name.startswith("opentelemetry-instrumentation") or name == "opentelemetry-semantic-conventions":
            assert version == distro, f"{name}=={version} is not the distro's release {distro}"
        if name in ("opentelemetry-api", "opentelemetry-proto") or name.startswith("opentelemetry-exporter-otlp-proto"):
            assert version == sdk, f"{name}=={version} is not the SDK's release {sdk}"
    for needed in ("flask", "django", "wsgi", "requests", "urllib3", "logging"):
        assert f"opentelemetry-instrumentation-{needed}" in zero_code


def test_httpbin_holds_the_same_zero_code_set() -> None:
    zero_code = pins(ZERO_CODE / "python" / "requirements.txt")
    httpbin = pins(EXAMPLES / "httpbin" / "requirements.txt")
    assert {"httpbin", "gunicorn", "flask"} <= httpbin.keys()
    differ = {name: (version, httpbin.get(name)) for name, version in zero_code.items() if httpbin.get(name) != version}
    assert not differ, f"httpbin's venv differs from the zero-code set: {differ}"


@pytest.mark.parametrize(("spec_file", "language"), [("httpbin.yaml", "python"), ("wiremock.yaml", "java")])
def test_the_example_specs_parse(spec_file: str, language: str) -> None:
    spec = load_spec_file(EXAMPLES / spec_file)
    service = spec.service  # type: ignore[union-attr]
    assert isinstance(service, CommandServiceRef)
    assert service.language == language
    assert [c.processor for c in spec.configurations] == ["none", "agent", "agent"]  # type: ignore[union-attr]
