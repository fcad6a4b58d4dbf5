"""`tracetax check`: a CI overhead check against a running TraceTax, through its API.

Exit codes: 0 pass, 1 fail (a budget line over budget, or an overhead grown beyond
--against-history's allowance), 2 error (bad input, TraceTax unreachable, the experiment
failed, a value that could not be measured, or a judgement against history that cannot tell).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
import yaml

from tracetax.app.check_commands import CLI_MAX_THROUGHPUT_S, CLI_WARMUP_S, configuration_of, variant_of
from tracetax.cli.api import ApiAnswerError, answer, api_client, refusal
from tracetax.cli.provenance import (
    BranchOption,
    CiRunUrlOption,
    CommitOption,
    ProvenanceFlags,
    PullRequestOption,
    RepositoryOption,
)
from tracetax.diagnostics.budget_lines import BUDGET_LINE_TEXT
from tracetax.spec.provenance import HistoryGate

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def _flag(line: str) -> str:
    """A budget line's option, as the UI's commands spell it too (diagnostics/budget_lines.py)."""
    return BUDGET_LINE_TEXT[line].flag


def pipeline_request(
    baseline: str,
    candidate: str,
    spans_per_s: float,
    duration: float,
    rounds: int,
    budget: dict[str, Any],
    strict: bool,
) -> dict[str, Any]:
    return {
        "subject": "collector",
        "baseline": variant_of(baseline),
        "candidate": variant_of(candidate),
        "load": {"spans_per_s": spans_per_s, "warmup_s": CLI_WARMUP_S, "duration_s": duration},
        "rounds": rounds,
        "budget": budget,
        "strict": strict,
    }


def _request(
    spec: Path | None,
    service: str | None,
    baseline: str,
    candidate: str,
    candidate_env: list[str],
    rate: float,
    duration: float,
    rounds: int,
    iters: int,
    spans: int,
    side_by_side_instances: int,
    budget: dict[str, Any],
    strict: bool,
) -> dict[str, Any]:
    if spec is not None:
        body: dict[str, Any] = yaml.safe_load(spec.read_text())
        body.setdefault("strict", strict)
        return body
    if service is None:
        raise typer.BadParameter("give --service (a demo service language) or a --spec file", param_hint="--service")
    return {
        "service": {"kind": "demo", "language": service},
        "baseline": configuration_of(baseline, []),
        "candidate": configuration_of(candidate, candidate_env),
        "load": {
            "rate": rate,
            "warmup_s": CLI_WARMUP_S,
            "duration_s": duration,
            "max_throughput_s": CLI_MAX_THROUGHPUT_S,
            "side_by_side_instances": side_by_side_instances,
            "query": {"iters": iters, "spans": spans},
        },
        "rounds": rounds,
        "budget": budget,
        "strict": strict,
    }


def history_gate(text: str, max_growth_pct: float) -> dict[str, Any]:
    """`--against-history BRANCH:N` with its growth allowed, as the request's `against_history`."""
    try:
        return HistoryGate.parse(text, max_growth_pct).model_dump(mode="json")
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--against-history") from None


