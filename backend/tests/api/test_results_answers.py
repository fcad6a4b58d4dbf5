"""The typed results and pipeline diagnostics answer the stored dicts unchanged: the response
models (api/schemas/results.py, diagnostics.py) describe the JSON for the OpenAPI; they drop,
add, rename or retype nothing, not even an int as a float, and results stored before a field
existed still answer (without it)."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.db.models import LedgerReading
from tracetax.engine import histogram as hdr
from tracetax.engine.aggregate import RoundData
from tracetax.spec.collector import PipelineSpec
from tracetax.subjects.collector.aggregate import aggregate_variant
from tracetax.subjects.service.aggregate import aggregate

EXPERIMENTS = "/api/v1/experiments"


def same_json(answered: Any, stored: Any) -> bool:
    """Equal as JSON text, so 1 and 1.0 differ (== would call them equal)."""
    return json.dumps(answered, sort_keys=True) == json.dumps(stored, sort_keys=True)


def sample(t: float, cpu: float) -> dict[str, Any]:
    return {
        "t": t,
        "cpu_user_s": cpu,
        "cpu_system_s": 0.5,
        "rss_bytes": 50_000_000,
        "ctx_voluntary": 10,
        "ctx_involuntary": 2,
        "threads": 4,
        "processes": 1,
        "by_thread": {"main": [cpu, 0.5]},
        "by_thread_group": {"main": [cpu, 12, 1]},
        "cpu_run_s": 0.1,
    }


def store_rounds(
    sessions: sessionmaker[Session], spec: dict[str, Any], rounds: list[dict[str, Any]]
) -> tuple[str, list[Any]]:
    """A completed experiment of `spec` whose rounds carry `rounds`' fields, in that order."""
    with sessions() as session:
        experiment = repo.create_experiment(session, spec, spec.get("subject", "go"), "typed")
        repo.set_status(session, experiment, "running")
        names = [r["configuration"] for r in rounds]
        slots = [(r["round_index"], order, name) for order, (r, name) in enumerate(zip(rounds, names, strict=True))]
        stored = repo.create_rounds(session, experiment, slots)
        for round_, fields in zip(stored, rounds, strict=True):
            values = {k: v for k, v in fields.items() if k not in ("configuration", "round_index")}
            repo.update_round(session, round_, status="completed", **values)
        return experiment.id, stored


def finish(sessions: sessionmaker[Session], experiment_id: str, aggregates: dict[str, dict[str, Any]]) -> None:
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        repo.save_results(session, experiment, aggregates)
        repo.set_status(session, experiment, "completed")


def service_round(name: str, index: int, scale: float) -> dict[str, Any]:
    histogram = hdr.encode(hdr.from_latencies_s([0.001 * scale * (1 + i / 100) for i in range(200)]))
    return {
        "configuration": name,
        "round_index": index,
        "histogram": histogram,
        "figures": {
            "requests_total": 1200,
            "open_phase": {
                "requests": 200,
                "achieved_rps": 100.0,
                "errors": 0,
                "summary": {"percentiles_us": {"99": 1990}},
            },
            "closed_phase": {"limited_by": "service", "rps": 950.5},
            "max_throughput_rps": 950.5,
        },
        "resources": {
            "cpu_per_request_us": 120.5 * scale,
            "cpu_utilization": 0.25,
            "rss_max_bytes": 50_000_000 + index,  # an int: answered as an int
            "ctx_per_request": 1.5,
            "thread_groups": {"main": {"threads": 2, "cpu_per_request_us": 80.0, "ctx_per_request": 1.0}},
            "isolation": {"flagged": False},
        },
        "samples": [sample(0.25, 1.0), sample(0.5, 2)],
    }


def test_a_service_experiments_results_answer_the_stored_aggregates(client: TestClient) -> None:
    sessions = client.app.state.engine.sessions  # type: ignore[attr-defined]
    spec = {"configurations": [{"name": "none", "baseline": True}, {"name": "batch"}, {"name": "old"}]}
    rounds = [service_round(name, i, 1 + 0.1 * j) for i in range(2) for j, name in enumerate(("none", "batch"))]
    experiment_id, stored_rounds = store_rounds(sessions, spec, rounds)
    data = [
        RoundData(r.configuration, r.round_index, "completed", r.histogram, r.figures, r.resources)
        for r in stored_rounds
    ]
    aggregates = aggregate(["none", "batch"], data, {"none": None, "batch": 3.0})
    # A result stored before thread groups and the limits were kept: those keys stay absent.
    old = {k: v for k, v in aggregates["none"].items() if k not in ("thread_groups", "max_throughput_limited_by")}
    finish(sessions, experiment_id, {**aggregates, "old": {**old, "configuration": "old", "a_later_figure": 7}})

    answer = client.get(f"{EXPERIMENTS}/{experiment_id}/results", params={"raw": True})

    assert answer.status_code == 200, answer.text
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        stored = {r.configuration: r.aggregates for r in experiment.results}
        by_run = {r.run_id: r for r in experiment.rounds}
        body = answer.json()
        assert same_json(body["configurations"], [stored["none"], stored["batch"], stored["old"]])
        assert "thread_groups" not in body["configurations"][2]
        for raw in body["rounds"]:
            round_ = by_run[raw["run_id"]]
            assert same_json(raw["samples"], round_.samples)
            assert same_json(raw["open_phase"], round_.figures["open_phase"])
            assert same_json(raw["closed_phase"], round_.figures["closed_phase"])
            assert raw["max_throughput_rps"] == 950.5 and raw["limited_by"] == "service" and raw["p99_us"] == 1990
            assert same_json(raw["resources"], round_.resources)


