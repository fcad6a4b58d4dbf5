"""`make bench-truth`: do the numbers tell the truth on this machine?

The standard set (`make bench-truth`, `python -m benchmarks.truth`):

1. A/A on two languages (Go and Java, `none` against `none`, the default load and rounds):
   nothing may come out significant in the design the diagnostics report, and the noise floor
   per metric is printed, beside the A/A configuration's own interval (they must agree: that is
   what the floor claims), for both designs: CPU per request, RSS and p50 paired from the
   side-by-side phase (the default, checked), and every figure from the configurations' solo
   phases (as before it: shown, and what comes out significant there said, not failed).
2. A known injected cost: the Go service busy-waits a fixed time per request in one
   configuration (TRACETAX_INJECT_BUSY_US, from the spec's `inject_busy_us`); its p50 and CPU
   per request must grow by that time within ±5%.
3. A known cost in the background only: one configuration's background thread burns CPU every
   few seconds (TRACETAX_INJECT_BACKGROUND_US every ..._PERIOD_MS) and touches no request. Its
   CPU per request must show (significantly more, about burn / period / rate), and the
   baseline's p99 must stay within its noise floor: the experiment carries an A/A partner of
   the baseline (`none-again`, beside the burner in every side-by-side phase as the baseline
   is), and the pair's p99, paired by round, must not move beyond the Go A/A's p99 floor.

`--neighbour` (`make bench-truth TRUTH=neighbour`): the A/A experiments under a noisy
neighbour, a random on/off CPU hog on the service's cores (benchmarks/hog.py; its duty cycle
and period printed). The side-by-side figures must stay within the issue's targets (CPU per
request ±3%, p50 ±5%) while the solo ones widen. `--background` runs check 3 alone, `--injected` check 2,
`--aa` check 1 (`make bench-truth TRUTH=aa BENCH_ARGS="--rate 1000"`: the A/As at another rate).

`--aa-series N` (`make bench-truth TRUTH=aa-series`, 20 by default): N real A/A experiments in a
row on Go (`none` against `none`, a new seed each, short phases so that 20 fit in about 40 min),
and how many showed anything significant, in the design the diagnostics report (Holm over every
metric of the experiment) and, shown beside it, the solo design. Issue 23's bar: at most one of 20.

Each experiment runs on the real engine with the real placement, the stack running or not
(no telemetry is exported in `none`; the ledger is not collected). Needs `make services tools`.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import numpy as np

from benchmarks import stop_cleanly_on_sigterm
from benchmarks.hog import HogSettings, NoisyNeighbour
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.diagnostics.overhead import (
    METRICS,
    SIDE_BY_SIDE_MAX_SHARE_GAP,
    SIDE_BY_SIDE_METRICS,
    Change,
    NoiseFloor,
    RoundSample,
    alike_shares,
    compare,
    format_value,
    noise_floor,
    round_value,
)
from tracetax.diagnostics.report import Design, samples_by_configuration
from tracetax.diagnostics.rounds import flagged_rounds
from tracetax.diagnostics.service_figures import ServiceFigures
from tracetax.engine import histogram as hdr
from tracetax.spec.service import ExperimentSpec
from tracetax.system.placement import Placement

DESIGNS: tuple[Design, ...] = get_args(Design)
# The injected 1 ms must come out as itself within this (issue 23: ±5%, was ±10%).
TOLERANCE = 0.05
# Issue 23's targets for an A/A's 95% half-width, per metric, in %.
TARGETS_PCT: dict[str, float] = {"cpu_per_request_us": 3.0, "p50": 5.0, "p99": 15.0, "p99.9": 30.0}
# Under the noisy neighbour, the figures the side-by-side phase gives must still meet them.
NEIGHBOUR_CHECKED = ("cpu_per_request_us", "p50")
P99 = METRICS["p99"]
# The A/A series: how many experiments, and each one's short design (every metric measured,
# stacks off): about two minutes each on Go, so that twenty fit in about forty minutes.
AA_SERIES_DEFAULT = 20
AA_SERIES_LOAD: dict[str, Any] = {
    "warmup_s": 1,
    "duration_s": 4,
    "max_throughput_s": 2,
    "side_by_side_s": 6,
    "side_by_side_warmup_s": 1,
}
AA_SERIES_ROUNDS = 4
# At most this many of the series may show anything significant (issue 23: one of 20).
AA_SERIES_MAX_SIGNIFICANT = 1
# The baseline's A/A partner in the background experiment: its p99 against the baseline's.
A_A_PARTNER = "none-again"


@dataclass
class Outcome:
    """One experiment, read back: each design's samples per configuration, and its flags."""

    baseline: str
    candidate: str
    samples: dict[Design, dict[str, list[RoundSample]]]
    flagged: list[str] = field(default_factory=list)
    # Rounds whose side-by-side phase gave no figures (failed) or whose latency was not used.
    side_missing: list[int] = field(default_factory=list)
    side_latency_flagged: list[int] = field(default_factory=list)
    # Rounds whose two configurations took unlike shares of the core: their p50 pair is solo.
    side_shares_apart: list[int] = field(default_factory=list)
    # Per configuration and round index, the p99 of its side-by-side phase (its neighbours live).
    side_p99_us: dict[str, dict[int, float]] = field(default_factory=dict)
    # A second `none` beside the baseline, when the spec has one (A_A_PARTNER).
    partner: str | None = None

    def changes(self, design: Design) -> tuple[dict[str, Change], dict[str, NoiseFloor]]:
        base, candidate = self.samples[design][self.baseline], self.samples[design][self.candidate]
        return compare(base, candidate), noise_floor(base, [candidate])


