"""Seed a check history for the History page's browser test (e2e/tests/history.spec.mjs).

Twelve completed checks of the Go demo's `batch-default` against `none` on a branch of their
own, written through the backend's repository into the database the running backend reads
(the same settings: TRACETAX_STATE_DIR, TRACETAX_DATABASE_URL). Each check keeps its paired
overheads as a finished check does; from the 7th commit on, CPU per request's overhead is 120
points higher, as the demo's injected 300 µs busy-wait makes it on the real stack
(`make bench-history`), so the History page must mark one change point at the 7th commit.

The real checks behind such a series take half an hour; what the browser test proves is that
the page draws what the API answers, and tests/history/test_history_stack.py runs the real
sequence. Prints the branch, the commits and the check ids as JSON (the test deletes the
checks, with their experiments, through the API when it is done).

Usage (from backend/): uv run --frozen python ../e2e/lib/seed_history.py
"""

from __future__ import annotations

import json
import uuid

from tracetax.core.config import Settings, resolved_database_url
from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory

CHECKS = 12
STEP_AT = 7
# Per commit: CPU per request overhead, %, and the half-width of its 95% interval; a step of
# +120 points at the 7th, the points scattering within their intervals.
NOISE = (1.5, -2.0, 0.5, 2.5, -1.0, -0.5, 1.0, -2.5, 0.0, 2.0, -1.5, 1.5)


def spec() -> dict[str, object]:
    return {
        "name": "check: batch-default vs none",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"name": "baseline", "preset": "none", "baseline": True},
            {"name": "candidate", "preset": "batch-default"},
        ],
        "load": {"rate": 300, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "rounds": 3,
    }


def overheads(index: int) -> dict[str, object]:
    cpu = 60.0 + (120.0 if index >= STEP_AT else 0.0) + NOISE[index - 1]
    p50 = 8.0 + NOISE[index - 1] / 2

    def metric(estimate: float, half_width: float, unit: str) -> dict[str, object]:
        return {"estimate": estimate, "low": estimate - half_width, "high": estimate + half_width, "unit": unit}

    return {
        "verdict": "fail" if index >= STEP_AT else "pass",
        "metrics": {
            "cpu_per_request_us": metric(cpu, 6.0, "pct"),
            "p50": metric(p50, 4.0, "pct"),
            "p99": metric(20.0 + NOISE[index - 1] * 3, 25.0, "pct"),
            "bytes_per_request": metric(2100.0, 40.0, "bytes"),
            "usd_per_month": {"estimate": None, "low": None, "high": None, "unit": "usd"},
        },
    }


def main() -> None:
    url = resolved_database_url(Settings())
    migrate(url)
    sessions = session_factory(make_engine(url))
    branch = f"e2e-history-{uuid.uuid4().hex[:8]}"
    commits, checks = [], []
    with sessions() as session:
        for index in range(1, CHECKS + 1):
            commit = f"{index:02d}{uuid.uuid4().hex[:38]}"
            provenance = {"repository": "tracetax/e2e-seeded-history", "branch": branch, "commit": commit}
            name = "e2e: seeded history (no rounds)"
            experiment = repo.create_experiment(session, spec(), "go", name, provenance)
            repo.set_status(session, experiment, "running")
            repo.set_status(session, experiment, "completed")
            check = repo.create_check(
                session,
                experiment.id,
                {"cpu_overhead_pct": 100.0},
                False,
                configuration="batch-default",
                baseline_configuration="none",
            )
            repo.save_check_overheads(session, check.id, overheads(index))
            commits.append(commit)
            checks.append(check.id)
    print(json.dumps({"branch": branch, "commits": commits, "checks": checks, "step_at": STEP_AT}))


if __name__ == "__main__":
    main()
