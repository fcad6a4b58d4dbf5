"""A check's report in GitHub-flavoured Markdown, for `$GITHUB_STEP_SUMMARY` or a PR comment
(`tracetax check --markdown FILE`, `GET /api/v1/checks/{id}?format=markdown`).

It reads top to bottom as a reviewer asks: the verdict (the same-run one and, when the check
gates on history, the one against history), where the run comes from, one row per budget line
(limit, measured change with its 95% interval, verdict, reason), the judgements against
history, the spans the ledger saw lost, Δ$/month at the check's rate, a trend per metric as an
inline sparkline, and the links (the check, the History page, the flame-graph diff).

Text that comes from outside (names, reasons, provenance) is escaped for table cells and code
spans, and `<` / `>` are written as entities, so a branch name cannot inject Markdown or HTML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from tracetax.diagnostics.budget_lines import BUDGET_LINE_TEXT, BudgetUnit
from tracetax.diagnostics.checks import BudgetLine, Verdict
from tracetax.diagnostics.overhead import Interval
from tracetax.history.gate import HistoryJudgement, history_verdict_counts, overall_verdict
from tracetax.history.metrics import MINUS, HistoryMetricText, format_level

SPARK_BARS = "▁▂▃▄▅▆▇█"
SPARK_UNKNOWN = "·"  # an unknown point is a gap, never the lowest bar (unknown is not zero)
SHORT_COMMIT = 7
ESCAPED_PIPE = "\\|"


@dataclass(frozen=True)
class LedgerLoss:
    """Spans the ledger saw lost at one stage of the candidate's pipeline, over its rounds."""

    stage: str  # the ledger's stage: "sdk_dropped", "collector_refused", ...
    spans: float | None  # None: unknown
    note: str | None = None  # why unknown


@dataclass(frozen=True)
class CheckReport:
    check_id: str
    service: str
    baseline: str  # configuration names
    candidate: str
    verdict: Verdict | None  # None: the check has no verdict (it failed to run, or is not done)
    provenance: Mapping[str, str | None] = field(default_factory=dict)  # Provenance's fields
    machine: str | None = None  # the machine fingerprint
    error: str | None = None
    history: Sequence[HistoryJudgement] = ()
    losses: Sequence[LedgerLoss] = ()
    usd_per_month: Interval | None = None  # the candidate's Δ$/month against the baseline
    requests_per_s: float | None = None  # the rate the cost is computed at
    trends: Mapping[str, Sequence[float | None]] = field(default_factory=dict)  # metric -> recent, oldest first
    # How the metrics of `history` and `trends` are named for people; a metric without a text
    # shows its name (and a trend's latest value unformatted).
    metric_texts: Mapping[str, HistoryMetricText] = field(default_factory=dict)
    check_url: str | None = None
    history_url: str | None = None
    flamegraph_diff_url: str | None = None


