"""The isolation record, the throughput limiter, the service tree's CPU and the refusal to
measure on cores another process is bound to."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time

import pytest

from tracetax.engine import isolation
from tracetax.engine.isolation import (
    FOREIGN_CPU_MAX_SHARE,
    ServiceCoresBusyError,
    Snapshot,
    Task,
    Utilisation,
    check_service_cores_free,
    decide_limiter,
    isolation_record,
    tree_cpu_delta,
)
from tracetax.engine.sampler import Sampler, resource_summary, snapshot
from tracetax.system import processes, procfs
from tracetax.system.placement import Placement

TICKS = procfs.CLOCK_TICKS


def stat(pid: int, cpu_s: float = 0.0, children_s: float = 0.0, ppid: int = 1, starttime: int = 100) -> procfs.Stat:
    return procfs.Stat(
        pid=pid,
        comm=f"p{pid}",
        state="S",
        ppid=ppid,
        pgid=pid,
        session=pid,
        flags=0,
        utime=cpu_s,
        stime=0.0,
        cutime=children_s,
        cstime=0.0,
        num_threads=1,
        starttime=starttime,
        processor=1,
    )


def cpu(tasks_s: float, idle_s: float, irq_s: float = 0.0) -> procfs.CpuTimes:
    return procfs.CpuTimes(tasks_s, 0.0, 0.0, idle_s, 0.0, irq_s, 0.0, 0.0)


def test_tree_cpu_counts_a_reaped_child_once() -> None:
    # Start: parent 1.0 s, worker 2.0 s. End: parent 1.5 s and the worker, exited and reaped by
    # the parent, in its cutime with all of its 2.5 s; a new child with 0.3 s.
    start = {(10, 1): stat(10, 1.0), (11, 2): stat(11, 2.0, ppid=10, starttime=2)}
    end = {(10, 1): stat(10, 1.5, children_s=2.5), (12, 3): stat(12, 0.3, ppid=10, starttime=3)}
    assert tree_cpu_delta(start, end) == pytest.approx(0.5 + 0.5 + 0.3)


def test_tree_cpu_of_members_present_throughout() -> None:
    start = {(10, 1): stat(10, 1.0), (11, 2): stat(11, 2.0)}
    end = {(10, 1): stat(10, 1.25), (11, 2): stat(11, 3.0)}
    assert tree_cpu_delta(start, end) == pytest.approx(1.25)


def snapshots(service_s: float, foreign_s: float, phase_s: float = 20.0) -> tuple[Snapshot, Snapshot, set[int]]:
    """Service core 1, a phase of `phase_s`: the service tree used `service_s`, a stranger
    (pid 50, on core 1) `foreign_s`, a per-CPU kernel thread a little."""
    kworker = Task(19, 19, "kworker/1:0", 0.0, 1, True, 5)
    stranger = Task(50, 50, "backup", 1.0, 1, False, 7)
    elsewhere = Task(60, 60, "busy-elsewhere", 1.0, 0, False, 8)
    service = Task(10, 10, "service", 1.0, 1, False, 1)
    start = Snapshot(
        t=0.0,
        cpus={0: cpu(0.0, 0.0), 1: cpu(0.0, 0.0)},
        tasks={(t.tid, t.starttime): t for t in (kworker, stranger, elsewhere, service)},
        tree={(10, 1): stat(10, 1.0)},
        run_delay_ns={(10, 1): 1_000_000},
    )
    used = service_s + foreign_s + 0.01
    end = Snapshot(
        t=phase_s,
        cpus={0: cpu(5.0, phase_s - 5.0), 1: cpu(used, phase_s - used, irq_s=0.2)},
        tasks={
            (19, 5): dataclasses.replace(kworker, cpu_s=0.01),
            (50, 7): dataclasses.replace(stranger, cpu_s=1.0 + foreign_s),
            (60, 8): dataclasses.replace(elsewhere, cpu_s=3.0),
            (10, 1): dataclasses.replace(service, cpu_s=1.0 + service_s),
        },
        tree={(10, 1): stat(10, 1.0 + service_s)},
        run_delay_ns={(10, 1): 51_000_000},
    )
    return start, end, {1}


def test_a_quiet_phase_is_not_flagged() -> None:
    start, end, cores = snapshots(service_s=12.0, foreign_s=0.0)
    record = isolation_record(start, end, cores, requests=10_000)
    assert record["service_cpus"] == [1]
    assert record["phase_s"] == 20.0
    assert record["service_cpu_s"] == pytest.approx(12.0)
    assert record["service_run_delay_ms"] == pytest.approx(50.0)
    assert record["run_delay_per_request_us"] == pytest.approx(5.0)
    assert record["foreign_cpu_s"] == pytest.approx(0.01)
    assert record["irq_softirq_s"] == pytest.approx(0.2)
    assert [t["comm"] for t in record["foreign_tasks"]] == ["kworker/1:0"]
    assert record["foreign_tasks"][0]["kernel_thread"] is True
    assert record["flagged"] is False and record["reasons"] == []


def test_a_stranger_on_the_service_core_flags_the_phase() -> None:
    limit_s = FOREIGN_CPU_MAX_SHARE * 20.0
    start, end, cores = snapshots(service_s=12.0, foreign_s=limit_s * 2)
    record = isolation_record(start, end, cores, requests=10_000)
    assert record["flagged"] is True
    assert record["foreign_cpu_s"] == pytest.approx(limit_s * 2 + 0.01)
    assert record["foreign_tasks"][0] == {
        "pid": 50,
        "comm": "backup",
        "cpu_s": 0.8,
        "kernel_thread": False,
        "exited": False,
    }
    assert "busy-elsewhere" not in [t["comm"] for t in record["foreign_tasks"]], "it never ran on core 1"
    assert "backup (pid 50" in record["reasons"][0]


def test_just_under_the_threshold_is_not_flagged() -> None:
    start, end, cores = snapshots(service_s=12.0, foreign_s=FOREIGN_CPU_MAX_SHARE * 20.0 * 0.9)
    assert isolation_record(start, end, cores, requests=1)["flagged"] is False


def test_unpinned_is_recorded_but_not_flagged() -> None:
    start, end, _ = snapshots(service_s=12.0, foreign_s=5.0)
    record = isolation_record(start, end, None, requests=1)
    assert record["pinned"] is False and record["flagged"] is False
    assert "single core" in record["note"]


@pytest.mark.parametrize(
    ("utilisation", "limited_by"),
    [
        (Utilisation(0.97, 0.5, 0.4, 0.8), "service"),
        (Utilisation(0.55, 0.5, 0.4, 0.8, service_busiest_thread=0.95), "service"),
        (Utilisation(0.6, 0.95, 0.3, 0.8), "load generator"),
        (Utilisation(0.6, 0.95, 0.95, 0.8, shared_loadgen_stack=True), "load generator"),
        (Utilisation(0.6, 0.95, 0.95, 0.3, shared_loadgen_stack=True), "stack"),
        (Utilisation(0.6, 0.5, 0.93, 0.8), "stack"),
        (Utilisation(0.6, 0.95, 0.3, 0.2), "unknown"),
        (Utilisation(0.6, 0.5, 0.4, 0.8), "none"),
        (Utilisation(None, None, None, None), "unknown"),
    ],
)
def test_what_limited_the_closed_loop(utilisation: Utilisation, limited_by: str) -> None:
    decided, reason = decide_limiter(utilisation)
    assert decided == limited_by
    assert reason


# -- real processes --------------------------------------------------------------------------

# Burns ~0.3 s of CPU in a grandchild that its parent waits for, and leaves a sleeping child.
TREE = (
    "import subprocess, sys, time\n"
    "burn = 'import time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass'\n"
    "sleeper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "import os; os.write(1, b'ready\\n')\n"
    "sys.stdin.readline()\n"
    "subprocess.run([sys.executable, '-c', burn])\n"
    "os.write(1, b'done\\n')\n"
    "time.sleep(60)\n"
)


def test_tree_cpu_includes_children_reaped_during_the_phase() -> None:
    import subprocess

    process = subprocess.Popen(
        [sys.executable, "-c", TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        assert process.stdout.readline() == b"ready\n"
        before = snapshot(process.pid)
        watch_start = isolation.take_snapshot(process.pid)
        assert before is not None and before["processes"] == 2, "the sleeping child is part of the tree"
        process.stdin.write(b"go\n")
        process.stdin.flush()
        assert process.stdout.readline() == b"done\n"
        after = snapshot(process.pid)
        watch_end = isolation.take_snapshot(process.pid)
        assert after is not None
        used = (after["cpu_user_s"] + after["cpu_system_s"]) - (before["cpu_user_s"] + before["cpu_system_s"])
        # The grandchild's 0.3 s (plus its interpreter's start-up) arrive through cutime.
        assert used >= 0.28
        assert tree_cpu_delta(watch_start.tree, watch_end.tree) >= 0.28
        assert after["threads"] >= 2 and after["rss_bytes"] > before["rss_bytes"] / 2
    finally:
        os.killpg(process.pid, 9)
        process.wait()


def test_refuses_while_a_process_is_bound_to_the_service_cores() -> None:
    core = max(procfs.available_cpus())
    placement = Placement({core}, None, None)
    leftover = processes.spawn([sys.executable, "-c", "import time; time.sleep(60)"], cpus={core})
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # until the child has exec'd (its command line shows)
            if "time.sleep(60)" in " ".join(procfs.cmdline(leftover.pid)):
                break
            time.sleep(0.02)
        with pytest.raises(ServiceCoresBusyError) as raised:
            check_service_cores_free(placement)
        message = str(raised.value)
        assert f"pid {leftover.pid} (" in message
        assert "time.sleep(60)" in message
        assert f"kill {leftover.pid}" in message
    finally:
        processes.kill(leftover)
    bound = [p["pid"] for p in isolation.processes_bound_to({core})]
    assert leftover.pid not in bound


def test_unpinned_placement_checks_nothing() -> None:
    check_service_cores_free(Placement(None, None, None, "none"))


def test_cpu_of_a_short_phase_is_measured_in_nanoseconds_not_clock_ticks() -> None:
    # 0.2 s of spinning: with 10 ms clock ticks the figure could be off by 5%; schedstat is exact.
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt=time.process_time()\nwhile time.process_time()-t<0.2: pass\ntime.sleep(0.3)",
        ]
    )
    sampler = Sampler(child.pid, interval_s=0.05)
    sampler.start()
    child.wait()
    summary = resource_summary(sampler.stop(), 1)
    assert summary["cpu_source"] == "schedstat (ns)"
    assert 0.15 < summary["cpu_s"] < 0.6


def test_a_tree_whose_threads_all_went_between_two_readings_keeps_its_nanosecond_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The race CI met: the service is alive when its sample starts and gone (exited, not yet
    # reaped) when its threads' schedstat is read; the sample must not fall back to ticks.
    live = {"threads": {11: 300_000_000, 12: 200_000_000}}
    monkeypatch.setattr("tracetax.engine.sampler.tree_pids", lambda _pid: [10])
    monkeypatch.setattr(procfs, "tids", lambda _pid: list(live["threads"]))
    monkeypatch.setattr(procfs, "read_schedstat", lambda _pid, tid: procfs.Schedstat(live["threads"][tid], 0, 1))
    sampler = Sampler(10)
    assert sampler._run_seconds() == pytest.approx(0.5)
    live["threads"] = {}
    assert sampler._run_seconds() == pytest.approx(0.5)


def test_a_tree_never_read_through_schedstat_has_no_nanosecond_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tracetax.engine.sampler.tree_pids", lambda _pid: [10])
    monkeypatch.setattr(procfs, "tids", lambda _pid: [11])
    monkeypatch.setattr(procfs, "read_schedstat", lambda _pid, _tid: None)
    assert Sampler(10)._run_seconds() is None


def with_gap(gap_s: float, phase_s: float = 20.0) -> tuple[Snapshot, Snapshot, set[int]]:
    """A phase whose service core was busy `gap_s` beyond the service's and the named tasks' CPU."""
    start, end, cores = snapshots(service_s=12.0, foreign_s=0.0, phase_s=phase_s)
    used = 12.0 + gap_s + 0.01
    end.cpus[1] = cpu(used, phase_s - used, irq_s=0.2)
    return start, end, cores


def test_foreign_cpu_no_task_accounts_for_is_said_and_below_its_threshold_not_flagged() -> None:
    # The reported case: about 1 s of a 20 s phase (5%) that the listed tasks do not explain.
    start, end, cores = with_gap(1.0)
    record = isolation_record(start, end, cores, requests=10_000)
    assert record["flagged"] is False
    assert record["foreign_cpu_share"] == pytest.approx(1.01 / 20, abs=1e-4)
    assert record["named_cpu_s"] == pytest.approx(0.01)
    assert record["unexplained_cpu_s"] == pytest.approx(1.0)
    assert record["unexplained_share"] == pytest.approx(0.05)
    assert record["foreign_share_of_service_cpu"] == pytest.approx(1.01 / 12, abs=1e-4)
    assert "1.00s by no task seen" in record["foreign_explanation"]
    assert "Interrupts (irq + softirq) took 0.20s" in record["foreign_explanation"]


def test_a_gap_larger_than_the_clocks_ever_disagree_flags_the_phase() -> None:
    start, end, cores = with_gap(isolation.FOREIGN_UNEXPLAINED_MAX_SHARE * 20.0 * 1.5)
    record = isolation_record(start, end, cores, requests=10_000)
    assert record["flagged"] is True
    assert "by no task seen" in record["reasons"][0]


def test_a_task_seen_on_the_service_core_only_in_between_is_named() -> None:
    # The stranger is on core 0 at both ends but was read on core 1 in the middle of the phase.
    start, end, cores = snapshots(service_s=12.0, foreign_s=1.0)
    start.tasks[(50, 7)] = dataclasses.replace(start.tasks[(50, 7)], processor=0)
    end.tasks[(50, 7)] = dataclasses.replace(end.tasks[(50, 7)], processor=0)
    without = isolation_record(start, end, cores, requests=1)
    assert "backup" not in [t["comm"] for t in without["foreign_tasks"]]
    middle = [{(50, 7): dataclasses.replace(start.tasks[(50, 7)], cpu_s=1.6, processor=1)}]
    record = isolation_record(start, end, cores, requests=1, middle=middle)
    backup = next(t for t in record["foreign_tasks"] if t["comm"] == "backup")
    assert backup["cpu_s"] == pytest.approx(1.0), "both intervals touch core 1"
    assert record["flagged"] is True


def test_a_short_lived_process_seen_in_between_counts_as_exited() -> None:
    start, end, cores = with_gap(0.5)
    compiler = Task(70, 70, "cc1", 0.3, 1, False, 900)
    middle = [{(70, 900): compiler}, {(70, 900): dataclasses.replace(compiler, cpu_s=0.45)}]
    record = isolation_record(start, end, cores, requests=1, middle=middle)
    cc1 = next(t for t in record["foreign_tasks"] if t["comm"] == "cc1")
    assert cc1 == {"pid": 70, "comm": "cc1", "cpu_s": 0.45, "kernel_thread": False, "exited": True}
    assert record["exited_tasks_cpu_s"] == pytest.approx(0.45)
    assert record["unexplained_cpu_s"] == pytest.approx(0.05, abs=1e-3)


def test_children_reaped_by_a_listed_process_are_explained() -> None:
    start, end, cores = with_gap(0.6)
    start.children_cpu, end.children_cpu = {(50, 7): 2.0}, {(50, 7): 2.5}
    end.tasks[(50, 7)] = dataclasses.replace(end.tasks[(50, 7)], cpu_s=1.05)
    start.forks, end.forks = 1000, 1012
    record = isolation_record(start, end, cores, requests=1)
    assert record["reaped_children_cpu_s"] == pytest.approx(0.5)
    assert record["explained_cpu_s"] == pytest.approx(0.56)
    assert record["processes_started"] == 12
    assert "12 processes or threads were started" in record["foreign_explanation"]


def test_the_observer_reads_tasks_allowed_on_the_cores_and_skips_the_tree() -> None:
    here = procfs.available_cpus()
    observer = isolation.ForeignObserver(cores=here, tree_pids=set())
    observer.observe()
    assert any(task.pid == os.getpid() for task in observer.observations[0].values())
    skipping = isolation.ForeignObserver(cores=here, tree_pids={os.getpid()})
    skipping.observe()
    assert not any(task.pid == os.getpid() for task in skipping.observations[0].values())
    assert isinstance(isolation.read_forks(), int)