def _side_p99(histogram: str | None) -> float | None:
    if not histogram:
        return None
    decoded = hdr.decode(histogram)
    return float(decoded.get_value_at_percentile(99.0)) if decoded.get_total_count() else None


def read_outcome(spec: ExperimentSpec, stored: Experiment) -> Outcome:
    """Both designs' samples and the side-by-side phase's flags of a stored experiment."""
    completed = [r for r in stored.rounds if r.status == "completed"]
    others = [c.name for c in spec.configurations if c.name != spec.baseline.name]
    candidate = next(name for name in others if name != A_A_PARTNER)
    outcome = Outcome(
        baseline=spec.baseline.name,
        candidate=candidate,
        partner=A_A_PARTNER if A_A_PARTNER in others else None,
        samples={design: samples_by_configuration(stored, design) for design in DESIGNS},
        flagged=flagged_rounds(completed),
    )
    for round_ in completed:
        side = (ServiceFigures.of(round_.figures) or ServiceFigures()).side_by_side
        if side is None or side.error is not None or side.cpu_per_request_us is None:
            outcome.side_missing.append(round_.round_index)
            continue
        if side.latency_flagged:
            outcome.side_latency_flagged.append(round_.round_index)
        p99 = _side_p99(side.histogram) if side.histogram else side.p99_us
        if p99 is not None:
            outcome.side_p99_us.setdefault(round_.configuration, {})[round_.round_index] = float(p99)
    paired = outcome.samples["side_by_side"]
    partners = {sample.round_index: sample for sample in paired[outcome.baseline]}
    outcome.side_shares_apart = [
        sample.round_index
        for sample in paired[candidate]
        if (partner := partners.get(sample.round_index)) is not None
        and partner.side_share is not None
        and not alike_shares(partner, sample)
    ]
    outcome.side_missing = sorted(set(outcome.side_missing))
    outcome.side_latency_flagged = sorted(set(outcome.side_latency_flagged))
    return outcome


def run_experiment(spec: ExperimentSpec, workdir: Path) -> Outcome:
    """Run `spec` (a baseline and one candidate) on the real engine and read it back."""
    workdir.mkdir(parents=True, exist_ok=True)
    runtime = EngineRuntime.create(
        Settings(database_url=f"sqlite:///{workdir / 'bench.db'}", work_dir=workdir / "work"), publish=lambda e: None
    )
    runtime.engine.after_run = None  # measurement only: no span ledger
    try:
        with runtime.sessions() as session:
            experiment = repo.create_experiment(session, spec.model_dump(mode="json"), "bench", spec.name)
        status = runtime.engine.execute(experiment.id, threading.Event(), threading.Event())
        with runtime.sessions() as session:
            stored = repo.get_experiment(session, experiment.id)
            assert stored is not None  # noqa: S101 - created above
            outcome = read_outcome(spec, stored)
    finally:
        runtime.dispose()
    if status != "completed":
        raise SystemExit(f"bench-truth: experiment {spec.name} ended {status}")
    return outcome


