"""The metrics a check stores in its overhead snapshot, as people read them.

Each is oriented so that positive is worse. The relative ones (p50, p99, CPU per request) are
the candidate's change against the baseline in %, so a growth between two checks is in
percentage points; bytes per request is the candidate's own figure, $/month its difference
against the baseline at the check's cost inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The names of the metrics are the subjects' (each subject's `history_metric_text`); the use
# cases (app/) hand the texts down, so history needs no subject, and no registry, to load.

HistoryUnit = Literal["pct", "bytes", "usd", "spans"]
MINUS = "\N{MINUS SIGN}"


@dataclass(frozen=True)
class HistoryMetricText:
    """How a history metric is named for people, and the budget line that reads it in the same
    unit (drawn as the History chart's budget line; None: no such line)."""

    label: str
    unit: HistoryUnit
    budget_field: str | None
    # The smallest shift worth acting on, relative (shift_size_pct): a change point below it is
    # listed as too small to matter, not drawn as a shift. Significance says a shift is real;
    # this says whether anyone should care (a real +0.03% of bytes per request).
    material_pct: float = 1.0


def shift_size_pct(before: float, shift: float, unit: HistoryUnit) -> float | None:
    """How large a shift is, relative: for a relative metric (an overhead in %) its points of
    %, already relative to the baseline; for the others the shift in % of the level before it
    (None when that level is 0, where no relative size exists)."""
    if unit == "pct":
        return abs(shift)
    if before == 0:
        return None
    return abs(shift) / abs(before) * 100


def is_material(size_pct: float | None, threshold_pct: float) -> bool:
    """A shift is worth acting on when its relative size reaches the threshold; a shift from a
    level of 0 (no relative size) always is."""
    return size_pct is None or size_pct >= threshold_pct


def _amount(value: float) -> str:
    """A count of bytes or spans with the digits that tell small values apart: a shift of a
    fraction of a byte reads "0.31", not "0"."""
    size = abs(value)
    if size == 0 or size >= 10:
        return f"{size:,.0f}"
    return f"{size:.2f}" if size < 1 else f"{size:.1f}"


def _signed(value: float, text: str) -> str:
    sign = "+" if value > 0 else MINUS if value < 0 else "±"
    return f"{sign}{text}"


def format_level(value: float, unit: HistoryUnit) -> str:
    """A point of the series: "+12.3%", "1,204 B", "+$41.20"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f}%")
    sign = "-" if value < 0 else ""
    if unit == "bytes":
        return f"{sign}{_amount(value)} B"
    if unit == "spans":
        return f"{sign}{_amount(value)} spans"
    return _signed(value, f"${abs(value):,.2f}")


def format_growth(value: float, unit: HistoryUnit) -> str:
    """A difference between points: "+4.1 points" (of %), "+120 B", "+$3.50"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f} points")
    if unit == "bytes":
        return _signed(value, f"{_amount(value)} B")
    if unit == "spans":
        return _signed(value, f"{_amount(value)} spans")
    return _signed(value, f"${abs(value):,.2f}")


def format_bound(value: float, unit: HistoryUnit) -> str:
    """A bound of an interval, without the unit word: "+1.0", "+120", "+$3.50"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f}")
    if unit in ("bytes", "spans"):
        return _signed(value, _amount(value))
    return _signed(value, f"${abs(value):,.2f}")