def sparkline(values: Sequence[float | None]) -> str:
    """One bar per value between the known values' min and max (a flat series is mid-height);
    an unknown value is a dot."""
    known = [value for value in values if value is not None]
    if not known:
        return SPARK_UNKNOWN * len(values)
    low, high = min(known), max(known)
    top = len(SPARK_BARS) - 1

    def bar(value: float | None) -> str:
        if value is None:
            return SPARK_UNKNOWN
        if high == low:
            return SPARK_BARS[top // 2]
        return SPARK_BARS[round((value - low) / (high - low) * top)]

    return "".join(bar(value) for value in values)


def _text(value: str) -> str:
    """Outside text made inert: no HTML, no table break, one line."""
    return " ".join(value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").split())


def _cell(value: str) -> str:
    return _text(value).replace("|", ESCAPED_PIPE)


def _code(value: str, in_table: bool = False) -> str:
    # A code span shows its text literally (no HTML, no entities): only backticks and line
    # breaks could break out of it, and in a table cell a pipe (GFM reads `\|` there, even in
    # a code span, as a literal pipe; elsewhere it would show the backslash).
    inert = " ".join(value.replace("`", "'").split())
    return f"`{inert.replace('|', ESCAPED_PIPE) if in_table else inert}`"


URL_SAFE = ":/?#[]@!$&'*+,;=%~-._"  # kept as is; spaces, parentheses and the rest are percent-encoded


def _link(label: str, url: str) -> str:
    return f"[{label}]({quote(url, safe=URL_SAFE)})"


def _signed(value: float, text: str) -> str:
    return ("+" if value > 0 else MINUS if value < 0 else "±") + text


def _amount(value: float, unit: BudgetUnit | None, signed: bool) -> str:
    """A value in a budget's unit: "+4.1%", "+1.02 ms", "+12 µs", "1,204 B", "$41.20"."""
    magnitude = abs(value) if signed else value
    shown = {
        "pct": f"{magnitude:.1f}%",
        "ms": f"{magnitude:.3g} ms",
        "us": f"{magnitude:.3g} µs",
        "spans": f"{magnitude:,.0f}",
        "bytes": f"{magnitude:,.0f} B",
        "usd": f"${magnitude:,.2f}",
        "cores": f"{magnitude:.3g} cores",
        "mib": f"{magnitude:.3g} MiB",
    }.get(unit or "", f"{magnitude:g}")
    return _signed(value, shown) if signed else shown


def _limit(value: float, unit: BudgetUnit | None) -> str:
    """A budget as it was given: "5%", "2 ms", "300 µs", "2,000 B", "$40.00"."""
    return {
        "pct": f"{value:g}%",
        "ms": f"{value:g} ms",
        "us": f"{value:g} µs",
        "spans": f"{value:,.0f}",
        "bytes": f"{value:,.0f} B",
        "usd": f"${value:,.2f}",
        "cores": f"{value:g} cores",
        "mib": f"{value:g} MiB",
    }.get(unit or "", f"{value:g}")


def _interval(measured: Interval | None, unit: BudgetUnit | None, signed: bool) -> str:
    if measured is None or measured.estimate is None:
        return "unknown"
    text = _amount(measured.estimate, unit, signed)
    if measured.low is not None and measured.high is not None:
        text += f" ({_amount(measured.low, unit, signed)} to {_amount(measured.high, unit, signed)})"
    return text


def _budget_row(line: BudgetLine) -> str:
    text = BUDGET_LINE_TEXT.get(line.name)
    unit = text.unit if text else None
    label = text.label if text else line.name.replace("_", " ").capitalize()
    # Counts and the candidate's own figures are levels, not changes: no sign.
    signed = unit not in ("spans", "bytes", "usd")
    limit = _limit(line.budget, unit) if text else "none"
    cells = [label, limit, _interval(line.measured, unit, signed), line.verdict, line.reason]
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def _title(report: CheckReport) -> str:
    """The check's overall verdict (the CLI's exit code), then, when it gates on history, the
    same-run verdict and how many metrics each judgement against history has."""
    same_run = report.verdict.verdict if report.verdict else "error"
    verdicts = [judgement.verdict for judgement in report.history]
    title = f"**TraceTax check: {overall_verdict(same_run, verdicts)}**"
    if verdicts:
        counts = [f"{count} {level.replace('_', ' ')}" for level, count in history_verdict_counts(verdicts)]
        title += f" · same run: **{same_run}** · against history: {', '.join(counts)}"
    return title


def _provenance(report: CheckReport) -> str:
    given = report.provenance
    parts = [f"{_code(report.service)}: {_code(report.candidate)} against {_code(report.baseline)}"]
    if given.get("repository"):
        parts.append(f"repository {_code(str(given['repository']))}")
    if given.get("branch"):
        parts.append(f"branch {_code(str(given['branch']))}")
    if given.get("commit"):
        parts.append(f"commit {_code(str(given['commit'])[:SHORT_COMMIT])}")
    if given.get("pull_request"):
        parts.append(f"PR #{_text(str(given['pull_request']).lstrip('#'))}")
    if given.get("ci_run_url"):
        parts.append(_link("CI run", str(given["ci_run_url"])))
    if report.machine:
        parts.append(f"machine {_code(report.machine)}")
    if len(parts) == 1:
        parts.append("provenance not recorded")
    return " · ".join(parts)


def _budget_table(verdict: Verdict | None) -> list[str]:
    if verdict is None or not verdict.lines:
        return ["No budget line was judged."]
    header = ["| Budget line | Limit | Measured (95% interval) | Verdict | Reason |", "|---|---|---|---|---|"]
    return header + [_budget_row(line) for line in verdict.lines]


def _history_table(report: CheckReport) -> list[str]:
    if not report.history:
        return []
    rows = [
        "| "
        + " | ".join(_cell(cell) for cell in (_label(report, j.metric), j.verdict.replace("_", " "), j.reason))
        + " |"
        for j in report.history
    ]
    return ["#### Against history", "", "| Metric | Verdict | Reason |", "|---|---|---|", *rows]


def _label(report: CheckReport, metric: str) -> str:
    text = report.metric_texts.get(metric)
    return text.label if text else metric


def _losses(losses: Sequence[LedgerLoss]) -> list[str]:
    if not losses:
        return ["**Spans lost:** not read for this check."]
    rows = []
    for loss in losses:
        lost = f"{loss.spans:,.0f}" if loss.spans is not None else "unknown" + (f" ({loss.note})" if loss.note else "")
        rows.append(f"| {_code(loss.stage, in_table=True)} | {_cell(lost)} |")
    return [
        "**Spans lost** (the candidate's ledger, over its rounds):",
        "",
        "| Stage | Spans lost |",
        "|---|---|",
        *rows,
    ]


def _cost(report: CheckReport) -> str:
    rate = f" at {report.requests_per_s:,.0f} requests/s" if report.requests_per_s is not None else ""
    return f"**Δ$/month**{rate}: {_interval(report.usd_per_month, 'usd', signed=True)}"


def _trends(report: CheckReport) -> list[str]:
    rows = []
    for metric, values in report.trends.items():
        latest = values[-1] if values else None
        text = report.metric_texts.get(metric)
        shown = "unknown" if latest is None else format_level(latest, text.unit) if text else f"{latest:g}"
        trend = f"`{sparkline(values)}`" if values else "no points"
        rows.append(f"| {_cell(_label(report, metric))} | {trend} | {_cell(shown)} |")
    if not rows:
        return []
    return ["#### Trend (oldest → newest)", "", "| Metric | Trend | Latest |", "|---|---|---|", *rows]


def _links(report: CheckReport) -> str | None:
    links = [
        _link(label, url)
        for label, url in (
            ("Check", report.check_url),
            ("History page", report.history_url),
            ("Flame-graph diff", report.flamegraph_diff_url),
        )
        if url
    ]
    return " · ".join(links) if links else None


def check_markdown(report: CheckReport) -> str:
    """The report as GitHub-flavoured Markdown (ends with a newline)."""
    blocks: list[list[str]] = [[_title(report)], [_provenance(report)]]
    if report.error:
        blocks.append([f"> Error: {_text(report.error)}"])
    blocks.append(_budget_table(report.verdict))
    blocks.append(_history_table(report))
    blocks.append(_losses(report.losses))
    blocks.append([_cost(report)])
    blocks.append(_trends(report))
    links = _links(report)
    if links:
        blocks.append([links])
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"


__all__ = ["CheckReport", "LedgerLoss", "check_markdown", "sparkline"]
