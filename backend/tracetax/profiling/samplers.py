"""Each language's native stack sampler, run against a service for one measured phase.

Lifecycle, driven by the round runner: `environment()` / `argv()` before the service starts,
`prepare(pid)` once it is healthy (before the warm-up), `start(pid, seconds)` when the
measured phase starts, `end_window()` when it ends,
`folded()` after the service has stopped, `cancel()` on every path out (idempotent: no
sampler process outlives the round). A sampler that fails raises SamplerError; the round
stands without stacks and says why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import psutil

from tracetax.profiling import pprof
from tracetax.profiling.folded import Folded, parse
from tracetax.system import processes
from tracetax.system.ports import free_port

SAMPLE_HZ = 100


class SamplerError(RuntimeError):
    """The sampler could not produce stacks; the message names the tool and the reason."""


class StackSampler:
    name = "none"
    # The stack's cores, for a sampler that runs a process of its own (set by the round
    # runner); None: it inherits the engine's affinity (the stack's cores while measuring).
    cpus: set[int] | None = None

    def __init__(self, service_dir: Path, workdir: Path) -> None:
        self.service_dir = service_dir
        self.workdir = workdir

    def environment(self) -> dict[str, str]:
        return {}

    def argv(self, argv: list[str]) -> list[str]:
        return argv

    def serve_from_workers(self, workers: int) -> None:
        """The service answers from `workers` processes of its own (TRACETAX_WORKERS), not from
        the process started: a sampler that looks at one process looks at all of them."""

    def prepare(self, pid: int) -> None:
        """One-time set-up costs go here, so they land in the warm-up, not the measured phase."""

    def start(self, pid: int, seconds: int) -> None:
        raise NotImplementedError

    def end_window(self) -> None:
        """The measured phase is over: the sampler stops (or has stopped) taking samples."""

    def folded(self) -> Folded:
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop anything still running; safe to call at any time, more than once."""


class _ProcessSampler(StackSampler):
    """A sampler that is a child process of its own (own session, killed as a group)."""

    process: subprocess.Popen[bytes] | None = None

    def _spawn(self, argv: list[str], log: Path) -> None:
        with log.open("wb") as out:
            self.process = processes.spawn(
                argv, stdout=out, cwd=self.service_dir, cpus=self.cpus, track=f"stack sampler {self.name}"
            )

    def _wait(self, timeout_s: float, what: str, log: Path) -> None:
        if self.process is None:
            raise SamplerError(f"{self.name}: {what} was never started")
        try:
            code = self.process.wait(timeout_s)
            processes.forget(self.process)
        except subprocess.TimeoutExpired:
            self.cancel()
            raise SamplerError(f"{self.name}: {what} did not finish within {timeout_s:.0f}s") from None
        if code != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise SamplerError(f"{self.name}: {what} exited with {code}: {' | '.join(tail)}")

    def cancel(self) -> None:
        if self.process is not None and self.process.returncode is None:
            processes.kill(self.process)

    def _printed(self, argv: list[str]) -> str:
        """The output of the tool that turns a recording into text (jfr print, perf script)."""
        printed = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        if printed.returncode != 0:
            raise SamplerError(f"{self.name}: {' '.join(argv[:2])} failed: {printed.stderr.strip()[-300:]}")
        return printed.stdout


