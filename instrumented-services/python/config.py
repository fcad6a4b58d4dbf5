"""Configuration from the environment, validated before anything else is loaded.

This module imports no OpenTelemetry code: the `none` mode must stay a true baseline. The SDK
itself only warns and falls back on bad values, so every variable the service honours is checked
here and a bad one stops the process (one line on stderr naming the variable, exit code 2).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit

LANGUAGE = "python"
DEFAULT_SERVICE_NAME = "tracetax-demo-python"
PROCESSORS = ("none", "simple", "batch")
PROTOCOLS = ("grpc", "http/protobuf")
EXPORTERS = ("otlp", "none")
SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
RATIO_SAMPLERS = ("traceidratio", "parentbased_traceidratio")

# (variable, minimum, SDK default) for the integer settings; all in milliseconds or item counts.
_INTEGERS = (
    ("OTEL_BSP_SCHEDULE_DELAY", 0, 5000),
    ("OTEL_BSP_MAX_QUEUE_SIZE", 1, 2048),
    ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, 512),
    ("OTEL_BSP_EXPORT_TIMEOUT", 0, 30000),
    ("OTEL_BLRP_SCHEDULE_DELAY", 0, 1000),
    ("OTEL_BLRP_MAX_QUEUE_SIZE", 1, 2048),
    ("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", 1, 512),
    ("OTEL_BLRP_EXPORT_TIMEOUT", 0, 30000),
    ("OTEL_METRIC_EXPORT_INTERVAL", 1, 60000),
    ("OTEL_METRIC_EXPORT_TIMEOUT", 0, 30000),
    ("OTEL_EXPORTER_OTLP_TIMEOUT", 0, 10000),
    ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 0, 10000),
    ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", 0, 10000),
    ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", 0, 10000),
)
_SIGNALS = ("TRACES", "METRICS", "LOGS")
# TRACETAX_INJECT_BUSY_US: a known cost for checking the harness, at most 1 s per request.
MAX_INJECT_BUSY_US = 1_000_000
# TRACETAX_INJECT_BACKGROUND_US every TRACETAX_INJECT_BACKGROUND_PERIOD_MS: a known cost off the
# request path (a background thread), at most 1 s per period of 1 ms..1 h (default 2 s).
MAX_INJECT_BACKGROUND_US = 1_000_000
MAX_INJECT_BACKGROUND_PERIOD_MS = 3_600_000
DEFAULT_INJECT_BACKGROUND_PERIOD_MS = 2000
# TRACETAX_WORKERS: worker processes serving the port (1: uvicorn in this process, as always).
MAX_WORKERS = 64


class ConfigError(Exception):
    """A bad environment variable: the message is the one line printed on stderr."""

    def __init__(self, name: str, value: str, accepted: str) -> None:
        super().__init__(f'invalid {name}="{value}": accepted values: {accepted}')


@dataclass(frozen=True)
class Config:
    processor: str
    port: int
    # Every /work request spins this long on its thread's CPU clock (0: none).
    inject_busy_us: int = 0
    # A background thread spins this much CPU time every inject_background_period_ms (0: none).
    inject_background_us: int = 0
    inject_background_period_ms: int = DEFAULT_INJECT_BACKGROUND_PERIOD_MS
    # The signals set up ("TRACES", "METRICS", "LOGS"): OTEL_<signal>_EXPORTER is not `none` and
    # OTEL_SDK_DISABLED is not `true`. An off signal keeps the API's no-op provider.
    signals: frozenset[str] = frozenset(_SIGNALS)
    # Worker processes serving the port (TRACETAX_WORKERS); 1: one uvicorn server in this process.
    workers: int = 1


def _get(env: dict[str, str], name: str) -> str | None:
    """The value of a variable; an empty value counts as unset (as the OTel spec says)."""
    value = env.get(name, "").strip()
    return value or None


def _integer(env: dict[str, str], name: str, minimum: int) -> int | None:
    raw = _get(env, name)
    if raw is None:
        return None
    if not re.fullmatch(r"[0-9]+", raw) or int(raw) < minimum:
        raise ConfigError(name, raw, f"an integer >= {minimum}")
    return int(raw)


def load(env: dict[str, str] | None = None) -> Config:
    """Validate the environment; raise ConfigError naming the first bad variable."""
    env = dict(os.environ) if env is None else env

    processor = (_get(env, "TRACETAX_PROCESSOR") or "batch").lower()
    if processor not in PROCESSORS:
        raise ConfigError("TRACETAX_PROCESSOR", env["TRACETAX_PROCESSOR"], "|".join(PROCESSORS))

    port_raw = _get(env, "PORT") or "8080"
    if not re.fullmatch(r"[0-9]{1,5}", port_raw) or not 1 <= int(port_raw) <= 65535:
        raise ConfigError("PORT", port_raw, "an integer 1..65535")

    busy_raw = _get(env, "TRACETAX_INJECT_BUSY_US") or "0"
    if not re.fullmatch(r"[0-9]{1,7}", busy_raw) or int(busy_raw) > MAX_INJECT_BUSY_US:
        accepted = "an integer 0..1000000 (microseconds of busy-wait per /work request; unset: 0)"
        raise ConfigError("TRACETAX_INJECT_BUSY_US", busy_raw, accepted)

    background_raw = _get(env, "TRACETAX_INJECT_BACKGROUND_US") or "0"
    if not re.fullmatch(r"[0-9]{1,7}", background_raw) or int(background_raw) > MAX_INJECT_BACKGROUND_US:
        accepted = "an integer 0..1000000 (microseconds of background busy-wait per period; unset: 0)"
        raise ConfigError("TRACETAX_INJECT_BACKGROUND_US", background_raw, accepted)
    period_raw = _get(env, "TRACETAX_INJECT_BACKGROUND_PERIOD_MS") or str(DEFAULT_INJECT_BACKGROUND_PERIOD_MS)
    if not re.fullmatch(r"[0-9]{1,7}", period_raw) or not 1 <= int(period_raw) <= MAX_INJECT_BACKGROUND_PERIOD_MS:
        accepted = "an integer 1..3600000 (milliseconds between background bursts; unset: 2000)"
        raise ConfigError("TRACETAX_INJECT_BACKGROUND_PERIOD_MS", period_raw, accepted)

    workers_raw = _get(env, "TRACETAX_WORKERS") or "1"
    if not re.fullmatch(r"[0-9]{1,2}", workers_raw) or not 1 <= int(workers_raw) <= MAX_WORKERS:
        accepted = f"an integer 1..{MAX_WORKERS} (worker processes serving the port; unset: 1)"
        raise ConfigError("TRACETAX_WORKERS", workers_raw, accepted)

    values: dict[str, int | None] = {}
    for name, minimum, _default in _INTEGERS:
        values[name] = _integer(env, name, minimum)
    for prefix in ("OTEL_BSP", "OTEL_BLRP"):
        defaults = {n: d for n, _m, d in _INTEGERS}
        queue_name, batch_name = f"{prefix}_MAX_QUEUE_SIZE", f"{prefix}_MAX_EXPORT_BATCH_SIZE"
        queue = values[queue_name] or defaults[queue_name]
        batch = values[batch_name] or defaults[batch_name]
        if batch > queue:
            raise ConfigError(batch_name, str(batch), f"an integer >= 1 and <= {queue_name} ({queue})")

    for name in ["OTEL_EXPORTER_OTLP_PROTOCOL"] + [f"OTEL_EXPORTER_OTLP_{s}_PROTOCOL" for s in _SIGNALS]:
        raw = _get(env, name)
        if raw is not None and raw not in PROTOCOLS:
            raise ConfigError(name, raw, "|".join(PROTOCOLS))

    for name in ["OTEL_EXPORTER_OTLP_ENDPOINT"] + [f"OTEL_EXPORTER_OTLP_{s}_ENDPOINT" for s in _SIGNALS]:
        raw = _get(env, name)
        if raw is None:
            continue
        try:
            parts = urlsplit(raw)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(name, raw, "an http:// or https:// URL, e.g. http://127.0.0.1:4318")

    sampler = _get(env, "OTEL_TRACES_SAMPLER")
    if sampler is not None and sampler.lower() not in SAMPLERS:
        raise ConfigError("OTEL_TRACES_SAMPLER", sampler, "|".join(SAMPLERS))
    sampler_arg = _get(env, "OTEL_TRACES_SAMPLER_ARG")
    if sampler is not None and sampler.lower() in RATIO_SAMPLERS and sampler_arg is not None:
        try:
            ratio = float(sampler_arg)
        except ValueError:
            ratio = -1.0
        if not 0.0 <= ratio <= 1.0:
            raise ConfigError("OTEL_TRACES_SAMPLER_ARG", sampler_arg, "a number in [0, 1] for a ratio sampler")

    attrs = _get(env, "OTEL_RESOURCE_ATTRIBUTES")
    if attrs is not None:
        for item in attrs.split(","):
            key, sep, _value = item.partition("=")
            if item.strip() and (not sep or not key.strip()):
                raise ConfigError("OTEL_RESOURCE_ATTRIBUTES", attrs, "comma-separated key=value pairs")

    return Config(
        processor=processor,
        port=int(port_raw),
        inject_busy_us=int(busy_raw),
        inject_background_us=int(background_raw),
        inject_background_period_ms=int(period_raw),
        signals=_signals(env),
        workers=int(workers_raw),
    )


def _signals(env: dict[str, str]) -> frozenset[str]:
    """The standard switches, which this service honours itself (it builds its providers by hand)."""
    exporters = {}
    for signal in _SIGNALS:
        name = f"OTEL_{signal}_EXPORTER"
        raw = _get(env, name)
        if raw is not None and raw.lower() not in EXPORTERS:
            raise ConfigError(name, raw, "|".join(EXPORTERS))
        exporters[signal] = (raw or "otlp").lower()
    disabled = _get(env, "OTEL_SDK_DISABLED")
    if disabled is not None and disabled.lower() not in ("true", "false"):
        raise ConfigError("OTEL_SDK_DISABLED", disabled, "true|false")
    if disabled is not None and disabled.lower() == "true":
        return frozenset()
    return frozenset(signal for signal, exporter in exporters.items() if exporter != "none")


def load_or_exit() -> Config:
    try:
        return load()
    except ConfigError as err:
        print(f"{DEFAULT_SERVICE_NAME}: {err}", file=sys.stderr)
        sys.exit(2)