def pipeline_round(name: str, index: int, stored_ledger: bool) -> dict[str, Any]:
    ledger = {
        "generated": 10_000,
        "receiver": {"accepted": 10_000, "refused": 0, "not_received": 0},
        "processors": {"batch": {"incoming": 10_000, "outgoing": 10_000, "held_or_dropped": 0}},
        "exporter": {"sent": 10_000, "send_failed": 0, "enqueue_failed": 0, "queue_size": 0},
        "processor_counters": {"otelcol_processor_batch_batch_send_size_count": 40},
        "downstream": {"accepted": 10_000, "by_collector": {"downstream-1": 10_000}, "sent": 10_000, "send_failed": 0},
        "not_arrived": 0,
        "left_out_by_policy": 0.0,
        "lost": 0,
        "kept_ratio": 1.0,
    }
    step = {"spans_per_s": 2000, "achieved_spans_per_s": 1999.5, "cpu_cores": 0.2, "rss_max_bytes": 80_000_000}
    ramp = {
        "ramp": [{**step, "refused": 0.0, "queue_size": 0, "sustained": True, "limited_by": None, "why": None}],
        "max_sustainable_spans_per_s": 1999.5,
        "limited_by": "ramp ceiling",
        "why": "every step up to 2,000 spans/s was kept up with",
    }
    figures = {
        "cpu_cores": 0.1 + index / 100,
        "spans_per_s": 1000.0,
        "rss_max_bytes": 70_000_000,
        "rss_steady_bytes": 69_000_000,
    }
    return {
        "configuration": name,
        "round_index": index,
        "figures": {
            "spans_total": 12_000,
            "measured": {
                "ledger": ledger if stored_ledger else {},
                "generator": {"saturated": False, "achieved": 1000.0},
            },
            "ramp": ramp,
        },
        "resources": {
            **figures,
            "spans_per_s_per_core": 9000.1,
            "cores_per_10k_spans_s": 1.1,
            "downstream_cpu_cores": None,
        },
    }


def test_a_pipelines_results_and_diagnostics_answer_the_stored_ledgers(client: TestClient) -> None:
    sessions = client.app.state.engine.sessions  # type: ignore[attr-defined]
    spec = PipelineSpec.model_validate(
        {
            "subject": "collector",
            "configurations": [{"pipeline": "batch-default", "baseline": True}, {"pipeline": "batch-tuned"}],
            "load": {"spans_per_s": 1000, "duration_s": 2},
            "rounds": 3,
        }
    ).model_dump(mode="json")
    names = ("batch-default", "batch-tuned")
    rounds = [pipeline_round(name, i, stored_ledger=i != 0) for i in range(3) for name in names]
    experiment_id, stored_rounds = store_rounds(sessions, spec, rounds)
    data = [RoundData(r.configuration, r.round_index, "completed", None, r.figures, r.resources) for r in stored_rounds]
    finish(
        sessions,
        experiment_id,
        {name: aggregate_variant(name, [d for d in data if d.configuration == name]) for name in names},
    )
    with sessions() as session:
        tempo_down = {"stored": {"error": "Tempo did not answer"}}
        counted = {
            "stored": {
                "traces_found": 10,
                "traces_checked": 10,
                "stored_spans": 50,
                "stored_spans_exact": True,
                "delay_spans": 50,
                "delay_p50_us": 1200.5,
                "delay_p99_us": None,
                "sample_trace_ids": ["ab"],
            }
        }
        readings = [
            LedgerReading(
                run_id=r.run_id,
                experiment_id=experiment_id,
                ledger=(tempo_down if i % 2 else counted),
                sample_trace_ids=[],
            )
            for i, r in enumerate(stored_rounds)
        ]
        repo.replace_ledger_readings(session, experiment_id, readings)

    results = client.get(f"{EXPERIMENTS}/{experiment_id}/results")
    diagnostics = client.get(f"{EXPERIMENTS}/{experiment_id}/diagnostics")

    assert results.status_code == 200, results.text
    assert diagnostics.status_code == 200, diagnostics.text
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        stored = {r.configuration: r.aggregates for r in experiment.results}
        assert same_json(results.json()["configurations"], [stored[name] for name in names])
        figures = {r.run_id: r.figures for r in experiment.rounds}
        assert all(same_json(r["closed_phase"], figures[r["run_id"]]["ramp"]) for r in results.json()["rounds"])
        assert all(same_json(r["open_phase"], figures[r["run_id"]]["measured"]) for r in results.json()["rounds"])
        assert all(r["max_throughput_rps"] == 1999.5 for r in results.json()["rounds"])
        by_run = {r.run_id: r for r in experiment.rounds}
        stored_by_run = {r.run_id: r.ledger["stored"] for r in repo.ledger_readings(session, experiment_id)}
        for entry in diagnostics.json()["ledger"]:
            assert same_json(entry["ledger"], by_run[entry["run_id"]].figures["measured"]["ledger"])
            assert same_json(entry["stored"], stored_by_run[entry["run_id"]])
