"""The metrics a check stores in its overhead snapshot, as people read them.

Each is oriented so that positive is worse. The relative ones (p50, p99, CPU per request) are
the candidate's change against the baseline in %, so a growth between two checks is in
percentage points; bytes per request is the candidate's own figure, $/month its difference
against the baseline at the check's cost inputs.
"""

from __future__ import annotations

from tracetax.subjects.base import HistoryMetricText, HistoryUnit
from tracetax.subjects.registry import SUBJECTS

MINUS = "\N{MINUS SIGN}"
# Every metric a history keeps, whichever subject keeps it: the subjects name them (a service's
# latency, CPU, bytes and $/month; a pipeline's cores, RSS and lost spans), once.
HISTORY_METRICS: dict[str, HistoryMetricText] = {
    name: text for subject in SUBJECTS.values() for name, text in subject.history_metric_text.items()
}


class UnknownMetricError(ValueError):
    """A metric no subject's history keeps; the message names the allowed ones."""

    def __init__(self, metric: str) -> None:
        super().__init__(f"unknown metric {metric!r}; use one of: {', '.join(HISTORY_METRICS)}")


def metric_text(metric: str) -> HistoryMetricText:
    """The metric's label and unit; a name outside every subject's history is an error listing them."""
    text = HISTORY_METRICS.get(metric)
    if text is None:
        raise UnknownMetricError(metric)
    return text


def _signed(value: float, text: str) -> str:
    sign = "+" if value > 0 else MINUS if value < 0 else "±"
    return f"{sign}{text}"


def format_level(value: float, unit: HistoryUnit) -> str:
    """A point of the series: "+12.3%", "1,204 B", "+$41.20"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f}%")
    if unit == "bytes":
        return f"{value:,.0f} B"
    if unit == "spans":
        return f"{value:,.0f} spans"
    return _signed(value, f"${abs(value):,.2f}")


def format_growth(value: float, unit: HistoryUnit) -> str:
    """A difference between points: "+4.1 points" (of %), "+120 B", "+$3.50"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f} points")
    if unit == "bytes":
        return _signed(value, f"{abs(value):,.0f} B")
    if unit == "spans":
        return _signed(value, f"{abs(value):,.0f} spans")
    return _signed(value, f"${abs(value):,.2f}")


def format_bound(value: float, unit: HistoryUnit) -> str:
    """A bound of an interval, without the unit word: "+1.0", "+120", "+$3.50"."""
    if unit == "pct":
        return _signed(value, f"{abs(value):.1f}")
    if unit in ("bytes", "spans"):
        return _signed(value, f"{abs(value):,.0f}")
    return _signed(value, f"${abs(value):,.2f}")
