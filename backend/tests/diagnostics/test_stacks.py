"""Per-configuration stack summaries and the flame graph tree, from stored rounds."""

from __future__ import annotations

from typing import Any

from tracetax.db.models import Round
from tracetax.diagnostics.stacks import flame_graph, summarize_configuration

NODE_OTLP = "send /x/node_modules/@opentelemetry/otlp-exporter-base/a.js"
NODE_STACKS = (
    f"thread main;parserOnIncoming node:_http_server;{NODE_OTLP} 3\n"
    "thread main;processTimers node:internal/timers;listOnTimeout node:internal/timers 1\n"
)


def node_round(**changes: Any) -> Round:
    values: dict[str, Any] = {
        "configuration": "simple",
        "status": "completed",
        "round_index": 0,
        "stack_profile": {"sampler": "v8-cpu-prof", "samples": 4},
        "folded_stacks": NODE_STACKS,
        **changes,
    }
    return Round(**values)


def find(node: Any, name: str) -> Any:
    if node.name == name:
        return node
    return next((hit for child in node.children if (hit := find(child, name)) is not None), None)


def test_flame_nodes_say_where_their_samples_ran() -> None:
    graph = flame_graph([node_round()], "simple")
    assert graph.samples == 4 and graph.sampler == "v8-cpu-prof"
    thread = find(graph.root, "thread main")
    assert (thread.kind, thread.where) == ("unattributed", "unattributed")
    export = find(graph.root, NODE_OTLP)
    assert (export.kind, export.where) == ("export", "request")  # Node: the parser frame above says so


def test_summary_explains_missing_stacks() -> None:
    failed = summarize_configuration(
        [node_round(stack_profile={"sampler": "v8-cpu-prof", "error": "no profile"})], "simple", 100.0, True
    )
    assert failed.location is None and failed.problems == ["round 0: no profile"]
    off = summarize_configuration([node_round(stack_profile=None, folded_stacks=None)], "simple", 100.0, False)
    assert off.location is None and "sample_stacks: false" in off.problems[0]
    sampled = summarize_configuration([node_round()], "simple", 100.0, True)
    assert sampled.location is not None and sampled.export_cpu_per_request_us == 75.0
