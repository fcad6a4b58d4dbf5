"""Session fixtures of the chart tests on the real single-node Kubernetes (stack/kubernetes/).

`cluster`: started once for the session by stack/kubernetes/up.sh and stopped by down.sh at its
end, also when a test failed; a cluster that was already running (`make cluster-up`) is reused
and left running. `release`: the chart installed once into its own namespace with the images
imported from Docker, uninstalled at the end with whatever it left (PVCs, the namespace), so the
next session starts from the same place.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
K8S = REPO / "stack" / "kubernetes"
CHART = REPO / "helm" / "tracetax"
# The chart's values on this cluster: the images as imported, nothing pulled.
CLUSTER_VALUES = K8S / "tracetax-values.yaml"
NAMESPACE = "tracetax-test"
RELEASE = "tracetax"


def _env_sh(*names: str) -> dict[str, str]:
    """Settings of stack/kubernetes/env.sh (the one place they are written)."""
    script = f". {K8S / 'env.sh'}; " + "; ".join(f'printf "%s\\n" "${name}"' for name in names)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines(), strict=True))


@dataclass(frozen=True)
class Cluster:
    kubeconfig: str
    helm: str
    bin_dir: str
    state: str

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "KUBECONFIG": self.kubeconfig, "PATH": f"{self.bin_dir}:{os.environ['PATH']}"}

    def kubectl(self, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [f"{self.bin_dir}/kubectl", *args], capture_output=True, text=True, env=self.env, timeout=timeout
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
        return result

    def helm_cmd(self, *args: str, check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        env = {
            **self.env,
            **{f"HELM_{kind}_HOME": f"{self.state}/helm/{kind.lower()}" for kind in ("CACHE", "CONFIG", "DATA")},
        }
        result = subprocess.run([self.helm, *args], capture_output=True, text=True, env=env, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
        return result

    def running(self) -> bool:
        return self.kubectl("get", "--raw", "/readyz", check=False, timeout=10).returncode == 0


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    if os.geteuid() != 0:
        pytest.fail("the cluster tests run as root (the kubelet and kube-proxy manage cgroups, mounts, iptables)")
    settings = _env_sh("KUBECONFIG", "HELM", "K8S_BIN", "K8S_STATE")
    found = Cluster(settings["KUBECONFIG"], settings["HELM"], settings["K8S_BIN"], settings["K8S_STATE"])
    if Path(found.kubeconfig).exists() and found.running():
        yield found  # the user's `make cluster-up`: reuse, do not stop
        return
    up = subprocess.run([str(K8S / "up.sh")], capture_output=True, text=True)
    if up.returncode != 0:
        pytest.fail(f"the cluster did not start:\n{up.stdout}{up.stderr}")
    try:
        yield found
    finally:
        down = subprocess.run([str(K8S / "down.sh")], capture_output=True, text=True)
        assert down.returncode == 0, f"cluster-down left something behind:\n{down.stdout}{down.stderr}"


@dataclass(frozen=True)
class Release:
    cluster: Cluster
    namespace: str
    name: str
    install_to_ready_s: float

    @property
    def fullname(self) -> str:
        return self.name if "tracetax" in self.name else f"{self.name}-tracetax"

    def token(self) -> str:
        encoded = self.cluster.kubectl(
            "-n", self.namespace, "get", "secret", f"{self.fullname}-api-token", "-o", "jsonpath={.data.api-token}"
        ).stdout
        return base64.b64decode(encoded).decode()

    def pod(self, component: str) -> str:
        return self.cluster.kubectl(
            "-n",
            self.namespace,
            "get",
            "pod",
            "-l",
            f"app.kubernetes.io/component={component}",
            "-o",
            "jsonpath={.items[0].metadata.name}",
        ).stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def port_forward(cluster: Cluster, namespace: str, target: str, remote_port: int) -> Iterator[int]:
    """`kubectl port-forward` to TARGET on a free local port (never 8000: the native stack's)."""
    port = _free_port()
    process = subprocess.Popen(
        [f"{cluster.bin_dir}/kubectl", "-n", namespace, "port-forward", target, f"{port}:{remote_port}"],
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read() if process.stdout and process.poll() is not None else ""
                raise AssertionError(f"kubectl port-forward {target} did not listen on {port}: {output}")
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def _uninstall(cluster: Cluster) -> None:
    cluster.helm_cmd("uninstall", RELEASE, "-n", NAMESPACE, "--wait", "--timeout", "3m", check=False)
    cluster.kubectl(
        "delete",
        "namespace",
        NAMESPACE,
        "--wait=true",
        "--timeout=180s",
        "--ignore-not-found",
        check=False,
        timeout=200,
    )
    subprocess.run([str(K8S / "volumes.sh")], env=cluster.env, capture_output=True, check=False)


@pytest.fixture(scope="session")
def release(cluster: Cluster) -> Iterator[Release]:
    if shutil.which("docker") is None:
        pytest.fail("the chart's images come from Docker (docker compose build): docker is not installed")
    images = [str(K8S / "images.sh"), str(CLUSTER_VALUES)]
    imported = subprocess.run(images, capture_output=True, text=True, env=cluster.env)
    if imported.returncode != 0:
        pytest.fail(f"could not import the chart's images:\n{imported.stdout}{imported.stderr}")
    _uninstall(cluster)  # a release an interrupted session left
    start = time.monotonic()
    cluster.helm_cmd(
        "install",
        RELEASE,
        str(CHART),
        "-n",
        NAMESPACE,
        "--create-namespace",
        "-f",
        str(CLUSTER_VALUES),
        "--wait",
        "--timeout",
        "10m",
    )
    elapsed = time.monotonic() - start
    try:
        yield Release(cluster, NAMESPACE, RELEASE, elapsed)
    finally:
        _uninstall(cluster)
