"""Experiments on the real stack that several stack tests assert different things of.

A service experiment is most of a stack test's time (each round of each configuration starts
the service, loads it and reads its telemetry back), so tests whose experiments agree on the
service, the load and the rounds run one experiment with the union of their configurations,
once a session, and each asserts what it proves on its own configurations of the shared run.
`SharedExperiments` (the session fixture `shared_experiments`) runs a spec the first time a
test asks for it and hands the same results and diagnostics to every later test asking for
the same spec.

Shared now:
- `go_diagnostics_and_cost_spec`: the Go diagnostics test (ledger, tiny queue, where export
  runs; tests/diagnostics/test_diagnostics_stack.py) and the cost test's five-span experiment
  (bytes per signal, head sampling, logs off; tests/diagnostics/test_cost_stack.py).
"""

from __future__ import annotations

import json
from typing import Any

from tests.engine.test_engine_stack import wait_final
from tests.stack_api import stack_client
from tracetax.native_stack.native import NativeStack

LOAD = {
    "rate": 100,  # every trace of a round is read back whole from Tempo: half the rate, half the wait
    "warmup_s": 1,
    "duration_s": 4,
    "connections": 4,
    "max_throughput_s": 0,
    "query": {"iters": 1000, "spans": 5},
}
# Go's Batch worker exports ~1 batch a second at 100 req/s: 0 to 4 of its 100 Hz pprof samples
# over both rounds landed in export code (one CI run saw none). At 500 req/s there are five times
# as many, so "export runs in the background" rests on samples, not on luck.
EXPORT_SAMPLED_RATE = {"go": 500, "python": LOAD["rate"]}
# A queue of 2 in front of a traces endpoint that refuses connections: every SDK drops at its
# queue (with a working endpoint, Go's worker often keeps up with a queue this small).
TINY_QUEUE = {
    "OTEL_BSP_MAX_QUEUE_SIZE": "2",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces",
}
DIAGNOSTICS_CONFIGURATIONS: list[dict[str, Any]] = [
    {"preset": "none"},
    {"preset": "simple"},
    {"preset": "batch-default"},
    {"name": "tiny-queue", "processor": "batch", "env": TINY_QUEUE},
]
# The cost test's own configurations beside the diagnostics' none and batch-default: bytes are
# read per configuration, so the others in the run change none of its figures.
COST_CONFIGURATIONS: list[dict[str, Any]] = [
    {"preset": "sampled-10%"},
    {"name": "no-logs", "processor": "batch", "env": {"OTEL_LOGS_EXPORTER": "none"}},
]


# Go's run keeps each round's side-by-side phase: its ledgers still balance with the phase's
# own spans (run id `<run>-side`) before them. Python's proves the same ledger without it.
SIDE_BY_SIDE = {"go": {}, "python": {"side_by_side_s": 0}}


def diagnostics_spec(language: str, configurations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": f"diagnostics {language}",
        "service": {"kind": "demo", "language": language},
        "configurations": configurations,
        "load": {**LOAD, "rate": EXPORT_SAMPLED_RATE[language], **SIDE_BY_SIDE[language]},
        "rounds": 2,
        "seed": 5,
    }


def go_diagnostics_and_cost_spec() -> dict[str, Any]:
    """Go, five spans a request at 500 req/s, two rounds, stacks sampled: the diagnostics' four
    configurations and the cost test's two more in one run."""
    return diagnostics_spec("go", [*DIAGNOSTICS_CONFIGURATIONS, *COST_CONFIGURATIONS])


def base(stack: NativeStack) -> str:
    return stack.component("backend").url


async def run_experiment(stack: NativeStack, spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    async with stack_client(stack, base_url=base(stack), timeout=120) as http:
        created = await http.post("/api/v1/experiments", json=spec)
        assert created.status_code == 202, created.text
        experiment_id = created.json()["id"]
        detail = await wait_final(http, f"{base(stack)}/api/v1", experiment_id, timeout_s=600)
        failures = [(r["configuration"], r["round_index"], r.get("error")) for r in detail.get("rounds", [])]
        assert detail["status"] == "completed", (detail.get("error"), failures)
        results = (await http.get(f"/api/v1/experiments/{experiment_id}/results")).json()
        diagnostics = await http.get(f"/api/v1/experiments/{experiment_id}/diagnostics")
        assert diagnostics.status_code == 200, diagnostics.text
    return results, diagnostics.json()


class SharedExperiments:
    """Runs each spec once on the session's stack; later asks for the same spec get the same
    results and diagnostics. Only a completed run is kept: after a failure the next test asking
    runs it again (and fails on its own)."""

    def __init__(self, stack: NativeStack) -> None:
        self._stack = stack
        self._done: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    async def run(self, spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        key = json.dumps(spec, sort_keys=True)
        if key not in self._done:
            self._done[key] = await run_experiment(self._stack, spec)
        return self._done[key]