def spec_of(
    name: str, language: str, args: argparse.Namespace, *, with_partner: bool = False, **candidate: Any
) -> ExperimentSpec:
    """`none` against `none` on `language`, the candidate with `candidate`'s fields (an injected
    cost); `with_partner` adds the baseline's A/A partner (A_A_PARTNER)."""
    load: dict[str, Any] = {"rate": args.rate, "query": {"iters": args.iters, "spans": 5}}
    if args.duration is not None:
        load["duration_s"] = args.duration
    if args.side_by_side is not None:
        load["side_by_side_s"] = args.side_by_side
    if args.side_by_side_warmup is not None:
        load["side_by_side_warmup_s"] = args.side_by_side_warmup
    if args.side_by_side_instances is not None:
        load["side_by_side_instances"] = args.side_by_side_instances
    body: dict[str, Any] = {
        "name": name,
        "service": {"kind": "demo", "language": language},
        "configurations": [
            {"preset": "none"},
            {"preset": "none", "name": "candidate", "baseline": False, **candidate},
            *([{"preset": "none", "name": A_A_PARTNER, "baseline": False}] if with_partner else []),
        ],
        "load": load,
        "sample_stacks": False,
    }
    if args.rounds is not None:
        body["rounds"] = args.rounds
    return ExperimentSpec.model_validate(body)


def _interval_text(item: Change) -> str:
    interval = item.relative_pct
    if interval.low is None or interval.high is None or interval.estimate is None:
        return item.summary
    return f"{interval.estimate:+.1f}% ({interval.low:+.1f}% to {interval.high:+.1f}%)"


def _source(design: Design, metric: str) -> str:
    return "side by side" if design == "side_by_side" and metric in SIDE_BY_SIDE_METRICS else "solo"


def print_design(design: Design, changes: Mapping[str, Change], floors: Mapping[str, NoiseFloor]) -> None:
    title = "side-by-side design (the default)" if design == "side_by_side" else "solo design (as before)"
    print(f"  {title}")
    print(f"    {'metric':<16} {'from':<13} {'A/A change (95% interval)':<44} {'noise floor':>11} {'target':>7}  sig.")
    for name, item in changes.items():
        floor = floors[name].relative_pct
        floor_text = f"±{floor:.1f}%" if floor is not None else "-"
        target = f"±{TARGETS_PCT[name]:g}%" if name in TARGETS_PCT else ""
        print(
            f"    {item.label:<16} {_source(design, name):<13} {_interval_text(item):<44} {floor_text:>11} "
            f"{target:>7}  {'YES' if item.significant else 'no'}"
        )


def print_flags(outcome: Outcome) -> None:
    if outcome.flagged:
        print(f"  flagged for interference: {', '.join(outcome.flagged)}")
    if outcome.side_missing:
        print(f"  rounds without side-by-side figures (solo used): {', '.join(map(str, outcome.side_missing))}")
    if outcome.side_latency_flagged:
        rounds = ", ".join(map(str, outcome.side_latency_flagged))
        print(f"  rounds whose side-by-side p50 was not used (cores too busy): {rounds}")
    if outcome.side_shares_apart:
        rounds = ", ".join(map(str, outcome.side_shares_apart))
        gap = f"{SIDE_BY_SIDE_MAX_SHARE_GAP:.0%}"
        print(f"  rounds whose p50 pair was read solo (shares of the core more than {gap} apart): {rounds}")


def print_aa(title: str, outcome: Outcome) -> bool:
    """Both designs' A/A intervals; true when nothing came out significant in the design the
    diagnostics report (side by side). The solo design is shown beside it, as the injected cost's
    is, and what came out significant there is said, not failed: it is how the figures read
    before the side-by-side phase, kept for comparison, not what a verdict rests on."""
    print(f"\n{title}")
    ok = True
    for design in DESIGNS:
        changes, floors = outcome.changes(design)
        print_design(design, changes, floors)
        significant = [item.label for item in changes.values() if item.significant]
        if design == "side_by_side":
            ok &= not significant
        elif significant:
            print(f"  solo design (shown, not checked): significant {', '.join(significant)}")
    print_flags(outcome)
    return ok


def within_target(floors: Mapping[str, NoiseFloor], metric: str) -> bool:
    """The A/A half-width of `metric` is known and at most the issue's target."""
    floor = floors[metric].relative_pct
    return floor is not None and floor <= TARGETS_PCT[metric]


