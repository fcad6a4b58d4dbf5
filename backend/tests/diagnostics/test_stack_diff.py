"""The differential flame graph on known folded inputs: costs per request, the diff tree and the
difffolded.pl text."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.db.models import ConfigurationResult, Experiment, Round
from tracetax.diagnostics.stack_diff import (
    DiffNode,
    DiffSide,
    MissingStacksError,
    baseline_configuration,
    diff,
    folded_diff,
    side_of,
)
from tracetax.profiling import folded

BASELINE = "thread main;main;handle 60\nthread main;main;parse 40\n"
EXPORT = "thread BatchSpanProcessor;run;export"


def side(text: str, cpu: float | None, configuration: str = "batch") -> DiffSide:
    return DiffSide(
        experiment_id="e1",
        configuration=configuration,
        sampler="async-profiler",
        stacks=folded.parse(text),
        cpu_per_request_us=cpu,
    )


def node(tree: DiffNode, *path: str) -> DiffNode:
    for name in path:
        tree = next(child for child in tree.children if child.name == name)
    return tree


def test_a_frame_that_doubles_its_cost_per_request() -> None:
    # Same shares (handle 60 %), CPU per request 100 -> 200 µs: handle costs 60 -> 120 µs.
    answer = diff(side(BASELINE, 100.0, "none"), side(BASELINE, 200.0))
    handle = node(answer.root, "thread main", "main", "handle")
    assert answer.unit == "us_per_request"
    assert (handle.baseline, handle.candidate, handle.delta) == pytest.approx((60.0, 120.0, 60.0))
    assert handle.value == handle.candidate
    assert (answer.root.baseline, answer.root.candidate) == pytest.approx((100.0, 200.0))
    assert answer.root.name == "batch"


def test_a_frame_only_in_the_candidate_is_all_added_cost() -> None:
    candidate = BASELINE + f"{EXPORT} 100\n"  # half the samples export, CPU per request doubles
    answer = diff(side(BASELINE, 100.0, "none"), side(candidate, 200.0))
    export = node(answer.root, "thread BatchSpanProcessor", "run", "export")
    assert (export.baseline, export.candidate, export.delta) == pytest.approx((0.0, 100.0, 100.0))
    # The application's frames kept their cost: 60 and 40 µs on both sides.
    assert node(answer.root, "thread main", "main", "handle").delta == pytest.approx(0.0)
    assert answer.changes[0].name == "export" and answer.changes[0].delta == pytest.approx(100.0)
    assert [c.name for c in answer.changes] == ["export"]  # unchanged frames are not changes


def test_a_frame_only_in_the_baseline_stays_in_the_tree_with_no_width() -> None:
    answer = diff(side(BASELINE, 100.0, "none"), side("thread main;main;handle 10\n", 50.0))
    parse = node(answer.root, "thread main", "main", "parse")
    assert (parse.value, parse.baseline, parse.delta) == pytest.approx((0.0, 40.0, -40.0))
    assert node(answer.root, "thread main", "main", "handle").delta == pytest.approx(-10.0)


def test_unknown_cpu_per_request_falls_back_to_share_points() -> None:
    candidate = BASELINE + f"{EXPORT} 100\n"
    answer = diff(side(BASELINE, 100.0, "none"), side(candidate, None))
    assert answer.unit == "share_pct"
    handle = node(answer.root, "thread main", "main", "handle")
    assert (handle.baseline, handle.candidate, handle.delta) == pytest.approx((60.0, 30.0, -30.0))


def test_small_frames_are_left_out_below_min_share_of_both_sides() -> None:
    text = "thread main;main;handle 999\nthread main;main;tiny 1\n"
    answer = diff(side(text, 10.0, "none"), side(text, 10.0), min_share=0.01)
    assert [c.name for c in node(answer.root, "thread main", "main").children] == ["handle"]
    # The left-out frame's cost still counts in its parent's.
    assert node(answer.root, "thread main", "main").candidate == pytest.approx(10.0)


def test_folded_diff_counts_sum_to_each_sides_cpu_per_request_in_ns() -> None:
    candidate = "thread main;main;handle 1\nthread main;main;parse 1\nthread main;main;other 1\n"
    unit, text = folded_diff(side(BASELINE, 100.0, "none"), side(candidate, 10.0))
    assert unit == "us_per_request"
    rows = [line.rsplit(" ", 2) for line in text.splitlines()]
    assert [row[0] for row in rows] == sorted(row[0] for row in rows)
    assert sum(int(row[1]) for row in rows) == 100_000  # 100 µs
    assert sum(int(row[2]) for row in rows) == 10_000  # 10 µs, thirds rounded to add up
    assert dict((row[0], (int(row[1]), int(row[2]))) for row in rows)["thread main;main;handle"][0] == 60_000


def test_folded_diff_without_cpu_is_in_ppm_and_lists_one_sided_stacks_with_zero() -> None:
    unit, text = folded_diff(side(BASELINE, None, "none"), side(f"{EXPORT} 1\n", None))
    assert unit == "share_pct"
    assert f"{EXPORT} 0 1000000\n" in text
    assert "thread main;main;handle 600000 0\n" in text


def test_an_empty_side_is_a_clear_error() -> None:
    with pytest.raises(MissingStacksError, match=r"the baseline \('none' of experiment e1\) has no stack samples"):
        diff(side("", 100.0, "none"), side(BASELINE, 100.0))
    with pytest.raises(MissingStacksError, match="the candidate"):
        folded_diff(side(BASELINE, 100.0, "none"), side("", 100.0))


def stored(rounds: list[dict[str, Any]], cpu: float | None, sample_stacks: bool = True) -> Experiment:
    spec = {
        "sample_stacks": sample_stacks,
        "configurations": [{"name": "none", "baseline": True}, {"name": "batch", "baseline": False}],
    }
    experiment = Experiment(id="e1", spec=spec)
    experiment.rounds = [
        Round(configuration=r.get("configuration", "batch"), status="completed", round_index=i, **r.get("fields", {}))
        for i, r in enumerate(rounds)
    ]
    experiment.results = [ConfigurationResult(configuration="batch", aggregates={"cpu_per_request_us": cpu})]
    return experiment


def test_a_stored_side_merges_rounds_and_reads_cpu_per_request() -> None:
    profile = {"sampler": "async-profiler"}
    fields = {"stack_profile": profile, "folded_stacks": BASELINE}
    experiment = stored([{"fields": fields}, {"fields": fields}], 150.0)
    loaded = side_of(experiment, "batch")
    assert (loaded.samples, loaded.cpu_per_request_us, loaded.sampler) == (200, 150.0, "async-profiler")
    assert baseline_configuration(experiment) == "none"
    assert side_of(stored([{"fields": fields}], None), "batch").cpu_per_request_us is None


def test_a_stored_side_without_samples_says_why() -> None:
    with pytest.raises(MissingStacksError, match=r"no stack samples of 'batch': stack sampling was off"):
        side_of(stored([{}], 100.0, sample_stacks=False), "batch")
    failed = {"stack_profile": {"sampler": "async-profiler", "error": "attach refused"}}
    with pytest.raises(MissingStacksError, match="round 0: attach refused"):
        side_of(stored([{"fields": failed}], 100.0), "batch")
