"""The pure parts of `make bench-truth` (benchmarks/truth.py, benchmarks/hog.py): argument
parsing, the hog's random schedule, the verdicts and printing on fake rounds, and the hog's
process group stopped with no survivor. The benchmark itself measures on the real stack."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from benchmarks import truth
from benchmarks.hog import HogSettings, NoisyNeighbour, hog_phases
from tracetax.diagnostics.overhead import RoundSample
from tracetax.engine import histogram as hdr


def rounds(
    seed: int, n: int = 6, cpu_us: float = 150.0, added_us: float = 0.0, p50_us: float = 400.0, noise: float = 0.01
) -> tuple[list[RoundSample], list[RoundSample]]:
    """Baseline and candidate rounds whose CPU per request and p50 vary by `noise` (sd of the log)."""
    rng = np.random.default_rng(seed)
    base: list[RoundSample] = []
    cand: list[RoundSample] = []
    for index in range(n):
        for out, added in ((base, 0.0), (cand, added_us)):
            latencies = rng.gamma(8.0, p50_us / 8e6, size=2000) + added / 1e6
            out.append(
                RoundSample(
                    round_index=index,
                    histogram=hdr.encode(hdr.from_latencies_s(latencies)),
                    max_throughput_rps=5000 * np.exp(rng.normal(0, noise)),
                    cpu_per_request_us=cpu_us * np.exp(rng.normal(0, noise)) + added,
                    rss_max_bytes=20e6 * np.exp(rng.normal(0, 0.002)),
                    values={"p50": p50_us * np.exp(rng.normal(0, noise)) + added},
                )
            )
    return base, cand


def outcome(
    side: tuple[list[RoundSample], list[RoundSample]], solo: tuple[list[RoundSample], list[RoundSample]]
) -> truth.Outcome:
    return truth.Outcome(
        baseline="none",
        candidate="candidate",
        samples={
            "side_by_side": {"none": side[0], "candidate": side[1]},
            "solo": {"none": solo[0], "candidate": solo[1]},
        },
    )


def test_arguments_default_to_the_standard_set_and_neighbour_to_go() -> None:
    standard = truth.parse_args([])
    assert not standard.neighbour and not standard.background and standard.languages == "go,java"
    neighbour = truth.parse_args(["--neighbour", "--hog-duty", "0.4", "--hog-period", "2"])
    assert neighbour.neighbour and neighbour.languages == "go"
    assert neighbour.hog == HogSettings(0.4, 2.0, 23)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--neighbour", "--background"], "not allowed with"),
        (["--hog-duty", "1.5"], "hog duty cycle"),
        (["--hog-period", "0"], "hog period"),
        (["--background-us", "-1"], "--background-us"),
    ],
)
def test_bad_arguments_are_refused_naming_them(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        truth.parse_args(argv)
    assert says in capsys.readouterr().err


def test_the_hog_schedule_has_the_asked_duty_cycle_and_period() -> None:
    settings = HogSettings(0.3, 4.0)
    phases = hog_phases(settings, np.random.default_rng(1))
    drawn = np.array([next(phases) for _ in range(20_000)])
    assert (drawn >= 0).all()
    busy, idle = drawn.sum(axis=0)
    assert busy / (busy + idle) == pytest.approx(0.3, abs=0.01)
    assert drawn.sum(axis=1).mean() == pytest.approx(4.0, rel=0.02)
    assert drawn[:, 0].std() > 0.5  # random stretches, not a fixed beat
    assert "duty cycle 30%, mean period 4 s" in settings.describe()


def test_the_hog_and_its_children_are_stopped_with_no_survivor() -> None:
    cpus = set(sorted(os.sched_getaffinity(0))[:2])
    with NoisyNeighbour(cpus, HogSettings(0.01, 0.2)) as hog:  # 1% duty: barely any CPU
        assert hog.process is not None
        group = hog.process.pid
        deadline = time.monotonic() + 10
        while len(members(group)) < len(cpus) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(members(group)) == len(cpus)  # one hog per core, all in the group
    assert members(group) == []
    assert hog.measured_duty() is not None


def members(pgid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_neighbour_verdict_holds_the_side_by_side_figures_to_the_targets() -> None:
    result = outcome(side=rounds(1, noise=0.01), solo=rounds(2, noise=0.15))
    ok, lines = truth.neighbour_verdict(result)
    assert ok, lines
    assert all("within" in line and "as wide" in line for line in lines)
    noisy = outcome(side=rounds(3, noise=0.15), solo=rounds(4, noise=0.15))
    ok, lines = truth.neighbour_verdict(noisy)
    assert not ok and any("OUTSIDE" in line for line in lines)


def test_injected_cost_is_checked_within_five_percent() -> None:
    changes, _ = outcome(rounds(5, added_us=1000), rounds(6)).changes("side_by_side")
    ok, lines = truth.injected_verdict(1000, changes)
    assert ok, lines
    changes, _ = outcome(rounds(5, added_us=1080), rounds(6)).changes("side_by_side")
    ok, lines = truth.injected_verdict(1000, changes)  # 8% more than injected
    assert not ok and any("OUTSIDE ±5%" in line for line in lines)


def with_partner(result: truth.Outcome, partner: tuple[list[RoundSample], list[RoundSample]]) -> truth.Outcome:
    """`result` with an A/A partner of its baseline: `partner`'s candidate rounds in both designs."""
    result.partner = truth.A_A_PARTNER
    for design, samples in zip(("side_by_side", "solo"), partner, strict=True):
        result.samples[design][truth.A_A_PARTNER] = samples
    return result


