# Shared settings of the single-node cluster's scripts (sourced by build.sh, up.sh, down.sh).
# Builds and unpacked packages are cached by version under $CACHE; the running cluster's
# certificates, tokens, data, pids and logs live under $K8S_STATE (never in the repository).
K8S_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$K8S_DIR/../.." && pwd)"
CACHE="${TRACETAX_CACHE_DIR:-$HOME/.cache/tracetax}"
K8S_STATE="${TRACETAX_K8S_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/tracetax-k8s}"

K8S_VERSION=v1.34.3                 # k8s.io/kubernetes, through ./build/go.mod
K8S_BIN="$CACHE/k8s-$K8S_VERSION/bin"
COREDNS_VERSION=v1.15.0             # github.com/coredns/coredns, through ./coredns/go.mod
COREDNS_BIN="$CACHE/coredns-$COREDNS_VERSION/bin/coredns"
KUBE_ROUTER_VERSION=v2.1.0          # github.com/cloudnativelabs/kube-router/v2 (NetworkPolicy enforcer)
KUBE_ROUTER_BIN="$CACHE/kube-router-$KUBE_ROUTER_VERSION/bin/kube-router"
# Debian bookworm's packages, unpacked (not installed: the daemons' packages would start
# services and write /etc; see docs/native-stack.md). The versions are what bookworm serves.
DEBIAN_PACKAGES=(etcd-server containerd runc containernetworking-plugins)
DEBIAN_ROOT="$CACHE/k8s-debian/root"
HELM_VERSION="$(sed -n 's/^HELM_VERSION=\([^ ]*\).*/\1/p' "$REPO_ROOT/scripts/check-packaging.sh")"
HELM="$CACHE/tools/helm-$HELM_VERSION/bin/helm"
IMAGES="$CACHE/k8s-images"
PAUSE_IMAGE=docker.io/tracetax/pause:$K8S_VERSION
COREDNS_IMAGE=docker.io/tracetax/coredns:$COREDNS_VERSION

# Network. Everything listens on the node address, which is the pod bridge's gateway: a
# host-only address (no traffic leaves the machine, nothing binds eth0), reachable from pods.
# The ranges avoid Docker's 172.16/12 and the lead's native stack's ports.
NODE_NAME=tracetax-node
BRIDGE=tt-k8s0
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/24
API_SERVICE_IP=10.96.0.1
DNS_SERVICE_IP=10.96.0.10
CLUSTER_DOMAIN=cluster.local
APISERVER_PORT=6443
ETCD_CLIENT_PORT=23790
ETCD_PEER_PORT=23800

PKI="$K8S_STATE/pki"
LOGS="$K8S_STATE/logs"
PIDS="$K8S_STATE/pids"
CONTAINERD_SOCK="$K8S_STATE/run/containerd.sock"
export KUBECONFIG="$K8S_STATE/admin.kubeconfig"
export PATH="$K8S_BIN:$DEBIAN_ROOT/usr/bin:$DEBIAN_ROOT/usr/sbin:$PATH"
# Components never send telemetry to the lead's native stack (4317/4318).
unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT OTEL_TRACES_EXPORTER

ctr_k8s() { "$DEBIAN_ROOT/usr/bin/ctr" --address "$CONTAINERD_SOCK" -n k8s.io "$@"; }
