"""GET /api/v1/experiments/{id}/stacks/{configuration}/diff offline, on stored experiments with
folded stacks: the tree, the folded diff, another experiment's side, and the 404s naming what
is missing."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from tracetax.cli import flame_diff as cli_flame_diff
from tracetax.cli.main import app as cli_app
from tracetax.db import repository as repo

EXPERIMENTS = "/api/v1/experiments"
APP = "thread main;main;handle 60\nthread main;main;parse 40\n"
EXPORT = "thread BatchSpanProcessor;run;export 100\n"
SPEC = {
    "sample_stacks": True,
    "configurations": [{"name": "none", "baseline": True}, {"name": "batch", "baseline": False}],
}


def sessions_of(client: TestClient) -> sessionmaker[Session]:
    sessions: sessionmaker[Session] = client.app.state.engine.sessions  # type: ignore[attr-defined]
    return sessions


def store(client: TestClient, stacks: dict[str, str | None], cpu: dict[str, float], spec: Any = SPEC) -> str:
    """A completed experiment with one round per configuration carrying `stacks` (None: the
    sampler failed) and each configuration's CPU per request in its aggregates."""
    with sessions_of(client)() as session:
        experiment = repo.create_experiment(session, spec, "go", "diff")
        repo.set_status(session, experiment, "running")
        names = list(stacks)
        rounds = repo.create_rounds(session, experiment, [(0, order, name) for order, name in enumerate(names)])
        for round_, name in zip(rounds, names, strict=True):
            text = stacks[name]
            profile = {"sampler": "async-profiler", **({"error": "attach refused"} if text is None else {})}
            repo.update_round(session, round_, status="completed", stack_profile=profile, folded_stacks=text)
        repo.save_results(session, experiment, {name: {"cpu_per_request_us": value} for name, value in cpu.items()})
        repo.set_status(session, experiment, "completed")
        return experiment.id


def child(node: dict[str, Any], *path: str) -> dict[str, Any]:
    for name in path:
        node = next(c for c in node["children"] if c["name"] == name)
    return node


def test_the_diff_against_the_baseline_is_in_us_per_request(client: TestClient) -> None:
    experiment = store(client, {"none": APP, "batch": APP + EXPORT}, {"none": 100.0, "batch": 200.0})
    response = client.get(f"{EXPERIMENTS}/{experiment}/stacks/batch/diff")
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["unit"] == "us_per_request"
    assert (answer["baseline"]["configuration"], answer["candidate"]["configuration"]) == ("none", "batch")
    export = child(answer["root"], "thread BatchSpanProcessor", "run", "export")
    assert (export["baseline"], export["candidate"], export["delta"], export["value"]) == (0.0, 100.0, 100.0, 100.0)
    assert answer["changes"][0]["name"] == "export"


def test_the_folded_diff_is_difffolded_text(client: TestClient) -> None:
    experiment = store(client, {"none": APP, "batch": APP + EXPORT}, {"none": 100.0, "batch": 200.0})
    response = client.get(f"{EXPERIMENTS}/{experiment}/stacks/batch/diff", params={"format": "folded"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    assert response.headers["x-folded-count-unit"] == "ns_per_request"
    assert response.text.splitlines() == [
        "thread BatchSpanProcessor;run;export 0 100000",
        "thread main;main;handle 60000 60000",
        "thread main;main;parse 40000 40000",
    ]


def test_two_experiments_compare_the_same_configuration(client: TestClient) -> None:
    before = store(client, {"none": APP, "batch": APP}, {"none": 100.0, "batch": 100.0})
    after = store(client, {"none": APP, "batch": APP + EXPORT}, {"none": 100.0})  # batch's CPU unknown
    response = client.get(f"{EXPERIMENTS}/{after}/stacks/batch/diff", params={"against_experiment": before})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["baseline"]["experiment_id"], answer["baseline"]["configuration"]) == (before, "batch")
    assert answer["unit"] == "share_pct" and "percentage points" in answer["unit_note"]
    assert child(answer["root"], "thread main", "main", "handle")["delta"] == -30.0


def test_missing_pieces_are_404_naming_them(client: TestClient) -> None:
    experiment = store(client, {"none": None, "batch": APP}, {"none": 100.0, "batch": 100.0})
    url = f"{EXPERIMENTS}/{experiment}/stacks"
    assert client.get(f"{EXPERIMENTS}/nope/stacks/batch/diff").json() == {"detail": "no experiment nope"}
    missing = client.get(f"{url}/batch/diff", params={"against_experiment": "gone"})
    assert (missing.status_code, missing.json()) == (404, {"detail": "no experiment gone"})
    unknown = client.get(f"{url}/batch/diff", params={"against": "simple"})
    assert unknown.status_code == 404 and "no configuration 'simple'" in unknown.json()["detail"]
    no_samples = client.get(f"{url}/batch/diff")
    assert no_samples.status_code == 404
    assert no_samples.json()["detail"] == (
        f"experiment {experiment} has no stack samples of 'none': round 0: attach refused"
    )


def test_a_configuration_against_itself_is_422(client: TestClient) -> None:
    experiment = store(client, {"none": APP, "batch": APP}, {"none": 100.0, "batch": 100.0})
    response = client.get(f"{EXPERIMENTS}/{experiment}/stacks/none/diff")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "against"]


def test_the_flame_diff_command_lists_the_changes_or_prints_the_folded_diff(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    experiment = store(client, {"none": APP, "batch": APP + EXPORT}, {"none": 100.0, "batch": 200.0})
    monkeypatch.setattr(cli_flame_diff, "api_client", lambda base_url, timeout: contextlib.nullcontext(client))
    listed = CliRunner().invoke(cli_app, ["flame-diff", experiment, "--configuration", "batch"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[0].startswith(
        f"batch of {experiment[:8]} (200 samples) against none of {experiment[:8]} (100 samples)"
    )
    assert lines[1].split() == ["+100.00", "0.00", "->", "100.00", "export"]
    out = tmp_path / "diff.folded"
    folded = CliRunner().invoke(
        cli_app, ["flame-diff", experiment, "--configuration", "batch", "--folded", "--out", str(out)]
    )
    assert folded.exit_code == 0, folded.output
    assert out.read_text().splitlines()[0] == "thread BatchSpanProcessor;run;export 0 100000"
    missing = CliRunner().invoke(cli_app, ["flame-diff", experiment, "--configuration", "nope"])
    assert missing.exit_code == 2 and "nope" in missing.output
