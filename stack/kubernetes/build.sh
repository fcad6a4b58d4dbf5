#!/usr/bin/env bash
# Build (once per version, into the cache) everything the single-node cluster runs:
#   Kubernetes' commands (./build/go.mod), CoreDNS (./coredns), kube-router, helm; Debian's etcd,
#   containerd, runc and CNI plugins (unpacked); the pause and CoreDNS images (OCI archives).
# Each step is skipped when its output is already there, so a warm run takes a second.
set -euo pipefail
. "$(dirname "$0")/env.sh"
. "$REPO_ROOT/scripts/lib/go-tool.sh"

step() { printf '[cluster-build %s] %s\n' "$(date +%T)" "$*"; }
timed() { local start=$SECONDS; "$@"; step "$1: $((SECONDS - start)) s"; }

kubernetes() {
  local commands=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl) c
  for c in "${commands[@]}"; do [ -x "$K8S_BIN/$c" ] || break; done
  [ -x "$K8S_BIN/$c" ] && return 0
  local minor="${K8S_VERSION#v1.}" ldflags="-s -w" pkg
  minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  step "building Kubernetes $K8S_VERSION (${commands[*]}): about 15 min on 2 cores, once"
  rm -rf "$K8S_BIN.partial" && mkdir -p "$K8S_BIN.partial"
  # ONE go build for all commands: the packages they share compile once.
  (cd "$K8S_DIR/build" && CGO_ENABLED=0 GOFLAGS="-buildvcs=false -mod=readonly" nice -n 10 \
    go build -trimpath -ldflags "$ldflags" -o "$K8S_BIN.partial/" "${commands[@]/#/k8s.io/kubernetes/cmd/}")
  rm -rf "$K8S_BIN" && mv "$K8S_BIN.partial" "$K8S_BIN"
}

coredns() {
  [ -x "$COREDNS_BIN" ] && return 0
  step "building CoreDNS $COREDNS_VERSION (the plugins the Corefile uses)"
  mkdir -p "$(dirname "$COREDNS_BIN")"
  (cd "$K8S_DIR/coredns" && CGO_ENABLED=0 GOFLAGS="-buildvcs=false -mod=readonly" nice -n 10 \
    go build -trimpath -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION" -o "$COREDNS_BIN.tmp" .)
  mv "$COREDNS_BIN.tmp" "$COREDNS_BIN"
}

kube_router() {
  [ -x "$KUBE_ROUTER_BIN" ] && return 0
  step "building kube-router $KUBE_ROUTER_VERSION (NetworkPolicy enforcer)"
  go_tool kube-router "$KUBE_ROUTER_VERSION" github.com/cloudnativelabs/kube-router/v2 ./cmd/kube-router "$KUBE_ROUTER_BIN" \
    "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION"
}

debian() {
  [ -f "$DEBIAN_ROOT/.complete" ] && return 0
  command -v apt-get >/dev/null || { echo "cluster-build: apt-get is needed to fetch ${DEBIAN_PACKAGES[*]} (Debian)" >&2; return 1; }
  step "unpacking Debian's ${DEBIAN_PACKAGES[*]} into $DEBIAN_ROOT"
  local debs="$CACHE/k8s-debian/debs"
  rm -rf "$debs" "$DEBIAN_ROOT" && mkdir -p "$debs" "$DEBIAN_ROOT"
  # apt-get update only when the lists lack a package; the cache is not the _apt user's to write
  apt-cache show "${DEBIAN_PACKAGES[@]}" >/dev/null 2>&1 || apt-get update -qq
  (cd "$debs" && apt-get -o APT::Sandbox::User=root download -qq "${DEBIAN_PACKAGES[@]}")
  local deb
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$DEBIAN_ROOT"; done
  touch "$DEBIAN_ROOT/.complete"
}

images() {
  local pause_tar="$IMAGES/pause-$K8S_VERSION.tar" coredns_tar="$IMAGES/coredns-$COREDNS_VERSION.tar"
  if [ ! -f "$pause_tar" ]; then
    step "building the pause image from Kubernetes' own build/pause/linux/pause.c"
    local src
    src="$(cd "$K8S_DIR/build" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c"
    mkdir -p "$IMAGES"
    gcc -Os -static -DVERSION="$K8S_VERSION" -o "$IMAGES/pause" "$src" && strip "$IMAGES/pause"
    python3 "$K8S_DIR/oci_image.py" "$pause_tar" "$PAUSE_IMAGE" --file "$IMAGES/pause:/pause" --entrypoint /pause --user 65535
  fi
  if [ ! -f "$coredns_tar" ]; then
    python3 "$K8S_DIR/oci_image.py" "$coredns_tar" "$COREDNS_IMAGE" --file "$COREDNS_BIN:/coredns" --entrypoint /coredns --user 65532
  fi
}

# kube-proxy and kube-router run these by name, with their libraries and extension modules where
# Debian puts them: installed (tools only, no service), not unpacked
host_tools() {
  command -v iptables >/dev/null && command -v ipset >/dev/null && command -v conntrack >/dev/null && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "installing Debian's iptables, ipset and conntrack (kube-proxy and kube-router run them)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables ipset conntrack >/dev/null
  else
    echo "cluster-build: iptables, ipset and conntrack are missing: install them (apt-get install iptables ipset conntrack)" >&2
    return 1
  fi
}

helm() {
  [ -x "$HELM" ] && return 0
  step "installing helm $HELM_VERSION and the packaging tools (scripts/check-packaging.sh --install-only)"
  "$REPO_ROOT/scripts/check-packaging.sh" --install-only
}

command -v go >/dev/null || { echo "cluster-build: Go is needed (Go >= 1.26) to build Kubernetes and CoreDNS" >&2; exit 1; }
command -v gcc >/dev/null || { echo "cluster-build: gcc is needed to compile the pause container (apt-get install gcc libc6-dev)" >&2; exit 1; }
for part in host_tools debian kubernetes coredns kube_router helm images; do timed "$part"; done
