"""What every subject's spec is, whatever it measures: the part the engine, the submission and
the API read without knowing the subject (tracetax.subjects.union parses a spec into its
subject's model; tracetax.subjects.registry names the subjects).

A subject's spec model derives from `SubjectSpec` and declares these fields itself, in the
order its answers and stored specs have always had them; the base declares them for type
checkers only, so that it adds nothing to a model's fields, its JSON or its OpenAPI schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from tracetax.spec.inputs import InputModel

if TYPE_CHECKING:
    from tracetax.spec.provenance import Provenance


class Named(Protocol):
    """A configuration as every subject has one: a name, and whether it is the baseline."""

    @property
    def name(self) -> str: ...

    @property
    def baseline(self) -> bool: ...


def require_one_baseline_and_unique_names(configurations: Sequence[Named]) -> None:
    """What every experiment's configurations must be, whatever the subject."""
    names = [configuration.name for configuration in configurations]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"configuration names must be unique; repeated: {', '.join(duplicates)}")
    baselines = [c.name for c in configurations if c.baseline]
    if len(baselines) != 1:
        raise ValueError(
            f"exactly one configuration must be the baseline (baseline: true), found {len(baselines)}"
            + (f": {', '.join(baselines)}" if baselines else "")
        )


class SubjectSpec(InputModel):
    """A spec of some subject: its `subject` names it (the registry's key), its configurations
    are run in `rounds` interleaved rounds shuffled by `seed`."""

    if TYPE_CHECKING:
        # Declared by each subject's model (as a Literal of its name, with its own defaults).
        subject: str
        name: str | None
        rounds: int
        seed: int
        provenance: Provenance | None

        @property
        def configurations(self) -> Sequence[Named]: ...

    def estimated_seconds(self) -> float:
        """Rough wall time of the spec's `rounds` rounds."""
        raise NotImplementedError

    def side_by_side_seconds(self) -> float:
        """One round's side-by-side phase (every configuration live at once); 0: it has none."""
        return 0.0

    def planned_looks(self) -> tuple[int, ...]:
        """The numbers of rounds after which the data may be read (the last: the most it runs)."""
        return (self.rounds,)

    def budgeted_seconds(self) -> float:
        """The wall time the spec may hold the machine for (what the operator's bound reads)."""
        return self.estimated_seconds()


class SpecError(ValueError):
    """A spec that parsed but does not fit what it would run; `errors` are FastAPI-style items."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors
