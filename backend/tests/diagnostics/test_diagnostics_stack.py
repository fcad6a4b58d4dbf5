"""Diagnostics and CI checks on real services through the running backend and the real stack."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest
import yaml

from tests.stack_api import run_cli_check, stack_client, stack_headers
from tests.stack_experiments import (
    DIAGNOSTICS_CONFIGURATIONS,
    TINY_QUEUE,
    SharedExperiments,
    base,
    diagnostics_spec,
    go_diagnostics_and_cost_spec,
    run_experiment,
)
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack
__all__ = ["base", "run_experiment"]  # other stack tests import them from here


def signal(ledger: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in ledger["signals"] if s["signal"] == name)


def stage(ledger_signal: dict[str, Any], name: str) -> float | None:
    return next(s["value"] for s in ledger_signal["stages"] if s["stage"] == name)


@pytest.mark.parametrize("language", ["go", "python"])
async def test_simple_batch_ledger_and_tiny_queue(
    language: str, native_stack: NativeStack, shared_experiments: SharedExperiments
) -> None:
    # Go's run is shared with the cost test, which adds two configurations of its own.
    spec = (
        go_diagnostics_and_cost_spec() if language == "go" else diagnostics_spec(language, DIAGNOSTICS_CONFIGURATIONS)
    )
    results, diagnostics = await shared_experiments.run(spec)
    p99 = {c["configuration"]: c["latency_us"]["p99"] for c in results["configurations"]}
    assert p99["simple"] > p99["batch-default"], p99
    overhead = diagnostics["overhead"]
    assert (
        overhead["simple"]["p99"]["relative_pct"]["estimate"]
        > overhead["batch-default"]["p99"]["relative_pct"]["estimate"]
    )
    assert overhead["simple"]["p99"]["absolute"]["estimate"] > 0
    assert "p99" in overhead["simple"]["p99"]["summary"]

    ledgers = diagnostics["ledger"]
    assert len(ledgers) == len(spec["configurations"]) * spec["rounds"]  # one per round of each
    for ledger in (entry for entry in ledgers if entry["configuration"] == "batch-default"):
        spans = signal(ledger, "spans")
        assert stage(spans, "sdk_dropped") == 0
        assert spans["balanced"] is True, spans
        assert stage(spans, "expected") == stage(spans, "stored") > 0
        assert signal(ledger, "request_counter")["balanced"] is True
    for ledger in (entry for entry in ledgers if entry["configuration"] == "tiny-queue"):
        spans = signal(ledger, "spans")
        dropped = stage(spans, "sdk_dropped")
        assert dropped is not None and dropped > 0, spans  # the loss shows at the SDK stage
        assert stage(spans, "collector_accepted") == stage(spans, "stored") == 0, spans
        source = next(s["source"] for s in spans["stages"] if s["stage"] == "sdk_dropped")
        if source.startswith("inferred"):
            # No SDK counter (Go's self-observability is off in measured phases): every span
            # that never reached the Collector is counted as lost in the SDK, so it balances.
            assert dropped == stage(spans, "expected"), spans
        else:
            # The SDK counts queue-full drops only; spans that failed to export are a loss
            # the ledger must not hide.
            assert spans["balanced"] is False, spans
    assert diagnostics["dropped_spans"]["tiny-queue"] > 0

    rules = {(r["rule"], r["configuration"]) for r in diagnostics["recommendation"]["rules"]}
    assert ("simple-on-request-path", "simple") in rules
    assert ("queue-too-small", "tiny-queue") in rules
    assert ("batch-near-queue", "tiny-queue") in rules

    # Where export runs: Simple exports inside the request, Batch on its worker.
    where = diagnostics["where_export_runs"]
    simple, batch = where["simple"]["location"], where["batch-default"]["location"]
    assert simple is not None and batch is not None, where
    assert simple["distinguishable"] and batch["distinguishable"], where
    assert simple["export_request_path"] > 0, simple
    assert simple["export_on_request_path_of_export"] > 0.5, simple
    assert batch["export_background"] > 0, batch
    assert batch["export_on_request_path_of_export"] < 0.1, batch
    none = where["none"]["location"]
    assert none is not None and none["export_share"] == 0, where["none"]
    simple_rule = next(r for r in diagnostics["recommendation"]["rules"] if r["rule"] == "simple-on-request-path")
    assert simple_rule["evidence"]["export_on_request_path_share"] == round(simple["export_request_path"], 4)

    trace_id = next(ids[0] for ids in diagnostics["sample_traces"].values() if ids)
    async with stack_client(native_stack, base_url=base(native_stack), timeout=30) as http:
        trace = await http.get(f"/api/v1/traces/{trace_id}")
        flame = (await http.get(f"/api/v1/experiments/{diagnostics['experiment_id']}/stacks/simple")).json()
        folded = await http.get(f"/api/v1/experiments/{diagnostics['experiment_id']}/stacks/simple?format=folded")
        logs = await http.get(f"/api/v1/experiments/{diagnostics['experiment_id']}/logs?configuration=simple&limit=5")
        unknown = await http.get(f"/api/v1/experiments/{diagnostics['experiment_id']}/logs?configuration=nope")
    assert trace.status_code == 200
    assert logs.status_code == 200, logs.text
    records = logs.json()["records"]
    assert 0 < len(records) <= 10 and {r["configuration"] for r in records} == {"simple"}  # 5 per round
    assert unknown.status_code == 404 and "nope" in unknown.json()["detail"]
    assert flame["samples"] == simple["samples"] > 0
    assert any(_kinds(flame["root"]) & {"export"}), "the flame graph marks export frames"
    assert sum(int(line.rsplit(" ", 1)[1]) for line in folded.text.splitlines()) == simple["samples"]


def _kinds(node: dict[str, Any]) -> set[str]:
    return {node["kind"], *(kind for child in node["children"] for kind in _kinds(child))}


def run_check(stack: NativeStack, tmp_path: Path, *args: str, rate: int = 100) -> tuple[int, str, Path]:
    junit = tmp_path / "junit.xml"
    command = [
        "--service",
        "go",
        "--rate",
        str(rate),
        "--duration",
        "3",
        "--rounds",
        "3",
        "--spans",
        "5",
        "--junit",
        str(junit),
        *args,
    ]
    done = run_cli_check(stack, *command)
    return done.returncode, done.stdout + done.stderr, junit


def a_a_check_request() -> dict[str, Any]:
    """batch-default against itself at 1,000 req/s, starting at two rounds."""
    return {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "batch-default"},
        "candidate": {"preset": "batch-default"},
        # At 100 req/s the service idles 95% of the time and its per-request figures are mostly
        # wake-ups, which vary twofold between rounds on this VM (A/A p50 interval -41% to +122%
        # in one run); at 1,000 req/s the work per request dominates (-21% to +6%).
        # The side-by-side phase as `--duration 3` gives it (2 s warm-up, 3 s): the verdict reads
        # p50 and CPU per request from it. The solo phases give only the tails, which no line
        # here reads: the shortest that measure, 8 s less a round than at 2 s + 3 s.
        "load": {
            "rate": 1000,
            "warmup_s": 0.5,
            "duration_s": 1,
            "side_by_side_warmup_s": 2,
            "side_by_side_s": 3,
            "max_throughput_s": 0,
            "query": {"iters": 1000, "spans": 5},
        },
        "rounds": 2,
        "budget": {"p50_overhead_pct": 25, "cpu_overhead_pct": 25},
    }


def run_a_a_check(stack: NativeStack, workdir: Path) -> tuple[Path, dict[str, Any]]:
    """An A/A check of batch-default starting at two rounds, free to buy more (`--max-wall-time`
    on the command line, over the spec file), that passed: its JUnit file and the experiment it ran."""
    workdir.mkdir(exist_ok=True)
    spec, junit = workdir / "a-a.yaml", workdir / "junit.xml"
    spec.write_text(yaml.safe_dump(a_a_check_request()))
    done = run_cli_check(stack, "--spec", str(spec), "--max-wall-time", "420", "--junit", str(junit))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    check_id = output.split("check ", 1)[1].split(":", 1)[0]
    with httpx.Client(base_url=f"{base(stack)}/api/v1", headers=stack_headers(stack), timeout=30) as http:
        status = http.get(f"/checks/{check_id}").json()
        detail = http.get(f"/experiments/{status['experiment_id']}").json()
    return junit, detail


def test_a_a_check_buys_rounds_until_conclusive_and_passes(native_stack: NativeStack, tmp_path: Path) -> None:
    # Two rounds rarely resolve ±25%: the first look has one degree of freedom, and the repeated
    # intervals' critical value there is far above Student's 12.7. --max-wall-time lets the
    # check add rounds at its planned looks until both lines are conclusive, with intervals valid
    # however many it adds (docs/diagnostics.md, "Rounds until the answer is firm").
    junit, detail = run_a_a_check(native_stack, tmp_path / "first")
    if len(detail["environment"]["precision"]["looks_read"]) == 1:
        # Rarely, not never: with one degree of freedom the spread of two rounds is itself a
        # single difference, and two rounds that happen to agree closely conclude at once (CI
        # saw it once at 1,000 req/s). That is the method working; the buying is what is shown.
        print("the A/A check was conclusive at its first look (two close rounds); once more", file=sys.stderr)
        junit, detail = run_a_a_check(native_stack, tmp_path / "again")
    assert ET.parse(junit).getroot().attrib["failures"] == "0"
    precision = detail["environment"]["precision"]
    rounds = max(r["round_index"] for r in detail["rounds"]) + 1
    assert rounds > 2 and len(precision["looks_read"]) >= 2, ("the check bought no round", precision)
    assert precision["reached"], precision


def test_impossible_budget_fails_with_exit_1_and_junit(native_stack: NativeStack, tmp_path: Path) -> None:
    # No latency falls by 99% here, and a queue of 2 in front of a refused endpoint drops:
    # the dropped-span line is over budget whatever the noise.
    tiny_queue = [arg for key, value in TINY_QUEUE.items() for arg in ("--candidate-env", f"{key}={value}")]
    code, output, junit = run_check(
        native_stack,
        tmp_path,
        "--baseline",
        "none",
        "--candidate",
        "batch",
        *tiny_queue,
        "--p99-overhead-pct",
        "-99",
        "--max-dropped-spans",
        "0",
        # Two rounds of 1 s phases, not run_check's three of 3 s: dropped spans are a count, over
        # budget from the first round, and no latency falls by 99% however many rounds are read
        # (the last --rounds and --duration win).
        "--rounds",
        "2",
        "--duration",
        "1",
    )
    assert code == 1, output
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuite"
    assert int(root.attrib["failures"]) >= 1
    failed = {case.attrib["name"] for case in root.iter("testcase") if case.find("failure") is not None}
    assert "max_dropped_spans" in failed
