"""Resource samples of the measured service (and of the load generator) every 250 ms.

Read straight from /proc so every thread is covered: per-thread CPU with the thread's name
(so the SDK's export worker shows apart from request threads), RSS, and voluntary and
involuntary context switches summed over all threads (/proc/<pid>/status alone counts only
the main thread).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class ThreadTimes:
    name: str
    user_s: float
    system_s: float
    voluntary: int
    involuntary: int


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _stat_times(stat: str) -> tuple[float, float]:
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def _switches(status: str) -> tuple[int, int]:
    voluntary = involuntary = 0
    for line in status.splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            voluntary = int(line.split()[1])
        elif line.startswith("nonvoluntary_ctxt_switches:"):
            involuntary = int(line.split()[1])
    return voluntary, involuntary


def thread_times(pid: int) -> dict[int, ThreadTimes]:
    threads: dict[int, ThreadTimes] = {}
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tids = [int(entry.name) for entry in task_dir.iterdir()]
    except OSError:
        return threads
    for tid in tids:
        base = task_dir / str(tid)
        stat, status, comm = _read(base / "stat"), _read(base / "status"), _read(base / "comm")
        if stat is None or status is None:
            continue  # the thread ended between listing and reading
        user, system = _stat_times(stat)
        voluntary, involuntary = _switches(status)
        threads[tid] = ThreadTimes((comm or "?").strip(), user, system, voluntary, involuntary)
    return threads


def rss_bytes(pid: int) -> int | None:
    statm = _read(Path(f"/proc/{pid}/statm"))
    return int(statm.split()[1]) * PAGE_SIZE if statm else None


def process_times(pid: int) -> tuple[float, float] | None:
    """User and system CPU of the whole process, including threads that have already exited
    (summing /proc/<pid>/task misses those); None once it is gone or a zombie."""
    stat = _read(Path(f"/proc/{pid}/stat"))
    if stat is None or stat[stat.rindex(")") + 2 :].split()[0] == "Z":
        return None
    return _stat_times(stat)


def snapshot(pid: int) -> dict[str, Any] | None:
    totals = process_times(pid)
    threads = thread_times(pid)
    rss = rss_bytes(pid)
    if totals is None or not threads or rss is None:
        return None
    by_name: dict[str, list[float]] = {}
    for thread in threads.values():
        user_system = by_name.setdefault(thread.name, [0.0, 0.0])
        user_system[0] += thread.user_s
        user_system[1] += thread.system_s
    return {
        "cpu_user_s": totals[0],
        "cpu_system_s": totals[1],
        "rss_bytes": rss,
        "ctx_voluntary": sum(t.voluntary for t in threads.values()),
        "ctx_involuntary": sum(t.involuntary for t in threads.values()),
        "threads": len(threads),
        # Cumulative CPU per thread name, [user, system] seconds (threads of one name summed).
        "by_thread": {name: [round(u, 4), round(s, 4)] for name, (u, s) in by_name.items()},
    }


@dataclass
class Sampler:
    """Samples `service_pid` (and `loadgen_pid` when set) every `interval_s` in a thread."""

    service_pid: int
    loadgen_pid: int | None = None
    interval_s: float = 0.25
    samples: list[dict[str, Any]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _started: float = 0.0

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
        if self.loadgen_pid is not None:
            loadgen = snapshot(self.loadgen_pid)
            if loadgen is not None:
                sample["loadgen_cpu_s"] = round(loadgen["cpu_user_s"] + loadgen["cpu_system_s"], 4)
        self.samples.append(sample)

    def stop(self) -> list[dict[str, Any]]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._take()
        return self.samples


def resource_summary(samples: list[dict[str, Any]], requests: int) -> dict[str, Any]:
    """Totals over the sampled window: CPU used, per request, peak RSS, context switches."""
    if len(samples) < 2:
        return {"error": "fewer than two samples: the service exited or the phase was too short"}
    first, last = samples[0], samples[-1]
    elapsed = last["t"] - first["t"]
    user = last["cpu_user_s"] - first["cpu_user_s"]
    system = last["cpu_system_s"] - first["cpu_system_s"]
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
        "cpu_utilization": round((user + system) / elapsed, 4) if elapsed > 0 else None,
        "cpu_per_request_us": round((user + system) / requests * 1e6, 2) if requests else None,
        "rss_max_bytes": max(sample["rss_bytes"] for sample in samples),
        "ctx_voluntary": voluntary,
        "ctx_involuntary": involuntary,
        "ctx_per_request": round((voluntary + involuntary) / requests, 3) if requests else None,
        "cpu_by_thread_s": dict(sorted(threads.items(), key=lambda item: -item[1])),
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
