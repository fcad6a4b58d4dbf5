"""Resource samples of the measured service (and of the load generator) every 250 ms.

Read straight from /proc (tracetax.system.procfs) so every thread is covered: per-thread CPU with the
thread's name (so the SDK's export worker shows apart from request threads), RSS, and
voluntary and involuntary context switches summed over all threads (/proc/<pid>/status alone
counts only the main thread).

The service is a process tree, not a pid: a pre-forking server (gunicorn's workers, a
launcher script's child) does its work in descendants of the process the engine started. Every
sample sums the whole tree as it is at that moment (walked with psutil): CPU as
utime + stime + cutime + cstime of each member, so a child that exits and is reaped by a tree
member keeps counting, through its parent's cutime/cstime; RSS and thread counts summed too.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import psutil

from tracetax.system import procfs

# Per sample, the thread names and thread groups kept by name, by CPU; the rest are summed as
# OTHER. A pool of 500 request threads sampled every 250 ms for an hour would otherwise store
# millions of figures per round.
TOP_THREAD_GROUPS = 16
OTHER = "(other)"


@dataclass
class ThreadTimes:
    name: str
    user_s: float
    system_s: float
    voluntary: int
    involuntary: int


def thread_times(pid: int) -> dict[int, ThreadTimes]:
    """Per thread of `pid`: name, CPU and context switches (threads that end while being read
    are left out)."""
    threads: dict[int, ThreadTimes] = {}
    for tid in procfs.tids(pid):
        stat, status = procfs.read_stat(pid, tid), procfs.read_status(pid, tid)
        if stat is None or status is None:
            continue  # the thread ended between listing and reading
        voluntary, involuntary = procfs.context_switches(status)
        threads[tid] = ThreadTimes(stat.comm, stat.utime, stat.stime, voluntary, involuntary)
    return threads


def tree_pids(root: int) -> list[int]:
    """`root` and all its descendants now (root first); [] once `root` is gone."""
    try:
        children = psutil.Process(root).children(recursive=True)
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return []
    except psutil.AccessDenied:
        return [root]
    return [root, *(child.pid for child in children)]


def tree_times(root: int) -> tuple[float, float] | None:
    """User and system CPU of `root`'s whole tree, including exited threads (summing
    /proc/<pid>/task misses those) and reaped children; None once `root` is gone or a zombie."""
    root_stat = procfs.read_stat(root)
    if root_stat is None or root_stat.zombie:
        return None
    user = system = 0.0
    for pid in tree_pids(root) or [root]:
        stat = root_stat if pid == root else procfs.read_stat(pid)
        if stat is not None:
            user += stat.utime + stat.cutime
            system += stat.stime + stat.cstime
    return user, system


def snapshot(pid: int) -> dict[str, Any] | None:
    """One sample of the process tree rooted at `pid`; None once it is gone."""
    root = procfs.read_stat(pid)
    if root is None or root.zombie:
        return None
    members = tree_pids(pid) or [pid]
    user = system = 0.0
    rss = 0
    threads: dict[tuple[int, int], ThreadTimes] = {}
    for member in members:
        stat = root if member == pid else procfs.read_stat(member)
        if stat is None:
            continue  # exited since the walk; its CPU shows in its parent's cutime once reaped
        user += stat.utime + stat.cutime
        system += stat.stime + stat.cstime
        rss += procfs.rss_bytes(member) or 0
        threads.update({(member, tid): times for tid, times in thread_times(member).items()})
    if not threads:
        return None
    by_name: dict[str, list[float]] = {}
    by_group: dict[str, list[float]] = {}
    for thread in threads.values():
        user_system = by_name.setdefault(thread.name, [0.0, 0.0])
        user_system[0] += thread.user_s
        user_system[1] += thread.system_s
        group = by_group.setdefault(thread_group(thread.name), [0.0, 0, 0])
        group[0] += thread.user_s + thread.system_s
        group[1] += thread.voluntary + thread.involuntary
        group[2] += 1
    return {
        "cpu_user_s": user,
        "cpu_system_s": system,
        "rss_bytes": rss,
        "ctx_voluntary": sum(t.voluntary for t in threads.values()),
        "ctx_involuntary": sum(t.involuntary for t in threads.values()),
        "threads": len(threads),
        "processes": len(members),
        # Cumulative CPU per thread name over the tree, [user, system] seconds (threads of one
        # name summed, whichever process of the tree they belong to).
        "by_thread": {name: [round(u, 4), round(s, 4)] for name, (u, s) in by_name.items()},
        # Per thread group (see thread_group): [CPU seconds, context switches, threads], cumulative.
        "by_thread_group": {name: [round(cpu, 4), int(ctx), int(n)] for name, (cpu, ctx, n) in by_group.items()},
    }


def thread_group(name: str) -> str:
    """A thread's group: its name with a trailing number made `*`, so a pool's threads
    (http-worker-1 .. http-worker-64) count as one while the SDK's worker keeps its own name
    (names as the kernel keeps them: 15 characters, BatchSpanProcessor_WorkerThread-1 is
    BatchSpanProces)."""
    return re.sub(r"\d+$", "*", name)


def _top(figures: dict[str, list[Any]], cpu: Callable[[list[Any]], float], top: int) -> set[str]:
    """The `top` names with the most CPU (ties by name, so the choice is stable)."""
    return set(sorted(figures, key=lambda name: (-cpu(figures[name]), name))[:top])


def _fold(figures: dict[str, list[Any]], keep: Collection[str]) -> dict[str, list[Any]]:
    """The kept names' figures as they are, and OTHER: the others' summed, column by column."""
    kept = {name: values for name, values in figures.items() if name in keep}
    rest = [values for name, values in figures.items() if name not in keep]
    if rest:
        columns = zip(*rest, strict=True)
        kept[OTHER] = [round(sum(c), 4) if any(isinstance(v, float) for v in c) else sum(c) for c in map(list, columns)]
    return kept


def bounded_sample(
    sample: dict[str, Any],
    groups: Collection[str] | None = None,
    threads: Collection[str] | None = None,
    top: int = TOP_THREAD_GROUPS,
) -> dict[str, Any]:
    """The sample with at most `top` thread groups and thread names plus OTHER: the given ones,
    or else the sample's own with the most CPU."""
    by_group: dict[str, list[Any]] = sample.get("by_thread_group", {})
    by_thread: dict[str, list[Any]] = sample.get("by_thread", {})
    groups = _top(by_group, lambda f: f[0], top) if groups is None else groups
    threads = _top(by_thread, lambda f: f[0] + f[1], top) if threads is None else threads
    return {**sample, "by_thread_group": _fold(by_group, groups), "by_thread": _fold(by_thread, threads)}


