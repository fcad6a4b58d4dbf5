"""What the engine runs, whatever the subject: one round skeleton and one phase-hold loop.

A subject (a service, a Collector pipeline: tracetax.subjects) is given to the engine as a
`RoundSubject`; its round is a `RoundRun` that this module drives, so the try/except/finally
around a round and the loop that holds a phase under load exist once. The engine knows no
subject by name.

Everything here is blocking and runs in the engine's worker thread.
"""

from __future__ import annotations

import shutil
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tracetax.engine.aggregate import RoundData
from tracetax.engine.figures import Figures
from tracetax.system.placement import Placement

# report(phase, phase_duration_s, extra) -> publishes a Progress event
Report = Callable[[str, float | None, dict[str, Any]], None]

# How long the process a round measures has to exit after SIGTERM once its phases are done.
STOP_GRACE_S = 20.0
# A held phase reports its progress at most this often; once its time is up, it looks this
# often whether its load has exited (hold_phase).
PROGRESS_EVERY_S = 1.0
END_POLL_S = 0.05


class RoundCancelledError(RuntimeError):
    """The experiment was cancelled (or the backend is stopping) while this round ran."""


class RoundNotStartedError(RuntimeError):
    """The round could not begin and nothing was started: it fails with this reason alone."""


@dataclass
class RoundOutcome:
    status: str  # completed | failed | cancelled
    error: str | None = None
    # The subject's own figures (tracetax.engine.figures), which its round fills in.
    figures: Figures | None = None
    service_log_tail: str | None = None
    exit_code: int | None = None
    histogram: str | None = None
    samples: list[dict[str, Any]] = field(default_factory=list)
    resources: dict[str, Any] | None = None
    stack_profile: dict[str, Any] | None = None
    folded_stacks: str | None = None
    shutdown: dict[str, Any] | None = None


@dataclass
class Slot:
    """One (round, configuration) to run, as the engine hands it to a subject."""

    configuration: str
    run_id: str
    workdir: Path
    placement: Placement
    cancel: threading.Event
    report: Report
    # What this configuration measured in its round's side-by-side phase (the subject's own
    # figures, from `run_together`); None when the round had none.
    together: Any = None


@dataclass
class TogetherSlot:
    """One round's side-by-side phase: every configuration of the round live at once."""

    round_index: int
    # In the round's shuffled order.
    configurations: list[str]
    # Each configuration's run id in this round.
    run_ids: dict[str, str]
    workdir: Path
    placement: Placement
    cancel: threading.Event
    report: Report


class RoundSubject(Protocol):
    """What the engine runs for one experiment: its rounds and how they aggregate."""

    def environment(self) -> dict[str, Any]: ...
    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        """The round's side-by-side phase, before its configurations run one at a time: per
        configuration, what it measured there (handed to its slot as `together`). {} when the
        subject has no such phase, the spec turns it off, or it was cancelled."""
        ...

    def run_round(self, slot: Slot) -> RoundOutcome: ...
    def aggregate(self, rounds: Sequence[RoundData]) -> Mapping[str, Mapping[str, Any]]:
        """Each configuration's figures over the rounds, as stored (`results.aggregates`)."""
        ...


class RoundRun(Protocol):
    """One round of a subject, as `run_round` drives it."""

    # The errors that fail the round (a process that would not start or died, a load that
    # failed); any other error is a bug and is raised.
    failures: tuple[type[Exception], ...]

    def phases(self, outcome: RoundOutcome) -> None:
        """Start what the round measures, run its phases into `outcome` and stop it cleanly.
        Returns once the round is complete; raises RoundCancelledError or one of `failures`."""
        ...

    def clean_up(self, outcome: RoundOutcome) -> None:
        """On every path out: stop whatever still runs and keep what a failed round leaves (log tails)."""
        ...


