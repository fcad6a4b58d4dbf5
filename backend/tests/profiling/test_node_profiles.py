"""NodeCpuProfile with several processes (the Node demo's cluster workers): it waits for every
new .cpuprofile and folds their sum; one process is handled as before. The service is faked:
the sampler's SIGUSR2 "stop" writes synthetic profiles the way cpu-profiler.js does (a .tmp
file, then renamed), at once or a little later from a thread."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from tests.profiling.test_samplers import profile
from tracetax.profiling.samplers import NodeCpuProfile, SamplerError, fold_cpuprofile

WORK = "thread main;parserOnIncoming node:_http_server;work file:///svc/handler.js"


def write_profile(directory: Path, pid: int, samples: list[int]) -> Path:
    data = {**profile(), "samples": samples, "timeDeltas": [1000] * len(samples)}
    path = directory / f"CPU.{pid}.0001.cpuprofile"
    Path(f"{path}.tmp").write_text(json.dumps(data))
    Path(f"{path}.tmp").rename(path)
    return path


def fake_service(sampler: NodeCpuProfile, monkeypatch: pytest.MonkeyPatch, writes: list[tuple[float, int]]) -> None:
    """Every second signal (the stop) writes one profile per (delay in s, pid) of `writes`."""
    signals: list[str] = []

    def signal(what: str) -> None:
        signals.append(what)
        if what != "stop":
            return
        for delay, pid in writes:
            samples = [5] * pid  # a pid's profile has `pid` samples in `work`: its share of the sum
            if delay == 0:
                write_profile(sampler.profile_dir, pid, samples)
            else:
                threading.Timer(delay, write_profile, (sampler.profile_dir, pid, samples)).start()

    monkeypatch.setattr(sampler, "_signal", signal)


def window(sampler: NodeCpuProfile) -> float:
    sampler.environment()
    sampler.start(1, 1)
    started = time.monotonic()
    sampler.end_window()
    return time.monotonic() - started


def test_one_process_folds_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = NodeCpuProfile(tmp_path, tmp_path)
    sampler.environment()
    write_profile(sampler.profile_dir, 999, [5] * 4)  # an earlier round's profile is left alone
    fake_service(sampler, monkeypatch, [(0, 3)])
    assert window(sampler) < sampler.settle_s  # no settle: there is nothing else to wait for
    assert sampler.profiles == [sampler.profile_dir / "CPU.3.0001.cpuprofile"]
    assert sampler.profile == sampler.profiles[0]
    assert sampler.folded() == fold_cpuprofile(json.loads(sampler.profiles[0].read_text())) == {WORK: 3}


def test_every_expected_worker_profile_is_waited_for_and_summed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sampler = NodeCpuProfile(tmp_path, tmp_path, expected=3)
    fake_service(sampler, monkeypatch, [(0, 2), (0.2, 3), (0.4, 5)])
    assert window(sampler) >= 0.4
    assert [p.name for p in sampler.profiles] == [f"CPU.{pid}.0001.cpuprofile" for pid in (2, 3, 5)]
    assert sampler.folded() == Counter({WORK: 10})


def test_a_missing_expected_profile_is_an_error_naming_the_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sampler = NodeCpuProfile(tmp_path, tmp_path, expected=2)
    sampler.write_timeout_s = 0.3
    fake_service(sampler, monkeypatch, [(0, 2)])
    with pytest.raises(SamplerError, match=r"1 of the 2 processes expected wrote a \.cpuprofile"):
        window(sampler)
    with pytest.raises(SamplerError, match=r"no \.cpuprofile"):
        sampler.folded()


@pytest.mark.parametrize(("writes", "found"), [([(0, 2), (0.2, 3)], 5), ([(0, 2)], 2)], ids=["all", "one-missing"])
def test_unknown_count_settles_for_one_profile_per_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes: list[tuple[float, int]], found: int
) -> None:
    sampler = NodeCpuProfile(tmp_path, tmp_path)
    sampler.settle_s = 0.6
    monkeypatch.setattr(NodeCpuProfile, "_runtime_children", staticmethod(lambda pid: 2))
    sampler.prepare(1)
    fake_service(sampler, monkeypatch, writes)
    elapsed = window(sampler)
    assert len(sampler.profiles) == len(writes)
    assert sampler.folded() == {WORK: found}
    # Both arrived: no need to wait out the settle; one missing: waited for it, then went on.
    assert elapsed < sampler.settle_s if len(writes) == 2 else elapsed >= sampler.settle_s


# A parent of its own (pytest's process may have other children, e.g. the session's backend):
# one child running the same executable, one running another program.
PARENT = """
import subprocess, sys, time
children = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]), subprocess.Popen(["sleep", "30"])]
time.sleep(30)
"""


def test_only_children_running_the_same_executable_count_as_workers() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while len(psutil.Process(parent.pid).children()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert NodeCpuProfile._runtime_children(parent.pid) == 1
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
    assert NodeCpuProfile._runtime_children(2**22 + 12345) == 0  # no such process
