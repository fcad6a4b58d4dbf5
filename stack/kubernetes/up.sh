#!/usr/bin/env bash
# Start the single-node cluster (run as root; `make cluster-up`): etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd, kubelet, kube-proxy, kube-router, CoreDNS.
# Idempotent: a running cluster is left as it is. A component that does not become ready is
# named with its log, and everything started is stopped again (down.sh): nothing is left behind.
set -euo pipefail
. "$(dirname "$0")/env.sh"

start_ns=$(date +%s%N)
say() {
  local ms=$((($(date +%s%N) - start_ns) / 1000000))
  printf '[cluster-up %3d.%01ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" | tee -a "$LOGS/up.log"
}
alive() { [ -f "$PIDS/$1.pid" ] && kill -0 "$(cat "$PIDS/$1.pid")" 2>/dev/null; }

fail() { # COMPONENT WHY
  local log="$LOGS/$1.log"
  {
    echo "cluster-up: $1 failed: $2"
    if [ -f "$log" ]; then echo "  its log: $log (last lines below)"; tail -n 15 "$log" | sed 's/^/  | /'; fi
    echo "  stopping what was started (the logs stay in $LOGS)"
  } >&2
  "$K8S_DIR/down.sh" >"$LOGS/down-after-failure.log" 2>&1 || echo "  down.sh reported leftovers: $LOGS/down-after-failure.log" >&2
  exit 1
}

# wait_ready COMPONENT SECONDS COMMAND...: until COMMAND succeeds, or fail naming COMPONENT
wait_ready() {
  local component=$1 timeout=$2 deadline=$((SECONDS + $2))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if [ -f "$PIDS/$component.pid" ] && ! alive "$component"; then fail "$component" "exited during startup"; fi
    [ $SECONDS -lt $deadline ] || fail "$component" "not ready after ${timeout} s"
    sleep 0.3
  done
  say "$component ready"
}

# launch NAME COMMAND...: run in its own session (a Ctrl-C of make does not reach it), log and pid under the state dir
launch() {
  local name=$1
  shift
  setsid "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  echo $! >"$PIDS/$name.pid"
}

preflight() {
  [ "$(id -u)" = 0 ] || { echo "cluster-up: run as root (the kubelet, containerd and kube-proxy manage cgroups, mounts and iptables)" >&2; exit 1; }
  local missing=() f
  for f in "$K8S_BIN/kube-apiserver" "$K8S_BIN/kubelet" "$COREDNS_BIN" "$DEBIAN_ROOT/usr/bin/containerd" \
    "$IMAGES/pause-$K8S_VERSION.tar" "$IMAGES/coredns-$COREDNS_VERSION.tar"; do
    [ -e "$f" ] || missing+=("$f")
  done
  [ ${#missing[@]} = 0 ] || { echo "cluster-up: not built yet (run make cluster-build): ${missing[*]}" >&2; exit 1; }
  for f in iptables ip6tables ipset conntrack openssl curl; do
    command -v "$f" >/dev/null || { echo "cluster-up: $f is missing (apt-get install iptables ipset conntrack openssl curl)" >&2; exit 1; }
  done
  local port component
  # a port in use by our own running component is no conflict: up.sh starts only what is not running
  declare -A owner=([$ETCD_CLIENT_PORT]=etcd [$ETCD_PEER_PORT]=etcd [$APISERVER_PORT]=kube-apiserver [10250]=kubelet [10248]=kubelet
    [10249]=kube-proxy [10256]=kube-proxy [10257]=kube-controller-manager [10259]=kube-scheduler)
  for port in "${!owner[@]}"; do
    component=${owner[$port]}
    if ! alive "$component" && ss -Hltn "sport = :$port" | grep -q .; then
      echo "cluster-up: port $port is taken by another process ($(ss -Hltnp "sport = :$port" | grep -o 'users:.*' | head -1)); the cluster needs it" >&2
      exit 1
    fi
  done
}

# What the components change on the host, recorded once before the first start so down.sh can
# restore it: sysctls (the kubelet sets some), and the host paths they create outside the state dir.
record_host() {
  local host="$K8S_STATE/host-before"
  [ -f "$host/.complete" ] && return 0
  mkdir -p "$host"
  # (not ip_forward: nothing here sets it, and Docker, started before or after, may rely on it)
  sysctl -e vm.overcommit_memory kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes \
    net.ipv4.conf.all.route_localnet net.netfilter.nf_conntrack_max 2>/dev/null | tr -d ' ' >"$host/sysctl.txt"
  local path
  for path in /run/netns /run/containerd /var/lib/cni /var/log/containers /var/log/pods /var/lib/kubelet /var/run/kube-router /var/lib/kube-router; do
    [ -e "$path" ] && echo "present $path" || echo "absent $path"
  done >"$host/paths.txt"
  iptables-save >"$host/iptables.txt" 2>/dev/null || true
  touch "$host/.complete"
}

write_configs() {
  local etc="$K8S_STATE/etc"
  mkdir -p "$etc/cni" "$K8S_STATE/run" "$K8S_STATE/containerd" "$K8S_STATE/cni/ipam"
  # no nameserver: pods' DNS is CoreDNS, and CoreDNS answers cluster names only
  echo "# tracetax single-node cluster: no upstream resolver" >"$etc/resolv.conf"
  cat >"$etc/containerd.toml" <<EOF
version = 2
root = "$K8S_STATE/containerd/root"
state = "$K8S_STATE/containerd/state"
oom_score = 0
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$K8S_STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # This VM refuses a negative oom_score_adj (no CAP_SYS_RESOURCE in the bounding set): the CRI's
  # -998 for the sandbox makes runc fail with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  disable_apparmor = true
  disable_hugetlb_controller = true
  tolerate_missing_hugetlb_controller = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$DEBIAN_ROOT/usr/sbin/runc"
        Root = "$K8S_STATE/run/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$DEBIAN_ROOT/usr/lib/cni"
    conf_dir = "$etc/cni"
    max_conf_num = 1
EOF
  # The bridge exists before the first pod (up.sh makes it, with the node address as gateway):
  # isGateway false so the plugin neither re-addresses it nor turns on ip_forward; no masquerade,
  # so no pod traffic leaves the machine. hairpinMode: a pod reaches itself through its Service.
  cat >"$etc/cni/10-tracetax.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "tracetax",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP", "rangeStart": "${NODE_IP%.*}.10"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$K8S_STATE/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  cat >"$etc/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $PKI/kubelet-serving.crt
tlsPrivateKeyFile: $PKI/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
cgroupDriver: cgroupfs
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: $CLUSTER_DOMAIN
resolvConf: $etc/resolv.conf
failSwapOn: false
# the VM refuses negative scores (see containerd.toml)
oomScoreAdj: 0
# no registry to pull from: never garbage-collect the imported images, never evict for disk
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", nodefs.inodesFree: "1%", imagefs.available: "1%"}
podLogsDir: $K8S_STATE/pod-logs
volumePluginDir: $K8S_STATE/kubelet/volume-plugins
shutdownGracePeriod: 0s
serializeImagePulls: false
EOF
  cat >"$etc/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $K8S_STATE/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# NodePorts on the node address only, never on eth0 or loopback (route_localnet stays 0)
nodePortAddresses: [$NODE_IP/32]
iptables: {localhostNodePorts: false}
# leave the host's conntrack settings as they are
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
}

make_bridge() {
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  [[ "$(ip -4 -o addr show dev "$BRIDGE")" == *" $NODE_IP/"* ]] || ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # Bridged pod traffic passes the FORWARD chain (br_netfilter), whose policy Docker sets to
  # DROP. Accept it at the chain's end: after kube-router's policy rules (it inserts its jump
  # first), so a NetworkPolicy still decides, and after Docker's, which match docker0 only.
  iptables -N TRACETAX-K8S-FORWARD 2>/dev/null || iptables -F TRACETAX-K8S-FORWARD
  iptables -A TRACETAX-K8S-FORWARD -i "$BRIDGE" -j ACCEPT
  iptables -A TRACETAX-K8S-FORWARD -o "$BRIDGE" -j ACCEPT
  iptables -C FORWARD -j TRACETAX-K8S-FORWARD 2>/dev/null || iptables -A FORWARD -j TRACETAX-K8S-FORWARD
}

start_etcd() {
  alive etcd && return 0
  mkdir -p "$K8S_STATE/etcd"
  launch etcd "$DEBIAN_ROOT/usr/bin/etcd" --name tracetax --data-dir "$K8S_STATE/etcd" \
    --listen-client-urls "https://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "https://127.0.0.1:$ETCD_CLIENT_PORT" \
    --listen-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "tracetax=https://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
    --cert-file "$PKI/etcd.crt" --key-file "$PKI/etcd.key" --trusted-ca-file "$PKI/ca.crt" --client-cert-auth \
    --peer-cert-file "$PKI/etcd.crt" --peer-key-file "$PKI/etcd.key" --peer-trusted-ca-file "$PKI/ca.crt" --peer-client-cert-auth \
    --logger zap --log-outputs stderr
  wait_ready etcd 60 curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/apiserver-etcd-client.crt" --key "$PKI/apiserver-etcd-client.key" \
    "https://127.0.0.1:$ETCD_CLIENT_PORT/health"
}

start_apiserver() {
  alive kube-apiserver && return 0
  launch kube-apiserver "$K8S_BIN/kube-apiserver" \
    --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port="$APISERVER_PORT" \
    --etcd-servers="https://127.0.0.1:$ETCD_CLIENT_PORT" --etcd-cafile="$PKI/ca.crt" \
    --etcd-certfile="$PKI/apiserver-etcd-client.crt" --etcd-keyfile="$PKI/apiserver-etcd-client.key" \
    --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" --client-ca-file="$PKI/ca.crt" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-account-issuer="https://kubernetes.default.svc.$CLUSTER_DOMAIN" \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$PKI/ca.crt" --kubelet-preferred-address-types=InternalIP \
    --profiling=false --v=1
  wait_ready kube-apiserver 120 kubectl get --raw /readyz
  kubectl apply -f "$K8S_DIR/manifests/cluster-rbac.yaml" >>"$LOGS/kubectl.log"
  "$K8S_DIR/volumes.sh" >>"$LOGS/kubectl.log"
}

start_control_plane() {
  alive kube-controller-manager || launch kube-controller-manager "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$K8S_STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$K8S_STATE/controller-manager.kubeconfig" --authorization-kubeconfig="$K8S_STATE/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
    --allocate-node-cidrs=true --cluster-cidr="$POD_CIDR" --node-cidr-mask-size="${POD_CIDR#*/}" \
    --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false --v=1
  alive kube-scheduler || launch kube-scheduler "$K8S_BIN/kube-scheduler" \
    --kubeconfig="$K8S_STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig="$K8S_STATE/scheduler.kubeconfig" --authorization-kubeconfig="$K8S_STATE/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false --profiling=false --v=1
  wait_ready kube-controller-manager 60 curl -sfk https://127.0.0.1:10257/healthz
  wait_ready kube-scheduler 60 curl -sfk https://127.0.0.1:10259/healthz
}

start_containerd() {
  alive containerd && return 0
  launch containerd "$DEBIAN_ROOT/usr/bin/containerd" --config "$K8S_STATE/etc/containerd.toml"
  wait_ready containerd 30 ctr_k8s version
  local image
  for image in "$IMAGES/pause-$K8S_VERSION.tar" "$IMAGES/coredns-$COREDNS_VERSION.tar"; do
    ctr_k8s images import "$image" >>"$LOGS/containerd.log" 2>&1 || fail containerd "could not import $image"
  done
}

start_node() {
  mkdir -p "$K8S_STATE/kubelet" "$K8S_STATE/pod-logs"
  alive kubelet || launch kubelet "$K8S_BIN/kubelet" --config="$K8S_STATE/etc/kubelet.yaml" \
    --kubeconfig="$K8S_STATE/kubelet.kubeconfig" --root-dir="$K8S_STATE/kubelet" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
  alive kube-proxy || launch kube-proxy "$K8S_BIN/kube-proxy" --config="$K8S_STATE/etc/kube-proxy.yaml" --v=1
  # kube-router looks its Node up once at start and exits when it is not there yet: on the first
  # start of a new cluster (found by the cold CI run) the kubelet has not registered it.
  wait_ready kubelet 90 kubectl get node "$NODE_NAME"
  # kube-router as the NetworkPolicy enforcer only (iptables + ipset); routing, service proxy
  # and CNI are the bridge plugin's and kube-proxy's
  if [ ! -x "$KUBE_ROUTER_BIN" ]; then
    say "no NetworkPolicy enforcer: kube-router is not built ($KUBE_ROUTER_BIN); policies are accepted, not enforced"
  elif ! alive kube-router; then launch kube-router "$KUBE_ROUTER_BIN" --kubeconfig="$K8S_STATE/kube-router.kubeconfig" \
    --hostname-override="$NODE_NAME" --run-firewall=true --run-router=false --run-service-proxy=false \
      --enable-cni=false --health-port=0 --metrics-port=0 --service-cluster-ip-range="$SERVICE_CIDR" --v=1
  fi
  wait_ready kubelet 90 kubectl wait node "$NODE_NAME" --for=condition=Ready --timeout=1s
  wait_ready kube-proxy 60 curl -sf http://127.0.0.1:10256/healthz
  [ ! -x "$KUBE_ROUTER_BIN" ] || wait_ready kube-router 60 iptables -S KUBE-ROUTER-FORWARD
}

start_dns() {
  sed -e "s|@CLUSTER_DOMAIN@|$CLUSTER_DOMAIN|g" -e "s|@COREDNS_IMAGE@|$COREDNS_IMAGE|g" -e "s|@DNS_SERVICE_IP@|$DNS_SERVICE_IP|g" \
    "$K8S_DIR/manifests/coredns.yaml" | kubectl apply -f - >>"$LOGS/kubectl.log"
  wait_ready coredns 90 kubectl -n kube-system rollout status deployment/coredns --timeout=1s
}

preflight
mkdir -p "$K8S_STATE" "$LOGS" "$PIDS"
chmod 700 "$K8S_STATE"
echo "=== cluster-up $(date -u +%FT%TZ)" >>"$LOGS/up.log"
record_host
"$K8S_DIR/pki.sh"
write_configs
make_bridge
start_etcd
start_apiserver
start_control_plane
start_containerd
start_node
start_dns
say "cluster up: KUBECONFIG=$KUBECONFIG (admin); make cluster-down stops it"
