"""Through the API (issue 21, items 2-4): a pipeline spec cannot have the backend echo its
environment or a file, nor read a file outside the overlays directories, nor /dev/zero.
Each refusal is a 422 naming the field, and nothing is queued."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import offline_headers
from tracetax.core.config import Settings
from tracetax.main import create_app

EXPERIMENTS = "/api/v1/experiments"
SECRET = "postgresql://tracetax:hunter2-api-secret@db.internal/tracetax"


def pipeline_spec(variant: dict[str, Any]) -> dict[str, Any]:
    """`variant` alone, as the baseline: no other variant for the Collector to validate."""
    return {
        "subject": "collector",
        "configurations": [{**variant, "baseline": True}],
        "load": {"spans_per_s": 1000, "duration_s": 2},
        "rounds": 1,
    }


def locations(response: Any) -> list[tuple[Any, ...]]:
    return [tuple(item["loc"]) for item in response.json()["detail"]]


@pytest.mark.parametrize("reference", ["${env:TRACETAX_DATABASE_URL}", "${file:/etc/passwd}"])
def test_a_setting_asking_for_expansion_is_a_422_at_its_key_echoing_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, reference: str
) -> None:
    monkeypatch.setenv("TRACETAX_DATABASE_URL", SECRET)
    variant = {"pipeline": "batch-tuned", "settings": {"LAB_BATCH_TIMEOUT": reference}}
    response = client.post(EXPERIMENTS, json=pipeline_spec(variant))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "configurations", 0, "settings", "LAB_BATCH_TIMEOUT")]
    assert "values are literal" in response.text
    assert SECRET not in response.text and "hunter2" not in response.text
    assert "root:" not in response.text
    assert client.get(EXPERIMENTS).json() == []


def test_a_config_file_outside_the_overlays_directories_is_a_422_naming_them(client: TestClient) -> None:
    response = client.post(EXPERIMENTS, json=pipeline_spec({"name": "passwd", "config_file": "/etc/passwd"}))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "configurations", 0, "config_file")]
    message = response.json()["detail"][0]["msg"]
    assert "collector-pipelines/lab" in message and "TRACETAX_PIPELINE_OVERLAYS_DIR" in message
    assert "root:" not in response.text


def test_dev_zero_is_a_422_without_being_read(offline_settings: Settings) -> None:
    # Even where /dev were the overlays directory: no regular file (read whole, it never ends).
    settings = offline_settings.model_copy(update={"pipeline_overlays_dir": Path("/dev")})
    with TestClient(create_app(settings, run_experiments=False), headers=offline_headers()) as client:
        response = client.post(EXPERIMENTS, json=pipeline_spec({"name": "zero", "config_file": "/dev/zero"}))
        assert response.status_code == 422, response.text
        assert locations(response) == [("body", "configurations", 0, "config_file")]
        assert "a character device, not a regular file" in response.json()["detail"][0]["msg"]
        assert client.get(EXPERIMENTS).json() == []
