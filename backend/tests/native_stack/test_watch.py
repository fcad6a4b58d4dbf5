"""The watcher's restart logic with fake processes and a fake clock: when a component that
exited is started again (1 s, 2 s, 4 s ... capped, afresh after a healthy while), what is
counted and recorded, and how the record reads back."""

from __future__ import annotations

import itertools
import os
import signal
from pathlib import Path

import pytest

from tracetax.native_stack import watch
from tracetax.native_stack.watch import (
    BACKOFF_FIRST_S,
    BACKOFF_RESET_S,
    UNKNOWN_EXIT,
    Watcher,
    describe_exit,
    read_supervision,
    summary,
    write_record,
)


class FakeStack:
    """Components that are alive or not as the test says; `start` brings one back (or fails)."""

    def __init__(self, *names: str) -> None:
        self.up = dict.fromkeys(names, True)
        self.exits: dict[str, str | None] = {}
        self.fail_starts = 0
        self.starts: list[tuple[str, float]] = []
        self.now = 1000.0
        self.wall = 1_700_000_000.0
        self.lines: list[str] = []

    def kill(self, name: str, how: str | None = "killed by SIGKILL") -> None:
        self.up[name] = False
        self.exits[name] = how

    def start(self, name: str) -> None:
        self.starts.append((name, self.now))
        if self.fail_starts:
            self.fail_starts -= 1
            raise RuntimeError("collector: port 4317 is already in use by pid 7 (otelcol)\nmore detail")
        self.up[name] = True

    def watcher(self) -> Watcher:
        return Watcher(
            names=tuple(self.up),
            alive=lambda name: self.up[name],
            exit_of=lambda name: self.exits.pop(name, None),
            start=self.start,
            log=self.lines.append,
            monotonic=lambda: self.now,
            wall=lambda: self.wall,
        )

    def advance(self, watcher: Watcher, seconds: float, step_s: float = 0.5) -> None:
        """Let `seconds` pass, the watcher looking every `step_s`."""
        end = self.now + seconds
        while self.now < end:
            self.now += step_s
            self.wall += step_s
            watcher.step()


def restart_delays(stack: FakeStack, name: str) -> list[float]:
    """Seconds between the exits and the starts that followed them."""
    return [at for n, at in stack.starts if n == name]


def test_an_exit_is_started_again_after_a_second_counted_and_recorded() -> None:
    stack = FakeStack("tempo", "collector")
    watcher = stack.watcher()
    assert watcher.step() is False  # all up: nothing to write
    stack.kill("collector")
    killed_at = stack.now
    assert watcher.step() is True
    record = watcher.record()["collector"]
    assert record["last_exit"] == "killed by SIGKILL"
    assert record["state"] == "down: starting it again in 1 s"
    assert record["restarts"] == 0

    stack.advance(watcher, 2)
    assert stack.starts == [("collector", killed_at + BACKOFF_FIRST_S)]
    record = watcher.record()["collector"]
    assert record["restarts"] == 1 and record["state"] == "running"
    assert record["last_exit_at"] == pytest.approx(1_700_000_000.0)
    assert watcher.record()["tempo"] == {
        "restarts": 0,
        "last_exit": None,
        "last_exit_at": None,
        "last_error": None,
        "state": "running",
    }
    assert stack.lines == [
        "collector killed by SIGKILL; starting it again in 1 s",
        "collector started again (restart 1)",
    ]


def test_a_component_that_keeps_exiting_backs_off_doubling_up_to_the_cap() -> None:
    stack = FakeStack("loki")
    watcher = stack.watcher()
    waits = []
    for restart in range(1, 11):
        stack.kill("loki")  # again as soon as it is back
        exited_at = stack.now + 0.5  # noticed at the next look
        while len(stack.starts) < restart:
            stack.advance(watcher, 0.5)
        waits.append(stack.starts[-1][1] - exited_at)
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]
    assert watcher.record()["loki"]["restarts"] == 10