def neighbour_verdict(outcome: Outcome) -> tuple[bool, list[str]]:
    """Under the hog: nothing significant, the side-by-side figures within their targets; and
    for each of those, how much wider the solo design's interval came out (the lines to print)."""
    side_changes, side_floors = outcome.changes("side_by_side")
    _, solo_floors = outcome.changes("solo")
    ok = not any(item.significant for item in side_changes.values())
    lines = []
    for metric in NEIGHBOUR_CHECKED:
        side, solo = side_floors[metric].relative_pct, solo_floors[metric].relative_pct
        met = within_target(side_floors, metric)
        ok &= met
        ratio = f", solo {solo / side:.1f}x as wide" if side and solo is not None else ""
        side_text = f"±{side:.1f}%" if side is not None else "unknown"
        solo_text = f"±{solo:.1f}%" if solo is not None else "unknown"
        lines.append(
            f"  {METRICS[metric].label:<16} side by side {side_text} ({'within' if met else 'OUTSIDE'} "
            f"±{TARGETS_PCT[metric]:g}%), solo {solo_text}{ratio}"
        )
    return ok, lines


def injected_verdict(busy_us: int, changes: Mapping[str, Change]) -> tuple[bool, list[str]]:
    """p50 and CPU per request must each grow by the injected time within ±TOLERANCE."""
    ok = True
    lines = []
    for name in ("p50", "cpu_per_request_us"):
        item = changes[name]
        measured = item.absolute.estimate
        within = measured is not None and abs(measured - busy_us) <= TOLERANCE * busy_us
        ok &= within
        error = f"{(measured - busy_us) / busy_us:+.1%}" if measured is not None else "unknown"
        lines.append(
            f"  {item.label:<16} {item.summary}\n  {'':<16} injected {format_value(busy_us, 'us')}, "
            f"error {error} -> {'within' if within else 'OUTSIDE'} ±{TOLERANCE:.0%}"
        )
    return ok, lines


def print_injected(busy_us: int, outcome: Outcome) -> bool:
    print(f"\nInjected cost on go: {busy_us} µs busy-wait per request")
    ok = True
    for design in DESIGNS:
        changes, _ = outcome.changes(design)
        design_ok, lines = injected_verdict(busy_us, changes)
        checked = design == "side_by_side"  # the design the diagnostics report; solo shown beside it
        print(f"  {'side-by-side design (checked)' if checked else 'solo design (shown, not checked)'}")
        print("\n".join(lines))
        ok &= design_ok or not checked
    print_flags(outcome)
    return ok


def expected_background_us(burn_us: int, period_ms: int, rate: float) -> float:
    """CPU per request a background burst adds: burn per second spread over the requests."""
    return burn_us * (1000 / period_ms) / rate


def background_verdict(outcome: Outcome, expected_us: float, reference: Outcome | None) -> tuple[bool, list[str]]:
    """The candidate's CPU per request must show (significantly worse). The baseline's p99 must
    not move: against its A/A partner in the same experiment (both beside the burner in every
    side-by-side phase, their tails from their solo phases), paired by round, within the p99
    noise floor of the Go A/A (`reference`), or of this pair when there is none. Paired against
    paired: an unpaired comparison with another experiment's rounds, minutes apart, measured the
    machine's drift between the two (+38.7% against a ±29% floor in one run), not the burner."""
    changes, _ = outcome.changes("side_by_side")
    cpu = changes["cpu_per_request_us"]
    shows = cpu.significant and cpu.direction == "worse"
    measured = cpu.absolute.estimate
    error = f"{(measured - expected_us) / expected_us:+.0%}" if measured is not None and expected_us else "unknown"
    lines = [
        f"  CPU per request  {cpu.summary}",
        f"  {'':<16} expected about {format_value(expected_us, 'us')} (error {error}) -> "
        f"{'shows' if shows else 'DOES NOT SHOW'}",
    ]
    still, line = _baseline_p99_still(outcome, reference)
    lines.append(line)
    beside = outcome.side_p99_us.get(outcome.baseline, {})
    pairs = [
        (alone, beside[s.round_index])
        for s in outcome.samples["solo"][outcome.baseline]
        if s.round_index in beside and (alone := round_value(s, P99)) is not None
    ]
    if pairs:
        ratio = 100 * math.expm1(float(np.mean([math.log(b / a) for a, b in pairs if a > 0 and b > 0])))
        lines.append(
            f"  (shown only) the baseline's p99 in the side-by-side phase, beside the bursts, against its own "
            f"solo p99: {ratio:+.1f}% over {len(pairs)} rounds: what a tail taken side by side would have moved"
        )
    return shows and still, lines