class GoPprof(StackSampler):
    """net/http/pprof's CPU profile on the service's PPROF_PORT, folded by goroutine label."""

    name = "go-pprof"

    def __init__(self, service_dir: Path, workdir: Path, port: int | None = None) -> None:
        super().__init__(service_dir, workdir)
        # The demo listens where it is told (PPROF_PORT); a user's service names its own port.
        self.port = port or free_port()
        self._raw: bytes | None = None
        self._error: str | None = None
        self._thread: threading.Thread | None = None

    def environment(self) -> dict[str, str]:
        return {"PPROF_PORT": str(self.port)}

    def start(self, pid: int, seconds: int) -> None:
        url = f"http://127.0.0.1:{self.port}/debug/pprof/profile?seconds={seconds}"
        self._thread = threading.Thread(target=self._fetch, args=(url, seconds + 15), daemon=True)
        self._thread.start()

    def _fetch(self, url: str, timeout_s: float) -> None:
        try:
            response = httpx.get(url, timeout=timeout_s)
            response.raise_for_status()
            self._raw = response.content
        except httpx.HTTPError as error:
            self._error = f"{self.name}: GET {url} failed: {error}"

    def end_window(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def folded(self) -> Folded:
        if self._raw is None:
            raise SamplerError(self._error or f"{self.name}: no profile was taken")
        (self.workdir / "cpu.pprof").write_bytes(self._raw)
        try:
            return pprof.fold(self._raw, "tracetax.role", _goroutine_root)
        except pprof.ProfileFormatError as error:
            raise SamplerError(f"{self.name}: {error}") from error


def _goroutine_root(role: str | None) -> str | None:
    # The profiler's own goroutine (role "pprof") is not the service's work.
    return None if role == "pprof" else f"goroutine {role or 'unlabelled'}"


_PY_SPY_THREAD = re.compile(r"^thread \(\d+\): ")
# With --subprocesses, py-spy puts the process chain first: process 1:"gunicorn ...";process 2:"...".
_PY_SPY_PROCESSES = re.compile(r'^(?:process \d+:"[^"]*";)+')


class PySpy(_ProcessSampler):
    """py-spy record --threads --gil: the first frame names the thread ("thread (tid): name").
    --gil keeps only the thread holding the GIL, i.e. Python on CPU; without it py-spy counts
    threads blocked in Condition.wait or a socket read as running."""

    name = "py-spy"
    binary = ".venv/bin/py-spy"
    # Sample the service's child processes too (a pre-fork server's workers: gunicorn, uwsgi).
    subprocesses = False

    def serve_from_workers(self, workers: int) -> None:
        self.subprocesses = True

    def start(self, pid: int, seconds: int) -> None:
        binary = self.service_dir / self.binary
        if not binary.exists():
            raise SamplerError(f"{self.name}: {binary} not found (build the service: make -C {self.service_dir} build)")
        self.output = self.workdir / "py-spy.folded"
        self.log = self.workdir / "py-spy.log"
        self.seconds = seconds
        argv = [str(binary), "record", "--pid", str(pid), "--threads", "--gil", "--full-filenames"]
        argv += ["--subprocesses"] if self.subprocesses else []
        options = ["--rate", str(SAMPLE_HZ), "--duration", str(seconds), "--format", "raw", "-o", str(self.output)]
        self._spawn([*argv, *options], self.log)

    def end_window(self) -> None:
        if self.process is not None:
            self._wait(self.seconds + 15, "py-spy record", self.log)

    def folded(self) -> Folded:
        if not getattr(self, "output", None) or not self.output.exists():
            raise SamplerError(f"{self.name}: no output was written (see {getattr(self, 'log', 'its log')})")
        stacks: Folded = Counter()
        for stack, count in parse(self.output.read_text(errors="replace")).items():
            stacks[_PY_SPY_THREAD.sub("thread ", _PY_SPY_PROCESSES.sub("", stack))] += count
        return stacks


class JavaFlightRecorder(_ProcessSampler):
    """JFR started and stopped on the running JVM with jcmd: its default settings plus Java
    execution samples every 2 ms. (settings=profile, or a 1 ms period, tripled the demo
    service's CPU per request; at 10 ms JFR took too few samples to split.)"""

    name = "jfr"
    settings = ("jdk.ExecutionSample#enabled=true", "jdk.ExecutionSample#period=2ms")

    def prepare(self, pid: int) -> None:
        # The JVM loads and compiles JFR on its first recording: a throwaway one, started and
        # stopped now, moves that cost (it doubled CPU per request) out of the measured phase.
        self.log = self.workdir / "jfr.log"
        self._spawn(["jcmd", str(pid), "JFR.start", "name=tracetax-warmup", *self.settings], self.log)
        self._wait(30, "jcmd JFR.start (warm-up recording)", self.log)
        self._spawn(["jcmd", str(pid), "JFR.stop", "name=tracetax-warmup"], self.log)
        self._wait(30, "jcmd JFR.stop (warm-up recording)", self.log)

    def start(self, pid: int, seconds: int) -> None:
        self.pid = pid
        self.recording = self.workdir / "service.jfr"
        self.log = self.workdir / "jfr.log"
        self._spawn(["jcmd", str(pid), "JFR.start", "name=tracetax", *self.settings], self.log)
        self._wait(30, "jcmd JFR.start", self.log)

    def end_window(self) -> None:
        if getattr(self, "recording", None) is None:
            return
        self._spawn(["jcmd", str(self.pid), "JFR.stop", "name=tracetax", f"filename={self.recording}"], self.log)
        self._wait(60, "jcmd JFR.stop", self.log)

    def folded(self) -> Folded:
        if not getattr(self, "recording", None) or not self.recording.exists():
            raise SamplerError(f"{self.name}: no recording was written")
        return fold_jfr_text(
            self._printed(
                ["jfr", "print", "--stack-depth", "128", "--events", "jdk.ExecutionSample", str(self.recording)]
            )
        )


_JFR_THREAD = re.compile(r'^\s*sampledThread = "(.*)" \(')
_JFR_FRAME = re.compile(r"^\s{4}(\S+?)\(.*\)\s+line:")
_THREAD_NUMBER = re.compile(r"-\d+$")


def fold_jfr_text(text: str) -> Folded:
    """Fold `jfr print --events jdk.ExecutionSample` output (frames are printed leaf first)."""
    stacks: Folded = Counter()
    thread, current = "", []
    for line in text.splitlines():
        if match := _JFR_THREAD.match(line):
            thread = _THREAD_NUMBER.sub("-*", match.group(1))
        elif match := _JFR_FRAME.match(line):
            current.append(match.group(1))
        elif line.startswith("}"):
            if thread:
                stacks[";".join([f"thread {thread}", *reversed(current)])] += 1
            thread, current = "", []
    return stacks


class NodeCpuProfile(StackSampler):
    """V8's CPU profiler, on demand: the service (TRACETAX_CPU_PROFILE_DIR in its environment)
    starts it through node:inspector on a SIGUSR2 and, on the next SIGUSR2, stops it and writes
    the profile into that directory (one sample every 2 ms instead of V8's 1 ms). So it runs only
    between start() and end_window() and costs nothing in any other phase (unlike node --cpu-prof,
    on for the whole life of the process).

    Several processes (the Node demo's cluster, TRACETAX_WORKERS > 1): the top process passes each
    SIGUSR2 to its workers, every worker writes a profile of its own and `folded()` is their sum.
    How many profiles end_window() waits for: `expected` when the caller knows it (the demo's
    workers); otherwise at least one, then, if the process had child processes running the same
    executable when it was prepared (a cluster's workers), up to `settle_s` more for one per such
    child. A process without such children is waited for as it always was (one profile, no
    settle). `expected`, `profiles` (what was found) and the errors say how many processes were
    expected and found."""

    name = "v8-cpu-prof"
    toggle = signal.SIGUSR2  # SIGUSR1 is Node's own (it opens the inspector port)
    write_timeout_s = 30.0
    settle_s = 2.0

    def __init__(self, service_dir: Path, workdir: Path, expected: int | None = None) -> None:
        super().__init__(service_dir, workdir)
        self.profile_dir = (workdir / "cpuprofile").absolute()
        self.pid: int | None = None
        self.expected = expected
        self.profiles: list[Path] = []
        self.profile: Path | None = None  # the last of `profiles`
        self._before: set[Path] = set()
        self._children = 0

    def environment(self) -> dict[str, str]:
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        return {"TRACETAX_CPU_PROFILE_DIR": str(self.profile_dir)}

    def _profiles(self) -> set[Path]:
        return set(self.profile_dir.glob("*.cpuprofile"))

    def _signal(self, what: str) -> None:
        if self.pid is None:
            raise SamplerError(f"{self.name}: the profiler was never started")
        try:
            os.kill(self.pid, self.toggle)
        except ProcessLookupError:
            raise SamplerError(
                f"{self.name}: cannot {what} the profiler: the service (pid {self.pid}) is gone"
            ) from None

    @staticmethod
    def _runtime_children(pid: int) -> int:
        """Child processes of `pid` running its executable (node:cluster workers)."""
        try:
            process = psutil.Process(pid)
            exe, children = process.exe(), process.children()
        except psutil.Error:
            return 0
        count = 0
        for child in children:
            try:
                count += child.exe() == exe
            except psutil.Error:  # gone, or not ours to read
                continue
        return count

    def serve_from_workers(self, workers: int) -> None:
        self.expected = workers

    def prepare(self, pid: int) -> None:
        if self.expected is None:
            self._children = self._runtime_children(pid)

    def start(self, pid: int, seconds: int) -> None:
        self._before = self._profiles()
        self.pid = pid
        self._signal("start")

    def _wait_for(self, count: int, timeout_s: float) -> list[Path]:
        deadline = time.monotonic() + timeout_s
        while len(new := sorted(self._profiles() - self._before)) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return new

    def end_window(self) -> None:
        if self.pid is None:
            return
        self._signal("stop")
        # The service writes the profile under a temporary name and renames it: a .cpuprofile
        # that exists is complete. Waiting here keeps the write out of the next phase.
        new = self._wait_for(self.expected or 1, self.write_timeout_s)
        if not new:
            raise SamplerError(
                f"{self.name}: the service wrote no .cpuprofile into {self.profile_dir} within "
                f"{self.write_timeout_s:.0f}s of the second SIGUSR2 (see its log)"
            )
        if self.expected is not None and len(new) < self.expected:
            raise SamplerError(
                f"{self.name}: {len(new)} of the {self.expected} processes expected wrote a .cpuprofile into "
                f"{self.profile_dir} within {self.write_timeout_s:.0f}s of the second SIGUSR2 (see its log)"
            )
        if self.expected is None and len(new) < self._children:
            new = self._wait_for(self._children, self.settle_s)
        self.profiles = new
        self.profile = new[-1]

    def folded(self) -> Folded:
        if not self.profiles:
            raise SamplerError(f"{self.name}: no .cpuprofile was written (the profiler was not started and stopped)")
        stacks: Folded = Counter()
        for profile in self.profiles:  # one per process: their sum
            stacks.update(fold_cpuprofile(json.loads(profile.read_text())))
        return stacks


def fold_cpuprofile(profile: dict[str, Any], window: tuple[float, float] | None = None) -> Folded:
    """Fold a .cpuprofile's samples (only those inside `window`, in V8's CLOCK_MONOTONIC µs, when
    given); idle samples are left out."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent: dict[int, int] = {}
    for node in nodes.values():
        for child in node.get("children", []):
            parent[child] = node["id"]
    names: dict[int, str] = {}

    def stack(node_id: int) -> str:
        if node_id not in names:
            path, cursor = [], node_id
            while cursor in nodes and cursor in parent:  # the root node "(root)" is left out
                frame = nodes[cursor]["callFrame"]
                url = frame.get("url") or ""
                path.append(f"{frame.get('functionName') or '(anonymous)'} {url}".strip())
                cursor = parent[cursor]
            names[node_id] = ";".join(["thread main", *reversed(path)])
        return names[node_id]

    stacks: Folded = Counter()
    timestamp = float(profile["startTime"])
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=False):
        timestamp += delta
        if window is None or window[0] <= timestamp <= window[1]:
            folded = stack(node_id)
            if not folded.endswith("(idle)"):
                stacks[folded] += 1
    return stacks


class Perf(_ProcessSampler):
    """Linux perf: on-CPU samples of every thread of the process tree, native frames (what any
    runtime looks like from the kernel's side). The last resort for a service whose runtime has
    no sampler of its own: an interpreter's or JIT's frames are not named."""

    name = "perf"

    def start(self, pid: int, seconds: int) -> None:
        binary = shutil.which("perf")
        if binary is None:
            raise SamplerError(f"{self.name}: perf is not installed (Debian: linux-perf)")
        self.data = self.workdir / "perf.data"
        self.log = self.workdir / "perf.log"
        self.seconds = seconds
        # cpu-clock, a software event: hardware cycles are "not supported" in many VMs (this one).
        argv = [binary, "record", "-e", "cpu-clock", "-F", str(SAMPLE_HZ), "-g", "-p", str(pid), "-o", str(self.data)]
        self._spawn([*argv, "--", "sleep", str(seconds)], self.log)

    def end_window(self) -> None:
        if self.process is not None:
            self._wait(self.seconds + 15, "perf record", self.log)

    def folded(self) -> Folded:
        if not getattr(self, "data", None) or not self.data.exists():
            raise SamplerError(f"{self.name}: no perf.data was written (see {getattr(self, 'log', 'its log')})")
        return fold_perf_script(self._printed(["perf", "script", "-F", "comm,ip,sym", "-i", str(self.data)]))


def fold_perf_script(text: str) -> Folded:
    """Fold `perf script -F comm,ip,sym` output: a header line naming the thread, then its frames
    leaf first, one per line, and a blank line between samples."""
    stacks: Folded = Counter()
    for block in text.strip().split("\n\n"):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        frames_ = [line.split(None, 1)[1] if " " in line else line for line in lines[1:]]
        thread = _THREAD_NUMBER.sub("-*", lines[0].split()[0])
        stacks[";".join([f"thread {thread}", *reversed(frames_)])] += 1
    return stacks


SAMPLERS: dict[str, type[StackSampler]] = {
    sampler.name: sampler for sampler in (GoPprof, PySpy, JavaFlightRecorder, NodeCpuProfile, Perf)
}
PY_SPY_DIR = Path(__file__).resolve().parents[3] / "instrumented-services" / "python"


class AnyServiceSampler(StackSampler):
    """The stack sampler of a user's own service, chosen by the runtime of the process that runs
    (detected once it is healthy, in `prepare`): Python -> py-spy (with its child processes),
    a JVM -> JFR through jcmd, Node -> the V8 profiler (preloaded by the launch when the service
    is declared `node`), Go -> its pprof endpoint when the spec names one; anything else -> perf.
    Until then it is `detect`; afterwards it behaves as the sampler it chose."""

    def __init__(self, workdir: Path, language: str, pprof_port: int | None) -> None:
        super().__init__(Path(), workdir)
        self.language = language
        self.pprof_port = pprof_port
        self.chosen: StackSampler | None = None
        self.runtime: str | None = None
        self.node_profile = NodeCpuProfile(Path(), workdir) if language == "node" else None

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.chosen.name if self.chosen else "detect"

    @property
    def preloads_node_profiler(self) -> bool:
        return self.node_profile is not None

    def environment(self) -> dict[str, str]:
        return self.node_profile.environment() if self.node_profile else {}

    def prepare(self, pid: int) -> None:
        self.runtime, target = detect_runtime(pid)
        self.chosen, self.target = self._choose(pid, target), target
        self.chosen.cpus = self.cpus
        self.chosen.prepare(target)

    def _choose(self, pid: int, target: int) -> StackSampler:
        runtime = self.runtime
        if runtime == "python":
            sampler = PySpy(PY_SPY_DIR, self.workdir)
            sampler.subprocesses = True
            return sampler
        if runtime == "java":
            return JavaFlightRecorder(Path(), self.workdir)
        if runtime == "node":
            if self.node_profile is None:
                raise SamplerError(
                    "the service runs Node, but its V8 profiler is preloaded only when service.language is node"
                )
            return self.node_profile
        if self.pprof_port is not None:
            return GoPprof(Path(), self.workdir, port=self.pprof_port)
        why = " (a Go service can name its net/http/pprof port: service.pprof_port)" if self.language == "go" else ""
        if shutil.which("perf") is None:
            raise SamplerError(f"no stack sampler for {runtime}{why}: perf is not installed (Debian: linux-perf)")
        return Perf(Path(), self.workdir)

    def start(self, pid: int, seconds: int) -> None:
        if self.chosen is None:
            raise SamplerError("the runtime was never detected")
        # py-spy and perf follow the whole tree from the top; JFR and the V8 profiler need the
        # runtime's own process (under a wrapper or launcher it is a child).
        self.chosen.start(pid if self.chosen.name in ("py-spy", "perf") else self.target, seconds)

    def end_window(self) -> None:
        if self.chosen is not None:
            self.chosen.end_window()

    def folded(self) -> Folded:
        if self.chosen is None:
            raise SamplerError("no sampler ran")
        return self.chosen.folded()

    def cancel(self) -> None:
        if self.chosen is not None:
            self.chosen.cancel()


RUNTIMES = (
    ("python", re.compile(r"^python[\d.]*$")),
    ("java", re.compile(r"^java$")),
    ("node", re.compile(r"^node(js)?$")),
)


def detect_runtime(pid: int) -> tuple[str, int]:
    """The runtime of a service's process tree and the pid that runs it: the first process
    (top down) whose executable is a known interpreter or VM; else the top process's executable
    name (a native binary: Go, Rust, C++...)."""
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
        for process in tree:
            executable = Path(process.exe()).name
            for runtime, pattern in RUNTIMES:
                if pattern.match(executable):
                    return runtime, process.pid
        return Path(root.exe()).name or "unknown", pid
    except psutil.Error as error:
        raise SamplerError(f"cannot tell the service's runtime: {error}") from error
