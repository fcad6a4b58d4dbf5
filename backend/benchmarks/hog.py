"""A noisy neighbour for `make bench-truth TRUTH=neighbour`: a random on/off CPU hog pinned to
the service's cores, as a shared CI runner or cloud VM has (issue 23).

Each service core gets one hog process that alternates busy stretches (spinning on the
monotonic clock) and idle ones (sleeping), both of random length: on ~ U(0, 2·duty·period),
off ~ U(0, 2·(1 - duty)·period), so the mean cycle is `period` and the share of time on is
`duty`. The stretches are random so that the hog does not beat against the rounds' phases.

`NoisyNeighbour` starts it as `python -m benchmarks.hog` in a session (process group) of its
own and stops the whole group on every way out (`with` block, exception, Ctrl-C, SIGTERM
turned into KeyboardInterrupt); each hog process also asks the kernel to kill it when its
parent dies (PR_SET_PDEATHSIG), so none survives a benchmark killed with SIGKILL.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np

from tracetax.system import processes

PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 2.0


@dataclass(frozen=True)
class HogSettings:
    duty: float  # mean share of the time the hog spins, 0 < duty < 1
    period_s: float  # mean length of one on + off cycle
    seed: int = 23

    def __post_init__(self) -> None:
        if not 0 < self.duty < 1:
            raise ValueError(f"hog duty cycle {self.duty!r}: give a fraction strictly between 0 and 1 (e.g. 0.3)")
        if not self.period_s > 0:
            raise ValueError(f"hog period {self.period_s!r} s: give a positive number of seconds (e.g. 4)")

    def describe(self) -> str:
        on, off = 2 * self.duty * self.period_s, 2 * (1 - self.duty) * self.period_s
        return (
            f"duty cycle {self.duty:.0%}, mean period {self.period_s:g} s "
            f"(busy 0-{on:.1f} s, then idle 0-{off:.1f} s, at random; seed {self.seed})"
        )


def hog_phases(settings: HogSettings, rng: np.random.Generator) -> Iterator[tuple[float, float]]:
    """Endless (busy seconds, idle seconds) pairs with the settings' mean duty cycle and period."""
    while True:
        busy = float(rng.uniform(0, 2 * settings.duty * settings.period_s))
        idle = float(rng.uniform(0, 2 * (1 - settings.duty) * settings.period_s))
        yield busy, idle


def _die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux prctl)."""
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(1)


def _spin(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        pass


def _hog_on(cpu: int, settings: HogSettings, index: int) -> None:
    os.sched_setaffinity(0, {cpu})
    rng = np.random.default_rng([settings.seed, index])  # each core's hog its own random stretches
    for busy, idle in hog_phases(settings, rng):
        _spin(busy)
        time.sleep(idle)


def run_hog(cpus: list[int], settings: HogSettings) -> None:
    """The hog process: fork one hog per further cpu (same process group), hog the first."""
    _die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    for index, cpu in enumerate(cpus[1:], start=1):
        if os.fork() == 0:
            _die_with_parent()
            _hog_on(cpu, settings, index)
            os._exit(0)
    _hog_on(cpus[0], settings, 0)


def _process_group_cpu_s(pgid: int) -> float:
    """CPU seconds (user + system) of the live processes of a process group, from /proc."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:  # field 5 of stat: the process group
                total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class NoisyNeighbour:
    """`with NoisyNeighbour(cpus, settings) as hog:` runs the hog for the block's duration and
    stops its whole process group on the way out, whatever the way out is."""

    def __init__(self, cpus: set[int], settings: HogSettings) -> None:
        if not cpus:
            raise ValueError("the noisy neighbour needs the service's cores: this placement pins none (single core?)")
        self.cpus = sorted(cpus)
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self.cpu_s = 0.0
        self.wall_s = 0.0

    def __enter__(self) -> NoisyNeighbour:
        argv = [
            sys.executable,
            "-m",
            "benchmarks.hog",
            "--cpus",
            ",".join(map(str, self.cpus)),
            "--duty",
            str(self.settings.duty),
            "--period",
            str(self.settings.period_s),
            "--seed",
            str(self.settings.seed),
        ]
        cwd = Path(__file__).resolve().parent.parent
        self.process = subprocess.Popen(argv, cwd=cwd, start_new_session=True)
        self.started = time.monotonic()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Measure what the hog burned, then stop its whole group (TERM, then KILL)."""
        process, self.process = self.process, None
        if process is None:
            return
        pgid = process.pid  # session leader: its pid is the group's id
        self.wall_s = time.monotonic() - self.started
        self.cpu_s = _process_group_cpu_s(pgid)
        # TERM, then KILL, until no member of the group runs: waiting for the leader alone left a
        # hog on another core still dying when the block ended.
        processes.stop_group(pgid, STOP_GRACE_S)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_GRACE_S)  # reap the leader

    def measured_duty(self) -> float | None:
        """The share of the service cores' time the hog actually spun (after `stop`)."""
        if self.wall_s <= 0:
            return None
        return self.cpu_s / (self.wall_s * len(self.cpus))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cpus", required=True, help="comma-separated CPU numbers, one hog on each")
    parser.add_argument("--duty", type=float, required=True)
    parser.add_argument("--period", type=float, required=True)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    try:
        cpus = [int(cpu) for cpu in args.cpus.split(",")]
        settings = HogSettings(args.duty, args.period, args.seed)
    except ValueError as error:
        parser.error(str(error))
    run_hog(cpus, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
