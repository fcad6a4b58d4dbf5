"""What a Collector pipeline experiment can run: the shipped variants of collector-pipelines/lab."""

from __future__ import annotations

from fastapi import APIRouter

from tracetax.api.schemas.pipelines import PipelineVariantInfo
from tracetax.lab import pipelines
from tracetax.system.paths import REPO_ROOT

router = APIRouter(prefix="/api/v1/pipelines", tags=["pipelines"])


@router.get("", response_model=list[PipelineVariantInfo])
def list_pipelines() -> list[PipelineVariantInfo]:
    """Every shipped variant (an overlay over the lab base), passthrough first: the baseline."""
    return [
        PipelineVariantInfo(
            name=variant.name,
            description=variant.description,
            file=str(variant.overlay.relative_to(REPO_ROOT)),
            config=variant.overlay.read_text(),
            downstreams=variant.downstreams,
            holds_traces=variant.holds_traces,
            samples=variant.samples,
        )
        for variant in pipelines.VARIANTS.values()
    ]