@dataclass
class Sampler:
    """Samples the process tree of `service_pid` (and the load generator's CPU, when
    `loadgen_pid` is set) every `interval_s` in a thread.

    Each sample keeps the `top_threads` thread groups and names with the most CPU and sums the
    rest as OTHER, so memory and the stored round stay bounded however many threads a service
    starts. The window's figures (resource_summary) come from the first and the last sample:
    at stop() both are cut to the same names, the last sample's top ones, from the full
    readings kept aside, so every group kept reads exactly what it would unbounded."""

    service_pid: int
    loadgen_pid: int | None = None
    interval_s: float = 0.25
    samples: list[dict[str, Any]] = field(default_factory=list)
    top_threads: int = TOP_THREAD_GROUPS
    _first_full: dict[str, Any] | None = None
    _last_full: dict[str, Any] | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _started: float = 0.0
    _run_ns: dict[tuple[int, int], int] = field(default_factory=dict)
    _exited_ns: int = 0
    _schedstat_seen: bool = False

    def start(self) -> None:
        self._started = time.monotonic()
        self._take()
        self._thread = threading.Thread(target=self._loop, name="tracetax-sampler", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._take()

    def _take(self) -> None:
        service = snapshot(self.service_pid)
        if service is None:
            return
        sample: dict[str, Any] = {"t": round(time.monotonic() - self._started, 3), **service}
        run_s = self._run_seconds()
        if run_s is not None:
            sample["cpu_run_s"] = run_s
        if self.loadgen_pid is not None:
            loadgen = tree_times(self.loadgen_pid)
            if loadgen is not None:
                sample["loadgen_cpu_s"] = round(loadgen[0] + loadgen[1], 4)
        if self._first_full is None:
            self._first_full = sample
        self._last_full = sample
        self.samples.append(bounded_sample(sample, top=self.top_threads))

    def _run_seconds(self) -> float | None:
        """CPU of the tree in nanoseconds from every thread's schedstat, monotonic: a thread that
        has gone keeps the time it had at its last reading (what it ran after that, under one
        sample interval, is missed). /proc/<pid>/stat counts in clock ticks (10 ms): over a
        short phase that quantises CPU per request to ~10 µs, which the paired statistics
        would read as certainty when both sides round alike. None without schedstats; once
        they have been read, a tree whose threads have all gone (an exited process not yet
        reaped) keeps its total, so the window's last sample stays in nanoseconds."""
        current: dict[tuple[int, int], int] = {}
        for pid in tree_pids(self.service_pid):
            for tid in procfs.tids(pid):
                schedstat = procfs.read_schedstat(pid, tid)
                if schedstat is None:
                    continue
                current[(pid, tid)] = schedstat.run_ns
        if not current and not self._schedstat_seen:
            return None
        self._schedstat_seen = True
        self._exited_ns += sum(ns for key, ns in self._run_ns.items() if key not in current)
        self._run_ns = current
        return (sum(current.values()) + self._exited_ns) / 1e9

    def stop(self) -> list[dict[str, Any]]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._take()
        self._cut_window_ends()
        return self.samples

    def _cut_window_ends(self) -> None:
        """The first and last samples over the same names (see the class's note)."""
        if self._first_full is None or self._last_full is None:
            return
        last = bounded_sample(self._last_full, top=self.top_threads)
        groups = set(last["by_thread_group"]) - {OTHER}
        threads = set(last["by_thread"]) - {OTHER}
        self.samples[0] = bounded_sample(self._first_full, groups, threads)
        self.samples[-1] = bounded_sample(self._last_full, groups, threads)


def thread_group_summary(first: dict[str, Any], last: dict[str, Any], requests: int) -> dict[str, Any]:
    """CPU and context switches of each thread group over the window, per request too: where a
    processor's worker wakes once per span (seed 000), its switches per request rise with the
    request threads feeding it. Threads that ended inside the window are not counted."""
    before = first.get("by_thread_group", {})
    groups = {}
    for name, (cpu, ctx, count) in last.get("by_thread_group", {}).items():
        start_cpu, start_ctx = before.get(name, [0.0, 0])[:2]
        cpu_s, switches = max(0.0, cpu - start_cpu), max(0, ctx - start_ctx)
        groups[name] = {
            "threads": count,
            "cpu_s": round(cpu_s, 4),
            "ctx_switches": switches,
            "cpu_per_request_us": round(cpu_s / requests * 1e6, 3) if requests else None,
            "ctx_per_request": round(switches / requests, 4) if requests else None,
        }
    return dict(sorted(groups.items(), key=lambda item: -item[1]["cpu_s"]))


def resource_summary(samples: list[dict[str, Any]], requests: int) -> dict[str, Any]:
    """Totals over the sampled window: CPU used, per request, peak RSS, context switches."""
    if len(samples) < 2:
        return {"error": "fewer than two samples: the service exited or the phase was too short"}
    first, last = samples[0], samples[-1]
    elapsed = last["t"] - first["t"]
    user = last["cpu_user_s"] - first["cpu_user_s"]
    system = last["cpu_system_s"] - first["cpu_system_s"]
    # Nanosecond CPU from schedstat when every sample has it; clock ticks otherwise.
    precise = "cpu_run_s" in first and "cpu_run_s" in last
    cpu = last["cpu_run_s"] - first["cpu_run_s"] if precise else user + system
    voluntary = last["ctx_voluntary"] - first["ctx_voluntary"]
    involuntary = last["ctx_involuntary"] - first["ctx_involuntary"]
    threads = {
        name: round(
            (last["by_thread"][name][0] + last["by_thread"][name][1]) - sum(first["by_thread"].get(name, [0.0, 0.0])),
            4,
        )
        for name in last["by_thread"]
    }
    summary: dict[str, Any] = {
        "window_s": round(elapsed, 3),
        "cpu_user_s": round(user, 4),
        "cpu_system_s": round(system, 4),
        "cpu_s": round(cpu, 6),
        "cpu_source": "schedstat (ns)" if precise else "stat (clock ticks)",
        "cpu_utilization": round(cpu / elapsed, 4) if elapsed > 0 else None,
        "cpu_per_request_us": round(cpu / requests * 1e6, 3) if requests else None,
        # Summed over the service's process tree (pages shared by forked workers count in each).
        "rss_max_bytes": max(sample["rss_bytes"] for sample in samples),
        "threads_max": max(sample.get("threads", 0) for sample in samples),
        "processes_max": max(sample.get("processes", 1) for sample in samples),
        "ctx_voluntary": voluntary,
        "ctx_involuntary": involuntary,
        "ctx_per_request": round((voluntary + involuntary) / requests, 3) if requests else None,
        "cpu_by_thread_s": dict(sorted(threads.items(), key=lambda item: -item[1])),
        "thread_groups": thread_group_summary(first, last, requests),
    }
    # The load generator has usually exited by the final sample: use the samples that saw it.
    with_loadgen = [sample for sample in samples if "loadgen_cpu_s" in sample]
    if len(with_loadgen) >= 2:
        loadgen = with_loadgen[-1]["loadgen_cpu_s"] - with_loadgen[0]["loadgen_cpu_s"]
        window = with_loadgen[-1]["t"] - with_loadgen[0]["t"]
        summary["loadgen_cpu_s"] = round(loadgen, 4)
        summary["loadgen_utilization"] = round(loadgen / window, 4) if window > 0 else None
        summary["loadgen_cpu_per_1k_requests_s"] = round(loadgen / requests * 1000, 4) if requests else None
    return summary
