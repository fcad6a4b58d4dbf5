"""Where a service's p50 is paired from: each round's side-by-side phase for a pair of
configurations that took a like share of the service cores there, each one's solo phase for a
pair further apart, and the solo phases for every pair of a round whose phase was flagged."""

from __future__ import annotations

from typing import Any

import numpy as np

from tracetax.db.models import Experiment, Round
from tracetax.diagnostics.overhead import compare
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.engine import histogram as hdr
from tracetax.spec.service import ExperimentSpec

SPEC = ExperimentSpec.model_validate(
    {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"preset": "none"},
            {"preset": "none", "name": "none-again", "baseline": False},
            {"preset": "none", "name": "busy-1ms", "baseline": False, "inject_busy_us": 1000},
        ],
        "load": {"rate": 300},
        "rounds": 3,
    }
)
# Alone on the core: p50 of 400 µs and of 1.4 ms with the spin.
SOLO_P50_S = {"none": 0.0004, "none-again": 0.0004, "busy-1ms": 0.0014}
# Side by side the lighter ones wait behind the spin (their p50 rises), the spin hardly at all.
SIDE_P50_US = {"none": 600.0, "none-again": 606.0, "busy-1ms": 1450.0}
SHARES = {"none": 0.03, "none-again": 0.031, "busy-1ms": 0.30}


def _round(name: str, index: int, *, flagged: bool = False) -> Round:
    solo = hdr.encode(hdr.from_latencies_s(np.full(200, SOLO_P50_S[name] * (1 + 0.01 * index))))
    side: dict[str, Any] = {
        "p50_us": SIDE_P50_US[name] * (1 + 0.01 * index),
        "cpu_per_request_us": 100.0,
        "rss_max_bytes": 10_000_000,
        "utilisation": {"service": 0.4, "load_generator": 0.3, "configurations": SHARES},
        "latency_flagged": flagged,
    }
    return Round(
        configuration=name,
        round_index=index,
        run_id=f"r{index}-{name}",
        status="completed",
        histogram=solo,
        figures={"requests_total": 3000, "side_by_side": side},
        resources={"cpu_per_request_us": 120.0, "rss_max_bytes": 11_000_000},
    )


def _experiment(flagged_round: int | None = None) -> Experiment:
    rounds = [_round(c.name, i, flagged=i == flagged_round) for i in range(3) for c in SPEC.configurations]
    return Experiment(id="e1", spec=SPEC.model_dump(mode="json"), rounds=rounds)


def _p50_pairs(experiment: Experiment, candidate: str) -> tuple[float | None, float | None]:
    samples = samples_by_configuration(experiment)
    change = compare(samples["none"], samples[candidate])["p50"]
    return change.baseline, change.candidate


def test_an_a_a_pair_keeps_the_phase_p50_beside_a_heavy_third_configuration() -> None:
    baseline, candidate = _p50_pairs(_experiment(), "none-again")
    assert (baseline, candidate) == (606.0, 612.06)  # the phase's, averaged over the 3 rounds


def test_a_pair_far_apart_in_its_share_takes_its_solo_p50() -> None:
    baseline, candidate = _p50_pairs(_experiment(), "busy-1ms")
    assert baseline is not None and candidate is not None
    assert abs(baseline - 404) < 5 and abs(candidate - 1414) < 15


def test_a_flagged_round_pairs_every_configuration_solo() -> None:
    samples = samples_by_configuration(_experiment(flagged_round=1))
    a_a = compare(samples["none"], samples["none-again"])["p50"]
    # Rounds 0 and 2 side by side (600, 612), round 1 solo (404): the mean of the three.
    assert a_a.baseline is not None and abs(a_a.baseline - (600 + 404 + 612) / 3) < 2