def _baseline_p99_still(outcome: Outcome, reference: Outcome | None) -> tuple[bool, str]:
    """Whether the baseline's p99 stayed within the floor against its A/A partner, and the line."""
    if outcome.partner is None:
        return False, f"  baseline p99     unknown: the experiment has no {A_A_PARTNER} to pair it with"
    # The reported design's samples: their tails come from the solo phases.
    paired = outcome.samples["side_by_side"]
    base, partner = paired[outcome.baseline], paired[outcome.partner]
    moved = compare(base, partner, {"p99": P99})["p99"].relative_pct
    if reference is not None:
        floor, source = reference.changes("side_by_side")[1]["p99"].relative_pct, "the Go A/A's"
    else:
        floor, source = noise_floor(base, [partner], metrics={"p99": P99})["p99"].relative_pct, "this pair's own"
    if moved.estimate is None or moved.low is None or moved.high is None or floor is None:
        return False, "  baseline p99     unknown (too few rounds with a p99): counted as off"
    still = abs(moved.estimate) <= floor
    return still, (
        f"  baseline p99     {moved.estimate:+.1f}% ({moved.low:+.1f}% to {moved.high:+.1f}%) against "
        f"{outcome.partner}, paired by round; {source} noise floor ±{floor:.1f}% -> "
        f"{'within' if still else 'OUTSIDE'}"
    )


