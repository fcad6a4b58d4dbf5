"""Budget lines: fail only beyond noise, pass only when the whole interval is within budget,
otherwise say the check cannot tell (and how many rounds would)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from tests.diagnostics.test_overhead import experiment
from tracetax.diagnostics.checks import Budget, judge, junit, unresolvable
from tracetax.diagnostics.overhead import compare, noise_floor


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


def test_junit_is_valid_and_marks_failures() -> None:
    verdict = verdict_of(Budget(p50_overhead_pct=10, max_dropped_spans=0), added_s=0.001)
    root = ET.fromstring(junit("abc", verdict))
    assert root.tag == "testsuite"
    assert root.attrib["tests"] == "2"
    assert root.attrib["failures"] == "1"
    failed = [case.attrib["name"] for case in root.iter("testcase") if case.find("failure") is not None]
    assert failed == ["p50_overhead_pct"]
    assert "worse" in (root.find("testcase/failure").text or "")  # type: ignore[union-attr]
