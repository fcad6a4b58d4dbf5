"""Telemetry volume and cost on the real stack: bytes per signal from the Collector's own
telemetry, through the running backend's API and the CLI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import httpx
import pytest

from tests.stack_api import cli_env, stack_client
from tests.stack_experiments import SharedExperiments, base, go_diagnostics_and_cost_spec, run_experiment
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack


def one_span_spec() -> dict[str, Any]:
    """The five-span run's service, load and rounds with one span per request. It needs only
    batch-default (its own baseline): bytes, not overhead."""
    five = go_diagnostics_and_cost_spec()
    return {
        "name": "cost 1 span",
        "service": five["service"],
        "configurations": [{"preset": "batch-default", "baseline": True}],
        "load": five["load"] | {"query": {**five["load"]["query"], "spans": 1}},
        "rounds": five["rounds"],
        "seed": 13,
        # No stacks phase: volume and cost need none, and it would double each round's load time.
        "sample_stacks": False,
    }


async def cost_of(stack: NativeStack, experiment_id: str, **params: Any) -> httpx.Response:
    async with stack_client(stack, base_url=base(stack), timeout=60) as http:
        return await http.get(f"/api/v1/experiments/{experiment_id}/cost", params=params)


def per_request(report: dict[str, Any], configuration: str, signal: str, figure: str = "bytes_per_request") -> float:
    entry = next(c for c in report["configurations"] if c["configuration"] == configuration)
    value = next(s for s in entry["signals"] if s["signal"] == signal)[figure]["estimate"]
    assert value is not None, entry
    return float(value)


async def test_bytes_per_signal_sampling_and_switches(
    native_stack: NativeStack, shared_experiments: SharedExperiments
) -> None:
    # Five spans a request: the run the Go diagnostics test shares (none, batch-default,
    # sampled-10% and no-logs are this test's configurations; it reads no other).
    _, five = await shared_experiments.run(go_diagnostics_and_cost_spec())
    _, one = await run_experiment(native_stack, one_span_spec())
    report = (await cost_of(native_stack, five["experiment_id"])).json()
    single = (await cost_of(native_stack, one["experiment_id"])).json()

    for signal in ("traces", "logs", "metrics"):
        assert per_request(report, "none", signal) == 0.0
        assert per_request(report, "batch-default", signal) > 0, signal
    # spans=1 is the request's server span alone, spans=5 adds four children: at most 5x the bytes
    # (no child is bigger than the server span with its HTTP attributes; each export's resource
    # is shared). A child (2-3 attributes) is about 0.3 server spans on Go, so 2.2x is measured
    # (docs/cost.md): 1.8x leaves room for the rounds' spread.
    ratio = per_request(report, "batch-default", "traces") / per_request(single, "batch-default", "traces")
    assert 1.8 <= ratio <= 5.0, ratio
    # What the Collector hands Tempo under 10% head sampling against no sampling.
    kept = per_request(report, "sampled-10%", "traces", "store_gb_per_day") / per_request(
        report, "batch-default", "traces", "store_gb_per_day"
    )
    assert 0.05 <= kept <= 0.20, kept
    # Logs off: no log bytes, the span bytes unchanged.
    assert per_request(report, "no-logs", "logs") == 0.0
    spans_off, spans_on = per_request(report, "no-logs", "traces"), per_request(report, "batch-default", "traces")
    assert abs(spans_off / spans_on - 1) < 0.05, (spans_off, spans_on)

    # The stores' own ingestion counters, read from each store's /metrics at the round's start
    # and end: what Tempo and Loki counted is about what the Collector handed them (Tempo's
    # proto bytes, the spans it accepted; Loki's lines with their structured metadata), Mimir's
    # OTLP bodies include the Collector's own telemetry; its items are the run's samples.
    for ledger in (entry for entry in five["ledger"] if entry["configuration"] == "batch-default"):
        volume = {signal["signal"]: signal for signal in ledger["volume"]["signals"]}
        for signal in ("traces", "logs", "metrics"):
            assert volume[signal]["store_unknown_reason"] is None, volume
            assert volume[signal]["stored_bytes"] > 0 and volume[signal]["stored_items"] > 0, volume
        traces, logs = volume["traces"], volume["logs"]
        assert traces["stored_items"] == traces["items"], traces
        assert 0.9 <= traces["stored_bytes"] / traces["exported_bytes"] <= 1.1, traces
        assert logs["stored_items"] == logs["items"], logs

    # Per sample (Mimir), from the bytes the Collector handed it: known and positive.
    assert per_request(report, "batch-default", "metrics", "store_bytes_per_item") > 0

    money = next(c for c in report["configurations"] if c["configuration"] == "batch-default")["usd_per_month"]
    assert money["estimate"] > 0 and money["low"] is not None, money
    assert report["collector"]["measured"] is False and "documented" in report["collector"]["source"]
    assert report["sources"]["vcpu_hour_usd"]

    bad = await cost_of(native_stack, five["experiment_id"], requests_per_s=-1)
    assert bad.status_code == 422 and "requests_per_s" in str(bad.json()["detail"]), bad.text
    typo = await cost_of(native_stack, five["experiment_id"], request_per_s=10)
    assert typo.status_code == 422 and "request_per_s" in str(typo.json()["detail"]), typo.text

    cli = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-m",
            "tracetax.cli",
            "cost",
            five["experiment_id"],
            "--api",
            base(native_stack),
            "--rate",
            "500",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        # A terminal wide enough for the shared run's six configurations: at rich's default 80
        # columns their names are cut ("batch-de…").
        env=cli_env(native_stack) | {"COLUMNS": "200"},
    )
    assert cli.returncode == 0, cli.stderr
    assert "Cost at 500 req/s" in cli.stdout and "batch-default" in cli.stdout, cli.stdout
