"""`make bench-truth`: do the numbers tell the truth on this machine?

1. A/A on two languages (Go and Python, `none` against `none`, the default load and rounds):
   nothing may come out significant, and the noise floor per metric is printed, beside the
   A/A configuration's own interval (they must agree: that is what the floor claims).
2. A known injected cost: the Go service busy-waits a fixed time per request in one
   configuration (TRACETAX_INJECT_BUSY_US, from the spec's `inject_busy_us`); its p50 and CPU
   per request must grow by that time within ±10%.

Each experiment runs on the real engine with the real placement, the stack running or not
(no telemetry is exported in `none`; the ledger is not collected). Needs `make services tools`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from benchmarks import stop_cleanly_on_sigterm
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.diagnostics.overhead import Change, NoiseFloor, compare, format_value, noise_floor
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.diagnostics.rounds import flagged_rounds
from tracetax.spec.service import ExperimentSpec
from tracetax.system.placement import Placement

TOLERANCE = 0.10


def run_experiment(spec: ExperimentSpec, workdir: Path) -> tuple[dict[str, Change], dict[str, NoiseFloor], list[str]]:
    """Run `spec` (a baseline and one candidate) and return the candidate's changes, the noise
    floor and the rounds flagged for interference."""
    workdir.mkdir(parents=True, exist_ok=True)
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'bench.db'}", work_dir=workdir / "work"), publish=lambda e: None
    )
    runtime.engine.after_run = None  # measurement only: no span ledger
    with runtime.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), "bench", spec.name)
    status = runtime.engine.execute(experiment.id, threading.Event(), threading.Event())
    with runtime.sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None  # noqa: S101 - created above
        flagged = flagged_rounds([r for r in stored.rounds if r.status == "completed"])
        samples = samples_by_configuration(stored)
    runtime.dispose()
    if status != "completed":
        raise SystemExit(f"bench-truth: experiment {spec.name} ended {status}")
    base = samples[spec.baseline.name]
    candidate = next(name for name in samples if name != spec.baseline.name)
    return compare(base, samples[candidate]), noise_floor(base, [samples[candidate]]), flagged


def spec_of(name: str, language: str, args: argparse.Namespace, busy_us: int = 0) -> ExperimentSpec:
    load: dict[str, Any] = {"rate": args.rate, "query": {"iters": args.iters, "spans": 5}}
    if args.duration is not None:
        load["duration_s"] = args.duration
    body: dict[str, Any] = {
        "name": name,
        "service": {"kind": "demo", "language": language},
        "configurations": [
            {"preset": "none"},
            {"preset": "none", "name": "candidate", "baseline": False, "inject_busy_us": busy_us},
        ],
        "load": load,
        "sample_stacks": False,
    }
    if args.rounds is not None:
        body["rounds"] = args.rounds
    return ExperimentSpec.model_validate(body)


def print_aa(language: str, changes: dict[str, Change], floors: dict[str, NoiseFloor], flagged: list[str]) -> bool:
    print(f"\nA/A on {language}: none against none")
    print(f"  {'metric':<16} {'A/A change (95% interval)':<58} {'noise floor':>12}  significant")
    for name, item in changes.items():
        floor = floors[name].relative_pct
        interval = item.relative_pct
        text = (
            f"{interval.estimate:+.1f}% ({interval.low:+.1f}% to {interval.high:+.1f}%)"
            if interval.low is not None and interval.high is not None and interval.estimate is not None
            else item.summary
        )
        floor_text = f"±{floor:.1f}%" if floor is not None else "-"
        print(f"  {item.label:<16} {text:<58} {floor_text:>12}  {'YES' if item.significant else 'no'}")
    if flagged:
        print(f"  flagged for interference: {', '.join(flagged)}")
    return not any(item.significant for item in changes.values())


def print_injected(busy_us: int, changes: dict[str, Change], flagged: list[str]) -> bool:
    print(f"\nInjected cost on go: {busy_us} µs busy-wait per request")
    ok = True
    for name in ("p50", "cpu_per_request_us"):
        item = changes[name]
        measured = item.absolute.estimate
        within = measured is not None and abs(measured - busy_us) <= TOLERANCE * busy_us
        ok &= within
        error = f"{(measured - busy_us) / busy_us:+.1%}" if measured is not None else "unknown"
        print(
            f"  {item.label:<16} {item.summary}\n  {'':<16} injected {format_value(busy_us, 'us')}, "
            f"error {error} -> {'within' if within else 'OUTSIDE'} ±{TOLERANCE:.0%}"
        )
    if flagged:
        print(f"  flagged for interference: {', '.join(flagged)}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=None, help="default: the spec's default")
    parser.add_argument("--duration", type=float, default=None, help="measured seconds; default: the spec's")
    parser.add_argument("--busy-us", type=int, default=1000)
    parser.add_argument("--languages", default="go,python")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-bench-truth-"))
    print(f"placement: {Placement.for_this_machine().describe()}")
    ok = True
    for language in args.languages.split(","):
        changes, floors, flagged = run_experiment(spec_of(f"A/A {language}", language, args), workdir / language)
        ok &= print_aa(language, changes, floors, flagged)
    changes, _, flagged = run_experiment(spec_of("injected", "go", args, args.busy_us), workdir / "injected")
    ok &= print_injected(args.busy_us, changes, flagged)
    print(f"\nbench-truth: {'every figure as expected' if ok else 'SOME FIGURE IS OFF (see above)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
