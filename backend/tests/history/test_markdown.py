"""The check's Markdown report against a golden file, and its pieces."""

from __future__ import annotations

from pathlib import Path

from tracetax.diagnostics.checks import BudgetLine, Verdict
from tracetax.diagnostics.overhead import Interval
from tracetax.history.gate import HistoryJudgement
from tracetax.history.markdown import CheckReport, LedgerLoss, check_markdown, sparkline
from tracetax.history.metrics import HistoryMetricText

GOLDEN = Path(__file__).parent / "golden" / "check_report.md"
# How the subjects name the report's metrics (app/ hands the texts down from the registry).
TEXTS = {
    "cpu_per_request_us": HistoryMetricText("CPU per request overhead", "pct", "cpu_overhead_pct"),
    "p99": HistoryMetricText("p99 latency overhead", "pct", "p99_overhead_pct"),
    "bytes_per_request": HistoryMetricText("OTLP bytes per request", "bytes", "max_bytes_per_request"),
}


def _report() -> CheckReport:
    verdict = Verdict(
        verdict="fail",
        strict=False,
        lines=[
            BudgetLine(
                name="cpu_overhead_pct",
                budget=5.0,
                measured=Interval(estimate=9.1, low=6.0, high=12.2),
                summary="+4.1 µs CPU per request (+2.7 µs to +5.5 µs), +9.1% — worse",
                p_adjusted=0.0004,
                verdict="fail",
                reason="over budget 5%: interval +6.0% to +12.2%, one-sided p = 0.0004 after Holm",
            ),
            BudgetLine(
                name="p99_added_ms",
                budget=2.0,
                measured=Interval(estimate=0.41, low=-0.2, high=1.02),
                verdict="pass",
                reason="within budget 2 ms: interval -0.2 to +1.02",
            ),
            BudgetLine(
                name="max_bytes_per_request",
                budget=2000.0,
                measured=None,
                verdict="unknown",
                reason="not measured: no telemetry volume read for the candidate",
            ),
        ],
    )
    history = [
        HistoryJudgement(
            metric="cpu_per_request_us",
            verdict="fail",
            growth=8.9,
            low=5.6,
            high=12.2,
            points=10,
            reason="CPU per request overhead grew by +8.9 points (+5.6 to +12.2) against the last 10 points "
            "of main; limit +5.0: over it beyond noise",
        ),
        HistoryJudgement(
            metric="p99",
            verdict="pass",
            growth=0.3,
            low=-1.1,
            high=1.7,
            points=10,
            reason="p99 latency overhead grew by +0.3 points (\u22121.1 to +1.7) against the last 10 points of main; "
            "limit +5.0: within it",
        ),
    ]
    return CheckReport(
        check_id="chk_0123456789",
        service="checkout",
        baseline="none",
        candidate="batch-default",
        verdict=verdict,
        provenance={
            "repository": "acme/shop",
            "branch": "feature/<spans>|fast",
            "commit": "1a2b3c4d5e6f7a8b9c0d",
            "pull_request": "42",
            "ci_run_url": "https://github.com/acme/shop/actions/runs/123 (attempt 2)",
            "ci_system": "github",
        },
        machine="f3c9a1",
        history=history,
        losses=[
            LedgerLoss(stage="sdk_dropped", spans=0.0),
            LedgerLoss(stage="collector_refused", spans=12.0),
            LedgerLoss(stage="store_missing", spans=None, note="Tempo was not queried"),
        ],
        usd_per_month=Interval(estimate=12.5, low=8.25, high=16.75),
        requests_per_s=100.0,
        trends={
            "cpu_per_request_us": [1.0, 1.2, 0.9, 1.1, None, 1.0, 9.8, 10.1],
            "p99": [0.5, 0.5, 0.5],
            "bytes_per_request": [],
        },
        metric_texts=TEXTS,
        check_url="http://tracetax.local/checks/chk_0123456789",
        history_url="http://tracetax.local/history?service=checkout&configuration=batch-default",
        flamegraph_diff_url="http://tracetax.local/experiments/exp_1/stacks/candidate/diff?against=baseline",
    )


def test_the_report_matches_the_golden_file() -> None:
    # Regenerate after an intended change: python -c "..." writing check_markdown(_report()) to GOLDEN.
    assert check_markdown(_report()) == GOLDEN.read_text(encoding="utf-8")


def test_a_report_without_verdict_history_or_links_still_reads() -> None:
    text = check_markdown(
        CheckReport(check_id="c", service="s", baseline="none", candidate="x", verdict=None, error="the run failed")
    )
    assert text.startswith("**TraceTax check: error**\n")
    assert "provenance not recorded" in text
    assert "> Error: the run failed" in text
    assert "No budget line was judged." in text
    assert "**Spans lost:** not read for this check." in text
    assert "**Δ$/month**: unknown" in text
    assert "against history" not in text


def test_the_title_leads_with_the_verdict_the_exit_code_carries() -> None:
    passed = Verdict(verdict="pass", strict=False, lines=[])
    judged = _report().history  # one metric failing against history, one passing
    text = check_markdown(
        CheckReport(check_id="c", service="s", baseline="b", candidate="c", verdict=passed, history=judged)
    )
    assert text.startswith("**TraceTax check: fail** · same run: **pass** · against history: 1 fail, 1 pass\n")
    first = [HistoryJudgement("p99", "no_history", None, None, None, 0, "no earlier point")]
    text = check_markdown(
        CheckReport(check_id="c", service="s", baseline="b", candidate="c", verdict=passed, history=first)
    )
    assert text.startswith("**TraceTax check: pass** · same run: **pass** · against history: 1 no history\n")


def test_sparkline_spans_the_known_range_and_leaves_unknowns_as_gaps() -> None:
    assert sparkline([0.0, 7.0]) == "▁█"
    assert sparkline([1.0, None, 2.0]) == "▁·█"
    assert sparkline([3.0, 3.0]) == "▄▄"
    assert sparkline([None]) == "·"
    assert sparkline([]) == ""


def test_outside_text_cannot_break_a_table_or_inject_html() -> None:
    verdict = Verdict(
        verdict="error",
        strict=False,
        lines=[
            BudgetLine(
                name="isolation",
                budget=0,
                measured=Interval(estimate=2.0),
                verdict="unknown",
                reason="other processes ran | <script>x</script>\nduring: round 1",
            )
        ],
    )
    text = check_markdown(CheckReport(check_id="c", service="s", baseline="b", candidate="c", verdict=verdict))
    row = next(line for line in text.splitlines() if line.startswith("| Isolation"))
    assert "\\| &lt;script&gt;x&lt;/script&gt; during: round 1 |" in row
    assert "<script>" not in text
