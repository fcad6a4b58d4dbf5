"""The OTEL_* variables a spec may not set: those whose value points the service or its agent at
something on the machine it runs on (the backend's): a file it reads, code it loads, a process
it attaches to. A configuration's `env` and a tuning's `current_env` are otherwise any OTEL_*
variable; one of these is a 422 naming it, why and what to do instead. This module is the one
list (README.md, "Security"); the API refuses, the UI shows the refusal where the variable is.

Taken from the OpenTelemetry SDK environment variable and OTLP exporter specifications, the
declarative configuration and the Java agent's and Go eBPF agent's own variables; a name ending
in _FILE, _PATH, _DIR, _DIRECTORY or _EXTENSIONS is refused as well, whatever SDK reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONFIG_FILE_INSTEAD = "set the options it would hold as OTEL_* variables of their own"
OWN_PROCESS_INSTEAD = (
    "measure your own build as a command service (`service.kind: command`), whose argv and files are yours"
)


@dataclass(frozen=True)
class LocalVariable:
    why: str
    instead: str


# By exact name.
LOCAL_VARIABLES: dict[str, LocalVariable] = {
    "OTEL_JAVAAGENT_CONFIGURATION_FILE": LocalVariable(
        "the Java agent reads its settings from this file", CONFIG_FILE_INSTEAD
    ),
    "OTEL_JAVAAGENT_EXTENSIONS": LocalVariable("the Java agent loads these jars as code", OWN_PROCESS_INSTEAD),
    "OTEL_JMX_CONFIG": LocalVariable("the Java agent reads JMX metric rules from these files", OWN_PROCESS_INSTEAD),
    "OTEL_CONFIG_FILE": LocalVariable(
        "the SDK builds itself from this declarative configuration file", CONFIG_FILE_INSTEAD
    ),
    "OTEL_EXPERIMENTAL_CONFIG_FILE": LocalVariable(
        "the SDK builds itself from this declarative configuration file", CONFIG_FILE_INSTEAD
    ),
    "OTEL_GO_AUTO_TARGET_EXE": LocalVariable(
        "the Go eBPF agent instruments this executable", "TraceTax attaches the agent to the service it starts"
    ),
    "OTEL_GO_AUTO_TARGET_PID": LocalVariable(
        "the Go eBPF agent attaches to this process", "TraceTax attaches the agent to the service it starts"
    ),
}

# By pattern: the OTLP exporters' TLS files, for all signals, and names that say they hold a path.
LOCAL_PATTERNS: tuple[tuple[re.Pattern[str], LocalVariable], ...] = (
    (
        re.compile(r"^OTEL_EXPORTER_OTLP_(?:(?:TRACES|METRICS|LOGS)_)?(?:CERTIFICATE|CLIENT_CERTIFICATE|CLIENT_KEY)$"),
        LocalVariable(
            "the OTLP exporter reads this TLS certificate or key file",
            "leave it out: TraceTax's Collector takes plain OTLP on loopback",
        ),
    ),
    (
        re.compile(r"_(?:FILE|FILES|PATH|PATHS|DIR|DIRECTORY|EXTENSIONS?)$"),
        LocalVariable("its name says it holds a file, a directory or code to load", CONFIG_FILE_INSTEAD),
    ),
)


def local_variable(name: str) -> LocalVariable | None:
    """Why a spec may not set `name` (and what to do instead); None when it may."""
    if (known := LOCAL_VARIABLES.get(name)) is not None:
        return known
    return next((why for pattern, why in LOCAL_PATTERNS if pattern.search(name)), None)


def local_variable_errors(env: dict[str, str]) -> list[str]:
    """One sentence per variable of `env` a spec may not set, in name order."""
    errors = []
    for name in sorted(env):
        refused = local_variable(name)
        if refused is not None:
            errors.append(
                f"{name} may not be set by a spec: {refused.why}, and a spec may not point the service at "
                f"files or processes on the backend's machine; {refused.instead}"
            )
    return errors
