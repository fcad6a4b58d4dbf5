"""CI overhead checks: a budget per metric, judged on the measured paired interval.

A budget is either relative ("p99 may grow by at most 10%") or absolute ("p99 may grow by at
most 2 ms"). Each line is judged on the 95% interval of the change, oriented so that positive
is worse:

- **fail** when the change is over budget beyond noise: the one-sided paired t-test of
  "change <= budget" rejects at 2.5% after Holm's correction over the check's lines, so noise
  alone fails a build at most 2.5% of the time however many lines it has;
- **pass** when the whole interval is within budget;
- **inconclusive** otherwise: the check cannot tell, and says how many rounds would.

An experiment that adds rounds until every line is conclusive passes its `SequentialDesign`:
the intervals (from `compare(..., design=...)`) and the one-sided p-values are then the
repeated ones of diagnostics/sequential.py, which stay valid however many rounds were added.

`strict` judges the point estimate instead. A value that could not be measured is `unknown`.
A check is `pass` only when every line passes, `fail` when any fails, otherwise `error`
(an inconclusive or unknown line, or a measured phase flagged for interference).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal
from xml.etree import ElementTree as ET

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats

from tracetax.diagnostics.budget_lines import BUDGET_LINE_TEXT, PIPELINE_BUDGET_FIELDS, BudgetLineText
from tracetax.diagnostics.cost import ConfigurationCost, CostInputs, Figure
from tracetax.diagnostics.overhead import (
    ALPHA,
    METRICS,
    PIPELINE_METRICS,
    SIDE_BY_SIDE_METRICS,
    Change,
    Interval,
    NoiseFloor,
    RoundSample,
    format_pct,
    format_value,
    holm,
    paired_values,
    resolution_pct,
    rounds_to_resolve,
)
from tracetax.diagnostics.sequential import SequentialDesign, repeated_one_sided_p
from tracetax.spec.inputs import InputModel

LineVerdict = Literal["pass", "fail", "inconclusive", "unknown"]
CheckVerdict = Literal["pass", "fail", "error"]


def _publish_budget_lines(schema: dict[str, Any]) -> None:
    """Budget's `x-budget-lines` in the OpenAPI: each subject's lines, in order, as people read them."""
    lines: dict[str, list[dict[str, str]]] = {"service": [], "collector": []}
    for key, text in BUDGET_LINE_TEXT.items():
        subject = "collector" if key in PIPELINE_BUDGET_FIELDS else "service"
        lines[subject].append({"key": key, **asdict(text)})
    schema["x-budget-lines"] = lines


class Budget(InputModel):
    """What the candidate may cost against the baseline; every field is optional."""

    model_config = ConfigDict(json_schema_extra=_publish_budget_lines)

    p50_overhead_pct: float | None = Field(
        default=None, gt=-100, description="Max p50 latency growth, % of the baseline."
    )
    p99_overhead_pct: float | None = Field(
        default=None, gt=-100, description="Max p99 latency growth, % of the baseline."
    )
    cpu_overhead_pct: float | None = Field(
        default=None, gt=-100, description="Max CPU-per-request growth, % of the baseline."
    )
    p50_added_ms: float | None = Field(default=None, description="Max p50 latency growth, milliseconds.")
    p99_added_ms: float | None = Field(default=None, description="Max p99 latency growth, milliseconds.")
    cpu_added_us: float | None = Field(default=None, description="Max CPU-per-request growth, microseconds.")
    max_dropped_spans: int | None = Field(default=None, ge=0, description="Max spans lost inside the SDK.")
    max_bytes_per_request: float | None = Field(
        default=None, ge=0, description="Max OTLP bytes the candidate sends per request, every signal together."
    )
    max_usd_per_month: float | None = Field(
        default=None, ge=0, description="Max $/month of the candidate at the traffic and prices in `cost`."
    )
    cost: CostInputs | None = Field(
        default=None, description="The cost model's inputs for max_usd_per_month (default: docs/cost.md's)."
    )
    # Collector pipelines (a check with subject: collector).
    cores_per_10k_overhead_pct: float | None = Field(
        default=None, gt=-100, description="Pipelines: max growth of the Collector's cores per 10k spans/s, %."
    )
    cores_per_10k_added: float | None = Field(
        default=None, description="Pipelines: max growth of the Collector's cores per 10k spans/s, cores."
    )
    rss_overhead_pct: float | None = Field(
        default=None, gt=-100, description="Pipelines: max growth of the Collector's peak RSS, %."
    )
    rss_added_mib: float | None = Field(default=None, description="Pipelines: max growth of the peak RSS, MiB.")
    max_lost_spans: int | None = Field(
        default=None, ge=0, description="Pipelines: max spans lost in the candidate pipeline over all its rounds."
    )

    def misplaced(self, allowed: Collection[str]) -> list[str]:
        """The budget fields given that are not `allowed` (a subject's budget_fields)."""
        return [name for name, value in self if value is not None and name not in allowed]


SERVICE_BUDGET_FIELDS = set(Budget.model_fields) - PIPELINE_BUDGET_FIELDS


# budget field -> (metric, relative or absolute, factor from the budget's unit to the metric's)
BUDGET_LINES: dict[str, tuple[str, Literal["relative", "absolute"], float]] = {
    "p50_overhead_pct": ("p50", "relative", 1.0),
    "p99_overhead_pct": ("p99", "relative", 1.0),
    "cpu_overhead_pct": ("cpu_per_request_us", "relative", 1.0),
    "p50_added_ms": ("p50", "absolute", 1000.0),
    "p99_added_ms": ("p99", "absolute", 1000.0),
    "cpu_added_us": ("cpu_per_request_us", "absolute", 1.0),
    "cores_per_10k_overhead_pct": ("cores_per_10k_spans_s", "relative", 1.0),
    "cores_per_10k_added": ("cores_per_10k_spans_s", "absolute", 1.0),
    "rss_overhead_pct": ("rss_max_bytes", "relative", 1.0),
    "rss_added_mib": ("rss_max_bytes", "absolute", float(2**20)),
}
# Every metric a budget line may read, services' and pipelines' (rss_max_bytes is in both).
BUDGET_METRICS = {**METRICS, **PIPELINE_METRICS}
# The count lines and the figure they read from the solo phases: spans lost inside the SDK or
# in a pipeline are what a starved core makes a queue drop, so a round flagged for foreign CPU
# still matters to them.
COUNT_LINE_METRICS = {"max_dropped_spans": "dropped_spans", "max_lost_spans": "lost_spans"}


def budget_metrics(budget: Budget) -> set[str]:
    """What the budget's lines read that foreign CPU on the measured cores could move: each
    overhead line's metric and each count line's spans lost. The volume per request and its
    $/month (max_bytes_per_request, max_usd_per_month) are left out: a slower core does not
    change what a request sends."""
    lines = {**{name: metric for name, (metric, _, _) in BUDGET_LINES.items()}, **COUNT_LINE_METRICS}
    return {metric for name, metric in lines.items() if getattr(budget, name) is not None}


class BudgetLine(BaseModel):
    name: str
    budget: float
    # The change the line reads, oriented so that positive is worse, in the budget's unit.
    measured: Interval | None
    summary: str | None = None
    p_adjusted: float | None = None
    verdict: LineVerdict
    reason: str


class Verdict(BaseModel):
    verdict: CheckVerdict
    strict: bool
    lines: list[BudgetLine]


def _budget_text(name: str, budget: float) -> str:
    kind = BUDGET_LINES.get(name, ("", "relative", 1.0))[1]
    if name.endswith("_ms"):
        return f"{budget:g} ms"
    if name.endswith("_mib"):
        return f"{budget:g} MiB"
    if name == "cores_per_10k_added":
        return f"{budget:g} cores per 10k spans/s"
    if name.endswith("_us"):
        return f"{budget:g} µs"
    return f"{budget:g}%" if kind == "relative" else f"{budget:g}"


def _one_sided_p(values: np.ndarray, budget: float, design: SequentialDesign | None = None) -> float | None:
    """p-value of "mean <= budget" against "mean > budget" (paired t, n >= 2): fixed-n, or the
    repeated one at this look of a sequential `design` (fixed-n before its first look)."""
    if values.size < 2:
        return None
    if design is not None and design.look_at(values.size) is not None:
        return repeated_one_sided_p(values, budget, design)
    sd = float(values.std(ddof=1))
    excess = float(values.mean()) - budget
    if sd == 0.0:
        return 0.0 if excess > 0 else 1.0
    return float(stats.t.sf(excess / (sd / math.sqrt(values.size)), values.size - 1))


def _oriented_values(name: str, baseline: Sequence[RoundSample], candidate: Sequence[RoundSample]) -> np.ndarray:
    """Per paired round, the worse-is-positive change in the budget's scale (log ratio or unit)."""
    metric_name, kind, factor = BUDGET_LINES[name]
    metric = BUDGET_METRICS[metric_name]
    pairs = paired_values(baseline, candidate, metric)
    sign = 1.0 if metric.higher_is_worse else -1.0
    if kind == "relative":
        pairs = [(b, c) for b, c in pairs if b > 0 and c > 0]
        return np.asarray(sign * np.log(np.asarray([c / b for b, c in pairs], dtype=float)))
    return np.asarray(sign * np.asarray([(c - b) / factor for b, c in pairs], dtype=float))


def _measured(name: str, item: Change) -> Interval:
    _, kind, factor = BUDGET_LINES[name]
    interval = item.worse_pct() if kind == "relative" else item.worse_absolute()
    if kind == "absolute":
        return Interval(
            estimate=None if interval.estimate is None else round(interval.estimate / factor, 4),
            low=None if interval.low is None else round(interval.low / factor, 4),
            high=None if interval.high is None else round(interval.high / factor, 4),
        )
    return interval


def _scaled_budget(name: str, budget: float) -> float:
    return math.log1p(budget / 100) if BUDGET_LINES[name][1] == "relative" else budget


def _overhead_line(
    name: str,
    budget: float,
    item: Change | None,
    values: np.ndarray,
    p_adjusted: float | None,
    strict: bool,
    design: SequentialDesign | None = None,
) -> BudgetLine:
    unit = _budget_text(name, budget)
    if item is None or item.absolute.estimate is None:
        why = item.note if item is not None and item.note else "no completed round of both configurations"
        return BudgetLine(name=name, budget=budget, measured=None, verdict="unknown", reason=f"not measured: {why}")
    measured = _measured(name, item)
    common = {"name": name, "budget": budget, "measured": measured, "summary": item.summary}
    if measured.estimate is None:
        return BudgetLine(**common, verdict="unknown", reason=f"no relative change: {item.note}")
    relative = BUDGET_LINES[name][1] == "relative"

    def shown(value: float) -> str:
        return format_pct(value) if relative else f"{value:+.3g}"

    decided = _strict_or_without_interval(common, measured, budget, strict, shown(measured.estimate), unit, item.note)
    if isinstance(decided, BudgetLine):
        return decided
    low, high = decided
    if p_adjusted is not None and p_adjusted < ALPHA / 2:
        return BudgetLine(
            **common,
            p_adjusted=round(p_adjusted, 6),
            verdict="fail",
            reason=f"over budget {unit}: interval {shown(low)} to {shown(high)}, "
            f"one-sided p = {p_adjusted:.4f} after Holm",
        )
    if high <= budget:
        return BudgetLine(
            **common,
            p_adjusted=None if p_adjusted is None else round(p_adjusted, 6),
            verdict="pass",
            reason=f"within budget {unit}: interval {shown(low)} to {shown(high)}",
        )
    return BudgetLine(
        **common,
        p_adjusted=None if p_adjusted is None else round(p_adjusted, 6),
        verdict="inconclusive",
        reason=f"cannot tell: interval {shown(low)} to {shown(high)} straddles budget {unit}"
        + _rounds_hint(name, budget, values, design),
    )


def _rounds_hint(name: str, budget: float, values: np.ndarray, design: SequentialDesign | None = None) -> str:
    if values.size < 2 or BUDGET_LINES[name][1] != "relative":
        return "; more rounds would narrow it"
    distance = budget - 100 * math.expm1(float(values.mean()))
    sd = float(values.std(ddof=1))
    if distance <= 0 or sd == 0:
        return "; more rounds would narrow it"
    needed = rounds_to_resolve(sd, values.size - 1, distance, design=design)
    if needed:
        return f"; about {needed} rounds would resolve it"
    if design is None:
        return "; more than 50 rounds would be needed"
    return f"; more than the {design.looks[-1]} rounds the time budget allows would be needed"


def judge(
    budget: Budget,
    changes: dict[str, Change],
    dropped_spans: float | None,
    strict: bool = False,
    baseline: Sequence[RoundSample] = (),
    candidate: Sequence[RoundSample] = (),
    flagged_rounds: Sequence[str] = (),
    lost_spans: float | None = None,
    cost: ConfigurationCost | None = None,
    design: SequentialDesign | None = None,
) -> Verdict:
    """Judge every budget line; `baseline`/`candidate` rounds give the lines' one-sided tests.
    `dropped_spans` (a service's SDK) and `lost_spans` (a pipeline's) are the candidate's
    totals over its rounds, None when unknown. With a sequential `design` (an experiment that
    adds rounds until conclusive), the one-sided tests are its repeated ones; `changes` must
    then come from `compare(..., design=design)` so that the intervals match."""
    names = [name for name in BUDGET_LINES if getattr(budget, name) is not None]
    values = {name: _oriented_values(name, baseline, candidate) for name in names}
    p_values = [_one_sided_p(values[name], _scaled_budget(name, getattr(budget, name)), design) for name in names]
    adjusted = dict(zip(names, holm(p_values), strict=True))
    lines = [
        _overhead_line(
            name,
            float(getattr(budget, name)),
            changes.get(BUDGET_LINES[name][0]),
            values[name],
            adjusted[name],
            strict,
            design,
        )
        for name in names
    ]
    if budget.max_dropped_spans is not None:
        lines.append(_count_line("max_dropped_spans", float(budget.max_dropped_spans), dropped_spans, "inside the SDK"))
    if budget.max_lost_spans is not None:
        lines.append(_count_line("max_lost_spans", float(budget.max_lost_spans), lost_spans, "in the pipeline"))
    if budget.max_bytes_per_request is not None:
        lines.append(
            _figure_line(
                "max_bytes_per_request",
                budget.max_bytes_per_request,
                cost.bytes_per_request if cost else None,
                strict,
                "B",
            )
        )
    if budget.max_usd_per_month is not None:
        lines.append(
            _figure_line(
                "max_usd_per_month", budget.max_usd_per_month, cost.usd_per_month if cost else None, strict, "$"
            )
        )
    if flagged_rounds:
        lines.append(
            BudgetLine(
                name="isolation",
                budget=0,
                measured=Interval(estimate=float(len(flagged_rounds))),
                verdict="unknown",
                reason="other processes ran on the measured cores (the service's or the lab Collector's) during: "
                + ", ".join(flagged_rounds)
                + " (see the rounds' isolation record); run the check again on a quieter machine",
            )
        )
    verdicts = {line.verdict for line in lines}
    overall: CheckVerdict = "fail" if "fail" in verdicts else "pass" if verdicts == {"pass"} else "error"
    return Verdict(verdict=overall, strict=strict, lines=lines)


def _strict_or_without_interval(
    common: dict[str, Any],
    measured: Interval,
    budget: float,
    strict: bool,
    estimate_text: str,
    budget_text: str,
    note: str | None,
) -> BudgetLine | tuple[float, float]:
    """A line decided before its interval is read: on the point estimate (strict), or unknown
    for want of an interval; otherwise the interval's bounds, which decide."""
    if strict and measured.estimate is not None:
        failed = measured.estimate > budget
        return BudgetLine(
            **common,
            verdict="fail" if failed else "pass",
            reason=f"estimate {estimate_text} {'>' if failed else '<='} budget {budget_text}",
        )
    if measured.low is None or measured.high is None:
        return BudgetLine(**common, verdict="unknown", reason=f"no interval ({note}); use more rounds or --strict")
    return measured.low, measured.high


def _figure_line(name: str, limit: float, figure: Figure | None, strict: bool, unit: str) -> BudgetLine:
    """A budget on one of the candidate's own figures (bytes per request, $/month): its mean over
    rounds and 95% interval against the limit, like an overhead line without the pairing."""

    def shown(value: float) -> str:
        return f"${value:,.2f}" if unit == "$" else f"{value:,.0f} {unit}"

    if figure is None or figure.estimate is None:
        why = figure.note if figure is not None and figure.note else "no telemetry volume read for the candidate"
        return BudgetLine(name=name, budget=limit, measured=None, verdict="unknown", reason=f"not measured: {why}")
    measured = Interval(estimate=figure.estimate, low=figure.low, high=figure.high)
    common = {"name": name, "budget": limit, "measured": measured}
    decided = _strict_or_without_interval(
        common, measured, limit, strict, shown(figure.estimate), shown(limit), figure.note
    )
    if isinstance(decided, BudgetLine):
        return decided
    low, high = decided
    interval = f"interval {shown(low)} to {shown(high)}"
    if low > limit:
        return BudgetLine(**common, verdict="fail", reason=f"over budget {shown(limit)}: {interval}")
    if high <= limit:
        return BudgetLine(**common, verdict="pass", reason=f"within budget {shown(limit)}: {interval}")
    return BudgetLine(
        **common, verdict="inconclusive", reason=f"cannot tell: {interval} straddles budget {shown(limit)}"
    )


def _count_line(name: str, limit: float, count: float | None, where: str) -> BudgetLine:
    """A budget on a count of lost spans: exact, so no interval."""
    if count is None:
        return BudgetLine(
            name=name,
            budget=limit,
            measured=None,
            verdict="unknown",
            reason=f"the spans lost {where} could not be read",
        )
    failed = count > limit
    return BudgetLine(
        name=name,
        budget=limit,
        measured=Interval(estimate=count),
        verdict="fail" if failed else "pass",
        reason=f"{count:,.0f} lost {where} {'>' if failed else '<='} budget {limit:,.0f}",
    )


def unresolvable(
    budget: Budget, floors: dict[str, NoiseFloor], rounds: int, design: SequentialDesign | None = None
) -> list[dict[str, object]]:
    """422-style errors for relative budget lines tighter than a calibration says this machine
    resolves with `rounds` rounds, each saying how many rounds would. With a sequential
    `design` (a check that adds rounds until conclusive), `rounds` should be its last look:
    the resolution is then the repeated interval's there."""
    errors: list[dict[str, object]] = []
    for name, (metric, kind, _) in BUDGET_LINES.items():
        value = getattr(budget, name)
        floor = floors.get(metric)
        if value is None or kind != "relative" or floor is None or floor.sd_log is None:
            continue
        resolution = resolution_pct(floor.sd_log, floor.df, rounds, design)
        if resolution is None or value >= resolution:
            continue
        needed = rounds_to_resolve(floor.sd_log, floor.df, value, design=design)
        most = 50 if design is None else design.looks[-1]
        advice = f"about {needed} rounds would resolve it" if needed else f"no number of rounds up to {most} would"
        # A side-by-side figure's spread is mostly what differs between two fresh processes,
        # which pooled instances average out (docs/diagnostics.md); a longer phase does not.
        other = (
            "or pool more instances side by side (load.side_by_side_instances)"
            if metric in SIDE_BY_SIDE_METRICS
            else "or use a longer phase"
        )
        errors.append(
            {
                "loc": ("budget", name),
                "msg": f"budget {value:g}% is tighter than this machine resolves for {floor.label} with {rounds} "
                f"rounds at this load (noise floor ±{resolution:.1f}%, from the calibration); {advice}, {other}",
            }
        )
    return errors


@dataclass(frozen=True)
class JunitCase:
    """A test case beside the budget lines' (a judgement against history): its outcome is a
    JUnit failure, error, skip or pass (system-out)."""

    classname: str
    name: str
    outcome: Literal["pass", "failure", "error", "skipped"]
    message: str
    detail: str = ""


def junit(check_id: str, verdict: Verdict, error: str | None = None, extra: Sequence[JunitCase] = ()) -> str:
    """JUnit XML: one test case per budget line (failures, and inconclusive or unknown lines as
    errors), then the `extra` cases."""
    suite = ET.Element(
        "testsuite",
        name=f"tracetax check {check_id}",
        tests=str(len(verdict.lines) + len(extra)),
        failures=str(
            sum(line.verdict == "fail" for line in verdict.lines) + sum(case.outcome == "failure" for case in extra)
        ),
        errors=str(
            sum(line.verdict in ("unknown", "inconclusive") for line in verdict.lines)
            + sum(c.outcome == "error" for c in extra)
            + (1 if error else 0)
        ),
        skipped=str(sum(c.outcome == "skipped" for c in extra)),
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=verdict.verdict)
    ET.SubElement(properties, "property", name="strict", value=str(verdict.strict).lower())
    for line in verdict.lines:
        case = ET.SubElement(suite, "testcase", classname="tracetax.budget", name=line.name)
        detail = line.summary or "not measured"
        if line.verdict == "fail":
            ET.SubElement(case, "failure", message=line.reason).text = detail
        elif line.verdict in ("unknown", "inconclusive"):
            ET.SubElement(case, "error", message=line.reason).text = detail
        else:
            ET.SubElement(case, "system-out").text = f"{line.reason}; {detail}"
    for extra_case in extra:
        case = ET.SubElement(suite, "testcase", classname=extra_case.classname, name=extra_case.name)
        if extra_case.outcome == "pass":
            ET.SubElement(case, "system-out").text = f"{extra_case.message}; {extra_case.detail}".rstrip("; ")
        else:
            ET.SubElement(case, extra_case.outcome, message=extra_case.message).text = extra_case.detail
    if error:
        case = ET.SubElement(suite, "testcase", classname="tracetax.check", name="run")
        ET.SubElement(case, "error", message=error)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)


__all__ = [
    "BUDGET_LINE_TEXT",
    "Budget",
    "BudgetLine",
    "BudgetLineText",
    "JunitCase",
    "Verdict",
    "format_value",
    "judge",
    "junit",
    "unresolvable",
]
