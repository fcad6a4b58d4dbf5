"""A Collector pipeline spec at submission: every variant's config accepted by the Collector.

`otelcol validate` is a process of its own (well under a second, up to VALIDATE_TIMEOUT_S on a
busy machine) and a spec has up to 12 variants: the work one request may cause is bounded.
Variants that merge the same files with the same settings are validated once, and all of a
request's validations share VALIDATION_BUDGET_S; a variant left when it is spent is refused
unvalidated, naming the budget, never started.
"""

from __future__ import annotations

import time
from pathlib import Path

from tracetax.lab import pipelines, telemetrygen
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import SpecError

# All of one request's `otelcol validate` runs together, in seconds: twice one run's own timeout.
VALIDATION_BUDGET_S = 2 * pipelines.VALIDATE_TIMEOUT_S

# One validation: the files merged in order and the LAB_* environment they are read with.
Validation = tuple[tuple[Path, ...], tuple[tuple[str, str], ...]]


def validate_pipelines(spec: PipelineSpec, overlays: pipelines.OverlayPolicy) -> None:
    """Every variant names a shipped pipeline or an overlay `overlays` allows, and the Collector
    accepts the merged config (`otelcol validate`, which sees nothing of the backend's
    environment): nothing is started for a config that would fail. Errors name the
    configuration's field, the file, the line and the component."""
    errors = []
    deadline = time.monotonic() + VALIDATION_BUDGET_S
    verdicts: dict[Validation, str | None] = {}  # each distinct validation's error, None: accepted
    for index, variant in enumerate(spec.configurations):
        field = "pipeline" if variant.pipeline is not None else "config_file"
        try:
            files = pipelines.config_files(variant.pipeline, variant.config_path, overlays)
            environment = pipelines.placeholder_environment(variant.settings)
        except (KeyError, ValueError, OSError) as error:
            errors.append({"loc": ("configurations", index, field), "msg": str(error).strip('"')})
            continue
        validation: Validation = (tuple(files), tuple(sorted(environment.items())))
        if validation not in verdicts:
            verdicts[validation] = _verdict(files, environment, overlays.max_bytes, deadline)
        if (message := verdicts[validation]) is not None:
            errors.append({"loc": ("configurations", index, field), "msg": message})
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


def _verdict(files: list[Path], environment: dict[str, str], max_bytes: int, deadline: float) -> str | None:
    """Why the Collector refuses the merged config, or None when it accepts it."""
    left_s = deadline - time.monotonic()
    if left_s <= 0:
        return (
            f"not validated: this request's Collector validations took their {VALIDATION_BUDGET_S:.0f} s "
            "(the most one request may take); submit fewer distinct variants at once"
        )
    try:
        pipelines.validate(files, environment, max_bytes=max_bytes, timeout_s=min(left_s, pipelines.VALIDATE_TIMEOUT_S))
    except pipelines.PipelineConfigError as error:
        return str(error)
    except (KeyError, ValueError, OSError) as error:
        return str(error).strip('"')
    return None
