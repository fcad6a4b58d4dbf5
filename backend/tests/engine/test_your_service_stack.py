"""A service nobody here wrote, measured end to end on the real stack: httpbin (Flask, from
PyPI, installed by `make examples`) under gunicorn, as it is and under opentelemetry-instrument.
The ledger's expected spans come from the SDK's own counter and balance; no loss is claimed
where nothing tells what to expect; its stacks come from py-spy across gunicorn's worker."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.diagnostics.test_diagnostics_stack import run_experiment, signal, stage
from tracetax.native_stack.native import NativeStack
from tracetax.system.paths import cache_dir
from tracetax.system.ports import free_port

pytestmark = pytest.mark.stack
HTTPBIN = cache_dir() / "examples" / "httpbin"


def httpbin_spec(port: int) -> dict[str, Any]:
    return {
        "name": "httpbin under opentelemetry-instrument",
        "service": {
            "kind": "command",
            "language": "python",
            "cwd": str(HTTPBIN),
            "argv": ["venv/bin/gunicorn", "--no-control-socket", "-b", f"127.0.0.1:{port}", "-w", "1", "httpbin:app"],
            "port": port,
            "health_path": "/get",
            "service_name": "httpbin-stack-test",
        },
        "configurations": [
            {"preset": "none"},
            {"preset": "zero-code", "env": {"OTEL_LOGS_EXPORTER": "none"}},
        ],
        "load": {
            "rate": 40,
            "warmup_s": 2,
            # What is asserted is structural (the ledger balances, the runtime's sampler): 2 s
            # phases, solo and side by side, prove it as 4 s did, 12 s sooner.
            "duration_s": 2,
            "connections": 4,
            "max_throughput_s": 0,
            "stacks_s": 3,
            "paths": [{"path": "/get", "weight": 3}, {"path": "/status/200", "weight": 1}],
            "headers": {"accept": "application/json"},
        },
        "rounds": 2,
        "seed": 5,
    }


@pytest.fixture(scope="module")
def measured(native_stack: NativeStack) -> tuple[dict[str, Any], dict[str, Any]]:
    if not (HTTPBIN / "venv" / "bin" / "gunicorn").exists():
        pytest.fail(f"httpbin is not installed at {HTTPBIN}: run `make examples`")
    return asyncio.run(run_experiment(native_stack, httpbin_spec(free_port())))


def ledgers(diagnostics: dict[str, Any], configuration: str) -> list[dict[str, Any]]:
    found = [ledger for ledger in diagnostics["ledger"] if ledger["configuration"] == configuration]
    assert len(found) == 2, diagnostics["ledger"]
    return found


def test_expected_spans_come_from_the_sdks_counter_and_balance(measured: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, diagnostics = measured
    for ledger in ledgers(diagnostics, "zero-code"):
        spans = signal(ledger, "spans")
        expected = next(s for s in spans["stages"] if s["stage"] == "expected")
        assert expected["source"] and "SDK counter" in expected["source"], spans
        assert (expected["value"] or 0) > 0
        assert spans["balanced"] is True, spans
        assert stage(spans, "stored") == expected["value"]
        # Nothing of the demo's contract is assumed: no request counter, logs expected only if counted.
        assert "request_counter" not in [s["signal"] for s in ledger["signals"]]
        assert all(s["balanced"] is not False for s in ledger["signals"]), ledger


def test_the_baseline_loads_no_agent_and_sends_nothing(measured: tuple[dict[str, Any], dict[str, Any]]) -> None:
    results, diagnostics = measured
    for ledger in ledgers(diagnostics, "none"):
        spans = signal(ledger, "spans")
        assert stage(spans, "expected") == 0 and stage(spans, "stored") == 0
    rounds = [r for r in results["rounds"] if r["configuration"] == "zero-code"]
    assert all("opentelemetry-instrument" in (r["resources"] or {}).get("launch", "") for r in rounds)


def test_stacks_are_sampled_by_the_runtime_detected(measured: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, diagnostics = measured
    stacks = diagnostics["where_export_runs"]["zero-code"]
    assert stacks["sampler"] == "py-spy", stacks
    location = stacks["location"]
    assert location is not None and location["samples"] > 0, stacks
    # The agent exports from its batch processor's thread, never on gunicorn's request path (the
    # worker's own socket I/O is the application's).
    assert location["export_request_path"] == 0, location
