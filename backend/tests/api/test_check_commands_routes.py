"""GET /checks/{id}/commands and POST /checks/commands: the check page's and the pipeline
check form's commands come from the backend (app/check_commands.py), secrets as answers show them."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import go_check

BASE = "http://ci.example:8000"


def test_a_queued_checks_commands_rebuild_its_request_and_hide_its_secrets(client: TestClient) -> None:
    secret = "Bearer s3cret-value"
    body = go_check(
        candidate={"preset": "batch-default", "env": {"OTEL_EXPORTER_OTLP_HEADERS": f"authorization={secret}"}},
        budget={"p99_overhead_pct": 10},
        rounds=2,
    )
    created = client.post("/api/v1/checks", json=body)
    assert created.status_code == 202, created.text

    answer = client.get(f"/api/v1/checks/{created.json()['id']}/commands", params={"api": BASE})

    assert answer.status_code == 200, answer.text
    commands = answer.json()
    assert secret not in answer.text
    assert commands["request"]["candidate"]["preset"] == "batch-default"
    assert commands["request"]["budget"] == {"p99_overhead_pct": 10}
    assert commands["curl"].startswith(f"CHECK_ID=$(curl -sf -XPOST {BASE}/api/v1/checks")
    # The go_check load has a warm-up of 1 s: the CLI's flags cannot say it.
    assert commands["cli"]["flags"] is False
    assert "a warm-up of 1 s (the CLI uses 2 s)" in commands["cli"]["reasons"]
    assert client.get("/api/v1/checks/nope/commands").status_code == 404


def test_a_pipeline_check_requests_commands_keep_what_it_leaves_out(client: TestClient) -> None:
    request = {
        "subject": "collector",
        "baseline": {"pipeline": "passthrough"},
        "candidate": {"pipeline": "batch-default"},
        "load": {"spans_per_s": 2000, "warmup_s": 2, "duration_s": 5},
        "budget": {"rss_overhead_pct": 20},
        "rounds": 3,
        "strict": True,
    }

    answer = client.post("/api/v1/checks/commands", params={"api": BASE}, json=request)

    assert answer.status_code == 200, answer.text
    cli = answer.json()["cli"]
    assert cli["flags"] is True, cli["reasons"]
    assert cli["command"].split(" \\\n") == [
        f"tracetax check --api {BASE}",
        "  --collector --baseline passthrough --candidate batch-default",
        "  --spans-per-s 2000 --duration 5 --rounds 3",
        "  --rss-overhead-pct 20",
        "  --strict --junit tracetax-junit.xml",
    ]
    assert answer.json()["request"]["load"] == {"spans_per_s": 2000, "warmup_s": 2, "duration_s": 5}