def run_round(workdir: Path, report: Report, begin: Callable[[], RoundRun], figures: Figures) -> RoundOutcome:
    """Run one round in a fresh `workdir`; never raises for the subject's failures.

    `begin` prepares the round without starting anything; RoundNotStartedError from it fails
    the round at once. `figures` are the subject's, empty, which its round fills in: they are
    the outcome's on every path, so a round that failed early still says it measured nothing."""
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    try:
        run = begin()
    except RoundNotStartedError as error:
        return RoundOutcome(status="failed", error=str(error), figures=figures)
    outcome = RoundOutcome(status="failed", figures=figures)
    try:
        report("starting", None, {})
        run.phases(outcome)
        outcome.status = "completed"
    except RoundCancelledError:
        outcome.status, outcome.error = "cancelled", "cancelled"
    except run.failures as error:
        outcome.status, outcome.error = "failed", str(error)
    finally:
        run.clean_up(outcome)
    return outcome


def _nothing_live() -> dict[str, Any]:
    return {}


def _nothing_to_stop() -> None:
    return None


def hold_phase(
    cancel: threading.Event,
    report: Report,
    phase: str,
    seconds: float,
    *,
    watch: Callable[[float], None],
    until: Callable[[float], bool] | None = None,
    live: Callable[[], dict[str, Any]] = _nothing_live,
    stop: Callable[[], None] = _nothing_to_stop,
) -> None:
    """Hold a phase under load, reporting progress about every second, until `until(elapsed)`
    says it is over (default: once `seconds` have passed).

    Stops at once, calling `stop` first (the load), when the round is cancelled
    (RoundCancelledError) or when `watch(elapsed)` raises (what is measured died, the load
    failed or overran). `live` adds figures to each progress event."""
    over = until or (lambda elapsed: elapsed >= seconds)
    started = time.monotonic()
    reported_at: float | None = None
    while not over(elapsed := time.monotonic() - started):
        if cancel.is_set():
            stop()
            raise RoundCancelledError()
        try:
            watch(elapsed)
        except Exception:
            stop()
            raise
        if reported_at is None or elapsed - reported_at >= PROGRESS_EVERY_S:
            report(phase, seconds, {"phase_elapsed_s": round(min(elapsed, seconds), 1), **live()})
            reported_at = elapsed
        # Steps of up to a second until the phase's time is up, then short ones until its load
        # has exited, so the phase ends with its load. (A half-second step there kept every
        # phase, and every 1 s slice of a warm-up, up to half a second past its load's end.)
        time.sleep(min(PROGRESS_EVERY_S, max(END_POLL_S, seconds - elapsed)))


def shutdown_record(exit_code: int | None, grace_s: float) -> dict[str, Any]:
    """How the measured process ended after SIGTERM. Only a failure during a measured phase
    fails a round: a process that dies by SIGTERM's default action (no handler) or has to be
    killed keeps its measured phases, and the record says its SDK may not have flushed."""
    if exit_code == 0:
        return {"exit_code": 0, "clean": True, "flushed": True, "note": "exited cleanly after SIGTERM"}
    if exit_code == -signal.SIGTERM:
        note = (
            "terminated by SIGTERM's default action (no signal handler): the SDK had no chance to flush, "
            "so telemetry it still held may be missing from the ledger"
        )
    elif exit_code == 128 + signal.SIGTERM:
        return {
            "exit_code": exit_code,
            "clean": False,
            "flushed": None,
            "note": "exited with 143 (128 + SIGTERM, as the JVM and shells report a SIGTERM exit): shutdown "
            "hooks may have flushed the SDK, or not",
        }
    elif exit_code == -signal.SIGKILL:
        note = (
            f"did not exit within {grace_s:.0f} s of SIGTERM and was killed: telemetry the SDK still held "
            "may be missing from the ledger"
        )
    else:
        note = f"exited with code {exit_code} after SIGTERM: telemetry may not have been flushed"
    return {"exit_code": exit_code, "clean": False, "flushed": False, "note": note}
