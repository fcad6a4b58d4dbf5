"""SIGTERM to a real uvicorn with an experiment running and its event stream open: the stream
ends, the round's service gets its own SIGTERM and flushes, the experiment is marked
interrupted, and the backend exits within TRACETAX_SHUTDOWN_GRACE_S. Before, uvicorn waited
for the open stream forever and the service was never stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tracetax.db import repository as repo
from tracetax.db.session import make_engine, session_factory
from tracetax.system.ports import free_port

GRACE_S = 12.0
TOKEN = "graceful-shutdown-test-token"
BACKEND = Path(__file__).resolve().parents[2]


def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    port, markers = free_port(), tmp_path / "markers"
    markers.mkdir()
    env = {
        **os.environ,
        "MARKERS": str(markers),
        "TRACETAX_STATE_DIR": str(tmp_path / "state"),
        "TRACETAX_DATABASE_URL": f"sqlite:///{tmp_path / 'tracetax.db'}",
        "TRACETAX_WORK_DIR": str(tmp_path / "work"),
        "TRACETAX_FRONTEND_DIST": str(tmp_path / "no-ui"),
        "TRACETAX_API_TOKEN": TOKEN,
        "TRACETAX_SHUTDOWN_GRACE_S": str(GRACE_S),
        "TRACETAX_TEMPO_URL": closed_url(),
        "TRACETAX_LOKI_URL": closed_url(),
        "TRACETAX_METRICS_URL": closed_url(),
        "TRACETAX_COLLECTOR_HEALTH_URL": closed_url(),
        "TRACETAX_HEALTH_PROBE_TIMEOUT_S": "0.5",
        "TRACETAX_LEDGER_SETTLE_S": "0",
        # The stores are closed on purpose: the round must start anyway, not wait for them.
        "TRACETAX_STACK_WAIT": "false",
    }
    argv = [sys.executable, "-m", "uvicorn", "tests.fixtures.shutdown_app:create_app", "--factory"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", str(int(GRACE_S))]
    server = subprocess.Popen(argv, cwd=BACKEND, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stdout.read().decode() if server.stdout else ""
            try:
                if httpx.get(f"{base}/api/health/live", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield server, base, tmp_path
    finally:
        if server.poll() is None:
            server.kill()
        server.wait(10)


def test_sigterm_with_an_open_stream_stops_within_the_grace(
    backend: tuple[subprocess.Popen[bytes], str, Path],
) -> None:
    server, base, tmp_path = backend
    headers = {"Authorization": f"Bearer {TOKEN}"}
    spec = {
        "name": "held",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "rounds": 1,
    }
    created = httpx.post(f"{base}/api/v1/experiments", json=spec, headers=headers, timeout=30)
    assert created.status_code == 202, created.text
    experiment_id = created.json()["id"]

    stream_lines: list[str] = []
    stream_ended = threading.Event()

    def follow() -> None:
        url = f"{base}/api/v1/experiments/{experiment_id}/events"
        with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=60)) as response:
            for line in response.iter_lines():
                stream_lines.append(line)
        stream_ended.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not (tmp_path / "markers" / "measuring").exists() or not any('"measuring"' in x for x in stream_lines):
        assert time.monotonic() < deadline, f"the round never started: {stream_lines}"
        assert server.poll() is None
        time.sleep(0.1)

    signalled = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(GRACE_S + 5)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the backend did not stop within {GRACE_S + 5:.0f} s of SIGTERM")
    took = time.monotonic() - signalled
    output = server.stdout.read().decode() if server.stdout else ""

    assert took < GRACE_S, f"stopped in {took:.1f} s\n{output}"
    assert stream_ended.wait(5), "the event stream was still open"
    assert any("the backend is stopping" in line for line in stream_lines), stream_lines
    assert (tmp_path / "markers" / "flushed").exists(), f"the service got no SIGTERM to flush on\n{output}"
    database = make_engine(f"sqlite:///{tmp_path / 'tracetax.db'}")
    try:
        with session_factory(database)() as session:
            experiment = repo.get_experiment(session, experiment_id)
            assert experiment is not None
            assert experiment.status == "interrupted", (experiment.status, experiment.error)
            assert {r.status for r in experiment.rounds} == {"interrupted"}
    finally:
        database.dispose()
