"""Latency distributions as HDR histograms: recorded per round, merged per configuration.

Percentiles of a configuration come from the merged histogram of all its rounds, never from
averaging per-round percentiles (an average of p99s is not a p99 of anything).
Values are recorded in microseconds, from 1 µs to 60 s, with 3 significant digits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

LOWEST_US = 1
HIGHEST_US = 60_000_000
SIGNIFICANT_DIGITS = 3
REPORTED_PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)


def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


def clamped_us(latency_s: float) -> int:
    """A latency in seconds as the whole microseconds recorded, within the histogram's range."""
    return min(max(round(latency_s * 1_000_000), LOWEST_US), HIGHEST_US)


def from_latencies_s(latencies_s: Iterable[float]) -> HdrHistogram:
    histogram = new_histogram()
    for latency in latencies_s:
        histogram.record_value(clamped_us(latency))
    return histogram


def encode(histogram: HdrHistogram) -> str:
    """Compressed, base64 text (HdrHistogram's standard encoding): storable and portable."""
    encoded = histogram.encode()
    return encoded.decode() if isinstance(encoded, bytes) else str(encoded)


def decode(text: str) -> HdrHistogram:
    return HdrHistogram.decode(text.encode())


def merge(encoded: Iterable[str]) -> HdrHistogram:
    merged = new_histogram()
    for text in encoded:
        merged.add(decode(text))
    return merged


@dataclass(frozen=True)
class LatencySummary:
    count: int
    min_us: int
    mean_us: float
    max_us: int
    # "50", "90", "99", "99.9", "99.99" -> microseconds
    percentiles_us: dict[str, int]


def percentile_key(percentile: float) -> str:
    return f"{percentile:g}"


def summarize(histogram: HdrHistogram) -> LatencySummary:
    count = histogram.get_total_count()
    if count == 0:
        return LatencySummary(0, 0, 0.0, 0, {})
    return LatencySummary(
        count=count,
        min_us=histogram.get_min_value(),
        mean_us=histogram.get_mean_value(),
        max_us=histogram.get_max_value(),
        percentiles_us={percentile_key(p): histogram.get_value_at_percentile(p) for p in REPORTED_PERCENTILES},
    )


def percentile_curve(histogram: HdrHistogram, ticks_per_half_distance: int = 5) -> list[tuple[float, int]]:
    """(percentile, µs) points for an HDR-style plot on a logarithmic percentile axis."""
    if histogram.get_total_count() == 0:
        return []
    points: list[tuple[float, int]] = []
    for item in histogram.get_percentile_iterator(ticks_per_half_distance):
        point = (
            min(item.percentile_level_iterated_to, 100.0),
            histogram.get_highest_equivalent_value(item.value_iterated_to),
        )
        if not points or point != points[-1]:
            points.append(point)
    return points