def print_background(burn_us: int, period_ms: int, rate: float, outcome: Outcome, reference: Outcome | None) -> bool:
    print(f"\nBackground-only cost on go: {burn_us} µs of CPU every {period_ms} ms, on no request's path")
    ok, lines = background_verdict(outcome, expected_background_us(burn_us, period_ms, rate), reference)
    print("\n".join(lines))
    print_flags(outcome)
    return ok


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--neighbour", action="store_true", help="the A/A experiments under a random on/off CPU hog")
    mode.add_argument("--background", action="store_true", help="only the background-only injected cost")
    mode.add_argument("--injected", action="store_true", help="only the injected per-request cost")
    mode.add_argument("--aa", action="store_true", help="only the A/A experiments (--languages)")
    mode.add_argument(
        "--aa-series",
        type=int,
        nargs="?",
        const=AA_SERIES_DEFAULT,
        default=None,
        metavar="N",
        help=f"N real A/A experiments on go in a row (default {AA_SERIES_DEFAULT}): how many show anything significant",
    )
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=None, help="default: the spec's default")
    parser.add_argument("--duration", type=float, default=None, help="measured seconds; default: the spec's")
    parser.add_argument("--side-by-side", type=float, default=None, help="side-by-side seconds; default: the spec's")
    parser.add_argument(
        "--side-by-side-warmup", type=float, default=None, help="side-by-side warm-up seconds; default: the spec's"
    )
    parser.add_argument(
        "--side-by-side-instances",
        type=int,
        default=None,
        help="instances per configuration side by side; default: the spec's",
    )
    parser.add_argument("--busy-us", type=int, default=1000)
    parser.add_argument("--background-us", type=int, default=20_000, help="burned every --background-period-ms")
    parser.add_argument("--background-period-ms", type=int, default=2000)
    parser.add_argument("--languages", default=None, help="A/A languages; default go,java (go with --neighbour)")
    parser.add_argument("--hog-duty", type=float, default=0.3, help="the hog's mean share of the time on, 0-1")
    parser.add_argument("--hog-period", type=float, default=4.0, help="the hog's mean on+off cycle, seconds")
    parser.add_argument("--hog-seed", type=int, default=23)
    args = parser.parse_args(argv)
    try:
        args.hog = HogSettings(args.hog_duty, args.hog_period, args.hog_seed)
    except ValueError as error:
        parser.error(str(error))
    if args.languages is None:
        args.languages = "go" if args.neighbour else "go,java"
    if args.aa_series is not None and args.aa_series < 2:
        parser.error("--aa-series must be at least 2")
    for name in ("background_us", "background_period_ms", "busy_us"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0")
    return args


def run_neighbour(args: argparse.Namespace, placement: Placement, workdir: Path) -> bool:
    print(f"noisy neighbour on the service cores {sorted(placement.service_cpus or ())}: {args.hog.describe()}")
    ok = True
    for language in args.languages.split(","):
        with NoisyNeighbour(placement.service_cpus or set(), args.hog) as hog:
            outcome = run_experiment(spec_of(f"A/A {language} under a neighbour", language, args), workdir / language)
        measured = hog.measured_duty()
        duty = f"{measured:.0%}" if measured is not None else "unknown"
        ok &= print_aa(f"A/A on {language} under the hog (it ran {duty} of the service cores' time)", outcome)
        verdict, lines = neighbour_verdict(outcome)
        print("\n".join(lines))
        ok &= verdict
    return ok


def run_standard(args: argparse.Namespace, workdir: Path) -> bool:
    ok = True
    reference: Outcome | None = None
    if args.injected:
        injected = run_experiment(spec_of("injected", "go", args, inject_busy_us=args.busy_us), workdir / "injected")
        return print_injected(args.busy_us, injected)
    if not args.background:
        for language in args.languages.split(","):
            outcome = run_experiment(spec_of(f"A/A {language}", language, args), workdir / language)
            ok &= print_aa(f"A/A on {language}: none against none", outcome)
            reference = outcome if language == "go" else reference
        if args.aa:
            return ok
        injected = run_experiment(spec_of("injected", "go", args, inject_busy_us=args.busy_us), workdir / "injected")
        ok &= print_injected(args.busy_us, injected)
    background = {"inject_background_us": args.background_us, "inject_background_period_ms": args.background_period_ms}
    spec = spec_of("background", "go", args, with_partner=True, **background)
    outcome = run_experiment(spec, workdir / "background")
    ok &= print_background(args.background_us, args.background_period_ms, args.rate, outcome, reference)
    return ok


def aa_series_spec(index: int, args: argparse.Namespace) -> ExperimentSpec:
    """The index-th A/A of the series: `none` against `none` on Go, its own seed."""
    spec = spec_of(f"A/A series {index + 1}", "go", args)
    body = spec.model_dump(mode="json")
    body["load"].update(AA_SERIES_LOAD)
    body["rounds"] = args.rounds or AA_SERIES_ROUNDS
    body["seed"] = 1000 + index
    return ExperimentSpec.model_validate(body)


def significant_metrics(outcome: Outcome, design: Design) -> list[str]:
    changes, _ = outcome.changes(design)
    return [item.label for item in changes.values() if item.significant]


def run_aa_series(args: argparse.Namespace, workdir: Path) -> bool:
    """`--aa-series N`: N A/As in a row; at most AA_SERIES_MAX_SIGNIFICANT may show anything
    significant in the reported (side-by-side) design."""
    count = args.aa_series
    print(f"A/A series: {count} experiments on go, none against none, {AA_SERIES_ROUNDS} rounds, load {AA_SERIES_LOAD}")
    hits: dict[Design, int] = dict.fromkeys(DESIGNS, 0)
    for index in range(count):
        outcome = run_experiment(aa_series_spec(index, args), workdir / f"aa-{index + 1:02d}")
        parts = []
        for design in DESIGNS:
            found = significant_metrics(outcome, design)
            hits[design] += bool(found)
            parts.append(f"{design}: {', '.join(found) if found else 'nothing significant'}")
        flagged = f"; flagged {', '.join(outcome.flagged)}" if outcome.flagged else ""
        print(f"  A/A {index + 1:2d}/{count}: {'; '.join(parts)}{flagged}", flush=True)
    for design in DESIGNS:
        reported = " (reported by the diagnostics)" if design == "side_by_side" else " (shown only)"
        print(f"{design}{reported}: {hits[design]} of {count} showed anything significant")
    ok = hits["side_by_side"] <= AA_SERIES_MAX_SIGNIFICANT
    print(f"at most {AA_SERIES_MAX_SIGNIFICANT} allowed -> {'met' if ok else 'NOT MET'}")
    return ok


def main() -> int:
    args = parse_args()
    stop_cleanly_on_sigterm()
    workdir = Path(tempfile.mkdtemp(prefix="tracetax-bench-truth-"))
    placement = Placement.for_this_machine()
    print(f"placement: {placement.describe()}")
    if args.aa_series is not None:
        ok = run_aa_series(args, workdir)
    elif args.neighbour:
        ok = run_neighbour(args, placement, workdir)
    else:
        ok = run_standard(args, workdir)
    print(f"\nbench-truth: {'every figure as expected' if ok else 'SOME FIGURE IS OFF (see above)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
