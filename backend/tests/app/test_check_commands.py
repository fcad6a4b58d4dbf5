"""A check as CI runs it again (app/check_commands.py): the request rebuilt from its stored spec,
the `tracetax check` command with flags when they say the request exactly (else from a file,
saying why), the curl calls; and the CLI's flag grammar the command is spelled in."""

from __future__ import annotations

import json
from typing import Any

from tracetax.app.check_commands import (
    CheckParts,
    check_request,
    configuration_of,
    history_flags,
    overlay_name,
    pipeline_check_request,
    pipeline_cli_command,
    request_names,
    service_cli_command,
    stored_check_commands,
    variant_of,
)
from tracetax.spec.presets import PRESETS

BASE = "http://tracetax.internal:8000"
TUNED = dict(PRESETS["batch-tuned"].env)


def service_spec(candidate: dict[str, Any] | None = None, **load: Any) -> dict[str, Any]:
    """A stored service check's spec: none against batch-tuned with one variable changed."""
    return {
        "name": "check: batch-tuned vs none",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"name": "baseline", "processor": "none", "env": {}, "baseline": True, "preset": "none"},
            {
                "name": "candidate",
                "processor": "batch",
                "env": {**TUNED, "OTEL_EXPORTER_OTLP_TIMEOUT": "500"},
                "baseline": False,
                "preset": "batch-tuned",
                **(candidate or {}),
            },
        ],
        "load": {
            "rate": 100.0,
            "warmup_s": 2.0,
            "duration_s": 3.0,
            "connections": 16,
            "path": "/work",
            "query": {"iters": 1000, "spans": 5},
            "max_throughput_s": 0.0,
            **load,
        },
        "rounds": 3,
        "seed": 0,
    }


def pipeline_spec(candidate: dict[str, Any] | None = None, **load: Any) -> dict[str, Any]:
    return {
        "subject": "collector",
        "name": "check: batch-default vs passthrough",
        "configurations": [
            {"name": "baseline", "pipeline": "passthrough", "baseline": True, "settings": {}},
            {"name": "candidate", "pipeline": "batch-default", "baseline": False, "settings": {}, **(candidate or {})},
        ],
        "load": {
            "spans_per_s": 1000.0,
            "warmup_s": 2.0,
            "duration_s": 3.0,
            "drain_s": 6.0,
            "spans_per_trace": 5,
            "attribute_bytes": 0,
            "services_per_trace": 1,
            "ramp": None,
            **load,
        },
        "rounds": 1,
        "seed": 0,
    }


SERVICE_BUDGET = {"p99_overhead_pct": 15, "cpu_overhead_pct": None, "max_dropped_spans": 0}
PIPELINE_BUDGET = {"cores_per_10k_overhead_pct": 30, "rss_overhead_pct": 20, "rss_added_mib": 64, "max_lost_spans": 0}


def test_the_flag_grammar_spells_presets_processors_variants_and_overlays() -> None:
    assert configuration_of("batch-default", ["OTEL_X=1=2"]) == {"preset": "batch-default", "env": {"OTEL_X": "1=2"}}
    assert configuration_of("batch", []) == {"name": "batch", "processor": "batch", "env": {}}
    assert variant_of("batch-default") == {"pipeline": "batch-default"}
    assert variant_of("/a/b/Tail.Sampling.yml")["name"] == overlay_name("/a/b/Tail.Sampling.yml") == "tail.sampling"
    assert request_names("check: batch-default vs none") == ("none", "batch-default")
    assert request_names("my experiment") == (None, None)


def test_a_service_request_is_rebuilt_with_presets_and_only_the_variables_changed() -> None:
    request = check_request(CheckParts(SERVICE_BUDGET, strict=False), service_spec())

    assert request["baseline"] == {"preset": "none"}
    assert request["candidate"] == {"preset": "batch-tuned", "env": {"OTEL_EXPORTER_OTLP_TIMEOUT": "500"}}
    assert request["budget"] == {"p99_overhead_pct": 15, "max_dropped_spans": 0}
    assert (request["rounds"], request["strict"]) == (3, False)
    assert "seed" not in request and "max_wall_time_s" not in request
    removed = check_request(CheckParts({}, False), service_spec({"env": {"OTEL_BSP_MAX_QUEUE_SIZE": "2"}}))
    assert removed["candidate"] == {
        "name": "batch-tuned",
        "processor": "batch",
        "env": {"OTEL_BSP_MAX_QUEUE_SIZE": "2"},
    }


def test_flags_say_a_service_check_exactly_when_they_can() -> None:
    cli = service_cli_command(BASE, CheckParts(SERVICE_BUDGET, strict=True), service_spec())

    assert cli.flags and cli.reasons == []
    assert cli.command == " \\\n".join(
        [
            "tracetax check --api http://tracetax.internal:8000",
            "  --service go --baseline none --candidate batch-tuned",
            "  --candidate-env OTEL_EXPORTER_OTLP_TIMEOUT=500",
            "  --rate 100 --duration 3 --rounds 3 --iters 1000 --spans 5",
            "  --p99-overhead-pct 15 --max-dropped-spans 0",
            "  --strict --junit tracetax-junit.xml",
        ]
    )


def test_bought_rounds_history_and_a_cost_rate_are_flags_too() -> None:
    spec = {**service_spec(), "precision": {"metrics": ["p99"], "half_width_pct": None, "max_wall_time_s": 900}}
    check = CheckParts(
        {"max_usd_per_month": 40, "cost": {"requests_per_s": 1000}},
        strict=False,
        provenance={"branch": "feature x", "commit": "abc123", "repository": None},
        against_history={"branch": "main", "points": 10, "max_growth_pct": 3},
    )

    cli = service_cli_command(BASE, check, spec)

    assert cli.flags, cli.reasons
    assert "  --max-usd-per-month 40 --cost-rate 1000" in cli.command
    assert "  --branch 'feature x' --commit abc123 --against-history main:10 --history-max-growth-pct 3" in cli.command
    assert cli.command.endswith("  --max-wall-time 900 --junit tracetax-junit.xml")
    assert check_request(check, spec)["max_wall_time_s"] == 900


