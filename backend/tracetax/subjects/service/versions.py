"""What OpenTelemetry each configuration of a service experiment ran: its SDK, or the
zero-code agent and the SDK that agent bundles. Recorded in the experiment's environment
(`environment.configurations`), so a history's point says what it measured, and a step in
the history can be read against a version bump.

From what the run uses: a demo's manifest (`sdk_version`), the zero-code pins
(instrumented-services/zero-code/versions.json, the same file `make zero-code` installs from).
A user's own command service brings its own SDK, which TraceTax cannot read: None, unknown.
"""

from __future__ import annotations

from typing import Any

from tracetax.demos import zero_code
from tracetax.demos.catalog import ServiceManifest
from tracetax.spec.service import CommandServiceRef, ExperimentSpec

# Per language: the zero-code agent's package and its key in versions.json, and the key of
# the SDK it bundles ("" when the pins name none).
AGENTS: dict[str, tuple[str, str, str]] = {
    "python": ("opentelemetry-distro", "distro", "sdk"),
    "java": ("opentelemetry-javaagent", "agent", "sdk"),
    "node": ("@opentelemetry/auto-instrumentations-node", "auto_instrumentations", "sdk"),
    "go": ("go.opentelemetry.io/auto", "auto", ""),
}
ZERO_CODE_PROCESSORS = ("agent", "ebpf")


def _pinned(language: str, pins: dict[str, Any]) -> dict[str, str | None]:
    """The zero-code agent of `language` and the SDK it bundles, as pinned."""
    package, agent_key, sdk_key = AGENTS.get(language, ("", "", ""))
    entry = pins.get(language) or {}
    agent = entry.get(agent_key) if agent_key else None
    sdk = entry.get(sdk_key) if sdk_key else None
    return {
        "agent": f"{package} {agent}" if agent else None,
        "sdk": f"{language} SDK {sdk} (bundled by the agent)" if sdk else None,
    }


def configuration_versions(spec: ExperimentSpec, manifest: ServiceManifest | None) -> dict[str, dict[str, str | None]]:
    """Per configuration name: {"sdk": ..., "agent": ...}, None where none ran (`none` runs no
    SDK; an SDK configuration no agent) or where it is unknown."""
    service = spec.service
    language = service.language if isinstance(service, CommandServiceRef) else (manifest.language if manifest else "")
    pins: dict[str, Any] = {}
    if any(configuration.processor in ZERO_CODE_PROCESSORS for configuration in spec.configurations):
        try:
            pins = zero_code.versions()
        except zero_code.LaunchUnavailableError:
            pins = {}  # the pins cannot be read: the agent's version is unknown (such a run fails anyway)
    versions: dict[str, dict[str, str | None]] = {}
    for configuration in spec.configurations:
        if configuration.processor == "none":
            versions[configuration.name] = {"sdk": None, "agent": None}
        elif configuration.processor in ZERO_CODE_PROCESSORS:
            versions[configuration.name] = _pinned(language, pins)
        else:
            sdk = manifest.sdk_version if manifest is not None else None
            versions[configuration.name] = {"sdk": sdk, "agent": None}
    return versions
