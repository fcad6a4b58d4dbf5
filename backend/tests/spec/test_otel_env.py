"""A spec's OTEL_* variables never point the service at the backend's files, code or processes
(issue 40): each such variable is a 422 naming it, why, and what to do instead."""

from __future__ import annotations

import pytest

from tracetax.spec.otel_env import local_variable

REFUSED = [
    "OTEL_JAVAAGENT_CONFIGURATION_FILE",
    "OTEL_JAVAAGENT_EXTENSIONS",
    "OTEL_JMX_CONFIG",
    "OTEL_CONFIG_FILE",
    "OTEL_EXPERIMENTAL_CONFIG_FILE",
    "OTEL_EXPORTER_OTLP_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_CLIENT_KEY",
    "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY",
    "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE",
    "OTEL_GO_AUTO_TARGET_EXE",
    "OTEL_GO_AUTO_TARGET_PID",
    "OTEL_PYTHON_SOMETHING_PATH",
    "OTEL_SOME_SDK_LOG_FILE",
]
ALLOWED = [
    "OTEL_BSP_MAX_QUEUE_SIZE",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_INSECURE",
    "OTEL_NODE_RESOURCE_DETECTORS",
    "OTEL_TRACES_SAMPLER_ARG",
    "OTEL_RESOURCE_ATTRIBUTES",
]


@pytest.mark.parametrize("name", REFUSED)
def test_variables_naming_local_files_code_or_processes_are_listed(name: str) -> None:
    assert local_variable(name) is not None


@pytest.mark.parametrize("name", ALLOWED)
def test_ordinary_variables_are_not(name: str) -> None:
    assert local_variable(name) is None
