"""The /proc readers on fixtures in the kernel's own formats, and on this process."""

from __future__ import annotations

import os

import pytest

from tracetax.system import procfs

TICKS = procfs.CLOCK_TICKS

# A thread whose name holds a space and a parenthesis: fields are split after the last ')'.
# utime 250, stime 50, cutime 100, cstime 20 ticks; 3 threads; started at tick 123456; last on CPU 3.
STAT = (
    "4242 (gunicorn: w) 1) S 4000 4000 4000 0 -1 4194560 1000 0 0 0 250 50 100 20 20 0 3 0 123456 "
    "100000000 2500 18446744073709551615 1 1 0 0 0 0 0 4096 16384 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
)
KTHREAD_STAT = (
    "19 (ksoftirqd/1) S 2 0 0 0 -1 69238848 0 0 0 0 7 31 0 0 20 0 1 0 9 0 0 18446744073709551615 "
    "0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
)
PROC_STAT = """cpu  2000 10 300 9000 20 0 30 5 0 0
cpu0 1000 10 200 4000 10 0 20 5 0 0
cpu1 1000 0 100 5000 10 0 10 0 0 0
intr 12345 0 0
ctxt 999
"""
STATUS = """Name:\tpython3
State:\tS (sleeping)
Tgid:\t4242
Cpus_allowed:\t8
Cpus_allowed_list:\t3
voluntary_ctxt_switches:\t150
nonvoluntary_ctxt_switches:\t7
"""


def test_stat_fields_after_a_command_name_with_spaces_and_parentheses() -> None:
    stat = procfs.parse_stat(STAT)
    assert stat.pid == 4242
    assert stat.comm == "gunicorn: w) 1"
    assert (stat.state, stat.ppid, stat.pgid, stat.session) == ("S", 4000, 4000, 4000)
    assert (stat.utime, stat.stime, stat.cutime, stat.cstime) == (250 / TICKS, 50 / TICKS, 100 / TICKS, 20 / TICKS)
    assert stat.cpu_s == pytest.approx(300 / TICKS)
    assert stat.cpu_with_children_s == pytest.approx(420 / TICKS)
    assert stat.num_threads == 3
    assert stat.starttime == 123456
    assert stat.processor == 3
    assert not stat.kernel_thread
    assert not stat.zombie


def test_kernel_threads_are_told_by_their_flags() -> None:
    stat = procfs.parse_stat(KTHREAD_STAT)
    assert stat.kernel_thread
    assert stat.processor == 1
    assert stat.ppid == 2


def test_schedstat_run_delay_is_the_second_field() -> None:
    schedstat = procfs.parse_schedstat("230445564 16904786 423\n")
    assert schedstat == procfs.Schedstat(run_ns=230445564, run_delay_ns=16904786, timeslices=423)


def test_proc_stat_per_cpu_lines_only() -> None:
    cpus = procfs.parse_proc_stat(PROC_STAT)
    assert sorted(cpus) == [0, 1]
    cpu0 = cpus[0]
    assert cpu0.tasks == pytest.approx((1000 + 10 + 200) / TICKS)
    assert cpu0.interrupts == pytest.approx(20 / TICKS)
    assert cpu0.steal == pytest.approx(5 / TICKS)
    assert cpu0.busy == pytest.approx((1000 + 10 + 200 + 20 + 5) / TICKS)
    assert cpu0.total == pytest.approx((1000 + 10 + 200 + 4000 + 10 + 20 + 5) / TICKS)
    later = procfs.parse_proc_stat(PROC_STAT.replace("cpu1 1000 0 100 5000", "cpu1 1100 0 150 5050"))
    delta = later[1] - cpus[1]
    assert delta.tasks == pytest.approx(150 / TICKS)
    assert delta.idle == pytest.approx(50 / TICKS)


def test_status_context_switches_and_allowed_cpus() -> None:
    status = procfs.parse_status(STATUS)
    assert procfs.context_switches(status) == (150, 7)
    assert procfs.cpus_allowed(status) == {3}


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("3", {3}), ("2-3", {2, 3}), ("0,2-3", {0, 2, 3}), (" 0-1 , 5 ", {0, 1, 5}), ("7-7", {7})],
)
def test_cpu_lists(text: str, cpus: set[int]) -> None:
    assert procfs.parse_cpu_list(text) == cpus
    assert procfs.parse_cpu_list(procfs.format_cpu_list(cpus)) == cpus


@pytest.mark.parametrize("text", ["", "a", "3-1", "1-", "-1", "1,,x"])
def test_bad_cpu_lists(text: str) -> None:
    with pytest.raises(procfs.CpuListError):
        procfs.parse_cpu_list(text)


def test_format_cpu_list_collapses_ranges() -> None:
    assert procfs.format_cpu_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8"
    assert procfs.format_cpu_list([4]) == "4"


def test_descendants_from_one_scan() -> None:
    parents = {10: 1, 11: 10, 12: 11, 13: 10, 20: 1, 21: 20}
    assert procfs.descendants(10, parents) == {10, 11, 12, 13}
    assert procfs.descendants(21, parents) == {21}


def test_this_process_reads_back() -> None:
    stat = procfs.read_stat(os.getpid())
    assert stat is not None and stat.pid == os.getpid()
    assert procfs.start_time(os.getpid()) == str(stat.starttime)
    assert os.getpid() in procfs.pids()
    assert procfs.tids(os.getpid())
    assert procfs.read_cpu_times()
    status = procfs.read_status(os.getpid())
    assert status is not None and procfs.cpus_allowed(status) == set(os.sched_getaffinity(0))
    assert procfs.rss_bytes(os.getpid())
    assert procfs.available_cpus() >= set(os.sched_getaffinity(0))


def test_a_pid_that_is_gone_reads_as_none() -> None:
    assert procfs.read_stat(2**22 + 1) is None
    assert procfs.start_time(2**22 + 1) is None
    assert procfs.tids(2**22 + 1) == []
    assert not procfs.group_alive(2**22 + 1)
