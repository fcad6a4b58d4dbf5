"""`tracetax check`'s budget flags are the budget lines' own (diagnostics/checks.py
BUDGET_LINE_TEXT, which the UI's commands are generated from): one option per line, bound to
the Budget field of its name."""

from __future__ import annotations

import typer

from tracetax.cli.main import app
from tracetax.diagnostics.checks import BUDGET_LINE_TEXT, Budget


def test_every_budget_line_is_a_check_option_with_its_flag() -> None:
    group = typer.main.get_command(app)
    check = group.commands["check"]  # type: ignore[attr-defined]
    options = {param.name: param.opts for param in check.params}
    for line, text in BUDGET_LINE_TEXT.items():
        assert options[line] == [text.flag], line


def test_the_budget_lines_are_budgets_fields_in_order() -> None:
    fields = [name for name in Budget.model_fields if name != "cost"]
    assert list(BUDGET_LINE_TEXT) == fields


def test_the_openapi_publishes_each_subjects_lines() -> None:
    published = Budget.model_json_schema()["x-budget-lines"]
    assert [line["key"] for line in published["service"]] == [
        "p50_overhead_pct",
        "p99_overhead_pct",
        "cpu_overhead_pct",
        "p50_added_ms",
        "p99_added_ms",
        "cpu_added_us",
        "max_dropped_spans",
        "max_bytes_per_request",
        "max_usd_per_month",
    ]
    assert [line["key"] for line in published["collector"]] == [
        "cores_per_10k_overhead_pct",
        "cores_per_10k_added",
        "rss_overhead_pct",
        "rss_added_mib",
        "max_lost_spans",
    ]
    assert published["service"][1] == {
        "key": "p99_overhead_pct",
        "label": "p99 latency overhead",
        "field": "Max p99 overhead (%)",
        "flag": "--p99-overhead-pct",
        "unit": "pct",
    }
