"""A lab Collector's own telemetry, read straight from its Prometheus endpoint.

Every lab Collector serves its internal metrics on a port of its own (a `pull` reader in
collector-pipelines/lab/base.yaml). Each round starts fresh Collectors, so their counters
start at zero and a snapshot taken after the pipeline has drained is that round's exact
ledger: no time windows, no scrape interval, no metrics store in between.

A snapshot keeps the otelcol_* series only, keyed `name{label="value",...}` with labels
sorted, minus the labels that only identify the process (they differ every round).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Mapping

from prometheus_client.parser import text_string_to_metric_families

Snapshot = dict[str, float]
PREFIX = "otelcol_"
# Labels that name the process rather than the pipeline element.
IDENTITY_LABELS = {"service_instance_id", "service_name", "service_version", "otel_scope_name", "otel_scope_version"}


class TelemetryError(RuntimeError):
    """A Collector's metrics endpoint did not answer; the message names which and why."""


def series_key(name: str, labels: Mapping[str, str]) -> str:
    kept = sorted((key, value) for key, value in labels.items() if key not in IDENTITY_LABELS)
    return name + "{" + ",".join(f'{key}="{value}"' for key, value in kept) + "}"


def parse(text: str) -> Snapshot:
    snapshot: Snapshot = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith(PREFIX) and not sample.name.endswith(("_bucket", "_created")):
                key = series_key(sample.name, sample.labels)
                snapshot[key] = snapshot.get(key, 0.0) + float(sample.value)
    return snapshot


def scrape(who: str, port: int, timeout_s: float = 3.0) -> Snapshot:
    """The otelcol_* series of the Collector `who` listening on 127.0.0.1:`port`."""
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return parse(response.read().decode())
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise TelemetryError(f"{who}: its metrics at {url} did not answer: {error}") from error


def total(snapshot: Snapshot | None, name: str, **match: str) -> float | None:
    """Sum of every series of `name` whose labels include `match`; None when the snapshot is
    missing or has no such series (unknown, not zero)."""
    if snapshot is None:
        return None
    wanted = [f'{key}="{value}"' for key, value in match.items()]
    values = [
        value
        for key, value in snapshot.items()
        if key.startswith(name + "{") and all(item in key[len(name) :] for item in wanted)
    ]
    return sum(values) if values else None
