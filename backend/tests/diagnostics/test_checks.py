from __future__ import annotations

from xml.etree import ElementTree as ET

from tracetax.diagnostics.checks import Budget, judge, junit
from tracetax.diagnostics.overhead import Interval


def test_a_line_fails_only_when_the_lower_bound_is_over_budget() -> None:
    noisy = {
        "p99": Interval(estimate=14.0, low=-2.0, high=30.0),
        "cpu_per_request_us": Interval(estimate=25.0, low=18.0, high=32.0),
    }
    verdict = judge(Budget(p99_overhead_pct=10, cpu_overhead_pct=10), noisy, dropped_spans=0)
    lines = {line.name: line.verdict for line in verdict.lines}
    assert lines == {"p99_overhead_pct": "pass", "cpu_overhead_pct": "fail"}
    assert verdict.verdict == "fail"


def test_strict_judges_the_estimate() -> None:
    noisy = {"p99": Interval(estimate=14.0, low=-2.0, high=30.0)}
    assert judge(Budget(p99_overhead_pct=10), noisy, None, strict=True).verdict == "fail"
    assert judge(Budget(p99_overhead_pct=10), noisy, None, strict=False).verdict == "pass"


def test_unknown_values_make_an_error_not_a_pass() -> None:
    verdict = judge(Budget(max_dropped_spans=0, p99_overhead_pct=10), {"p99": Interval(estimate=None)}, None)
    assert verdict.verdict == "error"
    assert {line.verdict for line in verdict.lines} == {"unknown"}


def test_dropped_spans_line() -> None:
    assert judge(Budget(max_dropped_spans=0), {}, dropped_spans=12).verdict == "fail"
    assert judge(Budget(max_dropped_spans=100), {}, dropped_spans=12).verdict == "pass"


def test_junit_is_valid_and_marks_failures() -> None:
    verdict = judge(
        Budget(p99_overhead_pct=-50, max_dropped_spans=0),
        {"p99": Interval(estimate=1.0, low=-3.0, high=5.0)},
        dropped_spans=0,
    )
    root = ET.fromstring(junit("abc", verdict))
    assert root.tag == "testsuite"
    assert root.attrib["tests"] == "2"
    assert root.attrib["failures"] == "1"
    failed = [case.attrib["name"] for case in root.iter("testcase") if case.find("failure") is not None]
    assert failed == ["p99_overhead_pct"]
