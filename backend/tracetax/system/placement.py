"""Which cores the measured service, the load generator and everything else run on.

Three disjoint-as-possible sets of CPUs:

- service cores: only the measured service (and its children) runs here;
- load-generator cores: oha;
- stack cores: everything else TraceTax starts, i.e. the Collector, Tempo, Loki, Mimir,
  the backend (which pins itself and all its threads here when a measurement starts, as do
  `tracetax run` and the tests), the stack samplers (py-spy, jcmd).

The rule, over the n CPUs this machine (or container cpuset) offers, in ascending order:

- n = 1: nothing is pinned; everything shares the one core (recorded as such).
- n = 2: service = the last core; load generator = the first core; stack = the first core
  (the load generator shares it with the stack: the service's core is the one kept clean).
- n >= 3: q = max(1, n // 4); service = the last q cores, load generator = the q cores
  before them, stack = all the others. So 3 cores: {2} / {1} / {0}; 4 cores: {3} / {2} /
  {0, 1}; 8 cores: {6, 7} / {4, 5} / {0-3}; 16 cores: {12-15} / {8-11} / {0-7}.

TRACETAX_SERVICE_CPUS and TRACETAX_LOADGEN_CPUS (CPU lists: "3", "2-3", "0,2") override the
rule. When only one is set, the other set is taken by the same rule from the CPUs left. The
stack gets whatever is left of the CPUs; if nothing is left, it shares the load generator's.

Only the standard library is used: the stack supervisor pins its components with this.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tracetax.system import procfs

SERVICE_CPUS_VARIABLE = "TRACETAX_SERVICE_CPUS"
LOADGEN_CPUS_VARIABLE = "TRACETAX_LOADGEN_CPUS"


class PlacementError(ValueError):
    """A CPU override that cannot be used; the message names the variable."""


def parse_cpus_setting(variable: str, value: str, available: set[int] | None = None) -> set[int]:
    """Parse a CPU list setting, naming `variable` in every error."""
    try:
        cpus = procfs.parse_cpu_list(value)
    except procfs.CpuListError as error:
        raise PlacementError(f"{variable}={value!r}: {error}") from None
    if available is not None and not cpus <= available:
        missing = procfs.format_cpu_list(cpus - available)
        raise PlacementError(
            f"{variable}={value!r}: CPU {missing} is not available here "
            f"(this machine offers {procfs.format_cpu_list(available)})"
        )
    return cpus


def _quarter(cpus: list[int]) -> int:
    return max(1, len(cpus) // 4)


@dataclass(frozen=True)
class Placement:
    """Which cores the service, the load generator and the stack are pinned to (None: not
    pinned) and why."""

    service_cpus: set[int] | None
    loadgen_cpus: set[int] | None
    stack_cpus: set[int] | None = None
    method: str = "sched_setaffinity"
    # How the sets were chosen: the rule for this many cores, or the override variables.
    source: str = ""
    # How many CPUs the layout was made from.
    cores: int | None = None

    @classmethod
    def layout(cls, available: set[int]) -> Placement:
        """The default layout for these CPUs (see the module's docstring for the rule)."""
        cpus = sorted(available)
        if len(cpus) < 2:
            return cls(None, None, None, "none", "single core: nothing pinned, everything shares it", len(cpus))
        if len(cpus) == 2:
            first, last = {cpus[0]}, {cpus[1]}
            return cls(
                last,
                first,
                first,
                source="2 cores: service on the last, load generator and stack on the first",
                cores=2,
            )
        q = _quarter(cpus)
        return cls(
            set(cpus[-q:]),
            set(cpus[-2 * q : -q]),
            set(cpus[: -2 * q]),
            source=f"{len(cpus)} cores: service on the last {q}, load generator on the {q} before, stack on the rest",
            cores=len(cpus),
        )

    @classmethod
    def for_this_machine(
        cls, service: str | None = None, loadgen: str | None = None, env: Mapping[str, str] | None = None
    ) -> Placement:
        """The layout for this machine, with the overrides given (or, when both are None, those
        in `env`, default os.environ). Raises PlacementError naming the variable at fault."""
        if service is None and loadgen is None:
            variables = os.environ if env is None else env
            service = variables.get(SERVICE_CPUS_VARIABLE) or None
            loadgen = variables.get(LOADGEN_CPUS_VARIABLE) or None
        available = procfs.available_cpus()
        if service is None and loadgen is None:
            return cls.layout(available)
        return cls.overridden(available, service, loadgen)

    @classmethod
    def overridden(cls, available: set[int], service: str | None, loadgen: str | None) -> Placement:
        service_cpus = parse_cpus_setting(SERVICE_CPUS_VARIABLE, service, available) if service else None
        loadgen_cpus = parse_cpus_setting(LOADGEN_CPUS_VARIABLE, loadgen, available) if loadgen else None
        if service_cpus is not None and loadgen_cpus is not None and service_cpus & loadgen_cpus:
            raise PlacementError(
                f"{SERVICE_CPUS_VARIABLE}={service!r} and {LOADGEN_CPUS_VARIABLE}={loadgen!r} overlap "
                f"(CPU {procfs.format_cpu_list(service_cpus & loadgen_cpus)}): the service needs cores of its own"
            )
        if service_cpus is None:
            assert loadgen_cpus is not None  # noqa: S101 - one of the two is set
            rest = sorted(available - loadgen_cpus)
            if not rest:
                raise PlacementError(f"{LOADGEN_CPUS_VARIABLE}={loadgen!r} leaves no CPU for the service")
            service_cpus = set(rest[-_quarter(sorted(available)) :])
        if service_cpus >= available:
            raise PlacementError(
                f"{SERVICE_CPUS_VARIABLE}={service!r} takes every CPU "
                f"({procfs.format_cpu_list(available)}): nothing would be left for the load generator"
            )
        if loadgen_cpus is None:
            rest = sorted(available - service_cpus)
            loadgen_cpus = set(rest[-_quarter(sorted(available)) :]) if len(rest) > 1 else set(rest)
        stack_cpus = (available - service_cpus - loadgen_cpus) or set(loadgen_cpus)
        names = [name for name, value in ((SERVICE_CPUS_VARIABLE, service), (LOADGEN_CPUS_VARIABLE, loadgen)) if value]
        return cls(service_cpus, loadgen_cpus, stack_cpus, source=f"set by {' and '.join(names)}", cores=len(available))

    @property
    def pinned(self) -> bool:
        return self.service_cpus is not None

    def describe(self) -> dict[str, Any]:
        return {
            "cores": self.cores if self.cores is not None else len(procfs.available_cpus()),
            "service_cpus": sorted(self.service_cpus) if self.service_cpus else None,
            "loadgen_cpus": sorted(self.loadgen_cpus) if self.loadgen_cpus else None,
            "stack_cpus": sorted(self.stack_cpus) if self.stack_cpus else None,
            "method": self.method,
            "source": self.source,
        }


def stack_cpus_from_environment() -> set[int] | None:
    """The stack's cores for this machine and environment (the supervisor pins its components
    here); None when nothing is pinned."""
    return Placement.for_this_machine().stack_cpus


@contextmanager
def engine_on_stack_cores(placement: Placement) -> Iterator[None]:
    """Move every thread of this process (the backend, `tracetax run`, a test) to the stack's
    cores for the duration of a measurement, so none of them runs on the service's cores;
    threads started meanwhile inherit it. Each thread's previous affinity is restored after."""
    if not placement.stack_cpus:
        yield
        return
    previous = procfs.pin_all_threads(placement.stack_cpus)
    try:
        yield
    finally:
        procfs.restore_affinity(previous)
