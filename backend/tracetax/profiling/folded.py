"""Folded stacks: one line per distinct stack, frames root first, separated by ';', then the
sample count ("thread main;main;work 12"). The format flamegraph.pl, speedscope and
inferno read; the first frame is always the thread (or goroutine role) the sample ran on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

Folded = Counter[str]


def parse(text: str) -> Folded:
    """Parse folded text; lines that do not end in a count are ignored."""
    stacks: Folded = Counter()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit():
            stacks[stack] += int(count)
    return stacks


def render(stacks: Folded) -> str:
    return "".join(f"{stack} {count}\n" for stack, count in sorted(stacks.items()) if count > 0)


def merge(parts: list[Folded]) -> Folded:
    total: Folded = Counter()
    for part in parts:
        total.update(part)
    return total


def frames(stack: str) -> list[str]:
    return stack.split(";")


Labeller = Callable[[list[str]], str | None]


def to_tree(stacks: Folded, root: str = "all", min_value: int = 0, **labels: Labeller) -> dict[str, Any]:
    """The call tree a flame graph draws: {name, value, children, <label>...}, children
    largest first. Each `labels` function labels a node from its path (root frame first); nodes
    below `min_value` samples are left out (their samples still count in their parent's value)."""
    tree: dict[str, Any] = {"name": root, "value": 0, "children": {}, "path": []}
    for stack, count in stacks.items():
        tree["value"] += count
        node = tree
        for frame in frames(stack):
            child = node["children"].get(frame)
            if child is None:
                child = {"name": frame, "value": 0, "children": {}, "path": [*node["path"], frame]}
                node["children"][frame] = child
            child["value"] += count
            node = child
    return _listed(tree, labels, min_value)


def _listed(node: dict[str, Any], labels: dict[str, Labeller], min_value: int) -> dict[str, Any]:
    children = sorted(
        (child for child in node["children"].values() if child["value"] >= min_value), key=lambda c: -c["value"]
    )
    return {
        "name": node["name"],
        "value": node["value"],
        **{name: label(node["path"]) if node["path"] else None for name, label in labels.items()},
        "children": [_listed(child, labels, min_value) for child in children],
    }
