"""Query model of the cost route."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from tracetax.diagnostics.cost import CostInputs


class CostQuery(CostInputs):
    """The cost model's inputs, and where the Collector's cost per span comes from."""

    # An unknown parameter (a typo of an input) is a 422 naming it, not a default silently used.
    model_config = ConfigDict(extra="forbid")

    pipeline_experiment: str | None = Field(
        None,
        description="A finished Collector pipeline experiment whose measured cores per 10k spans/s size the "
        "Collector (default: the documented figure, marked as such).",
    )
    pipeline_variant: str | None = Field(
        None, description="The pipeline experiment's variant to use (default: its baseline variant)."
    )

    def inputs(self) -> CostInputs:
        return CostInputs.model_validate(self.model_dump(include=set(CostInputs.model_fields)))
