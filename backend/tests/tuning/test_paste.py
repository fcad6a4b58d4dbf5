"""The pasteable blocks round-trip: parsed back, each equals the recommended variables."""

from __future__ import annotations

import pytest

from tracetax.tuning.candidates import Setting
from tracetax.tuning.paste import blocks, parse_env_block, parse_java_block, parse_kubernetes_block

RECOMMENDED = [
    Setting(queue=16384, batch=1000, delay_ms=1000, timeout_ms=2000).env(),
    Setting(queue=4096, batch=512, delay_ms=200, timeout_ms=1000, sampler_ratio=0.25).env(),
]


@pytest.mark.parametrize("env", RECOMMENDED)
def test_every_block_parses_back_to_the_recommended_env(env: dict[str, str]) -> None:
    pasted = blocks(env)
    assert parse_env_block(pasted["env"]) == env
    assert parse_java_block(pasted["java"]) == env
    assert parse_kubernetes_block(pasted["kubernetes"]) == env


def test_java_uses_the_sdks_property_names() -> None:
    assert blocks({"OTEL_BSP_MAX_QUEUE_SIZE": "16384"})["java"] == "-Dotel.bsp.max.queue.size=16384"


def test_kubernetes_values_stay_strings() -> None:
    assert "value: '16384'" in blocks({"OTEL_BSP_MAX_QUEUE_SIZE": "16384"})["kubernetes"]
