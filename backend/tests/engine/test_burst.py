"""A burst in the measured phase: the steps it makes, and oha running them on time against a
real server (python -m http.server), merged into one phase."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tracetax.demos.process import ServiceProcess
from tracetax.engine.loadgen import OhaDriver, Requests
from tracetax.spec.service import LoadSpec
from tracetax.system import processes
from tracetax.system.ports import free_port


def test_a_burst_makes_three_steps() -> None:
    load = LoadSpec.model_validate(
        {"rate": 100, "duration_s": 10, "burst": {"start_s": 4, "duration_s": 2, "multiplier": 5}}
    )
    assert load.steps() == [(4, 100), (2, 500), (4, 100)]
    at_start = LoadSpec.model_validate(
        {"rate": 10, "duration_s": 3, "burst": {"start_s": 0, "duration_s": 3, "multiplier": 2}}
    )
    assert at_start.steps() == [(3, 20)]


def test_a_burst_past_the_phase_is_refused_naming_the_fields() -> None:
    with pytest.raises(ValidationError, match=r"burst\.start_s or shorten burst\.duration_s"):
        LoadSpec.model_validate(
            {"rate": 10, "duration_s": 5, "burst": {"start_s": 4, "duration_s": 2, "multiplier": 3}}
        )


@pytest.mark.services
def test_oha_runs_each_step_at_its_rate_into_one_phase(tmp_path: Path) -> None:
    driver = OhaDriver()
    if not driver.binary.exists():
        pytest.fail(f"oha is missing at {driver.binary}: run `make tools`")
    port = free_port()
    server = ServiceProcess(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path,
        env={},
        port=port,
        log_path=tmp_path / "server.log",
        health_path="/",
        track=None,
    )
    with server:
        server.wait_healthy(10)
        running = driver.start_open(
            Requests.get(f"{server.base_url}/"),
            20,
            3,
            4,
            tmp_path / "load",
            None,
            schedule=[(1, 20), (1, 100), (1, 20)],
        )
        running.process.wait(30)
        processes.forget(running.process)
        running.check()
        result = driver.open_result(running)
    assert result.duration_s == 3
    assert 120 <= result.requests <= 150, result.requests  # 20 + 100 + 20
    # Each step's requests land in its own second of the phase: about 20, 100, 20.
    counts = [count for _, count, _ in result.per_second]
    assert max(counts) >= 70 and counts.index(max(counts)) in (1, 2), result.per_second
