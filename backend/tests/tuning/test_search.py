"""The tuning run's logic against a fake lab (synthetic diagnostics): every rung is an
experiment, the winner meets the budgets and is confirmed, sampling only when needed, and a
budget out of reach is said, never a fabricated setting."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tracetax.tuning.search import BASELINE, SDK_DEFAULTS, tune
from tracetax.tuning.spec import TuningSpec


def spec(**budgets: float) -> TuningSpec:
    return TuningSpec.model_validate(
        {
            "service": {"kind": "demo", "language": "go"},
            "load": {
                "rate": 1000,
                "duration_s": 10,
                "warmup_s": 1,
                "burst": {"start_s": 4, "duration_s": 2, "multiplier": 4},
            },
            "budgets": {"p99_overhead_pct": 10, "cpu_overhead_pct": 20, "max_lost_spans": 0} | budgets,
            "wall_time_s": 1800,
        }
    )


class FakeLab:
    """A queue under 16k drops spans; sampling cuts overhead; the defaults drop in the burst."""

    def __init__(self, overhead: float = 5.0) -> None:
        self.overhead, self.specs = overhead, []  # type: list[dict[str, Any]]

    def figures(self, configuration: dict[str, Any]) -> tuple[float, float]:
        env = configuration.get("env", {})
        queue = int(env.get("OTEL_BSP_MAX_QUEUE_SIZE", 2048))
        ratio = float(env.get("OTEL_TRACES_SAMPLER_ARG", 1))
        return self.overhead * ratio + queue / 1e5, 0.0 if queue >= 16384 else 500.0

    def run(self, experiment: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.specs.append(experiment)
        overhead, dropped, ledger = {}, {}, []
        for configuration in experiment["configurations"]:
            name = configuration["name"]
            p99, lost = (0.0, 0.0) if name == BASELINE else self.figures(configuration)
            change = {"relative_pct": {"estimate": p99, "low": p99 - 0.5, "high": p99 + 0.5}}
            overhead[name] = {"p99": change, "cpu_per_request_us": change}
            dropped[name] = lost
            stages = [{"stage": "expected", "value": 1000.0}, {"stage": "stored", "value": 1000.0 - lost}]
            export = {"exports": 10, "seconds": 0.5} if name == SDK_DEFAULTS else None
            spans = {"signal": "spans", "stages": stages, "balanced": lost == 0}
            ledger.append(
                {
                    "configuration": name,
                    "round_index": 0,
                    "run_id": f"{name}-0",
                    "window": ["2026-11-25T16:00:00Z", "2026-11-25T16:00:10Z"],
                    "signals": [spans],
                    "export": export,
                }
            )
        return f"exp-{len(self.specs)}", {"overhead": overhead, "dropped_spans": dropped, "ledger": ledger}


def test_a_search_stores_its_rungs_and_confirms_a_winner_that_meets_the_budgets() -> None:
    lab = FakeLab()
    report = tune(spec(), lab)
    assert report.measured.peak_spans_per_s == 4 * report.measured.mean_spans_per_s  # the burst
    assert report.measured.export_p99_ms == 50.0  # 0.5 s over 10 exports
    assert len(lab.specs) == 2 + len(report.rungs)  # the probe, every rung, the confirmation
    assert all(s["configurations"][0]["name"] == BASELINE for s in lab.specs)
    assert report.choice is not None and report.choice.recommended is not None
    assert int(report.recommended_env["OTEL_BSP_MAX_QUEUE_SIZE"]) >= 16384  # drops nothing  # type: ignore[index]
    assert report.verdict is not None and report.verdict.startswith("better than the SDK defaults")
    assert report.paste is not None and "-Dotel.bsp.max.queue.size=" in report.paste["java"]


def test_sampling_is_tried_only_when_nothing_unsampled_fits() -> None:
    report = tune(spec(p99_overhead_pct=3), FakeLab(overhead=5))
    assert report.recommended_env is not None and "OTEL_TRACES_SAMPLER_ARG" in report.recommended_env


def test_an_unreachable_budget_is_named_and_nothing_is_recommended() -> None:
    report = tune(spec(p99_overhead_pct=0.01), FakeLab(overhead=5))
    assert report.recommended_env is None and report.confirmation_id is None
    assert report.choice is not None and "p99_overhead_pct" in report.choice.out_of_reach


def test_a_wall_time_too_small_for_one_candidate_names_the_field_and_the_minimum() -> None:
    raw = spec().model_dump(mode="json") | {"wall_time_s": 30}
    with pytest.raises(ValidationError) as raised:
        TuningSpec.model_validate(raw)
    [error] = raised.value.errors()
    assert error["loc"] == ("wall_time_s",) and "at least" in error["msg"]


def test_the_services_concurrency_is_in_every_configuration_measured() -> None:
    threaded = TuningSpec.model_validate(
        spec().model_dump(mode="json")
        | {"service": {"kind": "demo", "language": "java"}, "concurrency": {"threads": 64}}
    )
    lab = FakeLab()
    tune(threaded, lab)
    measured = [c for experiment in lab.specs for c in experiment["configurations"]]
    assert measured and all(c["concurrency"] == {"threads": 64} for c in measured)


def test_the_log_processor_is_tuned_from_the_probes_log_records_per_span() -> None:
    class LoggingLab(FakeLab):
        def run(self, experiment: dict[str, Any]) -> tuple[str, dict[str, Any]]:
            experiment_id, diagnostics = super().run(experiment)
            for ledger in diagnostics["ledger"]:  # one log record per five spans
                ledger["signals"].append(
                    {"signal": "log_records", "stages": [{"stage": "expected", "value": 200.0}], "balanced": None}
                )
            return experiment_id, diagnostics

    report = tune(spec(), LoggingLab())
    assert report.measured.mean_logs_per_s == pytest.approx(report.measured.mean_spans_per_s / 5)
    assert report.recommended_env is not None and "OTEL_BLRP_MAX_QUEUE_SIZE" in report.recommended_env
    assert "-Dotel.blrp.max.queue.size=" in (report.paste or {})["java"]
