"""A Collector pipeline spec at submission: every variant's config accepted by the Collector."""

from __future__ import annotations

from tracetax.lab import pipelines, telemetrygen
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import SpecError


def validate_pipelines(spec: PipelineSpec, overlays: pipelines.OverlayPolicy) -> None:
    """Every variant names a shipped pipeline or an overlay `overlays` allows, and the Collector
    accepts the merged config (`otelcol validate`, which sees nothing of the backend's
    environment): nothing is started for a config that would fail. Errors name the
    configuration's field, the file, the line and the component."""
    errors = []
    for index, variant in enumerate(spec.configurations):
        field = "pipeline" if variant.pipeline is not None else "config_file"
        try:
            files = pipelines.config_files(variant.pipeline, variant.config_path, overlays)
            environment = pipelines.placeholder_environment(variant.settings)
            pipelines.validate(files, environment, max_bytes=overlays.max_bytes)
        except pipelines.PipelineConfigError as error:
            errors.append({"loc": ("configurations", index, field), "msg": str(error)})
        except (KeyError, ValueError, OSError) as error:
            errors.append({"loc": ("configurations", index, field), "msg": str(error).strip('"')})
    if not telemetrygen.telemetrygen_binary().exists():
        errors.append(
            {
                "loc": ("load",),
                "msg": f"the load generator telemetrygen is not built ({telemetrygen.telemetrygen_binary()}): "
                "run `make stack-build` (or `make up`)",
            }
        )
    if errors:
        raise SpecError(errors)
