"""The CPU layout rule and its overrides."""

from __future__ import annotations

import os

import pytest

from tracetax.system import procfs
from tracetax.system.placement import Placement, PlacementError, engine_on_stack_cores


def sets(placement: Placement) -> tuple[set[int] | None, set[int] | None, set[int] | None]:
    return placement.service_cpus, placement.loadgen_cpus, placement.stack_cpus


@pytest.mark.parametrize(
    ("cores", "service", "loadgen", "stack"),
    [
        (2, {1}, {0}, {0}),
        (3, {2}, {1}, {0}),
        (4, {3}, {2}, {0, 1}),
        (6, {5}, {4}, {0, 1, 2, 3}),
        (8, {6, 7}, {4, 5}, {0, 1, 2, 3}),
        (12, {9, 10, 11}, {6, 7, 8}, set(range(6))),
        (16, set(range(12, 16)), set(range(8, 12)), set(range(8))),
    ],
)
def test_layout_rule(cores: int, service: set[int], loadgen: set[int], stack: set[int]) -> None:
    placement = Placement.layout(set(range(cores)))
    assert sets(placement) == (service, loadgen, stack)
    assert placement.describe()["cores"] == cores
    assert placement.describe()["method"] == "sched_setaffinity"


def test_one_core_pins_nothing_and_says_so() -> None:
    placement = Placement.layout({0})
    assert sets(placement) == (None, None, None)
    assert not placement.pinned
    description = placement.describe()
    assert description["method"] == "none"
    assert "single core" in description["source"]


def test_layout_follows_the_cpus_offered_not_their_numbers() -> None:
    assert sets(Placement.layout({4, 5, 6, 7})) == ({7}, {6}, {4, 5})


def test_overrides() -> None:
    available = set(range(8))
    assert sets(Placement.overridden(available, "7", "5-6")) == ({7}, {5, 6}, {0, 1, 2, 3, 4})
    # Only the service set: the load generator takes the rule's share of what is left.
    assert sets(Placement.overridden(available, "0-1", None)) == ({0, 1}, {6, 7}, {2, 3, 4, 5})
    # Only the load generator's: the service takes the rule's share of what is left.
    assert sets(Placement.overridden(available, None, "0")) == ({6, 7}, {0}, {1, 2, 3, 4, 5})
    # Nothing left for the stack: it shares the load generator's cores.
    assert sets(Placement.overridden({0, 1}, "1", "0")) == ({1}, {0}, {0})
    assert "TRACETAX_SERVICE_CPUS" in Placement.overridden(available, "7", None).describe()["source"]


@pytest.mark.parametrize(
    ("service", "loadgen", "message"),
    [
        ("x", None, r"TRACETAX_SERVICE_CPUS='x': 'x' is not a CPU number"),
        (None, "1-0", r"TRACETAX_LOADGEN_CPUS='1-0'"),
        ("9", None, r"TRACETAX_SERVICE_CPUS='9': CPU 9 is not available here \(this machine offers 0-3\)"),
        ("2-3", "3", r"overlap \(CPU 3\)"),
        ("0-3", None, r"TRACETAX_SERVICE_CPUS='0-3' takes every CPU"),
        (None, "0-3", r"TRACETAX_LOADGEN_CPUS='0-3' leaves no CPU for the service"),
    ],
)
def test_bad_overrides_name_the_variable(service: str | None, loadgen: str | None, message: str) -> None:
    with pytest.raises(PlacementError, match=message):
        Placement.overridden({0, 1, 2, 3}, service, loadgen)


def test_overrides_are_read_from_the_environment() -> None:
    cpus = sorted(procfs.available_cpus())
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    placement = Placement.for_this_machine(env={"TRACETAX_SERVICE_CPUS": str(cpus[0])})
    assert placement.service_cpus == {cpus[0]}
    with pytest.raises(PlacementError, match="TRACETAX_LOADGEN_CPUS"):
        Placement.for_this_machine(env={"TRACETAX_LOADGEN_CPUS": "nope"})


def test_settings_reject_a_bad_cpu_list_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from tracetax.core.config import Settings

    monkeypatch.setenv("TRACETAX_SERVICE_CPUS", "3-x")
    with pytest.raises(ValidationError, match="TRACETAX_SERVICE_CPUS='3-x'"):
        Settings()
    monkeypatch.setenv("TRACETAX_SERVICE_CPUS", str(max(procfs.available_cpus())))
    assert Settings().service_cpus == str(max(procfs.available_cpus()))


def test_engine_moves_all_its_threads_and_restores_them() -> None:
    import threading

    before = set(os.sched_getaffinity(0))
    target = {min(before)}
    started = threading.Event()
    release = threading.Event()
    seen: dict[str, set[int]] = {}

    def other_thread() -> None:
        started.set()
        release.wait(10)
        seen["other"] = set(os.sched_getaffinity(0))

    thread = threading.Thread(target=other_thread)
    thread.start()
    started.wait(5)
    placement = Placement({max(before)}, target, target)
    with engine_on_stack_cores(placement):
        # sched_getaffinity(0) answers for the calling thread: the other one was moved too.
        assert set(os.sched_getaffinity(0)) == target
        release.set()
        thread.join(5)
        assert seen["other"] == target
    assert set(os.sched_getaffinity(0)) == before
