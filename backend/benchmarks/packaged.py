"""`make bench-packaged`: the packaged experiments' figures beside the same experiments run natively.

The compose test (tests/compose) and the cluster test (tests/cluster) each run a short Go
experiment inside the packaged TraceTax and leave its figures, and the spec they ran, in a
report under the cache. This benchmark runs each of those specs on the native stack (`make up`),
through the same API, and prints the three side by side: what the container or the pod changes
in CPU per request, latency and RSS. The specs are the tests' (one or two rounds of 4 s at
100 req/s), so the figures are indicative, not intervals: say so wherever they are quoted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import stop_cleanly_on_sigterm
from tracetax.cli.api import answer, api_client
from tracetax.system.paths import cache_dir

COMPOSE_REPORT = "compose-test.json"
CLUSTER_REPORT = "cluster-test.json"
FINAL = ("completed", "failed", "cancelled", "interrupted")
FIGURES = ("cpu_per_request_us", "p50_us", "p99_us", "rss_max_mib", "requests")


def experiment_figures(results: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per configuration, the figures compared across native, compose and the cluster."""
    figures: dict[str, dict[str, float | None]] = {}
    for configuration in results["configurations"]:
        rss = configuration.get("rss_max_bytes")
        figures[configuration["configuration"]] = {
            "cpu_per_request_us": configuration.get("cpu_per_request_us"),
            "p50_us": configuration["latency_us"].get("p50"),
            "p99_us": configuration["latency_us"].get("p99"),
            "rss_max_mib": round(rss / 2**20, 1) if rss is not None else None,
            "requests": configuration.get("requests"),
        }
    return figures


def run_natively(http: httpx.Client, spec: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    created = answer(http.post("/api/v1/experiments", json={**spec, "name": f"native: {spec['name']}"}), expected=202)
    while (detail := answer(http.get(f"/api/v1/experiments/{created['id']}")))["status"] not in FINAL:
        time.sleep(2)
    if detail["status"] != "completed":
        sys.exit(f"the native run of {spec['name']!r} ended {detail['status']}: {detail.get('error')}")
    return experiment_figures(answer(http.get(f"/api/v1/experiments/{created['id']}/results")))


def reports() -> dict[str, Path]:
    return {
        "compose": cache_dir() / "images" / COMPOSE_REPORT,
        "cluster": cache_dir() / "k8s-images" / CLUSTER_REPORT,
    }


def print_table(where: str, packaged: dict[str, Any], native: dict[str, Any]) -> None:
    print(f"\n{where} (spec: {json.dumps(packaged['spec']['load'])}, {packaged['spec']['rounds']} round(s))")
    print(f"  {'configuration':<16} {'figure':<20} {'native':>12} {where:>12}")
    for configuration, figures in packaged["experiment"].items():
        for figure in FIGURES:
            theirs = figures.get(figure)
            ours = native.get(configuration, {}).get(figure)
            print(f"  {configuration:<16} {figure:<20} {_shown(ours):>12} {_shown(theirs):>12}")


def _shown(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.1f}"


def main() -> None:
    stop_cleanly_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", default="http://127.0.0.1:8000", help="the running native TraceTax (make up)")
    args = parser.parse_args()
    found = {where: json.loads(path.read_text()) for where, path in reports().items() if path.exists()}
    for where, path in reports().items():
        if where not in found:
            print(f"{where}: no report at {path}: run `make test-{where}` first", file=sys.stderr)
        elif "spec" not in found[where]:
            print(f"{where}: {path} predates the spec in it: run `make test-{where}` again", file=sys.stderr)
            del found[where]
    if not found:
        sys.exit(1)
    with api_client(args.api, timeout=60) as http:
        for where, packaged in found.items():
            print_table(where, packaged, run_natively(http, packaged["spec"]))


if __name__ == "__main__":
    main()
