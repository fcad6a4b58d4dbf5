"""`docker compose up` for real: the repository's compose.yml on the images built here
(`make images`, named by images/local.env), as a newcomer would start it, then an experiment
through the API inside it, then `docker compose down -v` leaving nothing behind.

Published on UI_PORT 18000 (GRAFANA_PORT 13000) unless the environment moves them, under a
project name of its own, so it runs beside `make up`'s native stack and a user's own
`docker compose up`. `make test-compose` builds what is missing and starts the daemon first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from benchmarks.packaged import COMPOSE_REPORT, experiment_figures
from tracetax.system.paths import REPO_ROOT, cache_dir

pytestmark = pytest.mark.compose

PROJECT = "tracetax-compose-test"
UI_PORT = os.environ.get("UI_PORT", "18000")
GRAFANA_PORT = os.environ.get("GRAFANA_PORT", "13000")
UI = f"http://127.0.0.1:{UI_PORT}"
HEALTHY_WITHIN_S = 300
FINAL = {"completed", "failed", "cancelled", "interrupted"}
# Figures a run leaves for docs/benchmarks.md.
REPORT = cache_dir() / "images" / COMPOSE_REPORT

# Go, the SDK off and on with its default batch processor, one round of short phases.
SPEC: dict[str, Any] = {
    "name": "compose: Go none vs batch-default",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 4, "connections": 4, "max_throughput_s": 0},
    "rounds": 1,
    "seed": 5,
}


def compose(*args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`docker compose` on the local images, as scripts/compose-local.sh runs it."""
    command = ["scripts/compose-local.sh", *args]
    env = {**os.environ, "COMPOSE_PROJECT_NAME": PROJECT, "UI_PORT": UI_PORT, "GRAFANA_PORT": GRAFANA_PORT}
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def leftovers() -> dict[str, list[str]]:
    """The project's containers, networks and volumes Docker still has."""
    label = f"label=com.docker.compose.project={PROJECT}"
    found = {}
    for kind, listing in (("containers", ["ps", "-a"]), ("networks", ["network", "ls"]), ("volumes", ["volume", "ls"])):
        out = subprocess.run(
            ["docker", *listing, "--filter", label, "--format", "{{.Names}}" if kind != "networks" else "{{.Name}}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        found[kind] = out.split()
    return found


def record(figures: dict[str, Any]) -> None:
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    REPORT.write_text(json.dumps({**previous, **figures}, indent=2) + "\n")


@pytest.fixture(scope="module")
def compose_stack() -> Iterator[dict[str, Any]]:
    daemon = subprocess.run([REPO_ROOT / "scripts" / "docker-daemon.sh", "status"], capture_output=True, text=True)
    if daemon.returncode != 0:
        pytest.fail(
            "no Docker daemon answers: run `make test-compose` (it starts one) or scripts/docker-daemon.sh start"
        )
    missing = subprocess.run([REPO_ROOT / "scripts" / "images.sh", "check"], capture_output=True, text=True)
    if missing.returncode != 0:
        pytest.fail(missing.stderr)
    compose("down", "-v", "--remove-orphans")  # a run killed midway left its project behind
    started = time.monotonic()
    try:
        compose("up", "-d", "--wait", "--wait-timeout", str(HEALTHY_WITHIN_S), timeout=HEALTHY_WITHIN_S + 60)
        healthy_s = time.monotonic() - started
        yield {"healthy_s": healthy_s}
    finally:
        logs = compose("logs", "--no-color", "--tail", "40", check=False).stdout
        compose("down", "-v", "--remove-orphans", check=False)
        left = leftovers()
        if any(left.values()):
            print(logs)
        assert not any(left.values()), f"`docker compose down -v` left {left}"


def test_every_service_healthy(compose_stack: dict[str, Any]) -> None:
    listed = compose("ps", "--all", "--format", "json").stdout
    # One JSON object per line (compose v2.21+), or one array.
    services = (
        json.loads(listed)
        if listed.lstrip().startswith("[")
        else [json.loads(line) for line in listed.splitlines() if line.strip()]
    )
    states = {s["Service"]: (s["State"], s.get("Health", ""), s.get("ExitCode")) for s in services}
    assert states.pop("init") == ("exited", "", 0), states
    assert set(states) == {"tempo", "loki", "mimir", "collector", "backend"}, states
    assert all(state == "running" and health == "healthy" for state, health, _ in states.values()), states
    record({"healthy_s": round(compose_stack["healthy_s"], 1)})
    print(f"all healthy {compose_stack['healthy_s']:.1f} s after `up`")


def login_token() -> str:
    """The token from the login link the backend prints, as the README says to find it."""
    logs = compose("logs", "--no-color", "backend").stdout
    link = re.search(r"TraceTax: (http://localhost:8000/\?token=(\S+))", logs)
    assert link, f"no login link in the backend's log:\n{logs}"
    return link.group(2)


def test_ui_and_login_link(compose_stack: dict[str, Any]) -> None:
    page = httpx.get(f"{UI}/", timeout=10)
    assert page.status_code == 200
    assert '<div id="root"' in page.text or "<html" in page.text.lower()
    token = login_token()
    # The link's token is the API's: a call that needs it is accepted with it, refused without.
    assert (
        httpx.get(f"{UI}/api/v1/experiments", timeout=10, headers={"Authorization": f"Bearer {token}"}).status_code
        == 200
    )
    created = httpx.post(f"{UI}/api/v1/experiments", json=SPEC, timeout=10)
    assert created.status_code == 401, created.text


def test_experiment_inside(compose_stack: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {login_token()}"}
    with httpx.Client(base_url=f"{UI}/api/v1", headers=headers, timeout=60) as http:
        created = http.post("/experiments", json=SPEC)
        assert created.status_code == 202, created.text
        experiment = created.json()["id"]
        started = time.monotonic()
        deadline = started + 600
        detail: dict[str, Any] = {}
        while time.monotonic() < deadline:
            detail = http.get(f"/experiments/{experiment}").json()
            if detail["status"] in FINAL:
                break
            time.sleep(2)
        wall_s = time.monotonic() - started
        failures = [(r["configuration"], r.get("error")) for r in detail.get("rounds", [])]
        assert detail["status"] == "completed", (detail.get("error"), failures)
        results = http.get(f"/experiments/{experiment}/results").json()
        diagnostics = http.get(f"/experiments/{experiment}/diagnostics").json()

    figures = {c["configuration"]: c for c in results["configurations"]}
    assert set(figures) == {"none", "batch-default"}
    for name, configuration in figures.items():
        assert configuration["rounds_completed"] == 1 and configuration["errors"] == 0, configuration
        # CPU read inside the backend's container, from the service's own /proc: known, never 0.
        assert configuration["cpu_per_request_us"] is not None and configuration["cpu_per_request_us"] > 0, name
    for ledger in diagnostics["ledger"]:
        for signal in ledger["signals"]:
            if signal["signal"] in ("spans", "request_counter") and ledger["configuration"] == "batch-default":
                assert signal["balanced"] is True, (ledger["configuration"], signal)
    spans = next(
        s
        for s in next(e for e in diagnostics["ledger"] if e["configuration"] == "batch-default")["signals"]
        if s["signal"] == "spans"
    )
    stored = next(stage["value"] for stage in spans["stages"] if stage["stage"] == "stored")
    assert stored and stored > 0, spans

    summary = experiment_figures(results)
    # The spec goes with the figures: `make bench-packaged` runs it natively beside them.
    record({"experiment_wall_s": round(wall_s, 1), "experiment": summary, "spans_stored": stored, "spec": SPEC})
    print(json.dumps(summary, indent=2))


def test_cpu_is_read_inside_the_container(compose_stack: dict[str, Any]) -> None:
    """The backend measures its services from inside its container: /proc there is the
    container's, and the cgroup it reports is the container's own (README, Docker)."""
    probe = compose(
        "exec",
        "-T",
        "backend",
        "python",
        "-c",
        "import os; print(len(os.sched_getaffinity(0))); print(open('/proc/self/cgroup').read())",
    ).stdout
    cores, _, cgroup = probe.partition("\n")
    assert int(cores) >= 1
    assert "docker" in cgroup or "0::/" in cgroup, cgroup
