"""CI overhead checks: a budget per metric, judged on the measured interval.

A line fails only when its interval's lower bound is over budget, so noise alone never fails
a build; `strict` judges the point estimate instead. A line whose value could not be measured
or read is `unknown`, and makes the whole check an error rather than a pass.
"""

from __future__ import annotations

from typing import Literal
from xml.etree import ElementTree as ET

from pydantic import BaseModel, Field

from tracetax.diagnostics.overhead import Interval

LineVerdict = Literal["pass", "fail", "unknown"]
CheckVerdict = Literal["pass", "fail", "error"]


class Budget(BaseModel):
    p99_overhead_pct: float | None = Field(default=None, description="Max p99 latency overhead, % of the baseline.")
    cpu_overhead_pct: float | None = Field(default=None, description="Max CPU-per-request overhead, % of the baseline.")
    max_dropped_spans: int | None = Field(default=None, ge=0, description="Max spans dropped inside the SDK.")


class BudgetLine(BaseModel):
    name: str
    budget: float
    measured: Interval | None
    verdict: LineVerdict
    reason: str


class Verdict(BaseModel):
    verdict: CheckVerdict
    strict: bool
    lines: list[BudgetLine]


def _overhead_line(name: str, budget: float, measured: Interval | None, strict: bool) -> BudgetLine:
    if measured is None or measured.estimate is None:
        note = measured.note if measured else None
        return BudgetLine(
            name=name,
            budget=budget,
            measured=measured,
            verdict="unknown",
            reason=f"not measured{': ' + note if note else ''}",
        )
    if strict:
        judged, what = measured.estimate, "estimate"
    elif measured.low is not None:
        judged, what = measured.low, "interval lower bound"
    else:
        return BudgetLine(
            name=name,
            budget=budget,
            measured=measured,
            verdict="unknown",
            reason=f"no interval ({measured.note}); use --strict or more rounds",
        )
    failed = judged > budget
    return BudgetLine(
        name=name,
        budget=budget,
        measured=measured,
        verdict="fail" if failed else "pass",
        reason=f"{what} {judged:+.2f}% {'>' if failed else '<='} budget {budget:g}%",
    )


def judge(budget: Budget, overhead: dict[str, Interval], dropped_spans: float | None, strict: bool = False) -> Verdict:
    lines = []
    if budget.p99_overhead_pct is not None:
        lines.append(_overhead_line("p99_overhead_pct", budget.p99_overhead_pct, overhead.get("p99"), strict))
    if budget.cpu_overhead_pct is not None:
        lines.append(
            _overhead_line("cpu_overhead_pct", budget.cpu_overhead_pct, overhead.get("cpu_per_request_us"), strict)
        )
    if budget.max_dropped_spans is not None:
        limit = float(budget.max_dropped_spans)
        if dropped_spans is None:
            lines.append(
                BudgetLine(
                    name="max_dropped_spans",
                    budget=limit,
                    measured=None,
                    verdict="unknown",
                    reason="the SDK's dropped-span count could not be read",
                )
            )
        else:
            failed = dropped_spans > limit
            lines.append(
                BudgetLine(
                    name="max_dropped_spans",
                    budget=limit,
                    measured=Interval(estimate=dropped_spans),
                    verdict="fail" if failed else "pass",
                    reason=f"{dropped_spans:,.0f} dropped {'>' if failed else '<='} budget {limit:,.0f}",
                )
            )
    verdicts = {line.verdict for line in lines}
    overall: CheckVerdict = "fail" if "fail" in verdicts else "error" if "unknown" in verdicts or not lines else "pass"
    return Verdict(verdict=overall, strict=strict, lines=lines)


def junit(check_id: str, verdict: Verdict, error: str | None = None) -> str:
    """JUnit XML: one test case per budget line (failures and unknowns marked)."""
    suite = ET.Element(
        "testsuite",
        name=f"tracetax check {check_id}",
        tests=str(len(verdict.lines)),
        failures=str(sum(line.verdict == "fail" for line in verdict.lines)),
        errors=str(sum(line.verdict == "unknown" for line in verdict.lines) + (1 if error else 0)),
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=verdict.verdict)
    ET.SubElement(properties, "property", name="strict", value=str(verdict.strict).lower())
    for line in verdict.lines:
        case = ET.SubElement(suite, "testcase", classname="tracetax.budget", name=line.name)
        measured = line.measured
        detail = (
            f"estimate {measured.estimate}, 95% interval [{measured.low}, {measured.high}]"
            if measured
            else "not measured"
        )
        if line.verdict == "fail":
            ET.SubElement(case, "failure", message=line.reason).text = detail
        elif line.verdict == "unknown":
            ET.SubElement(case, "error", message=line.reason).text = detail
        else:
            ET.SubElement(case, "system-out").text = f"{line.reason}; {detail}"
    if error:
        case = ET.SubElement(suite, "testcase", classname="tracetax.check", name="run")
        ET.SubElement(case, "error", message=error)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)
