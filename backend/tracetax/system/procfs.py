"""Everything TraceTax reads from /proc, in one place: per-process and per-thread stat,
status, comm and schedstat, per-CPU times from /proc/stat, and CPU lists.

psutil reads what it gives with the same figures: the pids and a process's RSS. The rest is
read by hand because psutil has no equal, each reader says why: the stat fields TraceTax
keys on (process group, session, kernel-thread flag, start time in clock ticks), anything per
thread (name, context switches, schedstat's run delay), per-CPU times keyed by CPU number, a
command line exactly as its NUL-separated arguments, the cgroup's cpuset. Every reader returns
None (or an empty result) for a process or thread that has gone in the meantime; a pid can end
between listing /proc and reading a file of it at any time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

PROC = Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# include/linux/sched.h: set in the flags of every kernel thread.
PF_KTHREAD = 0x00200000


class CpuListError(ValueError):
    """A CPU list ("0-3,6") that cannot be read."""


def parse_cpu_list(text: str) -> set[int]:
    """'0-2,5' -> {0, 1, 2, 5} (the kernel's list format, as in Cpus_allowed_list)."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        low, dash, high = part.partition("-")
        try:
            first, last = int(low), int(high) if dash else int(low)
        except ValueError:
            raise CpuListError(f"{part!r} is not a CPU number or range (expected e.g. 3, 2-3 or 0,2-3)") from None
        if first < 0 or last < first:
            raise CpuListError(f"{part!r} is not a valid CPU range")
        cpus.update(range(first, last + 1))
    if not cpus:
        raise CpuListError("empty CPU list")
    return cpus


def format_cpu_list(cpus: Iterable[int]) -> str:
    """{0, 1, 2, 5} -> '0-2,5'."""
    ordered = sorted(set(cpus))
    ranges: list[str] = []
    start = previous = None
    for cpu in [*ordered, None]:
        if previous is not None and cpu == previous + 1:
            previous = cpu
            continue
        if start is not None:
            ranges.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = cpu
    return ",".join(ranges)


def read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None


def _base(pid: int, tid: int | None) -> Path:
    return PROC / str(pid) if tid is None else PROC / str(pid) / "task" / str(tid)


# -- /proc/<pid>/stat --------------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    """The fields of /proc/<pid>[/task/<tid>]/stat TraceTax uses; times in seconds.

    Parsed by hand: psutil has no process group, session, flags or start time in clock ticks
    (its create_time is seconds since the epoch, a float, while the process registry stores
    the kernel's ticks), and no stat of a single thread."""

    pid: int
    comm: str
    state: str
    ppid: int
    pgid: int
    session: int
    flags: int
    utime: float
    stime: float
    cutime: float
    cstime: float
    num_threads: int
    # In clock ticks since boot; with the pid it identifies a process (pids are recycled).
    starttime: int
    # The CPU it last ran on.
    processor: int

    @property
    def cpu_s(self) -> float:
        """User + system CPU of the task itself (of all its threads, for a process)."""
        return self.utime + self.stime

    @property
    def cpu_with_children_s(self) -> float:
        """Including the children it has waited for (cutime, cstime)."""
        return self.utime + self.stime + self.cutime + self.cstime

    @property
    def zombie(self) -> bool:
        return self.state == "Z"

    @property
    def kernel_thread(self) -> bool:
        return bool(self.flags & PF_KTHREAD)


def parse_stat(text: str) -> Stat:
    """Parse one stat line. The command name (field 2) may hold spaces and parentheses, so
    the fields after it are split from the last ')'."""
    opening, closing = text.index("("), text.rindex(")")
    fields = text[closing + 2 :].split()

    def ticks(index: int) -> float:
        return int(fields[index]) / CLOCK_TICKS

    return Stat(
        pid=int(text[:opening]),
        comm=text[opening + 1 : closing],
        state=fields[0],
        ppid=int(fields[1]),
        pgid=int(fields[2]),
        session=int(fields[3]),
        flags=int(fields[6]),
        utime=ticks(11),
        stime=ticks(12),
        cutime=ticks(13),
        cstime=ticks(14),
        num_threads=int(fields[17]),
        starttime=int(fields[19]),
        processor=int(fields[36]) if len(fields) > 36 else -1,
    )


def read_stat(pid: int, tid: int | None = None) -> Stat | None:
    text = read_text(_base(pid, tid) / "stat")
    if text is None:
        return None
    try:
        return parse_stat(text)
    except (ValueError, IndexError):
        return None


def start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (field 22 of its stat), or None when it is gone or a
    zombie (a zombie has exited; only its parent's wait() is missing). A pid plus this value
    names one process for good: a recycled pid has another start time."""
    stat = read_stat(pid)
    return None if stat is None or stat.zombie else str(stat.starttime)


def alive(pid: int) -> bool:
    return start_time(pid) is not None


# -- threads ---------------------------------------------------------------------------------


def tids(pid: int) -> list[int]:
    """The threads of `pid` ([] once it is gone). Listed by hand: psutil's threads() also
    reads every thread's stat for its times, which the sampler would then read again, every
    250 ms for each of hundreds of threads."""
    try:
        return [int(entry.name) for entry in (PROC / str(pid) / "task").iterdir()]
    except (OSError, ValueError):
        return []


def pids() -> list[int]:
    """Every process on the machine (thread group leaders)."""
    return psutil.pids()


def comm(pid: int, tid: int | None = None) -> str | None:
    """The name of a process or of one thread (psutil names processes only)."""
    text = read_text(_base(pid, tid) / "comm")
    return text.strip() if text is not None else None


def cmdline(pid: int) -> list[str]:
    """The arguments as the kernel separates them (NUL), empty ones left out. Not psutil's
    cmdline(): it splits on spaces when the arguments do not end in a NUL (a process that set
    its title), and keeps empty arguments."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def parse_status(text: str) -> dict[str, str]:
    """/proc/<pid>/status as {key: value} (values stripped, units kept)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon:
            fields[key] = value.strip()
    return fields


def read_status(pid: int, tid: int | None = None) -> dict[str, str] | None:
    text = read_text(_base(pid, tid) / "status")
    return parse_status(text) if text is not None else None


def context_switches(status: dict[str, str]) -> tuple[int, int]:
    """(voluntary, involuntary) context switches of one thread (a process's status counts only
    its main thread: sum the threads' for a whole process). psutil's num_ctx_switches() reads
    the process's status, so it counts the main thread only, and it has none per thread."""
    return int(status.get("voluntary_ctxt_switches", 0)), int(status.get("nonvoluntary_ctxt_switches", 0))


def cpus_allowed(status: dict[str, str]) -> set[int] | None:
    value = status.get("Cpus_allowed_list")
    if not value:
        return None
    try:
        return parse_cpu_list(value)
    except CpuListError:
        return None


@dataclass(frozen=True)
class Schedstat:
    """/proc/<pid>/task/<tid>/schedstat: time on a CPU, time waiting runnable (run delay),
    timeslices run; both times in nanoseconds."""

    run_ns: int
    run_delay_ns: int
    timeslices: int


def parse_schedstat(text: str) -> Schedstat:
    run, delay, slices = (int(value) for value in text.split()[:3])
    return Schedstat(run, delay, slices)


def read_schedstat(pid: int, tid: int | None = None) -> Schedstat | None:
    """None when gone, or when the kernel has no schedstats (CONFIG_SCHED_INFO off). psutil
    does not read schedstat."""
    text = read_text(_base(pid, tid) / "schedstat")
    if text is None:
        return None
    try:
        return parse_schedstat(text)
    except ValueError:
        return None


def rss_bytes(pid: int) -> int | None:
    """Resident memory (statm's resident pages times the page size); None once it is gone."""
    try:
        return psutil.Process(pid).memory_info().rss
    except psutil.Error:
        return None


# -- /proc/stat ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """One CPU's line of /proc/stat, in seconds. `user` includes guest time, as the kernel
    reports it."""

    user: float
    nice: float
    system: float
    idle: float
    iowait: float
    irq: float
    softirq: float
    steal: float

    @property
    def total(self) -> float:
        return self.user + self.nice + self.system + self.idle + self.iowait + self.irq + self.softirq + self.steal

    @property
    def tasks(self) -> float:
        """Time spent running tasks (user + nice + system), without interrupts."""
        return self.user + self.nice + self.system

    @property
    def interrupts(self) -> float:
        return self.irq + self.softirq

    @property
    def busy(self) -> float:
        """Everything but idle and iowait (an idle CPU waiting for I/O is still idle)."""
        return self.total - self.idle - self.iowait

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(
            *(max(0.0, a - b) for a, b in zip(self._values(), other._values(), strict=True)),
        )

    def _values(self) -> tuple[float, ...]:
        return (self.user, self.nice, self.system, self.idle, self.iowait, self.irq, self.softirq, self.steal)


def parse_proc_stat(text: str) -> dict[int, CpuTimes]:
    """The per-CPU lines ("cpu0 ...") of /proc/stat; the aggregate "cpu" line is left out."""
    cpus: dict[int, CpuTimes] = {}
    for line in text.splitlines():
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        name, *values = line.split()
        ticks = [int(value) / CLOCK_TICKS for value in values[:8]]
        ticks += [0.0] * (8 - len(ticks))
        cpus[int(name[3:])] = CpuTimes(*ticks)
    return cpus


def read_cpu_times() -> dict[int, CpuTimes]:
    """By hand: psutil's cpu_times(percpu=True) is a list in file order, which stops naming
    the CPU as soon as one below it is offline (/proc/stat leaves offline CPUs out)."""
    text = read_text(PROC / "stat")
    return parse_proc_stat(text) if text else {}


# -- process groups and trees ----------------------------------------------------------------


def all_stats() -> Iterator[Stat]:
    """The stat of every process on the machine (threads not listed)."""
    for pid in pids():
        stat = read_stat(pid)
        if stat is not None:
            yield stat


def group_members(pgid: int) -> list[Stat]:
    """Processes of process group `pgid` that have not exited (zombies left out)."""
    return [stat for stat in all_stats() if stat.pgid == pgid and not stat.zombie]


def group_alive(pgid: int) -> bool:
    """Whether any process of group `pgid` is still running. A group whose members are all
    zombies is stopped in every way that matters."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return bool(group_members(pgid))


def descendants(root: int, parents: dict[int, int]) -> set[int]:
    """`root` and every process below it, from a {pid: ppid} map of one scan of /proc. Not
    psutil's children(recursive=True): that scans /proc again, while the caller's tree must
    come from the same scan as the figures it has read (one snapshot)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    tree, pending = set(), [root]
    while pending:
        pid = pending.pop()
        if pid in tree:
            continue
        tree.add(pid)
        pending.extend(children.get(pid, ()))
    return tree


# -- CPU affinity ------------------------------------------------------------------------


def available_cpus() -> set[int]:
    """The CPUs this machine (or this container's cpuset) lets TraceTax use, independent of
    the affinity the current process happens to have (the backend itself is pinned to the
    stack's cores, so its own affinity says nothing about where the service may run)."""
    online = _online_cpus()
    cpuset = _cgroup_cpuset()
    cpus = (online & cpuset) if online and cpuset else (online or cpuset)
    return cpus or set(os.sched_getaffinity(0))


def _online_cpus() -> set[int]:
    text = read_text(Path("/sys/devices/system/cpu/online"))
    try:
        return parse_cpu_list(text) if text else set()
    except CpuListError:
        return set()


def _cgroup_cpuset() -> set[int]:
    """The effective cpuset of this process's cgroup (v2, else v1), walking up to the root
    (psutil does not read cgroups)."""
    text = read_text(PROC / "self" / "cgroup") or ""
    candidates: list[Path] = []
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if controllers == "":
            root = Path("/sys/fs/cgroup")
            if (root / "unified").is_dir():
                root = root / "unified"
            candidates += [root / relative, *(root / p for p in Path(relative).parents)]
        elif "cpuset" in controllers.split(","):
            root = Path("/sys/fs/cgroup/cpuset")
            candidates += [root / relative, *(root / p for p in Path(relative).parents)]
    for folder in candidates:
        for name in ("cpuset.cpus.effective", "cpuset.effective_cpus"):
            value = read_text(folder / name)
            if value and value.strip():
                with contextlib.suppress(CpuListError):
                    return parse_cpu_list(value)
    return set()


def pin_all_threads(cpus: set[int], pid: int | None = None) -> dict[int, set[int]]:
    """Pin every thread of `pid` (default: this process) to `cpus`; return each thread's
    previous affinity. os.sched_setaffinity(0, ...) changes only the calling thread on Linux,
    so the threads are walked one by one; threads they start later inherit the new mask.
    (psutil's cpu_affinity() is the same system call on one pid, with no thread walk.)"""
    target = os.getpid() if pid is None else pid
    previous: dict[int, set[int]] = {}
    for tid in tids(target):
        try:
            previous[tid] = set(os.sched_getaffinity(tid))
            os.sched_setaffinity(tid, cpus)
        except (ProcessLookupError, PermissionError):
            continue  # the thread ended meanwhile (or is not ours to move)
    return previous


def restore_affinity(previous: dict[int, set[int]]) -> None:
    """Undo pin_all_threads for the threads that still exist."""
    for tid, cpus in previous.items():
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.sched_setaffinity(tid, cpus)
