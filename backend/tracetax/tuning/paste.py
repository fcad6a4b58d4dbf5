"""The recommended setting as blocks ready to paste, and their parsers: parsed back, each block
gives exactly the variables it was made from (what the tuner's test checks).

- environment: `NAME=value` lines (a shell, a .env file, a Dockerfile's ENV);
- Java system properties: the SDK's property names (`otel.bsp.max.queue.size`) as `-D` options
  (JAVA_TOOL_OPTIONS, a launcher script);
- Kubernetes: a container's `env:` list.
"""

from __future__ import annotations

import shlex
from typing import Any

import yaml


def env_block(env: dict[str, str]) -> str:
    return "".join(f"{name}={shlex.quote(value)}\n" for name, value in env.items())


def parse_env_block(text: str) -> dict[str, str]:
    parsed = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            parsed[name.strip()] = shlex.split(value)[0] if value.strip() else ""
    return parsed


def java_property(name: str) -> str:
    """OTEL_BSP_MAX_QUEUE_SIZE -> otel.bsp.max.queue.size (the SDK's own mapping)."""
    return name.lower().replace("_", ".")


def java_block(env: dict[str, str]) -> str:
    return " ".join(shlex.quote(f"-D{java_property(name)}={value}") for name, value in env.items())


def parse_java_block(text: str) -> dict[str, str]:
    parsed = {}
    for option in shlex.split(text):
        name, _, value = option.removeprefix("-D").partition("=")
        parsed[name.upper().replace(".", "_")] = value
    return parsed


def kubernetes_block(env: dict[str, str]) -> str:
    entries = [{"name": name, "value": value} for name, value in env.items()]
    return yaml.safe_dump({"env": entries}, sort_keys=False, default_flow_style=False)


def parse_kubernetes_block(text: str) -> dict[str, str]:
    document: Any = yaml.safe_load(text)
    return {str(entry["name"]): str(entry["value"]) for entry in document["env"]}


def blocks(env: dict[str, str]) -> dict[str, str]:
    return {"env": env_block(env), "java": java_block(env), "kubernetes": kubernetes_block(env)}
