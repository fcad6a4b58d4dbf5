"""A Collector pipeline spec at submission: within the operator's bounds, every variant's
config accepted by the Collector.

`otelcol validate` is a process of its own (well under a second, up to VALIDATE_TIMEOUT_S on a
busy machine) and a spec has up to 12 variants: the work one request may cause is bounded.
Variants that merge the same files with the same settings are validated once, and all of a
request's validations share VALIDATION_BUDGET_S; a variant left when it is spent is refused
unvalidated, naming the budget, never started.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tracetax.core.config import Settings
from tracetax.lab import pipelines, telemetrygen
from tracetax.spec.base import SpecError
from tracetax.spec.collector import MAX_SPANS_PER_S, PipelineSpec

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


def span_errors(spec: PipelineSpec, settings: Settings) -> list[dict[str, Any]]:
    """What the operator's bounds refuse of the spans a spec sends: each phase (the side-by-side
    phase's telemetrygens together, the ramp's fastest step) within TRACETAX_MAX_PHASE_SPANS,
    the side-by-side phase's telemetrygens together within one's rate, and the whole experiment
    within TRACETAX_MAX_EXPERIMENT_SPANS; every error at the field to change."""
    load = spec.load
    errors = []
    for field, (seconds, spans) in spec.spans_by_phase().items():
        if spans > settings.max_phase_spans:
            loads = spec.side_by_side_loads() if field.startswith("side_by_side") else 1
            together = f" x {loads} variants side by side" if loads > 1 else ""
            rate = "the ramp's fastest step" if field == "ramp.step_s" else f"load.spans_per_s {load.spans_per_s:g}/s"
            errors.append(
                {
                    "loc": ("load", *field.split(".")),
                    "msg": f"{rate} for load.{field} {seconds:g} s{together} is about {spans:,.0f} spans in one "
                    f"phase, more than TRACETAX_MAX_PHASE_SPANS allows ({settings.max_phase_spans:,}): lower "
                    f"load.spans_per_s or load.{field}",
                }
            )
    loads = spec.side_by_side_loads()
    if load.spans_per_s * loads > MAX_SPANS_PER_S:
        errors.append(
            {
                "loc": ("load", "spans_per_s"),
                "msg": f"the side-by-side phase runs {loads} telemetrygens at once at load.spans_per_s "
                f"{load.spans_per_s:g}/s each, {load.spans_per_s * loads:,.0f} spans/s together, more than one may "
                f"send ({MAX_SPANS_PER_S:,}/s): lower load.spans_per_s, or set load.side_by_side_s to 0",
            }
        )
    total = spec.max_spans()
    if total > settings.max_experiment_spans:
        errors.append(
            {
                "loc": ("rounds",),
                "msg": f"the experiment may send about {total:,.0f} spans ({spec.rounds} rounds of "
                f"{spec.spans_per_round():,.0f}: {len(spec.configurations)} variants' own phases with every ramp "
                f"step, and the side-by-side phase), more than TRACETAX_MAX_EXPERIMENT_SPANS allows "
                f"({settings.max_experiment_spans:,}): fewer rounds or variants, a lower load.spans_per_s or "
                "shorter phases",
            }
        )
    return errors
