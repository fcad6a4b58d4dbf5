"""Terminal tables every subject's `tracetax run` report uses: number formats and the paired
changes against the baseline."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from tracetax.diagnostics.overhead import Change


def format_us(value: Any) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value / 1000:.2f} ms"
    return f"{value} µs" if isinstance(value, int) else f"{value:.1f} µs"


def format_number(value: Any, unit: str = "", digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def changes_table(changes: dict[str, dict[str, Change]], baseline: str) -> Table:
    """Each configuration's paired change against the baseline, in words (docs/diagnostics.md)."""
    table = Table(title=f"Change against {baseline} (paired by round, 95% intervals, Holm over the metrics)")
    table.add_column("configuration")
    table.add_column("metric")
    table.add_column("change")
    for name, by_metric in changes.items():
        for item in by_metric.values():
            colour = {"worse": "red", "better": "green"}.get(item.direction, "")
            table.add_row(name, item.label, f"[{colour}]{item.summary}[/{colour}]" if colour else item.summary)
    return table
