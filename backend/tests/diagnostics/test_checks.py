"""Budget lines: fail only beyond noise, pass only when the whole interval is within budget,
otherwise say the check cannot tell (and how many rounds would)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from tests.diagnostics.test_overhead import experiment
from tracetax.diagnostics.checks import Budget, judge, junit, unresolvable
from tracetax.diagnostics.overhead import compare, noise_floor
from tracetax.subjects.registry import subject_named


def verdict_of(budget: Budget, added_s: float = 0.0, scale: float = 1.0, rounds: int = 5, seed: int = 1):  # type: ignore[no-untyped-def]
    base, cand = experiment(rounds, seed=seed, added_s=added_s, scale=scale)
    return judge(budget, compare(base, cand), dropped_spans=0, baseline=base, candidate=cand)


def test_a_clear_regression_fails_and_a_clear_non_regression_passes() -> None:
    slow = verdict_of(Budget(p50_overhead_pct=10, cpu_added_us=200), added_s=0.001)
    assert {line.name: line.verdict for line in slow.lines} == {"p50_overhead_pct": "fail", "cpu_added_us": "fail"}
    assert slow.verdict == "fail"
    same = verdict_of(Budget(p50_overhead_pct=50, cpu_added_us=200))
    assert same.verdict == "pass", same


def test_an_absolute_budget_reads_milliseconds() -> None:
    verdict = verdict_of(Budget(p50_added_ms=2.0), added_s=0.001)
    line = verdict.lines[0]
    assert line.verdict == "pass", line
    assert line.measured is not None and 0.8 < (line.measured.estimate or 0) < 1.2
    assert verdict_of(Budget(p50_added_ms=0.5), added_s=0.001).verdict == "fail"


def test_a_budget_inside_the_noise_is_inconclusive_and_an_error() -> None:
    verdict = verdict_of(Budget(p99_overhead_pct=1), rounds=3, seed=4)
    line = verdict.lines[0]
    assert line.verdict == "inconclusive", line
    assert "rounds" in line.reason
    assert verdict.verdict == "error"


def test_strict_judges_the_estimate() -> None:
    base, cand = experiment(3, seed=9, scale=1.05)
    changes = compare(base, cand)
    strict = judge(Budget(p50_overhead_pct=1), changes, None, strict=True, baseline=base, candidate=cand)
    assert strict.verdict == "fail"


def test_unknown_values_and_flagged_rounds_make_an_error_not_a_pass() -> None:
    verdict = judge(Budget(max_dropped_spans=0, p99_overhead_pct=10), {}, None)
    assert verdict.verdict == "error"
    assert {line.verdict for line in verdict.lines} == {"unknown"}
    base, cand = experiment(5, seed=2)
    flagged = judge(Budget(p50_overhead_pct=50), compare(base, cand), 0, False, base, cand, ["candidate round 1"])
    assert flagged.verdict == "error"
    assert any(line.name == "isolation" and "candidate round 1" in line.reason for line in flagged.lines)


def test_dropped_spans_line() -> None:
    assert judge(Budget(max_dropped_spans=0), {}, dropped_spans=12).verdict == "fail"
    assert judge(Budget(max_dropped_spans=100), {}, dropped_spans=12).verdict == "pass"


def test_a_calibration_refuses_a_budget_tighter_than_the_machine_resolves() -> None:
    base, cand = experiment(5, seed=3)
    floors = noise_floor(base, [cand])
    errors = unresolvable(Budget(p50_overhead_pct=0.5, cpu_overhead_pct=80), floors, rounds=3)
    assert [e["loc"] for e in errors] == [("budget", "p50_overhead_pct")]
    assert "rounds" in str(errors[0]["msg"])


def test_the_refusal_names_the_lever_that_narrows_that_metric() -> None:
    # p50 comes from the side-by-side phase, whose spread is what differs between two fresh
    # processes: pooled instances narrow it, a longer phase does not; a tail the other way round.
    base, cand = experiment(5, seed=3)
    floors = noise_floor(base, [cand])
    errors = unresolvable(Budget(p50_overhead_pct=0.5, p99_overhead_pct=0.5), floors, rounds=3)
    messages = {e["loc"][1]: str(e["msg"]) for e in errors}
    assert "load.side_by_side_instances" in messages["p50_overhead_pct"]
    assert "longer phase" in messages["p99_overhead_pct"]


def test_junit_is_valid_and_marks_failures() -> None:
    verdict = verdict_of(Budget(p50_overhead_pct=10, max_dropped_spans=0), added_s=0.001)
    root = ET.fromstring(junit("abc", verdict))
    assert root.tag == "testsuite"
    assert root.attrib["tests"] == "2"
    assert root.attrib["failures"] == "1"
    failed = [case.attrib["name"] for case in root.iter("testcase") if case.find("failure") is not None]
    assert failed == ["p50_overhead_pct"]
    assert "worse" in (root.find("testcase/failure").text or "")  # type: ignore[union-attr]


def pipeline_rounds(rounds: int, cores: float, extra_cores: float, rss_mib: float, extra_mib: float):  # type: ignore[no-untyped-def]
    """Baseline and candidate pipeline rounds sharing a per-round drift."""
    import numpy as np

    from tracetax.diagnostics.overhead import RoundSample

    rng = np.random.default_rng(7)
    base, cand = [], []
    for index in range(rounds):
        drift = float(np.exp(rng.normal(0, 0.05)))
        for out, add_cores, add_mib in ((base, 0.0, 0.0), (cand, extra_cores, extra_mib)):
            noise = float(np.exp(rng.normal(0, 0.01)))
            values = {
                "cores_per_10k_spans_s": (cores + add_cores) * drift * noise,
                "rss_max_bytes": (rss_mib + add_mib) * 2**20 * noise,
                "lost_spans": 0.0,
            }
            out.append(RoundSample(round_index=index, values=values))
    return base, cand


def test_a_pipeline_budget_reads_cores_per_10k_spans_and_mib() -> None:
    from tracetax.diagnostics.overhead import PIPELINE_METRICS

    base, cand = pipeline_rounds(5, cores=0.2, extra_cores=0.1, rss_mib=60, extra_mib=2)
    changes = compare(base, cand, PIPELINE_METRICS)
    budget = Budget(cores_per_10k_overhead_pct=20, rss_added_mib=10, max_lost_spans=0)
    verdict = judge(budget, changes, None, baseline=base, candidate=cand, lost_spans=0)
    lines = {line.name: line for line in verdict.lines}
    assert lines["cores_per_10k_overhead_pct"].verdict == "fail"  # +50% against a 20% budget
    assert lines["rss_added_mib"].verdict == "pass"
    measured = lines["rss_added_mib"].measured
    assert measured is not None and 1 < (measured.estimate or 0) < 3  # MiB, not bytes
    assert lines["max_lost_spans"].verdict == "pass"
    unknown = judge(Budget(max_lost_spans=0), changes, None, lost_spans=None)
    assert unknown.lines[0].verdict == "unknown" and unknown.verdict == "error"


def test_budget_fields_say_which_subject_they_belong_to() -> None:
    budget = Budget(p99_overhead_pct=5, rss_overhead_pct=5)
    assert budget.misplaced(subject_named("collector").budget_fields) == ["p99_overhead_pct"]
    assert budget.misplaced(subject_named("service").budget_fields) == ["rss_overhead_pct"]
