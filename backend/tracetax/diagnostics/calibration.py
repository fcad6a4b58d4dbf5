"""Calibration: an A/A experiment that measures what this machine can resolve.

The same configuration runs twice per round, interleaved like any experiment; the paired
spread of the two is the noise floor for that service, configuration and load. A check whose
baseline and load match a calibration's signature is refused when a relative budget is
tighter than the floor at the check's number of rounds (`checks.unresolvable`).
"""

from __future__ import annotations

from typing import Any

from tracetax.diagnostics.overhead import NoiseFloor, RoundSample, noise_floor
from tracetax.diagnostics.sequential import design_of
from tracetax.spec.service import CommandServiceRef, ConfigurationSpec, ExperimentSpec, LoadSpec, ServiceRef

AGAIN = "again"


def calibration_spec(
    service: ServiceRef, configuration: ConfigurationSpec, load: LoadSpec, rounds: int, seed: int
) -> ExperimentSpec:
    """The A/A experiment: the configuration as the baseline and, identical, as `again`."""
    baseline = configuration.model_copy(update={"baseline": True})
    again = configuration.model_copy(
        update={"name": AGAIN if configuration.name != AGAIN else "again-2", "baseline": False}
    )
    return ExperimentSpec(
        name=f"calibration: {configuration.name} twice",
        service=service,
        configurations=[baseline, again],
        load=load,
        rounds=rounds,
        seed=seed,
        sample_stacks=False,
    )


def signature(spec: ExperimentSpec) -> dict[str, Any]:
    """What must match between a calibration and a check: the service, the baseline's setting
    and the measured load (not the number of rounds: the floor is scaled to the check's)."""
    service = spec.service
    baseline = spec.baseline
    load = spec.load
    return {
        "service": f"command:{' '.join(service.argv)}"
        if isinstance(service, CommandServiceRef)
        else f"demo:{service.language}",
        "processor": baseline.processor,
        "env": dict(sorted(baseline.env.items())),
        "inject_busy_us": baseline.inject_busy_us,
        # The design: a floor measured side by side is not one measured one at a time.
        "side_by_side_s": load.side_by_side_seconds if spec.runs_side_by_side() else 0,
        # Pooled instances narrow the floor; named only when above one, so that calibrations
        # saved before the setting existed still match checks that do not use it.
        **({"side_by_side_instances": load.side_by_side_instances} if load.side_by_side_instances > 1 else {}),
        "load": {
            "rate": load.rate,
            "duration_s": load.duration_s,
            "connections": load.connections,
            "path": load.path,
            "query": {k: str(v) for k, v in sorted(load.query.items())},
        },
    }


def floors(samples: dict[str, list[RoundSample]], spec: ExperimentSpec) -> dict[str, NoiseFloor]:
    """The noise floor of a finished calibration, at its own number of rounds."""
    baseline = spec.baseline.name
    others = [rounds for name, rounds in samples.items() if name != baseline]
    return noise_floor(samples.get(baseline, []), others, design=design_of(spec))
