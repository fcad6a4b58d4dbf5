"""`make bench-services`: each demo service's closed-loop maximum throughput and p50/p99 per
OpenTelemetry mode, measured with the engine (service pinned to one core, oha to another).

Prints a table per language and a Markdown table for docs/benchmarks.md. It reproduces the
shape of the field's first result: Simple processors export on the request path and collapse
throughput; Batch processors recover it (../shared/seeds/004: C++ 18.5k -> 2.2k -> ~28k req/s).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from benchmarks import stop_cleanly_on_sigterm
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.demos.catalog import demo_services
from tracetax.diagnostics.service_figures import ServiceFigures, service_phases
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.registry import subject_for

MODES_BY_PRESET = {"none": "none", "simple": "simple", "batch-default": "batch", "java-agent": "agent"}


def bench_spec(language: str, modes: list[str], args: argparse.Namespace) -> ExperimentSpec:
    presets = [preset for preset, mode in MODES_BY_PRESET.items() if mode in modes]
    return ExperimentSpec.model_validate(
        {
            "name": f"bench-services {language}",
            "service": {"kind": "demo", "language": language},
            "configurations": [{"preset": preset} for preset in presets],
            "load": {
                "rate": args.rate,
                "warmup_s": 2,
                "duration_s": args.open_s,
                "connections": args.connections,
                "max_throughput_s": args.closed_s,
                "query": {"iters": args.iters, "spans": args.spans},
            },
            "rounds": args.rounds,
            "seed": 42,
        }
    )


def run_language(runtime: EngineRuntime, spec: ExperimentSpec) -> list[dict[str, Any]]:
    with runtime.sessions() as session:
        experiment = repo.create_experiment(
            session, spec.model_dump(mode="json"), subject_for(spec).rules.label(spec), spec.name
        )
    status = runtime.engine.execute(experiment.id, threading.Event(), threading.Event())
    rows = []
    with runtime.sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None  # noqa: S101 - just created
        for configuration in spec.configurations:
            rounds = [r for r in stored.rounds if r.configuration == configuration.name and r.status == "completed"]
            closed = [service_phases(ServiceFigures.of(r.figures))["closed_phase"] or {} for r in rounds]
            best = max(closed, key=lambda c: c.get("rps") or 0, default={})
            failures = [r.error for r in stored.rounds if r.configuration == configuration.name and r.error]
            rows.append(
                {
                    "language": spec.service.language,
                    "mode": configuration.processor,
                    "rounds": len(rounds),
                    "max_rps": best.get("rps"),
                    "p50_us": best.get("p50_us"),
                    "p99_us": best.get("p99_us"),
                    "status": status,
                    "error": failures[0].splitlines()[0] if failures else None,
                }
            )
    return rows


def _latency(us: int | None) -> str:
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us} µs"


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| language | mode | max throughput (req/s) | p50 | p99 | vs none |", "|---|---|---|---|---|---|"]
    baseline = {row["language"]: row["max_rps"] for row in rows if row["mode"] == "none"}
    for row in rows:
        base = baseline.get(row["language"])
        ratio = f"{row['max_rps'] / base:.2f}x" if row["max_rps"] and base else "-"
        rps = f"{row['max_rps']:,.0f}" if row["max_rps"] else f"failed: {row['error']}"
        cells = [row["language"], row["mode"], rps, _latency(row["p50_us"]), _latency(row["p99_us"]), ratio]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", default="go,python,java,node")
    parser.add_argument("--iters", type=int, default=1000, help="CPU work per request (small, so OTel cost shows)")
    parser.add_argument("--spans", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rate", type=float, default=200, help="open-model phase rate (not reported here)")
    parser.add_argument("--open-s", type=float, default=3)
    parser.add_argument("--closed-s", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()

    services = demo_services()
    scratch = Path(tempfile.mkdtemp(prefix="tracetax-bench-"))
    settings = Settings(database_url=f"sqlite:///{scratch / 'bench.db'}", work_dir=scratch / "work")
    runtime = EngineRuntime.create(settings, publish=lambda event: None)
    runtime.engine.after_run = None  # benchmarks measure; the span ledger is not needed
    rows: list[dict[str, Any]] = []
    for language in args.languages.split(","):
        manifest = services.get(language)
        if manifest is None:
            print(f"skipping {language}: no such demo service", file=sys.stderr)
            continue
        modes = [name for name, mode in manifest.modes.items() if mode.available]
        print(f"== {language}: {', '.join(m for m in MODES_BY_PRESET.values() if m in modes)}", flush=True)
        language_rows = run_language(runtime, bench_spec(language, modes, args))
        rows += language_rows
        print(markdown(language_rows), flush=True)
    runtime.dispose()
    print("\n" + markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0 if all(row["max_rps"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
