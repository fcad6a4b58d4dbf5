"""`tracetax run`'s where-export-runs and threads tables, from stored rounds and results."""

from __future__ import annotations

from rich.console import Console

from tracetax.db.models import Round
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.tables import thread_groups_table, where_export_table

STACKS = "goroutine request;main.h;go.opentelemetry.io/otel/exporters/otlp/x 2\ngoroutine request;main.h 1\n"


def test_table_shows_the_split_and_why_stacks_are_missing() -> None:
    sampled = Round(
        configuration="simple",
        status="completed",
        round_index=0,
        stack_profile={"sampler": "go-pprof", "samples": 3},
        folded_stacks=STACKS,
    )
    failed = Round(
        configuration="batch", status="completed", round_index=0, stack_profile={"sampler": "go-pprof", "error": "boom"}
    )
    console = Console(width=200, record=True)
    console.print(where_export_table([sampled, failed], ["simple", "batch"], {"simple": {"cpu_per_request_us": 300}}))
    text = console.export_text()
    simple = next(line for line in text.splitlines() if "simple" in line)
    assert "67%" in simple and "33%" in simple and "200.0 µs" in simple
    assert "round 0: boom" in text


def test_threads_table_names_the_concurrency_and_says_unknown_per_span() -> None:
    spec = ExperimentSpec.model_validate(
        {
            "service": {"kind": "demo", "language": "java"},
            "configurations": [
                {"name": "none", "processor": "none", "baseline": True},
                {"name": "bsp-t64", "processor": "batch", "concurrency": {"threads": 64}},
            ],
            "load": {"rate": 100},
        }
    )
    worker = {"threads": 1, "cpu_per_request_us": 4.0, "ctx_per_request": 0.5}
    results = [
        {"configuration": "none", "thread_groups": {}},
        {
            "configuration": "bsp-t64",
            "thread_groups": {
                "BatchSpanProces": worker | {"cpu_per_span_us": 0.8, "ctx_per_span": 0.1},
                "http-worker-*": worker | {"threads": 64, "cpu_per_span_us": None, "ctx_per_span": None},
            },
        },
    ]
    console = Console(width=200, record=True)
    console.print(thread_groups_table(results, spec))
    lines = console.export_text().splitlines()
    bsp = next(line for line in lines if "BatchSpanProces" in line)
    assert "threads 64" in bsp and "0.8 µs" in bsp and "0.1000" in bsp
    assert "unknown" in next(line for line in lines if "http-worker-*" in line)
