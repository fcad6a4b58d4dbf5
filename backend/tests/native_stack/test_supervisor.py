"""The supervisor with real processes: start, readiness, failures, and that nothing is left behind."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tracetax.native_stack.components import Component
from tracetax.native_stack.supervisor import StackError, Supervisor, format_table, http_ready, port_is_free
from tracetax.native_stack.watch import UNKNOWN_EXIT, WATCHER, read_supervision
from tracetax.system.ports import free_port


def http_server(name: str, port: int, timeout_s: float = 10.0) -> Component:
    """A real HTTP server process standing in for a stack component."""
    return Component(
        name=name,
        url=f"http://127.0.0.1:{port}",
        ready_url=f"http://127.0.0.1:{port}/",
        argv=(sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"),
        ports=(port,),
        start_timeout_s=timeout_s,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "state"


def test_up_status_down_leaves_no_process(state: Path) -> None:
    components = [http_server("alpha", free_port()), http_server("beta", free_port())]
    supervisor = Supervisor(state, components, report=lambda _: None)

    statuses = supervisor.up()

    assert [s.ready for s in statuses] == [True, True]
    pids = [supervisor.running_pid(c.name) for c in components]
    assert all(pid is not None and alive(pid) for pid in pids)
    assert (state / "logs" / "alpha.log").exists()
    supervisor.down()
    assert not any(alive(pid) for pid in pids if pid is not None)
    assert list((state / "run").glob("*.json")) == []
    assert all(s.detail == "not running" for s in supervisor.status())


def test_second_up_reuses_running_processes(state: Path) -> None:
    component = http_server("alpha", free_port())
    supervisor = Supervisor(state, [component], report=lambda _: None)
    supervisor.up()
    first = supervisor.running_pid("alpha")
    try:
        supervisor.up()
        assert supervisor.running_pid("alpha") == first
    finally:
        supervisor.down()


def test_taken_port_names_component_and_port_and_stops_what_started(state: Path) -> None:
    taken = free_port()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", taken))
    blocker.listen()
    first = http_server("alpha", free_port())
    second = http_server("beta", taken)
    supervisor = Supervisor(state, [first, second], report=lambda _: None)
    try:
        with pytest.raises(StackError) as raised:
            supervisor.up()
    finally:
        blocker.close()
    message = str(raised.value)
    assert "beta" in message
    assert f"port {taken} is already in use" in message
    assert supervisor.running_pid("alpha") is None, "alpha was started before the clash and must be stopped"


def test_component_that_exits_reports_its_log(state: Path) -> None:
    crashing = Component(
        name="crasher",
        url="http://127.0.0.1:1",
        ready_url=f"http://127.0.0.1:{free_port()}/",
        argv=(sys.executable, "-c", "import sys; print('bad config: line 3'); sys.exit(3)"),
        ports=(),
        start_timeout_s=60,
    )
    supervisor = Supervisor(state, [crashing], report=lambda _: None)
    with pytest.raises(StackError) as raised:
        supervisor.up()
    message = str(raised.value)
    assert "crasher" in message
    assert "FAILED" in message
    assert str(state / "logs" / "crasher.log") in message
    assert "bad config: line 3" in message


def test_component_never_ready_is_stopped_with_its_children(state: Path) -> None:
    port = free_port()
    # Listens (so the port is taken) but answers 500 forever; spawns a child to prove
    # the whole process group goes down.
    script = (
        "import http.server, subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        self.send_response(500); self.end_headers()\n"
        "    def log_message(self, *a): pass\n"
        f"http.server.HTTPServer(('127.0.0.1', {port}), H).serve_forever()\n"
    )
    stuck = Component(
        name="stuck",
        url=f"http://127.0.0.1:{port}",
        ready_url=f"http://127.0.0.1:{port}/ready",
        argv=(sys.executable, "-c", script),
        ports=(port,),
        start_timeout_s=2,
    )
    supervisor = Supervisor(state, [stuck], report=lambda _: None)
    with pytest.raises(StackError) as raised:
        supervisor.up()
    assert "not ready after 2s" in str(raised.value)
    assert "HTTP 500" in str(raised.value)
    time.sleep(0.2)
    group_members = [p for p in Path("/proc").glob("[0-9]*/cmdline") if b"time.sleep(600)" in p.read_bytes()]
    assert group_members == [], "the component's child process survived `down`"


def test_recycled_pid_is_not_trusted(state: Path) -> None:
    (state / "run").mkdir(parents=True)
    # pid 1 exists but was not started by us: the start time in the pid file does not match.
    (state / "run" / "ghost.json").write_text('{"pid": 1, "start_time": "0", "argv": []}')
    supervisor = Supervisor(state, [], report=lambda _: None)
    assert supervisor.running_pid("ghost") is None
    supervisor.down()  # must not signal pid 1
    assert alive(1)


def test_down_stops_a_component_that_ignores_sigterm(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tracetax.native_stack.supervisor.STOP_GRACE_S", 1.0)
    port = free_port()
    script = (
        "import signal, socket, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen()\n"
        "time.sleep(600)\n"
    )
    stubborn = Component(name="stubborn", url="", ready_url="", argv=(sys.executable, "-c", script), ports=(port,))
    supervisor = Supervisor(state, [stubborn], report=lambda _: None)
    pid = supervisor.start(stubborn)
    time.sleep(0.3)
    supervisor.down()
    assert not alive(pid)
    assert port_is_free(port)


def test_format_table_shows_log_for_failures_only() -> None:
    from tracetax.native_stack.supervisor import ComponentStatus

    table = format_table(
        [
            ComponentStatus("tempo", "http://127.0.0.1:3200", True),
            ComponentStatus("loki", "http://127.0.0.1:3100", False, "HTTP 503 ingester not ready", Path("/s/loki.log")),
        ]
    )
    lines = table.splitlines()
    assert lines[0].split() == ["component", "url", "status", "log", "/", "detail"]
    assert lines[1].split()[:3] == ["tempo", "http://127.0.0.1:3200", "ready"]
    assert "/s/loki.log" in lines[2]
    assert "FAILED" in lines[2]
    assert "HTTP 503" in lines[2]


def test_missing_binary_says_how_to_build(state: Path) -> None:
    missing = Component(name="tempo", url="", ready_url="", argv=("/nonexistent/tempo-v1",), ports=())
    with pytest.raises(StackError, match=r"tempo: binary /nonexistent/tempo-v1 is missing; run `make up`"):
        Supervisor(state, [missing], report=lambda _: None).up()


def test_signal_module_is_posix() -> None:
    # The supervisor relies on process groups; make the assumption explicit.
    assert hasattr(os, "killpg") and signal.SIGKILL


def test_components_run_on_the_stack_cores(state: Path) -> None:
    from tracetax.system import procfs

    core = min(os.sched_getaffinity(0))
    component = http_server("alpha", free_port())
    supervisor = Supervisor(state, [component], report=lambda _: None, cpus={core})
    supervisor.up()
    try:
        pid = supervisor.running_pid("alpha")
        assert pid is not None
        for tid in procfs.tids(pid):  # every thread, pinned before exec
            status = procfs.read_status(pid, tid)
            assert status is not None and procfs.cpus_allowed(status) == {core}
    finally:
        supervisor.down()


def test_a_bad_cpu_override_stops_start_naming_the_variable(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_SERVICE_CPUS", "many")
    supervisor = Supervisor(state, [http_server("alpha", free_port())], report=lambda _: None)
    with pytest.raises(StackError, match="TRACETAX_SERVICE_CPUS='many'"):
        supervisor.up()


# A watcher process as `stack up` starts one (`tracetax stack watch` builds the real stack's
# components; this one watches a single HTTP server).
WATCHER_SCRIPT = """
import signal, sys, threading
from pathlib import Path
from tracetax.native_stack.components import Component
from tracetax.native_stack.supervisor import Supervisor
state, name, port = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
argv = (sys.executable, "-m", "http.server", port, "--bind", "127.0.0.1")
component = Component(name=name, url="", ready_url=f"http://127.0.0.1:{port}/", argv=argv, ports=(int(port),))
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
Supervisor(state, [component], report=lambda line: print(line, flush=True)).keep_up(stop)
"""


def wait_for(condition: Callable[[], object], timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def restarts_of(state: Path, name: str) -> dict[str, Any]:
    supervision = read_supervision(state)
    return supervision.components.get(name, {}) if supervision else {}


def test_the_watcher_starts_again_what_exits_counts_it_and_down_stops_it_first(state: Path) -> None:
    port = free_port()
    component = http_server("alpha", port)
    watcher_argv = (sys.executable, "-c", WATCHER_SCRIPT, str(state), "alpha", str(port))
    supervisor = Supervisor(state, [component], report=lambda _: None, watcher_argv=watcher_argv)
    supervisor.up()
    watcher = supervisor.running_pid(WATCHER)
    try:
        assert watcher is not None and alive(watcher)
        first = supervisor.running_pid("alpha")
        assert first is not None
        wait_for(lambda: restarts_of(state, "alpha").get("state") == "running")

        os.kill(first, signal.SIGKILL)  # started by `up`: how it ended is not the watcher's to know
        wait_for(lambda: restarts_of(state, "alpha").get("restarts") == 1)
        second = supervisor.running_pid("alpha")
        assert second not in (None, first)
        assert restarts_of(state, "alpha")["last_exit"] == UNKNOWN_EXIT
        wait_for(lambda: http_ready(component.ready_url)[0])

        assert second is not None
        os.kill(second, signal.SIGKILL)  # the watcher started this one: it knows
        wait_for(lambda: restarts_of(state, "alpha").get("restarts") == 2)
        assert restarts_of(state, "alpha")["last_exit"] == "killed by SIGKILL"
        wait_for(lambda: supervisor.status()[0].ready)
        row = supervisor.status()[0]
        assert row.restarts.startswith("restarted 2x, last: killed by SIGKILL at "), row
        assert "watcher: running" in supervisor.watcher_line()
        assert "restarted 2x" in format_table(supervisor.status())
        log = (state / "logs" / "watcher.log").read_text()
        assert "alpha killed by SIGKILL; starting it again in 2 s" in log, log
    finally:
        supervisor.down()
    third = supervisor.running_pid("alpha")
    assert third is None and not alive(watcher)
    time.sleep(2.5)  # longer than the backoff: nothing starts it again after `down`
    assert supervisor.running_pid("alpha") is None and port_is_free(port)
    assert "NOT running" in supervisor.watcher_line()
    supervision = read_supervision(state)
    assert supervision is not None and supervision.watching is False


def test_two_starters_of_one_component_start_it_once(state: Path) -> None:
    component = http_server("alpha", free_port())
    first, second = Supervisor(state, [component], report=lambda _: None), Supervisor(state, [component])
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            pids = list(pool.map(lambda supervisor: supervisor.start(component), (first, second)))
        assert pids[0] == pids[1]  # the second waited for the first and found it running
    finally:
        first.down()
