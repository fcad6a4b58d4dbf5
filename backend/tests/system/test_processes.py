"""Process groups with real processes: pinning, stopping a tree, and reaping what a dead
engine left behind (never a process whose pid was recycled)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracetax.system import processes, procfs

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]
# A parent that starts a child in its own process group, then sleeps.
PARENT_WITH_CHILD = [
    sys.executable,
    "-c",
    "import subprocess, sys, time\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "time.sleep(600)\n",
]


def running(pid: int) -> bool:
    return procfs.start_time(pid) is not None


def wait_for_children(pid: int, count: int, timeout_s: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        members = [stat.pid for stat in procfs.group_members(pid) if stat.pid != pid]
        if len(members) >= count:
            return members
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} did not start {count} children")


def a_dead_owner() -> dict[str, object]:
    """The pid and start time of a process that has exited (a killed engine)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    start = procfs.start_time(gone.pid)
    gone.wait()
    return {"pid": gone.pid, "start_time": start or "1"}


def test_spawn_pins_the_child_and_its_threads(tmp_path: Path) -> None:
    cpu = max(os.sched_getaffinity(0))
    process = processes.spawn(SLEEPER, cpus={cpu})
    try:
        status = procfs.read_status(process.pid)
        assert status is not None and procfs.cpus_allowed(status) == {cpu}
        stat = procfs.read_stat(process.pid)
        assert stat is not None and stat.pgid == process.pid, "the child leads a process group of its own"
    finally:
        processes.kill(process)


def test_stop_terminates_then_kills_the_whole_group() -> None:
    process = processes.spawn(PARENT_WITH_CHILD)
    child = wait_for_children(process.pid, 1)[0]
    code = processes.stop(process, grace_s=2)
    assert code == -15  # SIGTERM's default action ended the parent
    deadline = time.monotonic() + 5
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(child), "the child in the service's group outlived stop()"


def test_tracked_process_is_recorded_until_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path))
    process = processes.spawn(SLEEPER, track="service")
    try:
        entries = processes.registry().entries()
        assert [(e["pid"], e["role"]) for e in entries] == [(process.pid, "service")]
        assert entries[0]["start_time"] == procfs.start_time(process.pid)
        assert entries[0]["owner"]["pid"] == os.getpid()
        # Its owner (this process) is alive: never reaped from under it.
        assert processes.reap_leftovers() == []
        assert running(process.pid)
    finally:
        processes.stop(process, 1)
    assert processes.registry().entries() == []


def test_leftovers_of_a_dead_engine_are_reaped(tmp_path: Path) -> None:
    path = tmp_path / "run" / "measurement" / "processes.json"
    leftover = processes.spawn(PARENT_WITH_CHILD)
    child = wait_for_children(leftover.pid, 1)[0]
    registry = processes.registry(path)
    registry.add(leftover.pid, "service", PARENT_WITH_CHILD)
    data = json.loads(path.read_text())
    data["processes"][0]["owner"] = a_dead_owner()
    path.write_text(json.dumps(data))

    reaped = processes.reap_leftovers(path, grace_s=2)

    assert len(reaped) == 1 and f"service pid {leftover.pid}" in reaped[0]
    leftover.wait(5)
    deadline = time.monotonic() + 5
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(child)
    assert registry.entries() == []


def test_a_recycled_pid_is_never_signalled(tmp_path: Path) -> None:
    path = tmp_path / "processes.json"
    bystander = processes.spawn(SLEEPER)
    try:
        # The record names the bystander's pid but another start time: the recorded process
        # is gone and the pid now belongs to someone else.
        record = {"pid": bystander.pid, "start_time": "1", "role": "service", "argv": [], "owner": a_dead_owner()}
        path.write_text(json.dumps({"processes": [record]}))
        assert processes.reap_leftovers(path) == []
        assert running(bystander.pid)
        assert not path.exists(), "the stale record is dropped"
    finally:
        processes.kill(bystander)


def test_stop_group_of_a_process_that_is_not_our_child() -> None:
    process = processes.spawn(PARENT_WITH_CHILD)
    wait_for_children(process.pid, 1)
    assert processes.stop_group(process.pid, grace_s=2)
    process.wait(5)
    assert not procfs.group_alive(process.pid)
