"""Does a second instance per configuration halve Java's pair spread? (issue 23)

Runs one experiment through the real engine (as `make bench-truth` does, no stack needed): four
identical `none` configurations of LANGUAGE side by side each round (A1, A2, B1, B2), each at RATE
req/s, short solo phases, no closed loop, no stacks. Per round it reads each configuration's
side-by-side CPU per request, then compares two ways of pairing A with B:
- one instance each (A1 against B1, as the engine pairs today);
- two instances each (the geometric mean of A1 and A2 against that of B1 and B2).
If the pair's spread is the instance's own, the second sd is the first over sqrt(2).

Usage (from backend/, nothing else running):
    uv run --frozen python ../docs/studies/pairing/instances.py LANGUAGE RATE ROUNDS
"""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
import threading
from pathlib import Path

from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.engine.figures import ServiceFigures
from tracetax.spec.service import ExperimentSpec

NAMES = ("a1", "a2", "b1", "b2")


def spec(language: str, rate: float, rounds: int) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "name": f"instances {language}",
            "service": {"kind": "demo", "language": language},
            "configurations": [
                {"preset": "none", "name": name, **({} if name == "a1" else {"baseline": False})} for name in NAMES
            ],
            "load": {
                "rate": rate,
                "warmup_s": 2,
                "duration_s": 3,
                "max_throughput_s": 0,
                "side_by_side_s": 10,
                "side_by_side_warmup_s": 5,
                "query": {"iters": 1000, "spans": 5},
            },
            "sample_stacks": False,
            "rounds": rounds,
        }
    )


def cpu_by_round(language: str, rate: float, rounds: int) -> tuple[dict[int, dict[str, float]], list[float]]:
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-instances-"))
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'study.db'}", work_dir=workdir / "work"), publish=lambda e: None
    )
    runtime.engine.after_run = None
    try:
        the_spec = spec(language, rate, rounds)
        with runtime.sessions() as session:
            experiment = repo.create_experiment(session, the_spec.model_dump(mode="json"), "study", the_spec.name)
        runtime.engine.execute(experiment.id, threading.Event(), threading.Event())
        with runtime.sessions() as session:
            stored = repo.get_experiment(session, experiment.id)
            if stored is None:
                raise SystemExit(f"the experiment {experiment.id} is gone from {workdir}")
            cpu: dict[int, dict[str, float]] = {}
            busy: list[float] = []
            for round_ in stored.rounds:
                side = (ServiceFigures.of(round_.figures) or ServiceFigures()).side_by_side
                if round_.status != "completed" or side is None or side.cpu_per_request_us is None:
                    continue
                cpu.setdefault(round_.round_index, {})[round_.configuration] = float(side.cpu_per_request_us)
                if round_.configuration == "a1" and side.utilisation:
                    busy.append(float(side.utilisation.get("service") or 0))
    finally:
        runtime.dispose()
    print(f"work directory: {workdir}")
    return cpu, busy


def main() -> None:
    language, rate, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    cpu, busy = cpu_by_round(language, rate, rounds)
    single, double = [], []
    for index, values in sorted(cpu.items()):
        if len(values) < len(NAMES):
            print(f"round {index}: incomplete {values}")
            continue
        one = math.log(values["b1"] / values["a1"])
        two = 0.5 * (math.log(values["b1"] * values["b2"]) - math.log(values["a1"] * values["a2"]))
        single.append(one)
        double.append(two)
        shown = "  ".join(f"{name} {values[name]:.0f}" for name in NAMES)
        print(f"round {index}: {shown} µs   one each {one:+.3f}   two each {two:+.3f}")
    if len(single) > 1:
        print(
            f"sd of the log ratio over {len(single)} rounds: one instance each {statistics.stdev(single):.3f}, "
            f"two each {statistics.stdev(double):.3f} "
            f"(sqrt(2) less would be {statistics.stdev(single) / math.sqrt(2):.3f})"
        )
        # The six pairs of the four instances, per round: more draws of the single-pair spread.
        pairs = [
            math.log(values[b] / values[a])
            for values in cpu.values()
            if len(values) == len(NAMES)
            for i, a in enumerate(NAMES)
            for b in NAMES[i + 1 :]
        ]
        print(f"sd over all {len(pairs)} single pairs: {statistics.stdev(pairs):.3f}")
    if busy:
        print(f"service core busy in the side-by-side phase: {min(busy):.2f} to {max(busy):.2f}")


if __name__ == "__main__":
    main()
