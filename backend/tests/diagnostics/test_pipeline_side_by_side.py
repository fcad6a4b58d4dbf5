"""Where a pipeline's cores per 10k spans/s and peak RSS are paired from: each round's
side-by-side phase by default, the solo windows on request, and the solo figures for every
variant of a round whose phase failed for one of them."""

from __future__ import annotations

from typing import Any

from tracetax.db.models import Experiment, Round
from tracetax.diagnostics.pipeline import PIPELINE_SIDE_BY_SIDE_METRICS, pipeline_samples, pipeline_side_by_side_use
from tracetax.spec.collector import PipelineSpec

SPEC = PipelineSpec.model_validate(
    {
        "subject": "collector",
        "configurations": [{"pipeline": "batch-default", "baseline": True}, {"pipeline": "memory-limited"}],
        "load": {"spans_per_s": 5000},
        "rounds": 2,
    }
)
SOLO = {"cores_per_10k_spans_s": 0.5, "rss_max_bytes": 90_000_000, "cpu_cores": 0.25}


def _round(name: str, index: int, side: dict[str, Any] | None) -> Round:
    figures: dict[str, Any] = {"spans_total": 100_000, "measured": {"ledger": {"lost": 0}}}
    if side is not None:
        figures["side_by_side"] = side
    return Round(
        configuration=name,
        round_index=index,
        run_id=f"r{index}-{name}",
        status="completed",
        figures=figures,
        resources=dict(SOLO),
    )


def _side(cost: float, rss: int) -> dict[str, Any]:
    return {"cores_per_10k_spans_s": cost, "rss_max_bytes": rss, "cpu_cores": cost / 2}


def _experiment(rounds: list[Round]) -> Experiment:
    return Experiment(id="e1", spec=SPEC.model_dump(mode="json"), rounds=rounds)


def _values(samples: dict[str, list[Any]], name: str, metric: str) -> list[Any]:
    return [sample.values[metric] for sample in samples[name]]


def test_the_paired_figures_come_from_the_side_by_side_phase_by_default() -> None:
    experiment = _experiment(
        [
            _round("batch-default", 0, _side(0.40, 60_000_000)),
            _round("memory-limited", 0, _side(0.44, 70_000_000)),
            _round("batch-default", 1, _side(0.41, 61_000_000)),
            _round("memory-limited", 1, _side(0.45, 71_000_000)),
        ]
    )
    samples = pipeline_samples(experiment, SPEC)
    assert _values(samples, "memory-limited", "cores_per_10k_spans_s") == [0.44, 0.45]
    assert _values(samples, "batch-default", "rss_max_bytes") == [60_000_000, 61_000_000]
    # What the phase does not pair stays solo: cores at the rate, lost spans.
    assert _values(samples, "memory-limited", "cpu_cores") == [0.25, 0.25]
    assert _values(samples, "memory-limited", "lost_spans") == [0, 0]
    solo = pipeline_samples(experiment, SPEC, design="solo")
    assert _values(solo, "memory-limited", "cores_per_10k_spans_s") == [0.5, 0.5]
    use = pipeline_side_by_side_use(list(experiment.rounds))
    assert use is not None
    assert use.metrics == list(PIPELINE_SIDE_BY_SIDE_METRICS)
    assert (use.rounds, use.latency_rounds) == ([1, 2], [])


def test_a_phase_that_failed_for_one_variant_pairs_that_round_solo_for_all() -> None:
    failed = {"error": "the side-by-side phase failed: memory-limited lab Collector exited with code 1"}
    experiment = _experiment(
        [
            _round("batch-default", 0, _side(0.40, 60_000_000)),
            _round("memory-limited", 0, failed),
            _round("batch-default", 1, _side(0.41, 61_000_000)),
            _round("memory-limited", 1, _side(0.45, 71_000_000)),
        ]
    )
    samples = pipeline_samples(experiment, SPEC)
    assert _values(samples, "batch-default", "cores_per_10k_spans_s") == [0.5, 0.41]
    assert _values(samples, "memory-limited", "cores_per_10k_spans_s") == [0.5, 0.45]
    use = pipeline_side_by_side_use(list(experiment.rounds))
    assert use is not None and use.rounds == [2]


def test_without_the_phase_nothing_changes() -> None:
    experiment = _experiment([_round(name, 0, None) for name in ("batch-default", "memory-limited")])
    samples = pipeline_samples(experiment, SPEC)
    assert _values(samples, "memory-limited", "cores_per_10k_spans_s") == [0.5]
    assert pipeline_side_by_side_use(list(experiment.rounds)) is None
