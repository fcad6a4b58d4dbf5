"""How each budget line of a check is written for people: a table of words, no statistics.

Apart from diagnostics/checks.py so that `tracetax check` builds its budget flags from it
without loading what judges them (NumPy, SciPy: seconds of imports at every CI call).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How each budget line is written for people, in the forms and on the command line: the one
# source of the UI's budget lines (published in the OpenAPI as Budget's `x-budget-lines`, so the
# UI generates them) and of `tracetax check`'s budget flags. In Budget's field order.
BudgetUnit = Literal["pct", "ms", "us", "spans", "bytes", "usd", "cores", "mib"]


@dataclass(frozen=True)
class BudgetLineText:
    label: str  # the line's name: "p99 latency overhead"
    field: str  # the form field's label: "Max p99 overhead (%)"
    flag: str  # `tracetax check`'s option: "--p99-overhead-pct"
    unit: BudgetUnit  # how a limit and a measured change are shown


BUDGET_LINE_TEXT: dict[str, BudgetLineText] = {
    "p50_overhead_pct": BudgetLineText("p50 latency overhead", "Max p50 overhead (%)", "--p50-overhead-pct", "pct"),
    "p99_overhead_pct": BudgetLineText("p99 latency overhead", "Max p99 overhead (%)", "--p99-overhead-pct", "pct"),
    "cpu_overhead_pct": BudgetLineText(
        "CPU per request overhead", "Max CPU per request overhead (%)", "--cpu-overhead-pct", "pct"
    ),
    "p50_added_ms": BudgetLineText("p50 latency added", "Max p50 added (ms)", "--p50-added-ms", "ms"),
    "p99_added_ms": BudgetLineText("p99 latency added", "Max p99 added (ms)", "--p99-added-ms", "ms"),
    "cpu_added_us": BudgetLineText("CPU per request added", "Max CPU per request added (µs)", "--cpu-added-us", "us"),
    "max_dropped_spans": BudgetLineText(
        "Spans dropped in the SDK", "Max dropped spans", "--max-dropped-spans", "spans"
    ),
    "max_bytes_per_request": BudgetLineText(
        "OTLP bytes per request", "Max bytes per request", "--max-bytes-per-request", "bytes"
    ),
    "max_usd_per_month": BudgetLineText("Cost per month", "Max $/month", "--max-usd-per-month", "usd"),
    "cores_per_10k_overhead_pct": BudgetLineText(
        "Collector cores per 10k spans/s overhead",
        "Max cores per 10k spans/s overhead (%)",
        "--cores-per-10k-overhead-pct",
        "pct",
    ),
    "cores_per_10k_added": BudgetLineText(
        "Collector cores per 10k spans/s added",
        "Max cores per 10k spans/s added (cores)",
        "--cores-per-10k-added",
        "cores",
    ),
    "rss_overhead_pct": BudgetLineText(
        "Collector peak RSS overhead", "Max peak RSS overhead (%)", "--rss-overhead-pct", "pct"
    ),
    "rss_added_mib": BudgetLineText("Collector peak RSS added", "Max peak RSS added (MiB)", "--rss-added-mib", "mib"),
    "max_lost_spans": BudgetLineText("Spans lost in the pipeline", "Max lost spans", "--max-lost-spans", "spans"),
}
PIPELINE_BUDGET_FIELDS = {
    "cores_per_10k_overhead_pct",
    "cores_per_10k_added",
    "rss_overhead_pct",
    "rss_added_mib",
    "max_lost_spans",
}
