"""The Collector pipeline variants a pipeline experiment can run."""

from __future__ import annotations

from pydantic import BaseModel


class PipelineVariantInfo(BaseModel):
    name: str
    description: str
    # The overlay file, relative to the repository (collector-pipelines/lab/<name>.yaml).
    file: str
    # The overlay as shipped, header comment included: what the variant configures.
    config: str
    downstreams: int
    holds_traces: bool
    samples: bool