def test_a_service_check_the_flags_cannot_say_is_read_from_a_file_saying_why() -> None:
    check = CheckParts(SERVICE_BUDGET, strict=False)
    spec = service_spec(warmup_s=1.0, connections=8)
    spec["configurations"][0]["env"] = {"OTEL_SDK_DISABLED": "true"}

    cli = service_cli_command(BASE, check, spec)

    assert not cli.flags
    assert cli.reasons == [
        "a warm-up of 1 s (the CLI uses 2 s)",
        "8 connections (the CLI uses 16)",
        "the baseline's own variables (the CLI has no --baseline-env)",
    ]
    lines = cli.command.split("\n")
    assert lines[0] == "cat > tracetax-check.json <<'EOF'"
    assert lines[-1] == f"tracetax check --api {BASE} --spec tracetax-check.json --junit tracetax-junit.xml"
    assert json.loads("\n".join(lines[1:-2])) == check_request(check, spec)
    priced = CheckParts({"max_usd_per_month": 40, "cost": {"requests_per_s": 1000, "vcpu_hour_usd": 0.04}}, False)
    assert service_cli_command(BASE, priced, service_spec()).reasons == [
        "cost inputs other than the request rate (--cost-rate)"
    ]


def test_curl_queues_the_same_request_then_reads_the_verdict_and_junit() -> None:
    commands = stored_check_commands(f"{BASE}/", CheckParts(SERVICE_BUDGET, False), service_spec())
    lines = commands.curl.split("\n")

    assert lines[0] == f"CHECK_ID=$(curl -sf -XPOST {BASE}/api/v1/checks \\"
    assert lines[1] == "  -H 'content-type: application/json' \\"
    body = commands.curl[commands.curl.index("-d '") + 4 : commands.curl.index("' | jq -r .id)")]
    assert json.loads(body) == commands.request
    assert lines[-1] == f'curl -sf {BASE}/api/v1/checks/"$CHECK_ID?format=junit" -o tracetax-junit.xml'


def test_a_pipeline_check_is_rebuilt_and_spelled_with_collector_flags() -> None:
    commands = stored_check_commands(BASE, CheckParts(PIPELINE_BUDGET, strict=True), pipeline_spec())

    assert commands.request["baseline"] == {"pipeline": "passthrough"}
    assert commands.request["candidate"] == {"pipeline": "batch-default"}
    assert "ramp" not in commands.request["load"] and "seed" not in commands.request
    assert commands.cli.flags, commands.cli.reasons
    assert commands.cli.command == " \\\n".join(
        [
            "tracetax check --api http://tracetax.internal:8000",
            "  --collector --baseline passthrough --candidate batch-default",
            "  --spans-per-s 1000 --duration 3 --rounds 1",
            "  --cores-per-10k-overhead-pct 30 --rss-overhead-pct 20 --rss-added-mib 64 --max-lost-spans 0",
            "  --strict --junit tracetax-junit.xml",
        ]
    )


def test_an_overlay_is_given_by_its_path_named_as_the_cli_names_it() -> None:
    spec = pipeline_spec({"pipeline": None, "config_file": "/srv/otel/Mine.yaml"})
    spec["name"] = "check: mine vs passthrough"
    request = pipeline_check_request(CheckParts({}, False), spec)

    assert request["candidate"] == {"name": "mine", "config_file": "/srv/otel/Mine.yaml"}
    cli = pipeline_cli_command(BASE, request)
    assert cli.flags and "--candidate /srv/otel/Mine.yaml" in cli.command


def test_a_pipeline_check_the_flags_cannot_say_is_read_from_a_file_saying_why() -> None:
    ramp = {"factor": 1.5, "step_s": 3, "max_spans_per_s": 9000, "max_steps": 12}
    spec = pipeline_spec({"settings": {"LAB_BATCH_TIMEOUT": "2s"}}, warmup_s=1.0, drain_s=10.0, ramp=ramp)
    spec["name"], spec["seed"] = "check: tuned vs passthrough", 7
    request = pipeline_check_request(CheckParts({}, False), spec)

    cli = pipeline_cli_command(BASE, request)

    assert request["candidate"] == {
        "name": "tuned",
        "pipeline": "batch-default",
        "settings": {"LAB_BATCH_TIMEOUT": "2s"},
    }
    assert not cli.flags
    assert cli.reasons == [
        "a warm-up of 1 s (the CLI uses 2 s)",
        "a drain of 10 s (the CLI leaves 6 s)",
        "a ramp (the CLI runs none)",
        "seed 7",
        "the candidate's LAB_* settings",
        "the candidate's name of its own",
    ]
    odd = pipeline_check_request(
        CheckParts({}, False), pipeline_spec({"pipeline": None, "config_file": "/x/mine.conf"})
    )
    assert pipeline_cli_command(BASE, odd).reasons == [
        "the candidate's config file as named (the CLI names a *.yaml file after it)"
    ]


def test_history_flags_leave_out_what_the_check_does_not_carry_and_the_default_growth() -> None:
    assert history_flags({}) is None
    gate = {"branch": "main", "points": 10, "max_growth_pct": 5}
    assert history_flags({"against_history": gate}) == "--against-history main:10"
    assert history_flags({"provenance": {"branch": "it's"}}) == "--branch 'it'\"'\"'s'"
