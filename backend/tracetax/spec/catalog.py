"""A service spec checked against what it would run: a demo service's manifest (its modes,
injected costs, signal switches, concurrency knobs and presets) or a user's own command
(what its language can launch here), and the cores the measurement has. Every error names
its field."""

from __future__ import annotations

from typing import Any

from tracetax.demos import zero_code
from tracetax.demos.catalog import ServiceManifest
from tracetax.spec.base import SpecError
from tracetax.spec.presets import PRESETS
from tracetax.spec.service import CommandServiceRef, ConfigurationSpec, ExperimentSpec

# The standard switches every demo service honours, checked against a demo service so a bad value
# is a 422 naming it instead of a service that exits 2 in every round (a user's own service may
# accept more, e.g. console). Empty means the default, as in the SDKs.
SIGNAL_SWITCHES = {
    **{f"OTEL_{signal}_EXPORTER": ("", "otlp", "none") for signal in ("TRACES", "LOGS", "METRICS")},
    "OTEL_SDK_DISABLED": ("", "true", "false"),
}


def validate_against_catalog(spec: ExperimentSpec, manifest: ServiceManifest | None) -> None:
    """Each configuration's processor must be a mode the service has and can run here."""
    if manifest is None:
        validate_command(spec)
        return
    errors = []
    for index, configuration in enumerate(spec.configurations):
        mode = manifest.modes.get(configuration.processor)
        location = ("configurations", index, "processor")
        if mode is None:
            accepted = ", ".join(sorted(manifest.modes))
            errors.append(
                {
                    "loc": location,
                    "msg": f"{manifest.language} has no mode {configuration.processor!r}; accepted: {accepted}",
                }
            )
        elif not mode.available:
            errors.append(
                {"loc": location, "msg": f"{manifest.language} {configuration.processor} cannot run here: {mode.why}"}
            )
        if configuration.inject_busy_us and not manifest.inject_busy_wait:
            errors.append(
                {
                    "loc": ("configurations", index, "inject_busy_us"),
                    "msg": f"the {manifest.language} demo service has no injected busy-wait (inject_busy_wait "
                    "in its service.json); set it to 0",
                }
            )
        for variable, values in SIGNAL_SWITCHES.items():
            value = configuration.env.get(variable)
            if value is not None and value.strip().lower() not in values:
                errors.append(
                    {
                        "loc": ("configurations", index, "env", variable),
                        "msg": f"{value!r} is not a value the demo services accept for {variable}: "
                        f"{', '.join(v for v in values if v)} (empty: the default)",
                    }
                )
        errors += _concurrency_errors(index, configuration, set(manifest.concurrency), f"the {manifest.language} demo")
        preset = PRESETS.get(configuration.preset or "")
        if preset and preset.languages and manifest.language not in preset.languages:
            errors.append(
                {
                    "loc": ("configurations", index, "preset"),
                    "msg": f"preset {preset.name} is only for {', '.join(preset.languages)}",
                }
            )
    if errors:
        raise SpecError(errors)


def validate_command(spec: ExperimentSpec) -> None:
    """A user's command: each configuration must be a launch this machine can run for its
    language (docs/your-service.md); the engine relies only on the launch and OTEL_*."""
    service = spec.service
    if not isinstance(service, CommandServiceRef):
        return
    errors = []
    for index, configuration in enumerate(spec.configurations):
        reason = zero_code.unavailable_reason(service.language, configuration.processor)
        if reason:
            errors.append({"loc": ("configurations", index, "processor"), "msg": reason})
        for injected in ("inject_busy_us", "inject_background_us"):
            if getattr(configuration, injected):
                errors.append(
                    {
                        "loc": ("configurations", index, injected),
                        "msg": "an injected cost is honoured by the demo services only; a command service "
                        "would ignore it (set it to 0)",
                    }
                )
        # A user's own service sets its threads and workers itself (in its argv or config); the
        # one standard knob is Go's runtime variable.
        knobs = {"gomaxprocs"} if service.language == "go" else set()
        errors += _concurrency_errors(
            index,
            configuration,
            knobs,
            f"a {service.language} command service",
            hint=" (a command service's threads and workers are set in its own argv)",
        )
        preset = PRESETS.get(configuration.preset or "")
        if preset and preset.languages and service.language not in preset.languages:
            errors.append(
                {
                    "loc": ("configurations", index, "preset"),
                    "msg": f"preset {preset.name} is only for {', '.join(preset.languages)} "
                    f"(service.language is {service.language})",
                }
            )
    if errors:
        raise SpecError(errors)


def _concurrency_errors(
    index: int, configuration: ConfigurationSpec, accepted: set[str], who: str, hint: str = ""
) -> list[dict[str, Any]]:
    errors = []
    for knob in configuration.concurrency.knobs():
        if knob not in accepted:
            has = f"it accepts {', '.join(sorted(accepted))}" if accepted else "it has no concurrency knob but `cores`"
            errors.append(
                {
                    "loc": ("configurations", index, "concurrency", knob),
                    "msg": f"{who} has no `{knob}`: {has}{hint}",
                }
            )
    return errors


def validate_cores(spec: ExperimentSpec, service_cpus: set[int] | None) -> None:
    """`concurrency.cores` must fit the measurement's service cores (None: nothing is pinned,
    as on a one-core machine, so no core count can be given)."""
    errors = []
    for index, configuration in enumerate(spec.configurations):
        cores = configuration.concurrency.cores
        if cores is None or (service_cpus is not None and cores <= len(service_cpus)):
            continue
        available = (
            f"the service has {len(service_cpus)} core(s) here ({','.join(map(str, sorted(service_cpus)))}); "
            "give it more with TRACETAX_SERVICE_CPUS"
            if service_cpus is not None
            else "this machine does not pin the service (one core), so no core count can be given"
        )
        errors.append(
            {"loc": ("configurations", index, "concurrency", "cores"), "msg": f"{cores} cores asked: {available}"}
        )
    if errors:
        raise SpecError(errors)
