"""The terminal tables of a Collector pipeline experiment (`tracetax run` on a spec with
`subject: collector`): each variant's cost, and where every round's spans went."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.table import Table

from tracetax.diagnostics.overhead import format_count, format_optional, format_value
from tracetax.diagnostics.pipeline import PipelineRoundLedger, SpanDelay
from tracetax.diagnostics.pipeline_recommend import PipelineRecommendation


def _side(variant: dict[str, Any], figure: str) -> Any:
    """A figure of the variant's side-by-side phase; None without the phase."""
    return (variant.get("side_by_side") or {}).get(figure)


def pipeline_results_table(
    variants: list[dict[str, Any]], baseline: str, delays: Mapping[str, SpanDelay] | None = None
) -> Table:
    """Each variant's figures; `delays` (the diagnostics' span_delay, from the Tempo read-back)
    adds the delay from a span's end to its arrival downstream."""
    table = Table(title="Pipeline cost (medians over rounds; the lab Collector, from /proc)")
    table.add_column("metric")
    for variant in variants:
        name = variant["configuration"]
        table.add_column(f"{name} (baseline)" if name == baseline else name, justify="right")
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("rounds completed / failed", lambda v: f"{v['rounds_completed']} / {v['rounds_failed']}"),
        ("spans/s taken in", lambda v: format_optional(v["spans_per_s"], "spans/s")),
        ("Collector CPU", lambda v: format_optional(v["cpu_cores"], "cores")),
        ("spans/s per core", lambda v: format_optional(v["spans_per_s_per_core"], "spans/s")),
        ("cores per 10k spans/s", lambda v: format_optional(v["cores_per_10k_spans_s"], "cores")),
        ("RSS peak", lambda v: format_optional(v["rss_max_bytes"], "bytes")),
        ("RSS steady", lambda v: format_optional(v["rss_steady_bytes"], "bytes")),
        # The side-by-side phase's, which the changes are paired from (docs/diagnostics.md).
        ("cores per 10k spans/s side by side", lambda v: format_optional(_side(v, "cores_per_10k_spans_s"), "cores")),
        ("RSS peak side by side", lambda v: format_optional(_side(v, "rss_max_bytes"), "bytes")),
        ("downstream Collectors' CPU", lambda v: format_optional(v["downstream_cpu_cores"], "cores")),
        ("kept ratio", lambda v: "-" if v["kept_ratio"] is None else f"{v['kept_ratio']:.3f}"),
        (
            "highest sustainable spans/s (ramp)",
            lambda v: format_optional(v.get("max_sustainable_spans_per_s"), "spans/s"),
        ),
        ("  limited by", lambda v: ", ".join(v.get("ramp_limited_by") or []) or "-"),
        ("spans generated (all rounds)", lambda v: format_count(v["ledger_totals"]["generated"])),
        ("spans lost (all rounds)", lambda v: format_count(v["ledger_totals"]["lost"])),
    ]
    if delays is not None:

        def delay(v: dict[str, Any], key: str) -> str:
            measured = delays.get(v["configuration"])
            value = None if measured is None else getattr(measured, key)
            return "unknown" if value is None else format_value(value, "us")

        rows += [
            ("span end -> downstream p50", lambda v: delay(v, "p50_us")),
            ("span end -> downstream p99", lambda v: delay(v, "p99_us")),
        ]
    if not any(variant.get("side_by_side") for variant in variants):
        rows = [(label, cell) for label, cell in rows if not label.endswith("side by side")]
    for label, cell in rows:
        table.add_row(label, *(cell(variant) for variant in variants))
    return table


def ledger_table(ledgers: list[PipelineRoundLedger]) -> Table:
    """Stage by stage, per round: generated, accepted / refused, exported / failed, arrived."""
    table = Table(title="Span ledger per round (the Collectors' own counters after the drain)")
    for column in ("round", "generated", "accepted", "refused", "exported", "failed", "arrived", "lost"):
        table.add_column(column, justify="left" if column == "round" else "right")
    for item in ledgers:
        ledger = item.ledger
        # A round that stored no ledger has none of its stages: each unknown.
        receiver, exporter, downstream = ledger.get("receiver"), ledger.get("exporter"), ledger.get("downstream")
        failed = [exporter["send_failed"], exporter["enqueue_failed"]] if exporter else [None]
        table.add_row(
            f"{item.configuration} {item.round + 1}",
            format_count(ledger.get("generated")),
            format_count(receiver["accepted"] if receiver else None),
            format_count(receiver["refused"] if receiver else None),
            format_count(exporter["sent"] if exporter else None),
            format_count(None if None in failed else sum(f for f in failed if f is not None)),
            format_count(downstream["accepted"] if downstream else None),
            format_count(ledger.get("lost")),
        )
    return table


def recommendation_table(recommendation: PipelineRecommendation) -> Table:
    """Per variant: cores and memory for the target rate, the memory_limiter that holds it."""
    target = recommendation.target_spans_per_s
    table = Table(title=f"Sizing for {target:,.0f} spans/s (from measured values; sources per line)")
    for column in ("variant", "cores", "memory_limiter", "container memory", "keeps up", "from"):
        table.add_column(column, justify="left" if column in ("variant", "from") else "right")
    for item in recommendation.sizing:
        limiter = item.memory_limiter
        table.add_row(
            item.variant,
            format_optional(item.cores, "cores"),
            f"{limiter['limit_mib']} / {limiter['spike_limit_mib']} MiB" if limiter else "-",
            f"{item.container_memory_mib} MiB" if item.container_memory_mib else "-",
            {True: "yes", False: "no", None: "unknown (no ramp)"}[item.keeps_up],
            f"{item.cores_source}; {item.memory_source}" + (f"; {item.note}" if item.note else ""),
        )
    if recommendation.batch:
        table.caption = f"batch settings: {recommendation.batch}"
    if recommendation.trace_holding:
        held = f"trace holding: {recommendation.trace_holding}"
        table.caption = f"{table.caption}; {held}" if table.caption else held
    return table
