"""Whether the Collector has passed on everything the stopped services sent, as its counters'
latest sample says (diagnostics/ledger.py `collector_drained_since`, the settle's reading)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tracetax.diagnostics.ledger import COLLECTED_ITEMS, collector_drained_since

SINCE = 1_000.0


@dataclass
class Sample:
    value: float
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Scraper:
    """The scraper: its latest sample of the Collector taken at `taken` (None: no series), and
    per item what the counters hold (accepted less passed on)."""

    taken: float | None
    held: dict[str, float] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    async def query(self, promql: str) -> list[Sample]:
        self.asked.append(promql)
        if "timestamp(" in promql:
            return [] if self.taken is None else [Sample(self.taken)]
        item = next(item for item in COLLECTED_ITEMS if f"accepted_{item}_total" in promql)
        assert all(f"otelcol_exporter_{kind}_{item}_total" in promql for kind in ("sent", "send_failed"))
        return [Sample(self.held.get(item, 0.0))]


async def test_a_sample_after_the_stop_with_nothing_held_is_drained() -> None:
    scraper = Scraper(taken=SINCE + 0.4)
    assert await collector_drained_since(scraper, SINCE)  # type: ignore[arg-type]
    assert len(scraper.asked) == 1 + len(COLLECTED_ITEMS)


async def test_a_sample_from_before_the_stop_says_nothing_of_what_came_after() -> None:
    scraper = Scraper(taken=SINCE - 0.2)
    assert not await collector_drained_since(scraper, SINCE)  # type: ignore[arg-type]
    assert len(scraper.asked) == 1  # the counters are not read


async def test_anything_still_held_is_not_drained() -> None:
    for item in COLLECTED_ITEMS:
        scraper = Scraper(taken=SINCE + 0.4, held={item: 512})
        assert not await collector_drained_since(scraper, SINCE), item  # type: ignore[arg-type]


async def test_no_sample_at_all_is_not_drained() -> None:
    assert not await collector_drained_since(Scraper(taken=None), SINCE)  # type: ignore[arg-type]
