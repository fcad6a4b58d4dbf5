"""`make bench-engine`: the harness's own cost and limits on this machine.

1. Footprint: the load generator's CPU seconds per 1,000 requests at several open-model rates,
   against the fastest service there is (the Go demo service with no OpenTelemetry).
2. Highest accurate rate: the highest rate (doubling from 500 req/s) that the load generator
   still delivers within 1% while using under 80% of its own core, so latencies are measured
   on schedule rather than by a saturated client.
3. Wall time of the default 4-configuration experiment (none, simple, batch-default,
   batch-tuned; default load and rounds) on the Go service, against the spec's estimate.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks import stop_cleanly_on_sigterm
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.engine.loadgen import OhaDriver, Requests
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.spec.service import ExperimentSpec
from tracetax.system.placement import Placement
from tracetax.system.ports import free_port


def measure_rate(
    driver: OhaDriver, url: str, rate: float, seconds: float, workdir: Path, placement: Placement, service_pid: int
) -> dict[str, Any]:
    running = driver.start_open(Requests.get(url), rate, seconds, 16, workdir, placement.loadgen_cpus)
    sampler = Sampler(service_pid, running.pid)
    sampler.start()
    while running.poll() is None:
        time.sleep(0.1)
    samples = sampler.stop()
    running.check()
    result = driver.open_result(running)
    resources = resource_summary(samples, result.requests)
    return {
        "target_rps": rate,
        "achieved_rps": round(result.achieved_rps, 1),
        "p99_us": result.summary.get("percentiles_us", {}).get("99"),
        "loadgen_cpu_per_1k_s": resources.get("loadgen_cpu_per_1k_requests_s"),
        "loadgen_core_utilization": resources.get("loadgen_utilization"),
        "errors": result.errors,
    }


def footprint_and_limit(args: argparse.Namespace, workdir: Path) -> tuple[list[dict[str, Any]], float | None]:
    manifest = demo_services()["go"]
    placement = Placement.for_this_machine()
    driver = OhaDriver()
    port = free_port()
    service = ServiceProcess(
        manifest.argv("none"),
        cwd=manifest.directory,
        env={"TRACETAX_PROCESSOR": "none", "PORT": str(port)},
        port=port,
        log_path=workdir / "service.log",
        cpus=placement.service_cpus,
    )
    rows: list[dict[str, Any]] = []
    highest = None
    with service:
        service.wait_healthy(30)
        url = f"{service.base_url}/work?iters={args.iters}&spans=1"
        rate = 500.0
        while rate <= args.max_rate:
            row = measure_rate(driver, url, rate, args.seconds, workdir / f"rate-{int(rate)}", placement, service.pid)
            rows.append(row)
            print(
                f"  {rate:>8,.0f} req/s -> achieved {row['achieved_rps']:>9,.1f}, p99 {row['p99_us']} µs, "
                f"load generator {row['loadgen_cpu_per_1k_s']} CPU-s per 1k requests, "
                f"{(row['loadgen_core_utilization'] or 0) * 100:.0f}% of its core",
                flush=True,
            )
            accurate = (
                row["achieved_rps"] >= 0.99 * rate and row["loadgen_core_utilization"] < 0.8 and not row["errors"]
            )
            if not accurate:
                break
            highest = rate
            rate *= 2
    return rows, highest


def default_experiment(workdir: Path) -> tuple[float, float, str]:
    spec = ExperimentSpec.model_validate(
        {
            "name": "bench-engine default experiment",
            "service": {"kind": "demo", "language": "go"},
            "configurations": [{"preset": p} for p in ("none", "simple", "batch-default", "batch-tuned")],
            "load": {"rate": 200},
        }
    )
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'bench.db'}", work_dir=workdir / "work"), publish=lambda e: None
    )
    runtime.engine.after_run = None  # benchmarks measure; the span ledger is not needed
    with runtime.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), "go", spec.name)
    started = time.monotonic()
    status = runtime.engine.execute(experiment.id, threading.Event(), threading.Event())
    elapsed = time.monotonic() - started
    runtime.dispose()
    return elapsed, spec.estimated_seconds(), status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5, help="length of each rate step")
    parser.add_argument("--max-rate", type=float, default=64_000)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--skip-experiment", action="store_true", help="skip the 4-configuration wall-time run")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-bench-engine-"))
    print(f"placement: {Placement.for_this_machine().describe()}")
    print("1-2. load generator footprint and highest accurate rate (Go service, no OTel):", flush=True)
    rows, highest = footprint_and_limit(args, workdir)
    per_1k = [row["loadgen_cpu_per_1k_s"] for row in rows if row["loadgen_cpu_per_1k_s"] is not None]
    if per_1k:
        print(f"load generator CPU per 1k req/s: {min(per_1k):.3f}-{max(per_1k):.3f} CPU-seconds per 1,000 requests")
    print(f"highest accurate rate: {highest:,.0f} req/s" if highest else "highest accurate rate: below 500 req/s")
    if not args.skip_experiment:
        print("3. default 4-configuration experiment (none, simple, batch-default, batch-tuned; 3 rounds):", flush=True)
        elapsed, estimate, status = default_experiment(workdir)
        print(f"wall time: {elapsed:.0f} s (estimate {estimate:.0f} s), status {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
