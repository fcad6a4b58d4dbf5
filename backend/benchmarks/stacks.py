"""`make bench-stacks`: where export runs, per language, and what the stack sampler costs.

For each demo service: one experiment with stack sampling (none, simple, batch-default) prints
the where-export-runs split of each configuration; the same experiment again without stack
sampling gives the sampler's own cost (p99 and CPU per request, sampling on vs off). Needs the
stack (`make up`): the services export to its Collector, as in a real experiment.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import stop_cleanly_on_sigterm
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.tables import where_export_table

CONFIGURATIONS = ("none", "simple", "batch-default")


def run(runtime: EngineRuntime, language: str, args: argparse.Namespace, sample_stacks: bool) -> Experiment:
    spec = ExperimentSpec.model_validate(
        {
            "name": f"bench-stacks {language} (stacks {'on' if sample_stacks else 'off'})",
            "service": {"kind": "demo", "language": language},
            "configurations": [{"preset": preset} for preset in CONFIGURATIONS],
            "load": {
                "rate": args.rate,
                "warmup_s": 2,
                "duration_s": args.seconds,
                "connections": 4,
                "max_throughput_s": 0,
                "query": {"iters": 1000, "spans": 5},
            },
            "rounds": args.rounds,
            "sample_stacks": sample_stacks,
        }
    )
    with runtime.sessions() as session:
        created = repo.create_experiment(session, spec.model_dump(mode="json"), language, spec.name)
    runtime.engine.execute(created.id, threading.Event(), threading.Event())
    with runtime.sessions() as session:
        experiment = repo.get_experiment(session, created.id)
    if experiment is None or experiment.status != "completed":
        raise SystemExit(f"{language}: the experiment ended {experiment.status if experiment else 'missing'}")
    return experiment


def _aggregates(experiment: Experiment) -> dict[str, dict[str, Any]]:
    return {result.configuration: result.aggregates for result in experiment.results}


def report(language: str, sampled: Experiment, unsampled: Experiment) -> None:
    on, off = _aggregates(sampled), _aggregates(unsampled)
    console = Console(width=160)
    console.print(f"\n[bold]{language}[/bold]")
    console.print(where_export_table(list(sampled.rounds), list(CONFIGURATIONS), on))
    cost = Table(title=f"{language}: the stack sampler's cost (sampling on / off)")
    for column in ("configuration", "p99 µs on", "p99 µs off", "CPU/req µs on", "CPU/req µs off"):
        cost.add_column(column, justify="left" if column == "configuration" else "right")
    for name in CONFIGURATIONS:
        cost.add_row(
            name,
            str(on[name]["latency_us"].get("p99")),
            str(off[name]["latency_us"].get("p99")),
            f"{on[name].get('cpu_per_request_us') or 0:.0f}",
            f"{off[name].get('cpu_per_request_us') or 0:.0f}",
        )
    console.print(cost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", nargs="+", default=["go", "python", "java", "node"])
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--seconds", type=float, default=5, help="measured phase of each round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-bench-stacks-"))
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'bench.db'}", work_dir=workdir / "work"), publish=lambda e: None
    )
    runtime.engine.after_run = None  # the span ledger is not needed here
    print(
        f"{args.rate:.0f} req/s, /work?iters=1000&spans=5, {args.seconds:.0f} s measured, {args.rounds} rounds; "
        "shares are of the service's CPU samples"
    )
    try:
        for language in args.languages:
            report(language, run(runtime, language, args, True), run(runtime, language, args, False))
    finally:
        runtime.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
