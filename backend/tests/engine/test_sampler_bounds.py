"""Per-thread samples stay bounded: a service with hundreds of thread names in dozens of groups
stores at most the top groups and names plus "(other)" per sample, and the round's figures
(resource_summary: thread_groups, cpu_by_thread_s, totals) are those of the full readings for
every group kept."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.engine import sampler as sampler_module
from tracetax.engine.sampler import OTHER, Sampler, bounded_sample, resource_summary, thread_group

GROUPS = 60
THREADS_PER_GROUP = 8


def reading(step: int) -> dict[str, Any]:
    """What snapshot() reads at `step` (every 250 ms): 60 pools of 8 threads each, pool g using
    CPU at a rate of its own after what it used before the window (more the lower its number,
    so the first sample's top pools are not the last's). Pool 0 is busy early and then idles
    (it ends outside the top); pool 59 starts late and then is the busiest (it is absent from
    the first sample)."""
    by_thread: dict[str, list[float]] = {}
    for group in range(GROUPS):
        if group == GROUPS - 1 and step < 3:
            continue
        before = 0.01 * (GROUPS - group)
        if group == 0:
            cpu = before + 0.5 * min(step, 2)
        elif group == GROUPS - 1:
            cpu = 0.2 * (step - 3)
        else:
            cpu = before + 0.001 * (group + 1) * step
        for thread in range(THREADS_PER_GROUP):
            by_thread[f"pool{group}-w{thread}"] = [round(cpu * 0.75, 4), round(cpu * 0.25, 4)]
    by_group: dict[str, list[Any]] = {}
    for name, (user, system) in by_thread.items():
        figures = by_group.setdefault(thread_group(name), [0.0, 0, 0])
        figures[0] = round(figures[0] + user + system, 4)
        figures[1] += 10 * step
        figures[2] += 1
    total_user = sum(u for u, _ in by_thread.values())
    total_system = sum(s for _, s in by_thread.values())
    return {
        "cpu_user_s": total_user,
        "cpu_system_s": total_system,
        "rss_bytes": 1_000_000,
        "ctx_voluntary": 100 * step,
        "ctx_involuntary": step,
        "threads": len(by_thread),
        "processes": 1,
        "by_thread": by_thread,
        "by_thread_group": by_group,
    }


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The sampler reads synthetic snapshots instead of /proc; returns them as read, in full."""
    taken: list[dict[str, Any]] = []

    def snapshot(_pid: int) -> dict[str, Any]:
        full = reading(len(taken))
        taken.append(full)
        return {key: value for key, value in full.items()}

    monkeypatch.setattr(sampler_module, "snapshot", snapshot)
    monkeypatch.setattr(Sampler, "_run_seconds", lambda self: None)
    return taken


def sampled(steps: int, top_threads: int = 16) -> Sampler:
    sampler = Sampler(service_pid=1, top_threads=top_threads)
    for _ in range(steps - 1):  # the loop's samples, without its thread or its waits
        sampler._take()
    sampler.stop()  # takes the last one
    return sampler


def test_every_sample_keeps_at_most_the_top_groups_and_names_plus_other(readings: list[dict[str, Any]]) -> None:
    sampler = sampled(40)
    assert len(readings) == 40 and len(readings[-1]["by_thread"]) == GROUPS * THREADS_PER_GROUP
    for sample in sampler.samples:
        assert len(sample["by_thread_group"]) <= sampler.top_threads + 1
        assert len(sample["by_thread"]) <= sampler.top_threads + 1
        assert OTHER in sample["by_thread_group"] and OTHER in sample["by_thread"]
        # "(other)" sums the rest: the sample's total CPU is unchanged.
        total = sum(cpu for cpu, _, _ in sample["by_thread_group"].values())
        assert total == pytest.approx(sample["cpu_user_s"] + sample["cpu_system_s"], abs=1e-3)


def test_the_rounds_figures_are_the_full_readings_for_every_group_kept(readings: list[dict[str, Any]]) -> None:
    sampler = sampled(40)
    requests = 10_000
    bounded = resource_summary(sampler.samples, requests)
    readings.clear()  # the same readings again, kept whole
    full = resource_summary(sampled(40, top_threads=10**6).samples, requests)
    assert len(full["thread_groups"]) == GROUPS

    kept = set(bounded["thread_groups"]) - {OTHER}
    assert len(kept) == sampler.top_threads
    # The late, busiest pool is kept (absent from the first sample: all its CPU is in the
    # window); the early pool that went idle is folded into "(other)".
    assert "pool59-w*" in kept and "pool0-w*" not in kept
    for group in kept:
        assert bounded["thread_groups"][group] == full["thread_groups"][group], group
    rest = [figures for group, figures in full["thread_groups"].items() if group not in kept]
    assert bounded["thread_groups"][OTHER]["cpu_s"] == pytest.approx(sum(f["cpu_s"] for f in rest), abs=1e-3)
    assert bounded["thread_groups"][OTHER]["threads"] == sum(f["threads"] for f in rest)

    kept_threads = set(bounded["cpu_by_thread_s"]) - {OTHER}
    for name in kept_threads:
        assert bounded["cpu_by_thread_s"][name] == full["cpu_by_thread_s"][name], name
    for figure in ("cpu_s", "cpu_user_s", "cpu_system_s", "ctx_voluntary", "threads_max", "rss_max_bytes"):
        assert bounded[figure] == full[figure], figure


def test_a_service_with_few_threads_is_stored_as_it_was_read(readings: list[dict[str, Any]]) -> None:
    sample = reading(5)
    few = {**sample, "by_thread": dict(list(sample["by_thread"].items())[:5])}
    few["by_thread_group"] = dict(list(sample["by_thread_group"].items())[:3])
    assert bounded_sample(few) == few
