"""`make bench-history`: is a change in overhead found at the commit that made it, and only there?

Two series of real checks against the running backend (`make up`), each on its own branch so
that they never mix with other history:

1. **step**: 12 checks of the Go demo's `batch-default` against `none`; from the 7th on the
   candidate also busy-waits `--step-us` (300 µs) per request (the demo's injected busy-wait,
   `inject_busy_us`): a code change that made every request dearer. The history must report
   exactly one change point, at the 7th commit, on CPU per request.
2. **flat**: 12 checks with nothing changed. No change point may be reported.

Every check goes through `POST /api/v1/checks` with its provenance (repository, branch, a
commit per check), as `tracetax check` sends it from CI; the series and the change points are
read back from `GET /api/v1/history`, as the History page reads them. `--save FILE` writes both
series as the API answered them (tests/history replays the detection on such a file).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from benchmarks import stop_cleanly_on_sigterm
from tracetax.cli.api import answer, api_client

CHECKS = 12
STEP_AT = 7  # the 1-based commit whose check first carries the injected cost
METRICS = ("cpu_per_request_us", "p50")


def check_body(args: argparse.Namespace, branch: str, commit: str, inject_us: int) -> dict[str, Any]:
    return {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "none"},
        "candidate": {"preset": "batch-default", "inject_busy_us": inject_us},
        "load": {
            "rate": args.rate,
            "warmup_s": 1,
            "duration_s": args.seconds,
            "max_throughput_s": 0,
            "query": {"iters": 1000, "spans": 5},
        },
        "rounds": args.rounds,
        # A budget the step blows through: the verdicts on the chart change with it.
        "budget": {"cpu_overhead_pct": args.budget_pct},
        "provenance": {"repository": "tracetax/bench-history", "branch": branch, "commit": commit},
    }


def run_check(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    created = answer(http.post("/api/v1/checks", json=body), expected=202)
    while True:
        status = answer(http.get(f"/api/v1/checks/{created['id']}"))
        if status.get("verdict") is not None:
            return status
        time.sleep(3)


def run_series(http: httpx.Client, args: argparse.Namespace, name: str, step_us: int) -> dict[str, Any]:
    branch = f"bench-history-{name}-{uuid.uuid4().hex[:8]}"
    for index in range(1, CHECKS + 1):
        inject = step_us if index >= STEP_AT else 0
        commit = f"{index:02d}{uuid.uuid4().hex[:38]}"
        started = time.monotonic()
        status = run_check(http, check_body(args, branch, commit, inject))
        print(
            f"  {name} {index:2d}/{CHECKS} commit {commit[:8]} injected {inject:3d} µs: "
            f"{status['verdict']['verdict']} ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    series = {}
    for metric in METRICS:
        params = {"service": "go", "configuration": "batch-default", "metric": metric, "branch": branch}
        series[metric] = answer(http.get("/api/v1/history", params=params))
    return {"branch": branch, "step_us": step_us, "series": series}


def show(name: str, result: dict[str, Any]) -> list[str]:
    """Print one scenario's series and change points; the problems found, if any."""
    problems = []
    for metric, series in result["series"].items():
        print(f"\n{name}: {metric} ({series['unit']}), branch {result['branch']}")
        for position, point in enumerate(series["points"], start=1):
            interval = (
                f"[{point['low']:+.1f}, {point['high']:+.1f}]"
                if point["low"] is not None and point["high"] is not None
                else "[unknown]"
            )
            estimate = f"{point['estimate']:+.1f}" if point["estimate"] is not None else "unknown"
            print(f"  {position:2d} {point['commit'][:8]} {estimate:>8} {interval:<18} {point['verdict']}")
        for change in series["change_points"]:
            print(
                f"  change point at commit {change['index'] + 1} ({change['commit'][:8]}): "
                f"{change['before']:+.1f} -> {change['after']:+.1f}, shift {change['shift']:+.1f} "
                f"[{change['low']:+.1f}, {change['high']:+.1f}]"
            )
        if not series["change_points"]:
            print("  no change point")
        found = [change["index"] + 1 for change in series["change_points"]]
        if metric == "cpu_per_request_us":
            expected = [STEP_AT] if result["step_us"] else []
            if found != expected:
                problems.append(f"{name}: CPU per request change points at commits {found}, expected {expected}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", default="http://127.0.0.1:8000", help="the running TraceTax (make up)")
    parser.add_argument("--rate", type=float, default=300, help="req/s of every check")
    parser.add_argument("--seconds", type=float, default=3, help="measured seconds per phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per check")
    parser.add_argument("--step-us", type=int, default=300, help="the busy-wait added from the 7th check, µs")
    parser.add_argument("--budget-pct", type=float, default=150, help="the checks' CPU per request budget, %")
    parser.add_argument("--only", choices=("step", "flat"), help="run one scenario")
    parser.add_argument("--save", type=Path, help="write both series, as the API answered, to this JSON file")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    scenarios = {"step": args.step_us, "flat": 0}
    results: dict[str, Any] = {}
    started = time.monotonic()
    with api_client(args.api, timeout=60) as http:
        for name, step in scenarios.items():
            if args.only in (None, name):
                print(f"{name}: {CHECKS} checks, injected {step} µs from commit {STEP_AT}", flush=True)
                results[name] = run_series(http, args, name, step)
    problems = [problem for name, result in results.items() for problem in show(name, result)]
    print(f"\nwall time {(time.monotonic() - started) / 60:.1f} min")
    if args.save is not None:
        args.save.write_text(json.dumps(results, indent=1) + "\n")
    if problems:
        print("\n".join(["", "FAILED:", *problems]))
        sys.exit(1)
    print("passed: one change point at the step, none without")


if __name__ == "__main__":
    main()
