"""`tracetax run`'s where-export-runs table, from stored rounds."""

from __future__ import annotations

from rich.console import Console

from tracetax.cli_run import where_export_table
from tracetax.db.models import Round

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