def test_a_healthy_while_starts_the_backoff_afresh() -> None:
    stack = FakeStack("mimir")
    watcher = stack.watcher()
    for _ in range(3):  # 1, 2, 4 s: the next would be 8 s
        stack.kill("mimir")
        stack.advance(watcher, 10)
    stack.advance(watcher, BACKOFF_RESET_S + 1)
    stack.kill("mimir")
    exited_at = stack.now + 0.5
    stack.advance(watcher, 10)
    assert stack.starts[-1][1] - exited_at == BACKOFF_FIRST_S


def test_a_failed_start_is_tried_again_later_and_says_why() -> None:
    stack = FakeStack("collector")
    watcher = stack.watcher()
    stack.fail_starts = 2
    stack.kill("collector", how=None)  # started by `stack up`: how it ended is unknown
    stack.advance(watcher, 0.5)
    record = watcher.record()["collector"]
    assert record["last_exit"] == UNKNOWN_EXIT
    stack.advance(watcher, 1.5)  # the first attempt, after 1 s, fails
    record = watcher.record()["collector"]
    assert record["last_error"] == "collector: port 4317 is already in use by pid 7 (otelcol)"
    assert record["restarts"] == 0 and record["state"].startswith("down: starting it again in")
    stack.advance(watcher, 10)  # again after 2 s (fails), then after 4 s (works)
    attempts = [at for _, at in stack.starts]
    assert [b - a for a, b in itertools.pairwise(attempts)] == [2, 4]
    record = watcher.record()["collector"]
    assert record["restarts"] == 1 and record["last_error"] is None and record["state"] == "running"
    assert any("could not be started" in line and "trying again in 2 s" in line for line in stack.lines)


def test_the_record_reads_back_with_the_exits_since_a_time(tmp_path: Path) -> None:
    assert read_supervision(tmp_path) is None  # no watcher ever ran here
    components = {
        "collector": {"restarts": 2, "last_exit": "killed by SIGKILL", "last_exit_at": 100.0, "state": "running"},
        "tempo": {"restarts": 1, "last_exit": "exit status 1", "last_exit_at": 50.0, "state": "running"},
        "loki": {"restarts": 0, "last_exit": None, "last_exit_at": None, "state": "running"},
    }
    write_record(tmp_path, components)
    supervision = read_supervision(tmp_path)
    assert supervision is not None
    assert supervision.watching is True  # this process wrote it and still runs
    assert supervision.watcher_pid == os.getpid()
    assert supervision.exits_since(60.0) == {"collector": "killed by SIGKILL"}
    assert supervision.exits_since(10.0) == {"collector": "killed by SIGKILL", "tempo": "exit status 1"}
    assert list(tmp_path.iterdir()) == [tmp_path / watch.RECORD_FILE]  # no temporary file left


def test_a_record_whose_watcher_is_gone_says_nobody_watches(tmp_path: Path) -> None:
    write_record(tmp_path, {})
    record = (tmp_path / watch.RECORD_FILE).read_text().replace(f'"pid": {os.getpid()}', '"pid": 999999999')
    (tmp_path / watch.RECORD_FILE).write_text(record)
    supervision = read_supervision(tmp_path)
    assert supervision is not None and supervision.watching is False
    (tmp_path / watch.RECORD_FILE).write_text("{half")
    assert read_supervision(tmp_path) is None


def test_exits_and_summaries_in_words() -> None:
    assert describe_exit(-signal.SIGKILL) == "killed by SIGKILL"
    assert describe_exit(1) == "exit status 1"
    assert describe_exit(-99) == "killed by signal 99"
    assert summary({"restarts": 0}) == "never restarted"
    line = summary({"restarts": 2, "last_exit": "killed by SIGKILL", "last_exit_at": 0.0, "state": "running"})
    assert line.startswith("restarted 2x, last: killed by SIGKILL at ")
    down = summary({"restarts": 1, "state": "down: starting it again in 4 s", "last_error": "port taken"})
    assert down == "restarted 1x, down: starting it again in 4 s, start failed: port taken"
    assert summary({"restarts": 1, "state": "down: starting it again in 4 s", "last_error": "x"}, watching=False) == (
        "restarted 1x"
    )