def _error(message: str) -> typer.Exit:
    typer.echo(f"tracetax check: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def overall_verdict(status: dict[str, Any]) -> str:
    """The check's verdict with its judgements against history, as the server combined them
    (CheckStatus.overall); an older server without the field: combined here by the same rule
    (history.gate.overall_verdict)."""
    overall = status.get("overall")
    if isinstance(overall, str):
        return overall
    from tracetax.history import gate  # an older server only: the statistics are the server's

    history = (judgement["verdict"] for judgement in status.get("history") or [])
    return gate.overall_verdict(status["verdict"]["verdict"], history)


def exit_code(status: dict[str, Any]) -> int:
    """0 pass, 1 fail (the same run or against history), 2 error."""
    return {"pass": EXIT_PASS, "fail": EXIT_FAIL}.get(overall_verdict(status), EXIT_ERROR)


def _write_markdown(http: httpx.Client, check_id: str, path: Path) -> None:
    """The finished check's Markdown summary (the API's format=markdown) into `path`."""
    response = http.get(f"/api/v1/checks/{check_id}", params={"format": "markdown"})
    if response.status_code != 200:
        raise _error(f"reading check {check_id} as Markdown failed ({refusal(response)})")
    path.write_text(response.text, encoding="utf-8")


def _await_verdict(http: httpx.Client, check_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            status = answer(http.get(f"/api/v1/checks/{check_id}"))
        except ApiAnswerError as error:
            raise _error(f"reading check {check_id} failed ({error})") from None
        if status.get("verdict") is not None:
            return status
        if time.monotonic() > deadline:
            raise _error(f"no verdict after {timeout:.0f} s (status {status.get('status')})")
        time.sleep(2)


def register(app: typer.Typer) -> None:
    @app.command("check")
    def check(
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
        spec: Annotated[
            Path | None, typer.Option(exists=True, dir_okay=False, help="Check request (YAML/JSON).")
        ] = None,
        service: Annotated[str | None, typer.Option(help="Demo service language, e.g. go.")] = None,
        collector: Annotated[
            bool, typer.Option(help="Check a Collector pipeline: --baseline/--candidate name variants or overlays.")
        ] = False,
        baseline: Annotated[
            str | None,
            typer.Option(
                help="Baseline: a preset or processor (default none); with --collector a variant "
                "or overlay file (default passthrough)."
            ),
        ] = None,
        candidate: Annotated[
            str, typer.Option(help="Candidate: a preset or processor; with --collector a variant or overlay file.")
        ] = "batch-default",
        candidate_env: Annotated[list[str], typer.Option("--candidate-env", help="OTEL_*=value override.")] = [],  # noqa: B006
        rate: Annotated[float, typer.Option(help="Open-model rate, req/s.")] = 200,
        duration: Annotated[float, typer.Option(help="Measured seconds per round.")] = 10,
        rounds: Annotated[int, typer.Option(help="Interleaved rounds.")] = 5,
        iters: Annotated[int, typer.Option(help="CPU work per request.")] = 1000,
        spans: Annotated[int, typer.Option(help="Spans per request.")] = 5,
        side_by_side_instances: Annotated[
            int,
            typer.Option(
                min=1,
                max=4,
                help="Live instances of each configuration in the side-by-side phase, pooled: narrows CPU per "
                "request, RSS and p50 at that many times the load (as in the calibration it is held to).",
            ),
        ] = 1,
        spans_per_s: Annotated[float, typer.Option(help="--collector: constant span rate.")] = 5000,
        p50_overhead_pct: Annotated[
            float | None, typer.Option(_flag("p50_overhead_pct"), help="Budget: p50 growth, %.")
        ] = None,
        p99_overhead_pct: Annotated[
            float | None, typer.Option(_flag("p99_overhead_pct"), help="Budget: p99 growth, %.")
        ] = None,
        cpu_overhead_pct: Annotated[
            float | None, typer.Option(_flag("cpu_overhead_pct"), help="Budget: CPU per request growth, %.")
        ] = None,
        p50_added_ms: Annotated[
            float | None, typer.Option(_flag("p50_added_ms"), help="Budget: p50 growth, ms.")
        ] = None,
        p99_added_ms: Annotated[
            float | None, typer.Option(_flag("p99_added_ms"), help="Budget: p99 growth, ms.")
        ] = None,
        cpu_added_us: Annotated[
            float | None, typer.Option(_flag("cpu_added_us"), help="Budget: CPU per request growth, µs.")
        ] = None,
        max_dropped_spans: Annotated[
            int | None, typer.Option(_flag("max_dropped_spans"), help="Budget: spans lost in the SDK.")
        ] = None,
        max_bytes_per_request: Annotated[
            float | None,
            typer.Option(
                _flag("max_bytes_per_request"), help="Budget: OTLP bytes the candidate sends per request, all signals."
            ),
        ] = None,
        max_usd_per_month: Annotated[
            float | None,
            typer.Option(
                _flag("max_usd_per_month"), help="Budget: the candidate's $/month at --cost-rate (docs/cost.md)."
            ),
        ] = None,
        cost_rate: Annotated[
            float | None, typer.Option(help="Your request rate for --max-usd-per-month, req/s (default 100).")
        ] = None,
        cores_per_10k_overhead_pct: Annotated[
            float | None,
            typer.Option(
                _flag("cores_per_10k_overhead_pct"), help="--collector budget: growth of cores per 10k spans/s, %."
            ),
        ] = None,
        cores_per_10k_added: Annotated[
            float | None,
            typer.Option(
                _flag("cores_per_10k_added"), help="--collector budget: growth of cores per 10k spans/s, cores."
            ),
        ] = None,
        rss_overhead_pct: Annotated[
            float | None, typer.Option(_flag("rss_overhead_pct"), help="--collector budget: peak RSS growth, %.")
        ] = None,
        rss_added_mib: Annotated[
            float | None, typer.Option(_flag("rss_added_mib"), help="--collector budget: peak RSS growth, MiB.")
        ] = None,
        max_lost_spans: Annotated[
            int | None, typer.Option(_flag("max_lost_spans"), help="--collector budget: spans lost.")
        ] = None,
        strict: Annotated[
            bool, typer.Option(help="Fail on the point estimate, not the interval's lower bound.")
        ] = False,
        junit: Annotated[Path | None, typer.Option(help="Write the verdict as JUnit XML here.")] = None,
        markdown: Annotated[
            Path | None,
            typer.Option(
                help="Write a GitHub-flavoured Markdown summary here (e.g. $GITHUB_STEP_SUMMARY, a PR comment)."
            ),
        ] = None,
        timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 3600,
        max_wall_time: Annotated[
            float | None,
            typer.Option(
                help="Buy rounds while a line is inconclusive: after --rounds, add rounds until every line is "
                "conclusive or this many seconds of measurement are spent (services)."
            ),
        ] = None,
        sample_stacks: Annotated[
            bool,
            typer.Option(
                help="Sample the service's stacks: the summary then links the differential flame graph of where "
                "the added cost went (services)."
            ),
        ] = False,
        repository: RepositoryOption = None,
        branch: BranchOption = None,
        commit: CommitOption = None,
        pull_request: PullRequestOption = None,
        ci_run_url: CiRunUrlOption = None,
        against_history: Annotated[
            str | None,
            typer.Option(
                metavar="BRANCH:N",
                help="Also gate against the last N checks of BRANCH (same service, configuration and machine), "
                "e.g. main:10.",
            ),
        ] = None,
        history_max_growth_pct: Annotated[
            float,
            typer.Option(help="--against-history: the overhead growth allowed against the history, in % points."),
        ] = 5.0,
    ) -> None:
        """Run a CI overhead check; exit 0 pass, 1 fail, 2 error."""
        budget = {
            key: value
            for key, value in (
                ("p50_overhead_pct", p50_overhead_pct),
                ("p99_overhead_pct", p99_overhead_pct),
                ("cpu_overhead_pct", cpu_overhead_pct),
                ("p50_added_ms", p50_added_ms),
                ("p99_added_ms", p99_added_ms),
                ("cpu_added_us", cpu_added_us),
                ("max_dropped_spans", max_dropped_spans),
                ("max_bytes_per_request", max_bytes_per_request),
                ("max_usd_per_month", max_usd_per_month),
                ("cost", None if cost_rate is None else {"requests_per_s": cost_rate}),
                ("cores_per_10k_overhead_pct", cores_per_10k_overhead_pct),
                ("cores_per_10k_added", cores_per_10k_added),
                ("rss_overhead_pct", rss_overhead_pct),
                ("rss_added_mib", rss_added_mib),
                ("max_lost_spans", max_lost_spans),
            )
            if value is not None
        }
        if collector and spec is None:
            body = pipeline_request(baseline or "passthrough", candidate, spans_per_s, duration, rounds, budget, strict)
        else:
            body = _request(
                spec,
                service,
                baseline or "none",
                candidate,
                candidate_env,
                rate,
                duration,
                rounds,
                iters,
                spans,
                side_by_side_instances,
                budget,
                strict,
            )
        if max_wall_time is not None:
            body["max_wall_time_s"] = max_wall_time
        if sample_stacks:
            body["sample_stacks"] = True
        flags = ProvenanceFlags(repository, branch, commit, pull_request, ci_run_url)
        provenance = flags.resolve(body.get("provenance"))
        if provenance is not None:
            body["provenance"] = provenance
        if against_history is not None:
            body["against_history"] = history_gate(against_history, history_max_growth_pct)
        with api_client(api, timeout=30) as http:
            try:
                created = answer(http.post("/api/v1/checks", json=body), expected=202)
            except httpx.HTTPError as error:
                raise _error(f"cannot reach TraceTax at {api}: {error}") from None
            except ApiAnswerError as error:
                raise _error(f"TraceTax refused the check ({error})") from None
            check_id = created["id"]
            typer.echo(f"check {check_id}: queued (about {created['estimated_seconds']:.0f} s of measurement)")
            # Bought rounds take their time: never give up before the time budget is spent.
            status = _await_verdict(http, check_id, max(timeout, (max_wall_time or 0) + 600))
            if junit is not None:
                junit.write_text(http.get(f"/api/v1/checks/{check_id}", params={"format": "junit"}).text)
            if markdown is not None:
                _write_markdown(http, check_id, markdown)
        verdict = status["verdict"]
        for line in verdict["lines"]:
            typer.echo(f"  {line['verdict'].upper():<12} {line['name']}: {line['reason']}")
            if line.get("summary"):
                typer.echo(f"  {'':<12} {line['summary']}")
        for judgement in status.get("history") or []:
            typer.echo(f"  {judgement['verdict'].upper():<12} history {judgement['metric']}: {judgement['reason']}")
        if status.get("error"):
            typer.echo(f"  error: {status['error']}", err=True)
        typer.echo(f"check {check_id}: {overall_verdict(status)}")
        raise typer.Exit(exit_code(status))
