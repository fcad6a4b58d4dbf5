"""Where export runs, per configuration: the stack samples of its completed rounds, merged and
classified (tracetax.profiling.classify), with the reason whenever there are none."""

from __future__ import annotations

from pydantic import BaseModel

from tracetax.db.models import Round
from tracetax.profiling import folded
from tracetax.profiling.classify import RULES, ExportLocation, summarize, what, where


class StackSummary(BaseModel):
    configuration: str
    sampler: str | None
    rounds_sampled: int
    # Why there are no (or fewer) stacks: sampling off, no sampler for this service, sampler errors.
    problems: list[str]
    location: ExportLocation | None
    # The service's CPU per request spent exporting (µs): CPU per request times the export share.
    export_cpu_per_request_us: float | None


def configuration_stacks(rounds: list[Round], configuration: str) -> tuple[str | None, folded.Folded, list[str]]:
    """(sampler, merged folded stacks, problems) over the configuration's completed rounds."""
    sampler: str | None = None
    parts: list[folded.Folded] = []
    problems: list[str] = []
    for round_ in rounds:
        if round_.configuration != configuration or round_.status != "completed":
            continue
        profile = round_.stack_profile or {}
        if not profile:
            continue
        sampler = profile.get("sampler", sampler)
        if profile.get("error"):
            problems.append(f"round {round_.round_index}: {profile['error']}")
        elif round_.folded_stacks is not None:
            parts.append(folded.parse(round_.folded_stacks))
    return sampler, folded.merge(parts), problems


def summarize_configuration(
    rounds: list[Round], configuration: str, cpu_per_request_us: float | None, sampling_on: bool
) -> StackSummary:
    sampler, stacks, problems = configuration_stacks(rounds, configuration)
    sampled = sum(
        1
        for r in rounds
        if r.configuration == configuration and r.folded_stacks is not None and not (r.stack_profile or {}).get("error")
    )
    if sampler is None:
        problems.append(
            "stack sampling was off for this experiment (sample_stacks: false)"
            if not sampling_on
            else "this service has no stack sampler (only the demo services name one in their manifest)"
        )
    location = summarize(RULES[sampler], stacks) if sampler in RULES and stacks else None
    if sampler is not None and location is None and not problems:
        problems.append(f"{sampler} returned no samples of the service")
    return StackSummary(
        configuration=configuration,
        sampler=sampler,
        rounds_sampled=sampled,
        problems=problems,
        location=location,
        export_cpu_per_request_us=(
            cpu_per_request_us * location.export_share
            if location is not None and cpu_per_request_us is not None
            else None
        ),
    )


class FlameNode(BaseModel):
    name: str
    value: int
    # Thread-level nodes: request | background | unattributed; frames below them: export | sdk | application.
    kind: str | None = None
    # Where the samples through this node ran: request | background | unattributed. Below the
    # thread level it can differ from the thread's (Node's one thread: a frame deeper down says).
    where: str | None = None
    children: list[FlameNode] = []


class FlameGraph(BaseModel):
    configuration: str
    sampler: str | None
    samples: int
    problems: list[str]
    root: FlameNode


def flame_graph(rounds: list[Round], configuration: str, min_share: float = 0.001) -> FlameGraph:
    """The configuration's merged stacks as a call tree, each node labelled for colouring."""
    sampler, stacks, problems = configuration_stacks(rounds, configuration)
    rules = RULES.get(sampler or "")
    total = sum(stacks.values())

    def kind(path: list[str]) -> str:
        if rules is None:
            return "application"
        return where(rules, path) if len(path) == 1 else what(rules, path)

    def side(path: list[str]) -> str | None:
        return where(rules, path) if rules is not None else None

    tree = folded.to_tree(stacks, root=configuration, min_value=max(1, int(total * min_share)), kind=kind, where=side)
    return FlameGraph(
        configuration=configuration,
        sampler=sampler,
        samples=total,
        problems=problems,
        root=FlameNode.model_validate(tree),
    )


def folded_text(rounds: list[Round], configuration: str) -> str:
    return folded.render(configuration_stacks(rounds, configuration)[1])