def test_background_cost_must_show_and_leave_the_baselines_p99_alone() -> None:
    expected = truth.expected_background_us(20_000, 2000, 300)
    assert expected == pytest.approx(33.33, abs=0.01)
    reference = outcome(rounds(7), rounds(8))
    side_base, side_candidate = rounds(9, added_us=0)
    burner = [
        RoundSample(
            s.round_index,
            s.histogram,
            s.max_throughput_rps,
            (s.cpu_per_request_us or 0) + expected,
            s.rss_max_bytes,
            s.values,
        )
        for s in side_candidate
    ]
    # The partner: the baseline's own rounds, another draw of the same service.
    partner = (rounds(13)[1], rounds(14)[1])
    background = with_partner(outcome((side_base, burner), rounds(10)), partner)
    ok, lines = truth.background_verdict(background, expected, reference)
    assert ok, lines
    assert "shows" in lines[1] and "within" in lines[2] and "the Go A/A's" in lines[2], lines
    ok, lines = truth.background_verdict(with_partner(outcome(rounds(9), rounds(10)), partner), expected, reference)
    assert not ok and "DOES NOT SHOW" in lines[1]
    # Without the Go A/A, the pair's own floor.
    ok, lines = truth.background_verdict(background, expected, None)
    assert ok and "this pair's own" in lines[2], lines


def test_the_baselines_p99_moving_beyond_the_floor_fails_and_no_partner_is_unknown() -> None:
    reference = outcome(rounds(7), rounds(8))
    slower = rounds(15, p50_us=600)[1]  # every latency half as long again: p99 +50%
    moved = with_partner(outcome(rounds(9), rounds(10)), (slower, slower))
    ok, lines = truth.background_verdict(moved, 33.3, reference)
    assert not ok and "OUTSIDE" in lines[2], lines
    ok, lines = truth.background_verdict(outcome(rounds(9), rounds(10)), 33.3, reference)
    assert not ok and "unknown" in lines[2] and truth.A_A_PARTNER in lines[2], lines


def test_both_designs_are_printed_with_their_sources(capsys: pytest.CaptureFixture[str]) -> None:
    result = outcome(rounds(11), rounds(12))
    result.side_latency_flagged = [2]
    assert truth.print_aa("A/A on go", result)
    out = capsys.readouterr().out
    assert "side-by-side design" in out and "solo design" in out
    assert "side by side" in out and "±3%" in out and "not used (cores too busy): 2" in out


def test_only_the_reported_design_fails_an_a_a_the_solo_one_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    # Solo rounds 8% apart (Java's instance effect in one run): said, not failed.
    solo_apart = outcome(rounds(11), rounds(12, added_us=12.0))
    assert truth.print_aa("A/A on java", solo_apart)
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith("  solo design (shown, not checked): significant") and "CPU per request" in said, said
    side_apart = outcome(rounds(12, added_us=12.0), rounds(11))
    assert not truth.print_aa("A/A on java", side_apart)
