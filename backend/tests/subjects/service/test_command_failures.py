"""A service of your own that fails to start: the round fails with the cause named and the
service's last log lines, and nothing it started is left running. Real processes, no stack."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tracetax.engine.loadgen import OhaDriver
from tracetax.engine.round import RoundOutcome
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.runner import RoundContext, run_round
from tracetax.system.placement import Placement
from tracetax.system.ports import free_port

SERVER = Path(__file__).parents[2] / "fixtures" / "plain_server.py"


def run(tmp_path: Path, argv: list[str], port: int, **service: object) -> RoundOutcome:
    spec = ExperimentSpec.model_validate(
        {
            "service": {"kind": "command", "argv": argv, "port": port, "startup_timeout_s": 3, **service},
            "configurations": [{"preset": "none"}],
            "load": {"rate": 10, "warmup_s": 0, "duration_s": 1, "max_throughput_s": 0},
            "rounds": 1,
            "sample_stacks": False,
        }
    )
    return run_round(
        RoundContext(
            spec=spec,
            configuration=spec.baseline,
            manifest=None,
            run_id="failure-test",
            workdir=tmp_path / "round",
            otlp_endpoint="http://127.0.0.1:9",
            placement=Placement(service_cpus=None, loadgen_cpus=None),
            driver=OhaDriver(),
            cancel=threading.Event(),
            report=lambda *_: None,
        )
    )


def children_of_test() -> set[int]:
    """Live descendants of this test process (a session fixture's servers included)."""
    return {p.pid for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != "zombie"}


@pytest.fixture(autouse=True)
def nothing_left_running() -> Iterator[None]:
    before = children_of_test()
    yield
    assert children_of_test() - before == set()


def test_a_service_that_exits_at_once_fails_the_round_with_its_last_lines(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; print('config file not found: /etc/app.yaml'); sys.exit(3)"]
    outcome = run(tmp_path, argv, free_port())
    assert outcome.status == "failed"
    assert "exited with code 3 before it was healthy" in (outcome.error or "")
    assert "config file not found" in (outcome.service_log_tail or "")


def test_a_service_that_never_becomes_healthy_is_stopped(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import time; print('starting slowly', flush=True); time.sleep(60)"]
    outcome = run(tmp_path, argv, free_port())
    assert outcome.status == "failed"
    assert "was not healthy" in (outcome.error or "") and "within 3s" in (outcome.error or "")
    assert "starting slowly" in (outcome.service_log_tail or "")


def test_a_service_listening_on_another_port_is_told_so(tmp_path: Path) -> None:
    declared, actual = free_port(), free_port()
    # plain_server.py listens on $PORT, which the engine sets to the declared port; a service
    # that ignores it listens elsewhere:
    argv = [sys.executable, "-c", f"import os; os.environ['PORT'] = '{actual}'; exec(open({str(SERVER)!r}).read())"]
    outcome = run(tmp_path, argv, declared)
    assert outcome.status == "failed"
    assert f"it listens on port {actual}, not on the declared port {declared}" in (outcome.error or "")


def test_a_port_already_taken_is_named_with_its_holder(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        outcome = run(tmp_path, [sys.executable, str(SERVER)], port)
    assert outcome.status == "failed"
    assert f"port {port} (service.port) is already in use" in (outcome.error or "")


@pytest.mark.parametrize("argv", [["/nonexistent/program"], ["./not-here"]])
def test_a_program_that_does_not_exist_is_named(tmp_path: Path, argv: list[str]) -> None:
    outcome = run(tmp_path, argv, free_port())
    assert outcome.status == "failed"
    assert "cannot start" in (outcome.error or "") and argv[0] in (outcome.error or "")


def test_a_port_left_in_time_wait_is_free_for_the_next_round(tmp_path: Path) -> None:
    from tracetax.system.ports import port_in_use

    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the server's side closes first: its port goes to TIME_WAIT
        client.close()
    assert port_in_use(port) is False
