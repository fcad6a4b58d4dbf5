from __future__ import annotations

from collections import Counter

from tracetax.profiling import folded


def test_parse_render_round_trip_and_merge() -> None:
    text = "thread a;f;g 3\nthread a;f 1\nnot a stack line\n"
    stacks = folded.parse(text)
    assert stacks == {"thread a;f;g": 3, "thread a;f": 1}
    assert folded.parse(folded.render(stacks)) == stacks
    assert folded.merge([stacks, Counter({"thread a;f": 2})])["thread a;f"] == 3


def test_tree_sums_children_and_prunes_small_nodes() -> None:
    stacks = Counter({"t;a;b": 6, "t;a;c": 3, "t;d": 1})
    tree = folded.to_tree(stacks, root="cfg", min_value=2, kind=lambda path: path[-1].upper())
    assert tree["name"] == "cfg" and tree["value"] == 10 and tree["kind"] is None
    [thread] = tree["children"]
    assert (thread["value"], thread["kind"]) == (10, "T")
    [a] = thread["children"]  # d (1 sample) is below min_value; its sample still counts in t
    assert [child["name"] for child in a["children"]] == ["b", "c"]
