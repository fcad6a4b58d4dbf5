"""The Helm chart installed for real on the single-node Kubernetes built here (stack/kubernetes/).

One release for the session (conftest.py): its pods Ready, `helm test`, the UI and API through a
port-forward, an experiment inside the backend's pod against the in-cluster Collector and stores
whose span ledger balances, the NetworkPolicies enforced by kube-router, an upgrade that rolls
only the pods whose configuration changed, and an uninstall that leaves what the chart says.
The tests run in this file's order: the upgrade and the uninstall come last.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from benchmarks.packaged import CLUSTER_REPORT, experiment_figures
from tests.cluster.conftest import CHART, CLUSTER_VALUES, Cluster, Release, port_forward
from tracetax.system.paths import cache_dir

pytestmark = pytest.mark.cluster

STORES = {"tempo": 3200, "loki": 3100, "mimir": 9009}


def _pods(release: Release) -> list[dict[str, Any]]:
    listed = release.cluster.kubectl("-n", release.namespace, "get", "pods", "-o", "json").stdout
    pods: list[dict[str, Any]] = json.loads(listed)["items"]
    return [pod for pod in pods if not pod["metadata"].get("annotations", {}).get("helm.sh/hook")]


def _ready(pod: dict[str, Any]) -> bool:
    conditions = pod.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def test_every_pod_is_ready(release: Release) -> None:
    pods = _pods(release)
    components = {pod["metadata"]["labels"].get("app.kubernetes.io/component") for pod in pods}
    assert {"backend", "collector"} <= components, components
    not_ready = [pod["metadata"]["name"] for pod in pods if not _ready(pod)]
    assert not not_ready and len(pods) == 5, (not_ready, [pod["metadata"]["name"] for pod in pods])
    print(f"helm install to every pod Ready: {release.install_to_ready_s:.1f} s")


def test_helm_test_passes(release: Release) -> None:
    result = release.cluster.helm_cmd("test", release.name, "-n", release.namespace, "--timeout", "3m")
    assert "Phase:          Succeeded" in result.stdout and "Failed" not in result.stdout, result.stdout


def test_ui_and_api_through_a_port_forward(release: Release) -> None:
    with port_forward(release.cluster, release.namespace, f"svc/{release.fullname}", 8000) as port:
        base = f"http://localhost:{port}"
        page = httpx.get(f"{base}/", timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower(), page.text[:200]
        assert httpx.get(f"{base}/api/v1/experiments", timeout=10).status_code == 401  # the token is required
        health = httpx.get(f"{base}/api/health", headers={"Authorization": f"Bearer {release.token()}"}, timeout=30)
        # the backend's view of the in-cluster Collector, Tempo, Loki and Mimir
        assert health.status_code == 200 and health.json()["status"] == "ok", health.text
        assert all(component["ready"] for component in health.json()["components"]), health.text


SPEC = {
    "name": "in-cluster ledger",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 4, "connections": 4, "max_throughput_s": 0, "side_by_side_s": 0},
    "rounds": 2,
    "seed": 5,
}
FINAL = ("completed", "failed", "cancelled")


def test_an_experiment_in_the_backend_pod_balances_its_ledger(release: Release) -> None:
    headers = {"Authorization": f"Bearer {release.token()}"}
    with (
        port_forward(release.cluster, release.namespace, f"svc/{release.fullname}", 8000) as port,
        httpx.Client(base_url=f"http://localhost:{port}/api/v1", headers=headers, timeout=60) as http,
    ):
        created = http.post("/experiments", json=SPEC)
        assert created.status_code == 202, created.text
        experiment = created.json()["id"]
        started = time.monotonic()
        deadline = started + 900
        while (detail := http.get(f"/experiments/{experiment}").json())["status"] not in FINAL:
            assert time.monotonic() < deadline, detail
            time.sleep(3)
        rounds = [(r["configuration"], r["round_index"], r.get("error")) for r in detail.get("rounds", [])]
        assert detail["status"] == "completed", (detail.get("error"), rounds)
        wall_s = time.monotonic() - started
        results = http.get(f"/experiments/{experiment}/results").json()
        diagnostics = http.get(f"/experiments/{experiment}/diagnostics").json()
    batch = [entry for entry in diagnostics["ledger"] if entry["configuration"] == "batch-default"]
    assert len(batch) == SPEC["rounds"]
    for ledger in batch:
        spans = next(s for s in ledger["signals"] if s["signal"] == "spans")
        stages = {s["stage"]: s["value"] for s in spans["stages"]}
        assert spans["balanced"] is True, spans
        assert stages["expected"] == stages["stored"] > 0, spans
    figures = experiment_figures(results)
    # The spec goes with the figures: `make bench-packaged` runs it natively beside them.
    report = cache_dir() / "k8s-images" / CLUSTER_REPORT
    report.parent.mkdir(parents=True, exist_ok=True)
    recorded = {"experiment_wall_s": round(wall_s, 1), "experiment": figures, "spec": SPEC}
    report.write_text(json.dumps(recorded, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


def _connects(cluster: Cluster, namespace: str, pod: str, host: str, port: int, container: str | None = None) -> bool:
    """Whether POD opens a TCP connection to HOST:PORT (Python in the backend image)."""
    probe = f"import socket; socket.create_connection(({host!r}, {port}), timeout=3); print('connected')"
    args = ["-n", namespace, "exec", pod, *(["-c", container] if container else []), "--", "python3", "-c", probe]
    return "connected" in cluster.kubectl(*args, check=False, timeout=30).stdout


def test_network_policies_keep_outsiders_from_the_collector_and_the_stores(release: Release) -> None:
    cluster, namespace = release.cluster, release.namespace
    backend = release.pod("backend")
    image = cluster.kubectl("-n", namespace, "get", "pod", backend, "-o", "jsonpath={.spec.containers[0].image}").stdout
    targets = {
        f"{release.fullname}-collector": 4317,
        **{f"{release.name}-{store}": port for store, port in STORES.items()},
    }
    # a pod of the same namespace that is not the release's: same image, none of its labels
    cluster.kubectl("-n", namespace, "delete", "pod", "outsider", "--ignore-not-found", "--wait=true")
    cluster.kubectl(
        "-n",
        namespace,
        "run",
        "outsider",
        f"--image={image}",
        "--image-pull-policy=Never",
        "--restart=Never",
        "--overrides",
        json.dumps({"spec": {"securityContext": {"runAsNonRoot": True, "runAsUser": 10001}}}),
        "--command",
        "--",
        "sleep",
        "600",
    )
    try:
        cluster.kubectl("-n", namespace, "wait", "pod/outsider", "--for=condition=Ready", "--timeout=120s", timeout=130)
        for host, port in targets.items():
            assert _connects(cluster, namespace, backend, host, port), f"the backend cannot reach {host}:{port}"
            reached = _connects(cluster, namespace, "outsider", host, port)
            assert not reached, f"a pod outside the release reached {host}:{port}"
    finally:
        cluster.kubectl("-n", namespace, "delete", "pod", "outsider", "--ignore-not-found", "--wait=true", check=False)


def _pod_uids(release: Release) -> dict[str, str]:
    """Each pod's uid by its component (a store's pod by its name)."""
    uids = {}
    for pod in _pods(release):
        meta = pod["metadata"]
        uids[meta["labels"].get("app.kubernetes.io/component", meta["name"])] = meta["uid"]
    return uids


def test_upgrade_with_a_changed_value_rolls_only_its_pods(release: Release) -> None:
    before = _pod_uids(release)
    release.cluster.helm_cmd(
        "upgrade",
        release.name,
        str(CHART),
        "-n",
        release.namespace,
        "-f",
        str(CLUSTER_VALUES),
        "--set",
        "collector.metricsTenant=upgraded",
        "--wait",
        "--timeout",
        "5m",
    )
    deadline = time.monotonic() + 120
    while any(not _ready(pod) for pod in _pods(release)) or len(_pods(release)) != len(before):
        assert time.monotonic() < deadline, [p["metadata"]["name"] for p in _pods(release) if not _ready(p)]
        time.sleep(1)
    after = _pod_uids(release)
    rolled = {name for name in before if after.get(name) != before[name]}
    assert rolled == {"collector"}, (before, after)
    token_after = release.token()
    assert token_after, "the API token survives the upgrade"


def test_uninstall_leaves_only_what_the_chart_keeps(release: Release) -> None:
    cluster = release.cluster
    cluster.helm_cmd("uninstall", release.name, "-n", release.namespace, "--wait", "--timeout", "3m")
    # helm's --wait does not wait for pods to terminate (the backend's grace period is 45 s)
    cluster.kubectl("-n", release.namespace, "wait", "pod", "--all", "--for=delete", "--timeout=120s", timeout=130)
    left = cluster.kubectl(
        "-n",
        release.namespace,
        "get",
        "all,configmap,secret,pvc,networkpolicy,serviceaccount,role,rolebinding",
        "-o",
        "jsonpath={range .items[*]}{.kind}/{.metadata.name}{'\\n'}{end}",
    ).stdout.split()
    ours = [item for item in left if item not in ("ConfigMap/kube-root-ca.crt", "ServiceAccount/default")]
    # documented in the README: the backend's data claim (helm.sh/resource-policy: keep) and the
    # StatefulSets' volume claims (Kubernetes keeps those)
    expected = {
        f"PersistentVolumeClaim/{release.fullname}-data",
        *{f"PersistentVolumeClaim/data-{release.name}-{store}-0" for store in STORES},
    }
    assert set(ours) == expected, ours
